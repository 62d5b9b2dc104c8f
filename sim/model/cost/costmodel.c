/* Presets and formulas of the cost model (docs/configs.md gives each source). Costs are rounded up to
 * whole nanoseconds once, from doubles computed in a fixed order, so every machine gets the same integers. */
#include "costmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Published figures: 132 SMs; 989.4 dense bf16 TFLOP/s = 132 SMs x 4096 FLOP/clk x 1830 MHz; HBM3 3.35 TB/s
 * (H100, H800), HBM3e 4.8 TB/s (H200). L2 bandwidth is not published: 5.5 TB/s is a microbenchmark figure.
 * Latencies: the two clusters measured on an H100 (../shared/reference/hopper.md), same die on all three. */
static const SimHardware presets[] = {
    { "h100-sxm", 132, 1830, 989.4, 0.6, 5500, 3350, 500, 580, 670 },
    { "h800-sxm", 132, 1830, 989.4, 0.6, 5500, 3350, 500, 580, 670 },
    { "h200-sxm", 132, 1830, 989.4, 0.6, 5500, 4800, 500, 580, 670 },
};

bool sim_cost_preset(const char *name, SimHardware *out)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(presets[i].preset, name) == 0) {
            *out = presets[i];
            return true;
        }
    return false;
}

const char *sim_cost_preset_names(void)
{
    return "h100-sxm, h800-sxm, h200-sxm";
}

/* The GPU a preset stands for, as its marketing name appears in nvidia-smi's ("NVIDIA H200"): the part of
 * the preset's name before its first '-', upper-cased ("h200-sxm" -> "H200"); "" for a custom GPU. */
void sim_cost_preset_gpu(const char *preset, char *out, size_t len)
{
    SimHardware hw;
    size_t n = 0;
    if (preset && sim_cost_preset(preset, &hw))
        for (; n + 1 < len && preset[n] && preset[n] != '-'; n++)
            out[n] = (char)(preset[n] >= 'a' && preset[n] <= 'z' ? preset[n] - 'a' + 'A' : preset[n]);
    if (len)
        out[n] = '\0';
}

/* FA3 hopper/ sm90 backward tiles (../shared/reference/fa3-schedules.md); hdim 256 has no
 * deterministic mode. */
bool sim_cost_fa3_tile(int64_t head_dim, Mask mask, int *block_m, int *block_n)
{
    switch (head_dim) {
    case 64: *block_m = 128, *block_n = 128; return true;
    case 96: *block_m = 64, *block_n = 128; return true;
    case 128: *block_m = mask == MASK_CAUSAL ? 64 : 80, *block_n = 128; return true;
    case 192: *block_m = 64, *block_n = 96; return true;
    }
    return false;
}

int sim_cost_elem_bytes(SimDtype dtype)
{
    (void)dtype; /* bf16 and fp16 are both 2 bytes */
    return 2;
}

/* size_one_head = Sq (d + dv) elem + Sq d 4; S_w = 2^floor(log2(40 MiB / size_one_head)), 1 above 40 MiB. */
int sim_cost_head_swizzle(int64_t seqlen_q, int64_t head_dim, int elem_bytes)
{
    const int64_t l2_budget = 40LL << 20;
    int64_t size_one_head = seqlen_q * 2 * head_dim * elem_bytes + seqlen_q * head_dim * 4;
    if (size_one_head <= 0 || size_one_head > l2_budget)
        return 1;
    int64_t ratio = l2_budget / size_one_head;
    int sw = 1;
    while ((int64_t)sw * 2 <= ratio && sw < (1 << 30))
        sw *= 2;
    return sw;
}

/* Saturates: a cost at or over 2^63 ns (or NaN, from a zero rate) becomes INT64_MAX, never an undefined
 * cast; callers refuse costs over their limits. */
static int64_t ceil_ns(double ns)
{
    double v = ceil(ns - 1e-9);
    return v < 9.2e18 ? (v > 0 ? (int64_t)v : 0) : INT64_MAX;
}

void sim_cost_derive(const SimShape *shape, const SimHardware *hw, SimCost *out)
{
    *out = (SimCost){ .block_m = shape->block_m, .block_n = shape->block_n };
    if (!out->block_m || !out->block_n)
        sim_cost_fa3_tile(shape->head_dim, shape->mask, &out->block_m, &out->block_n);
    int64_t d = shape->head_dim, bm = out->block_m, bn = out->block_n;
    int elem = sim_cost_elem_bytes(shape->dtype);
    /* 5 GEMMs of kBlockM x kBlockN x d per tile pair: S = Q K^T, dP = dO V^T, dV += P^T dO,
     * dQ = dS K, dK += dS^T Q; 2 FLOPs per multiply-add. */
    out->tile_flops = 2.0 * 5 * bm * bn * d;
    double avg_seqlen_k = shape->mask == MASK_CAUSAL ? shape->seqlen_k / 2.0 : (double)shape->seqlen_k;
    out->bwd_flops = 2.5 * 2 * shape->batch * shape->heads * (double)shape->seqlen_q * avg_seqlen_k * (2.0 * d);
    double flop_per_ns_sm = hw->tensor_tflops * 1e3 / hw->sm_count * hw->tensor_efficiency;
    double l2_bytes_per_ns_sm = hw->l2_bandwidth_gbps / hw->sm_count;
    double hbm_bytes_per_ns_sm = hw->hbm_bandwidth_gbps / hw->sm_count;
    out->c_ns = ceil_ns(out->tile_flops / flop_per_ns_sm);
    /* the fp32 dQ tile is read and written by the reduce-add */
    int64_t r_move = ceil_ns(2.0 * bm * d * 4 / l2_bytes_per_ns_sm);
    int64_t r_fixed = ceil_ns(hw->reduce_fixed_cycles * 1e3 / hw->clock_mhz);
    out->r_ns = r_move > INT64_MAX - r_fixed ? INT64_MAX : r_move + r_fixed; /* saturating, as ceil_ns */
    out->prologue_ns = ceil_ns(2.0 * bn * d * elem / hbm_bytes_per_ns_sm);
    out->wl = (Workload){
        .n_sm = hw->sm_count,
        .heads = (int)(shape->batch * shape->heads),
        .kv_tiles = (int)((shape->seqlen_k + bn - 1) / bn),
        .q_tiles = (int)((shape->seqlen_q + bm - 1) / bm),
        .mask = shape->mask,
        .tile_ratio = shape->mask == MASK_CAUSAL ? (int)(bn / bm) : 1,
        .head_swizzle = shape->mask == MASK_CAUSAL ? sim_cost_head_swizzle(shape->seqlen_q, d, elem) : 1,
    };
}

int32_t *sim_cost_latency_matrix(const SimHardware *hw, int n)
{
    int32_t *m = n > 0 ? calloc((size_t)n * n, sizeof *m) : NULL;
    if (!m)
        return NULL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            m[(size_t)i * n + j] = i == j ? 0 : (i < n / 2) == (j < n / 2) ? (int32_t)hw->latency_near_ns
                                                                            : (int32_t)hw->latency_far_ns;
    return m;
}

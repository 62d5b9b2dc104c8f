/* Split-KV decode model: shape -> FA3 tile geometry -> one engine program per split count -> latency.
 * Invariant: CTA k of the grid is (m-block fastest, then split, kv head, batch), as FA3's forward grid
 * (blockIdx.x = m-block, blockIdx.y = kv head x splits with the split fastest, blockIdx.z = batch), and
 * split i holds blocks [i*per, min((i+1)*per, n_blocks)) with per = ceil(n_blocks / splits). */
#include "decode.h"

#include <inttypes.h>

#include "engine.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

DecodeShape sim_decode_shape_default(void)
{
    return (DecodeShape){ .batch = 1, .hq = 8, .hkv = 1, .lq = 1, .lk = 512, .head_dim = 128,
                          .dtype = DECODE_BF16, .n_sm = 132 };
}

/* docs/decode.md derives each value. */
DecodeCosts sim_decode_costs_h100(void)
{
    return (DecodeCosts){ .hbm_gbps = 3000, .sm_tensor_gflops = 6061, .kernel_ns = 6000, .cta_fixed_ns = 1650,
                          .block_ns = 0, .combine_ns = 1800, .combine_split_ns = 4 };
}

static int element_bytes(DecodeDtype t)
{
    return t == DECODE_FP8 ? 1 : 2;
}

/* FA3's tile_size_fwd_sm90 for 16-bit inputs and a full mask (fa3-schedules.md); false if not known. */
static bool fa3_forward_tile(const DecodeShape *w, int *kblock_m, int *kblock_n)
{
    if (w->dtype == DECODE_FP8)
        return false;
    if (w->head_dim == 64)
        *kblock_m = 192, *kblock_n = w->is_paged ? 128 : 192;
    else if (w->head_dim == 128)
        *kblock_m = 128, *kblock_n = w->is_paged ? 128 : 176;
    else
        return false;
    return true;
}

static SimStatus check_sizes(const DecodeShape *w, SimError *err)
{
    if (w->batch < 1 || w->hq < 1 || w->hkv < 1 || w->lq < 1 || w->lk < 1 || w->head_dim < 1 || w->n_sm < 1)
        return sim_error_set(err, SIM_ERR_USAGE, "decode shape needs positive batch, heads, lengths, head "
                             "dim and SM count");
    if (w->hq % w->hkv)
        return sim_error_set(err, SIM_ERR_USAGE, "H_q = %d is not a multiple of H_kv = %d (--hq, --hkv)",
                             w->hq, w->hkv);
    if (w->kblock_m < 0 || w->kblock_n < 0)
        return sim_error_set(err, SIM_ERR_USAGE, "tile sizes must be positive");
    return SIM_OK;
}

SimStatus sim_decode_geometry(const DecodeShape *w, DecodeGeometry *g, SimError *err)
{
    if (check_sizes(w, err) != SIM_OK)
        return err->status;
    int m = 0, n = 0;
    bool is_known = fa3_forward_tile(w, &m, &n);
    if (w->kblock_m)
        m = w->kblock_m;
    if (w->kblock_n)
        n = w->kblock_n;
    if (!is_known && (!w->kblock_m || !w->kblock_n))
        return sim_error_set(err, SIM_ERR_USAGE, "FA3's forward tile is modelled only for bf16/fp16 with head "
                             "dim 64 or 128; give --kblock-m and --kblock-n for head dim %d %s", w->head_dim,
                             w->dtype == DECODE_FP8 ? "fp8" : "16-bit");
    int64_t rows = (int64_t)w->lq * (w->hq / w->hkv); /* PackGQA: a group's query heads share K/V */
    *g = (DecodeGeometry){ .kblock_m = m, .kblock_n = n, .n_blocks = ceil_div(w->lk, n),
                           .num_m_blocks = ceil_div(rows, m) };
    g->total_mblocks = (int64_t)w->batch * w->hkv * g->num_m_blocks;
    g->size_one_kv_head = w->lk * 2 * w->head_dim * element_bytes(w->dtype);
    return SIM_OK;
}

/* Per-block cost with `streams` CTAs loading at once: the padded tile's two GEMMs on one SM's tensor
 * cores, or its K+V bytes at the HBM bandwidth shared evenly by those CTAs, whichever is longer. */
static int64_t block_cost_ns(const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c,
                             int64_t streams)
{
    if (c->block_ns > 0)
        return c->block_ns;
    int64_t flops = 2 * (int64_t)g->kblock_m * g->kblock_n * 2 * w->head_dim;
    int64_t rate = c->sm_tensor_gflops * (w->dtype == DECODE_FP8 ? 2 : 1);
    int64_t bytes = (int64_t)g->kblock_n * 2 * w->head_dim * element_bytes(w->dtype);
    int64_t mma_ns = ceil_div(flops, rate > 0 ? rate : 1);
    int64_t mem_ns = ceil_div(bytes * streams, c->hbm_gbps > 0 ? c->hbm_gbps : 1);
    return mma_ns > mem_ns ? mma_ns : mem_ns;
}

static int64_t split_blocks(const DecodeGeometry *g, int64_t per, int split)
{
    int64_t left = g->n_blocks - per * split;
    return left <= 0 ? 0 : left < per ? left : per;
}

/* The main kernel's grid as an engine program; returns it and the summed CTA time in *busy_ns. */
static SimProgram *main_program(const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c,
                                const DecodeRun *r, int64_t *busy_ns)
{
    SimProgram *p = sim_program_new(w->n_sm, 1);
    sim_program_reserve(p, r->ctas, 0);
    int64_t per = r->blocks_per_split;
    *busy_ns = 0;
    for (int64_t bh = 0; bh < (int64_t)w->batch * w->hkv; bh++)
        for (int split = 0; split < r->splits; split++)
            for (int64_t m = 0; m < g->num_m_blocks; m++) {
                int32_t cta = sim_program_add_cta(p, -1);
                int64_t d = c->cta_fixed_ns + split_blocks(g, per, split) * r->block_ns;
                sim_program_add_op(p, 0, SIM_OP_COMPUTE, d, cta);
                *busy_ns += d;
            }
    sim_program_seal(p);
    return p;
}

SimStatus sim_decode_check_size(const DecodeShape *w, const DecodeCosts *c, int splits, SimError *err)
{
    DecodeGeometry g;
    if (sim_decode_geometry(w, &g, err) != SIM_OK)
        return err->status;
    if (splits < 1 || splits > SIM_DECODE_MAX_SPLITS)
        return sim_error_set(err, SIM_ERR_USAGE, "split count %d is outside 1..%d", splits,
                             SIM_DECODE_MAX_SPLITS);
    if (g.total_mblocks > SIM_DECODE_MAX_CTAS / splits)
        return sim_error_set(err, SIM_ERR_LIMIT, "%" PRId64 " m-blocks x %d splits is over the cap of %d "
                             "simulated CTAs", g.total_mblocks, splits, SIM_DECODE_MAX_CTAS);
    double mb = (double)g.total_mblocks * splits * SIM_DECODE_BYTES_PER_CTA / (1 << 20);
    if (c->max_memory_mb > 0 && mb > (double)c->max_memory_mb)
        return sim_error_set(err, SIM_ERR_LIMIT, "%" PRId64 " m-blocks x %d splits (%" PRId64 " CTAs) would need "
                             "about %.0f MB to simulate, over the cap of %" PRId64 " MB (--max-memory-mb)",
                             g.total_mblocks, splits, g.total_mblocks * splits, mb, c->max_memory_mb);
    return SIM_OK;
}

SimStatus sim_decode_run(const DecodeShape *w, const DecodeCosts *c, int splits, DecodeRun *out, SimError *err)
{
    DecodeGeometry g;
    if (sim_decode_check_size(w, c, splits, err) != SIM_OK || sim_decode_geometry(w, &g, err) != SIM_OK)
        return err->status;
    DecodeRun r = { .splits = splits, .ctas = g.total_mblocks * splits,
                    .blocks_per_split = ceil_div(g.n_blocks, splits) };
    int64_t full_splits = ceil_div(g.n_blocks, r.blocks_per_split);
    r.empty_ctas = (splits - full_splits) * g.total_mblocks;
    int64_t streams = r.ctas - r.empty_ctas;
    r.block_ns = block_cost_ns(w, &g, c, streams < w->n_sm ? streams : w->n_sm);
    int64_t busy_ns;
    SimProgram *p = main_program(w, &g, c, &r, &busy_ns);
    SimSchedule s = { 0 };
    if (sim_engine_run(p, &s, err) == SIM_OK) {
        r.main_ns = s.makespan_ns;
        if (splits > 1)
            r.combine_total_ns = c->combine_ns + splits * c->combine_split_ns * ceil_div(g.total_mblocks, w->n_sm);
        r.latency_ns = c->kernel_ns + r.main_ns + r.combine_total_ns;
        r.sm_occupancy = (double)(r.ctas < w->n_sm ? r.ctas : w->n_sm) / w->n_sm;
        r.sm_busy_fraction = r.main_ns ? (double)busy_ns / ((double)w->n_sm * r.main_ns) : 0;
        *out = r;
    }
    sim_schedule_clear(&s);
    sim_program_free(p);
    return err->status;
}

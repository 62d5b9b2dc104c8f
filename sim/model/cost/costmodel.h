/* Hardware presets and the cost model: from a workload shape and a GPU to the simulator's tiles, heads,
 * c (compute of one tile pair), r (ordered reduction of one dQ tile) and per-SM-pair signal latencies.
 * Every formula and its source is in docs/configs.md. Invariant: the results are integers (ns) computed
 * the same way on every machine; nothing here allocates except sim_cost_latency_matrix. */
#ifndef SIM_COSTMODEL_H
#define SIM_COSTMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attention.h"
#include "program.h"

typedef enum { DTYPE_BF16, DTYPE_FP16 } SimDtype;

/* One GPU. Rates are whole-device peaks; the model divides them by sm_count. */
typedef struct {
    const char *preset;         /* static name of the preset it started from, or "custom" */
    int sm_count;               /* SMs */
    int clock_mhz;              /* SM clock the peak rates refer to, MHz */
    double tensor_tflops;       /* dense bf16/fp16 tensor peak of the device, TFLOP/s */
    double tensor_efficiency;   /* fraction of the tensor peak the backward's GEMMs reach, (0, 1] */
    double l2_bandwidth_gbps;   /* L2 bandwidth of the device, GB/s (bytes read + written) */
    double hbm_bandwidth_gbps;  /* HBM bandwidth of the device, GB/s */
    int64_t reduce_fixed_cycles;/* fixed cost of one ordered reduction (semaphore wait, fence, atomic), cycles */
    int64_t latency_near_ns;    /* signal latency between SMs in the same L2 half, ns */
    int64_t latency_far_ns;     /* signal latency between SMs in different L2 halves, ns */
} SimHardware;

/* What one attention backward computes. */
typedef struct {
    int64_t batch, heads;       /* query heads per sample */
    int64_t kv_heads;           /* KV heads per sample (GQA: fewer than heads); 0: heads */
    int64_t seqlen_q, seqlen_k; /* tokens */
    int64_t head_dim;           /* d = d_v */
    Mask mask;
    SimDtype dtype;
    int block_m, block_n;       /* kBlockM x kBlockN; 0: FA3's sm90 backward table */
} SimShape;

/* The model's outputs for one (shape, hardware). */
typedef struct {
    int block_m, block_n;       /* tile actually used */
    double tile_flops;          /* 2 * 5 * kBlockM * kBlockN * d */
    double bwd_flops;           /* FA3's convention: 2.5 * 2 * b * h * Sq * avg Sk * (d + d_v) */
    int64_t c_ns, r_ns;         /* compute and reduction of one tile pair */
    int64_t prologue_ns;        /* K and V tile load from HBM at a CTA's start */
    Workload wl;                /* m = batch x heads, N, M, tile ratio, LPT head swizzle */
} SimCost;

/* Preset by name ("h100-sxm", "h800-sxm", "h200-sxm"); false when unknown. */
bool sim_cost_preset(const char *name, SimHardware *out);
/* Names of the presets, comma-separated, for messages. */
const char *sim_cost_preset_names(void);
/* The GPU a preset stands for ("h200-sxm" -> "H200", as in "NVIDIA H200"); "" when the preset is unknown. */
void sim_cost_preset_gpu(const char *preset, char *out, size_t len);
/* FA3's sm90 backward tile for (head_dim, mask); false when FA3 has no deterministic backward for it. */
bool sim_cost_fa3_tile(int64_t head_dim, Mask mask, int *block_m, int *block_n);
/* FA3's causal LPT head swizzle S_w for one head of seqlen_q tokens (1 when the head exceeds 40 MiB). */
int sim_cost_head_swizzle(int64_t seqlen_q, int64_t head_dim, int elem_bytes);
int sim_cost_elem_bytes(SimDtype dtype);
/* Fills out from shape and hw. The caller has checked the shape (tile known, causal tiles nest). Costs
 * that would not fit in int64 (a rate near zero) saturate at INT64_MAX: callers check them. */
void sim_cost_derive(const SimShape *shape, const SimHardware *hw, SimCost *out);
/* n x n matrix (ns): 0 on the diagonal, near within a half of the SMs (index < n/2 or >= n/2), far
 * across. Owned by the caller (free); NULL when it cannot be allocated (callers size-check first). */
int32_t *sim_cost_latency_matrix(const SimHardware *hw, int n);

#endif

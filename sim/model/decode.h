/* Split-KV decoding (seed 002): FA3's forward tile geometry and num_splits heuristic, the paper's
 * sequence-aware rule, and a simulated latency for any split count. One CTA per (m-block, kv-head x split,
 * batch) runs on the event engine, dispatched to free SMs; kernel overhead and the combine kernel are
 * added analytically. Invariant: latency is a pure function of (shape, costs, splits) in integer ns, and
 * a split policy sees time only through sim_decode_run (`best`). */
#ifndef SIM_DECODE_H
#define SIM_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

typedef enum { DECODE_BF16, DECODE_FP16, DECODE_FP8 } DecodeDtype;

/* One decode step of one attention layer. */
typedef struct {
    int batch;           /* B */
    int hq, hkv;         /* query heads and KV heads; hq a multiple of hkv (PackGQA packs a group) */
    int lq;              /* query tokens per sequence (1 for plain decode) */
    int64_t lk;          /* KV length, tokens */
    int head_dim;        /* d = dv */
    DecodeDtype dtype;
    bool is_paged;       /* paged KV (no TMA): FA3 keeps 128-wide KV blocks */
    int n_sm;            /* SMs of the device */
    int kblock_m, kblock_n; /* forward tile; 0 = FA3's sm90 choice for head_dim/dtype/paged */
} DecodeShape;

/* What FA3's get_num_splits sees; derived from a shape by sim_decode_geometry. */
typedef struct {
    int kblock_m, kblock_n;    /* the tile used */
    int64_t n_blocks;          /* num_n_blocks = ceil(lk / kblock_n) */
    int64_t num_m_blocks;      /* per (batch, kv head): ceil(lq * hq/hkv / kblock_m) */
    int64_t total_mblocks;     /* batch * hkv * num_m_blocks */
    int64_t size_one_kv_head;  /* lk * (d + dv) * element bytes */
} DecodeGeometry;

/* Cost model, integer units. sim_decode_costs_h100 gives the defaults; docs/decode.md says where each
 * value comes from. Per-block cost = max(tensor time of the padded kblock_m x kblock_n tile on one SM,
 * K+V bytes of the block at the HBM bandwidth shared by the CTAs of the first wave), unless block_ns. */
typedef struct {
    int64_t hbm_gbps;          /* device HBM bandwidth, GB/s (= bytes per ns) */
    int64_t sm_tensor_gflops;  /* dense 16-bit tensor rate of one SM, GFLOP/s (= FLOP per ns; fp8: twice) */
    int64_t kernel_ns;         /* launch and grid start/teardown of the main kernel, paid once */
    int64_t cta_fixed_ns;      /* prologue + epilogue of one CTA (Q load, O/LSE store); empty splits too */
    int64_t block_ns;          /* > 0: per-block cost given directly instead of derived */
    int64_t combine_ns;        /* combine kernel, fixed part; paid only when splits > 1 */
    int64_t combine_split_ns;  /* combine kernel, per split and per wave of m-blocks */
} DecodeCosts;

/* The simulated run for one split count. */
typedef struct {
    int splits;                /* num_splits */
    int64_t ctas;              /* total_mblocks * splits */
    int64_t blocks_per_split;  /* ceil(n_blocks / splits): the longest CTA's block count */
    int64_t empty_ctas;        /* CTAs whose split holds no block */
    int64_t block_ns;          /* per-block cost used */
    int64_t main_ns;           /* engine makespan of the main kernel's CTAs (kernel_ns excluded) */
    int64_t combine_total_ns;  /* 0 when splits == 1 */
    int64_t latency_ns;        /* kernel_ns + main_ns + combine_total_ns */
    double sm_occupancy;       /* min(ctas, n_sm) / n_sm: the paper's occupancy */
    double sm_busy_fraction;   /* busy SM time / (n_sm * main_ns), from the realized schedule */
} DecodeRun;

/* Most CTAs one simulated run may have (refused with SIM_ERR_LIMIT before allocating). */
#define SIM_DECODE_MAX_CTAS (1 << 22)
/* Most splits a fixed policy may ask for: FA3's combine kernel handles up to 256. */
#define SIM_DECODE_MAX_SPLITS 256

/* A shape with the CLI's defaults: batch 1, H_q 8, H_kv 1, L_q 1, L_K 512, hdim 128, bf16, 132 SMs. */
DecodeShape sim_decode_shape_default(void);
DecodeCosts sim_decode_costs_h100(void);
/* Checks the shape (hq a multiple of hkv, sizes positive, a known tile) and derives its geometry.
 * SIM_ERR_USAGE with a sentence otherwise. O(1). */
SimStatus sim_decode_geometry(const DecodeShape *w, DecodeGeometry *g, SimError *err);
/* Simulates splits (1..SIM_DECODE_MAX_SPLITS) on the event engine. O(ctas log ctas). */
SimStatus sim_decode_run(const DecodeShape *w, const DecodeCosts *c, int splits, DecodeRun *out, SimError *err);

/* Split policies: a const ops struct each, one table (decode_split.c). */
typedef struct {
    const char *name;
    const char *summary;       /* one line for --list-split-policies */
    bool has_arg;              /* written NAME:S (fixed) */
    /* Sets *splits; arg is S for has_arg policies. Errors only from simulation (best). */
    SimStatus (*choose)(const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c, int arg,
                        int *splits, SimError *err);
} DecodeSplitOps;

/* A parsed --split-policy value. */
typedef struct {
    const DecodeSplitOps *ops;
    int arg;                   /* S of fixed:S; 0 otherwise */
} DecodeSplit;

int sim_decode_split_count(void);
const DecodeSplitOps *sim_decode_split_at(int i);
/* Parses "fa3", "seq-aware", "best" or "fixed:S" (S in 1..SIM_DECODE_MAX_SPLITS); a sentence otherwise. */
SimStatus sim_decode_split_parse(const char *text, DecodeSplit *out, SimError *err);
SimStatus sim_decode_split_choose(const DecodeSplit *sp, const DecodeShape *w, const DecodeCosts *c,
                                  int *splits, SimError *err);

/* FA3's num_splits_heuristic (hopper/heuristics.h), float arithmetic as upstream. max_splits is 128 in
 * get_num_splits. Pure; O(max_splits). */
int sim_decode_fa3_splits(const DecodeGeometry *g, int n_sm, bool is_causal, int max_splits);
/* The paper's Figure 2 rule: FA3 with its num_n_blocks <= 4 guard replaced. */
int sim_decode_seq_aware_splits(const DecodeGeometry *g, int n_sm, bool is_causal, int max_splits);
/* The split count in 1..min(128, n_blocks) with the lowest simulated latency (ties: fewest splits). */
SimStatus sim_decode_best_splits(const DecodeShape *w, const DecodeCosts *c, int *splits, int64_t *latency_ns,
                                 SimError *err);

#endif

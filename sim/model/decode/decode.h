/* Split-KV decoding (Llopart Font et al. 2026): FA3's forward tile geometry and num_splits heuristic, the paper's
 * sequence-aware rule, and a simulated latency for any split count. One CTA per (m-block, kv-head x split,
 * batch) runs on the event engine, dispatched to free SMs; kernel overhead and the combine kernel are
 * added analytically. Invariant: latency is a pure function of (shape, costs, splits) in integer ns, and
 * a split policy (policies/decode/decode_policy.h) sees time only through sim_decode_run (`best`). */
#ifndef SIM_DECODE_H
#define SIM_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "decode_policy.h"
#include "status.h"

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
    int64_t max_memory_mb;     /* not a cost: refuse a run estimated above this (--max-memory-mb; 0: no cap
                                * but SIM_DECODE_MAX_CTAS) */
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

/* Most CTAs one simulated run may have, whatever max_memory_mb says (refused with SIM_ERR_LIMIT before
 * allocating): the ceiling that bounds the time (`best` at the ceiling, 128 runs, took 24 s on the 2-core
 * test machine; docs/limits.md) and, at 222 MB measured, the memory under the default cap of 4096 MB. */
#define SIM_DECODE_MAX_CTAS (1 << 22)
/* Peak bytes of a run per CTA, at most. Measured with /usr/bin/time -f %M on `sim decode` (fa3, fixed:4,
 * fixed:256, --sweep-splits, best) at 1M, 2M and 4M CTAs: 52 B a CTA above a fixed 8 MB (222 MB at 2^22). */
#define SIM_DECODE_BYTES_PER_CTA 64

/* A shape with the CLI's defaults: batch 1, H_q 8, H_kv 1, L_q 1, L_K 512, hdim 128, bf16, 132 SMs. */
DecodeShape sim_decode_shape_default(void);
DecodeCosts sim_decode_costs_h100(void);
/* Checks the shape (hq a multiple of hkv, sizes positive, a known tile) and derives its geometry.
 * SIM_ERR_USAGE with a sentence otherwise. O(1). */
SimStatus sim_decode_geometry(const DecodeShape *w, DecodeGeometry *g, SimError *err);
/* SIM_ERR_LIMIT with a sentence if a run of splits splits would have more than SIM_DECODE_MAX_CTAS CTAs or
 * is estimated (SIM_DECODE_BYTES_PER_CTA) above c->max_memory_mb. O(1). */
SimStatus sim_decode_check_size(const DecodeShape *w, const DecodeCosts *c, int splits, SimError *err);
/* Simulates splits (1..SIM_DECODE_MAX_SPLITS) on the event engine, after sim_decode_check_size.
 * O(ctas log ctas). */
SimStatus sim_decode_run(const DecodeShape *w, const DecodeCosts *c, int splits, DecodeRun *out, SimError *err);

/* The split count sp's policy picks for w under costs c (best simulates through sim_decode_run).
 * SIM_ERR_USAGE for a bad shape; otherwise errors only from the simulation. */
SimStatus sim_decode_split_choose(const DecodeSplit *sp, const DecodeShape *w, const DecodeCosts *c,
                                  int *splits, SimError *err);
/* The split count in 1..min(128, n_blocks) with the lowest simulated latency (ties: fewest splits);
 * latency_ns may be NULL. O(n_blocks) runs of sim_decode_run. */
SimStatus sim_decode_best_splits(const DecodeShape *w, const DecodeCosts *c, int *splits, int64_t *latency_ns,
                                 SimError *err);

/* ---- Split sweep, the paper's Figure 3 (decode_sweep.c) ---- */

#define SIM_DECODE_SWEEP_MAX 64          /* s = 1..64 */
#define SIM_DECODE_PLATEAU_PERCENT 102   /* "low-latency plateau": within 2 % of the best, the paper's margin */

typedef struct {
    DecodeRun runs[SIM_DECODE_SWEEP_MAX]; /* runs[s - 1]: s splits */
    int best;                  /* lowest latency, fewest splits on ties (1-based split count) */
    int plateau;               /* the fewest splits within SIM_DECODE_PLATEAU_PERCENT of best */
    int fa3, seq_aware;        /* the two heuristics' choices */
} DecodeSweep;

/* Runs s = 1..SIM_DECODE_SWEEP_MAX, refused before the first if the largest fails sim_decode_check_size.
 * Errors from sim_decode_geometry or sim_decode_run. O(64 runs). */
SimStatus sim_decode_sweep(const DecodeShape *w, const DecodeCosts *c, DecodeSweep *out, SimError *err);

/* ---- The paper's 160-configuration regression (decode_sweep.c) ---- */

#define SIM_DECODE_GRID_COUNT 160        /* batch 1,2,4,8 x L_K 128..8192 (8) x H_kv 1,2,4,8,32 */
#define SIM_DECODE_GRID_GROUP 8          /* H_q / H_kv: Llama-3-70B */

typedef struct {
    DecodeShape w;             /* the configuration */
    int64_t n_blocks;
    DecodeRun fa3, seq, best;  /* under fa3, seq-aware and the simulated best */
} DecodeGridRow;

/* Per policy against fa3 over the grid. */
typedef struct {
    int changed, slower;       /* configs with a different split, with a higher latency than fa3 */
    double log_sum, min, max;  /* of the speedup fa3 latency / latency */
} DecodeGridStats;

/* Where best beats both heuristics, and the rows of their largest regret. */
typedef struct {
    int beats_both;
    int worst_fa3, worst_seq;  /* row indexes */
} DecodeGridRegret;

/* Row i (0..SIM_DECODE_GRID_COUNT-1) of the grid: base's shape with batch, L_K, H_kv, H_q replaced.
 * O(n_blocks) runs (best). */
SimStatus sim_decode_grid_row(const DecodeShape *base, const DecodeCosts *c, int i, DecodeGridRow *row,
                              SimError *err);
/* Fresh stats (min = +inf); adds one row's run r against its fa3 run. */
DecodeGridStats sim_decode_grid_stats_init(void);
void sim_decode_grid_stats_add(DecodeGridStats *st, const DecodeRun *fa3, const DecodeRun *r);
double sim_decode_grid_geomean(const DecodeGridStats *st);
/* Over all SIM_DECODE_GRID_COUNT rows. O(rows). */
DecodeGridRegret sim_decode_grid_regret(const DecodeGridRow *rows);
/* base latency / r latency. */
double sim_decode_speedup(const DecodeRun *base, const DecodeRun *r);

#endif

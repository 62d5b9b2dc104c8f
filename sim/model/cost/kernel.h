/* A kernel profile (docs/profile.md): what one attention backward kernel does on one GPU, beside what the
 * hardware profile says of the GPU itself: its tile geometry, its per-task costs by kind, its dQ protocol
 * (when a row is released, how many staging buffers), how its compute slows while its own reduction
 * overlaps it, and the fixed costs of a launch as functions of the shape. Made by `sim calibrate --kernel`
 * from traces of the kernel or from its baseline order's measured times. Invariant: every time is whole ns
 * at the GPU's clock during calibration; a tile's zero fields mean "not part of this kernel's model". */
#ifndef SIM_KERNEL_H
#define SIM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "costmodel.h"

typedef enum { KERNEL_RELEASE_AT_COMPLETION, KERNEL_RELEASE_AT_READ } KernelRelease;

/* A fixed cost of a launch: base_ns + ns_per_mib x MiB the stage moves (docs/profile.md lists the bytes). */
typedef struct {
    double base_ns, ns_per_mib;
} KernelLinear;

/* A fixed stage's time as measured alone at sizes (bin/gpu-bwd-stages; docs/profile.md, "The fixed stages at the
 * sizes people run"): ns at each x, x strictly increasing; linear between two points and, outside them, along the
 * nearest two (beyond the last: the stream's own rate), never below 0. n 0: none. */
#define SIM_KERNEL_TABLE_MAX 64
typedef struct {
    int n;
    double x[SIM_KERNEL_TABLE_MAX], ns[SIM_KERNEL_TABLE_MAX];
} KernelTable;

/* One tile configuration: what a head dim (and mask) runs. */
typedef struct {
    int head_dim;
    int mask;                  /* -1: both masks; else MASK_FULL or MASK_CAUSAL (FA3's d128 differs by mask) */
    int block_m, block_n;      /* kBlockM (Q rows) x kBlockN (K rows) */
    int64_t compute_ns;        /* one interior task, the loop's own gap included */
    int64_t diag_ns;           /* a task the causal diagonal cuts; 0: compute_ns */
    int64_t launch_extra_ns;   /* the first compute of a CTA that starts at launch (every SM loads K/V at once) */
    int64_t cta_first_extra_ns; /* the first compute of a CTA that starts later, on an SM another CTA left (its
                                * K/V load, not hidden behind the previous CTA); 0 for old profiles */
    int64_t kv_write_ns;       /* dK/dV written after the last task of a KV-tile run (bf16, one query head per
                                * KV head) */
    int64_t kv_write_gqa_ns;   /* the same with GQA (fp32 partials for the group sums); 0: kv_write_ns */
    int64_t kv_switch_ns;      /* K/V reloaded between two runs of one (persistent) CTA */
    int64_t deposit_ns;        /* the partial dQ staged for the store warp */
    int64_t reduce_read_ns;    /* the kernel's own reduction: read of the staging buffer, then the rest; */
    int64_t reduce_tail_ns;    /* both 0: the hardware profile's reduction and its load model */
    int64_t reduce_read_waited_ns, reduce_tail_waited_ns; /* the same for a reduction that waited for its
                               * turn (started at the previous one's release); 0: as above */
    int64_t reduce_waited_slope_milli; /* a waited reduction's chain step grows by this / 1000 ns per other reduction
                               * in flight at its start, about reduce_waited_k_ref (the calibration's mean);
                               * optional, 0: none (docs/profile.md, "The waited step and the load") */
    int64_t reduce_waited_k_ref;
    int64_t reduce_turn_jitter_ns; /* a reduction whose turn came less than this before its tile was staged
                               * counts as waited (the stamps' jitter around the turn); optional, 0: none */
    int64_t handoff_ns;        /* a row's release -> the next reducer sees it; 0: the hardware profile's */
    int64_t cta_prologue_ns;   /* a CTA's start -> its first compute */
    int64_t cta_gap_ns;        /* a CTA's last op end -> the next CTA's start on that SM (the CTA's exit and the
                                * block scheduler's turnover; not the launch wave, not a persistent slot's next
                                * plan CTA); optional, 0 when absent and written only above 0 */
    int store_warps;           /* store warps (store engines an SM: AttnCosts.store_warps); optional, 1 when
                                * absent and written only when above 1 */
    SimOverlapRule overlap;    /* program.h: compute slowed by the SM's own reduction starting near its start */
    KernelLinear fixed;        /* a launch beyond its tasks' span (memset, preprocess, postprocess, launch,
                                * the first CTA's prologue, drain, and with GQA the dK/dV group sums), over the
                                * MiB those stages move: one rate for these memory-bound stages */
    KernelLinear fixed_gqa;    /* what the group sums take beyond that rate (fitted to the GQA traces): when the
                                * calibration has GQA at two head dims, their own rate less the tile's (so it may be
                                * negative) and the mean rest; else a line of the rest at the tile's rate */
    KernelTable stages;        /* optional: the memsets, preprocess and dQ postprocess over rows (batch x heads x
                                * seqlen), measured alone; with it, fixed holds what they leave (the launches, the
                                * first prologue, the drain) */
    KernelTable sums;          /* optional: the GQA group sums over their MiB (sim_kernel_stage_mib's mib[1]) */
    AttnClock clock;           /* optional: the SM clock over a launch, fitted to the traces' cycle counts
                                * (docs/profile.md, "The clock dip at launch"); bins 0 when absent: the costs
                                * above stand at every launch */
    int traces;                /* traces it was measured on; 0: fitted to baseline times */
} KernelTile;

typedef struct {
    int version;
    char name[64];             /* e.g. "gpu-bwd" */
    char kernel[32];           /* the trace metadata "kernel" it predicts ("dashsim-bwd"); "" none */
    char gpu_name[96], date[32];
    char method[32];           /* "traces" or "baseline-times" */
    char source[512];          /* what it was made from, in words (files, or the publication cited) */
    double validated_error;    /* median |time error| (a fraction) of its predictions on its evidence, from the
                                * optional "validated_error"; 0: absent (SIM_KERNEL_DEFAULT_ERROR applies) */
    int sm_count;
    int head_swizzle;          /* causal heads: 1 in order; 0: FA3's L2 swizzle rule (sim_cost_head_swizzle) */
    int dq_buffers;            /* staging buffers of the partial dQ */
    char reduce_op[16];        /* "bulk" */
    KernelRelease release;
    bool is_write_rule_start;  /* geometry write_rule "start": only a reduction that starts inside its SM's dK/dV
                                * write is slowed, once; "overlap": every op beside it (program.h) */
    KernelTile *tiles;         /* owned */
    int tile_count;
} KernelProfile;

/* The error a ranking assumes when the kernel profile states none, or no kernel profile is used: the median
 * |time error| of predictions from the hardware profile on the 212 committed H100 traces (docs/profile.md,
 * "predicted from the profile": 1.45%). A lead below the error is a tie. */
#define SIM_KERNEL_DEFAULT_ERROR 0.0145

/* The tile for head_dim under mask (an exact mask entry first, then one for both); NULL if none. O(tiles). */
const KernelTile *sim_kernel_tile(const KernelProfile *k, int head_dim, Mask mask);
/* The launch's fixed costs for shape (kernel.h's fixed and fixed_gqa, plus the stage tables where the tile has
 * them), whole ns. kv_heads 0 means heads. */
int64_t sim_kernel_fixed_ns(const KernelTile *t, const SimShape *shape);
/* MiB the fixed stages move for shape: mib[0] the memset (dQaccum fp32), preprocess (O, dO read; LSE, Delta)
 * and postprocess (dQaccum read, dQ written) together; mib[1] the GQA group sums (fp32 dK/dV partials read,
 * dK/dV written), 0 without GQA. */
void sim_kernel_stage_mib(const SimShape *shape, double mib[2]);
/* A stage table's ns at x (KernelTable); 0 for an empty table. O(points). */
double sim_kernel_table_ns(const KernelTable *t, double x);
void sim_kernel_free(KernelProfile *k);

#endif

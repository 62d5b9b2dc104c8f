/* A measured hardware profile (docs/profile.md): what calibration kernels measured on one GPU, and the
 * model costs it implies for a kernel configuration. Measured from calibration kernels only, never from
 * schedule traces (sim calibrate writes it from gpu-calib --profile output). Everything a prediction uses
 * comes from here plus the configuration (tile, compute rounds, reduction method, clock). */
#ifndef SIM_PROFILE_H
#define SIM_PROFILE_H

#include <stdint.h>

#include "attention.h"
#include "status.h"

#define SIM_PROFILE_MAX_POINTS 32   /* points of one measured curve (k in flight, tasks per CTA) */

/* The executor's compute of one task for one tile shape, in SM cycles (so that it scales with the
 * clock): cycles = fixed + per_iter * rounds; and its serial staging, in ns. */
typedef struct {
    int tile_m, head_dim;
    double fixed_cycles, per_iter_cycles; /* all SMs computing, as in a kernel */
    double fixed_cycles_store;            /* the same with a spinning store warp (async kernels) */
    double per_iter_cycles_store;
    int64_t stage_serial_ns;              /* registers -> shared memory, fence, barrier */
    int64_t deposit_ns;                   /* async: staging for the store warp and the loop, all SMs */
    int64_t reduce_async_ns;              /* async: the store warp's bulk reduction while the compute warps
                                           * compute (1 SM); 0 when not measured */
    /* the same reduction by the rounds of the compute beside it (1 SM), ascending; 0 points:
     * reduce_async_ns at any round count */
    int reduce_async_points;
    int32_t reduce_async_iters[SIM_PROFILE_MAX_POINTS];
    int64_t reduce_async_by_iters_ns[SIM_PROFILE_MAX_POINTS];
    int stage_points;                     /* serial staging measured in the executor's loop, by rounds */
    int32_t stage_iters[4];               /* (0 points: stage_serial_ns for every round count) */
    int64_t stage_by_iters_ns[4];
} ProfileTile;

/* One reduction method on one tile: the time one reduction takes with k running at once (k CTAs on k
 * SMs started together), from adding the staged tile to issuing the release. */
typedef struct {
    int tile_m, head_dim;
    char op[16];                          /* "bulk", "ldst", "red" */
    int threads;                          /* threads that add (1 for bulk) */
    int points;
    int32_t k[SIM_PROFILE_MAX_POINTS];    /* ascending, k[0] = 1 */
    int64_t ns[SIM_PROFILE_MAX_POINTS];
} ProfileReduce;

/* The reductions' queue for one family of methods (docs/profile.md, "The load rule"): the share of a
 * reduction's time alone spent issuing its bytes and the share of the rest before the issue, fitted to runs
 * in which half the SMs reduce a stagger after the other half (gpu-calib's reduce_staggered). The queue's
 * capacity comes from each method's own load curve. "ldst" also serves "red". */
typedef struct {
    char op[16];                          /* "bulk" or "ldst" */
    double issue_share;
    double fit_max_error, fit_median_error; /* |error| on the staggered runs it was fitted to */
    double ps_max_error;                  /* the same for processor sharing (the rule it replaced) */
    int fit_runs;                         /* staggered early/late medians it was fitted to */
} ProfileQueue;

#define SIM_PROFILE_MAX_QUEUES 4

/* How a family's reduction alone on an otherwise idle SM depends on the SM clock (docs/profile.md, "The
 * reduction and the SM clock"): a share of its time scales with the clock, the rest does not. Measured by
 * gpu-calib --steady's reduce_clock: one SM reduces while n others compute, which pulls the clock down;
 * the reduction curves were measured at the idle clock ref_mhz. "ldst" also serves "red". */
typedef struct {
    char op[16];                          /* "bulk" or "ldst" */
    double clock_share;                   /* 0..1: t(f) = t(ref) x ((1 - share) + share x ref / f) */
    int fit_rows;                         /* loaded rows it was fitted on */
    double fit_max_error;                 /* largest |error| of the rule on every row */
} ProfileClock;

typedef struct {
    int version;
    char gpu_name[96], driver[32], cuda[16], date[32];
    char source[256];                     /* the raw calibration file it was made from */
    uint64_t source_hash;                 /* FNV-1a 64 of that file */
    int sm_count;
    int clock_mhz;                        /* SM clock under all-SM compute during calibration (median) */
    ProfileTile *tiles;                   /* owned */
    int tile_count;
    ProfileReduce *reduces;               /* owned */
    int reduce_count;
    int64_t handoff_ns;                   /* a row's hand-off: release issued -> next reducer sees it, idle */
    char handoff_source[160];             /* which measurement handoff_ns is */
    int handoff_points;
    int32_t handoff_k[SIM_PROFILE_MAX_POINTS];       /* reductions running elsewhere */
    int64_t handoff_extra_ns[SIM_PROFILE_MAX_POINTS]; /* growth over the idle hand-off at that load */
    int64_t acquire_ns;                   /* semaphore already at the rank: one acquire load */
    int64_t loop_gap_ns;                  /* serial: a reduction's end -> the next task's compute start */
    int64_t kernel_to_first_cta_ns;       /* launch: the kernel's start -> its first CTA runs */
    int64_t cta_gap_ns;                   /* a CTA ends -> the next CTA on that SM starts */
    int prologue_points;
    int32_t prologue_tasks[SIM_PROFILE_MAX_POINTS];  /* tasks per CTA (its task list copied to shared memory) */
    int64_t prologue_ns[SIM_PROFILE_MAX_POINTS];     /* CTA start -> its first compute */
    ProfileQueue queues[SIM_PROFILE_MAX_QUEUES];     /* the load rule's queue per family; none: no queue */
    int queue_count;
    char queue_source[256];               /* the raw calibration file the queue was fitted on */
    uint64_t queue_source_hash;
    ProfileClock clocks[SIM_PROFILE_MAX_QUEUES]; /* the reduction against the SM clock; none: not scaled */
    int clock_count;
    double clock_ref_mhz;                 /* the idle SM clock the reduction curves were measured at */
    char clock_source[256];               /* the raw calibration file the clock rule was fitted on */
    uint64_t clock_source_hash;
    int steady_rows;                      /* methods whose load curve is the steady one (reduce_steady); 0: every
                                           * curve is the burst one (reduce_inflight) */
    char steady_source[256];              /* the raw calibration file the steady curves came from */
    uint64_t steady_source_hash;
} HwProfile;

/* A kernel configuration to cost. */
typedef struct {
    int tile_m, head_dim;
    int compute_iters;                    /* the executor's mma rounds per task */
    ReduceMode reduce;
    const char *reduce_op;                /* "bulk", "ldst" or "red" */
    int reduce_threads;                   /* 0: the method's usual (bulk 1, serial ldst/red 256, async 32) */
    int dq_buffers;
    int clock_mhz;                        /* SM clock to predict at; 0: the profile's */
    int tasks_per_cta;                    /* for the CTA prologue (task list copy) */
    int n_sm;                             /* load tables run to this many reductions in flight */
} ProfileQuery;

/* The model's costs for q: c (compute, plus serial staging and the loop), r (one reduction alone plus the acquire),
 * the hand-off as the accumulation-edge latency, the async deposit, the CTA prologue (gap + task list),
 * and in *load the load model (the reductions' queue and extra, sim_profile_load, and the hand-off growth,
 * linear between measured k), owned by the caller (sim_profile_load_clear). SIM_ERR_INPUT when
 * the profile has no measurement for the tile or the method. O(n_sm). */
SimStatus sim_profile_costs(const HwProfile *p, const ProfileQuery *q, AttnCosts *costs, SimLoadModel *load,
                            SimError *err);
void sim_profile_load_clear(SimLoadModel *load);

/* The load model of reductions that take d_ns alone (alone_ns of it the reduction itself, the rest the
 * acquire) measured by row r, with the family's queue (NULL: none). With k reductions starting together it
 * reproduces the measured curve: d * max(1, curve(k) / alone) (the larger of the SM's time and the shared
 * L2's); the queue decides how staggered starts share it. The queue's service time per reduction is the
 * curve's own: (curve(k_max) - curve(1) + issue) / k_max with issue = issue_share * curve(1). Hand-off
 * growth is left empty (sim_profile_costs fills it). O(n_sm). */
void sim_profile_load(const ProfileReduce *r, const ProfileQueue *queue, int64_t d_ns, int64_t alone_ns, int n_sm,
                      SimLoadModel *load);

/* The same where the SM's side of a reduction (d_ns, at the kernel's clock) and the L2's (d_l2_ns x
 * curve(k) / alone, at the idle clock the curve was measured at) differ: the target is the larger. */
void sim_profile_load_at(const ProfileReduce *r, const ProfileQueue *queue, int64_t d_ns, int64_t d_l2_ns,
                         int64_t alone_ns, int n_sm, SimLoadModel *load);

/* One staggered run (reduce_staggered): every SM reduces, the odd half starting stagger_ns after the
 * even half; the medians of each half's reduction time. */
typedef struct {
    const ProfileReduce *reduce;          /* the method's load curve (reduce_inflight), same tile */
    int k;                                /* SMs reducing */
    int64_t stagger_ns, early_ns, late_ns;
} StaggerRun;

/* Fits a family's queue to its staggered runs: the issue share (steps of 0.01) whose engine runs
 * minimise the largest |error| of the two halves' times over all runs (ties: the median); fills q's share
 * and its errors (and processor sharing's for comparison). O(runs * k) per candidate, 100 candidates. */
void sim_profile_fit_queue(const StaggerRun *runs, int n, ProfileQueue *q);

/* The family's queue in p for a method ("ldst" and "red": ldst's); NULL if none. */
const ProfileQueue *sim_profile_queue(const HwProfile *p, const char *op);

/* One row of gpu-calib's reduce_clock: a method's reduction alone at a measured SM clock. */
typedef struct {
    int tile_m, head_dim, threads;
    char op[16];                          /* "bulk", "ldst" or "red" */
    int n_compute;                        /* SMs computing beside it (0: the reference, idle clock) */
    double cycles, mhz;                   /* median clock64 cycles of one reduction; the clock it ran at */
} ClockRow;

/* Fits the family's clock share to the rows of its methods: for each loaded row, the share that explains
 * its time against its method's idle row; the median of those, in [0, 1]. *ref_mhz: the idle rows'
 * median clock. Fills c's share, rows and largest error; false when the family has no loaded row. */
bool sim_profile_fit_clock(const ClockRow *rows, int n, const char *family, ProfileClock *c, double *ref_mhz);
/* The family's clock rule in p ("ldst" and "red": ldst's); NULL if none. */
const ProfileClock *sim_profile_clock(const HwProfile *p, const char *op);
void sim_profile_free(HwProfile *p);

#endif

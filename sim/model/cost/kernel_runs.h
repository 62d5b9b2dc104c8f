/* Timed runs of a real attention kernel at a list of shapes (gpu/bwd/shapes.py writes them, "format":
 * "dashsim-kernel-runs"): per shape and policy, the median end-to-end time of the backward (memset,
 * preprocess, main kernel, postprocess) from CUDA events. Calibration matches them to traces for the fixed
 * costs; validation predicts each one. */
#ifndef SIM_KERNEL_RUNS_H
#define SIM_KERNEL_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

typedef struct {
    int seqlen, batch, heads, kv_heads, head_dim;
    Mask mask;
    char policy[32];
    bool is_atomic;            /* the atomic mode (no semaphores): not a schedule, never predicted */
    bool is_ok;                /* timed, gradients right and (deterministic) bitwise repeatable */
    int64_t time_ns;           /* median time; 0 when the run failed */
} KernelRun;

typedef struct {
    char *path;
    char gpu_name[96], kernel[32], date[32];
    KernelRun *runs;           /* owned */
    int count;
} KernelRuns;

/* The fixed stages timed alone (bin/gpu-bwd-stages, "format": "dashsim-kernel-stages"): per point its head dim,
 * rows (batch x heads x seqlen), group (heads / kv_heads) and the median of the chain (the memsets, preprocess, dQ
 * postprocess and, with a group above 1, the group sums, between two events). */
typedef struct {
    int head_dim, group;
    int64_t rows, chain_ns;
} KernelStagePoint;

typedef struct {
    char *path;
    char gpu_name[96];
    KernelStagePoint *points;  /* owned */
    int count;
} KernelStageSweep;

/* The timed run of the same shape and policy as t in deterministic mode; NULL if none. */
const KernelRun *sim_kernel_runs_find(const KernelRuns *r, const KernelRun *like);
void sim_kernel_runs_free(KernelRuns *r);
void sim_kernel_stages_clear(KernelStageSweep *s);

#endif

/* A kernel profile from no more than the baseline order's measured time per shape (docs/profile.md, "From
 * baseline times"): for kernels that cannot be traced, such as a published FA3 table. Per tile, one
 * compute cost per task (and, with several sizes, the fixed costs' base) is fitted so that the model's fa3
 * order matches the baseline times; what a time cannot tell apart (the reduction, the hand-off, the
 * staging, the fixed costs' rate over bytes) comes from a reference kernel profile measured on the same GPU,
 * taken from its tile whose dQ tile moves the same bytes. Other schedules' times are never used. */
#ifndef SIM_KERNEL_BASELINE_H
#define SIM_KERNEL_BASELINE_H

#include "kernel.h"
#include "kernel_runs.h"

typedef struct {
    KernelProfile *kernel;     /* geometry and tiles (head_dim, mask, block_m, block_n) to fit; owned */
    KernelRuns *times;         /* the baseline order's times (policy "fa3") and perhaps others; owned */
    int64_t max_memory_mb;     /* each record's simulation is refused above this (sim_attention_check_size) */
    const SimBudget *budget;   /* optional time budget and cancel hook (status.h); borrowed; NULL: none */
} KernelBaseline;

/* Fits every tile of b->kernel in place from b->times' fa3 runs of that head dim and mask, with ref's
 * measured costs for what times cannot separate. SIM_ERR_INPUT when a tile has no baseline time or ref has
 * no tile of the same dQ bytes; SIM_ERR_LIMIT when a record's shape is over b->max_memory_mb or the engine's
 * ids (checked for every record before the first simulation), or the budget ran out or was cancelled. O(tiles x fit steps x engine runs). */
SimStatus sim_kernel_fit_baseline(KernelBaseline *b, const KernelProfile *ref, SimError *err);
void sim_kernel_baseline_clear(KernelBaseline *b);

#endif

/* serial: one block at a time, stages in chain order, no overlap between blocks (Preload count 0). The
 * baseline every preload Cycle is measured against: its period is sum C + sum V. */
#include "pipeline_policy.h"

static SimStatus serial_build(const PipeWorkload *wl, const PipeCycleRequest *req, PipeCycle *out,
                              SimError *err)
{
    (void)req, (void)err;
    pipe_cycle_serial(wl->n_pairs, out);
    return SIM_OK;
}

const PipePolicyOps pipe_policy_serial = {
    .name = "serial",
    .summary = "one block at a time, stages in chain order: period sum C + sum V, Preload count 0",
    .brief = "no overlap",
    .has_cycle_request = false,
    .prepare = NULL,
    .build = serial_build,
};

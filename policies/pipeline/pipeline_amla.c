/* amla: AMLA's own Cycle for n = 2 (AMLA, Liao et al. 2025, section 4.1): offsets C1 0, V1 1, C2 2, V2 2, Cube order
 * C1 C2, Vector order V1 V2 (Preload count 2). V2, the output rescale, runs only on the last block; every
 * other block folds it into V1 as an integer add. */
#include "pipeline_policy.h"

#include <string.h>

static SimStatus amla_prepare(PipeWorkload *wl, SimError *err)
{
    if (wl->n_pairs != 2)
        return sim_error_set(err, SIM_ERR_USAGE, "--policy amla needs n = 2 CV pairs, --c has %d", wl->n_pairs);
    if (!wl->has_v_last)
        memcpy(wl->v_last_ns, wl->v_ns, sizeof wl->v_ns);
    wl->has_v_last = true;
    wl->v_ns[1] = 0;
    return SIM_OK;
}

static SimStatus amla_build(const PipeWorkload *wl, const PipeCycleRequest *req, PipeCycle *out, SimError *err)
{
    (void)wl, (void)req, (void)err;
    *out = (PipeCycle){ .n_pairs = 2, .offset = { 0, 1, 2, 2 }, .order = { 0, 2, 1, 3 } };
    return SIM_OK;
}

const PipePolicyOps pipe_policy_amla = {
    .name = "amla",
    .summary = "AMLA's Cycle for n = 2: C1+0 C2+2 | V1+1 V2+2, V2 only on the last block (Preload count 2)",
    .brief = "n = 2, V2 only on the last block",
    .has_cycle_request = false,
    .prepare = amla_prepare,
    .build = amla_build,
};

/* preload: Theorem B.1's rotation (Preload count n, stall-free in both the Cube- and the Vector-dominated
 * case), or the Cycle the user asked for: an explicit --order, or a Preload count K. For K < n the brute
 * force's stall-free Cycle is used when one exists with at most K; otherwise the chain order with its last
 * K chain edges crossing Cycles, which never deadlocks. */
#include "pipeline_policy.h"

#include <glib.h>

/* The chain order with the last K chain edges crossing Cycles. */
static void chain_cycle(int n, int preload, PipeCycle *out)
{
    pipe_cycle_serial(n, out);
    out->is_serial = false;
    for (int j = 0; j < 2 * n; j++)
        out->offset[j] = MAX(0, j - (2 * n - 1 - preload));
}

static SimStatus preload_build(const PipeWorkload *wl, const PipeCycleRequest *req, PipeCycle *out,
                               SimError *err)
{
    int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
    int n = wl->n_pairs, preload = req ? req->preload : -1;
    PipeRotation rot;
    pipe_effective_durations(wl, false, c, v);
    pipe_rotation(n, c, v, &rot, out);
    if (req && req->order_text)
        return pipe_cycle_parse(req->order_text, n, out, err);
    if (preload >= 0 && preload < n) {
        PipeCycle witness;
        if (n <= PIPE_MAX_BRUTE_PAIRS && pipe_min_preload(n, c, v, &witness) <= preload) {
            *out = witness;
            pipe_cycle_set_preload(out, preload);
        } else
            chain_cycle(n, preload, out);
    } else if (preload >= 0)
        pipe_cycle_set_preload(out, preload);
    return SIM_OK;
}

const PipePolicyOps pipe_policy_preload = {
    .name = "preload",
    .summary = "Theorem B.1's rotation (Preload count n, stall-free), or --order / --preload K",
    .brief = NULL,
    .has_cycle_request = true,
    .prepare = NULL,
    .build = preload_build,
};

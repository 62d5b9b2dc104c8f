/* fa3-spt: FA3's current causal default (PR #1893). Shortest KV tiles launched first, Q tiles ascending
 * from the diagonal, every dQ row accumulated in descending KV order, so the tile that reaches a row
 * first (the short one, near the diagonal) also reduces first. Causal only. */
#include "policy.h"

static SimStatus fa3_spt_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    (void)q, (void)err;
    const Workload *wl = &plan->wl;
    for (int64_t t = 0; t < (int64_t)wl->heads * wl->kv_tiles; t++) {
        int32_t head, kv;
        plan_launch_kv(wl, t, true, &head, &kv);
        plan_add_kv_cta(plan, head, kv, false);
    }
    plan_rank_by_kv(plan, true);
    return SIM_OK;
}

const PolicyOps policy_fa3_spt = {
    .name = "fa3-spt",
    .summary = "FA3 causal default: shortest-first launch, ascending Q, rows accumulated in descending KV",
    .supports = policy_on_causal,
    .build = fa3_spt_build,
};

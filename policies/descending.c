/* descending: DASH's Descending Q-tile iteration (FA3 PR #1870, "mblock reverse"). As fa3, but every CTA
 * walks its Q tiles from the last row down to the diagonal, so short causal chains finish early and the
 * next head fills their SMs. Rows accumulate in ascending KV order. Both masks. */
#include "policy.h"

static SimStatus descending_build(Plan *plan, SimError *err)
{
    (void)err;
    const Workload *wl = &plan->wl;
    for (int64_t t = 0; t < (int64_t)wl->heads * wl->kv_tiles; t++) {
        int32_t head, kv;
        plan_launch_kv(wl, t, false, &head, &kv);
        plan_add_kv_cta(plan, head, kv, true);
    }
    plan_rank_by_kv(plan, false);
    return SIM_OK;
}

const PolicyOps policy_descending = {
    .name = "descending",
    .summary = "DASH Descending Q-tile iteration: Q tiles from last to first, ascending KV accumulation",
    .supports_full = true,
    .supports_causal = true,
    .build = descending_build,
};

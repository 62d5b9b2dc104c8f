/* fa3: FA3's deterministic backward as upstream runs it. One CTA per (head, KV tile), Q tiles ascending
 * from the diagonal, every dQ row accumulated in ascending KV order. Launch order: KV tile fastest (full);
 * causal: the LPT scheduler, longest KV tile first ("naive" causal schedule before 2025-09). */
#include "policy.h"

static SimStatus fa3_build(Plan *plan, SimError *err)
{
    (void)err;
    const Workload *wl = &plan->wl;
    for (int64_t t = 0; t < (int64_t)wl->heads * wl->kv_tiles; t++) {
        int32_t head, kv;
        plan_launch_kv(wl, t, false, &head, &kv);
        plan_add_kv_cta(plan, head, kv, false);
    }
    plan_rank_by_kv(plan, false);
    return SIM_OK;
}

const PolicyOps policy_fa3 = {
    .name = "fa3",
    .summary = "FA3 deterministic baseline: ascending Q tiles, rows accumulated in ascending KV order",
    .supports_full = true,
    .supports_causal = true,
    .build = fa3_build,
};

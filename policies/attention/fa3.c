/* fa3: FA3's deterministic backward as upstream runs it. One CTA per (head, KV tile), Q tiles ascending
 * from the diagonal, every dQ row accumulated in ascending KV order. Launch order: KV tile fastest (full);
 * causal: the LPT scheduler, longest KV tile first ("naive" causal schedule before 2025-09). */
#include "policy.h"

static SimStatus fa3_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    (void)q, (void)err;
    const Workload *wl = &plan->wl;
    for (int64_t t = 0; t < (int64_t)wl->heads * wl->kv_tiles; t++) {
        int32_t head, kv;
        plan_launch_kv(wl, t, false, &head, &kv);
        plan_add_kv_cta(plan, head, kv, false);
    }
    plan_rank_by_kv(plan, false);
    return SIM_OK;
}

/* The paper's m n (c + r) + (n - 1) r, on both masks. The paper states the causal form for one head and
 * calls it approximate for m heads; with heads launched one after another (head swizzle 1) it is exact
 * for every m. */
static bool fa3_closed_form(const Workload *wl, const PolicyCosts *k, int64_t *ns, bool *is_exact)
{
    if (!policy_is_paper_shape(wl, k))
        return false;
    *ns = (int64_t)wl->heads * wl->n_sm * (k->c_ns + k->r_ns) + (wl->n_sm - 1) * k->r_ns;
    *is_exact = k->latency_ns == 0;
    return true;
}

const PolicyOps policy_fa3 = {
    .name = "fa3",
    .summary = "FA3 deterministic baseline: ascending Q tiles, rows accumulated in ascending KV order",
    .supports = policy_on_full_or_causal,
    .build = fa3_build,
    .closed_form = fa3_closed_form,
};

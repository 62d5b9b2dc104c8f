/* descending: DASH's Descending Q-tile iteration (FA3 PR #1870, "mblock reverse"). As fa3, but every CTA
 * walks its Q tiles from the last row down to the diagonal, so short causal chains finish early and the
 * next head fills their SMs. Rows accumulate in ascending KV order. Every mask: a block mask launches
 * head by head, KV tiles ascending (tile_order.c), which is fa3's full-mask order. */
#include "policy.h"

static SimStatus descending_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    (void)err;
    const Workload *wl = &plan->wl;
    if (wl->mask == MASK_BLOCK) {
        plan_add_tile_order(plan, q->gqa_group, PLAN_TILES_DESCENDING);
        return SIM_OK;
    }
    for (int64_t t = 0; t < (int64_t)wl->heads * wl->kv_tiles; t++) {
        int32_t head, kv;
        plan_launch_kv(wl, t, false, &head, &kv);
        plan_add_kv_cta(plan, head, kv, true);
    }
    plan_rank_by_kv(plan, false);
    return SIM_OK;
}

/* The paper's causal m (n + 1) (c + r) / 2 + (n - 1) r for an even number of heads. Exact iff c >= r or
 * m = 2: otherwise each later pair of heads adds (n-1)(r-c) (sim_descending_exact_ns, sim/model). */
static bool descending_closed_form(const Workload *wl, const PolicyCosts *k, int64_t *ns, bool *is_exact)
{
    int64_t m = wl->heads, n = wl->n_sm, c = k->c_ns, r = k->r_ns;
    if (!policy_is_paper_shape(wl, k) || wl->mask != MASK_CAUSAL || m % 2)
        return false;
    *ns = m * (n + 1) * (c + r) / 2 + (n - 1) * r;
    *is_exact = k->latency_ns == 0 && (c >= r || m == 2);
    return true;
}

const PolicyOps policy_descending = {
    .name = "descending",
    .summary = "DASH Descending Q-tile iteration: Q tiles from last to first, ascending KV accumulation",
    .supports = policy_on_any,
    .build = descending_build,
    .closed_form = descending_closed_form,
};

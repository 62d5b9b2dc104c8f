/* shift: DASH Shift scheduling (full mask, FA3 PR #2207). The CTA of KV tile n visits rows a, a+1, ...
 * (mod M), a = n's index within its launch wave, so at every step each row is touched by at most one SM.
 * Rows accumulate in visiting-step order (earlier waves first): every accumulation edge goes from a
 * shallower to a deeper task, which is Lemma 1's condition, hence no bubbles. Needs M >= N. */
#include "policy.h"

#include <glib.h>
#include <stdio.h>

static SimStatus shift_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    (void)q;
    const Workload *wl = &plan->wl;
    if (wl->q_tiles < wl->kv_tiles) {
        return sim_error_set(err, SIM_ERR_SCHEDULE, "policy shift needs at least as many Q tiles as KV tiles "
                             "(got %d Q, %d KV)", wl->q_tiles, wl->kv_tiles);
    }
    int64_t *key = g_new(int64_t, (int64_t)wl->heads * wl->kv_tiles * wl->q_tiles);
    for (int64_t t = 0; t < (int64_t)wl->heads * wl->kv_tiles; t++) {
        int32_t head = (int32_t)(t / wl->kv_tiles), kv = (int32_t)(t % wl->kv_tiles);
        int64_t wave = t / wl->n_sm, head_first = (int64_t)head * wl->kv_tiles;
        int64_t earlier = CLAMP(wave * wl->n_sm - head_first, 0, wl->kv_tiles); /* F: in earlier waves */
        int64_t a = kv - earlier;
        plan_add_cta(plan, -1);
        for (int step = 0; step < wl->q_tiles; step++) {
            key[plan->task_count] = wave * wl->q_tiles + step;
            plan_add_task(plan, head, kv, (int32_t)((a + step) % wl->q_tiles));
        }
    }
    plan_rank_by_key(plan, key);
    g_free(key);
    return SIM_OK;
}

/* The paper's m n (c + r): no bubbles, and latency up to c hidden behind the next compute. */
static bool shift_closed_form(const Workload *wl, const PolicyCosts *k, int64_t *ns, bool *is_exact)
{
    if (!policy_is_paper_shape(wl, k))
        return false;
    *ns = (int64_t)wl->heads * wl->n_sm * (k->c_ns + k->r_ns);
    *is_exact = k->latency_ns <= k->c_ns;
    return true;
}

const PolicyOps policy_shift = {
    .name = "shift",
    .summary = "DASH Shift scheduling (full mask): SM i visits Q tiles i, i+1, ... cyclically; no bubbles",
    .supports = policy_on_full,
    .build = shift_build,
    .closed_form = shift_closed_form,
};

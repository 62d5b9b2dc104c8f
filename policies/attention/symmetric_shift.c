/* symmetric-shift: DASH Symmetric Shift (causal). Persistent: slot g runs chunks g, g+P, ...; chunk k of
 * a head is KV tile k (long) then N-1-k (short), so every slot carries the same work. The long tile first
 * cycles through the rows all long tiles of its wave share (a shift on the dense rectangle), then climbs
 * its triangle; the short tile walks its rows downwards. Rows accumulate in order of chain position; when
 * N = n (each head fills half the SMs of a wave) every row's tasks then sit at distinct depths, so every
 * accumulation edge goes from a shallower task to a deeper one (Lemma 1): no bubbles (tested for tile
 * ratios 1 and 2). Needs even N. Construction as in the public DASH code. */
#include "policy.h"

#include <glib.h>
#include <stdio.h>

/* Adds chunk k of head (long tile k, short tile N-1-k) to slot, recording each task's chain position. */
static void add_chunk(Plan *plan, int64_t *key, int64_t *slot_depth, int32_t head, int32_t k,
                      int64_t earlier, int64_t in_wave, int32_t slot)
{
    const Workload *wl = &plan->wl;
    int64_t rect = CLAMP(wl->tile_ratio * (earlier + in_wave - 1), plan_q_lo(wl, k), wl->q_tiles);
    int64_t span = wl->q_tiles - rect, a = k - earlier;
    plan_add_cta(plan, slot);
    for (int64_t t = 0; t < span; t++) {
        key[plan->task_count] = slot_depth[slot]++;
        plan_add_task(plan, head, k, (int32_t)(rect + (a + t) % span));
    }
    for (int32_t q = plan_q_lo(wl, k); q < rect; q++) {
        key[plan->task_count] = slot_depth[slot]++;
        plan_add_task(plan, head, k, q);
    }
    int32_t small = wl->kv_tiles - 1 - k;
    for (int32_t q = wl->q_tiles - 1; q >= plan_q_lo(wl, small); q--) {
        key[plan->task_count] = slot_depth[slot]++;
        plan_add_task(plan, head, small, q);
    }
}

static SimStatus symmetric_shift_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    (void)q;
    const Workload *wl = &plan->wl;
    if (wl->kv_tiles % 2) {
        return sim_error_set(err, SIM_ERR_SCHEDULE, "policy symmetric-shift pairs KV tile k with N-1-k and "
                             "needs an even number of KV tiles (got %d)", wl->kv_tiles);
    }
    plan->is_persistent = true;
    int64_t half = wl->kv_tiles / 2, slots = wl->n_sm;
    int64_t *key = g_new(int64_t, plan->wl.heads * plan_tasks_per_head(wl));
    int64_t *slot_depth = g_new0(int64_t, slots);
    for (int64_t c = 0; c < wl->heads * half; c++) {
        int64_t head = c / half, wave = c / slots, head_first = head * half;
        int64_t earlier = CLAMP(wave * slots - head_first, 0, half);
        int64_t in_wave = MIN(head_first + half, (wave + 1) * slots) - MAX(head_first, wave * slots);
        add_chunk(plan, key, slot_depth, (int32_t)head, (int32_t)(c % half), earlier, in_wave,
                  (int32_t)(c % slots));
    }
    plan_rank_by_key(plan, key);
    g_free(slot_depth);
    g_free(key);
    return SIM_OK;
}

/* The paper's m (n + 1) (c + r) / 2 for an even number of heads. */
static bool symmetric_shift_closed_form(const Workload *wl, const PolicyCosts *k, int64_t *ns, bool *is_exact)
{
    if (!policy_is_paper_shape(wl, k) || wl->heads % 2)
        return false;
    *ns = (int64_t)wl->heads * (wl->n_sm + 1) * (k->c_ns + k->r_ns) / 2;
    *is_exact = k->latency_ns <= k->c_ns;
    return true;
}

const PolicyOps policy_symmetric_shift = {
    .name = "symmetric-shift",
    .summary = "DASH Symmetric Shift (causal): persistent, pairs KV tile i with N-1-i; no bubbles",
    .supports = policy_on_causal,
    .build = symmetric_shift_build,
    .closed_form = symmetric_shift_closed_form,
};

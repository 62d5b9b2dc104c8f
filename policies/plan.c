/* Plan construction helpers shared by the policy files, the registry lookup wrapper and the causal
 * geometry. Invariant kept by policy_build: a returned plan passed plan_check (each kept pair once,
 * ranks of every row a permutation of 0..len-1), so later layers never re-validate policies. */
#include "policy.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

int policy_q_lo(const Workload *wl, int kv)
{
    if (wl->mask == MASK_FULL)
        return 0;
    int64_t lo = (int64_t)kv * wl->tile_ratio;
    return lo < wl->q_tiles ? (int)lo : wl->q_tiles;
}

int policy_kv_hi(const Workload *wl, int q)
{
    if (wl->mask == MASK_FULL)
        return wl->kv_tiles;
    /* kv touches q iff kv*s <= q, i.e. kv <= floor(q/s) */
    int64_t hi = q / wl->tile_ratio + 1;
    return hi < wl->kv_tiles ? (int)hi : wl->kv_tiles;
}

int64_t policy_tasks_per_head(const Workload *wl)
{
    int64_t total = 0;
    for (int kv = 0; kv < wl->kv_tiles; kv++)
        total += wl->q_tiles - policy_q_lo(wl, kv);
    return total;
}

void plan_lpt_position(const Workload *wl, int64_t t, int32_t *head, int32_t *raw)
{
    int64_t sw = wl->head_swizzle > 0 ? wl->head_swizzle : 1, n = wl->kv_tiles;
    int64_t section = t / (sw * n), l2 = t % (sw * n);
    int64_t full_sections = wl->heads / sw;
    int64_t width = section < full_sections ? sw : wl->heads % sw;
    *raw = (int32_t)(l2 / width);
    *head = (int32_t)(section * sw + l2 % width);
}

void plan_launch_kv(const Workload *wl, int64_t t, bool is_shortest_first, int32_t *head, int32_t *kv)
{
    int32_t raw;
    if (wl->mask == MASK_FULL) {
        *head = (int32_t)(t / wl->kv_tiles);
        raw = (int32_t)(t % wl->kv_tiles);
    } else {
        plan_lpt_position(wl, t, head, &raw);
    }
    *kv = is_shortest_first ? wl->kv_tiles - 1 - raw : raw;
}

void plan_add_kv_cta(Plan *plan, int32_t head, int32_t kv, bool is_descending)
{
    int lo = policy_q_lo(&plan->wl, kv), hi = plan->wl.q_tiles;
    plan_add_cta(plan, -1);
    for (int i = 0; i < hi - lo; i++)
        plan_add_task(plan, head, kv, is_descending ? hi - 1 - i : lo + i);
}

void plan_rank_by_kv(Plan *plan, bool is_descending)
{
    int64_t *key = g_new(int64_t, plan->task_count);
    for (int64_t i = 0; i < plan->task_count; i++)
        key[i] = is_descending ? -plan->tasks[i].kv : plan->tasks[i].kv;
    plan_rank_by_key(plan, key);
    g_free(key);
}

int32_t plan_add_cta(Plan *plan, int32_t slot)
{
    if (plan->cta_count == plan->cta_capacity) {
        plan->cta_capacity = plan->cta_capacity ? 2 * plan->cta_capacity : 64;
        plan->ctas = g_renew(PlanCta, plan->ctas, plan->cta_capacity);
    }
    plan->ctas[plan->cta_count] = (PlanCta){ .slot = slot, .task_begin = (int32_t)plan->task_count };
    return plan->cta_count++;
}

/* Tasks are preallocated by policy_build (the count is known from the mask), so this never grows. */
void plan_add_task(Plan *plan, int32_t head, int32_t kv, int32_t q)
{
    plan->tasks[plan->task_count++] = (PlanTask){ .head = head, .kv = kv, .q = q, .rank = -1 };
    plan->ctas[plan->cta_count - 1].task_count++;
}

typedef struct {
    int64_t key;
    int32_t kv;
    int64_t task;
} RankItem;

static int rank_item_cmp(const void *a, const void *b)
{
    const RankItem *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->kv > y->kv) - (x->kv < y->kv);
}

/* Bucket the tasks by row (counting sort), then order each row, which holds at most N tasks. */
void plan_rank_by_key(Plan *plan, const int64_t *key)
{
    int64_t rows = (int64_t)plan->wl.heads * plan->wl.q_tiles;
    int64_t *first = g_new0(int64_t, rows + 1);
    for (int64_t i = 0; i < plan->task_count; i++)
        first[(int64_t)plan->tasks[i].head * plan->wl.q_tiles + plan->tasks[i].q + 1]++;
    for (int64_t row = 0; row < rows; row++)
        first[row + 1] += first[row];
    int64_t *fill = g_memdup2(first, sizeof *first * (rows + 1));
    RankItem *items = g_new(RankItem, plan->task_count);
    for (int64_t i = 0; i < plan->task_count; i++) {
        const PlanTask *t = &plan->tasks[i];
        items[fill[(int64_t)t->head * plan->wl.q_tiles + t->q]++] = (RankItem){ key[i], t->kv, i };
    }
    for (int64_t row = 0; row < rows; row++) {
        qsort(items + first[row], first[row + 1] - first[row], sizeof *items, rank_item_cmp);
        for (int64_t i = first[row]; i < first[row + 1]; i++)
            plan->tasks[items[i].task].rank = (int32_t)(i - first[row]);
    }
    g_free(items), g_free(fill), g_free(first);
}

/* Each kept pair exactly once and ranks of every row = 0..len-1; a failure is a bug in a policy. */
static bool plan_check(const Plan *plan, char *err, size_t errlen)
{
    const Workload *wl = &plan->wl;
    int64_t pairs = (int64_t)wl->heads * wl->kv_tiles * wl->q_tiles;
    uint8_t *seen = g_new0(uint8_t, pairs);
    int32_t *row_len = g_new0(int32_t, (int64_t)wl->heads * wl->q_tiles);
    bool ok = plan->task_count == wl->heads * policy_tasks_per_head(wl);
    for (int64_t i = 0; ok && i < plan->task_count; i++) {
        const PlanTask *t = &plan->tasks[i];
        int64_t pair = ((int64_t)t->head * wl->kv_tiles + t->kv) * wl->q_tiles + t->q;
        ok = t->q >= policy_q_lo(wl, t->kv) && !seen[pair];
        seen[pair] = 1;
        row_len[(int64_t)t->head * wl->q_tiles + t->q]++;
    }
    for (int64_t i = 0; ok && i < plan->task_count; i++) {
        const PlanTask *t = &plan->tasks[i];
        ok = t->rank >= 0 && t->rank < row_len[(int64_t)t->head * wl->q_tiles + t->q];
    }
    g_free(seen);
    g_free(row_len);
    if (!ok)
        snprintf(err, errlen, "policy %s built an inconsistent plan (a task missing, repeated or misranked)",
                 plan->policy);
    return ok;
}

Plan *policy_build(const PolicyOps *p, const Workload *wl, char *err, size_t errlen)
{
    if ((wl->mask == MASK_FULL && !p->supports_full) || (wl->mask == MASK_CAUSAL && !p->supports_causal)) {
        snprintf(err, errlen, "policy %s is not defined for the %s mask", p->name,
                 wl->mask == MASK_FULL ? "full" : "causal");
        return NULL;
    }
    Plan *plan = g_new0(Plan, 1);
    plan->policy = p->name;
    plan->wl = *wl;
    plan->tasks = g_new(PlanTask, wl->heads * policy_tasks_per_head(wl));
    if (!p->build(plan, err, errlen) || !plan_check(plan, err, errlen)) {
        plan_free(plan);
        return NULL;
    }
    return plan;
}

void plan_free(Plan *plan)
{
    if (!plan)
        return;
    g_free(plan->ctas);
    g_free(plan->tasks);
    g_free(plan);
}

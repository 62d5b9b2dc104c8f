/* Plan construction helpers shared by the policy files (launch orders, ranking) and policy_build.
 * Invariant kept by policy_build: a returned plan passed plan_check (sim/core/plan.h), so later layers
 * never re-validate a built-in policy's plan. */
#include "policy.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "prefault.h"

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
    const Workload *wl = &plan->wl;
    int lo = plan_q_lo(wl, kv), hi = wl->q_tiles;
    plan_add_cta(plan, -1);
    for (int i = 0; i < hi - lo; i++) {
        int q = is_descending ? hi - 1 - i : lo + i;
        if (plan_is_kept(wl, kv, q))
            plan_add_task(plan, head, kv, q);
    }
}

void plan_rank_by_kv(Plan *plan, bool is_descending)
{
    int64_t *key = SIM_PREFAULT_NEW(int64_t, plan->task_count);
    for (int64_t i = 0; i < plan->task_count; i++)
        key[i] = is_descending ? -plan->tasks[i].kv : plan->tasks[i].kv;
    plan_rank_by_key(plan, key);
    g_free(key);
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

/* Whether every row's tasks, in task order, already run in (key, kv) order; then each task's rank is the
 * count of its row's tasks before it, written here. Most policies build their rows in their order. */
static bool rank_in_task_order(Plan *plan, const int64_t *key)
{
    int64_t rows = (int64_t)plan->wl.heads * plan->wl.q_tiles;
    int32_t *seen = g_new0(int32_t, rows), *last = g_new(int32_t, rows); /* last: the row's last task */
    bool is_ordered = true;
    for (int64_t i = 0; i < plan->task_count && is_ordered; i++) {
        PlanTask *t = &plan->tasks[i];
        int64_t row = (int64_t)t->head * plan->wl.q_tiles + t->q;
        if (seen[row] > 0) {
            int64_t j = last[row];
            is_ordered = key[j] < key[i] || (key[j] == key[i] && plan->tasks[j].kv < t->kv);
        }
        t->rank = seen[row]++;
        last[row] = (int32_t)i;
    }
    g_free(seen), g_free(last);
    return is_ordered;
}

/* Ranks each row by (key, kv): in task order when that is the row's order, else bucket the tasks by row
 * (counting sort) and order each row, which holds at most N tasks. */
void plan_rank_by_key(Plan *plan, const int64_t *key)
{
    if (rank_in_task_order(plan, key))
        return;
    int64_t rows = (int64_t)plan->wl.heads * plan->wl.q_tiles;
    int64_t *first = g_new0(int64_t, rows + 1);
    for (int64_t i = 0; i < plan->task_count; i++)
        first[(int64_t)plan->tasks[i].head * plan->wl.q_tiles + plan->tasks[i].q + 1]++;
    for (int64_t row = 0; row < rows; row++)
        first[row + 1] += first[row];
    int64_t *fill = g_memdup2(first, sizeof *first * (rows + 1));
    RankItem *items = SIM_PREFAULT_NEW(RankItem, plan->task_count);
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

/* Why p cannot build for q: its mask (naming the policies that take it), GQA, or no costs for a timed one;
 * SIM_OK when it can. */
static SimStatus check_query(const PolicyOps *p, const PolicyQuery *q, SimError *err)
{
    const Workload *wl = q->wl;
    if (!policy_supports(p, wl)) {
        const PolicyOps *other = policy_for_mask(p, wl);
        char names[256];
        policy_names_for(wl, names, sizeof names);
        if (other)
            return sim_error_set(err, SIM_ERR_SCHEDULE, "policy %s is not defined for the %s mask; use %s", p->name,
                                 plan_mask_name(wl->mask), other->name);
        return sim_error_set(err, SIM_ERR_SCHEDULE, "policy %s is not defined for the %s mask; the policies for it "
                             "are %s", p->name, plan_mask_name(wl->mask), names);
    }
    if (q->gqa_group > 1 && !p->has_gqa)
        return sim_error_set(err, SIM_ERR_USAGE, "policy %s serves one query head a CTA (no GQA)", p->name);
    if (p->is_timed && !q->search)
        return sim_error_set(err, SIM_ERR_USAGE, "policy %s needs the costs to build a plan", p->name);
    return SIM_OK;
}

Plan *policy_build_query(const PolicyOps *p, const PolicyQuery *q, SimError *err)
{
    if (check_query(p, q, err) != SIM_OK)
        return NULL;
    const Workload *wl = q->wl;
    /* a timed policy's plan comes whole from its search (build swaps it in): no room to reserve here */
    Plan *plan = plan_new(p->name, wl, p->is_timed ? 1 : wl->heads * plan_tasks_per_head(wl));
    if (!p->is_timed)
        sim_prefault(plan->tasks, sizeof *plan->tasks * plan->task_capacity); /* the mask's tasks, all written */
    SimError check = { 0 };
    if (p->build(plan, q, err) != SIM_OK)
        return plan_free(plan), NULL;
    if (plan_check(plan, "", &check) != SIM_OK) { /* a policy's bug, reported rather than run */
        sim_error_set(err, SIM_ERR_SCHEDULE, "policy %s built an inconsistent plan: %s", p->name, check.msg);
        return plan_free(plan), NULL;
    }
    return plan;
}

Plan *policy_build(const PolicyOps *p, const Workload *wl, SimError *err)
{
    return policy_build_query(p, &(PolicyQuery){ .wl = wl, .gqa_group = 1 }, err);
}

/* Attention plans: construction, the causal geometry and plan_check, the invariant every reader of a plan
 * (the engine, the plan file reader, gpu/) relies on. Plain C with malloc, no GLib: gpu/ links this object. */
#include "plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Out of memory is not an input error: abort, as GLib's allocator does for the rest of the tree. */
static void *plan_alloc(void *p, size_t count, size_t size)
{
    if (count && size > SIZE_MAX / count)
        abort();
    void *q = realloc(p, count && size ? count * size : 1);
    if (!q)
        abort();
    return q;
}

Plan *plan_new(const char *policy, const Workload *wl, int64_t task_capacity)
{
    Plan *plan = plan_alloc(NULL, 1, sizeof *plan);
    *plan = (Plan){ .wl = *wl, .task_capacity = task_capacity };
    snprintf(plan->policy, sizeof plan->policy, "%s", policy);
    plan->tasks = plan_alloc(NULL, (size_t)task_capacity, sizeof *plan->tasks);
    return plan;
}

int32_t plan_add_cta(Plan *plan, int32_t slot)
{
    if (plan->cta_count == plan->cta_capacity) {
        plan->cta_capacity = plan->cta_capacity ? 2 * plan->cta_capacity : 64;
        plan->ctas = plan_alloc(plan->ctas, (size_t)plan->cta_capacity, sizeof *plan->ctas);
    }
    plan->ctas[plan->cta_count] = (PlanCta){ .slot = slot, .task_begin = (int32_t)plan->task_count };
    return plan->cta_count++;
}

void plan_add_task(Plan *plan, int32_t head, int32_t kv, int32_t q)
{
    if (plan->task_count >= plan->task_capacity)
        abort(); /* a builder's bug: the capacity is the mask's exact count */
    plan->tasks[plan->task_count++] = (PlanTask){ .head = head, .kv = kv, .q = q, .rank = -1 };
    plan->ctas[plan->cta_count - 1].task_count++;
}

void plan_free(Plan *plan)
{
    if (!plan)
        return;
    free(plan->ctas);
    free(plan->tasks);
    free(plan->keep);
    free(plan);
}

bool plan_is_kept(const Workload *wl, int kv, int q)
{
    if (wl->mask == MASK_BLOCK)
        return wl->keep[(int64_t)kv * wl->q_tiles + q] != 0;
    return q >= plan_q_lo(wl, kv);
}

const char *plan_mask_name(Mask mask)
{
    return mask == MASK_FULL ? "full" : mask == MASK_CAUSAL ? "causal" : "block";
}

int plan_q_lo(const Workload *wl, int kv)
{
    if (wl->mask == MASK_FULL)
        return 0;
    if (wl->mask == MASK_BLOCK) {
        int q = 0;
        while (q < wl->q_tiles && !wl->keep[(int64_t)kv * wl->q_tiles + q])
            q++;
        return q;
    }
    int64_t lo = (int64_t)kv * wl->tile_ratio;
    return lo < wl->q_tiles ? (int)lo : wl->q_tiles;
}

int plan_kv_hi(const Workload *wl, int q)
{
    if (wl->mask == MASK_FULL)
        return wl->kv_tiles;
    if (wl->mask == MASK_BLOCK) {
        int kv = wl->kv_tiles;
        while (kv > 0 && !wl->keep[(int64_t)(kv - 1) * wl->q_tiles + q])
            kv--;
        return kv;
    }
    /* kv touches q iff kv*s <= q, i.e. kv <= floor(q/s) */
    int64_t hi = q / wl->tile_ratio + 1;
    return hi < wl->kv_tiles ? (int)hi : wl->kv_tiles;
}

int64_t plan_tasks_per_head(const Workload *wl)
{
    int64_t total = 0;
    if (wl->mask == MASK_BLOCK) {
        for (int64_t i = 0; i < (int64_t)wl->kv_tiles * wl->q_tiles; i++)
            total += wl->keep[i] != 0;
        return total;
    }
    for (int kv = 0; kv < wl->kv_tiles; kv++)
        total += wl->q_tiles - plan_q_lo(wl, kv);
    return total;
}

static SimStatus check_workload(const Plan *plan, const char *where, SimError *err)
{
    const Workload *wl = &plan->wl;
    if (wl->n_sm < 1 || wl->heads < 1 || wl->kv_tiles < 1 || wl->q_tiles < 1 || wl->tile_ratio < 1 ||
        (wl->mask != MASK_FULL && wl->mask != MASK_CAUSAL && wl->mask != MASK_BLOCK) ||
        (wl->mask == MASK_BLOCK && !wl->keep))
        return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: SMs, heads, KV tiles, Q tiles and tile ratio "
                             "must be at least 1", where, plan->policy);
    int64_t expected = (int64_t)wl->heads * plan_tasks_per_head(wl);
    if (plan->task_count != expected)
        return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s has %" PRId64 " tasks but its mask keeps %" PRId64
                             " tile pairs", where, plan->policy, plan->task_count, expected);
    return SIM_OK;
}

/* CTAs partition the tasks in order: CTA i's tasks start where CTA i-1's end; pins match persistence. */
static SimStatus check_ctas(const Plan *plan, const char *where, SimError *err)
{
    int64_t next = 0;
    for (int32_t i = 0; i < plan->cta_count; i++) {
        const PlanCta *c = &plan->ctas[i];
        if (c->task_count == 0)
            return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: CTA %d has no task (a CTA must compute at least "
                                 "one tile pair)", where, plan->policy, i);
        if (c->task_begin != next || c->task_count < 0 || c->task_begin + (int64_t)c->task_count > plan->task_count)
            return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: CTA %d does not take the tasks after CTA %d's "
                                 "(each task must belong to exactly one CTA, in launch order)", where,
                                 plan->policy, i, i - 1);
        next += c->task_count;
        bool is_pin_ok = plan->is_persistent ? c->slot >= 0 && c->slot < plan->wl.n_sm : c->slot == -1;
        if (!is_pin_ok)
            return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: CTA %d has slot %d, must be %s", where,
                                 plan->policy, i, c->slot, plan->is_persistent ? "an SM slot below n_sm" : "-1 "
                                 "(the plan is not persistent)");
    }
    if (next != plan->task_count)
        return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: %" PRId64 " tasks belong to no CTA", where,
                             plan->policy, plan->task_count - next);
    return SIM_OK;
}

/* Whether task t's pair is inside the workload and its mask. */
static inline bool is_inside(const Workload *wl, const PlanTask *t)
{
    return t->head >= 0 && t->head < wl->heads && t->kv >= 0 && t->kv < wl->kv_tiles && t->q >= 0 &&
           t->q < wl->q_tiles && (wl->mask == MASK_FULL || plan_is_kept(wl, t->kv, t->q));
}

/* Each task's pair in range and kept, each pair once (seen: a bit per pair), counted into its row's
 * row_len; the first task that is not is reported. Locals throughout: the byte stores may alias anything. */
static SimStatus check_pairs(const Plan *plan, const char *where, uint8_t *seen, int32_t *row_len, SimError *err)
{
    const Workload wl = plan->wl;
    const PlanTask *tasks = plan->tasks;
    for (int64_t i = 0, n = plan->task_count; i < n; i++) {
        const PlanTask *t = &tasks[i];
        if (!is_inside(&wl, t))
            return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: task %" PRId64 " (head %d, kv %d, q %d) is "
                                 "outside the workload or its mask", where, plan->policy, i, t->head, t->kv, t->q);
        int64_t pair = ((int64_t)t->head * wl.kv_tiles + t->kv) * wl.q_tiles + t->q;
        if (seen[pair / 8] & (1u << (pair % 8)))
            return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: task %" PRId64 " repeats tile pair (head %d, "
                                 "kv %d, q %d)", where, plan->policy, i, t->head, t->kv, t->q);
        seen[pair / 8] |= (uint8_t)(1u << (pair % 8));
        row_len[(int64_t)t->head * wl.q_tiles + t->q]++;
    }
    return SIM_OK;
}

/* Per row, the ranks a permutation of 0..len-1 (rank_seen: a bit per task's slot in its row); the first
 * task that breaks it is reported. */
static SimStatus check_ranks(const Plan *plan, const char *where, const int32_t *row_len, const int64_t *row_first,
                             uint8_t *rank_seen, SimError *err)
{
    const PlanTask *tasks = plan->tasks;
    int32_t q_tiles = plan->wl.q_tiles;
    for (int64_t i = 0, n = plan->task_count; i < n; i++) {
        const PlanTask *t = &tasks[i];
        int64_t row = (int64_t)t->head * q_tiles + t->q, slot = row_first[row] + t->rank;
        if (t->rank < 0 || t->rank >= row_len[row] || (rank_seen[slot / 8] & (1u << (slot % 8)))) /* a rank past
                                                         * its row's length has no slot: it is not marked */
            return sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: task %" PRId64 " (head %d, kv %d, q %d) has rank "
                                 "%d; the ranks of a dQ row must be a permutation of 0..%d", where, plan->policy, i,
                                 t->head, t->kv, t->q, t->rank, row_len[row] - 1);
        rank_seen[slot / 8] |= (uint8_t)(1u << (slot % 8));
    }
    return SIM_OK;
}

/* Each task's pair in range and kept, each pair once; then per row, the ranks a permutation of 0..len-1. */
static SimStatus check_tasks(const Plan *plan, const char *where, SimError *err)
{
    const Workload *wl = &plan->wl;
    int64_t pairs = (int64_t)wl->heads * wl->kv_tiles * wl->q_tiles, rows = (int64_t)wl->heads * wl->q_tiles;
    uint8_t *seen = calloc((size_t)pairs / 8 + 1, 1);
    int32_t *row_len = calloc((size_t)rows, sizeof *row_len);
    uint8_t *rank_seen = calloc((size_t)plan->task_count / 8 + 1, 1);
    int64_t *row_first = calloc((size_t)rows + 1, sizeof *row_first);
    if (!seen || !row_len || !rank_seen || !row_first)
        abort();
    if (check_pairs(plan, where, seen, row_len, err) == SIM_OK) {
        for (int64_t r = 0; r < rows; r++)
            row_first[r + 1] = row_first[r] + row_len[r];
        check_ranks(plan, where, row_len, row_first, rank_seen, err);
    }
    free(seen), free(row_len), free(rank_seen), free(row_first);
    return err->status;
}

SimStatus plan_check(const Plan *plan, const char *where, SimError *err)
{
    if (!where)
        where = "";
    if (check_workload(plan, where, err) || check_ctas(plan, where, err) || check_tasks(plan, where, err))
        return err->status;
    return SIM_OK;
}

/* ---- progress ---- */

typedef struct {
    const Plan *plan;
    int32_t *cta_of;     /* task -> its CTA */
    int32_t *next;       /* CTA -> index of its next task to finish (task_begin + done) */
    int32_t *row_next;   /* task -> the task of rank + 1 in its dQ row, or -1 */
    uint8_t *is_placed;  /* CTA -> placed on an SM */
    int64_t *stack, top; /* tasks that may have become ready */
    int64_t done;
    int32_t launched;    /* non-persistent: CTAs placed so far, in launch order */
    int32_t *slot_next;  /* persistent: per slot, the next CTA of that slot in launch order (scan position) */
    uint8_t *is_ready;   /* task -> its rank predecessor finished (rank 0: it has none) */
} Progress;

static void place(Progress *g, int32_t c)
{
    g->is_placed[c] = 1;
    g->stack[g->top++] = g->plan->ctas[c].task_begin;
}

/* Places the next CTA of slot (persistent) or the next CTA in launch order (an SM freed). */
static void place_next(Progress *g, int32_t slot)
{
    const Plan *p = g->plan;
    if (!p->is_persistent) {
        if (g->launched < p->cta_count)
            place(g, g->launched++);
        return;
    }
    while (g->slot_next[slot] < p->cta_count && p->ctas[g->slot_next[slot]].slot != slot)
        g->slot_next[slot]++;
    if (g->slot_next[slot] < p->cta_count)
        place(g, g->slot_next[slot]++);
}

/* Task t finishes if it is its placed CTA's next task and its rank predecessor finished. */
static void try_finish(Progress *g, int64_t t)
{
    int32_t c = g->cta_of[t];
    if (!g->is_placed[c] || g->next[c] != t || !g->is_ready[t])
        return;
    g->done++;
    g->next[c]++;
    const PlanCta *cta = &g->plan->ctas[c];
    if (g->next[c] < cta->task_begin + cta->task_count)
        g->stack[g->top++] = g->next[c];
    else
        place_next(g, cta->slot);
    if (g->row_next[t] >= 0)
        g->is_ready[g->row_next[t]] = 1, g->stack[g->top++] = g->row_next[t];
}

SimStatus plan_check_progress(const Plan *plan, const char *where, SimError *err)
{
    const Workload *wl = &plan->wl;
    int64_t n = plan->task_count, cells = (int64_t)wl->heads * wl->q_tiles * wl->kv_tiles;
    int32_t *by_rank = malloc(sizeof *by_rank * (size_t)(cells > 0 ? cells : 1));
    Progress g = { .plan = plan, .cta_of = malloc(sizeof(int32_t) * (size_t)(n + 1)),
                   .next = malloc(sizeof(int32_t) * (size_t)(plan->cta_count + 1)),
                   .row_next = malloc(sizeof(int32_t) * (size_t)(n + 1)), .is_placed = calloc((size_t)plan->cta_count + 1, 1),
                   .stack = malloc(sizeof(int64_t) * (size_t)(3 * n + wl->n_sm + 1)),
                   .slot_next = calloc((size_t)wl->n_sm + 1, sizeof(int32_t)), .is_ready = calloc((size_t)n + 1, 1) };
    if (!by_rank || !g.cta_of || !g.next || !g.row_next || !g.is_placed || !g.stack || !g.slot_next || !g.is_ready)
        abort();
    for (int64_t i = 0; i < cells; i++)
        by_rank[i] = -1;
    for (int32_t c = 0; c < plan->cta_count; c++) {
        g.next[c] = plan->ctas[c].task_begin;
        for (int32_t j = 0; j < plan->ctas[c].task_count; j++)
            g.cta_of[plan->ctas[c].task_begin + j] = c;
    }
    for (int64_t t = 0; t < n; t++) { /* ranks are a permutation per row (plan_check) */
        const PlanTask *k = &plan->tasks[t];
        by_rank[((int64_t)k->head * wl->q_tiles + k->q) * wl->kv_tiles + k->rank] = (int32_t)t;
        g.is_ready[t] = k->rank == 0;
    }
    for (int64_t t = 0; t < n; t++) {
        const PlanTask *k = &plan->tasks[t];
        int64_t succ = k->rank + 1 < wl->kv_tiles ? ((int64_t)k->head * wl->q_tiles + k->q) * wl->kv_tiles + k->rank + 1 : -1;
        g.row_next[t] = succ >= 0 ? by_rank[succ] : -1;
    }
    for (int32_t s = 0; s < wl->n_sm; s++) /* every SM takes a CTA (non-persistent: the next in launch order) */
        place_next(&g, s);
    while (g.top > 0)
        try_finish(&g, g.stack[--g.top]);
    if (g.done < n) {
        int32_t stuck = 0;
        while (stuck < plan->cta_count && !(g.is_placed[stuck] && g.next[stuck] < plan->ctas[stuck].task_begin +
                                            plan->ctas[stuck].task_count))
            stuck++;
        sim_error_set(err, SIM_ERR_SCHEDULE, "%splan %s: it deadlocks on %d SMs: CTA %d waits forever on a dQ row's "
                      "earlier rank (%" PRId64 " of %" PRId64 " tasks can finish)", where ? where : "", plan->policy,
                      wl->n_sm, stuck, g.done, n);
    }
    free(by_rank), free(g.cta_of), free(g.next), free(g.row_next), free(g.is_placed), free(g.stack), free(g.slot_next);
    free(g.is_ready);
    return err->status;
}

/* The exact optimum of the search's space for small instances: branch and bound over persistent schedules
 * with one CTA per (KV head, KV tile), any SM slot, any CTA order, any task order within a CTA and any rank
 * order in each row. A node places one task. Invariant that makes the pruning valid: a partial schedule's
 * makespan (search_walk) only grows as tasks are added or ranked in (edges are only added, and an op put
 * between two others lengthens their path), so no completion beats it; with a load model the same holds
 * for the fixed-duration makespan, below the engine's, which times the leaves. */
#include "search_space.h"

#include <glib.h>
#include <string.h>

#include "engine.h"

typedef struct {
    Search *s;
    const Item *items;           /* one per (KV head, KV tile), tasks in their natural order */
    int n;
    int32_t slots;               /* min(n_sm, items): a schedule never needs more (slots are alike) */
    int32_t *slot_task;          /* slot u's tasks in program order: slot_task[u * tasks + k] */
    int32_t *slot_len, *slot_ctas, *cta_len; /* per slot; cta_len[u * n + k]: its CTAs' lengths */
    int32_t *first_item;         /* per slot: its first item, -1 while empty */
    bool *is_closed;             /* the slot takes no more CTAs */
    int32_t *row_order, *row_len; /* each row's ranked tasks (CSR by s->row_first) */
    bool *is_placed;             /* per item */
    int32_t *task_pos;           /* scratch: a task's position in the walk's arrays */
    int64_t *slot_end;           /* the last walk's per slot */
    int32_t item, slot;          /* the item being placed and its slot; -1 when none */
    uint64_t left;               /* its tasks not placed yet (bit k: task k of the item) */
    int32_t placed, items_left;
    int64_t best_ns, nodes, max_nodes;
    int64_t deadline_us;         /* g_get_monotonic_time() after which it gives up; INT64_MAX: none */
    bool is_monotone, is_late;   /* is_late: it gave up on time */
    const SearchOptions *o;      /* its progress callback */
    Plan *best;                  /* the best schedule found below the upper bound; owned */
} Exact;

/* The partial schedule into the walk's arrays (slot-major positions), and its fixed-duration makespan. */
static int64_t time_partial(Exact *x)
{
    Search *s = x->s;
    int32_t pos = 0, cta = 0;
    s->slots = x->slots, s->placed = x->placed;
    for (int32_t u = 0; u < x->slots; u++) {
        s->slot_first[u] = pos, s->slot_cta_first[u] = cta;
        for (int32_t k = 0; k < x->slot_len[u]; k++, pos++) {
            int32_t t = x->slot_task[(int64_t)u * s->tasks + k];
            s->seq[pos] = t, s->red[pos].slot = u, s->slot_pos[pos] = pos, x->task_pos[t] = pos;
        }
        for (int32_t k = 0; k < x->slot_ctas[u]; k++)
            s->cta_len[cta++] = x->cta_len[u * x->n + k];
    }
    s->slot_first[x->slots] = pos, s->slot_cta_first[x->slots] = cta;
    for (int64_t r = 0; r < s->rows; r++)
        for (int32_t k = 0; k < x->row_len[r]; k++) {
            const int32_t *order = x->row_order + s->row_first[r];
            s->pred[x->task_pos[order[k]]] = k > 0 ? x->task_pos[order[k - 1]] : -1;
        }
    return search_walk(s, x->slot_end, INT64_MAX);
}

/* What the tasks not placed yet need at least: every open slot ends no earlier than now, and they share
 * the remaining CTAs' work (each CTA's duration alone), so the busiest ends at least at the average. */
static int64_t remaining_bound(const Exact *x, int64_t partial)
{
    const AttnCosts *k = &x->s->model;
    bool is_serial = k->reduce == REDUCE_SERIAL;
    int64_t work = 0, open = 0, ends = 0, per_task = is_serial ? k->c_ns + k->r_ns : MIN(k->c_ns + k->deposit_ns, k->r_ns);
    for (int i = 0; i < x->n; i++)
        if (!x->is_placed[i]) {
            int64_t m = search_item_rows(x->s, &x->items[i]);
            work += k->cta_prologue_ns + (is_serial ? m * (k->c_ns + k->r_ns)
                : MAX(m * (k->c_ns + k->deposit_ns) + k->r_ns, k->c_ns + k->deposit_ns + m * k->r_ns));
        }
    work += (int64_t)__builtin_popcountll(x->left) * per_task;
    for (int32_t u = 0; u < x->slots; u++)
        if (!x->is_closed[u])
            open++, ends += x->slot_end[u];
    return open ? MAX(partial, (ends + work + open - 1) / open) : (work ? INT64_MAX : partial);
}

/* The schedule as a plan: slot by slot, CTA by CTA; ranks from the rows' orders. */
static Plan *exact_plan(const Exact *x)
{
    Search *s = x->s;
    Plan *plan = plan_new("exact", s->wl, s->tasks);
    plan->is_persistent = true;
    int32_t *rank = g_new(int32_t, s->tasks);
    for (int64_t r = 0; r < s->rows; r++)
        for (int32_t k = 0; k < x->row_len[r]; k++)
            rank[x->row_order[s->row_first[r] + k]] = k;
    for (int32_t u = 0; u < x->slots; u++)
        for (int32_t c = 0, k = 0; c < x->slot_ctas[u]; c++) {
            plan_add_cta(plan, u);
            for (int32_t j = 0, head, q; j < x->cta_len[u * x->n + c]; j++, k++) {
                int32_t t = x->slot_task[(int64_t)u * s->tasks + k];
                search_task_pair(s, t, &head, &q);
                plan_add_task(plan, head, s->task_kv[t], q);
                plan->tasks[plan->task_count - 1].rank = rank[t];
            }
        }
    g_free(rank);
    return plan;
}

/* A complete schedule: kept when faster than the best (with a load model, as the engine times it). */
static void leaf(Exact *x, int64_t fixed_ns)
{
    Plan *plan = exact_plan(x);
    int64_t ms = fixed_ns;
    if (!x->s->is_fast) {
        SimProgram *prog = sim_attention_program(plan, x->s->costs);
        SimSchedule sched = { 0 };
        SimError err = { 0 };
        ms = sim_engine_run(prog, &sched, &err) == SIM_OK ? sched.makespan_ns : INT64_MAX;
        sim_schedule_clear(&sched);
        sim_program_free(prog);
    }
    if (ms < x->best_ns)
        plan_free(x->best), x->best = plan, x->best_ns = ms;
    else
        plan_free(plan);
}

static void dfs(Exact *x);

/* Task k of the item being placed goes next on its slot, ranked at place at in its row. */
static void place_task(Exact *x, int32_t k, int32_t at)
{
    Search *s = x->s;
    int32_t t = (int32_t)search_item_first(s, &x->items[x->item]) + k, row = s->task_row[t], u = x->slot;
    int32_t *order = x->row_order + s->row_first[row];
    memmove(order + at + 1, order + at, sizeof *order * (size_t)(x->row_len[row]++ - at));
    order[at] = t;
    x->slot_task[(int64_t)u * s->tasks + x->slot_len[u]++] = t;
    x->cta_len[u * x->n + x->slot_ctas[u] - 1]++;
    x->left &= ~(UINT64_C(1) << k), x->placed++;
    dfs(x);
    x->left |= UINT64_C(1) << k, x->placed--;
    x->cta_len[u * x->n + x->slot_ctas[u] - 1]--, x->slot_len[u]--;
    memmove(order + at, order + at + 1, sizeof *order * (size_t)(--x->row_len[row] - at));
}

/* Item i opens a CTA on slot u (its tasks follow, node by node). */
static void start_item(Exact *x, int i, int32_t u)
{
    int32_t rows = search_item_rows(x->s, &x->items[i]);
    x->item = i, x->slot = u, x->left = rows == 64 ? ~UINT64_C(0) : (UINT64_C(1) << rows) - 1;
    x->is_placed[i] = true, x->items_left--;
    if (x->first_item[u] < 0)
        x->first_item[u] = i;
    x->cta_len[u * x->n + x->slot_ctas[u]++] = 0;
    dfs(x);
    x->slot_ctas[u]--;
    if (x->first_item[u] == i)
        x->first_item[u] = -1;
    x->is_placed[i] = false, x->items_left++;
    x->item = x->slot = -1, x->left = 0;
}

/* Branches at a node: the item being placed takes any of its tasks next, ranked anywhere in its row
 * (last first); else the open slot that ends first (lowest of equals) takes any unplaced item, or no more.
 * Empty slots are alike: the first item of a slot comes after the one of the slot before. */
static void branch(Exact *x)
{
    Search *s = x->s;
    if (x->item >= 0 && x->left) {
        int32_t item = x->item, u = x->slot;
        for (int32_t k = 0; k < 64; k++)
            if (x->left >> k & 1)
                for (int32_t at = x->row_len[s->task_row[search_item_first(s, &x->items[item]) + k]]; at >= 0; at--) {
                    place_task(x, k, at);
                    x->item = item, x->slot = u;
                }
        return;
    }
    int32_t u = -1;
    for (int32_t v = 0; v < x->slots; v++)
        if (!x->is_closed[v] && (u < 0 || x->slot_end[v] < x->slot_end[u]))
            u = v;
    if (u < 0)
        return;
    bool is_empty = x->slot_len[u] == 0;
    for (int i = 0; i < x->n; i++)
        if (!x->is_placed[i] && !(is_empty && u > 0 && i < x->first_item[u - 1]))
            start_item(x, i, u);
    for (int32_t v = u; v < (is_empty ? x->slots : u + 1); v++) /* an empty slot closes with every later one */
        x->is_closed[v] = true;
    dfs(x);
    for (int32_t v = u; v < (is_empty ? x->slots : u + 1); v++)
        x->is_closed[v] = false;
}

static void dfs(Exact *x)
{
    if (x->is_late || x->nodes++ >= x->max_nodes)
        return;
    SimError over = { 0 };
    if ((x->nodes & 0xfff) == 0 && (g_get_monotonic_time() > x->deadline_us /* every 4096 nodes: ~1 ms */
                                    || sim_budget_check(x->o->budget, "the search", &over) != SIM_OK)) {
        x->is_late = true;
        return;
    }
    if (x->o->progress && (x->nodes & 0xffff) == 0)
        x->o->progress(x->o->progress_ctx, "exact nodes", x->nodes, x->max_nodes, x->best_ns);
    int64_t ms = time_partial(x);
    if (ms == INT64_MAX) /* a deadlock stays one when tasks are added */
        return;
    int64_t bound = x->is_monotone ? remaining_bound(x, ms) : 0;
    if (bound >= x->best_ns)
        return;
    if (x->items_left == 0 && !x->left)
        leaf(x, ms);
    else
        branch(x);
}

SearchExactStop search_exact(Search *s, const Item *items, int n, int64_t upper_ns, const SearchOptions *o,
                             int64_t max_nodes, int64_t deadline_us, Plan **plan, int64_t *plan_ns, int64_t *nodes)
{
    Exact x = { .s = s, .items = items, .n = n, .slots = MIN(s->wl->n_sm, n), .item = -1, .slot = -1,
                .items_left = n, .best_ns = upper_ns, .max_nodes = max_nodes, .deadline_us = deadline_us,
                .is_monotone = search_is_monotone(s), .o = o };
    if (!s->seq)
        search_alloc_eval(s);
    x.slot_task = g_new(int32_t, (int64_t)x.slots * s->tasks), x.slot_len = g_new0(int32_t, x.slots);
    x.slot_ctas = g_new0(int32_t, x.slots), x.cta_len = g_new(int32_t, (int64_t)x.slots * n);
    x.first_item = g_new(int32_t, x.slots), x.is_closed = g_new0(bool, x.slots);
    x.row_order = g_new(int32_t, s->tasks), x.row_len = g_new0(int32_t, s->rows);
    x.is_placed = g_new0(bool, n), x.task_pos = g_new(int32_t, s->tasks), x.slot_end = g_new0(int64_t, x.slots);
    for (int32_t u = 0; u < x.slots; u++)
        x.first_item[u] = -1;
    dfs(&x);
    if (o->progress && x.nodes > 0xffff) /* the progress line ends */
        o->progress(o->progress_ctx, "exact nodes", max_nodes, max_nodes, MIN(x.best_ns, upper_ns));
    *plan = x.best, *plan_ns = x.best_ns, *nodes = MIN(x.nodes, max_nodes);
    SearchExactStop stop = x.is_late ? SEARCH_EXACT_TIME : x.nodes > max_nodes ? SEARCH_EXACT_NODES : SEARCH_EXACT_COMPLETE;
    g_free(x.slot_task), g_free(x.slot_len), g_free(x.slot_ctas), g_free(x.cta_len), g_free(x.first_item);
    g_free(x.is_closed), g_free(x.row_order), g_free(x.row_len), g_free(x.is_placed), g_free(x.task_pos);
    g_free(x.slot_end);
    return stop;
}

/* Schedule search. A candidate is a layout: each SM slot runs a sequence of items (a KV tile of a head,
 * its tasks rotated by an offset, optionally reversed), as persistent CTAs. Ranks are set by readiness:
 * each row accumulates in the order its computes ended in the previous run of the layout, so program
 * order and accumulation order follow one total order (the earlier run's), which rules out deadlock and
 * removes the waits Lemma 1 warns about. Layouts are evaluated by search_eval (search_eval.c); the result
 * is a plan the engine runs to the makespan reported. */
#include "search.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "policy.h"
#include "search_space.h"

/* The best layout seen, kept as its items and rank order; the plan is built once, at the end. */
typedef struct {
    Item *items;
    int n;
    int32_t *row_pos;            /* its rank order; NULL when ranked by depth */
} BestLayout;

/* Runs plan on the engine: its makespan, INT64_MAX when it deadlocks. items (unless NULL; one per CTA, in
 * launch order) get the slot and place each CTA ran at. */
static int64_t run_plan(Search *s, const Plan *plan, Item *items)
{
    SimProgram *prog = sim_attention_program(plan, s->costs);
    SimSchedule sched = { 0 };
    SimError err = { 0 };
    s->evaluations++;
    int64_t makespan = sim_engine_run(prog, &sched, &err) == SIM_OK ? sched.makespan_ns : INT64_MAX;
    int32_t *count = items ? g_new0(int32_t, s->wl->n_sm) : NULL;
    for (int32_t c = 0; items && makespan != INT64_MAX && c < plan->cta_count; c++) /* in-order dispatch */
        items[c].slot = sched.cta_unit[c], items[c].pos = count[sched.cta_unit[c]]++;
    g_free(count);
    sim_schedule_clear(&sched);
    sim_program_free(prog);
    return makespan;
}

/* Keeps plan as the best when it is faster, else frees it. */
static void offer(SearchResult *r, BestLayout *best, Plan *plan, int64_t makespan, const char *origin)
{
    if (makespan >= r->makespan_ns) {
        plan_free(plan);
        return;
    }
    plan_free(r->plan);
    r->plan = plan, r->makespan_ns = makespan, best->n = 0;
    snprintf(r->origin, sizeof r->origin, "%s", origin);
}

/* The last evaluation's layout and ranks become the best. */
static void keep_layout(Search *s, SearchResult *r, BestLayout *best, const Item *items, int n, int64_t makespan)
{
    plan_free(r->plan);
    r->plan = NULL, r->makespan_ns = makespan;
    const int32_t *ranks = search_last_ranks(s);
    if (!best->items)
        best->items = g_new(Item, n);
    memcpy(best->items, items, sizeof *items * n), best->n = n;
    g_free(best->row_pos);
    best->row_pos = ranks ? g_memdup2(ranks, sizeof *ranks * s->tasks) : NULL;
}

/* A layout, ranked by depth and then by readiness: up to rounds evaluations, each ranking by the previous
 * one's compute ends, while it gets faster. Sorts items by launch. Returns the best makespan; with a
 * caller that only asks whether it is below stop_ns (INT64_MAX: none), the last round stops at a slot that
 * cannot end before stop_ns or the best (neither would take that round's makespan) as if it were slower. */
static int64_t evaluate(Search *s, Item *items, int n, int rounds, int64_t stop_ns, SearchResult *r,
                        BestLayout *best)
{
    int64_t result = INT64_MAX;
    search_sort_items(items, n);
    for (int round = 0; round < rounds; round++) {
        int64_t stop = round == rounds - 1 && stop_ns != INT64_MAX ? MAX(stop_ns, r->makespan_ns) : INT64_MAX;
        int64_t ms = search_eval(s, items, n, round == 0 ? RANK_BY_DEPTH : RANK_BY_READINESS, stop);
        if (ms < r->makespan_ns)
            keep_layout(s, r, best, items, n, ms);
        if (ms >= result)
            break;
        result = ms;
    }
    return result;
}

/* ---- the constructive layout ---- */

static int32_t tile_rows(const Search *s, const Item *it)
{
    return s->tile_first[it->tile + 1] - s->tile_first[it->tile];
}

static int by_rows_desc(const void *a, const void *b, void *ctx)
{
    const Search *s = ctx;
    const Item *x = a, *y = b;
    int32_t rx = tile_rows(s, x), ry = tile_rows(s, y);
    if (rx != ry)
        return ry - rx;
    return x->head != y->head ? x->head - y->head : x->kv - y->kv;
}

/* KV tiles longest first onto the least-loaded slot (so long tiles pair with short ones, as Symmetric
 * Shift pairs k with N-1-k), each tile's rows rotated by its slot (so tiles that run at the same time
 * touch different rows, as Shift does). Returns the item count; *items owned by the caller. */
static int constructive(Search *s, Item **items)
{
    int n = search_items(s, items);
    g_qsort_with_data(*items, n, sizeof **items, by_rows_desc, s);
    int64_t *load = g_new0(int64_t, s->wl->n_sm);
    int32_t *count = g_new0(int32_t, s->wl->n_sm);
    for (int i = 0; i < n; i++) {
        int32_t best = 0;
        for (int32_t u = 1; u < s->wl->n_sm; u++)
            if (load[u] < load[best])
                best = u;
        Item *it = &(*items)[i];
        it->slot = best, it->pos = count[best]++;
        it->offset = best % tile_rows(s, it);
        load[best] += tile_rows(s, it);
    }
    g_free(load), g_free(count);
    return n;
}

/* ---- baselines ---- */

/* The tile order as the search's baseline and as the layout it runs as: *items (unless NULL) gets the CTAs as
 * items in launch order, their tasks' order set (slots not). */
static Plan *handmade(const Search *s, PlanTileOrder order, Item **items_out)
{
    Plan *plan = plan_new(plan_tile_order_name(order), s->wl, s->tasks);
    plan_add_tile_order(plan, s->group, order);
    if (!items_out)
        return plan;
    Item *all;
    search_items(s, &all);
    int32_t *tile_of = g_new(int32_t, s->wl->kv_tiles); /* KV tile -> its index among the tiles with work */
    for (int32_t j = 0; j < s->tile_count; j++)
        tile_of[s->tile_kv[j]] = j;
    *items_out = g_new(Item, MAX(plan->cta_count, 1));
    for (int32_t c = 0; c < plan->cta_count; c++) {
        const PlanTask *t = &plan->tasks[plan->ctas[c].task_begin];
        (*items_out)[c] = all[(int64_t)(t->head / s->group) * s->tile_count + tile_of[t->kv]];
        (*items_out)[c].is_reverse = order == PLAN_TILES_DESCENDING; /* as a layout: exact for one query head a KV head */
    }
    g_free(tile_of), g_free(all);
    return plan;
}

static void add_baseline(SearchResult *r, const char *name, int64_t makespan)
{
    if (r->baseline_count == SIM_SEARCH_MAX_BASELINES)
        return;
    SearchBaseline *b = &r->baselines[r->baseline_count++];
    snprintf(b->name, sizeof b->name, "%s", name);
    b->makespan_ns = makespan;
}

/* The tile orders (plan_add_tile_order: ascending, descending, spt), then, on full and causal masks
 * without GQA, every registered time-free policy for the mask as "policy:NAME" (their own launch orders:
 * FA3's LPT, Shift ...; on a block mask the registered time-free policies are the tile orders themselves).
 * *start: the fastest tile order as the layout it ran as (each CTA where it ran), NULL when none ran or
 * it is not one (descending with GQA); owned by the caller. */
static void baselines(Search *s, SearchResult *r, BestLayout *best, Item **start)
{
    int64_t fastest = INT64_MAX;
    *start = NULL;
    for (PlanTileOrder order = PLAN_TILES_ASCENDING; order <= PLAN_TILES_SPT; order++) {
        Item *items;
        Plan *plan = handmade(s, order, &items);
        int64_t ms = run_plan(s, plan, items);
        add_baseline(r, plan->policy, ms);
        offer(r, best, plan, ms, plan->policy);
        if (ms < fastest && !(order == PLAN_TILES_DESCENDING && s->group > 1))
            g_free(*start), *start = items, fastest = ms;
        else
            g_free(items);
    }
    for (int i = 0; s->wl->mask != MASK_BLOCK && s->group == 1 && i < policy_count(); i++) {
        SimError err = { 0 };
        const PolicyOps *p = policy_at(i);
        Plan *plan = p->is_timed || !policy_supports(p, s->wl) ? NULL : policy_build(p, s->wl, &err);
        if (!plan)
            continue;
        int64_t ms = run_plan(s, plan, NULL);
        char name[64];
        snprintf(name, sizeof name, "policy:%.48s", plan->policy); /* apart from the hand-made "descending" */
        add_baseline(r, name, ms);
        offer(r, best, plan, ms, name);
    }
}

/* ---- local search ---- */

/* One random change of the layout: rotate a tile's rows, reverse them, or move a tile to another slot
 * (appended there) or swap two tiles' places. */
static void random_move(const Search *s, Item *items, int n, GRand *g)
{
    Item *a = &items[g_rand_int_range(g, 0, n)];
    int32_t count = tile_rows(s, a);
    switch (g_rand_int_range(g, 0, 4)) {
    case 0:
        a->offset = (a->offset + g_rand_int_range(g, 1, MAX(2, count))) % count;
        break;
    case 1:
        a->is_reverse = !a->is_reverse;
        break;
    case 2: {
        int32_t slot = g_rand_int_range(g, 0, s->wl->n_sm), last = -1;
        for (int i = 0; i < n; i++)
            if (items[i].slot == slot)
                last = MAX(last, items[i].pos);
        a->slot = slot, a->pos = last + 1;
        break;
    }
    default: {
        Item *b = &items[g_rand_int_range(g, 0, n)];
        int32_t slot = a->slot, pos = a->pos;
        a->slot = b->slot, a->pos = b->pos, b->slot = slot, b->pos = pos;
    }
    }
}

/* Moves from the constructive layout; a move stays when the layout gets strictly faster. A move whose
 * busiest slot alone takes as long as the current layout cannot be faster: it is not evaluated. Stops early
 * once the best is at or below stop_ns (0: never). Returns the accepted layout's makespan (items holds it). */
static int64_t local_search(Search *s, Item *items, int n, int64_t current, const SearchOptions *o, uint32_t seed,
                            int64_t stop_ns, SearchResult *r, BestLayout *best)
{
    GRand *g = g_rand_new_with_seed(seed);
    Item *trial = g_new(Item, MAX(n, 1));
    bool can_bound = search_is_monotone(s);
    SimError over = { 0 };
    for (int it = 0; it < o->iterations && n > 0 && r->makespan_ns > stop_ns; it++) {
        if (sim_budget_check(o->budget, "the search", &over) != SIM_OK)
            break; /* sim_search reports it */
        memcpy(trial, items, sizeof *trial * n);
        random_move(s, trial, n, g);
        int64_t before = r->makespan_ns, ms = INT64_MAX;
        if (!can_bound || search_layout_bound(s, trial, n) < current)
            ms = evaluate(s, trial, n, 2, current, r, best);
        if (r->makespan_ns < before)
            snprintf(r->origin, sizeof r->origin, "local search");
        if (ms < current)
            memcpy(items, trial, sizeof *trial * n), current = ms;
        if (o->progress)
            o->progress(o->progress_ctx, "moves", it + 1, o->iterations, r->makespan_ns);
    }
    g_free(trial);
    g_rand_free(g);
    return current;
}

/* When the moves left a hand-made order the best, moves again from it, as the layout it ran as (seed + 1). */
static void from_handmade(Search *s, Item *start, int n, const SearchOptions *o, SearchResult *r, BestLayout *best)
{
    if (!r->plan || strncmp(r->origin, "policy:", 7) == 0)
        return;
    char name[64];
    snprintf(name, sizeof name, "%.40s as a layout", r->origin);
    int64_t before = r->makespan_ns, current = evaluate(s, start, n, 2, INT64_MAX, r, best);
    if (r->makespan_ns < before)
        snprintf(r->origin, sizeof r->origin, "%s", name);
    local_search(s, start, n, current, o, o->seed + 1, 0, r, best);
}

/* ---- the exact step (small instances) ---- */

SearchOptions sim_search_options_default(void)
{
    return (SearchOptions){ .iterations = 100, .seed = 1, .exact_max_nodes = 2000000, .exact_max_ms = 10000,
                            .gqa_group = 1 };
}

const char *sim_search_exact_stop_name(SearchExactStop stop)
{
    static const char *const names[] = { "bound", "complete", "nodes", "time", "size", "off" };
    return stop <= SEARCH_EXACT_OFF ? names[stop] : "?";
}

/* Branch and bound within o's node and time bounds: half the nodes for a schedule at the space bound (found:
 * proved), then the rest for any faster than the best (complete: proved). */
static SearchExactStop branch_and_bound(Search *s, const SearchOptions *o, SearchResult *r, BestLayout *best)
{
    int64_t deadline = o->exact_max_ms > 0 ? g_get_monotonic_time() + o->exact_max_ms * 1000 : INT64_MAX;
    Item *items;
    Plan *plan;
    int n = search_items(s, &items);
    int64_t ns, nodes, more;
    SearchExactStop stop = search_exact(s, items, n, r->bounds.space_bound_ns + 1, o, MAX(o->exact_max_nodes / 2, 1),
                                        deadline, &plan, &ns, &nodes);
    if (plan)
        offer(r, best, plan, ns, "exact");
    else if (stop != SEARCH_EXACT_TIME && o->exact_max_nodes > nodes) {
        stop = search_exact(s, items, n, r->makespan_ns, o, o->exact_max_nodes - nodes, deadline, &plan, &ns, &more);
        if (plan)
            offer(r, best, plan, ns, "exact");
        nodes += more;
    }
    r->exact_nodes = nodes;
    g_free(items);
    return r->makespan_ns <= r->bounds.space_bound_ns ? SEARCH_EXACT_BOUND : stop;
}

/* The exact step: on instances of at most 64 tasks whose best is above the space bound (the search's space:
 * one CTA per (KV head, KV tile)), SIM_SEARCH_EXACT_MOVES more moves from the accepted layout (items, of
 * makespan current) while the best is above the bound, then branch_and_bound. The best is proved optimal
 * in the space when it meets the bound or the branch and bound completed. */
static void exact(Search *s, Item *items, int n, int64_t current, const SearchOptions *o, SearchResult *r,
                  BestLayout *best)
{
    SearchExactStop stop = SEARCH_EXACT_BOUND;
    if (r->makespan_ns > r->bounds.space_bound_ns && o->exact_max_nodes <= 0)
        stop = SEARCH_EXACT_OFF;
    else if (r->makespan_ns > r->bounds.space_bound_ns && s->tasks > SEARCH_EXACT_MAX_TASKS)
        stop = SEARCH_EXACT_SIZE;
    else if (r->makespan_ns > r->bounds.space_bound_ns) {
        SearchOptions more = *o;
        more.iterations = SIM_SEARCH_EXACT_MOVES;
        local_search(s, items, n, current, &more, o->seed + 2, r->bounds.space_bound_ns, r, best);
        if (r->makespan_ns > r->bounds.space_bound_ns)
            stop = branch_and_bound(s, o, r, best);
    }
    r->exact_stop = stop;
    r->has_exact = stop == SEARCH_EXACT_BOUND || stop == SEARCH_EXACT_COMPLETE;
    r->exact_ns = r->has_exact ? r->makespan_ns : 0;
}

/* ---- the search ---- */

/* The best layout's plan replaces r->plan when a layout is the best; the engine runs it to the makespan
 * the evaluation gave (the evaluator's invariant). */
static void finish(Search *s, SearchResult *r, BestLayout *best)
{
    if (best->n == 0)
        return;
    r->plan = search_layout_plan(s, best->items, best->n, best->row_pos, "search", NULL);
    int64_t ms = run_plan(s, r->plan, NULL);
    g_assert(ms == r->makespan_ns);
}

SimStatus sim_search_size(const Workload *wl, const AttnCosts *costs, const SearchOptions *o,
                          double engine_bytes_per_op, SearchSize *out, SimError *err)
{
    if (search_space_size(wl, o->gqa_group, out, err) != SIM_OK)
        return err->status;
    double tasks = (double)out->tasks, per_eval = costs->load ? 20 : 1;
    /* the engine runs a baseline (and the registered policies, on full and causal) beside two plans */
    out->bytes = tasks * sim_attention_ops_per_task(costs) * engine_bytes_per_op + 2 * tasks * sizeof(PlanTask)
                 + search_space_bytes(out, wl->n_sm);
    out->work = tasks * ((4 + 2.0 * o->iterations) * per_eval + 20 * (4 + policy_count()));
    if (out->tasks <= SEARCH_EXACT_MAX_TASKS && o->exact_max_nodes > 0)
        out->work += (double)(o->exact_max_nodes + 2 * SIM_SEARCH_EXACT_MOVES) * tasks * per_eval;
    return SIM_OK;
}

static SimStatus check_work(const SearchSize *z, const SearchOptions *o, SimError *err)
{
    if (z->work <= (double)SIM_SEARCH_MAX_WORK)
        return SIM_OK;
    return sim_error_set(err, SIM_ERR_LIMIT, "a search of %" G_GINT64_FORMAT " tasks with %d moves%s would take "
                         "about %.3g task visits, over the bound of 2^34 (about 4 minutes): give fewer --iterations "
                         "or a smaller workload", z->tasks, o->iterations,
                         z->tasks <= SEARCH_EXACT_MAX_TASKS ? " and its --exact-max" : "", z->work);
}

SimStatus sim_search(const Workload *wl, const AttnCosts *costs, const SearchOptions *o, SearchResult *out,
                     SimError *err)
{
    *out = (SearchResult){ .makespan_ns = INT64_MAX };
    if (o->gqa_group > 1 && wl->heads % o->gqa_group)
        return sim_error_set(err, SIM_ERR_USAGE, "--gqa %d must divide the %d query heads", o->gqa_group, wl->heads);
    SearchSize size;
    if (sim_search_size(wl, costs, o, 0, &size, err) != SIM_OK || check_work(&size, o, err) != SIM_OK)
        return err->status;
    Search s;
    if (search_space_init(&s, wl, costs, o->gqa_group, err) != SIM_OK) {
        search_space_clear(&s);
        return err->status;
    }
    search_bounds(&s, &out->bounds);
    BestLayout best = { 0 };
    Item *start, *items;
    baselines(&s, out, &best, &start);
    int n = constructive(&s, &items);
    int64_t before = out->makespan_ns, current = evaluate(&s, items, n, 4, INT64_MAX, out, &best);
    if (out->makespan_ns < before)
        snprintf(out->origin, sizeof out->origin, "constructive");
    current = local_search(&s, items, n, current, o, o->seed, 0, out, &best);
    if (start)
        from_handmade(&s, start, n, o, out, &best);
    exact(&s, items, n, current, o, out, &best);
    finish(&s, out, &best);
    out->evaluations = s.evaluations;
    g_free(items), g_free(start), g_free(best.items), g_free(best.row_pos);
    search_space_clear(&s);
    /* time only grows and a cancel is final: the check that cut a loop short fails here again */
    if (sim_budget_check(o->budget, "the search", err) != SIM_OK) {
        sim_search_result_clear(out);
        return err->status;
    }
    return SIM_OK;
}

void sim_search_result_clear(SearchResult *r)
{
    plan_free(r->plan);
    *r = (SearchResult){ 0 };
}

/* ---- the orders other commands take ---- */

void sim_search_ranks(const Plan *plan, SearchRanks *out)
{
    const Workload *wl = &plan->wl;
    int64_t rows = (int64_t)wl->heads * wl->q_tiles;
    *out = (SearchRanks){ .heads = wl->heads, .q_tiles = wl->q_tiles, .kv_tiles = wl->kv_tiles,
                          .entries = plan->task_count, .row_first = g_new0(int32_t, rows + 1),
                          .kv = g_new(int32_t, MAX(plan->task_count, 1)) };
    for (int64_t t = 0; t < plan->task_count; t++)
        out->row_first[(int64_t)plan->tasks[t].head * wl->q_tiles + plan->tasks[t].q + 1]++;
    for (int64_t r = 0; r < rows; r++)
        out->row_first[r + 1] += out->row_first[r];
    for (int64_t t = 0; t < plan->task_count; t++) {
        const PlanTask *task = &plan->tasks[t];
        out->kv[out->row_first[(int64_t)task->head * wl->q_tiles + task->q] + task->rank] = task->kv;
    }
}

void sim_search_ranks_clear(SearchRanks *r)
{
    g_free(r->row_first), g_free(r->kv);
    *r = (SearchRanks){ 0 };
}

Plan *sim_search_handmade(const Workload *wl, PlanTileOrder order, int32_t group)
{
    Plan *plan = NULL;
    Search s;
    AttnCosts unused = { 0 };
    SimError err = { 0 };
    if (search_space_init(&s, wl, &unused, group, &err) == SIM_OK)
        plan = handmade(&s, order, NULL);
    search_space_clear(&s);
    return plan;
}

/* The query hook of sim_policy_query: the search with the job's defaults. */
static SimStatus search_hook(void *ctx, const PolicyQuery *q, Plan **plan, SimError *err)
{
    SearchResult res;
    SearchOptions o = sim_search_options_default();
    o.gqa_group = q->gqa_group;
    if (sim_search(q->wl, ctx, &o, &res, err) != SIM_OK)
        return err->status;
    *plan = res.plan;
    res.plan = NULL;
    sim_search_result_clear(&res);
    return SIM_OK;
}

PolicyQuery sim_policy_query(const Workload *wl, const AttnCosts *costs, int32_t gqa_group)
{
    return (PolicyQuery){ .wl = wl, .gqa_group = gqa_group, .search = search_hook, .ctx = (void *)costs };
}

/* Schedule search. A candidate is a layout: each SM slot runs a sequence of items (a KV tile of a head,
 * its kept rows rotated by an offset, optionally reversed), as persistent CTAs. Ranks are set by
 * readiness: each row accumulates in the order its computes ended in the previous run of the layout, so
 * program order and accumulation order follow one total order (the earlier run's), which rules out
 * deadlock and removes the waits Lemma 1 warns about. Evaluations are engine runs. */
#include "search.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "policy.h"

typedef struct {
    int32_t head, kv, slot, pos;   /* head: the KV head (with GQA, query heads head*group .. +group-1); pos:
                                    * place in the slot's sequence */
    int32_t offset;                /* rows start at this index of the KV tile's kept rows, cyclically */
    bool is_reverse;
} Item;

typedef struct {
    const Workload *wl;
    const AttnCosts *costs;
    int32_t **rows;                /* rows[kv]: the kept Q tiles of KV tile kv, ascending; owned */
    int32_t *row_count;            /* per KV tile */
    int32_t **cols;                /* cols[q]: the KV tiles that keep row q, ascending; owned */
    int32_t *col_count;            /* per Q tile */
    int64_t tasks, pairs;          /* tasks of all heads; heads * N * M */
    int64_t *end;                  /* per pair: compute end in the last evaluation (scratch) */
    int64_t evaluations;
    int32_t group;                 /* GQA: query heads per KV head (a KV tile's CTA serves all of them) */
} Search;

static int64_t pair_of(const Search *s, int32_t head, int32_t kv, int32_t q)
{
    return ((int64_t)head * s->wl->kv_tiles + kv) * s->wl->q_tiles + q;
}

static void search_init(Search *s, const Workload *wl, const AttnCosts *costs, int32_t group)
{
    *s = (Search){ .wl = wl, .costs = costs, .pairs = (int64_t)wl->heads * wl->kv_tiles * wl->q_tiles,
                   .group = MAX(1, group) };
    s->rows = g_new0(int32_t *, wl->kv_tiles);
    s->row_count = g_new0(int32_t, wl->kv_tiles);
    for (int kv = 0; kv < wl->kv_tiles; kv++) {
        s->rows[kv] = g_new(int32_t, wl->q_tiles);
        for (int q = 0; q < wl->q_tiles; q++)
            if (plan_is_kept(wl, kv, q))
                s->rows[kv][s->row_count[kv]++] = q;
        s->tasks += (int64_t)wl->heads * s->row_count[kv];
    }
    s->cols = g_new0(int32_t *, wl->q_tiles);
    s->col_count = g_new0(int32_t, wl->q_tiles);
    for (int q = 0; q < wl->q_tiles; q++) {
        s->cols[q] = g_new(int32_t, wl->kv_tiles);
        for (int kv = 0; kv < wl->kv_tiles; kv++)
            if (plan_is_kept(wl, kv, q))
                s->cols[q][s->col_count[q]++] = kv;
    }
    s->end = g_new(int64_t, s->pairs);
}

static void search_clear(Search *s)
{
    for (int kv = 0; kv < s->wl->kv_tiles; kv++)
        g_free(s->rows[kv]);
    for (int q = 0; q < s->wl->q_tiles; q++)
        g_free(s->cols[q]);
    g_free(s->rows), g_free(s->row_count), g_free(s->end), g_free(s->cols), g_free(s->col_count);
}

/* ---- lower bounds ---- */

void sim_search_bounds(const Workload *wl, const AttnCosts *c, int32_t gqa_group, SearchBounds *out)
{
    bool is_serial = c->reduce == REDUCE_SERIAL;
    int64_t tasks = 0, longest_kv = 0, longest_row = 0;
    for (int kv = 0; kv < wl->kv_tiles; kv++) {
        int64_t n = 0;
        for (int q = 0; q < wl->q_tiles; q++)
            n += plan_is_kept(wl, kv, q);
        tasks += n * wl->heads, longest_kv = MAX(longest_kv, n * MAX(1, gqa_group)); /* a CTA per KV head */
    }
    for (int q = 0; q < wl->q_tiles; q++) {
        int64_t n = 0;
        for (int kv = 0; kv < wl->kv_tiles; kv++)
            n += plan_is_kept(wl, kv, q);
        longest_row = MAX(longest_row, n);
    }
    int64_t per_sm = is_serial ? c->c_ns + c->r_ns : MAX(c->c_ns + c->deposit_ns, c->r_ns);
    out->work_ns = (tasks * per_sm + wl->n_sm - 1) / wl->n_sm;
    out->chain_ns = is_serial ? longest_kv * (c->c_ns + c->r_ns)
                              : longest_kv * (c->c_ns + c->deposit_ns) + (longest_kv ? c->r_ns : 0);
    out->row_ns = longest_row ? c->c_ns + longest_row * c->r_ns : 0;
    out->lower_bound_ns = MAX(out->work_ns, MAX(out->chain_ns, out->row_ns));
}

/* ---- evaluation ---- */

static int item_cmp(const void *a, const void *b)
{
    const Item *x = a, *y = b;
    return x->pos != y->pos ? (x->pos > y->pos) - (x->pos < y->pos) : (x->slot > y->slot) - (x->slot < y->slot);
}

/* An item's tasks in its order: the group's query heads one after another, each over the KV tile's kept
 * rows, the whole list rotated by the item's offset (and reversed). Task j -> (query head, Q tile). */
static void item_task(const Search *s, const Item *it, int32_t j, int32_t *head, int32_t *q)
{
    int32_t count = s->row_count[it->kv], total = count * s->group;
    int32_t k = (it->offset + (it->is_reverse ? total - 1 - j : j)) % total;
    *head = it->head * s->group + k / count, *q = s->rows[it->kv][k % count];
}

/* The plan of a layout (items sorted by launch: place, then slot). key: per pair, the accumulation key
 * (NULL: the task's depth in its slot). Owned by the caller. */
static Plan *layout_plan(Search *s, Item *items, int n, const int64_t *key)
{
    qsort(items, n, sizeof *items, item_cmp);
    Plan *plan = plan_new("search", s->wl, s->tasks);
    plan->is_persistent = true;
    int64_t *depth = g_new0(int64_t, s->wl->n_sm), *task_key = g_new(int64_t, s->tasks);
    for (int i = 0; i < n; i++) {
        const Item *it = &items[i];
        plan_add_cta(plan, it->slot);
        for (int32_t j = 0, head, q; j < s->row_count[it->kv] * s->group; j++) {
            item_task(s, it, j, &head, &q);
            task_key[plan->task_count] = key ? key[pair_of(s, head, it->kv, q)]
                                             : depth[it->slot]++ * s->wl->n_sm + it->slot;
            plan_add_task(plan, head, it->kv, q);
        }
    }
    plan_rank_by_key(plan, task_key);
    g_free(depth), g_free(task_key);
    return plan;
}

/* Runs plan; the makespan (INT64_MAX when it deadlocks), and each task's compute end into s->end. */
static int64_t run_plan(Search *s, const Plan *plan)
{
    SimProgram *prog = sim_attention_program(plan, s->costs);
    SimSchedule sched = { 0 };
    SimError err = { 0 };
    int64_t makespan = INT64_MAX;
    s->evaluations++;
    if (sim_engine_run(prog, &sched, &err) == SIM_OK) {
        makespan = sched.makespan_ns;
        for (int64_t op = 0; op < prog->op_count; op++)
            if (prog->ops[op].kind == SIM_OP_COMPUTE) {
                const PlanTask *t = &plan->tasks[prog->ops[op].task];
                s->end[pair_of(s, t->head, t->kv, t->q)] = sched.end_ns[op];
            }
    }
    sim_schedule_clear(&sched);
    sim_program_free(prog);
    return makespan;
}

/* A layout, ranked by readiness: up to rounds runs, each ranking by the previous run's compute ends.
 * Returns the best makespan; its plan replaces *best when better than *best_ns. */
static int64_t evaluate(Search *s, Item *items, int n, int rounds, Plan **best, int64_t *best_ns)
{
    int64_t *key = NULL, result = INT64_MAX;
    for (int r = 0; r < rounds; r++) {
        Plan *plan = layout_plan(s, items, n, key);
        int64_t ms = run_plan(s, plan);
        if (ms < *best_ns)
            plan_free(*best), *best = plan, *best_ns = ms;
        else
            plan_free(plan);
        if (ms >= result)
            break;
        result = ms;
        key = key ? key : g_new(int64_t, s->pairs);
        memcpy(key, s->end, sizeof *key * s->pairs);
    }
    g_free(key);
    return result;
}

/* ---- the constructive layout ---- */

static int by_rows_desc(const void *a, const void *b, void *ctx)
{
    const Search *s = ctx;
    const Item *x = a, *y = b;
    int32_t rx = s->row_count[x->kv], ry = s->row_count[y->kv];
    if (rx != ry)
        return ry - rx;
    return x->head != y->head ? x->head - y->head : x->kv - y->kv;
}

/* KV tiles longest first onto the least-loaded slot (so long tiles pair with short ones, as Symmetric
 * Shift pairs k with N-1-k), each tile's rows rotated by its slot (so tiles that run at the same time
 * touch different rows, as Shift does). Returns the item count; *items owned by the caller. */
static int constructive(Search *s, Item **items)
{
    const Workload *wl = s->wl;
    int n = 0;
    *items = g_new(Item, (int64_t)wl->heads * wl->kv_tiles);
    for (int32_t h = 0; h < wl->heads / s->group; h++)
        for (int32_t kv = 0; kv < wl->kv_tiles; kv++)
            if (s->row_count[kv] > 0)
                (*items)[n++] = (Item){ .head = h, .kv = kv };
    g_qsort_with_data(*items, n, sizeof **items, by_rows_desc, s);
    int64_t *load = g_new0(int64_t, wl->n_sm);
    int32_t *count = g_new0(int32_t, wl->n_sm);
    for (int i = 0; i < n; i++) {
        int32_t best = 0;
        for (int32_t u = 1; u < wl->n_sm; u++)
            if (load[u] < load[best])
                best = u;
        Item *it = &(*items)[i];
        it->slot = best, it->pos = count[best]++;
        it->offset = best % s->row_count[it->kv];
        load[best] += s->row_count[it->kv];
    }
    g_free(load), g_free(count);
    return n;
}

/* ---- baselines ---- */

static int by_rows_asc(const void *a, const void *b, void *ctx)
{
    return -by_rows_desc(a, b, ctx);
}

/* FA3-style orders for any mask: a CTA per (KV head, KV tile) launched head by head, KV tiles ascending
 * ("ascending": rows ascending; "descending": rows descending) or shortest tile first ("spt", FA3's causal
 * default generalised). Every row accumulates in launch order, as FA3 does (for causal SPT that is
 * descending KV), which keeps in-order dispatch free of deadlock. */
static Plan *handmade(Search *s, int which)
{
    static const char *const names[] = { "ascending", "descending", "spt" };
    const Workload *wl = s->wl;
    Item *items = g_new(Item, (int64_t)wl->heads * wl->kv_tiles);
    int n = 0;
    for (int32_t h = 0; h < wl->heads / s->group; h++)
        for (int32_t kv = 0; kv < wl->kv_tiles; kv++)
            if (s->row_count[kv] > 0)
                items[n++] = (Item){ .head = h, .kv = kv };
    if (which == 2)
        g_qsort_with_data(items, n, sizeof *items, by_rows_asc, s);
    Plan *plan = plan_new(names[which], wl, s->tasks);
    int64_t *key = g_new(int64_t, s->tasks);
    for (int i = 0; i < n; i++) { /* the group's query heads one after another, rows as the order says */
        Item it = { .head = items[i].head, .kv = items[i].kv };
        int32_t total = s->row_count[it.kv] * s->group;
        plan_add_cta(plan, -1);
        for (int32_t j = 0, head, q; j < total; j++) {
            if (which == 1) { /* each query head's rows from the last down */
                int32_t g = j / s->row_count[it.kv], r = s->row_count[it.kv] - 1 - j % s->row_count[it.kv];
                head = it.head * s->group + g, q = s->rows[it.kv][r];
            } else
                item_task(s, &it, j, &head, &q);
            key[plan->task_count] = i;
            plan_add_task(plan, head, it.kv, q);
        }
    }
    plan_rank_by_key(plan, key);
    g_free(key), g_free(items);
    return plan;
}

/* Keeps plan as the best when it is faster, else frees it. */
static void offer(SearchResult *r, Plan *plan, int64_t makespan, const char *origin)
{
    if (makespan >= r->makespan_ns) {
        plan_free(plan);
        return;
    }
    plan_free(r->plan);
    r->plan = plan, r->makespan_ns = makespan;
    snprintf(r->origin, sizeof r->origin, "%s", origin);
}

static void add_baseline(SearchResult *r, const char *name, int64_t makespan)
{
    if (r->baseline_count == SIM_SEARCH_MAX_BASELINES)
        return;
    SearchBaseline *b = &r->baselines[r->baseline_count++];
    snprintf(b->name, sizeof b->name, "%s", name);
    b->makespan_ns = makespan;
}

/* The hand-made orders and every registered policy that supports the mask; the best becomes the start. */
static void baselines(Search *s, SearchResult *r)
{
    for (int which = 0; which < 3; which++) {
        Plan *plan = handmade(s, which);
        int64_t ms = run_plan(s, plan);
        add_baseline(r, plan->policy, ms);
        offer(r, plan, ms, plan->policy);
    }
    for (int i = 0; s->wl->mask != MASK_BLOCK && s->group == 1 && i < policy_count(); i++) {
        SimError err = { 0 };
        Plan *plan = policy_build(policy_at(i), s->wl, &err);
        if (!plan)
            continue;
        int64_t ms = run_plan(s, plan);
        char name[64];
        snprintf(name, sizeof name, "policy:%.48s", plan->policy); /* apart from the hand-made "descending" */
        add_baseline(r, name, ms);
        offer(r, plan, ms, name);
    }
}

/* ---- local search ---- */

/* One random change of the layout: rotate a tile's rows, reverse them, or move a tile to another slot
 * (appended there) or swap two tiles' places. */
static void random_move(Search *s, Item *items, int n, GRand *g)
{
    Item *a = &items[g_rand_int_range(g, 0, n)];
    int32_t count = s->row_count[a->kv];
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

/* Moves from the constructive layout; a move stays when the layout gets strictly faster. */
static void local_search(Search *s, Item *items, int n, int64_t current, const SearchOptions *o, SearchResult *r)
{
    GRand *g = g_rand_new_with_seed(o->seed);
    Item *trial = g_new(Item, n);
    for (int it = 0; it < o->iterations && n > 0; it++) {
        memcpy(trial, items, sizeof *trial * n);
        random_move(s, trial, n, g);
        int64_t before = r->makespan_ns, ms = evaluate(s, trial, n, 2, &r->plan, &r->makespan_ns);
        if (r->makespan_ns < before)
            snprintf(r->origin, sizeof r->origin, "local search");
        if (ms < current)
            memcpy(items, trial, sizeof *trial * n), current = ms;
        if (o->progress)
            o->progress(o->progress_ctx, it + 1, o->iterations, r->makespan_ns);
    }
    g_free(trial);
    g_rand_free(g);
}

/* ---- exhaustive search (tiny instances) ---- */

/* The k-th permutation (k < m!) of 0..m-1 in lexicographic order into out. */
static void nth_permutation(int64_t k, int m, int32_t *out)
{
    int32_t pool[16];
    int64_t fact = 1;
    for (int i = 0; i < m; i++)
        pool[i] = i, fact *= i + 1;
    for (int i = 0; i < m; i++) {
        fact /= m - i;
        int64_t j = k / fact;
        k %= fact;
        out[i] = pool[j];
        memmove(pool + j, pool + j + 1, sizeof *pool * (size_t)(m - i - 1 - j));
    }
}

static int64_t factorial(int m)
{
    int64_t f = 1;
    for (int i = 2; i <= m; i++)
        f *= i;
    return f;
}

/* Schedules in the exhaustive space (slots, item order, row orders, rank orders); -1 above cap. */
static int64_t exact_space(const Search *s, int n, int64_t cap)
{
    const Workload *wl = s->wl;
    double total = factorial(MIN(n, 16));
    for (int i = 0; i < n; i++)
        total *= wl->n_sm;
    for (int32_t h = 0; h < wl->heads; h++)
        for (int kv = 0; kv < wl->kv_tiles; kv++)
            total *= s->row_count[kv] ? (double)factorial(MIN(s->row_count[kv], 16)) : 1;
    for (int32_t h = 0; h < wl->heads; h++)
        for (int q = 0; q < wl->q_tiles; q++)
            total *= (double)factorial(MIN(s->col_count[q], 16));
    return n <= 8 && total <= (double)cap ? (int64_t)total : -1;
}

/* The plan of combination k: digits in the order slot (per item), item order, rows (per item), ranks
 * (per row: a permutation of its contributors, ascending KV). */
static Plan *exact_plan(Search *s, const Item *base, int n, int64_t k)
{
    const Workload *wl = s->wl;
    Item items[8];
    int32_t perm[16];
    memcpy(items, base, sizeof *items * n);
    for (int i = 0; i < n; i++)
        items[i].slot = (int32_t)(k % wl->n_sm), k /= wl->n_sm;
    nth_permutation(k % factorial(n), n, perm), k /= factorial(n);
    int32_t next[64] = { 0 };
    for (int i = 0; i < n; i++)
        items[perm[i]].pos = next[items[perm[i]].slot]++;
    Plan *plan = plan_new("exact", wl, s->tasks);
    plan->is_persistent = true;
    Item sorted[8];
    memcpy(sorted, items, sizeof *sorted * n);
    qsort(sorted, n, sizeof *sorted, item_cmp);
    for (int i = 0; i < n; i++) {
        int32_t count = s->row_count[sorted[i].kv];
        nth_permutation(k % factorial(count), count, perm), k /= factorial(count);
        plan_add_cta(plan, sorted[i].slot);
        for (int j = 0; j < count; j++)
            plan_add_task(plan, sorted[i].head, sorted[i].kv, s->rows[sorted[i].kv][perm[j]]);
    }
    for (int64_t t = 0; t < plan->task_count; t++) { /* rank: the contributor's place in the row's permutation */
        PlanTask *task = &plan->tasks[t];
        int64_t row_k = k, idx = 0, m = 0;
        for (int32_t h = 0; h < wl->heads; h++)
            for (int q = 0; q < wl->q_tiles; q++) {
                int32_t c = s->col_count[q], at = 0;
                if (h == task->head && q == task->q) {
                    nth_permutation(row_k % factorial(c), c, perm);
                    for (int j = 0; j < c; j++)
                        if (s->cols[q][perm[j]] == task->kv)
                            at = j;
                    idx = at, m = 1;
                }
                row_k /= factorial(c);
            }
        task->rank = (int32_t)(m ? idx : 0);
    }
    return plan;
}

/* Every schedule of the space, when it has at most o->exact_max_combinations. */
static void exact(Search *s, const Item *items, int n, const SearchOptions *o, SearchResult *r)
{
    int64_t total = o->exact_max_combinations > 0 ? exact_space(s, n, o->exact_max_combinations) : -1;
    if (total < 0)
        return;
    r->has_exact = true, r->exact_ns = INT64_MAX;
    for (int64_t k = 0; k < total; k++) {
        Plan *plan = exact_plan(s, items, n, k);
        SimError err = { 0 };
        int64_t ms = plan_check(plan, "", &err) == SIM_OK ? run_plan(s, plan) : INT64_MAX;
        r->exact_ns = MIN(r->exact_ns, ms);
        offer(r, plan, ms, "exact");
    }
}

/* ---- the search ---- */

SimStatus sim_search(const Workload *wl, const AttnCosts *costs, const SearchOptions *o, SearchResult *out,
                     SimError *err)
{
    *out = (SearchResult){ .makespan_ns = INT64_MAX };
    Search s;
    if (o->gqa_group > 1 && wl->heads % o->gqa_group) {
        return sim_error_set(err, SIM_ERR_USAGE, "--gqa %d must divide the %d query heads", o->gqa_group, wl->heads);
    }
    search_init(&s, wl, costs, o->gqa_group);
    if (s.tasks == 0) {
        search_clear(&s);
        return sim_error_set(err, SIM_ERR_LIMIT, "the mask keeps no (KV tile, Q tile) pair: nothing to schedule");
    }
    sim_search_bounds(wl, costs, s.group, &out->bounds);
    baselines(&s, out);
    Item *items;
    int n = constructive(&s, &items);
    int64_t before = out->makespan_ns, current = evaluate(&s, items, n, 4, &out->plan, &out->makespan_ns);
    if (out->makespan_ns < before)
        snprintf(out->origin, sizeof out->origin, "constructive");
    local_search(&s, items, n, current, o, out);
    if (s.group == 1)
        exact(&s, items, n, o, out);
    out->evaluations = s.evaluations;
    g_free(items);
    search_clear(&s);
    return SIM_OK;
}

void sim_search_result_clear(SearchResult *r)
{
    plan_free(r->plan);
    *r = (SearchResult){ 0 };
}

int32_t *sim_search_rank_table(const Plan *plan, int32_t *contributors)
{
    const Workload *wl = &plan->wl;
    int32_t width = 0;
    for (int q = 0; q < wl->q_tiles; q++)
        width = MAX(width, plan_kv_hi(wl, q));
    int64_t rows = (int64_t)wl->heads * wl->q_tiles;
    int32_t *table = g_new(int32_t, MAX(rows * width, 1));
    for (int64_t i = 0; i < rows * width; i++)
        table[i] = -1;
    for (int64_t t = 0; t < plan->task_count; t++) {
        const PlanTask *task = &plan->tasks[t];
        table[((int64_t)task->head * wl->q_tiles + task->q) * width + task->rank] = task->kv;
    }
    *contributors = width;
    return table;
}

const char *const sim_search_orders[SIM_SEARCH_ORDER_COUNT] = { "ascending", "descending", "spt", "search" };

const char *sim_search_order_name(const char *name)
{
    for (int i = 0; i < SIM_SEARCH_ORDER_COUNT; i++)
        if (strcmp(name, sim_search_orders[i]) == 0)
            return sim_search_orders[i];
    return NULL;
}

bool sim_search_order_known(const char *name)
{
    return sim_search_order_name(name) != NULL;
}

Plan *sim_search_handmade(const Workload *wl, const char *name, int32_t group)
{
    static const char *const names[] = { "ascending", "descending", "spt" };
    Plan *plan = NULL;
    for (int which = 0; which < 3; which++)
        if (strcmp(name, names[which]) == 0) {
            Search s;
            AttnCosts unused = { 0 };
            search_init(&s, wl, &unused, group);
            plan = s.tasks ? handmade(&s, which) : NULL;
            search_clear(&s);
        }
    return plan;
}

/* The timing of a layout. With fixed durations (the plain model) a layout's schedule is a longest path over
 * the slots' op chains and the rows' rank chains, found without an event queue: ranked by depth, in one pass
 * over the tasks depth by depth (every predecessor comes first in that order); ranked otherwise, by the
 * slots advancing in step as far as the reductions they wait on allow. Every op is visited once, nearly in
 * the order the ops run. This equals the engine to the nanosecond (tests/test_search.c checks every mode);
 * other costs (a load model, a kernel profile's parts) are timed by the engine itself. */
#include "search_space.h"

#include <glib.h>
#include <string.h>

#include "engine.h"

/* The evaluation's arrays, on its first use (the hand-made orders need none). */
void search_alloc_eval(Search *s)
{
    int64_t items = (int64_t)(s->wl->heads / s->group) * s->tile_count;
    s->slot_first = g_new(int32_t, s->wl->n_sm + 1), s->slot_cta_first = g_new(int32_t, s->wl->n_sm + 1);
    s->cta_len = g_new(int32_t, items), s->item_index = g_new(int32_t, items);
    s->slot_pos = g_new(int32_t, s->tasks), s->seq = g_new(int32_t, s->tasks), s->row_last = g_new(int32_t, s->rows);
    s->row_pos = g_new(int32_t, s->tasks), s->pred = g_new(int32_t, s->tasks);
    s->c_end = g_new(int64_t, s->tasks), s->red = g_new(Reduction, s->tasks);
    s->d_end = s->costs->reduce == REDUCE_ASYNC ? g_new(int64_t, s->tasks) : NULL;
}

/* Generates a slot's tasks in program order: its CTAs (items) one after another, each item's tasks
 * rotated and maybe reversed; and where they go in slot-major order. */
typedef struct {
    int64_t first;            /* the current item's first task */
    int32_t cta, left;        /* the next CTA of the slot (index into the slot's CTAs); tasks left in this one */
    int32_t k, rows, step;    /* the next task's index in its item, of rows; step: 1, or rows - 1 reversed */
    int32_t at, end;          /* the next slot-major index of the slot, and its end */
} SlotGen;

static inline int32_t next_task(const Search *s, const Item *items, SlotGen *g, int32_t u)
{
    if (g->left == 0) {
        const Item *it = &items[s->item_index[s->slot_cta_first[u] + g->cta++]];
        g->rows = g->left = search_item_rows(s, it), g->first = search_item_first(s, it);
        g->step = it->is_reverse ? g->rows - 1 : 1;
        g->k = it->is_reverse ? (it->offset + g->rows - 1) % g->rows : it->offset;
    }
    int32_t t = (int32_t)(g->first + g->k);
    g->left--, g->k += g->step;
    if (g->k >= g->rows)
        g->k -= g->rows;
    return t;
}

/* Each slot's CTAs (lengths, items) and tasks (slot-major indices: slot u's are at slot_first[u] ..). */
static void slot_ctas(Search *s, const Item *items, int n)
{
    int32_t n_sm = s->slots = s->wl->n_sm;
    s->placed = (int32_t)s->tasks;
    memset(s->slot_first, 0, sizeof *s->slot_first * (n_sm + 1));
    memset(s->slot_cta_first, 0, sizeof *s->slot_cta_first * (n_sm + 1));
    for (int i = 0; i < n; i++)
        s->slot_first[items[i].slot + 1] += search_item_rows(s, &items[i]), s->slot_cta_first[items[i].slot + 1]++;
    for (int32_t u = 0; u < n_sm; u++)
        s->slot_first[u + 1] += s->slot_first[u], s->slot_cta_first[u + 1] += s->slot_cta_first[u];
    int32_t *fill = g_memdup2(s->slot_cta_first, sizeof *fill * n_sm);
    for (int i = 0; i < n; i++) { /* launch order is place order within a slot */
        s->cta_len[fill[items[i].slot]] = search_item_rows(s, &items[i]);
        s->item_index[fill[items[i].slot]++] = i;
    }
    g_free(fill);
}

/* What the hot loops read, copied out of the Search into a local: stores through the per-position arrays
 * cannot alias a local, so the compiler keeps these in registers instead of reloading them from s after
 * every store (a third of the loops' instructions were such reloads). */
typedef struct {
    int32_t *seq, *slot_pos, *pred;
    const int32_t *task_row, *task_kv, *cta_len, *slot_cta_first;
    int64_t *c_end, *d_end;
    Reduction *red;
    int64_t c_ns, r_ns, deposit_ns, latency_ns, prologue_ns;
    int32_t dq_buffers;
} Hot;

static inline Hot hot_of(const Search *s)
{
    return (Hot){ .seq = s->seq, .slot_pos = s->slot_pos, .pred = s->pred, .task_row = s->task_row,
                  .task_kv = s->task_kv, .cta_len = s->cta_len, .slot_cta_first = s->slot_cta_first,
                  .c_end = s->c_end, .d_end = s->d_end, .red = s->red, .c_ns = s->model.c_ns, .r_ns = s->model.r_ns,
                  .deposit_ns = s->model.deposit_ns, .latency_ns = s->model.latency_ns,
                  .prologue_ns = s->model.cta_prologue_ns, .dq_buffers = s->model.dq_buffers };
}

/* Each slot's engines: the compute engine's time (serial: the only engine's) and the store engine's,
 * and slot-major indices: its next compute, its next reduction, its current CTA's first and end; its
 * CTAs so far. */
typedef struct {
    int64_t c_ns, r_ns;
    int32_t next, done, begin, end, cta;
} Engines;

/* Opens slot u's next CTA once its last one is done: dispatched when both engines are free, its prologue
 * on the compute engine. */
static inline void open_next_cta(const Hot *h, Engines *e, int32_t u)
{
    int64_t now = MAX(e->c_ns, e->r_ns);
    e->begin = e->end, e->end += h->cta_len[h->slot_cta_first[u] + e->cta++];
    e->c_ns = now + h->prologue_ns, e->r_ns = now;
}

/* The hot loops below are instantiated for serial and async (is_async a constant where they are called),
 * so that the loop over tasks carries no test of the mode. */
#define HOT static inline __attribute__((always_inline))

/* The compute at position i (slot-major e->next), and in async its deposit, after the reduction
 * dq_buffers back in its CTA. */
HOT void compute(const Hot *h, Engines *e, int32_t i, bool is_async)
{
    h->c_end[i] = e->c_ns += h->c_ns;
    if (is_async) {
        int32_t buffer = e->next - h->dq_buffers;
        if (buffer >= e->begin)
            e->c_ns = MAX(e->c_ns, h->red[h->slot_pos[buffer]].end_ns);
        h->d_end[i] = e->c_ns += h->deposit_ns;
    }
}

/* The reduction at position i, its rank predecessor done by ready. Serial: on the compute engine; async:
 * on the store engine, after the deposit. */
HOT void reduce(const Hot *h, Engines *e, int32_t i, int64_t ready, bool is_async)
{
    if (is_async)
        h->red[i].end_ns = e->r_ns = MAX(MAX(e->r_ns, h->d_end[i]), ready) + h->r_ns;
    else
        h->red[i].end_ns = e->c_ns = MAX(e->c_ns, ready) + h->r_ns;
}

/* The makespan, INT64_MAX when a slot did not finish. */
static int64_t makespan_of(const Search *s, const Engines *e)
{
    int64_t makespan = 0;
    for (int32_t u = 0; u < s->slots; u++) {
        if (e[u].done < s->slot_first[u + 1] || e[u].cta < s->slot_cta_first[u + 1] - s->slot_cta_first[u])
            return INT64_MAX;
        makespan = MAX(makespan, MAX(e[u].c_ns, e[u].r_ns));
    }
    return makespan;
}

static Engines *engines_new(const Search *s)
{
    Engines *e = g_new0(Engines, MAX(s->slots, 1));
    for (int32_t u = 0; u < s->slots; u++)
        e[u].next = e[u].done = e[u].end = s->slot_first[u];
    return e;
}

/* A row while a layout is laid out depth by depth, kept apart from the per-position arrays so that the
 * common case touches a few hundred kilobytes: the last reduction in depth order (its end and slot: the
 * next one's predecessor), and the last contributor in rank order, with its key. */
typedef struct {
    int64_t end_ns;              /* -1: none yet */
    int64_t last_ready_ns;       /* the readiness key of last */
    int32_t slot, last_kv, last; /* last: -1 while empty */
} RowTail;

static inline bool ready_before(const Hot *h, int64_t ready, int32_t kv, int32_t b)
{
    return ready != h->c_end[b] ? ready < h->c_end[b] : kv < h->task_kv[h->seq[b]];
}

/* Position i (KV tile kv) joins its row's rank order (pred links, t->last the row's end): at the end
 * (depth order; readiness order when it is not before the row's last: nearly always), else by_readiness
 * into its place, found from the end. */
static inline void add_to_row(const Hot *h, RowTail *t, int32_t i, int32_t kv, bool by_readiness)
{
    int64_t ready = by_readiness ? h->c_end[i] : 0;
    if (t->last < 0 || !by_readiness || ready > t->last_ready_ns || (ready == t->last_ready_ns && kv > t->last_kv)) {
        h->pred[i] = t->last, t->last = i, t->last_ready_ns = ready, t->last_kv = kv;
        return;
    }
    int32_t after = t->last, p = h->pred[after];
    for (; p >= 0 && ready_before(h, ready, kv, p); p = h->pred[p])
        after = p;
    h->pred[i] = p, h->pred[after] = i;
}

/* Lays items (sorted) out and ranks them by depth. Positions number the tasks depth by depth (depth 0 of
 * every slot, lower slot first, then depth 1, ...); slot_pos maps slot-major indices to them. In that
 * order every predecessor of an op (on its slot, in its row by depth) comes first, so with is_timed one
 * pass also gives the fixed-duration schedule, and ranks each row by this run's readiness on the way (the
 * next evaluation's ranking): the makespan. Else the rows keep the depth ranks (for the engine); 0. */
HOT int64_t lay_out_as(Search *s, const Item *items, int n, bool is_timed, bool is_async)
{
    slot_ctas(s, items, n);
    const Hot hot = hot_of(s), *h = &hot;
    int32_t n_sm = s->slots, *active = g_new(int32_t, MAX(n_sm, 1)), live = 0;
    RowTail *tail = g_new(RowTail, s->rows);
    SlotGen *gen = g_new0(SlotGen, MAX(n_sm, 1));
    Engines *e = engines_new(s);
    for (int64_t r = 0; r < s->rows; r++)
        tail[r].end_ns = -1, tail[r].last = -1;
    for (int32_t u = 0; u < n_sm; u++) {
        gen[u].at = s->slot_first[u], gen[u].end = s->slot_first[u + 1];
        if (gen[u].at < gen[u].end)
            active[live++] = u;
    }
    for (int32_t i = 0; live > 0;) { /* depth by depth */
        int32_t kept = 0;
        for (int32_t a = 0; a < live; a++, i++) {
            int32_t u = active[a], t = next_task(s, items, &gen[u], u);
            RowTail *rt = &tail[h->task_row[t]];
            h->seq[i] = t, h->red[i].slot = u, h->slot_pos[gen[u].at++] = i;
            if (is_timed) {
                Engines *en = &e[u];
                if (en->next == en->end)
                    open_next_cta(h, en, u);
                compute(h, en, i, is_async);
                reduce(h, en, i, rt->end_ns < 0 ? 0 : rt->end_ns + (rt->slot != u ? h->latency_ns : 0), is_async);
                en->next++, en->done++;
                rt->end_ns = h->red[i].end_ns, rt->slot = u;
            }
            add_to_row(h, rt, i, h->task_kv[t], is_timed);
            if (gen[u].at < gen[u].end)
                active[kept++] = u;
        }
        live = kept;
    }
    for (int64_t r = 0; r < s->rows; r++)
        s->row_last[r] = tail[r].last;
    int64_t makespan = is_timed ? makespan_of(s, e) : 0;
    g_free(e), g_free(gen), g_free(tail), g_free(active);
    return makespan;
}

static int64_t lay_out(Search *s, const Item *items, int n, bool is_timed)
{
    if (!is_timed)
        return lay_out_as(s, items, n, false, false);
    return s->d_end ? lay_out_as(s, items, n, true, true) : lay_out_as(s, items, n, true, false);
}

/* Each row's rank order from the links into row_pos (rows back to front from their last). */
static void rows_from_links(Search *s)
{
    for (int64_t r = 0; r < s->rows; r++) {
        int32_t k = s->row_first[r + 1];
        for (int32_t p = s->row_last[r]; p >= 0; p = s->pred[p])
            s->row_pos[--k] = p;
        g_assert(k == s->row_first[r]);
    }
}

/* Ranks by readiness: each row's current order (the previous ranking, close to this one) insertion-
 * sorted by (compute end, KV tile) of the last evaluation. */
static void rank_by_readiness(Search *s)
{
    const Hot hot = hot_of(s), *h = &hot;
    rows_from_links(s);
    for (int64_t r = 0; r < s->rows; r++) {
        int32_t *row = s->row_pos + s->row_first[r], len = s->row_first[r + 1] - s->row_first[r];
        for (int32_t k = 1; k < len; k++) {
            int32_t x = row[k], j = k, kv = s->task_kv[s->seq[x]];
            for (; j > 0 && ready_before(h, s->c_end[x], kv, row[j - 1]); j--)
                row[j] = row[j - 1];
            row[j] = x;
        }
        for (int32_t k = 0; k < len; k++)
            s->pred[row[k]] = k > 0 ? row[k - 1] : -1;
        s->row_last[r] = len > 0 ? row[len - 1] : -1;
    }
}

/* Slot u's next reduction, once its compute (and deposit) ran: computes run ahead of reductions by one task
 * (serial: the reduction before frees the engine) or by the staging buffers (async). 1: done; 0: it waits
 * on another slot's reduction that has not ended; -1: the slot is finished. */
HOT int step(const Hot *h, Engines *en, int32_t u, bool is_async)
{
    while (en->done == en->end) { /* a CTA may be empty while the exact search fills it */
        if (en->cta == h->slot_cta_first[u + 1] - h->slot_cta_first[u])
            return -1;
        open_next_cta(h, en, u);
    }
    if (!is_async && en->next == en->done)
        compute(h, en, h->slot_pos[en->next++], false);
    for (; is_async && en->next < en->end && en->next - h->dq_buffers < en->done; en->next++)
        compute(h, en, h->slot_pos[en->next], true);
    int32_t i = h->slot_pos[en->done], p = h->pred[i];
    if (p >= 0 && h->red[p].end_ns < 0)
        return 0;
    reduce(h, en, i, p < 0 ? 0 : h->red[p].end_ns + (h->red[p].slot != u ? h->latency_ns : 0), is_async);
    en->done++;
    return 1;
}

/* Round d of the walk for one slot: its reductions up to slot-major index to (depth d) while they can
 * run. Returns step's last. */
static int advance(const Search *s, const Hot *h, Engines *en, int32_t u, int32_t d)
{
    int32_t to = s->slot_first[u] + d;
    int st = 1;
    if (h->d_end)
        while (en->done <= to && (st = step(h, en, u, true)) == 1)
            ;
    else
        while (en->done <= to && (st = step(h, en, u, false)) == 1)
            ;
    return st;
}

/* A round takes every unfinished slot WALK_DEPTHS deeper, or as far as it can before a reduction it waits
 * on; so the slots advance nearly in step, through the positions (depth by depth) nearly in order, and one
 * that waited catches up in a later round. A round in which every slot waits and none moves is a deadlock.
 * (Rounds of one depth cost as much in bookkeeping as in timing; 16 keep the ops at hand in cache.) */
#define WALK_DEPTHS 16

/* The earliest slot u can end from where it is: its engines' times plus the work left on each (serial: all
 * of it on the one engine); the durations are fixed, and every op still to run adds its own. */
static int64_t slot_end_bound(const Search *s, const Engines *en, int32_t u)
{
    const AttnCosts *k = &s->model;
    int64_t computes = s->slot_first[u + 1] - en->next, reductions = s->slot_first[u + 1] - en->done;
    int64_t ctas = s->slot_cta_first[u + 1] - s->slot_cta_first[u] - en->cta;
    if (!s->d_end)
        return MAX(en->c_ns, en->r_ns) + ctas * k->cta_prologue_ns + computes * k->c_ns + reductions * k->r_ns;
    return MAX(en->c_ns + ctas * k->cta_prologue_ns + computes * (k->c_ns + k->deposit_ns),
               en->r_ns + reductions * k->r_ns);
}

int64_t search_walk(Search *s, int64_t *slot_end, int64_t stop_ns)
{
    const Hot hot = hot_of(s), *h = &hot;
    Engines *e = engines_new(s);
    int32_t *active = g_new(int32_t, MAX(s->slots, 1)), live = 0;
    g_assert(!s->d_end || s->model.dq_buffers >= 1);
    for (int32_t i = 0; i < s->placed; i++)
        s->red[i].end_ns = -1;
    for (int32_t u = 0; u < s->slots; u++)
        active[live++] = u;
    for (int32_t d = WALK_DEPTHS - 1; live > 0; d += WALK_DEPTHS) {
        int32_t kept = 0, waiting = 0;
        bool moved = false, is_check = stop_ns != INT64_MAX && d / WALK_DEPTHS % 4 == 0; /* every 4th round */
        for (int32_t a = 0; a < live; a++) {
            int32_t u = active[a], before = e[u].done, st = advance(s, h, &e[u], u, d);
            moved |= e[u].done > before;
            if (st >= 0)
                active[kept++] = u, waiting += st == 0;
            if (is_check && slot_end_bound(s, &e[u], u) >= stop_ns) { /* it cannot end before */
                g_free(e), g_free(active);
                return INT64_MAX;
            }
        }
        if (!moved && waiting == kept) /* every slot waits and none moved: none ever will */
            break;
        live = kept;
    }
    for (int32_t u = 0; slot_end && u < s->slots; u++)
        slot_end[u] = MAX(e[u].c_ns, e[u].r_ns);
    int64_t makespan = makespan_of(s, e);
    g_free(e), g_free(active);
    return makespan;
}

/* With a load model: the engine runs the layout's plan; compute ends are read back per position. */
static int64_t engine_run(Search *s, const Item *items, int n)
{
    int32_t *plan_pos = g_new(int32_t, s->tasks);
    Plan *plan = search_layout_plan(s, items, n, search_last_ranks(s), "search", plan_pos);
    SimProgram *prog = sim_attention_program(plan, s->costs);
    SimSchedule sched = { 0 };
    SimError err = { 0 };
    int64_t makespan = INT64_MAX;
    if (sim_engine_run(prog, &sched, &err) == SIM_OK) {
        makespan = sched.makespan_ns;
        for (int64_t op = 0; op < prog->op_count; op++)
            if (sim_op_kind(prog, op) == SIM_OP_COMPUTE)
                s->c_end[plan_pos[sim_op_task(prog, op)]] = sim_schedule_end_ns(prog, &sched, op);
    }
    sim_schedule_clear(&sched);
    sim_program_free(prog);
    plan_free(plan);
    g_free(plan_pos);
    return makespan;
}

int64_t search_eval(Search *s, const Item *items, int n, RankMode mode, int64_t stop_ns)
{
    s->evaluations++;
    if (!s->seq)
        search_alloc_eval(s);
    if (mode == RANK_BY_DEPTH) {
        int64_t makespan = lay_out(s, items, n, s->is_fast);
        if (s->is_fast) {
            s->is_ranked_by_last = true; /* the links: the readiness of this run, not the depth ranks it had */
            return makespan;
        }
    } else if (!s->is_ranked_by_last)
        rank_by_readiness(s);
    s->is_ranked_by_last = false;
    return s->is_fast ? search_walk(s, NULL, stop_ns) : engine_run(s, items, n);
}

const int32_t *search_last_ranks(Search *s)
{
    if (s->is_ranked_by_last)
        return NULL;
    rows_from_links(s);
    return s->row_pos;
}

Plan *search_layout_plan(Search *s, const Item *items, int n, const int32_t *row_pos, const char *name,
                         int32_t *plan_pos)
{
    if (row_pos != s->row_pos) /* another evaluation's layout (NULL: ranked by depth) */
        lay_out(s, items, n, false);
    if (!row_pos)
        rows_from_links(s);
    const int32_t *order = row_pos ? row_pos : s->row_pos;
    Plan *plan = plan_new(name, s->wl, s->tasks);
    plan->is_persistent = true;
    int32_t *rank = g_new(int32_t, s->tasks), *fill = g_memdup2(s->slot_first, sizeof *fill * s->wl->n_sm);
    for (int64_t r = 0; r < s->rows; r++)
        for (int32_t k = s->row_first[r]; k < s->row_first[r + 1]; k++)
            rank[order[k]] = k - s->row_first[r];
    for (int i = 0; i < n; i++) {
        plan_add_cta(plan, items[i].slot);
        for (int32_t j = 0, head, q; j < search_item_rows(s, &items[i]); j++) {
            int32_t at = s->slot_pos[fill[items[i].slot]++];
            if (plan_pos)
                plan_pos[plan->task_count] = at;
            search_item_pair(s, &items[i], (int32_t)(s->seq[at] - search_item_first(s, &items[i])), &head, &q);
            plan_add_task(plan, head, items[i].kv, q);
            plan->tasks[plan->task_count - 1].rank = rank[at];
        }
    }
    g_free(rank), g_free(fill);
    return plan;
}

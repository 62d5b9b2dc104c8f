/* The engine's fast path (engine_ordered.h), with the event engine's rule: an op starts at the latest of its
 * CTA's dispatch or its previous op's end on its engine and its in-edges' ends plus latency. The engine
 * places CTAs once a time's events are done, so every unit freed at t is free then, lowest first: a heap
 * of units on (free time, unit) places CTAs in turn. A CTA freeing its unit the instant it got it would be
 * placed in a later round of the same time, which that heap does not model: the event engine takes those. */
#include "engine_ordered.h"

#include <glib.h>
#include <string.h>

#include "prefault.h"

typedef struct {
    int64_t time;   /* when the unit is free */
    int32_t unit;
} FreeUnit;

/* Latency of edge e between units (sim_program_edge_latency, inlined). */
static inline int64_t latency(const SimProgram *p, int64_t e, int32_t uf, int32_t ut)
{
    if (uf == ut)
        return 0;
    if (sim_edge_kind(p, e) != SIM_EDGE_ACCUM || !p->unit_latency_ns)
        return sim_edge_latency_ns(p, e);
    return p->unit_latency_ns[(int64_t)uf * p->n_units + ut];
}

static inline bool free_less(FreeUnit a, FreeUnit b)
{
    return a.time != b.time ? a.time < b.time : a.unit < b.unit;
}

/* Replaces the heap's top (the unit just given a CTA) by x, which is not less than it. */
static void replace_top(FreeUnit *h, size_t n, FreeUnit x)
{
    size_t i = 0;
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && free_less(h[c + 1], h[c]))
            c++;
        if (!free_less(h[c], x))
            break;
        h[i] = h[c];
    }
    h[i] = x;
}

/* Which of ready (set by prev) and at sets the start, at coming from in-edge j: the later, and at a tie an
 * in-edge before the dispatch (SimSchedule.start_by's order). */
static inline uint8_t start_by(int64_t ready, int64_t at, uint8_t prev, int64_t j)
{
    if (at < ready || (at == ready && prev != SIM_START_BY_DISPATCH))
        return prev;
    return (uint8_t)(SIM_START_BY_EDGE + MIN(j, SIM_START_BY_EDGE_FAR - SIM_START_BY_EDGE));
}

/* Times the ops of CTA c, placed on unit at time d, and records what set each start (s->start_by); returns
 * when its last op ends, or -1 at an in-edge from this op or a later one (its source has no time yet). An
 * op ends at its start plus its duration, which is all the schedule keeps (its end_ns is NULL). p is
 * restrict, and s's arrays are read once: the start_by byte stores would otherwise reload every field. */
static int64_t run_cta(const SimProgram *restrict p, SimSchedule *s, int32_t c, int32_t unit, int64_t d,
                       bool has_latency)
{
    int64_t last[SIM_ENGINES_MAX], cta_end = d; /* last[k]: end of the CTA's previous op on engine k */
    for (int k = 0; k < p->engines_per_unit; k++)
        last[k] = d;
    int64_t *start = s->start_ns, op_end = p->ctas[c].op_begin + p->ctas[c].op_count;
    uint8_t *start_by_of = s->start_by;
    const int32_t *cta_unit = s->cta_unit;
    int64_t k = sim_program_in_begin(p, p->ctas[c].op_begin); /* the CTA's in-edges are one run */
    for (int64_t op = p->ctas[c].op_begin; op < op_end; op++) {
        int engine = sim_op_engine(p, op);
        int64_t ready = last[engine], k_begin = k;
        uint8_t by = sim_program_is_first_on_engine_in(p, op, c) ? SIM_START_BY_DISPATCH : SIM_START_BY_ENGINE;
        for (int64_t k_end = sim_program_in_end(p, op); k < k_end; k++) {
            int64_t e = sim_program_in_edge(p, k), from = sim_edge_from(p, e);
            if (from >= op)
                return -1;
            int64_t at = start[from] + sim_op_duration_ns(p, from); /* plus the latency, where there can be
                                                                     * one: find the source's unit */
            if (has_latency && (sim_edge_latency_ns(p, e) > 0 ||
                                (p->unit_latency_ns && sim_edge_kind(p, e) == SIM_EDGE_ACCUM)))
                at += latency(p, e, cta_unit[sim_op_cta(p, from)], unit);
            by = start_by(ready, at, by, k - k_begin);
            ready = MAX(ready, at);
        }
        start[op] = ready;
        start_by_of[op] = by;
        last[engine] = ready + sim_op_duration_ns(p, op);
        cta_end = MAX(cta_end, last[engine]);
    }
    return cta_end;
}

/* The unit CTA c runs on when it is known beforehand: its pin, or with no CTA waiting for a unit (no
 * more CTAs than units, none pinned) the block scheduler's pick at time 0, unit c. */
static inline int32_t unit_of(const SimProgram *p, int32_t c)
{
    return p->ctas[c].pinned_unit >= 0 ? p->ctas[c].pinned_unit : c;
}

/* CTA by CTA; false at a back edge or, where the block scheduler picks units, a CTA of zero length. */
static bool run_in_cta_order(const SimProgram *p, SimSchedule *s, bool is_known)
{
    FreeUnit *units = g_new(FreeUnit, p->n_units); /* known units: per unit; else a heap (unit order is one) */
    for (int32_t u = 0; u < p->n_units; u++)
        units[u] = (FreeUnit){ 0, u };
    bool ok = true, has_latency = p->unit_latency_ns || p->edge_latency_ns;
    for (int k = 0; k < SIM_EDGE_KIND_COUNT; k++)
        has_latency |= p->kind_latency_ns[k] > 0;
    s->makespan_ns = 0;
    for (int32_t c = 0; c < p->cta_count && ok; c++) {
        FreeUnit *slot = &units[is_known ? unit_of(p, c) : 0];
        int32_t u = slot->unit;
        int64_t d = slot->time;
        s->cta_unit[c] = u;
        s->cta_dispatch_ns[c] = d;
        int64_t end = run_cta(p, s, c, u, d, has_latency);
        ok = end >= 0 && (is_known || end > d);
        s->cta_end_ns[c] = end;
        s->makespan_ns = MAX(s->makespan_ns, end);
        if (is_known)
            slot->time = end;
        else
            replace_top(units, (size_t)p->n_units, (FreeUnit){ end, u });
    }
    g_free(units);
    return ok;
}

/* CTAs on known units in any order the dependencies allow: the event engine without its queue. Per op,
 * until it is released, start_ns holds its ready time and end_ns minus its pending predecessors
 * (engine.c's layout); ready holds the released ops not yet completed (at most one per engine of each
 * unit). */
typedef struct {
    const SimProgram *p;
    SimSchedule *s;
    int32_t *ready;
    int64_t ready_len, ready_cap;
    int32_t *cta_left;               /* ops of the CTA not yet completed */
    int32_t *pinned_first, *pinned;  /* CSR: the CTAs of each unit, in CTA order */
    int32_t *pinned_next;            /* per unit: its next CTA's index in pinned */
    int64_t done, order_len;
} Worklist;

static void release(Worklist *w, int64_t op, int64_t at)
{
    int64_t *ready = &w->s->start_ns[op];
    *ready = MAX(*ready, at);
    if (++w->s->end_ns[op] == 0) {
        w->s->end_ns[op] = *ready + sim_op_duration_ns(w->p, op);
        if (w->ready_len == w->ready_cap)
            w->ready = g_renew(int32_t, w->ready, w->ready_cap *= 2);
        w->ready[w->ready_len++] = (int32_t)op;
    }
}

/* Places unit u's next CTA, if any, at time t: in-edges from ops with a known end are folded in now (the
 * others release their target when they complete), then its first op on each engine is released. */
static void place_next(Worklist *w, int32_t u, int64_t t)
{
    const SimProgram *p = w->p;
    SimSchedule *s = w->s;
    if (w->pinned_next[u] == w->pinned_first[u + 1])
        return;
    int32_t c = w->pinned[w->pinned_next[u]++];
    s->cta_unit[c] = u;
    s->cta_dispatch_ns[c] = t;
    s->order[w->order_len++] = (int32_t)(p->op_count + c);
    int64_t op_end = p->ctas[c].op_begin + p->ctas[c].op_count;
    for (int64_t k = sim_program_in_begin(p, p->ctas[c].op_begin); k < sim_program_in_begin(p, op_end); k++) {
        int64_t e = sim_program_in_edge(p, k), from = sim_edge_from(p, e), to = sim_edge_to(p, e);
        if (s->end_ns[from] >= 0) {
            int64_t at = s->end_ns[from] + latency(p, e, s->cta_unit[sim_op_cta(p, from)], u);
            s->start_ns[to] = MAX(s->start_ns[to], at);
        }
    }
    for (int64_t op = p->ctas[c].op_begin; op < op_end; op++)
        if (sim_program_is_first_on_engine(p, op))
            release(w, op, t);
}

static void complete(Worklist *w, int64_t op)
{
    const SimProgram *p = w->p;
    SimSchedule *s = w->s;
    int32_t c = sim_op_cta(p, op), u = s->cta_unit[c];
    int64_t end = s->end_ns[op];
    s->order[w->order_len++] = (int32_t)op;
    w->done++;
    for (int64_t k = sim_program_out_begin(p, op); k < sim_program_out_end(p, op); k++) {
        int64_t e = sim_program_out_edge(p, k), to = sim_edge_to(p, e);
        int32_t to_unit = s->cta_unit[sim_op_cta(p, to)];
        if (to_unit >= 0)
            release(w, to, end + latency(p, e, u, to_unit));
        else
            s->end_ns[to]++; /* one pending less; its time is folded in when its CTA is placed */
    }
    int64_t next = sim_program_next_on_engine(p, op);
    if (next >= 0)
        release(w, next, end);
    s->cta_end_ns[c] = MAX(s->cta_end_ns[c], end);
    s->makespan_ns = MAX(s->makespan_ns, end);
    if (--w->cta_left[c] == 0)
        place_next(w, u, s->cta_end_ns[c]);
}

/* False on a dependency cycle (the event engine then reports it). */
static bool run_worklist(const SimProgram *p, SimSchedule *s)
{
    Worklist w = { .p = p, .s = s, .ready_cap = (int64_t)p->n_units * p->engines_per_unit + 16 };
    w.ready = g_new(int32_t, w.ready_cap);
    w.cta_left = g_new(int32_t, p->cta_count);
    w.pinned_first = g_new0(int32_t, p->n_units + 1);
    w.pinned = g_new(int32_t, p->cta_count);
    w.pinned_next = g_new(int32_t, p->n_units);
    memset(s->start_ns, 0, sizeof *s->start_ns * (size_t)p->op_count);
    for (int64_t op = 0; op < p->op_count; op++) /* pending: in-edges and the op before it (or the dispatch) */
        s->end_ns[op] = -(sim_program_in_end(p, op) - sim_program_in_begin(p, op) + 1);
    for (int32_t c = 0; c < p->cta_count; c++) {
        w.cta_left[c] = p->ctas[c].op_count;
        s->cta_unit[c] = -1;
        s->cta_end_ns[c] = -1;
        w.pinned_first[unit_of(p, c) + 1]++;
    }
    for (int32_t u = 0; u < p->n_units; u++)
        w.pinned_first[u + 1] += w.pinned_first[u];
    memcpy(w.pinned_next, w.pinned_first, sizeof *w.pinned_next * (size_t)p->n_units);
    for (int32_t c = 0; c < p->cta_count; c++)
        w.pinned[w.pinned_next[unit_of(p, c)]++] = c;
    memcpy(w.pinned_next, w.pinned_first, sizeof *w.pinned_next * (size_t)p->n_units);
    s->makespan_ns = 0;
    for (int32_t u = 0; u < p->n_units; u++)
        place_next(&w, u, 0);
    while (w.ready_len > 0)
        complete(&w, w.ready[--w.ready_len]);
    g_free(w.ready), g_free(w.cta_left), g_free(w.pinned_first), g_free(w.pinned), g_free(w.pinned_next);
    return w.done == p->op_count;
}

/* 1: every CTA pinned, 0: none, -1: some of each. */
static int pinning(const SimProgram *p)
{
    int32_t pinned = 0;
    for (int32_t c = 0; c < p->cta_count; c++) {
        g_assert(p->ctas[c].op_count > 0 && p->ctas[c].pinned_unit < p->n_units);
        pinned += p->ctas[c].pinned_unit >= 0;
    }
    return pinned == p->cta_count ? 1 : pinned == 0 ? 0 : -1;
}

/* Whether every CTA's unit is known beforehand (unit_of). */
static bool is_placement_known(const SimProgram *p, int is_pinned)
{
    return is_pinned == 1 || (is_pinned == 0 && p->cta_count <= p->n_units);
}

bool sim_engine_ordered_run(const SimProgram *p, SimSchedule *out)
{
    int is_pinned = pinning(p);
    bool has_rules = sim_overlap_has_rules(&p->overlap) || p->waited.read_delta_ns || p->waited.tail_delta_ns ||
                     p->waited.slope_milli_ns; /* they depend on which ops start near each other, in what order */
    if (p->load || has_rules || is_pinned < 0)
        return false;
    g_assert(p->op_count < INT32_MAX && p->op_count + p->cta_count < INT32_MAX &&
             p->engines_per_unit <= SIM_ENGINES_MAX);
    /* start_ns first: the larger takes the hole where the plan was (524k tasks: 5 MB less fresh memory) */
    int64_t *start = SIM_PREFAULT_NEW(int64_t, p->op_count);
    *out = (SimSchedule){ .start_ns = start,
                          .start_by = SIM_PREFAULT_NEW(uint8_t, p->op_count),
                          .cta_unit = g_new(int32_t, p->cta_count),
                          .cta_dispatch_ns = g_new(int64_t, p->cta_count),
                          .cta_end_ns = g_new(int64_t, p->cta_count) };
    bool is_known = is_placement_known(p, is_pinned);
    if (run_in_cta_order(p, out, is_known))
        return true;
    g_free(out->start_by), out->start_by = NULL; /* the worklist does not record it */
    if (is_known) { /* the worklist keeps every op's end (its pending count until it is released) */
        out->end_ns = SIM_PREFAULT_NEW(int64_t, p->op_count);
        out->order = SIM_PREFAULT_NEW(int32_t, p->op_count + p->cta_count);
        if (run_worklist(p, out))
            return true;
    }
    sim_schedule_clear(out);
    return false;
}

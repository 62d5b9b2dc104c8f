/* Event engine. Each op has pending = (its incoming edges) + 1 (program-order predecessor, or its CTA's
 * dispatch); it starts the moment pending reaches 0, at ready = max over those predecessors' ends plus
 * edge latency. Latency depends on where both ends run, so edges into a CTA not yet placed are folded in
 * when it is dispatched. The only event is an op's completion; dispatch runs once per time step. */
#include "engine.h"

#include <glib.h>

typedef struct {
    int64_t time, seq, op;
} Event;

typedef struct {
    const SimProgram *p;
    SimSchedule *s;
    Event *heap;
    int64_t heap_len, seq;
    int64_t *pending, *ready;
    uint8_t *is_done;
    int32_t *cta_left;        /* ops not yet completed per CTA */
    bool *is_unit_busy;
    int64_t *pinned_first, *pinned;   /* CSR: pinned CTAs per unit, in CTA order */
    int64_t *pinned_next;             /* per unit: next index into its pinned list */
    int32_t *dynamic;                 /* CTAs dispatched to any free unit, in CTA order */
    int32_t dynamic_count, dynamic_next;
    bool has_free_unit;
    int64_t ops_done;
} Engine;

static bool event_less(const Event *a, const Event *b)
{
    return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

static void heap_push(Engine *e, int64_t time, int64_t op)
{
    Event ev = { time, e->seq++, op };
    int64_t i = e->heap_len++;
    while (i > 0 && event_less(&ev, &e->heap[(i - 1) / 2])) {
        e->heap[i] = e->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->heap[i] = ev;
}

static Event heap_pop(Engine *e)
{
    Event top = e->heap[0], last = e->heap[--e->heap_len];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= e->heap_len)
            break;
        if (c + 1 < e->heap_len && event_less(&e->heap[c + 1], &e->heap[c]))
            c++;
        if (!event_less(&e->heap[c], &last))
            break;
        e->heap[i] = e->heap[c];
        i = c;
    }
    if (e->heap_len > 0)
        e->heap[i] = last;
    return top;
}

/* One predecessor of op is satisfied no earlier than at; start op when it was the last one. */
static void release(Engine *e, int64_t op, int64_t at)
{
    if (at > e->ready[op])
        e->ready[op] = at;
    if (--e->pending[op] == 0) {
        e->s->start_ns[op] = e->ready[op];
        e->s->end_ns[op] = e->ready[op] + e->p->ops[op].duration_ns;
        heap_push(e, e->s->end_ns[op], op);
    }
}

static void place_cta(Engine *e, int32_t c, int32_t unit, int64_t now)
{
    const SimProgram *p = e->p;
    const SimCta *cta = &p->ctas[c];
    e->s->cta_unit[c] = unit;
    e->s->cta_dispatch_ns[c] = now;
    e->is_unit_busy[unit] = true;
    for (int64_t op = cta->op_begin; op < cta->op_begin + cta->op_count; op++)
        for (int64_t k = p->first_in[op]; k < p->first_in[op + 1]; k++) {
            int64_t edge = p->in_edge[k], from = p->edges[edge].from;
            if (e->is_done[from]) {
                int64_t at = e->s->end_ns[from] +
                             sim_program_edge_latency(p, edge, e->s->cta_unit[p->ops[from].cta], unit);
                e->ready[op] = MAX(e->ready[op], at);
            }
        }
    for (int64_t op = cta->op_begin; op < cta->op_begin + cta->op_count; op++)
        if (p->is_first_on_engine[op])
            release(e, op, now);
}

/* Free units take their next pinned CTA, else the next CTA in launch order; lowest unit first. */
static void dispatch(Engine *e, int64_t now)
{
    e->has_free_unit = false;
    for (int32_t u = 0; u < e->p->n_units; u++) {
        if (e->is_unit_busy[u])
            continue;
        if (e->pinned_next[u] < e->pinned_first[u + 1])
            place_cta(e, (int32_t)e->pinned[e->pinned_next[u]++], u, now);
        else if (e->dynamic_next < e->dynamic_count)
            place_cta(e, e->dynamic[e->dynamic_next++], u, now);
    }
}

static void complete(Engine *e, int64_t op, int64_t now)
{
    const SimProgram *p = e->p;
    int32_t unit = e->s->cta_unit[p->ops[op].cta];
    e->is_done[op] = 1;
    e->ops_done++;
    for (int64_t k = p->first_out[op]; k < p->first_out[op + 1]; k++) {
        int64_t edge = p->out_edge[k], to = p->edges[edge].to;
        int32_t to_unit = e->s->cta_unit[p->ops[to].cta];
        if (to_unit >= 0)
            release(e, to, now + sim_program_edge_latency(p, edge, unit, to_unit));
        else
            e->pending[to]--; /* folded into ready when its CTA is placed */
    }
    if (p->next_on_engine[op] >= 0)
        release(e, p->next_on_engine[op], now);
    int32_t c = p->ops[op].cta;
    if (--e->cta_left[c] == 0) {
        e->s->cta_end_ns[c] = now;
        e->is_unit_busy[unit] = false;
        e->has_free_unit = true;
    }
}

static void engine_init(Engine *e, const SimProgram *p, SimSchedule *s)
{
    *e = (Engine){ .p = p, .s = s };
    int64_t n = p->op_count;
    s->start_ns = g_new(int64_t, n);
    s->end_ns = g_new(int64_t, n);
    s->cta_unit = g_new(int32_t, p->cta_count);
    s->cta_dispatch_ns = g_new(int64_t, p->cta_count);
    s->cta_end_ns = g_new(int64_t, p->cta_count);
    s->makespan_ns = 0;
    e->heap = g_new(Event, n + 1);
    e->pending = g_new(int64_t, n);
    e->ready = g_new0(int64_t, n);
    e->is_done = g_new0(uint8_t, n);
    for (int64_t op = 0; op < n; op++) {
        e->pending[op] = p->first_in[op + 1] - p->first_in[op] + 1;
        s->start_ns[op] = s->end_ns[op] = -1;
    }
    e->cta_left = g_new(int32_t, p->cta_count);
    e->dynamic = g_new(int32_t, p->cta_count);
    e->pinned_first = g_new0(int64_t, p->n_units + 1);
    e->pinned = g_new(int64_t, p->cta_count);
    e->pinned_next = g_new(int64_t, p->n_units);
    e->is_unit_busy = g_new0(bool, p->n_units);
    for (int32_t c = 0; c < p->cta_count; c++) {
        g_assert(p->ctas[c].op_count > 0 && p->ctas[c].pinned_unit < p->n_units);
        e->cta_left[c] = p->ctas[c].op_count;
        s->cta_unit[c] = -1;
        s->cta_dispatch_ns[c] = s->cta_end_ns[c] = -1;
        if (p->ctas[c].pinned_unit >= 0)
            e->pinned_first[p->ctas[c].pinned_unit + 1]++;
        else
            e->dynamic[e->dynamic_count++] = c;
    }
    for (int32_t u = 0; u < p->n_units; u++)
        e->pinned_first[u + 1] += e->pinned_first[u];
    memcpy(e->pinned_next, e->pinned_first, sizeof *e->pinned_next * p->n_units);
    for (int32_t c = 0; c < p->cta_count; c++)
        if (p->ctas[c].pinned_unit >= 0)
            e->pinned[e->pinned_next[p->ctas[c].pinned_unit]++] = c;
    memcpy(e->pinned_next, e->pinned_first, sizeof *e->pinned_next * p->n_units);
}

static void engine_clear(Engine *e)
{
    g_free(e->heap);
    g_free(e->pending);
    g_free(e->ready);
    g_free(e->is_done);
    g_free(e->cta_left);
    g_free(e->dynamic);
    g_free(e->pinned_first);
    g_free(e->pinned);
    g_free(e->pinned_next);
    g_free(e->is_unit_busy);
}

/* Names the first CTA that never got a unit if there is one (every unit is held by a CTA waiting on
 * work that cannot be placed), else the first unfinished CTA (its dependencies form a cycle). */
static SimStatus report_deadlock(const Engine *e, SimError *err)
{
    const SimProgram *p = e->p;
    int32_t unplaced = -1, stuck = -1;
    for (int32_t c = 0; c < p->cta_count; c++) {
        if (unplaced < 0 && e->s->cta_unit[c] < 0)
            unplaced = c;
        if (stuck < 0 && e->s->cta_unit[c] >= 0 && e->cta_left[c] > 0)
            stuck = c;
    }
    if (unplaced >= 0)
        return sim_error_set(err, SIM_ERR_SCHEDULE,
                             "the schedule deadlocks: CTA %d is never placed because every unit holds a CTA "
                             "that waits on work not yet placed (CTA %d on unit %d; %" G_GINT64_FORMAT " of %"
                             G_GINT64_FORMAT " ops ran)", unplaced, stuck, stuck >= 0 ? e->s->cta_unit[stuck] : -1,
                             e->ops_done, p->op_count);
    return sim_error_set(err, SIM_ERR_SCHEDULE,
                         "the schedule deadlocks: CTA %d on unit %d waits forever on a dependency that can "
                         "never be met (a cycle; %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " ops ran)",
                         stuck, e->s->cta_unit[stuck], e->ops_done, p->op_count);
}

SimStatus sim_engine_run(const SimProgram *p, SimSchedule *out, SimError *err)
{
    Engine e;
    engine_init(&e, p, out);
    dispatch(&e, 0);
    while (e.heap_len > 0) {
        int64_t now = e.heap[0].time;
        while (e.heap_len > 0 && e.heap[0].time == now)
            complete(&e, heap_pop(&e).op, now);
        out->makespan_ns = now;
        if (e.has_free_unit)
            dispatch(&e, now);
    }
    SimStatus st = e.ops_done == p->op_count ? SIM_OK : report_deadlock(&e, err);
    engine_clear(&e);
    return st;
}

void sim_schedule_clear(SimSchedule *s)
{
    g_free(s->start_ns);
    g_free(s->end_ns);
    g_free(s->cta_unit);
    g_free(s->cta_dispatch_ns);
    g_free(s->cta_end_ns);
    *s = (SimSchedule){ 0 };
}

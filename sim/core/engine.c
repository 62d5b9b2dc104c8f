/* Event engine. Each op has pending = (its incoming edges) + 1 (program-order predecessor, or its CTA's
 * dispatch); it starts the moment pending reaches 0, at ready = max over those predecessors' ends plus
 * edge latency. Latency depends on where both ends run, so edges into a CTA not yet placed are folded in
 * when it is dispatched. Events are op completions (and, with a load model, reduction starts); dispatch runs
 * once per time step. Load-dependent reductions: see "Processor sharing" below. */
#include "engine.h"

#include <glib.h>

typedef struct {
    int64_t time, seq, op;   /* op >= 0: op completes; op < 0: reduction ~op joins the shared resource */
} Event;

/* Processor sharing of the reductions (SimLoadModel). With k running, each does PS_WORK_PER_NS * 1e6 /
 * slowdown_ppm(k) units of work per ns; a reduction of duration d (ns alone) holds d * PS_WORK_PER_NS units.
 * vclock counts the work every running reduction has done since time 0, so one that joins at vclock v
 * ends when vclock reaches mark = v + d * PS_WORK_PER_NS: all run at the same rate, hence they end in mark
 * order. Alone (slowdown 1e6) this is exactly d ns: the fixed-duration engine is the special case. */
#define PS_WORK_PER_NS 1000000
typedef struct {
    int64_t mark, seq, op;
} PsJob;

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
    const SimLoadModel *load;         /* NULL: every duration fixed */
    PsJob *ps;                        /* running reductions, a min-heap on (mark, seq) */
    int64_t ps_len, vclock, vclock_at;
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

static bool ps_less(const PsJob *a, const PsJob *b)
{
    return a->mark != b->mark ? a->mark < b->mark : a->seq < b->seq;
}

static void ps_push(Engine *e, int64_t op)
{
    PsJob job = { e->vclock + e->p->ops[op].duration_ns * PS_WORK_PER_NS, e->seq++, op };
    int64_t i = e->ps_len++;
    while (i > 0 && ps_less(&job, &e->ps[(i - 1) / 2])) {
        e->ps[i] = e->ps[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->ps[i] = job;
}

static int64_t ps_pop(Engine *e)
{
    PsJob top = e->ps[0], last = e->ps[--e->ps_len];
    int64_t i = 0;
    for (int64_t c; (c = 2 * i + 1) < e->ps_len; i = c) {
        if (c + 1 < e->ps_len && ps_less(&e->ps[c + 1], &e->ps[c]))
            c++;
        if (!ps_less(&e->ps[c], &last))
            break;
        e->ps[i] = e->ps[c];
    }
    if (e->ps_len > 0)
        e->ps[i] = last;
    return top.op;
}

static int64_t ps_slowdown_ppm(const Engine *e)
{
    const SimLoadModel *m = e->load;
    return m->slowdown_ppm[e->ps_len < m->slowdown_len ? e->ps_len : m->slowdown_len];
}

/* Moves the virtual clock to now at the current load. */
static void ps_advance(Engine *e, int64_t now)
{
    if (e->ps_len > 0)
        e->vclock += (int64_t)((__int128)(now - e->vclock_at) * PS_WORK_PER_NS * 1000000 / ps_slowdown_ppm(e));
    e->vclock_at = now;
}

/* When the first running reduction ends at the current load (rounded up to whole ns); INT64_MAX if none. */
static int64_t ps_next_end(const Engine *e)
{
    if (e->ps_len == 0)
        return INT64_MAX;
    __int128 scale = (__int128)PS_WORK_PER_NS * 1000000, work = (__int128)(e->ps[0].mark - e->vclock) * ps_slowdown_ppm(e);
    return e->vclock_at + (int64_t)((work + scale - 1) / scale);
}

/* Latency of edge from op 'from' on from_unit to to_unit, with the hand-off growth it got at its release. */
static int64_t edge_latency(const Engine *e, int64_t edge, int64_t from, int32_t from_unit, int32_t to_unit)
{
    int64_t lat = sim_program_edge_latency(e->p, edge, from_unit, to_unit);
    if (e->s->handoff_extra_ns && from_unit != to_unit && e->p->edges[edge].kind == SIM_EDGE_ACCUM)
        lat += e->s->handoff_extra_ns[from];
    return lat;
}

/* One predecessor of op is satisfied no earlier than at; start op when it was the last one. A reduction
 * under a load model joins the shared resource at its start (an event) and ends when its work is done. */
static void release(Engine *e, int64_t op, int64_t at)
{
    if (at > e->ready[op])
        e->ready[op] = at;
    if (--e->pending[op] == 0) {
        e->s->start_ns[op] = e->ready[op];
        if (e->load && e->p->ops[op].kind == SIM_OP_REDUCE) {
            heap_push(e, e->ready[op], ~op);
            return;
        }
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
                int64_t at = e->s->end_ns[from] + edge_latency(e, edge, from, e->s->cta_unit[p->ops[from].cta], unit);
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
    if (e->load && e->load->handoff_extra_ns && p->ops[op].kind == SIM_OP_REDUCE) /* k = still in flight */
        e->s->handoff_extra_ns[op] = e->load->handoff_extra_ns[MIN(e->ps_len, (int64_t)e->load->handoff_len)];
    for (int64_t k = p->first_out[op]; k < p->first_out[op + 1]; k++) {
        int64_t edge = p->out_edge[k], to = p->edges[edge].to;
        int32_t to_unit = e->s->cta_unit[p->ops[to].cta];
        if (to_unit >= 0)
            release(e, to, now + edge_latency(e, edge, op, unit, to_unit));
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
    *e = (Engine){ .p = p, .s = s, .load = p->load };
    int64_t n = p->op_count;
    if (e->load) {
        e->ps = g_new(PsJob, n + 1);
        s->handoff_extra_ns = g_new0(int32_t, n);
    }
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
    g_free(e->ps);
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
    while (e.heap_len > 0 || e.ps_len > 0) {
        int64_t now = MIN(e.heap_len > 0 ? e.heap[0].time : INT64_MAX, ps_next_end(&e));
        if (e.load)
            ps_advance(&e, now);
        do { /* reductions whose work is done, then this time's events; a zero-work join ends at once */
            while (e.ps_len > 0 && e.ps[0].mark <= e.vclock) {
                int64_t op = ps_pop(&e);
                out->end_ns[op] = now;
                complete(&e, op, now);
            }
            while (e.heap_len > 0 && e.heap[0].time == now) {
                Event ev = heap_pop(&e);
                if (ev.op < 0)
                    ps_push(&e, ~ev.op);
                else
                    complete(&e, ev.op, now);
            }
        } while (e.ps_len > 0 && e.ps[0].mark <= e.vclock);
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
    g_free(s->handoff_extra_ns);
    *s = (SimSchedule){ 0 };
}

int64_t sim_engine_edge_latency(const SimProgram *p, const SimSchedule *s, int64_t e)
{
    int64_t from = p->edges[e].from;
    int32_t uf = s->cta_unit[p->ops[from].cta], ut = s->cta_unit[p->ops[p->edges[e].to].cta];
    int64_t lat = sim_program_edge_latency(p, e, uf, ut);
    if (s->handoff_extra_ns && uf != ut && p->edges[e].kind == SIM_EDGE_ACCUM)
        lat += s->handoff_extra_ns[from];
    return lat;
}

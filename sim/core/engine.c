/* Event engine, for what the fast path (engine_ordered.c, tried first) turns down. Each op has pending =
 * (its incoming edges) + 1 (program-order predecessor, or its CTA's dispatch); it starts the moment
 * pending reaches 0, at ready = max over those predecessors' ends plus edge latency. Latency depends on
 * where both ends run, so edges into a CTA not yet placed are folded in when it is dispatched. Events are
 * op completions (and, with a load model, a reduction's issue start and end); dispatch runs once per time
 * step. Three loops: the plain path (fixed durations, no rule: every event a completion, no per-op ends),
 * which runs ahead where the order of completions cannot matter (every edge forward, one engine a unit: only
 * CTA ends are events, see "Running ahead" below); and the full one (a rule may lengthen a running op, a load
 * model times reductions). Load-dependent reductions: see "The reductions' queue" below. */
#include "engine.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "engine_ordered.h"
#include "event_queue.h"
#include "prefault.h"

/* The reductions' queue (SimLoadModel, program.h), as integers: the backlog in ns x milli-issuers, the
 * area under extra(n) in ns x ns. A reduction's issue_mark is the area at its issue start (-1 before). */
typedef struct {
    int64_t backlog, area, at;  /* at: the time both were brought to */
    int32_t issuing, in_flight; /* in flight: issue started, not yet complete */
} ReduceQueue;

/* Per-op state lives in the schedule's own arrays, so that the running CTAs' ops are as few interleaved
 * streams as can be: until an op starts, s->start_ns holds its ready time and s->end_ns minus the count
 * of predecessors still pending (<= -1); from its start, its end (ENDS_UNKNOWN for a reduction under
 * a load model, until its issue ends). Everything else per op is the program's, read-only. */
#define ENDS_UNKNOWN INT64_MAX
typedef struct {
    const SimProgram *p;
    SimSchedule *s;
    SimEventQueue queue;              /* op completions (op) and reduction issue events (~op), on (time, seq) */
    int32_t *cta_left;                /* ops not yet completed per CTA */
    uint64_t *free_units;             /* bit u: unit u is free and may still get a CTA */
    int32_t *pinned_first, *pinned;   /* CSR: pinned CTAs per unit, in CTA order */
    int32_t *pinned_next;             /* per unit: next index into its pinned list */
    int32_t *dynamic;                 /* CTAs dispatched to any free unit, in CTA order */
    int32_t dynamic_count, dynamic_next;
    bool has_free_unit;
    int64_t ops_done, order_len;
    const SimLoadModel *load;         /* NULL: every duration fixed */
    ReduceQueue rq;
    int64_t *issue_mark;              /* per op, with a load model */
    /* The overlap rule (program.h), when the program has one: per unit, the latest start of a REDUCE on a
     * store engine (any engine but 0), and the latest COMPUTE on engine 0 with whether it already paid the
     * penalty. */
    int64_t *unit_reduce_start;
    int32_t *unit_compute;
    bool *is_unit_compute_slowed;
    int64_t *unit_write_start, *unit_write_end; /* the unit's latest WRITE op */
    int32_t *unit_store_op;                     /* per slot (unit x engines + engine): its latest op */
    bool *has_unit_reduction_paid;              /* per slot: its current reduction paid a write extra */
    /* The waited-reduction rule (program.h), when the program has one: per op, whether its ready time was
     * set by an ACCUM edge (it waited for its turn), or with the turn's jitter its turn came within it */
    bool *is_accum_bound;
    /* With the waited step's slope (program.h): the store-engine ops running, counted from their release to their
     * completion (a reduction released before its start, by a hand-off's latency, counts from its release) */
    bool is_counting_store;
    int32_t store_running;
    /* With the turn's jitter (program.h): per op, when its ACCUM edge released it (-1: not yet); its start_ns
     * then holds the latest of its other releases until the last one */
    int64_t *accum_at;
    /* The plain path (is_plain: no load model, no rule, every op takes its program duration, and at most
     * PENDING_MAX - 1 in-edges an op): pending[op] counts its predecessors still to come, an op's end is
     * start + duration (s->end_ns stays NULL), and s->order is kept only where an edge runs backward. */
    bool is_plain;
    uint8_t *pending;
    int32_t *slot_op;                 /* the queue's events are slots, unit x engines + engine: the op each runs */
    int32_t *unit_cta;                /* per unit: the CTA it runs (its last placed) */
    /* The full path where out_edge maps the out-adjacency to edge ids and every edge of a kind has its kind's
     * latency: each out-edge's target and kind in adjacency order (else NULL), so that a completion reads
     * them in its CTA's stream rather than through edge ids that lie anywhere (a dependent miss an edge). */
    int32_t *out_to;
    uint8_t *out_kind;
    /* Running ahead (is_ahead: the plain path, one engine a unit, no completion order kept; run_ahead_as):
     * the ops released and not yet completed, at most one a unit, as (op, unit) pairs; the queue then holds
     * CTA ends only (the unit as the event). */
    bool is_ahead;
    int32_t *ahead;
    int64_t ahead_len;
} Engine;

enum { PENDING_MAX = 255, AHEAD = 16 };

/* Latency of an edge of kind whose own latency is own, from op 'from' on from_unit to another unit to_unit,
 * with the hand-off growth it got at its release (sim_program_edge_latency and sim_engine_edge_latency,
 * inlined for the hot loop). */
static inline int64_t latency_as(const Engine *e, SimEdgeKind kind, int64_t own, int64_t from, int32_t from_unit,
                                 int32_t to_unit)
{
    const SimProgram *p = e->p;
    if (kind != SIM_EDGE_ACCUM)
        return own;
    int64_t lat = p->unit_latency_ns ? p->unit_latency_ns[(int64_t)from_unit * p->n_units + to_unit] : own;
    return e->s->handoff_extra_ns ? lat + e->s->handoff_extra_ns[from] : lat;
}

/* Latency of edge from op 'from' on from_unit to to_unit (0 on one unit). */
static inline int64_t edge_latency(const Engine *e, int64_t edge, int64_t from, int32_t from_unit, int32_t to_unit)
{
    if (from_unit == to_unit)
        return 0;
    return latency_as(e, sim_edge_kind(e->p, edge), sim_edge_latency_ns(e->p, edge), from, from_unit, to_unit);
}

/* Lengthens op (already started, still running) by extra: its completion event is pushed again and the
 * old one is skipped as stale. */
static void lengthen(Engine *e, int32_t op, int64_t extra)
{
    e->s->end_ns[op] += extra;
    sim_event_queue_push(&e->queue, e->s->end_ns[op], op);
}

/* The other units whose WRITE op is running at start (the write-slope rule: O(units), once per WRITE op). */
static int64_t writes_in_flight(const Engine *e, int32_t u, int64_t start)
{
    int64_t n = 0;
    for (int32_t v = 0; v < e->p->n_units; v++)
        n += v != u && e->unit_write_start[v] <= start && start < e->unit_write_end[v];
    return n;
}

/* Whether op, not itself a REDUCE, is the tail of a reduction that waited for its turn (the op before it: that
 * task's REDUCE on the same engine, its start set by an ACCUM edge, or its turn within the jitter). */
static bool is_waited_tail(const Engine *e, int64_t op)
{
    const SimProgram *p = e->p;
    return op > 0 && e->is_accum_bound[op - 1] && sim_op_kind(p, op - 1) == SIM_OP_REDUCE && /* the flag first: */
           sim_op_engine(p, op - 1) == sim_op_engine(p, op) && sim_op_task(p, op - 1) == sim_op_task(p, op) &&
           sim_op_cta(p, op - 1) == sim_op_cta(p, op); /* most ops read no more than it */
}

/* The interference rules at a start (program.h's SimOverlapRule), between a unit's compute engine (0) and
 * its store engines (every other one; one slot of store state each): a compute that starts within the window
 * of the unit's latest reduction start pays the penalty, and a reduction that starts within the window of the
 * unit's running compute lengthens it;
 * a store-engine op that overlaps the unit's WRITE op pays write_extra_ns, whichever starts first; with
 * is_write_extra_at_start only a reduction that starts inside the write pays, once for its read and tail (the
 * Hopper kernel: lengthening a running one made its fa3 order 6-13% too slow, docs/profile.md). Returns the
 * change to op's own duration. */
static int64_t interfere_at_start(Engine *e, int64_t op, int64_t start)
{
    const SimProgram *p = e->p;
    const SimOverlapRule *r = &p->overlap;
    SimOpKind kind = sim_op_kind(p, op);
    int engine = sim_op_engine(p, op);
    int32_t u = e->s->cta_unit[sim_op_cta(p, op)];
    if (kind == SIM_OP_COMPUTE && engine == 0) {
        int64_t since = start - e->unit_reduce_start[u];
        e->unit_compute[u] = (int32_t)op;
        e->is_unit_compute_slowed[u] = r->penalty_ns > 0 && since <= r->before_ns && since > -r->after_ns;
        return e->is_unit_compute_slowed[u] ? r->penalty_ns : 0;
    }
    if (kind == SIM_OP_WRITE && engine == 0) {
        int64_t slowed = r->write_slope_ns > 0 ? (int64_t)r->write_slope_ns * writes_in_flight(e, u, start) : 0;
        e->unit_write_start[u] = start, e->unit_write_end[u] = start + sim_op_duration_ns(p, op) + slowed;
        for (int32_t k = 1; k < p->engines_per_unit && !r->is_write_extra_at_start && r->write_extra_ns > 0; k++) {
            int32_t slot = u * p->engines_per_unit + k, x = e->unit_store_op[slot];
            if (x >= 0 && !e->has_unit_reduction_paid[slot] && e->s->start_ns[x] <= start && e->s->end_ns[x] > start &&
                e->s->end_ns[x] != ENDS_UNKNOWN) {
                e->has_unit_reduction_paid[slot] = true;
                lengthen(e, x, r->write_extra_ns);
            }
        }
        return slowed;
    }
    if (engine == 0)
        return 0;
    int32_t slot = u * p->engines_per_unit + engine;
    e->unit_store_op[slot] = (int32_t)op;
    bool has_extra = r->write_extra_ns > 0 || r->write_extra_slope_ns > 0 || r->write_extra_late_ns > 0;
    bool is_inside = has_extra && e->unit_write_start[u] <= start && start < e->unit_write_end[u];
    bool has_paid = r->is_write_extra_at_start && kind != SIM_OP_REDUCE && e->has_unit_reduction_paid[slot];
    e->has_unit_reduction_paid[slot] = is_inside || has_paid; /* at start: once for its read and tail together */
    bool is_late = r->is_write_extra_at_start && r->write_extra_window_ns > 0 &&
                   start - e->unit_write_start[u] >= r->write_extra_window_ns;
    int64_t extra = is_inside && !has_paid ? (is_late ? r->write_extra_late_ns : r->write_extra_ns) : 0;
    if (is_inside && !has_paid && r->is_write_extra_at_start && r->write_extra_slope_ns > 0)
        extra += (int64_t)r->write_extra_slope_ns * writes_in_flight(e, u, start);
    if (kind != SIM_OP_REDUCE)
        return extra;
    e->unit_reduce_start[u] = start;
    int32_t c = e->unit_compute[u];
    if (r->penalty_ns <= 0 || c < 0 || e->is_unit_compute_slowed[u] || e->s->end_ns[c] <= start)
        return extra; /* start >= now: c still runs when its end is later */
    int64_t into = start - e->s->start_ns[c];
    if (into < r->after_ns && into >= -r->before_ns) {
        e->is_unit_compute_slowed[u] = true;
        lengthen(e, c, r->penalty_ns);
    }
    return extra;
}

/* The waited-reduction rule at a start: the change to op's duration. */
static int64_t waited_at_start(const Engine *e, int64_t op)
{
    const SimProgram *p = e->p;
    if (e->load) /* the load model times reductions its own way */
        return 0;
    int64_t d = sim_op_duration_ns(p, op);
    if (sim_op_kind(p, op) == SIM_OP_REDUCE) {
        if (!e->is_accum_bound[op])
            return 0;
        int64_t delta = p->waited.read_delta_ns;
        if (p->waited.slope_milli_ns != 0) { /* rounded half away from 0 */
            int64_t x = (int64_t)p->waited.slope_milli_ns * (e->store_running - p->waited.k_ref);
            delta += x >= 0 ? (x + 500) / 1000 : -((-x + 500) / 1000);
        }
        return MAX(delta, -d);
    }
    return is_waited_tail(e, op) ? MAX(p->waited.tail_delta_ns, -d) : 0;
}

/* Brings the reductions' queue to now: the backlog moves at (issuing - capacity) per ns, never below 0,
 * and the area grows by extra(issuing) per ns. */
static void queue_advance(Engine *e, int64_t now)
{
    const SimLoadModel *m = e->load;
    int64_t dt = now - e->rq.at, n = e->rq.issuing;
    if (n > 0)
        e->rq.area += dt * m->extra_ns[MIN(n, (int64_t)m->extra_len)];
    if (m->capacity_milli > 0 && (n > 0 || e->rq.backlog > 0))
        e->rq.backlog = MAX(0, e->rq.backlog + (n * 1000 - m->capacity_milli) * dt);
    e->rq.at = now;
}

/* Reduction op's issue starts (issue_mark -1) or ends at now; at its end, its completion is known: the
 * queue's wait, the rest of its time alone, and the extra averaged over the issue (rounded up). */
static void queue_event(Engine *e, int64_t op, int64_t now)
{
    const SimLoadModel *m = e->load;
    queue_advance(e, now);
    int64_t d = sim_op_duration_ns(e->p, op), issue = d * m->issue_ppm / 1000000;
    if (e->issue_mark[op] < 0) {
        e->issue_mark[op] = e->rq.area;
        e->rq.issuing++;
        e->rq.in_flight++;
        if (e->unit_compute) /* the reduction's own time is the load model's */
            interfere_at_start(e, op, now);
        sim_event_queue_push(&e->queue, now + issue, (int32_t)~op);
        return;
    }
    e->rq.issuing--;
    int64_t wait = m->capacity_milli > 0 ? (e->rq.backlog + m->capacity_milli - 1) / m->capacity_milli : 0;
    int64_t area = e->rq.area - e->issue_mark[op];
    int64_t extra = issue > 0 ? (area + issue - 1) / issue : m->extra_ns[MIN(e->rq.issuing + 1, (int64_t)m->extra_len)];
    e->s->end_ns[op] = now + wait + (d - issue) + extra;
    sim_event_queue_push(&e->queue, e->s->end_ns[op], (int32_t)op);
}

/* The turn's jitter at reduction op's last release (program.h), *start the latest of its other releases: a turn x
 * ns after it (x < 0: before) counts as waited when x > -jitter; op starts at the later of the two and takes the
 * expected wait beyond it for the turn jittered by a normal of that standard deviation, E[max(0, x + J)] - max(0,
 * x) = s phi(x/s) + x Phi(x/s) - max(0, x) (Clark's expected maximum), as more time: its start stays the DAG's
 * earliest, which the analysis checks. */
static int64_t race_turn(Engine *e, int64_t op, int64_t *start)
{
    int64_t turn = e->accum_at[op], other = *start, jitter = e->p->waited.jitter_ns;
    e->is_accum_bound[op] = turn > other - jitter;
    *start = MAX(other, turn);
    double x = (double)(turn - other) / (double)jitter;
    double later = (double)jitter * (exp(-0.5 * x * x) / sqrt(2 * G_PI) + x * 0.5 * erfc(-x / G_SQRT2));
    return MAX(0, other + llround(later) - *start);
}

/* One predecessor of op is satisfied no earlier than at (is_accum: through an ACCUM edge); start op when it
 * was the last one. A reduction under a load model joins the shared resource at its start (an event) and
 * ends when its work is done. */
static inline void release(Engine *e, int64_t op, int64_t at, bool is_accum)
{
    int64_t *ready = &e->s->start_ns[op];
    if (G_UNLIKELY(e->accum_at != NULL) && is_accum) /* the turn, apart from the rest until the last release */
        e->accum_at[op] = at;
    else if (at > *ready) {
        *ready = at;
        if (G_UNLIKELY(e->is_accum_bound != NULL))
            e->is_accum_bound[op] = is_accum;
    }
    if (++e->s->end_ns[op] == 0) {
        int64_t raced = G_UNLIKELY(e->accum_at != NULL) && e->accum_at[op] >= 0 ? race_turn(e, op, ready) : 0;
        if (G_UNLIKELY(e->load) && sim_op_kind(e->p, op) == SIM_OP_REDUCE) {
            e->s->end_ns[op] = ENDS_UNKNOWN;
            sim_event_queue_push(&e->queue, *ready, (int32_t)~op);
            return;
        }
        int64_t extra = raced + (G_UNLIKELY(e->unit_compute != NULL) ? interfere_at_start(e, op, *ready) : 0);
        if (G_UNLIKELY(e->is_accum_bound != NULL))
            extra += waited_at_start(e, op);
        if (G_UNLIKELY(e->is_counting_store) && sim_op_engine(e->p, op) != 0)
            e->store_running++;
        e->s->end_ns[op] = *ready + sim_op_duration_ns(e->p, op) + extra;
        sim_event_queue_push(&e->queue, e->s->end_ns[op], (int32_t)op);
    }
}

/* The plain path's hot loop reads the program and the schedule through this copy of their array pointers,
 * a local of run_plain's: stores to the arrays (pending is bytes, which may alias anything) then cannot
 * make the compiler load the pointers again through e->p and e->s at every op. */
typedef struct {
    int64_t *start;                   /* s->start_ns */
    uint8_t *pending;
    uint8_t *start_by;                /* s->start_by, or NULL where it is not recorded (engine_init) */
    int32_t *cta_unit, *cta_left, *order, *slot_op, *unit_cta;
    const uint8_t *op_engine;         /* NULL: one engine a unit */
    int32_t engines;
    bool has_latency;                 /* some edge may have a latency (else every release is at its source's end) */
    const int32_t *duration;          /* NULL: p->op_duration_wide_ns */
    const int32_t *cta_base, *out_full, *out_base, *in_base, *edge_to, *next_on_engine;
    const uint8_t *cta_delta, *out_rel, *in_rel;
    int64_t op_count, edge_count;
} PlainView;

static PlainView plain_view(const Engine *e)
{
    const SimProgram *p = e->p;
    bool has_latency = p->edge_latency_ns || p->unit_latency_ns;
    for (int k = 0; k < SIM_EDGE_KIND_COUNT; k++)
        has_latency |= p->kind_latency_ns[k] != 0;
    return (PlainView){ .start = e->s->start_ns, .pending = e->pending, .start_by = e->s->start_by,
                        .cta_unit = e->s->cta_unit,
                        .slot_op = e->slot_op, .unit_cta = e->unit_cta, .op_engine = p->op_engine,
                        .engines = p->engines_per_unit, .has_latency = has_latency,
                        .cta_left = e->cta_left, .order = e->s->order, .duration = p->op_duration_ns,
                        .cta_base = p->op_cta_base, .out_full = p->first_out.full, .out_base = p->first_out.base,
                        .in_base = p->first_in.base, .in_rel = p->first_in.rel,
                        .edge_to = p->edge_to, .next_on_engine = p->next_on_engine, .cta_delta = p->op_cta_delta,
                        .out_rel = p->first_out.rel, .op_count = p->op_count, .edge_count = p->edge_count };
}

/* The lean shape, which most programs have: one engine a unit, 32-bit durations, both adjacencies compact and
 * in edge-id order (in_edge, out_edge NULL). The loops are made for it with is_lean a constant true, so that
 * none of these is tested per op (the time-ordered one where its queue is a ring, too). */
static bool plain_is_lean(const SimProgram *p)
{
    return !p->op_engine && !p->next_on_engine && p->op_duration_ns && !p->first_out.full && !p->out_edge &&
           !p->first_in.full && !p->in_edge;
}

static inline int64_t plain_out_at(const PlainView *v, int64_t op, bool is_lean)
{
    return !is_lean && v->out_full ? v->out_full[op] : (int64_t)v->out_base[op >> 5] + v->out_rel[op];
}

static inline int64_t plain_duration(const Engine *e, const PlainView *v, int64_t op, bool is_lean)
{
    return is_lean || v->duration ? v->duration[op] : e->p->op_duration_wide_ns[op];
}

/* Fetches the lines a CTA's op AHEAD ops on will read: the running CTAs' ops are as many streams as CTAs
 * (132 and more), which no hardware prefetcher follows; the next visit to the CTA is an event of each
 * other running CTA later. (524k fa3 tasks: the engine 28 -> 23 ms.) Out of range is harmless: a prefetch
 * never faults; the pointers are formed only in range. */
static inline void plain_prefetch(const Engine *e, const PlainView *v, int64_t op, int64_t k_end, bool is_lean)
{
    int64_t a = op + AHEAD;
    if (a >= v->op_count)
        return;
    __builtin_prefetch(&v->start[a], 1);
    __builtin_prefetch(&v->pending[a], 1);
    __builtin_prefetch(is_lean || v->duration ? (const void *)&v->duration[a] : (const void *)&e->p->op_duration_wide_ns[a]);
    __builtin_prefetch(&v->cta_delta[a]);
    if (is_lean || !v->out_full)
        __builtin_prefetch(&v->out_rel[a]);
    if (k_end + AHEAD < v->edge_count)
        __builtin_prefetch(&v->edge_to[k_end + AHEAD]);
}

/* start_by (where it is recorded) keeps, as each release of op comes, the code of the predecessor that
 * sets its ready time, at a tie the first in its order (engine.h): the previous op on the engine, the
 * in-edges by index, the dispatch. A CTA's ops hold DISPATCH from its placement, before any release reaches
 * them (place_cta). The releases' sources: an edge id, or these. */
enum { FROM_ENGINE = -1, FROM_DISPATCH = -2 };

/* In-edge code by (SIM_START_BY_EDGE + j) meets or passes op's ready time so far. */
static inline void note_edge(const PlainView *v, int64_t op, int64_t ready, int64_t at, uint8_t by)
{
    if (at > ready) {
        v->start_by[op] = by;
        return;
    }
    uint8_t was = v->start_by[op]; /* ENGINE (0) is first at a tie; DISPATCH (1) last */
    if (was == SIM_START_BY_DISPATCH || by < was)
        v->start_by[op] = by;
}

/* start_by's code of edge, an in-edge of to: EDGE + its index among to's in-edges (their ids ascend). */
static inline uint8_t edge_code(const SimProgram *p, const PlainView *v, int64_t edge, int64_t to, bool is_lean)
{
    int64_t begin = is_lean ? (int64_t)v->in_base[to >> 5] + v->in_rel[to] : sim_program_in_begin(p, to);
    int64_t k = !is_lean && p->in_edge ? begin : edge;
    while (!is_lean && p->in_edge && p->in_edge[k] != edge)
        k++;
    return (uint8_t)(SIM_START_BY_EDGE + MIN(k - begin, SIM_START_BY_EDGE_FAR - SIM_START_BY_EDGE));
}

/* op's release by from (an edge, FROM_ENGINE or FROM_DISPATCH) at at >= ready, its ready time so far. */
static inline void plain_note(const SimProgram *p, const PlainView *v, int64_t op, int64_t ready, int64_t at,
                              int64_t from, bool is_lean)
{
    if (from == FROM_ENGINE)
        v->start_by[op] = SIM_START_BY_ENGINE;
    else if (from == FROM_DISPATCH) {
        if (at > ready)
            v->start_by[op] = SIM_START_BY_DISPATCH;
    } else /* the edge's index, only where it may set the start */
        note_edge(v, op, ready, at, edge_code(p, v, from, op, is_lean));
}

/* Queues slot's completion at time on the plain path (the loop's local queue or e->queue); in the lean shape
 * straight onto the ring: no push is earlier than the current time, which is the cursor (run_plain_as). */
static inline void plain_push(SimEventQueue *q, int64_t time, int32_t slot, bool is_lean)
{
    if (is_lean)
        sim_event_queue_link_at_cursor(q, time, slot);
    else
        sim_event_queue_push_slot(q, time, slot);
}

/* One predecessor of op on the plain path (from: plain_note) is satisfied no earlier than at: its ready time
 * (and start_by) take it in; true when it was the last one (op starts at its ready time). */
G_ALWAYS_INLINE static inline bool plain_satisfy(const Engine *e, const PlainView *v, int64_t op, int64_t at,
                                                 int64_t from, bool is_recording, bool is_lean)
{
    int64_t ready = v->start[op];
    if (is_recording && at >= ready)
        plain_note(e->p, v, op, ready, at, from, is_lean);
    v->start[op] = MAX(ready, at);
    return --v->pending[op] == 0;
}

/* release on the plain path, in time order: op starts when at was its last predecessor, and its completion is
 * queued its duration later. (Inlined by force: GCC stopped inlining it at its three calls once it recorded
 * start_by, 35M more instructions at 524k tasks.) */
G_ALWAYS_INLINE static inline void plain_release(const Engine *e, const PlainView *v, SimEventQueue *q, int64_t op,
                                                 int32_t unit, int64_t at, int64_t from, bool is_recording,
                                                 bool is_lean)
{
    if (plain_satisfy(e, v, op, at, from, is_recording, is_lean)) {
        int32_t slot = !is_lean && v->op_engine ? unit * v->engines + v->op_engine[op] : unit;
        v->slot_op[slot] = (int32_t)op;
        plain_push(q, v->start[op] + plain_duration(e, v, op, is_lean), slot, is_lean);
    }
}

/* complete on the plain path: the same steps, with nothing but the program's durations to apply. Program
 * edges are in CSR order here (out_edge NULL) or read through it. */
G_ALWAYS_INLINE static inline void plain_complete(Engine *e, PlainView *v, SimEventQueue *q, int32_t slot, int64_t now,
                                                  bool is_recording, bool is_lean)
{
    const SimProgram *p = e->p;
    int64_t op = v->slot_op[slot];
    int32_t unit = !is_lean && v->op_engine ? slot / v->engines : slot, c = v->unit_cta[unit];
    if (!is_recording && v->order) /* recording: every edge runs forward, so no order */
        v->order[e->order_len++] = (int32_t)op;
    int64_t k_end = plain_out_at(v, op + 1, is_lean);
    plain_prefetch(e, v, op, k_end, is_lean);
    for (int64_t k = plain_out_at(v, op, is_lean); k < k_end; k++) {
        int64_t edge = is_lean ? k : sim_program_out_edge(p, k), to = v->edge_to[edge];
        if (to + 4 < v->op_count) { /* as in complete */
            __builtin_prefetch(&v->cta_delta[to + 4]);
            __builtin_prefetch(&v->start[to + 4], 1);
            if (is_recording && (is_lean || p->first_in.rel)) /* edge_code's offset */
                __builtin_prefetch(&v->in_rel[to + 4]);
        }
        int32_t to_unit = v->cta_unit[v->cta_base[to >> 8] + v->cta_delta[to]];
        if (to_unit >= 0) {
            int64_t at = v->has_latency ? now + edge_latency(e, edge, op, unit, to_unit) : now;
            plain_release(e, v, q, to, to_unit, at, edge, is_recording, is_lean);
        } else
            v->pending[to]--; /* its time is folded into ready when its CTA is placed */
    }
    /* one engine: a CTA's ops complete in program order, so op is its last one when it is the last left */
    int32_t left = --v->cta_left[c];
    int64_t next = !is_lean && v->next_on_engine ? v->next_on_engine[op] : left > 0 ? op + 1 : -1;
    if (next >= 0)
        plain_release(e, v, q, next, unit, now, FROM_ENGINE, is_recording, is_lean);
    if (left == 0) {
        e->s->cta_end_ns[c] = now;
        e->free_units[unit / 64] |= UINT64_C(1) << (unit % 64);
        e->has_free_unit = true;
    }
}

/* Placing a CTA folds in the sources that have started with a known end: those done released op while its CTA
 * had no unit (see complete), the others will release it again with the same time, which changes nothing. The
 * CTA's ops are contiguous, so their in-edges are one run of in_edge. The full path's fold: a source's end is
 * known unless it has not started or is a reduction under a load model whose issue has not ended. */
static void fold_full(Engine *e, const SimCta *cta, int32_t unit)
{
    const SimProgram *p = e->p;
    int64_t *ready = e->s->start_ns, op_end = cta->op_begin + cta->op_count;
    for (int64_t k = sim_program_in_begin(p, cta->op_begin); k < sim_program_in_begin(p, op_end); k++) {
        int64_t edge = sim_program_in_edge(p, k), from = sim_edge_from(p, edge), to = sim_edge_to(p, edge);
        int64_t end = e->s->end_ns[from];
        if (end < 0 || end == ENDS_UNKNOWN)
            continue;
        int32_t from_unit = e->s->cta_unit[sim_op_cta(p, from)];
        int64_t at = end + edge_latency(e, edge, from, from_unit, unit);
        if (e->accum_at && sim_edge_kind(p, edge) == SIM_EDGE_ACCUM) { /* the turn, apart (release) */
            e->accum_at[to] = at;
            continue;
        }
        if (at > ready[to] && e->is_accum_bound)
            e->is_accum_bound[to] = sim_edge_kind(p, edge) == SIM_EDGE_ACCUM;
        ready[to] = MAX(ready[to], at);
    }
}

/* The plain path's fold, op by op: a source has started where its pending count is 0, and in-edge j of op
 * has start_by's code EDGE + j, with no search. (524k fa3 tasks running ahead: every cross-CTA edge is folded
 * here, its source long done.) */
static void fold_plain(const Engine *e, const PlainView *v, const SimCta *cta, int32_t unit)
{
    const SimProgram *p = e->p;
    int64_t op_end = cta->op_begin + cta->op_count, k = sim_program_in_begin(p, cta->op_begin);
    for (int64_t to = cta->op_begin; to < op_end; to++) {
        int64_t k_begin = k, k_end = sim_program_in_end(p, to), ready = v->start[to];
        for (; k < k_end; k++) {
            int64_t edge = sim_program_in_edge(p, k), from = sim_edge_from(p, edge);
            if (v->pending[from] != 0)
                continue;
            int64_t at = v->start[from] + sim_op_duration_ns(p, from);
            if (v->has_latency)
                at += edge_latency(e, edge, from, v->cta_unit[sim_op_cta(p, from)], unit);
            if (v->start_by && at >= ready)
                note_edge(v, to, ready, at, (uint8_t)(SIM_START_BY_EDGE + MIN(k - k_begin, SIM_START_BY_EDGE_FAR - SIM_START_BY_EDGE)));
            ready = MAX(ready, at);
        }
        v->start[to] = ready;
    }
}

static void place_cta(Engine *e, int32_t c, int32_t unit, int64_t now)
{
    const SimProgram *p = e->p;
    const SimCta *cta = &p->ctas[c];
    e->s->cta_unit[c] = unit;
    e->s->cta_dispatch_ns[c] = now;
    if (e->s->order)
        e->s->order[e->order_len++] = (int32_t)(p->op_count + c);
    e->free_units[unit / 64] &= ~(UINT64_C(1) << (unit % 64));
    PlainView v = e->is_plain ? plain_view(e) : (PlainView){ 0 };
    if (v.start_by) /* no release has reached the CTA's ops yet */
        memset(v.start_by + cta->op_begin, SIM_START_BY_DISPATCH, (size_t)cta->op_count);
    if (e->is_plain)
        fold_plain(e, &v, cta, unit);
    else
        fold_full(e, cta, unit);
    for (int64_t op = cta->op_begin; op < cta->op_begin + cta->op_count; op++) {
        if (!sim_program_is_first_on_engine_in(p, op, c))
            continue;
        if (e->is_ahead) {
            e->unit_cta[unit] = c;
            if (plain_satisfy(e, &v, op, now, FROM_DISPATCH, v.start_by != NULL, false))
                e->ahead[2 * e->ahead_len++] = (int32_t)op, e->ahead[2 * e->ahead_len - 1] = unit;
        } else if (e->is_plain) {
            e->unit_cta[unit] = c;
            plain_release(e, &v, &e->queue, op, unit, now, FROM_DISPATCH, v.start_by != NULL, false);
        } else
            release(e, op, now, false);
        if (p->engines_per_unit == 1) /* one engine: the CTA's first op is the only one first on it */
            break;
    }
}

/* Free units take their next pinned CTA, else the next CTA in launch order; lowest unit first. A free
 * unit with neither left never gets work again and leaves the free set, so this visits only units that
 * take a CTA (and each idle one once): no scan over all units per time step. */
static void dispatch(Engine *e, int64_t now)
{
    e->has_free_unit = false;
    int32_t words = (e->p->n_units + 63) / 64;
    for (int32_t w = 0; w < words; w++)
        while (e->free_units[w]) {
            int32_t u = w * 64 + __builtin_ctzll(e->free_units[w]);
            if (e->pinned_next[u] < e->pinned_first[u + 1])
                place_cta(e, e->pinned[e->pinned_next[u]++], u, now);
            else if (e->dynamic_next < e->dynamic_count)
                place_cta(e, e->dynamic[e->dynamic_next++], u, now);
            else
                e->free_units[w] &= ~(UINT64_C(1) << (u % 64));
        }
}

static void complete(Engine *e, int64_t op, int64_t now)
{
    const SimProgram *p = e->p;
    int32_t c = sim_op_cta(p, op), unit = e->s->cta_unit[c];
    e->s->order[e->order_len++] = (int32_t)op;
    e->ops_done++;
    if (G_UNLIKELY(e->is_counting_store) && sim_op_engine(p, op) != 0)
        e->store_running--;
    if (G_UNLIKELY(e->load) && sim_op_kind(p, op) == SIM_OP_REDUCE) {
        int32_t k = --e->rq.in_flight; /* still in flight */
        if (e->s->handoff_extra_ns)
            e->s->handoff_extra_ns[op] = e->load->handoff_extra_ns[MIN(k, e->load->handoff_len)];
    }
    const int32_t *out_to = e->out_to;
    for (int64_t k = sim_program_out_begin(p, op); k < sim_program_out_end(p, op); k++) {
        int64_t edge = out_to ? -1 : sim_program_out_edge(p, k), to = out_to ? out_to[k] : sim_edge_to(p, edge);
        SimEdgeKind kind = out_to ? (SimEdgeKind)e->out_kind[k] : sim_edge_kind(p, edge);
        /* The target usually lies in a CTA that runs behind this one (the next KV tile of the dQ row), ahead
         * of where that CTA has read its arrays, so its lines come from memory here, one CTA of 132 at a
         * time: no hardware prefetcher follows that. A CTA's successive edges mostly reach successive ops
         * of the target CTA: fetch the target's ops a few ahead now. (At 2M tasks, complete() went from
         * about 90 to 45 ns per task; fetching the CTA's own next ops too moved it by 1-2%, left out. Written here:
         * GCC deletes a call to a helper holding only prefetches, as a call without effects.) */
        if (to + 4 < p->op_count) {
            __builtin_prefetch(&p->op_cta_delta[to + 4]);
            __builtin_prefetch(&e->s->start_ns[to + 4], 1);
            __builtin_prefetch(&e->s->end_ns[to + 4], 1);
        }
        int32_t to_unit = e->s->cta_unit[sim_op_cta(p, to)];
        if (to_unit >= 0) {
            int64_t own = out_to ? p->kind_latency_ns[kind] : sim_edge_latency_ns(p, edge);
            release(e, to, now + (unit == to_unit ? 0 : latency_as(e, kind, own, op, unit, to_unit)),
                    kind == SIM_EDGE_ACCUM);
        } else
            e->s->end_ns[to]++; /* one pending less; its time is folded into ready when its CTA is placed */
    }
    if (p->next_on_engine && op + AHEAD < p->op_count) /* its CTA's stream, as plain_prefetch */
        __builtin_prefetch(&p->next_on_engine[op + AHEAD]);
    int64_t next = sim_program_next_on_engine(p, op);
    if (next >= 0)
        release(e, next, now, false);
    if (--e->cta_left[c] == 0) {
        e->s->cta_end_ns[c] = now;
        e->free_units[unit / 64] |= UINT64_C(1) << (unit % 64);
        e->has_free_unit = true;
    }
}

/* The per-unit lists of pinned CTAs (CSR in CTA order) and the launch-order list of the others. */
static void init_ctas(Engine *e)
{
    const SimProgram *p = e->p;
    SimSchedule *s = e->s;
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
    for (int32_t u = 0; u < p->n_units; u++) {
        e->pinned_first[u + 1] += e->pinned_first[u];
        e->free_units[u / 64] |= UINT64_C(1) << (u % 64);
    }
    memcpy(e->pinned_next, e->pinned_first, sizeof *e->pinned_next * p->n_units);
    for (int32_t c = 0; c < p->cta_count; c++)
        if (p->ctas[c].pinned_unit >= 0)
            e->pinned[e->pinned_next[p->ctas[c].pinned_unit]++] = c;
    memcpy(e->pinned_next, e->pinned_first, sizeof *e->pinned_next * p->n_units);
}

/* What an event may lie past the current time beyond the longest duration (the queue's horizon is their
 * sum): the largest latency an edge can get (its own or the unit matrix's, plus the largest hand-off
 * growth), and what the interference and waited-reduction rules can add to an op. */
static int64_t longest_extra(const SimProgram *p)
{
    int64_t lat = 0, handoff = 0;
    for (int64_t e = 0; p->edge_latency_ns && e < p->edge_count; e++)
        lat = MAX(lat, p->edge_latency_ns[e]);
    for (int k = 0; !p->edge_latency_ns && k < SIM_EDGE_KIND_COUNT; k++) /* the kinds of the edges there are */
        if (p->has_kind_latency >> k & 1)
            lat = MAX(lat, p->kind_latency_ns[k]);
    for (int64_t i = 0; p->unit_latency_ns && i < (int64_t)p->n_units * p->n_units; i++)
        lat = MAX(lat, p->unit_latency_ns[i]);
    for (int32_t k = 0; p->load && p->load->handoff_extra_ns && k <= p->load->handoff_len; k++)
        handoff = MAX(handoff, p->load->handoff_extra_ns[k]);
    int64_t rules = MAX(p->overlap.penalty_ns, 0) + MAX(MAX(p->overlap.write_extra_ns, 0), p->overlap.write_extra_late_ns) +
                    (int64_t)(MAX(p->overlap.write_slope_ns, 0) + MAX(p->overlap.write_extra_slope_ns, 0)) * p->n_units +
                    MAX(p->waited.read_delta_ns, 0) + MAX(p->waited.tail_delta_ns, 0) + p->waited.jitter_ns +
                    (int64_t)ABS(p->waited.slope_milli_ns) * ((int64_t)p->n_units * p->engines_per_unit + p->waited.k_ref) / 1000 + 1;
    return lat + handoff + rules;
}

/* What a load model may add to a reduction beyond its duration: the largest extra, and the queue's wait.
 * The backlog holds only bytes of reductions not yet complete, at most one per engine of a unit at a time,
 * each issuing at most `longest` worth: so a wait is at most units x engines x longest over the capacity. */
static int64_t longest_queued(const SimProgram *p, int64_t longest)
{
    const SimLoadModel *m = p->load;
    if (!m)
        return 0;
    int64_t extra = 0;
    for (int32_t k = 1; k <= m->extra_len; k++)
        extra = MAX(extra, m->extra_ns[k]);
    if (m->capacity_milli <= 0)
        return extra + 1;
    __int128 wait = (__int128)p->n_units * p->engines_per_unit * longest * 1000 / m->capacity_milli + 1;
    return wait > INT64_MAX / 4 ? INT64_MAX / 4 : extra + 1 + (int64_t)wait; /* too large: the heap */
}

/* The interference rules' per-unit state, where the program has them (several engines a unit). */
static void init_overlap(Engine *e)
{
    const SimProgram *p = e->p;
    if (!sim_overlap_has_rules(&p->overlap) || p->engines_per_unit == 1)
        return;
    int32_t n_units = p->n_units;
    e->unit_reduce_start = g_new(int64_t, n_units);
    e->unit_compute = g_new(int32_t, n_units);
    e->is_unit_compute_slowed = g_new0(bool, n_units);
    e->unit_write_start = g_new(int64_t, n_units);
    e->unit_write_end = g_new(int64_t, n_units);
    int64_t slots = (int64_t)n_units * p->engines_per_unit;
    e->unit_store_op = g_new(int32_t, slots);
    e->has_unit_reduction_paid = g_new0(bool, slots);
    for (int64_t k = 0; k < slots; k++)
        e->unit_store_op[k] = -1;
    for (int32_t u = 0; u < n_units; u++) {
        e->unit_reduce_start[u] = e->unit_write_start[u] = e->unit_write_end[u] = INT64_MIN / 4;
        e->unit_compute[u] = -1;
    }
}

/* The longest op duration (32-bit durations in a loop that vectorizes). */
static int64_t longest_duration(const SimProgram *p)
{
    int64_t longest = 0;
    if (!p->op_duration_ns) {
        for (int64_t op = 0; op < p->op_count; op++)
            longest = MAX(longest, p->op_duration_wide_ns[op]);
        return longest;
    }
    int32_t most[8] = { 0 }; /* eight lanes: a loop of fixed length, which GCC vectorizes at -O2 */
    int64_t op = 0;
    for (; op + 8 <= p->op_count; op += 8)
        for (int j = 0; j < 8; j++)
            most[j] = p->op_duration_ns[op + j] > most[j] ? p->op_duration_ns[op + j] : most[j];
    for (; op < p->op_count; op++)
        most[0] = p->op_duration_ns[op] > most[0] ? p->op_duration_ns[op] : most[0];
    for (int j = 0; j < 8; j++)
        longest = MAX(longest, most[j]);
    return longest;
}

/* pending[op] = op's in-edges + 1 for every op, or false where an op has PENDING_MAX or more (pending then
 * unfinished). Compact offsets: a block's ops but its last have their degrees as differences of rel (a loop of
 * fixed length, which vectorizes), the last its own from the next block's base. */
static bool count_pending(const SimProgram *p, uint8_t *pending)
{
    const SimOffsets *o = &p->first_in;
    int64_t n = p->op_count;
    if (o->full) {
        for (int64_t op = 0; op < n; op++) {
            int64_t count = o->full[op + 1] - o->full[op] + 1;
            if (count >= PENDING_MAX)
                return false;
            pending[op] = (uint8_t)count;
        }
        return true;
    }
    uint8_t most = 0; /* the largest degree of an op but a block's last, below 256 (rel is 8 bits) */
    for (int64_t begin = 0; begin < n; begin += 32) {
        int64_t last = MIN(begin + 31, n - 1);
        for (int64_t op = begin; op < last; op++) {
            uint8_t degree = (uint8_t)(o->rel[op + 1] - o->rel[op]);
            pending[op] = (uint8_t)(degree + 1);
            most = degree > most ? degree : most;
        }
        int64_t count = sim_offsets_at(o, last + 1) - sim_offsets_at(o, last) + 1;
        if (count >= PENDING_MAX)
            return false;
        pending[last] = (uint8_t)count;
    }
    return most + 1 < PENDING_MAX;
}

/* Each op's pending count: its incoming edges and the op before it (or the dispatch); on the plain path in
 * pending, else as minus that in s->end_ns. Takes the plain path away from an op with too many. Returns
 * the longest duration. */
static int64_t init_pending(Engine *e)
{
    const SimProgram *p = e->p;
    int64_t n = p->op_count;
    if (e->is_plain) {
        e->pending = SIM_PREFAULT_NEW(uint8_t, n);
        e->is_plain = count_pending(p, e->pending);
        if (e->is_plain)
            return longest_duration(p);
        g_free(e->pending), e->pending = NULL;
    }
    e->s->end_ns = SIM_PREFAULT_NEW(int64_t, n);
    for (int64_t op = 0; op < n; op++)
        e->s->end_ns[op] = -(sim_program_in_end(p, op) - sim_program_in_begin(p, op) + 1);
    return longest_duration(p);
}

/* The full path's out-edge targets and kinds in adjacency order (Engine.out_to), where they pay: out_edge
 * set (edges not added in order of their source) and no latency per edge. One gather over the edges. */
static void init_out_targets(Engine *e)
{
    const SimProgram *p = e->p;
    if (!p->out_edge || p->edge_latency_ns)
        return;
    e->out_to = g_new(int32_t, MAX(p->edge_count, 1));
    e->out_kind = g_new(uint8_t, MAX(p->edge_count, 1));
    for (int64_t k = 0; k < p->edge_count; k++) {
        int32_t edge = p->out_edge[k];
        e->out_to[k] = p->edge_to[edge];
        e->out_kind[k] = p->edge_kind[edge];
    }
}

static void engine_init(Engine *e, const SimProgram *p, SimSchedule *s)
{
    *e = (Engine){ .p = p, .s = s, .load = p->load };
    *s = (SimSchedule){ 0 };
    int64_t n = p->op_count;
    g_assert(n < INT32_MAX && n + p->cta_count < INT32_MAX);
    if (e->load) {
        e->issue_mark = SIM_PREFAULT_NEW(int64_t, n);
        memset(e->issue_mark, 0xff, sizeof *e->issue_mark * n);
        if (e->load->handoff_extra_ns)
            s->handoff_extra_ns = g_new0(int32_t, n);
    }
    init_overlap(e);
    if (p->waited.read_delta_ns != 0 || p->waited.tail_delta_ns != 0 || p->waited.slope_milli_ns != 0) {
        e->is_accum_bound = g_new0(bool, n);
        e->is_counting_store = p->waited.slope_milli_ns != 0 && !e->load;
        if (p->waited.jitter_ns > 0) {
            e->accum_at = g_new(int64_t, n);
            memset(e->accum_at, 0xff, sizeof *e->accum_at * n);
        }
    }
    e->is_plain = !e->load && !e->unit_compute && !e->is_accum_bound;
    s->start_ns = SIM_PREFAULT_NEW0(int64_t, n); /* ready times until each op starts */
    int64_t longest = init_pending(e);
    bool is_forward = e->is_plain && sim_program_is_edge_order_forward(p);
    if (!is_forward)
        s->order = SIM_PREFAULT_NEW(int32_t, n + p->cta_count);
    s->cta_unit = g_new(int32_t, p->cta_count);
    s->cta_dispatch_ns = g_new(int64_t, p->cta_count);
    s->cta_end_ns = g_new(int64_t, p->cta_count);
    int64_t horizon = longest + longest_extra(p) + longest_queued(p, longest);
    e->is_ahead = is_forward && p->engines_per_unit == 1;
    if (e->is_ahead) { /* CTA ends only: a heap, as their times may lie far apart */
        sim_event_queue_init(&e->queue, -1, p->n_units);
        e->ahead = g_new(int32_t, 2 * (int64_t)p->n_units);
        e->unit_cta = g_new(int32_t, p->n_units);
    } else if (e->is_plain) {
        int32_t slots = p->n_units * p->engines_per_unit;
        sim_event_queue_init_slots(&e->queue, horizon, slots);
        e->slot_op = g_new(int32_t, slots);
        e->unit_cta = g_new(int32_t, p->n_units);
    } else {
        sim_event_queue_init(&e->queue, horizon, 2 * (int64_t)p->n_units * p->engines_per_unit);
        init_out_targets(e);
    }
    e->cta_left = g_new(int32_t, p->cta_count);
    e->dynamic = g_new(int32_t, p->cta_count);
    e->pinned_first = g_new0(int32_t, p->n_units + 1);
    e->pinned = g_new(int32_t, p->cta_count);
    e->pinned_next = g_new(int32_t, p->n_units);
    e->free_units = g_new0(uint64_t, (p->n_units + 63) / 64);
    init_ctas(e);
    /* What set each start, where the analysis may take it as is (analyze_order.c): the plain path (every
     * start the earliest), every edge forward and CTAs all pinned or none (CTA order is then each unit's
     * order and topological). Each CTA's part is written when it is placed. */
    if (is_forward && (e->dynamic_count == 0 || e->dynamic_count == p->cta_count))
        s->start_by = SIM_PREFAULT_NEW(uint8_t, n);
}

static void engine_clear(Engine *e)
{
    sim_event_queue_clear(&e->queue);
    g_free(e->cta_left);
    g_free(e->dynamic);
    g_free(e->pinned_first);
    g_free(e->pinned);
    g_free(e->pinned_next);
    g_free(e->free_units);
    g_free(e->issue_mark);
    g_free(e->unit_reduce_start);
    g_free(e->unit_compute);
    g_free(e->is_unit_compute_slowed);
    g_free(e->unit_write_start);
    g_free(e->unit_write_end);
    g_free(e->unit_store_op);
    g_free(e->has_unit_reduction_paid);
    g_free(e->is_accum_bound);
    g_free(e->accum_at);
    g_free(e->pending);
    g_free(e->slot_op);
    g_free(e->unit_cta);
    g_free(e->ahead);
    g_free(e->out_to);
    g_free(e->out_kind);
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

/* Running ahead (Engine.is_ahead). Where no completion order is kept (every edge forward) and a unit has one
 * engine, what a completion does (ready times and start_by, pending counts, its CTA's count) comes out the same
 * in any order: a release keeps the later time, and start_by the first code at a tie (plain_note). Only the
 * dispatch depends on time: units freed at t take CTAs once every op that ends by t has completed. So an op
 * completes as soon as it is released, its CTA's next op right after it while its lines are in cache, and
 * only CTA ends are events, popped in time order (a heap), each time's dispatch once no released op is left.
 * An op released by a dispatch ends no earlier than it, so every CTA that ends at t is known before t's
 * dispatch, as in the time-ordered loop: the same schedule, makespan (the latest end) and ops done. */
G_ALWAYS_INLINE static inline void ahead_complete(Engine *e, const PlainView *v, int64_t *len, int64_t op,
                                                  int32_t unit, int64_t *makespan, bool is_recording, bool is_lean)
{
    const SimProgram *p = e->p;
    int32_t *ahead = e->ahead;
    int64_t end = v->start[op] + plain_duration(e, v, op, is_lean), k_end = plain_out_at(v, op + 1, is_lean);
    *makespan = MAX(*makespan, end);
    for (int64_t k = plain_out_at(v, op, is_lean); k < k_end; k++) {
        int64_t edge = is_lean ? k : sim_program_out_edge(p, k), to = v->edge_to[edge];
        int32_t to_unit = v->cta_unit[v->cta_base[to >> 8] + v->cta_delta[to]];
        if (to_unit < 0) {
            v->pending[to]--; /* its time is folded into ready when its CTA is placed */
            continue;
        }
        int64_t at = v->has_latency ? end + edge_latency(e, edge, op, unit, to_unit) : end;
        if (plain_satisfy(e, v, to, at, edge, is_recording, is_lean))
            ahead[2 * *len] = (int32_t)to, ahead[2 * (*len)++ + 1] = to_unit;
    }
    int32_t c = v->unit_cta[unit];
    if (--v->cta_left[c] > 0) { /* one engine: the CTA's next op is op + 1, and it ends last */
        if (plain_satisfy(e, v, op + 1, end, FROM_ENGINE, is_recording, is_lean))
            ahead[2 * *len] = (int32_t)(op + 1), ahead[2 * (*len)++ + 1] = unit;
    } else {
        e->s->cta_end_ns[c] = end;
        sim_event_queue_push(&e->queue, end, unit);
    }
}

G_ALWAYS_INLINE static inline void run_ahead_as(Engine *e, bool is_recording, bool is_lean)
{
    PlainView v = plain_view(e);
    int64_t done = 0, makespan = 0;
    for (;;) {
        int64_t len = e->ahead_len; /* what the dispatch released */
        while (len > 0) {
            len--;
            ahead_complete(e, &v, &len, e->ahead[2 * len], e->ahead[2 * len + 1], &makespan, is_recording, is_lean);
            done++;
        }
        e->ahead_len = 0;
        if (sim_event_queue_is_empty(&e->queue))
            break;
        int64_t now = sim_event_queue_min_time(&e->queue);
        while (!sim_event_queue_is_empty(&e->queue) && sim_event_queue_min_time(&e->queue) == now) {
            int64_t at;
            int32_t unit = sim_event_queue_pop(&e->queue, &at);
            e->free_units[unit / 64] |= UINT64_C(1) << (unit % 64);
        }
        dispatch(e, now);
    }
    e->s->makespan_ns = makespan;
    e->ops_done += done;
}

G_GNUC_NO_INLINE static void run_ahead(Engine *e)
{
    bool is_lean = plain_is_lean(e->p);
    if (e->s->start_by && is_lean)
        run_ahead_as(e, true, true);
    else if (e->s->start_by)
        run_ahead_as(e, true, false);
    else if (is_lean)
        run_ahead_as(e, false, true);
    else
        run_ahead_as(e, false, false);
}

/* The plain path: every event is a completion, never stale. The queue is a local copy between dispatches
 * (place_cta pushes on e->queue), for the reason PlainView is. Made four times, recording start_by or not and
 * lean or not (constants in each: no test of them per op). */
G_ALWAYS_INLINE static inline void run_plain_as(Engine *e, bool is_recording, bool is_lean)
{
    PlainView v = plain_view(e);
    SimEventQueue q = e->queue;
    int64_t done = 0;
    while (!sim_event_queue_is_empty(&q)) {
        int64_t now = sim_event_queue_min_time(&q);
        do {
            int32_t slot = is_lean ? sim_event_queue_unlink(&q, now) : sim_event_queue_pop_at(&q, now);
            int32_t ahead = is_lean ? q.bucket[now & q.ring_mask].first : sim_event_queue_peek_at(&q, now);
            if (ahead >= 0) { /* the next completion's first lines, fetched while this one runs */
                int64_t op = v.slot_op[ahead];
                __builtin_prefetch(&v.start[op + 1], 1);
                __builtin_prefetch(&v.pending[op + 1], 1);
                if (is_lean || v.duration)
                    __builtin_prefetch(&v.duration[op + 1]);
                if (is_lean || !v.out_full)
                    __builtin_prefetch(&v.out_rel[op]);
            }
            plain_complete(e, &v, &q, slot, now, is_recording, is_lean);
            done++;
        } while (is_lean ? q.bucket[now & q.ring_mask].first >= 0 : sim_event_queue_has_at(&q, now));
        e->s->makespan_ns = now;
        if (e->has_free_unit) {
            e->queue = q;
            dispatch(e, now);
            q = e->queue;
        }
    }
    e->queue = q;
    e->ops_done += done;
}

G_GNUC_NO_INLINE static void run_plain_recording(Engine *e)
{
    run_plain_as(e, true, false);
}

G_GNUC_NO_INLINE static void run_plain_lean(Engine *e)
{
    run_plain_as(e, false, true);
}

/* Recording start_by takes every edge forward, and running ahead (run_ahead) takes those of one engine a unit:
 * what records here has several, so it is never lean. */
G_GNUC_NO_INLINE static void run_plain(Engine *e)
{
    if (e->s->start_by)
        run_plain_recording(e);
    else if (plain_is_lean(e->p) && sim_event_queue_is_ring(&e->queue))
        run_plain_lean(e);
    else
        run_plain_as(e, false, false);
}

/* The full path's next completion of the same time (ahead, an op; -1: none): its first lines fetched while
 * this one runs (its end, where its out-edges start, its next op on its engine), as the plain loop does. */
static inline void full_prefetch(const Engine *e, int32_t ahead)
{
    const SimProgram *p = e->p;
    if (ahead < 0)
        return;
    __builtin_prefetch(&e->s->end_ns[ahead]);
    __builtin_prefetch(p->first_out.full ? (const void *)&p->first_out.full[ahead] : (const void *)&p->first_out.rel[ahead]);
    if (p->next_on_engine)
        __builtin_prefetch(&p->next_on_engine[ahead]);
    __builtin_prefetch(&p->op_cta_delta[ahead]);
}

/* Fixed durations: every event is a completion. */
static void run_fixed(Engine *e)
{
    SimEventQueue *q = &e->queue;
    while (!sim_event_queue_is_empty(q)) {
        int64_t now = sim_event_queue_min_time(q);
        do {
            int64_t at;
            int32_t op = sim_event_queue_pop(q, &at);
            full_prefetch(e, sim_event_queue_peek_at(q, now));
            if (G_LIKELY(e->s->end_ns[op] == now)) /* else stale: the overlap rule moved its end */
                complete(e, op, now);
        } while (!sim_event_queue_is_empty(q) && sim_event_queue_min_time(q) == now);
        e->s->makespan_ns = now;
        if (e->has_free_unit)
            dispatch(e, now);
    }
}

/* With a load model: a reduction's issue start and end are events too (~op). */
static void run_shared(Engine *e)
{
    SimEventQueue *q = &e->queue;
    while (!sim_event_queue_is_empty(q)) {
        int64_t now = sim_event_queue_min_time(q);
        do {
            int64_t at;
            int32_t op = sim_event_queue_pop(q, &at);
            if (op < 0)
                queue_event(e, ~op, now);
            else if (e->s->end_ns[op] == now) /* else stale: the overlap rule moved its end */
                complete(e, op, now);
        } while (!sim_event_queue_is_empty(q) && sim_event_queue_min_time(q) == now);
        e->s->makespan_ns = now;
        if (e->has_free_unit)
            dispatch(e, now);
    }
}

SimStatus sim_engine_run(const SimProgram *p, SimSchedule *out, SimError *err)
{
    if (sim_engine_ordered_run(p, out))
        return SIM_OK;
    return sim_engine_run_events(p, out, err);
}

/* After a deadlock: the ops that never started get -1 for their start and end (on the plain path, an
 * end_ns array is made for it: the schedule is not one the outputs read). */
static void mark_unstarted(const Engine *e)
{
    const SimProgram *p = e->p;
    SimSchedule *s = e->s;
    g_free(s->start_by), s->start_by = NULL;
    if (e->is_plain) {
        s->end_ns = g_new(int64_t, p->op_count);
        for (int64_t op = 0; op < p->op_count; op++)
            s->end_ns[op] = e->pending[op] > 0 ? -1 : s->start_ns[op] + sim_op_duration_ns(p, op);
    }
    for (int64_t op = 0; op < p->op_count; op++) /* never started: start_ns held a ready time */
        if (s->end_ns[op] < 0)
            s->start_ns[op] = s->end_ns[op] = -1;
}

SimStatus sim_engine_run_events(const SimProgram *p, SimSchedule *out, SimError *err)
{
    Engine e;
    engine_init(&e, p, out);
    dispatch(&e, 0);
    if (e.is_ahead)
        run_ahead(&e);
    else if (e.is_plain)
        run_plain(&e);
    else if (e.load)
        run_shared(&e);
    else
        run_fixed(&e);
    SimStatus st = SIM_OK;
    if (e.ops_done != p->op_count) {
        st = report_deadlock(&e, err);
        mark_unstarted(&e);
    }
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
    g_free(s->order);
    g_free(s->start_by);
    *s = (SimSchedule){ 0 };
}

int64_t sim_engine_edge_latency(const SimProgram *p, const SimSchedule *s, int64_t e)
{
    int64_t from = sim_edge_from(p, e);
    int32_t uf = s->cta_unit[sim_op_cta(p, from)], ut = s->cta_unit[sim_op_cta(p, sim_edge_to(p, e))];
    int64_t lat = sim_program_edge_latency(p, e, uf, ut);
    if (s->handoff_extra_ns && uf != ut && sim_edge_kind(p, e) == SIM_EDGE_ACCUM)
        lat += s->handoff_extra_ns[from];
    return lat;
}

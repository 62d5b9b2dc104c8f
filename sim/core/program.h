/* Engine-level program: what the event engine runs and the DAG analyzer reads. Units (SMs, AI cores)
 * have a few engines each (compute / store, or Cube / Vector); a CTA is an ordered list of ops that runs
 * on one unit; edges add cross-op dependencies with a latency that applies only between different units.
 * Invariant after sim_program_seal: ops of one CTA are contiguous, edges refer to existing ops, and on
 * each engine the ops of a CTA run in the order they were added (implicit program-order edges). */
#ifndef SIM_PROGRAM_H
#define SIM_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* WRITE: a tile's epilogue write from the compute engine (attention: dK/dV at the end of a KV-tile run) */
typedef enum { SIM_OP_COMPUTE, SIM_OP_REDUCE, SIM_OP_VECTOR, SIM_OP_SYNC, SIM_OP_WRITE, SIM_OP_KIND_COUNT } SimOpKind;
typedef enum {
    SIM_EDGE_PHASE,    /* within a task: compute -> its reduction */
    SIM_EDGE_ACCUM,    /* dQ accumulation order: previous reduction of the row -> this one */
    SIM_EDGE_BUFFER,   /* staging buffer / workspace ring: the reader freed a slot -> the next writer */
    SIM_EDGE_DATA,     /* pipeline data dependency */
    SIM_EDGE_KIND_COUNT
} SimEdgeKind;

#define SIM_OP_MAX_DURATION_NS (1LL << 46) /* about 19.5 hours; inputs are bounded far below */
#define SIM_LATENCY_MAX_NS 1000000000      /* an edge latency: one second; anything above is not a signal
                                            * latency (latency matrices, plans and fitted hand-offs are checked) */
#define SIM_ENGINES_MAX 256                /* engines per unit */

typedef struct {
    int32_t pinned_unit; /* persistent: the unit it runs on (CTAs of a unit run in CTA order); -1: dispatched
                          * in CTA order to the lowest-numbered free unit */
    int32_t op_begin, op_count;
} SimCta;

/* Load-dependent reductions (docs/profile.md): the reductions share one queue. A REDUCE op of duration d
 * (its time alone) issues its bytes for issue = d * issue_ppm / 1e6 ns from its start, then waits for
 * the queue to drain what it issued, then spends the rest of d (its latency: a shift that staggered runs
 * cannot place, so it comes last). The queue is a fluid FIFO: while n reductions issue, its backlog grows at n - capacity issuers'
 * worth per ns (capacity = capacity_milli / 1000; 0: no queue), never below 0, so a reduction's wait is
 * the backlog at its issue end over the capacity: the ones that issued first wait for each other, and a
 * reduction that issues after the others have drained waits little (the early/late asymmetry measured in
 * traces/calib-reduce-staggered). On top, extra_ns(n): the time a reduction that issues with n issuing throughout takes
 * beyond its time alone and the queue's wait (the measured curve's rise below the queue's knee),
 * averaged over its issue window. Alone (n 1, no backlog, extra 0) a reduction takes exactly d: the
 * fixed-duration engine is the special case. The hand-off of a row (an ACCUM edge between different
 * units) gets handoff_extra(k) ns more, k = reductions still in flight at the release. Tables are indexed
 * by k (entry 0 unused); a k past the end uses the last entry. */
typedef struct {
    int32_t *extra_ns;          /* extra(n), ns; owned */
    int32_t extra_len;
    int32_t *handoff_extra_ns;  /* handoff_extra(k), ns; owned; may be NULL */
    int32_t handoff_len;
    int32_t issue_ppm;          /* share of a reduction's time alone spent issuing, 1..1000000 */
    int32_t capacity_milli;     /* reductions issuing at once that the queue drains without a backlog, x1000 */
} SimLoadModel;

/* Optional: a unit's COMPUTE op on engine 0 takes penalty_ns longer when one of the unit's REDUCE ops on a
 * store engine (any engine but 0) starts from before_ns before its start to after_ns after it (measured on
 * gpu/bwd: the store engine's read of the staging buffer slows the compute's first phase; docs/profile.md).
 * penalty_ns 0: none.
 * Each compute pays it at most once. */
typedef struct {
    int32_t penalty_ns, before_ns, after_ns;
    int32_t write_extra_ns;     /* an op on a store engine that overlaps the unit's WRITE op on engine 0 takes this
                                 * much more, once (the epilogue's stores hold up the store engine's
                                 * completion and release); 0: none */
    int32_t is_write_extra_at_start; /* 1: only a reduction that starts inside the WRITE pays, once (the Hopper
                                 * kernel: docs/profile.md); 0: every store-engine op overlapping it, whichever
                                 * starts first (mma.sync) */
    int32_t write_slope_ns;     /* a WRITE op on engine 0 takes this much more per other unit's WRITE in flight
                                 * at its start (the dK/dV writes of a wave share the memory system:
                                 * docs/profile.md); 0: none */
    int32_t write_extra_slope_ns; /* with is_write_extra_at_start: a reduction that starts inside the WRITE pays this
                                 * much more per other unit's WRITE in flight at its start, beside write_extra_ns
                                 * (docs/profile.md, "The write extra and the writes in flight"); 0: none */
    int32_t write_extra_window_ns; /* with is_write_extra_at_start, > 0: a reduction that starts this long or more
                                 * into the WRITE pays write_extra_late_ns instead of write_extra_ns (the write's
                                 * first part holds the store engine up, its rest hardly: docs/profile.md, "The
                                 * write extra by the time into the write"); 0: one extra */
    int32_t write_extra_late_ns;
} SimOverlapRule;

/* Whether r has any interference rule (the engines' run-ahead and the search's plain walk need none). */
static inline bool sim_overlap_has_rules(const SimOverlapRule *r)
{
    return r->penalty_ns > 0 || r->write_extra_ns > 0 || r->write_slope_ns > 0 || r->write_extra_slope_ns > 0 ||
           (r->write_extra_window_ns > 0 && r->write_extra_late_ns > 0);
}

/* Optional: a REDUCE op whose start was set by an incoming ACCUM edge (it waited for its turn: the previous
 * reduction of its row had just been released) takes read_delta_ns more, and the op right after it (same
 * task, same engine: its completion) tail_delta_ns more; deltas may be negative, durations stay >= 0. Measured
 * on gpu/bwd (docs/profile.md). Not applied to reductions under a load model. Both deltas 0: none. With
 * jitter_ns > 0 (the turn's jitter, one standard deviation), a reduction whose turn came less than jitter_ns
 * before the rest of it was ready counts as waited too, and it starts at the later of the two but takes, as more
 * time, the expected wait beyond that for its turn jittered by a normal (Clark's expected maximum): its start stays
 * the DAG's earliest (docs/profile.md, "The jitter around a turn"). */
typedef struct {
    int32_t read_delta_ns, tail_delta_ns, jitter_ns;
    int32_t slope_milli_ns, k_ref; /* with slope_milli_ns != 0, a waited reduction's read takes slope_milli_ns / 1000
                                    * ns more for each other reduction in flight (a store-engine op running) at its
                                    * release beyond k_ref, less below it (the waited chain step grows with the
                                    * reductions in flight: docs/profile.md, "The waited step and the load") */
} SimWaitedReduce;

/* Offsets of a CSR adjacency (entry v: the first of op v's edges; entry op_count: the end), in 1.125 bytes
 * an op where every block of 32 ops has at most 255 edges: base[v / 32] + rel[v]; else in full. */
typedef struct {
    int32_t *full;              /* op_count + 1 entries, or NULL */
    int32_t *base;              /* op_count / 32 + 1 entries */
    uint8_t *rel;               /* op_count + 1 entries */
} SimOffsets;

/* Fields are read-only for everyone but the builder functions below; ops and edges are read through the
 * inline functions below them. Ops and edges are stored as one array per field, each as narrow as its
 * values allow (about 6 bytes an op, 10 with its task, and 9 an edge): the engine and the analysis keep
 * them all, and at a million tasks the program is most of their memory. */
typedef struct {
    int32_t n_units, engines_per_unit;
    SimCta *ctas;
    int32_t cta_count;
    int64_t op_count;
    int32_t *op_cta_base;       /* owning CTA: op_cta_base[op / 256] + op_cta_delta[op] (every CTA has ops, so
                                 * 256 ops span at most 256 CTAs) */
    uint8_t *op_cta_delta;
    int32_t *op_task;           /* index of the plan task (attention) or block (pipeline), -1 none; NULL once
                                 * dropped (sim_program_drop_tasks) */
    bool is_taskless;           /* tasks dropped: op_task stays NULL as ops are added */
    int32_t *op_duration_ns;    /* while every duration is below 2^31 ns; else NULL and: */
    int64_t *op_duration_wide_ns;   /* below SIM_OP_MAX_DURATION_NS */
    uint8_t *op_kind;           /* SimOpKind */
    uint8_t *op_engine;         /* engine within its unit; NULL with one engine per unit (all 0) */
    int64_t edge_count;
    int32_t *edge_from, *edge_to;   /* 'to' may start latency after 'from' ends */
    uint8_t *edge_kind;         /* SimEdgeKind */
    int32_t *edge_latency_ns;   /* applies only between different units; NULL while every edge of a kind has
                                 * the same latency, kind_latency_ns[kind] */
    int32_t kind_latency_ns[SIM_EDGE_KIND_COUNT];
    uint8_t has_kind_latency;   /* bit k: an edge of kind k was added (kind_latency_ns[k] is set) */
    int32_t *unit_latency_ns;   /* optional n_units x n_units matrix replacing ACCUM edges' latency; owned */
    SimLoadModel *load;         /* optional load-dependent reductions (NULL: fixed durations); owned */
    SimOverlapRule overlap;     /* compute slowed by the unit's own reduction starting near its start */
    SimWaitedReduce waited;     /* a reduction that waited for its turn takes other times */
    /* After seal, 32-bit (seal checks op_count and edge_count < 2^31), read through the functions below: */
    SimOffsets first_in;        /* CSR of incoming edges, edge ids sorted by 'to' (then by id) */
    int32_t *in_edge;           /* NULL where the edges were added in order of 'to': in_edge[k] = k */
    SimOffsets first_out;       /* CSR of outgoing edges (edge ids ascending per op) */
    int32_t *out_edge;          /* NULL where the edges were added in order of 'from': out_edge[k] = k */
    /* With several engines per unit (read through the two functions below); NULL with one: */
    int32_t *next_on_engine;    /* next op of the same CTA on the same engine, or -1 */
    bool *is_first_on_engine;   /* op has no earlier op of its CTA on its engine */
    int64_t op_capacity, edge_capacity;
    int32_t cta_capacity;
} SimProgram;

SimProgram *sim_program_new(int32_t n_units, int32_t engines_per_unit);
void sim_program_free(SimProgram *p);
/* Reserves room for this many ops and edges (avoids regrowth when the sizes are known). */
void sim_program_reserve(SimProgram *p, int64_t ops, int64_t edges);
/* Faults in the pages of the reserved arrays, for a reserve that will be filled whole (prefault.h). */
void sim_program_prefault(SimProgram *p);
/* Opens a new CTA; ops added afterwards belong to it. Returns its id (= its launch position). */
int32_t sim_program_add_cta(SimProgram *p, int32_t pinned_unit);
/* Adds an op to the last CTA; returns its id. Inline, as attention programs add a million ops a second: the
 * arrays' growth and wide durations in sim_program_add_op_grown. Ops are added in order, so a block's first
 * op sets its base; the CTAs a block spans are at most 256 where every CTA has ops, as the engines require
 * (asserted, engine_ordered.c). */
int64_t sim_program_add_op_grown(SimProgram *p, int engine, SimOpKind kind, int64_t duration_ns, int32_t task);
static inline int64_t sim_program_add_op(SimProgram *p, int engine, SimOpKind kind, int64_t duration_ns, int32_t task)
{
    int32_t *durations = p->op_duration_ns;
    if (p->op_count == p->op_capacity || !durations || duration_ns < 0 || duration_ns > INT32_MAX || engine < 0 ||
        engine >= p->engines_per_unit || p->cta_count <= 0)
        return sim_program_add_op_grown(p, engine, kind, duration_ns, task); /* asserts the last three */
    int64_t op = p->op_count++;
    /* the fields read before the byte stores below, which may alias any of them */
    int32_t cta = p->cta_count - 1, *base = &p->op_cta_base[op >> 8], *tasks = p->op_task;
    uint8_t *engines = p->op_engine, *deltas = p->op_cta_delta, *kinds = p->op_kind;
    p->ctas[cta].op_count++;
    if ((op & 255) == 0)
        *base = cta;
    if (tasks)
        tasks[op] = task;
    durations[op] = (int32_t)duration_ns;
    if (cta - *base > UINT8_MAX) /* no 255 empty CTAs among 256 ops */
        abort();
    deltas[op] = (uint8_t)(cta - *base);
    kinds[op] = (uint8_t)kind;
    if (engines)
        engines[op] = (uint8_t)engine;
    return op;
}
/* Adds an edge; inline in its common case (room left, a kind whose latency is already the kind's, no
 * latency per edge), else sim_program_add_edge_grown. */
void sim_program_add_edge_grown(SimProgram *p, int64_t from, int64_t to, int32_t latency_ns, SimEdgeKind kind);
static inline void sim_program_add_edge(SimProgram *p, int64_t from, int64_t to, int32_t latency_ns, SimEdgeKind kind)
{
    int64_t e = p->edge_count;
    if (e == p->edge_capacity || p->edge_latency_ns || from < 0 || to < 0 || from > INT32_MAX || to > INT32_MAX ||
        (unsigned)kind >= SIM_EDGE_KIND_COUNT || !(p->has_kind_latency >> kind & 1) ||
        latency_ns != p->kind_latency_ns[kind]) {
        sim_program_add_edge_grown(p, from, to, latency_ns, kind);
        return;
    }
    int32_t *froms = p->edge_from, *tos = p->edge_to; /* read before the byte store */
    p->edge_count = e + 1;
    froms[e] = (int32_t)from, tos[e] = (int32_t)to;
    p->edge_kind[e] = (uint8_t)kind;
}
/* Builds the adjacency. O(ops + edges). Call once, after the last add. Ops and edges must stay below
 * 2^31 (asserted; callers size-check first: sim_job_check_size). */
void sim_program_seal(SimProgram *p);
/* Drops the ops' tasks (op_task, 4 bytes an op) where no output will label the ops: after the engine, whose
 * waited-reduction rule reads them, or before the first op where no such rule applies (then no task is
 * kept as ops are added); the analysis never reads them. sim_op_task may not be called after. */
void sim_program_drop_tasks(SimProgram *p);
/* Sets op's duration after it was added (duration_ns below SIM_OP_MAX_DURATION_NS). */
void sim_program_set_duration(SimProgram *p, int64_t op, int64_t duration_ns);

/* The fields of op and of edge e. */
static inline int32_t sim_op_cta(const SimProgram *p, int64_t op)
{
    return p->op_cta_base[op >> 8] + p->op_cta_delta[op];
}
static inline int32_t sim_op_task(const SimProgram *p, int64_t op)
{
    return p->op_task[op];
}
static inline int64_t sim_op_duration_ns(const SimProgram *p, int64_t op)
{
    return p->op_duration_ns ? p->op_duration_ns[op] : p->op_duration_wide_ns[op];
}
static inline SimOpKind sim_op_kind(const SimProgram *p, int64_t op)
{
    return (SimOpKind)p->op_kind[op];
}
static inline int sim_op_engine(const SimProgram *p, int64_t op)
{
    return p->op_engine ? p->op_engine[op] : 0;
}
static inline int64_t sim_edge_from(const SimProgram *p, int64_t e)
{
    return p->edge_from[e];
}
static inline int64_t sim_edge_to(const SimProgram *p, int64_t e)
{
    return p->edge_to[e];
}
static inline SimEdgeKind sim_edge_kind(const SimProgram *p, int64_t e)
{
    return (SimEdgeKind)p->edge_kind[e];
}
/* The edge's own latency (between different units; sim_program_edge_latency applies the matrix). */
static inline int32_t sim_edge_latency_ns(const SimProgram *p, int64_t e)
{
    return p->edge_latency_ns ? p->edge_latency_ns[e] : p->kind_latency_ns[p->edge_kind[e]];
}

/* The adjacency, after seal: op v's incoming edges are in_edge(k) for k from in_begin(v) to in_end(v)
 * (= in_begin(v + 1)), likewise outgoing. */
static inline int64_t sim_offsets_at(const SimOffsets *o, int64_t v)
{
    return o->full ? o->full[v] : (int64_t)o->base[v >> 5] + o->rel[v];
}
static inline int64_t sim_program_in_begin(const SimProgram *p, int64_t v)
{
    return sim_offsets_at(&p->first_in, v);
}
static inline int64_t sim_program_in_end(const SimProgram *p, int64_t v)
{
    return sim_offsets_at(&p->first_in, v + 1);
}
static inline int64_t sim_program_in_edge(const SimProgram *p, int64_t k)
{
    return p->in_edge ? p->in_edge[k] : k;
}
static inline int64_t sim_program_out_begin(const SimProgram *p, int64_t v)
{
    return sim_offsets_at(&p->first_out, v);
}
static inline int64_t sim_program_out_end(const SimProgram *p, int64_t v)
{
    return sim_offsets_at(&p->first_out, v + 1);
}
static inline int64_t sim_program_out_edge(const SimProgram *p, int64_t k)
{
    return p->out_edge ? p->out_edge[k] : k;
}

/* Program order on an engine, after seal: the next op of op's CTA on op's engine (-1: none), and whether
 * op is its CTA's first on its engine. With one engine per unit, that is the CTA's next op and its first.
 * The _in forms take op's CTA where the caller knows it. */
static inline int64_t sim_program_next_on_engine_in(const SimProgram *p, int64_t op, int32_t cta)
{
    if (p->next_on_engine)
        return p->next_on_engine[op];
    return op + 1 < p->ctas[cta].op_begin + p->ctas[cta].op_count ? op + 1 : -1;
}
static inline bool sim_program_is_first_on_engine_in(const SimProgram *p, int64_t op, int32_t cta)
{
    return p->is_first_on_engine ? p->is_first_on_engine[op] : op == p->ctas[cta].op_begin;
}
static inline int64_t sim_program_next_on_engine(const SimProgram *p, int64_t op)
{
    return sim_program_next_on_engine_in(p, op, sim_op_cta(p, op));
}
static inline bool sim_program_is_first_on_engine(const SimProgram *p, int64_t op)
{
    return sim_program_is_first_on_engine_in(p, op, sim_op_cta(p, op));
}
/* Latency of edge e when its ends run on units u_from and u_to. */
int64_t sim_program_edge_latency(const SimProgram *p, int64_t e, int32_t u_from, int32_t u_to);
/* Whether every edge runs from a lower op to a higher one. Then CTA order (each CTA's dispatch, then its ops) is a
 * topological order of the program: ops run up within a CTA, and a dispatch waits only on earlier CTAs (the previous
 * one on its unit, the previous one launched). The engine's plain path and the analysis's backward pass use it. */
bool sim_program_is_edge_order_forward(const SimProgram *p);
/* How many ops last (a duration above 0): the slices a trace draws. O(ops), in a loop that vectorizes. */
int64_t sim_program_lasting_ops(const SimProgram *p);

/* Gives the program a copy of a load model (its tables, each len + 1 entries indexed by k). */
void sim_program_set_load(SimProgram *p, const SimLoadModel *load);

const char *sim_op_kind_name(SimOpKind kind);
const char *sim_edge_kind_name(SimEdgeKind kind);

#endif

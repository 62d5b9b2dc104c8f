/* Engine-level program: what the event engine runs and the DAG analyzer reads. Units (SMs, AI cores)
 * have a few engines each (compute / store, or Cube / Vector); a CTA is an ordered list of ops that runs
 * on one unit; edges add cross-op dependencies with a latency that applies only between different units.
 * Invariant after sim_program_seal: ops of one CTA are contiguous, edges refer to existing ops, and on
 * each engine the ops of a CTA run in the order they were added (implicit program-order edges). */
#ifndef SIM_PROGRAM_H
#define SIM_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

/* WRITE: a tile's epilogue write from the compute engine (attention: dK/dV at the end of a KV-tile run) */
typedef enum { SIM_OP_COMPUTE, SIM_OP_REDUCE, SIM_OP_VECTOR, SIM_OP_SYNC, SIM_OP_WRITE, SIM_OP_KIND_COUNT } SimOpKind;
typedef enum {
    SIM_EDGE_PHASE,    /* within a task: compute -> its reduction */
    SIM_EDGE_ACCUM,    /* dQ accumulation order: previous reduction of the row -> this one */
    SIM_EDGE_BUFFER,   /* staging buffer / workspace ring: the reader freed a slot -> the next writer */
    SIM_EDGE_DATA,     /* pipeline data dependency */
    SIM_EDGE_KIND_COUNT
} SimEdgeKind;

/* 16 bytes: the engine's hot record (a million-op program keeps 16 MB of these). */
typedef struct {
    int32_t cta;                /* owning CTA */
    int32_t task;               /* index of the plan task (attention) or block (pipeline); -1 none */
    int64_t duration_ns : 48;   /* below SIM_OP_MAX_DURATION_NS */
    uint64_t engine : 8;        /* engine within its unit, 0..engines_per_unit-1 */
    uint64_t kind : 8;          /* SimOpKind */
} SimOp;

#define SIM_OP_MAX_DURATION_NS (1LL << 46) /* about 19.5 hours; inputs are bounded far below */
#define SIM_LATENCY_MAX_NS 1000000000      /* an edge latency: one second; anything above is not a signal
                                            * latency (latency matrices, plans and fitted hand-offs are checked) */

typedef struct {
    int32_t from, to;    /* 'to' may start latency after 'from' ends */
    int32_t latency_ns;  /* applies only when the two ops run on different units */
    uint8_t kind;        /* SimEdgeKind */
} SimEdge;

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
 * traces/calib6). On top, extra_ns(n): the time a reduction that issues with n issuing throughout takes
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

/* Optional: a unit's COMPUTE op on engine 0 takes penalty_ns longer when one of the unit's REDUCE ops on
 * engine 1 starts from before_ns before its start to after_ns after it (measured on gpu/bwd: the store
 * engine's read of the staging buffer slows the compute's first phase; docs/profile.md). penalty_ns 0: none.
 * Each compute pays it at most once. */
typedef struct {
    int32_t penalty_ns, before_ns, after_ns;
    int32_t write_extra_ns;     /* an op on engine 1 that overlaps the unit's WRITE op on engine 0 takes this
                                 * much more, once (the epilogue's stores hold up the store engine's
                                 * completion and release); 0: none */
} SimOverlapRule;

/* Optional: a REDUCE op whose start was set by an incoming ACCUM edge (it waited for its turn: the previous
 * reduction of its row had just been released) takes read_delta_ns more, and the op right after it (same
 * task, same engine: its completion) tail_delta_ns more; deltas may be negative, durations stay >= 0. Measured
 * on gpu/bwd (docs/profile.md). Not applied to reductions under a load model. Both 0: none. */
typedef struct {
    int32_t read_delta_ns, tail_delta_ns;
} SimWaitedReduce;

/* Fields are read-only for everyone but the builder functions below. */
typedef struct {
    int32_t n_units, engines_per_unit;
    SimCta *ctas;
    int32_t cta_count;
    SimOp *ops;
    int64_t op_count;
    SimEdge *edges;
    int64_t edge_count;
    int32_t *unit_latency_ns;   /* optional n_units x n_units matrix replacing ACCUM edges' latency; owned */
    SimLoadModel *load;         /* optional load-dependent reductions (NULL: fixed durations); owned */
    SimOverlapRule overlap;     /* compute slowed by the unit's own reduction starting near its start */
    SimWaitedReduce waited;     /* a reduction that waited for its turn takes other times */
    /* After seal, 32-bit (seal checks op_count and edge_count < 2^31): */
    int32_t *first_in;          /* CSR of incoming edges, edge ids sorted by 'to' (then by id) */
    int32_t *in_edge;
    int32_t *first_out;         /* CSR of outgoing edges (edge ids ascending per op) */
    int32_t *out_edge;
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
/* Opens a new CTA; ops added afterwards belong to it. Returns its id (= its launch position). */
int32_t sim_program_add_cta(SimProgram *p, int32_t pinned_unit);
int64_t sim_program_add_op(SimProgram *p, int engine, SimOpKind kind, int64_t duration_ns, int32_t task);
void sim_program_add_edge(SimProgram *p, int64_t from, int64_t to, int32_t latency_ns, SimEdgeKind kind);
/* Builds the adjacency. O(ops + edges). Call once, after the last add. Ops and edges must stay below
 * 2^31 (asserted; callers size-check first: sim_job_check_size). */
void sim_program_seal(SimProgram *p);
/* Program order on an engine, after seal: the next op of op's CTA on op's engine (-1: none), and whether
 * op is its CTA's first on its engine. With one engine per unit, that is the CTA's next op and its first. */
static inline int64_t sim_program_next_on_engine(const SimProgram *p, int64_t op)
{
    if (p->next_on_engine)
        return p->next_on_engine[op];
    const SimCta *cta = &p->ctas[p->ops[op].cta];
    return op + 1 < cta->op_begin + cta->op_count ? op + 1 : -1;
}
static inline bool sim_program_is_first_on_engine(const SimProgram *p, int64_t op)
{
    return p->is_first_on_engine ? p->is_first_on_engine[op] : op == p->ctas[p->ops[op].cta].op_begin;
}
/* Latency of edge e when its ends run on units u_from and u_to. */
int64_t sim_program_edge_latency(const SimProgram *p, int64_t e, int32_t u_from, int32_t u_to);

/* Gives the program a copy of a load model (its tables, each len + 1 entries indexed by k). */
void sim_program_set_load(SimProgram *p, const SimLoadModel *load);

const char *sim_op_kind_name(SimOpKind kind);
const char *sim_edge_kind_name(SimEdgeKind kind);

#endif

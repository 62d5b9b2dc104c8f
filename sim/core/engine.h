/* The discrete-event engine: runs a sealed SimProgram in integer nanoseconds.
 * With a load model (program.h), reductions share one resource by processor sharing (a virtual clock per
 * reduction: exact in integer arithmetic, still deterministic), and their realised durations and
 * hand-off latencies are in the schedule, so the DAG of the realised schedule still explains the makespan.
 * Units run one CTA at a time; CTAs are dispatched in CTA order to the lowest-numbered free unit, or run
 * on their pinned unit in CTA order; an op starts as soon as its program-order predecessor, its CTA's
 * dispatch and all its incoming edges (plus their latency) allow. Events are popped in (time, sequence)
 * order (event_queue.h), so equal times fire in the order they were scheduled: same inputs, same schedule.
 * Where that order is known beforehand (engine_ordered.h: fixed durations, and the CTAs' units known or
 * every edge forward), the schedule is computed without events. */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include "program.h"
#include "status.h"

/* SimSchedule.start_by: the previous op on the op's engine; its CTA's dispatch (it is its CTA's first op on
 * its engine); its in-edge j in the adjacency's order (program.h), SIM_START_BY_EDGE + j for j below
 * SIM_START_BY_EDGE_FAR - SIM_START_BY_EDGE, else SIM_START_BY_EDGE_FAR (a later in-edge: search them). The
 * order of preference among ties is the edge-id order of dag/'s graph (analyze.c): program order, program
 * edges, dispatch. */
enum { SIM_START_BY_ENGINE = 0, SIM_START_BY_DISPATCH = 1, SIM_START_BY_EDGE = 2, SIM_START_BY_EDGE_FAR = 255 };

/* The realized schedule. Caller-owned: sim_schedule_clear frees the arrays. */
typedef struct {
    int64_t *start_ns;            /* per op */
    int64_t *end_ns;              /* per op; NULL where every op took its program duration (the fast path, the
                                   * event engine without a load model or rule): read through
                                   * sim_schedule_end_ns */
    int32_t *cta_unit;            /* per CTA: where it ran */
    int64_t *cta_dispatch_ns;     /* per CTA: when it was placed on its unit */
    int64_t *cta_end_ns;          /* per CTA: when its last op ended (its unit is free again) */
    int64_t makespan_ns;          /* latest op end */
    int32_t *handoff_extra_ns;    /* with a load model: per op, the extra latency its cross-unit ACCUM edges
                                   * got at its release (sim_engine_edge_latency); else NULL */
    uint8_t *start_by;            /* per op, or NULL: which predecessor set its start (SIM_START_BY_*), the
                                   * first in the DAG's edge-id order among those that meet it, recorded as
                                   * each op starts where the analysis may take it as is (every start the
                                   * earliest, CTA order topological and each unit's order): the fast path in
                                   * CTA order, and the event engine's plain path with every edge forward and
                                   * CTAs all pinned or none; else NULL (the analysis makes its forward pass) */
    int32_t *order;               /* op_count + cta_count entries: ops in completion order, with CTA c's
                                   * dispatch as op_count + c where it happened; a topological order of the
                                   * realised DAG (sim/model/attention/analyze.h), so its analysis needs no sort.
                                   * NULL where every program edge runs forward and end_ns is NULL: CTA order
                                   * (each dispatch, then its ops) is topological then */
} SimSchedule;

/* Runs p. A plan that can never finish (a CTA waits on one that cannot be placed, or a dependency cycle)
 * is reported as SIM_ERR_SCHEDULE with a sentence naming a stuck CTA. Through the fast path where it
 * applies (O(ops + edges), 9 bytes per op besides the program: no ends), else the event engine: O(ops + edges)
 * with the calendar queue, O((ops + edges) log(in flight)) with the heap (running ahead: O(ops + edges + CTAs
 * log(units))). The event engine keeps 8 bytes per op (starts) plus 1 while it runs, and 1 for start_by where
 * every edge runs forward or 4 for the completion order where one runs backward; with a load model or a rule
 * (program.h), or an op of 255 or more predecessors, 20 bytes per op (ends and the order too), and 5 an edge
 * while it runs where out_edge is set (the out-edges' targets and kinds in adjacency order). */
SimStatus sim_engine_run(const SimProgram *p, SimSchedule *out, SimError *err);
/* The event engine alone, never the fast path: the same schedule, for tests and comparisons. */
SimStatus sim_engine_run_events(const SimProgram *p, SimSchedule *out, SimError *err);
void sim_schedule_clear(SimSchedule *s);
/* When op ended in s, a schedule of p. */
static inline int64_t sim_schedule_end_ns(const SimProgram *p, const SimSchedule *s, int64_t op)
{
    return s->end_ns ? s->end_ns[op] : s->start_ns[op] + sim_op_duration_ns(p, op);
}
/* The latency edge e had in schedule s: the program's latency between the two units plus, with a load
 * model, the hand-off growth at its source's release. */
int64_t sim_engine_edge_latency(const SimProgram *p, const SimSchedule *s, int64_t e);

#endif

/* The engine's fast path: with fixed durations an op starts at the latest of its predecessors' ends, so
 * only the placement of CTAs depends on the order of events, and that order is known where every CTA's
 * unit is (all pinned, or no more CTAs than units: any dependency order gives the schedule, a worklist),
 * or where CTAs are dispatched and every edge runs forward (CTA by CTA, each to the unit that frees first,
 * the lowest among equal times). Invariant: the event engine's schedule op for op (test_engine_paths.c). */
#ifndef SIM_ENGINE_ORDERED_H
#define SIM_ENGINE_ORDERED_H

#include <stdbool.h>

#include "engine.h"

/* Runs p as sim_engine_run would, if the fast path applies: no load model, no interference or
 * waited-reduction rule (program.h), and the CTAs' units known
 * beforehand or all CTAs dispatched with every edge forward; a dispatched CTA ending the instant it starts
 * (its ops all of zero length) or a dependency cycle also turn it down. Returns false, with *out as it was (zeroed), where it
 * does not apply. With forward edges out->order is NULL: CTA order is then a topological order of the
 * realised DAG (sim/model/attention/analyze.h reads it so), and out->start_by says what set each op's
 * start (engine.h); else out->order is the completion order of the worklist, and start_by is NULL.
 * O(ops + edges) (dispatched CTAs: plus log(units) per CTA); no memory beyond the schedule's but per CTA
 * and per unit. */
bool sim_engine_ordered_run(const SimProgram *p, SimSchedule *out);

#endif

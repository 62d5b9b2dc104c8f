/* The realised DAG of analyze.c solved in a topological order (CTA order where every program edge runs
 * forward, else the engine's completion order, SimSchedule.order): the same recurrences as dag/ (earliest
 * start, chain depth, slack 0, the lowest-id binding in-edge walk), over the program's own adjacency and
 * the implicit dispatch nodes, with no graph copy, sort or lock. Internal to sim/model (analyze.c is its
 * one caller). */
#ifndef SIM_ANALYZE_ORDER_H
#define SIM_ANALYZE_ORDER_H

#include "analyze.h"

/* Fills critical_path_ns, lemma1_violations, breakdown_ns (all but BREAK_WAIT) and, if has_critical,
 * is_critical. False (out untouched) if the order used is not a topological order of the DAG (or is
 * needed and s->order is NULL) or a start is not the earliest one, e.g. a schedule the engine did not make; the caller then solves the built
 * graph. With s->start_by (the fast path's record, engine.h) s is taken as the engine's own: no forward
 * pass, always true. O(ops + edges + CTAs). */
bool sim_analyze_order(const SimProgram *p, const SimSchedule *s, bool has_critical, SimAnalysis *out);

#endif

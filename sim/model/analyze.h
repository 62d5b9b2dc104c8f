/* Analysis of a realized schedule: the DAG of its phases (program-order, phase, accumulation, buffer,
 * dispatch and launch-order edges; weights = durations and realized latencies), its critical path, the
 * Lemma 1 count, busy time and where the critical path's time goes. Invariant (tested for every policy):
 * for a schedule produced by the engine, critical_path_ns == makespan_ns. */
#ifndef SIM_ANALYZE_H
#define SIM_ANALYZE_H

#include <stdio.h>

#include "engine.h"
#include "status.h"

typedef enum { BREAK_COMPUTE, BREAK_REDUCE, BREAK_VECTOR, BREAK_WAIT, BREAK_LATENCY, BREAK_COUNT } BreakdownPart;

typedef struct {
    int64_t makespan_ns;
    int64_t critical_path_ns;        /* longest path of the realized DAG */
    int64_t lemma1_violations;       /* accumulation edges (u, v) with depth(u) >= depth(v) */
    int64_t busy_ns;                 /* sum over units of the time some engine of the unit is busy */
    int64_t bubble_ns;               /* n_units * makespan - busy */
    double busy_fraction;
    int64_t breakdown_ns[BREAK_COUNT]; /* of the critical path; wait = makespan - critical path */
    uint8_t *is_critical;            /* per op: slack 0 (on some critical path); owned, free with clear */
} SimAnalysis;

/* Builds and solves the DAG of s. If dot is not NULL, writes the graph there as Graphviz DOT.
 * O((ops + edges) log) time, about 150 bytes per op. */
SimStatus sim_analyze(const SimProgram *p, const SimSchedule *s, SimAnalysis *out, FILE *dot, SimError *err);
void sim_analysis_clear(SimAnalysis *a);

#endif

/* Analysis of a realized schedule: the DAG of its phases (program-order, phase, accumulation, buffer,
 * dispatch and launch-order edges; weights = durations and realized latencies), its critical path, the
 * Lemma 1 count, busy time and where the critical path's time goes. Invariant (tested for every policy):
 * for a schedule produced by the engine, critical_path_ns == makespan_ns. */
#ifndef SIM_ANALYZE_H
#define SIM_ANALYZE_H

#include <stdio.h>

#include "engine.h"
#include "status.h"

/* How much of the analysis to compute. FULL (the zero value, so zero-initialised requests get it): all of
 * SimAnalysis. SUMMARY: all but is_critical (left NULL). NONE: the engine's figures only (makespan_ns;
 * the rest 0). */
typedef enum { SIM_ANALYSIS_FULL, SIM_ANALYSIS_SUMMARY, SIM_ANALYSIS_NONE } SimAnalysisLevel;

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

/* Where the analysis writes the realized DAG as Graphviz DOT, and how an op's node is named: label writes at
 * most len bytes into buf (NULL: "<kind> task T CTA C"); a dispatch node is "dispatch CTA C". */
typedef struct {
    FILE *f;
    void (*label)(void *ctx, int64_t op, char *buf, size_t len);
    void *ctx;
} SimDotSpec;

/* Solves the DAG of s (sim_analyze_level with SIM_ANALYSIS_FULL). */
SimStatus sim_analyze(const SimProgram *p, const SimSchedule *s, SimAnalysis *out, const SimDotSpec *dot,
                      SimError *err);
/* Solves the DAG of s at the given level. In CTA order where every program edge runs forward, else in the
 * engine's completion order (s->order), and with no dot, the DAG is never built: O(ops + edges) in that
 * order, 5 bytes per op and CTA (after the fast path, which recorded what set each start: 1, or 0 without
 * is_critical, plus 4 where the chain depths have no closed form), no lock (safe from several
 * threads). If dot is not NULL, builds the graph through dag/ (about 150 bytes per op, igraph's topological
 * sort under its global lock) and writes it to dot->f as Graphviz DOT, headed by a comment naming the
 * dashsim version; the figures are the same either way. */
SimStatus sim_analyze_level(const SimProgram *p, const SimSchedule *s, SimAnalysisLevel level, SimAnalysis *out,
                            const SimDotSpec *dot, SimError *err);
void sim_analysis_clear(SimAnalysis *a);

#endif

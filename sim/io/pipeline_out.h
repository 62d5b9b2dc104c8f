/* Outputs of `sim pipeline`: the text summary, --explain, the one-line JSON object, the renderers (Chrome
 * trace with CUBE/VECTOR tracks, CSV, Gantt) and the three reports' tables. Writers only: every number
 * comes from sim/model/pipeline/pipeline.h. Invariant: the same request and job give the same bytes. */
#ifndef SIM_PIPELINE_OUT_H
#define SIM_PIPELINE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "pipeline.h"
#include "status.h"

/* The summary (policy line, Cycle, min Preload count, steady Cycle, makespan, busy). O(1). */
void sim_pipeline_write_summary(FILE *f, const PipeRequest *rq, const PipeJob *job);
/* Theorem B.1's rotation (a_i, prefix sums, k) and, when computed, the brute force's witness. O(n). */
void sim_pipeline_write_explain(FILE *f, const PipeRequest *rq, const PipeJob *job);
/* One JSON object and a newline; with is_explain an "explain" member. O(n). */
void sim_pipeline_write_json(FILE *f, const PipeRequest *rq, const PipeJob *job, bool is_explain);
/* Writes each output whose path is not NULL (atomically, see output.h); on an error none of them is left.
 * Not for a deadlocked job. SIM_ERR_IO / SIM_ERR_LIMIT with a sentence. O(ops + edges). */
SimStatus sim_pipeline_render(const PipeRequest *rq, const PipeJob *job, const char *trace_path,
                              const char *csv_path, const char *gantt_path, SimError *err);

void sim_pipeline_write_amla_report(FILE *f, const PipeAscendModel *m, const PipeAmlaRow *rows);
void sim_pipeline_write_vfa_report(FILE *f, const PipeVfaRow *rows);
void sim_pipeline_write_theorem_report(FILE *f, uint32_t seed, const PipeTheoremRow *rows);

#endif

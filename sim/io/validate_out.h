/* `sim validate --json`'s report, written for the CLI and the library's dashsim_validate_json alike
 * (sim/io/validate_out.c): every trace's check, every kernel-runs file's runs, the rankings, the summary by
 * model and mode, the hand-offs by load, and the verdict. */
#ifndef SIM_VALIDATE_OUT_H
#define SIM_VALIDATE_OUT_H

#include <stdio.h>

#include "kernel_runs.h"
#include "trace.h"
#include "validate.h"
#include "validate_report.h"
#include "validate_runs.h"

/* One kernel-runs file as validated (gpu/bwd/shapes.py's timed runs). Owned by whoever filled it. */
typedef struct {
    char *path;
    KernelRuns *runs;
    RunCheck *checks;           /* one per run */
    RunsReport rep;
    bool is_checked;            /* sim_validate_runs succeeded: the runs and the summary are the file's */
    bool is_pass;               /* every run predicted, within the tolerances, the decisive picks right */
} ValidateRunsFile;

/* The verdict on the model under test (the profile's prediction with --predict, else the fit). */
typedef struct {
    const char *profile_path;   /* the hardware profile predicting, NULL: none */
    char *const *profiles;      /* several: each executor trace's GPU's own (NULL-terminated, borrowed), else NULL */
    bool is_predict;
    double worst, worst_speedup_pp; /* max |makespan error| (a fraction), max |speedup error| (pp) */
    int missed;                 /* --predict: traces nothing predicted */
    bool is_pass;               /* within tolerance and no regression against a baseline */
} ValidateVerdict;

/* The report as one JSON object and a newline. With traces (count > 0): "traces", "kernel_runs" (when
 * file_count > 0), "profile", the report r's "groups", "summary", "handoff_by_load", then the verdict v; with
 * runs files alone: "kernel_runs" (r and v unused). O(traces + runs). */
void sim_validate_write_json(FILE *f, const Trace *const *traces, const TraceCheck *checks, int count,
                             const ValidateRunsFile *files, int file_count, const ValidateReport *r,
                             const ValidateVerdict *v);
/* The text names of the models and modes of ValidateReport (sim/model/validate/validate_report.h). */
extern const char *const sim_validate_model_names[VMODEL_COUNT];
extern const char *const sim_validate_mode_names[VMODE_COUNT];

#endif

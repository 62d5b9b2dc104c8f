/* `sim validate`'s work as one library call, for the command and dashsim_validate_json alike: the traces and
 * kernel-runs files found under the paths given, each trace read (all held at once, within the memory cap)
 * and checked on a thread pool as soon as it is read, each runs file predicted, the report, a baseline's
 * regressions and the verdict. The outcome holds everything a report prints; nothing is printed here. */
#ifndef SIM_VALIDATE_RUN_H
#define SIM_VALIDATE_RUN_H

#include "validate_out.h"

typedef struct {
    bool is_predict;            /* the model under test is the profiles' prediction, not the fit */
    bool has_tolerance;         /* a tolerance was given (with a baseline, only then is it checked) */
    bool want_phases;           /* the prediction's own timeline (JSON reports) */
    int64_t max_memory_mb;      /* every trace held at once, and each plan read, within this */
    int64_t jobs;               /* traces checked at once (threads); the outcome does not depend on it */
    double tolerance;           /* largest |makespan error|, a fraction */
    double speedup_tolerance_pp;
    const char *matrix_path;    /* a latency matrix (gpu-calib), NULL: none */
    const char *baseline_path;  /* an earlier report to compare with, NULL: none */
    const char *profile_path;   /* a hardware profile file (found), NULL: none */
    bool is_profile_default;    /* profile_path is the installed default (--predict alone): a trace measured on
                                 * another GPU is predicted from that GPU's profile beside it, where one exists */
    const char *kernel_path;    /* a kernel profile file (found), NULL: the installed ones when predicting */
} ValidateSettings;

/* Called as traces are read: done of total. */
typedef void (*SimValidateProgress)(void *ctx, int done, int total);

typedef struct {
    Trace **traces;             /* the traces, in path order */
    TraceCheck *checks;
    int count;
    ValidateRunsFile *files;    /* the runs files checked, in path order (on an error: those done, then the one that failed) */
    int file_count;
    ValidateReport report;      /* count > 0 and no error */
    ValidateVerdict verdict;
    bool is_checked;            /* the tolerance is checked (not a baseline comparison alone) */
    bool is_within;             /* ... and the model under test is within it (verdict.is_pass adds no regression) */
    int regressions;            /* against the baseline */
    int exit_code;              /* 0 within tolerance, 1 beyond it or regressed */
    char **profiles_used;       /* the hardware profiles that predicted executor traces, NULL-terminated */
    char **profile_paths;       /* every hardware profile read (the checks' profile_path point into them) */
    char **notes;               /* sentences for the user, in order: an older matrix format, each regression */
    int note_count;
} ValidateOutcome;

/* The files under args (n of them; a directory: every *.json and *.json.gz below it but calib-*; "-": standard
 * input) into *paths (sorted; free with g_strfreev), *count of them. SIM_ERR_IO for a missing file, SIM_ERR_INPUT
 * when there are none ("no trace files (*.json) under ARG"). */
SimStatus sim_validate_find(const char *const *args, int n, char ***paths, int *count, SimError *err);
/* Validates paths (sim_validate_find's) under s into out (caller-owned; sim_validate_outcome_clear). progress
 * may be NULL. On an error out holds the notes and the runs files done so far, nothing else. O(trace tasks x
 * models) time, the traces' size in memory. */
SimStatus sim_validate_run(const ValidateSettings *s, char *const *paths, int path_count, ValidateOutcome *out,
                           SimValidateProgress progress, void *progress_ctx, SimError *err);
/* The outcome's report as sim_validate_write_json writes it. */
void sim_validate_outcome_write_json(FILE *f, const ValidateOutcome *out);
void sim_validate_outcome_clear(ValidateOutcome *out);

#endif

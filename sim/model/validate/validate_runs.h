/* Predicting timed runs of a real kernel (kernel_runs.h) from its kernel profile, and judging the
 * prediction: per run, the end-to-end time predicted through the one costing path (the shape's tiles and
 * costs, the policy's plan, the engine, the launch's fixed costs) against the measured median; per shape,
 * the speedup over the fa3 order and whether the predicted best schedule is the measured best where the
 * measured gap between the best two exceeds the decision threshold. Nothing is fitted to the runs. */
#ifndef SIM_VALIDATE_RUNS_H
#define SIM_VALIDATE_RUNS_H

#include "kernel_runs.h"
#include "validate_report.h"

typedef struct {
    const KernelRun *run;      /* borrowed */
    bool has_prediction;
    char skip[128];            /* why not, when not */
    int64_t predicted_ns;
    double error;              /* (predicted - measured) / measured */
    bool has_speedup;          /* the fa3 order of the same shape was measured and predicted */
    double speedup_measured, speedup_predicted, speedup_error_pp;
} RunCheck;

typedef struct {
    int runs;                  /* deterministic runs that were timed */
    int predicted;             /* of those, predicted */
    ErrorStats time;           /* |error| over the predicted runs, fraction */
    ErrorStats speedup_pp;     /* |speedup error| over fa3, percentage points */
    int shapes;                /* shapes with two or more predicted policies */
    int decisive;              /* of those, the measured best beats the second by more than the threshold */
    int picked_right;          /* of the decisive ones, the predicted best is the measured best */
} RunsReport;

/* Predicts every deterministic timed run; checks is an array of runs->count (atomic and failed runs are
 * skipped, with the reason). tolerance and speedup_tolerance_pp set the within counts; pick_gap (0.02) the
 * decision threshold. O(runs x tasks log tasks). */
SimStatus sim_validate_runs(const KernelRuns *runs, const ValidateModels *m, double tolerance,
                            double speedup_tolerance_pp, double pick_gap, RunCheck *checks, RunsReport *rep,
                            SimError *err);

#endif

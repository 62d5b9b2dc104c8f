/* The summary of a validation run over many traces: error statistics per model and reduction mode, speedup
 * errors, per-shape policy rankings with the noise floor measured from repeated runs, and the hand-off
 * latency by load. Computed here so that every client (the CLI, tests, other programs) gets the same
 * numbers; the CLI only prints them. */
#ifndef SIM_VALIDATE_REPORT_H
#define SIM_VALIDATE_REPORT_H

#include "validate.h"

typedef enum {
    VMODEL_PLACED,      /* fitted to the trace's own phase medians, CTAs where they ran */
    VMODEL_UNIFORM,     /* fitted, the model's own dispatch */
    VMODEL_PAPER,       /* fitted compute and add only: the DASH paper's model */
    VMODEL_PROFILE,     /* predicted from the hardware profile alone: no per-trace fit */
    VMODEL_COUNT
} ValidateModel;

enum { VMODE_SERIAL, VMODE_ASYNC, VMODE_ALL, VMODE_COUNT };

typedef struct {
    int n;                /* values */
    double median_abs;    /* of |value| */
    double max_abs;
    int within;           /* |value| <= the tolerance */
} ErrorStats;

typedef struct {
    const char *group;    /* borrowed from the first trace of the group */
    int policies;         /* traces in the group (repeats included) */
    int pairs, pairs_counted; /* policy pairs; those whose measured gap exceeds the noise floor */
    double tau[2];        /* Kendall tau over the counted pairs: fitted (placed) and profile models; 1 if none */
    bool has_profile;     /* every member has a profile prediction */
} GroupRank;

typedef struct {
    int in_flight_min, in_flight_max; /* max -1: and above */
    int n;
    int64_t median_ns, p10_ns, p90_ns;
} HandoffBucket;

typedef struct {
    ErrorStats makespan[VMODEL_COUNT][VMODE_COUNT]; /* makespan error (a fraction) */
    ErrorStats speedup_pp[2];                       /* speedup over fa3, percentage points: placed, profile */
    ErrorStats start_mape[2];                       /* mean start error per trace: placed, profile */
    double noise_floor;   /* largest relative makespan spread among repeated runs of one configuration */
    int repeat_sets;      /* configurations with repeated runs */
    GroupRank *groups;    /* in order of first appearance; owned */
    int group_count;
    int tau_one[2];       /* groups with tau 1: placed, profile */
    double mean_tau[2];
    HandoffBucket handoffs[9]; /* in-flight reductions in buckets of 16, the last 128 and above */
    int handoff_bucket_count;
    int profile_traces;   /* traces with a profile prediction */
} ValidateReport;

/* Summarises count checked traces. tolerance (fraction) and speedup_tolerance_pp set the 'within' counts.
 * O(traces^2 + tasks log tasks). Free with sim_validate_report_clear. */
void sim_validate_report(const Trace *const *traces, const TraceCheck *checks, int count, double tolerance,
                         double speedup_tolerance_pp, ValidateReport *out);
void sim_validate_report_clear(ValidateReport *r);

#endif

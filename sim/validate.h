/* Model vs measurement. For one trace: rebuild the plan of the trace's policy and shape, check it is the
 * plan the kernel ran, fit the model's parameters from the trace's own phase medians (and the latency
 * matrix when given), predict, and compare. Never fitted: the makespan or any start time. */
#ifndef SIM_VALIDATE_H
#define SIM_VALIDATE_H

#include "trace_in.h"

typedef struct {
    int64_t c_ns;          /* median compute phase + median gap between a task's end and the next compute */
    int64_t r_ns;          /* median reduction phase (semaphore acquired -> released) */
    int64_t latency_ns;    /* latency matrix median, else median measured hand-off (trace) */
    int64_t prologue_ns;   /* median gap before a CTA's first compute */
    bool is_latency_from_matrix;
} FittedCosts;

typedef struct {
    FittedCosts fit;
    int64_t measured_ns;       /* last reduction end - first compute start */
    int64_t predicted_ns;      /* same span in the latency-aware model */
    int64_t paper_ns;          /* same span in the paper's model: no latency, no prologue */
    double makespan_error;     /* (predicted - measured) / measured */
    double paper_makespan_error;
    double start_mape;         /* mean |pred - meas| / meas of compute starts at least one c after the origin */
    bool has_speedup;          /* an fa3 trace of the same group exists */
    double speedup_measured, speedup_predicted, speedup_error_pp;
} TraceCheck;

/* Fits, predicts and compares one trace. latency_matrix (n_sm x n_sm, ns) may be NULL. */
SimStatus sim_validate_trace(const Trace *t, const int32_t *latency_matrix, TraceCheck *out, SimError *err);
/* Fills the speedup fields of every check from the fa3 trace of its group. */
void sim_validate_speedups(const Trace *const *traces, TraceCheck *checks, int count);
/* Kendall tau between measured and predicted makespans of the traces of one group (ties count 0);
 * 1 when fewer than two. */
double sim_validate_kendall_tau(const TraceCheck *const *checks, int count);
/* Median off-diagonal entry of a latency matrix file (traces/calib-latency.json), and the matrix. */
SimStatus sim_validate_load_latency(const char *path, int n_sm, int32_t **matrix, SimError *err);

#endif

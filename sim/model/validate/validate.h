/* Model vs measurement. For one trace: rebuild the plan of the trace's policy and shape, check it is the
 * plan the kernel ran, fit the model's parameters from the trace's own phase medians (and the latency
 * matrix when given), predict, and compare. Never fitted: the makespan or any start time. */
#ifndef SIM_VALIDATE_H
#define SIM_VALIDATE_H

#include "kernel.h"
#include "profile.h"
#include "trace.h"

/* What predicts: the hardware profile (the executor's traces, and reductions for kernels without their
 * own), the kernel profiles (real kernels' traces and runs: gpu/bwd), each picked by the kernel name the
 * trace or run records. All borrowed; any may be NULL / empty. */
typedef struct {
    const HwProfile *hw;
    KernelProfile *const *kernels;
    int kernel_count;
    bool want_phases;   /* the prediction's own timeline too (TraceCheck.profile_phases): JSON reports only */
} ValidateModels;

/* The kernel profile of kernel name (its "kernel" field) measured on gpu_name, else the first of that kernel (another
 * GPU's data: the caller says so), or NULL. */
const KernelProfile *sim_validate_kernel_for(const ValidateModels *m, const char *name, const char *gpu_name);

/* Serial reduction: the SM runs compute, stages the partial dQ (c_end -> r_ready), acquires the
 * semaphore (r_ready -> r_start when nobody is ahead: the rank-0 tasks), adds, releases; all in a row.
 * So c = compute + staging + gap, r = acquire + add, and an accumulation edge carries the hand-off
 * latency minus the acquire already inside r. Async: the store warp acquires and adds while the compute
 * warps go on (staging overlaps the next compute), so c = compute + gap and r = acquire + add. (A
 * deposit that waits for the freed buffer and then stages was tried: it over-predicts by up to 18%.) */
typedef struct {
    int64_t compute_ns;    /* median c_end - c_start */
    int64_t stage_ns;      /* median r_ready - c_end */
    int64_t acquire_ns;    /* median r_start - r_ready of rank-0 tasks (no one to wait for) */
    int64_t add_ns;        /* median r_end - r_start */
    int64_t gap_ns;        /* median gap from a task's end (serial: r_end; async: c_end) to the next compute */
    int64_t handoff_ns;    /* median measured hand-off (trace: previous release -> next semaphore turn, on
                            * another SM, next already waiting); the matrix median if none waited */
    int64_t matrix_median_ns; /* median of the latency matrix (gpu-calib ping-pong), 0 without one */
    int64_t first_wave_ns; /* median, over the first CTA of each SM, of its first compute - the kernel's first */
    int64_t cta_gap_ns;    /* median, over later CTAs of an SM (later waves; persistent: the slot's next plan
                            * CTA), of their first compute - the previous CTA's last reduction end there */
    int64_t prologue_ns;   /* the model's per-CTA prologue: cta_gap_ns if there are later CTAs, else
                            * first_wave_ns (a median over every CTA, later waves included, was off by
                            * +16% to +255% on multi-wave grids) */
    int64_t c_ns, r_ns, latency_ns; /* what the model gets, as above */
    bool is_handoff_from_trace;
} FittedCosts;

/* Where a prediction's timeline stands, phase by phase (medians over the model's ops), so that a miss can be
 * put on a phase: compute (the compute op: compute, plus staging and the loop gap when serial), deposit
 * (async: staging and the loop, after the buffer is free), reduce (the reduction as realised under load,
 * acquire included: compare acquire + add of the fit), in_flight (reductions in progress at the midpoint of
 * each reduction: the load the model's reductions saw). */
typedef struct {
    bool is_set;           /* false for predictions without an own timeline here (kernel profiles) */
    int64_t compute_ns, deposit_ns, reduce_ns, in_flight;
} ModelPhases;

/* Three models of one trace, from most to least calibrated:
 * placed: the latency-aware model with each CTA on the SM it ran on (CUDA does not promise dispatch
 *   order), each SM's own phase medians, and per SM pair the hand-off plus that pair's deviation from
 *   the latency matrix's median (near/far L2 halves) (the prediction);
 * uniform: the model's own dispatch, the trace-wide medians and the matrix median;
 * paper: trace-wide medians, no latency, no staging/acquire/prologue (the DASH model). */
typedef struct {
    FittedCosts fit;
    int64_t measured_ns;       /* last reduction end - first compute start */
    int64_t predicted_ns;      /* same span in the placed model */
    int64_t uniform_ns;        /* same span in the uniform model */
    int64_t paper_ns;          /* same span in the paper's model */
    double uniform_makespan_error;
    double makespan_error;     /* (predicted - measured) / measured */
    double paper_makespan_error;
    double start_mape;         /* mean |pred - meas| / meas of compute starts at least one c after the origin */
    bool has_speedup;          /* an fa3 trace of the same group exists */
    double speedup_measured, speedup_predicted, speedup_error_pp;
    /* The prediction from the hardware profile alone (no per-trace fit): the model's own dispatch, costs
     * from sim_profile_costs at the run's measured SM clock, load-dependent reductions and hand-offs. */
    bool has_profile;          /* a profile was given and covers this trace's kernel */
    char profile_skip[96];     /* why not, when a profile was given but does not cover it */
    int64_t profile_ns;
    double profile_makespan_error, profile_start_mape;
    bool has_profile_speedup;
    double profile_speedup_predicted, profile_speedup_error_pp;
    ModelPhases profile_phases;   /* the prediction's own timeline (executor traces), to set beside the fit's */
    int64_t measured_in_flight;   /* the same count in the trace: median over reductions (r_start..r_end) */
    const char *profile_path;     /* the hardware profile that predicted an executor trace (borrowed), or NULL */
} TraceCheck;

/* Fits, predicts and compares one trace. plan: the plan the run executed when no registered policy builds
 * it (a searched or hand-written schedule, read from the trace's plan file); NULL: rebuilt from the
 * trace's policy. latency_matrix (n_sm x n_sm, ns) and models may be NULL (models NULL: the fits alone). */
SimStatus sim_validate_trace(const Trace *t, const Plan *plan, const int32_t *latency_matrix,
                             const ValidateModels *models, TraceCheck *out, SimError *err);
/* Fills the speedup fields of every check from the fa3 trace of its group. */
void sim_validate_speedups(const Trace *const *traces, TraceCheck *checks, int count);
/* Hand-offs by load: for every measured hand-off (see FittedCosts), the number of reductions in
 * progress on the GPU at the previous release. Writes (in_flight, handoff_ns) pairs into the arrays (room
 * for t->task_count each) and returns how many. */
int64_t sim_validate_handoffs_by_load(const Trace *t, int64_t *in_flight, int64_t *handoff_ns);

#endif

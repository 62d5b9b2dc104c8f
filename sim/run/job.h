/* One attention job as a library call: workload + policy + costs -> plan -> engine -> DAG analysis,
 * plus the optional output files. Used by the CLI, by config runs and sweeps (from several threads:
 * a job shares nothing with another), and by validation. */
#ifndef SIM_JOB_H
#define SIM_JOB_H

#include "analyze.h"
#include "attention.h"

typedef struct {
    const char *policy;          /* registry name; with plan set, the plan's name (for outputs only) */
    const Plan *plan;            /* optional: simulate this plan (borrowed, plan_check'ed, its wl equal to
                                  * wl) instead of building one from the policy; no closed form is claimed */
    Workload wl;
    AttnCosts costs;
    int64_t max_memory_mb;       /* refuse jobs estimated above this */
    const int32_t *unit_latency_ns; /* optional n_sm x n_sm signal latency matrix (ns) replacing
                                  * costs.latency_ns on accumulation edges; borrowed, NULL: none */
    bool has_unit_latency;       /* a matrix will be given (sweeps size jobs before making it) */
    const char *dot_path;        /* optional outputs; NULL: not written */
    const char *plan_path;
    const char *trace_path;      /* Chrome trace JSON (sim/render.h) */
    bool has_trace_flows;        /* arrows for the accumulation-order edges in the trace */
    int64_t trace_max_mb;        /* refuse traces estimated above this; 0: no cap */
    const char *csv_path;        /* one row per phase */
    const char *gantt_path;      /* .png or .svg through gnuplot, with its .gp and .dat beside it */
    bool has_gantt_labels;       /* "kv,q" in each Gantt box wide enough for it */
    SimAnalysisLevel analysis;   /* how much DAG analysis (analyze.h); 0 = FULL; outputs that mark critical
                                  * ops (DOT, trace, CSV, Gantt) get FULL whatever this says */
    bool is_event_engine;        /* run the event engine even where the fast path applies (sim --engine
                                  * event: to benchmark it on any job); the schedule and outputs are the same */
} AttnJob;

typedef struct {
    int64_t tasks;
    SimAnalysis a;
    bool has_closed_form, is_closed_form_exact;
    int64_t closed_form_ns;
    double clock_scale;          /* the compute costs' factor at the launch's clock (sim_attention_clock_adjust); 1: the
                                  * costs as given */
} AttnResult;

/* The ranges every front end (the CLI's flags, the library's setters) accepts for a job's sizes and costs. */
#define SIM_JOB_MAX_SMS 100000
#define SIM_JOB_MAX_COUNT 1000000                 /* heads, KV tiles, Q tiles */
#define SIM_JOB_MAX_COST_NS INT64_C(1000000000000) /* c and r */
#define SIM_JOB_MAX_LATENCY_NS 1000000000

/* A job with the defaults of the CLI (132 SMs, one head, N = M = n, full mask, c 1000, r 500). */
AttnJob sim_job_default(void);
/* Time bound: every simulated time, and the SM count times the makespan (summed over SMs), must stay
 * below 2^62 ns; a job whose total work, tasks x (c + r + prologue + largest latency) x SMs, reaches it is
 * refused (SIM_ERR_LIMIT) before it runs. */
#define SIM_JOB_MAX_TIME_NS (INT64_C(1) << 62)

/* Checks the job (policy known, mask supported, size under the cap, times bounded) and runs it. Output
 * files are written atomically as one batch (sim/io/output.h): all of them or none. On error *r holds
 * nothing to free (sim_job_result_clear is then a no-op). */
SimStatus sim_job_run(const AttnJob *job, AttnResult *r, SimError *err);
/* Estimated peak bytes of the job: engine ops, plus the latency matrix and its copy in the program. */
double sim_job_estimate_bytes(const AttnJob *job);
/* This machine's physical memory, MB: the largest memory cap that can mean anything. */
int64_t sim_job_physical_memory_mb(void);
/* SIM_ERR_LIMIT with a sentence if the estimate is above job->max_memory_mb. */
SimStatus sim_job_check_size(const AttnJob *job, SimError *err);
/* SIM_ERR_LIMIT with a sentence if the job's times could overflow (SIM_JOB_MAX_TIME_NS above). tasks:
 * the plan's task count. O(n_sm^2) with a latency matrix, else O(1). */
SimStatus sim_job_check_times(const AttnJob *job, int64_t tasks, SimError *err);
void sim_job_result_clear(AttnResult *r);

#endif

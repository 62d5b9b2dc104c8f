/* A measured kernel trace beside the model's schedule of the same plan, as one Chrome trace for Perfetto
 * (`sim perfetto`): process 1 is the run as measured, process 2 the model's run of the plan it executed,
 * both drawn with the job's tracks and slice names (sim/run/job_render.h), so the same SM, engine, head and
 * phase line up. The model is fitted to the trace's own phase medians (sim_validate_trace's uniform model:
 * fitted costs, the engine's own dispatch): a check of the model's structure, not a prediction. */
#ifndef SIM_TRACE_VIEW_H
#define SIM_TRACE_VIEW_H

#include "attention.h"
#include "trace.h"

typedef struct {
    int64_t measured_ns;   /* last reduction end - first compute start */
    int64_t model_ns;      /* the model's span: its makespan less the CTA prologue before the first compute */
    AttnCosts costs;       /* the fitted costs the model ran with (c, r, latency, prologue; reduce, dq_buffers) */
} SimTraceView;

/* The registered policy that rebuilds the plan trace t ran, NULL when its plan file says what ran: a timed
 * policy's plan depended on costs, and a block trace's mask is read from its own tasks. O(policies). */
const PolicyOps *sim_trace_policy(const Trace *t);
/* The plan t ran: sim_trace_policy's plan for its workload, or (a block mask, a schedule no policy
 * builds) the plan file its metadata names (or, when only that is there, the same path with .gz: committed
 * plans are gzipped), which must still hash as the run recorded (the hash is of the plan's text). *plan is new
 * (plan_free it). SIM_ERR_INPUT with the trace's path and a sentence otherwise. */
SimStatus sim_trace_plan(const Trace *t, int64_t max_bytes, Plan **plan, SimError *err);

/* Writes the two processes to path (sim/io/output.h; "-" is standard output). plan: the plan t ran
 * (sim_trace_plan). The file's metadata holds the dashsim version, the trace's shape and kernel, both spans
 * and the fitted costs. Errors: those of the fit (a plan that is not the one the run executed), SIM_ERR_IO.
 * O(tasks + heads x kv_tiles x q_tiles). */
SimStatus sim_trace_view_write(const Trace *t, const Plan *plan, const char *path, SimTraceView *out,
                               SimError *err);

#endif

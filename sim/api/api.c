/* The front door (include/dashsim/dashsim.h): a job handle over sim_job_run, the policy registry and the
 * version, translated from the internal types here and nowhere else. Invariant: a DashsimJob holds only
 * values its setters checked, owns every string its AttnJob points to, and a run never changes it. */
#include "dashsim/dashsim.h"

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "job.h"
#include "mask.h"
#include "render.h"

/* The public codes are the internal ones, value for value (the ABI fixes them). */
_Static_assert((int)DASHSIM_OK == (int)SIM_OK && (int)DASHSIM_ERR_USAGE == (int)SIM_ERR_USAGE &&
               (int)DASHSIM_ERR_INPUT == (int)SIM_ERR_INPUT && (int)DASHSIM_ERR_SCHEDULE == (int)SIM_ERR_SCHEDULE &&
               (int)DASHSIM_ERR_LIMIT == (int)SIM_ERR_LIMIT && (int)DASHSIM_ERR_IO == (int)SIM_ERR_IO &&
               (int)DASHSIM_ERR_CHECK == (int)SIM_ERR_CHECK, "DashsimStatus must equal SimStatus");

#define OUTPUT_COUNT 5

struct DashsimJob {
    AttnJob job;                 /* policy and the output paths point into the strings below */
    char *policy;
    char *mask;                  /* "full", "causal" or a block mask's spec, made for the tiles at run time */
    char *outputs[OUTPUT_COUNT]; /* by DashsimOutput; NULL: not written */
};

/* err (may be NULL) from an internal error record; returns its status. */
static DashsimStatus report(DashsimError *out, const SimError *e)
{
    if (out) {
        out->status = (DashsimStatus)e->status;
        snprintf(out->message, sizeof out->message, "%s", e->msg);
    }
    return (DashsimStatus)e->status;
}

const char *dashsim_version(void) { return DASHSIM_VERSION; }
int dashsim_version_number(void) { return DASHSIM_VERSION_NUMBER; }
const char *dashsim_strerror(DashsimStatus status) { return sim_strerror((SimStatus)status); }

int dashsim_policy_count(void) { return policy_count(); }

const char *dashsim_policy_name(int i)
{
    return i >= 0 && i < policy_count() ? policy_at(i)->name : NULL;
}

const char *dashsim_policy_summary(int i)
{
    return i >= 0 && i < policy_count() ? policy_at(i)->summary : NULL;
}

DashsimJob *dashsim_job_new(void)
{
    DashsimJob *job = g_new0(DashsimJob, 1);
    job->job = sim_job_default();
    job->job.analysis = SIM_ANALYSIS_SUMMARY; /* no per-op marks: nothing here reads them (outputs raise it) */
    job->policy = g_strdup(job->job.policy);
    job->job.policy = job->policy;
    job->mask = g_strdup("full");
    return job;
}

void dashsim_job_free(DashsimJob *job)
{
    if (!job)
        return;
    g_free(job->policy);
    g_free(job->mask);
    for (int i = 0; i < OUTPUT_COUNT; i++)
        g_free(job->outputs[i]);
    g_free(job);
}

/* The checks every setter starts with: a job, and a string where one is needed (name: what it is). */
static bool has_args(const DashsimJob *job, const char *name, const char *text, SimError *e)
{
    if (!job)
        sim_error_set(e, SIM_ERR_USAGE, "the job is NULL");
    else if (name && !text)
        sim_error_set(e, SIM_ERR_USAGE, "the %s is NULL", name);
    return !e->status;
}

static bool in_range(const char *name, int64_t v, int64_t lo, int64_t hi, SimError *e)
{
    if (v < lo || v > hi)
        sim_error_set(e, SIM_ERR_USAGE, "%s must be %" PRId64 " to %" PRId64 ", got %" PRId64, name, lo, hi, v);
    return !e->status;
}

DashsimStatus dashsim_job_set_policy(DashsimJob *job, const char *policy, DashsimError *err)
{
    SimError e = { 0 };
    if (has_args(job, "policy", policy, &e) && !policy_find(policy)) {
        const char *guess = policy_suggest(policy);
        sim_error_set(&e, SIM_ERR_USAGE, "unknown policy '%s'%s%s%s (dashsim_policy_name lists them)", policy,
                      guess ? "; did you mean '" : "", guess ? guess : "", guess ? "'?" : "");
    }
    if (!e.status) {
        g_free(job->policy);
        job->job.policy = job->policy = g_strdup(policy);
    }
    return report(err, &e);
}

DashsimStatus dashsim_job_set_shape(DashsimJob *job, int sm_count, int heads, int kv_tiles, int q_tiles,
                                    DashsimError *err)
{
    SimError e = { 0 };
    if (has_args(job, NULL, NULL, &e) && in_range("sm_count", sm_count, 1, SIM_JOB_MAX_SMS, &e) &&
        in_range("heads", heads, 1, SIM_JOB_MAX_COUNT, &e) &&
        in_range("kv_tiles", kv_tiles, 1, SIM_JOB_MAX_COUNT, &e) &&
        in_range("q_tiles", q_tiles, 1, SIM_JOB_MAX_COUNT, &e)) {
        Workload *wl = &job->job.wl;
        wl->n_sm = sm_count, wl->heads = heads, wl->kv_tiles = kv_tiles, wl->q_tiles = q_tiles;
    }
    return report(err, &e);
}

static bool is_plain_mask(const char *mask) { return strcmp(mask, "full") == 0 || strcmp(mask, "causal") == 0; }

/* The job's mask applied to wl: full and causal directly, a block mask made into *block for wl's tiles
 * (wl then borrows it). */
static SimStatus apply_mask(const char *mask, int64_t max_memory_mb, Workload *wl, BlockMask *block, SimError *e)
{
    if (is_plain_mask(mask)) {
        wl->mask = mask[0] == 'c' ? MASK_CAUSAL : MASK_FULL;
        return SIM_OK;
    }
    if (sim_mask_make_capped(mask, wl->kv_tiles, wl->q_tiles, max_memory_mb << 20, block, e) == SIM_OK)
        sim_mask_apply(block, wl);
    return e->status;
}

DashsimStatus dashsim_job_set_mask(DashsimJob *job, const char *mask, DashsimError *err)
{
    SimError e = { 0 };
    if (has_args(job, "mask", mask, &e) && !is_plain_mask(mask)) { /* a block mask: checked on today's tiles */
        Workload wl = job->job.wl;
        BlockMask block = { 0 };
        apply_mask(mask, job->job.max_memory_mb, &wl, &block, &e);
        sim_mask_clear(&block);
    }
    if (!e.status) {
        g_free(job->mask);
        job->mask = g_strdup(mask);
    }
    return report(err, &e);
}

DashsimStatus dashsim_job_set_costs(DashsimJob *job, int64_t c_ns, int64_t r_ns, int64_t latency_ns, DashsimError *err)
{
    SimError e = { 0 };
    if (has_args(job, NULL, NULL, &e) && in_range("c_ns", c_ns, 0, SIM_JOB_MAX_COST_NS, &e) &&
        in_range("r_ns", r_ns, 0, SIM_JOB_MAX_COST_NS, &e) &&
        in_range("latency_ns", latency_ns, 0, SIM_JOB_MAX_LATENCY_NS, &e))
        job->job.costs.c_ns = c_ns, job->job.costs.r_ns = r_ns, job->job.costs.latency_ns = latency_ns;
    return report(err, &e);
}

DashsimStatus dashsim_job_set_reduce(DashsimJob *job, const char *mode, int dq_buffers, DashsimError *err)
{
    SimError e = { 0 };
    if (has_args(job, "reduce mode", mode, &e) && strcmp(mode, "serial") != 0 && strcmp(mode, "async") != 0)
        sim_error_set(&e, SIM_ERR_USAGE, "the reduce mode must be serial or async, got '%s'", mode);
    if (!e.status && in_range("dq_buffers", dq_buffers, 1, 64, &e)) {
        job->job.costs.reduce = mode[0] == 'a' ? REDUCE_ASYNC : REDUCE_SERIAL;
        job->job.costs.dq_buffers = dq_buffers;
    }
    return report(err, &e);
}

DashsimStatus dashsim_job_set_max_memory_mb(DashsimJob *job, int64_t max_memory_mb, DashsimError *err)
{
    SimError e = { 0 };
    if (has_args(job, NULL, NULL, &e) && in_range("max_memory_mb", max_memory_mb, 1, sim_job_physical_memory_mb(), &e))
        job->job.max_memory_mb = max_memory_mb;
    return report(err, &e);
}

DashsimStatus dashsim_job_set_output(DashsimJob *job, DashsimOutput output, const char *path, DashsimError *err)
{
    SimError e = { 0 };
    if (has_args(job, NULL, NULL, &e) && path && !path[0])
        sim_error_set(&e, SIM_ERR_USAGE, "an output path is empty (NULL: no output)");
    if (!e.status && in_range("the output kind", (int64_t)output, 0, OUTPUT_COUNT - 1, &e) &&
        path && output == DASHSIM_OUTPUT_GANTT)
        sim_render_gantt_check_path(path, &e);
    if (e.status)
        return report(err, &e);
    g_free(job->outputs[output]);
    job->outputs[output] = g_strdup(path);
    AttnJob *j = &job->job;
    const char *const *o = (const char *const *)job->outputs;
    j->trace_path = o[DASHSIM_OUTPUT_TRACE], j->csv_path = o[DASHSIM_OUTPUT_CSV], j->dot_path = o[DASHSIM_OUTPUT_DOT];
    j->plan_path = o[DASHSIM_OUTPUT_PLAN], j->gantt_path = o[DASHSIM_OUTPUT_GANTT];
    return report(err, &e);
}

DashsimStatus dashsim_job_run(const DashsimJob *job, DashsimResult *result, DashsimError *err)
{
    SimError e = { 0 };
    if (result)
        *result = (DashsimResult){ 0 };
    if (!result)
        sim_error_set(&e, SIM_ERR_USAGE, "the result is NULL");
    if (!has_args(job, NULL, NULL, &e))
        return report(err, &e);
    AttnJob j = job->job; /* the mask is the run's: the job stays as the setters left it */
    BlockMask block = { 0 };
    AttnResult r = { 0 };
    sim_input_call_begin(); /* the overwrite rule is this call's (input.h) */
    if (apply_mask(job->mask, j.max_memory_mb, &j.wl, &block, &e) == SIM_OK && sim_job_run(&j, &r, &e) == SIM_OK)
        *result = (DashsimResult){ .tasks = r.tasks, .makespan_ns = r.a.makespan_ns,
                                   .critical_path_ns = r.a.critical_path_ns, .busy_ns = r.a.busy_ns,
                                   .bubble_ns = r.a.bubble_ns, .busy_fraction = r.a.busy_fraction,
                                   .lemma1_violations = r.a.lemma1_violations, .has_closed_form = r.has_closed_form,
                                   .is_closed_form_exact = r.is_closed_form_exact,
                                   .closed_form_ns = r.closed_form_ns };
    sim_input_call_end();
    sim_job_result_clear(&r);
    sim_mask_clear(&block);
    return report(err, &e);
}

void dashsim_free(void *p) { free(p); }

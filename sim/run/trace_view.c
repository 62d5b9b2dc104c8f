/* `sim perfetto`'s library half: the measured run and the model's run of the same plan in one Chrome trace.
 * The measured run is laid onto the model's own program (sim_trace_schedule), so both processes have the
 * same tracks, slice names and arguments and differ only in when things happened. */
#include "trace_view.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "job_render.h"
#include "plan_io.h"
#include "validate.h"

const PolicyOps *sim_trace_policy(const Trace *t)
{
    const PolicyOps *ops = policy_find(t->policy);
    if (!ops || ops->is_timed || t->wl.mask == MASK_BLOCK || !policy_supports(ops, &t->wl))
        return NULL;
    return ops;
}

SimStatus sim_trace_plan(const Trace *t, int64_t max_bytes, Plan **plan, SimError *err)
{
    *plan = NULL;
    const PolicyOps *ops = sim_trace_policy(t);
    SimError why = { 0 };
    if (ops) {
        if (!(*plan = policy_build(ops, &t->wl, &why)))
            sim_error_set(err, SIM_ERR_INPUT, "%s: %s", t->path, why.msg);
        return err->status;
    }
    if (!t->kernel.plan_file[0])
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/policy: '%s' is no registered policy, and the trace "
                             "names no plan_file", t->path, t->policy);
    AttnCosts costs;
    uint64_t hash;
    char text[40], gz[sizeof t->kernel.plan_file + 3];
    snprintf(gz, sizeof gz, "%s.gz", t->kernel.plan_file); /* committed plans are stored gzipped */
    const char *path = access(t->kernel.plan_file, F_OK) != 0 && access(gz, F_OK) == 0 ? gz : t->kernel.plan_file;
    if (sim_plan_read(path, max_bytes, plan, &costs, &hash, &why) != SIM_OK)
        return sim_error_set(err, why.status, "%s: /metadata/plan_file: %s", t->path, why.msg);
    snprintf(text, sizeof text, "fnv1a64:%016" PRIx64, hash);
    if (strcmp(text, t->kernel.plan_hash) != 0) {
        plan_free(*plan), *plan = NULL;
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/plan_hash: %s is %s now, not the %s the run used",
                             t->path, t->kernel.plan_file, text, t->kernel.plan_hash);
    }
    return SIM_OK;
}

enum { VIEW_META_COUNT = 17 };

typedef struct {
    SimRenderMeta meta[VIEW_META_COUNT];
    char values[VIEW_META_COUNT][64];
} ViewMeta;

/* The file's metadata: the trace, its shape and kernel, both spans and what the model was fitted to. */
static void view_meta(const Trace *t, const SimTraceView *v, ViewMeta *m)
{
    const char *keys[VIEW_META_COUNT] = { "trace", "gpu_name", "policy", "mask", "n_sm", "heads", "kv_tiles",
                                          "q_tiles", "reduce", "dq_buffers", "measured_ns", "model", "model_ns",
                                          "c_ns", "r_ns", "latency_ns", "prologue_ns" };
    const char *text[VIEW_META_COUNT] = { t->path, t->gpu_name, t->policy, plan_mask_name(t->wl.mask), NULL, NULL,
                                          NULL, NULL, v->costs.reduce == REDUCE_SERIAL ? "serial" : "async", NULL,
                                          NULL, "fitted to this trace's phase medians (uniform: the engine's own "
                                          "dispatch); not a prediction" };
    int64_t nums[VIEW_META_COUNT] = { 0, 0, 0, 0, t->wl.n_sm, t->wl.heads, t->wl.kv_tiles, t->wl.q_tiles, 0,
                                      v->costs.dq_buffers, v->measured_ns, 0, v->model_ns, v->costs.c_ns,
                                      v->costs.r_ns, v->costs.latency_ns, v->costs.cta_prologue_ns };
    for (int i = 0; i < VIEW_META_COUNT; i++) {
        if (!text[i])
            snprintf(m->values[i], sizeof m->values[i], "%" PRId64, nums[i]);
        m->meta[i] = (SimRenderMeta){ keys[i], text[i] ? text[i] : m->values[i] };
    }
}

/* Renders both schedules of prog (measured, then the model's with its analysis) to path. */
static SimStatus render_pair(const Trace *t, const Plan *plan, const SimProgram *prog, const SimSchedule *measured,
                             const SimSchedule *model, const SimAnalysis *a, const SimTraceView *v, const char *path,
                             SimError *err)
{
    AttnJob job = { .policy = t->policy, .wl = plan->wl, .costs = v->costs };
    AttnRenderText text[2];
    SimRenderSpec specs[2] = { sim_job_render_spec(&job, plan, prog, measured, NULL, &text[0]),
                               sim_job_render_spec(&job, plan, prog, model, a, &text[1]) };
    ViewMeta meta;
    view_meta(t, v, &meta);
    specs[0].meta = meta.meta, specs[0].meta_count = VIEW_META_COUNT;
    snprintf(text[0].device, sizeof text[0].device, "measured: %.40s (%d SMs)", t->gpu_name, t->wl.n_sm);
    snprintf(text[0].title, sizeof text[0].title, "%s, as measured: span %" PRId64 " ns", t->path, v->measured_ns);
    snprintf(text[1].device, sizeof text[1].device, "model: fitted to the trace (%d SMs)", t->wl.n_sm);
    snprintf(text[1].title, sizeof text[1].title, "the model's run of the same plan, fitted to the trace's phase "
             "medians: span %" PRId64 " ns (%+.2f%%), after a %" PRId64 " ns CTA prologue", v->model_ns,
             100.0 * (double)(v->model_ns - v->measured_ns) / (double)MAX(1, v->measured_ns),
             v->costs.cta_prologue_ns);
    SimTraceOptions opt = { .has_flows = false };
    return sim_render_trace_set(specs, 2, &opt, path, err);
}

SimStatus sim_trace_view_write(const Trace *t, const Plan *plan, const char *path, SimTraceView *out,
                               SimError *err)
{
    *out = (SimTraceView){ 0 };
    TraceCheck check;
    if (sim_validate_trace(t, plan, NULL, NULL, &check, err) != SIM_OK)
        return err->status;
    out->costs = t->model;
    out->costs.store_warps = t->kernel.store_warps; /* one store engine a store warp: the measured tracks too */
    out->costs.c_ns = check.fit.c_ns, out->costs.r_ns = check.fit.r_ns, out->costs.latency_ns = check.fit.latency_ns;
    out->costs.cta_prologue_ns = check.fit.prologue_ns;
    out->measured_ns = check.measured_ns;
    SimProgram *prog = sim_attention_program(plan, &out->costs);
    SimSchedule measured = { 0 }, model = { 0 };
    SimAnalysis a = { 0 };
    if (sim_trace_schedule(t, plan, prog, &measured, err) == SIM_OK && sim_engine_run(prog, &model, err) == SIM_OK &&
        sim_analyze(prog, &model, &a, NULL, err) == SIM_OK) {
        out->model_ns = model.makespan_ns - out->costs.cta_prologue_ns;
        render_pair(t, plan, prog, &measured, &model, &a, out, path, err);
    }
    sim_analysis_clear(&a);
    sim_schedule_clear(&measured), sim_schedule_clear(&model);
    sim_program_free(prog);
    return err->status;
}

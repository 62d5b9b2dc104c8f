/* Running one attention job: every check happens before the first large allocation. */
#include "job.h"

#include <glib.h>
#include <inttypes.h>
#include <unistd.h>

#include "output.h"
#include "plan_io.h"
#include "render.h"

AttnJob sim_job_default(void)
{
    return (AttnJob){ .policy = "fa3", .max_memory_mb = 4096, .trace_max_mb = 512,
                      .wl = { .n_sm = 132, .heads = 1, .kv_tiles = 132, .q_tiles = 132, .mask = MASK_FULL,
                              .tile_ratio = 1, .head_swizzle = 1 },
                      .costs = { .c_ns = 1000, .r_ns = 500, .reduce = REDUCE_SERIAL, .dq_buffers = 1 } };
}

SimStatus sim_job_check_size(const AttnJob *job, SimError *err)
{
    const Workload *wl = &job->wl;
    double tasks = (double)wl->heads * wl->kv_tiles * wl->q_tiles;
    double mb = tasks * sim_attention_ops_per_task(job->costs.reduce) * SIM_BYTES_PER_OP / (1 << 20);
    if (mb > (double)job->max_memory_mb)
        return sim_error_set(err, SIM_ERR_LIMIT, "%d heads x %d KV x %d Q tiles would need about %.0f MB to "
                             "simulate, over the cap of %" PRId64 " MB (--max-memory-mb)", wl->heads,
                             wl->kv_tiles, wl->q_tiles, mb, job->max_memory_mb);
    return SIM_OK;
}

static SimStatus write_plan(const Plan *plan, const AttnCosts *costs, const char *path, SimError *err)
{
    SimOutput out;
    if (sim_output_open(&out, path, err) != SIM_OK)
        return err->status;
    if (!sim_plan_write(plan, costs, out.f)) {
        sim_output_abort(&out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write %s", path);
    }
    return sim_output_commit(&out, err);
}

typedef struct {
    const Plan *plan;
    const SimProgram *prog;
} AttnLabelCtx;

/* Labels an attention op by its plan task: "C h0 kv3 q5", args head, kv, q, rank; colour = head. */
static void label_attention_op(void *ctx, int64_t op, SimRenderLabel *out)
{
    const AttnLabelCtx *l = ctx;
    const SimOp *o = &l->prog->ops[op];
    if (o->task < 0)
        return;
    const PlanTask *t = &l->plan->tasks[o->task];
    static const char *const letter[SIM_OP_KIND_COUNT] = { "C", "R", "V", "P" };
    if (o->kind == SIM_OP_SYNC)
        out->phase = o->duration_ns > 0 ? "prologue" : "deposit";
    bool is_deposit = o->kind == SIM_OP_SYNC && o->duration_ns == 0;
    snprintf(out->name, sizeof out->name, "%s h%d kv%d q%d", is_deposit ? "D" : letter[o->kind], t->head, t->kv,
             t->q);
    out->group = t->head;
    out->args[0] = t->head, out->args[1] = t->kv, out->args[2] = t->q, out->args[3] = t->rank;
}

enum { META_COUNT = 11 };

typedef struct {
    SimRenderMeta meta[META_COUNT];
    char values[META_COUNT][32];
    char title[256], device[64];
    AttnLabelCtx label_ctx;
} AttnRenderText;

static SimRenderSpec attention_spec(const AttnJob *job, const Plan *plan, const SimProgram *prog,
                                    const SimSchedule *s, const SimAnalysis *a, AttnRenderText *t)
{
    const Workload *wl = &job->wl;
    const AttnCosts *c = &job->costs;
    const char *mask = wl->mask == MASK_FULL ? "full" : "causal";
    const char *reduce = c->reduce == REDUCE_SERIAL ? "serial" : "async";
    const char *keys[META_COUNT] = { "policy", "mask", "n_sm", "heads", "kv_tiles", "q_tiles", "c_ns", "r_ns",
                                     "latency_ns", "reduce", "dq_buffers" };
    int64_t nums[META_COUNT] = { 0, 0, wl->n_sm, wl->heads, wl->kv_tiles, wl->q_tiles, c->c_ns, c->r_ns,
                                 c->latency_ns, 0, c->dq_buffers };
    for (int i = 0; i < META_COUNT; i++) {
        snprintf(t->values[i], sizeof t->values[i], "%" PRId64, nums[i]);
        const char *text = i == 0 ? job->policy : i == 1 ? mask : i == 9 ? reduce : t->values[i];
        t->meta[i] = (SimRenderMeta){ keys[i], text };
    }
    snprintf(t->title, sizeof t->title, "%s, %s mask, %d SMs, %d heads x %d KV x %d Q tiles, c %" PRId64 " ns, r %"
             PRId64 " ns, %s: makespan %" PRId64 " ns", job->policy, mask, wl->n_sm, wl->heads, wl->kv_tiles,
             wl->q_tiles, c->c_ns, c->r_ns, reduce, s->makespan_ns);
    snprintf(t->device, sizeof t->device, "GPU (%d SMs)", wl->n_sm);
    t->label_ctx = (AttnLabelCtx){ plan, prog };
    return (SimRenderSpec){ .program = prog, .schedule = s, .analysis = a, .device = t->device, .unit_name = "SM",
                            .unit_column = "sm", .engine_names = { "compute", "reduction store" },
                            .arg_names = { "head", "kv", "q", "rank" }, .group_name = "head", .title = t->title,
                            .meta = t->meta, .meta_count = META_COUNT, .flow_edge_kinds = 1u << SIM_EDGE_ACCUM,
                            .label = label_attention_op, .label_ctx = &t->label_ctx };
}

/* Trace, CSV, Gantt; if a later one fails, the earlier ones are removed so nothing is left behind. */
static SimStatus render_outputs(const AttnJob *job, const Plan *plan, const SimProgram *prog,
                                const SimSchedule *s, const SimAnalysis *a, SimError *err)
{
    AttnRenderText text;
    SimRenderSpec spec = attention_spec(job, plan, prog, s, a, &text);
    SimTraceOptions topt = { .has_flows = job->has_trace_flows, .max_bytes = job->trace_max_mb << 20 };
    SimGanttOptions gopt = { 0 };
    bool is_trace_done = false, is_csv_done = false;
    if (job->trace_path && sim_render_trace(&spec, &topt, job->trace_path, err) == SIM_OK)
        is_trace_done = true;
    if (!err->status && job->csv_path && sim_render_csv(&spec, job->csv_path, err) == SIM_OK)
        is_csv_done = true;
    if (!err->status && job->gantt_path)
        sim_render_gantt(&spec, &gopt, job->gantt_path, err);
    if (err->status && is_trace_done)
        unlink(job->trace_path);
    if (err->status && is_csv_done)
        unlink(job->csv_path);
    return err->status;
}

/* The analysis the job asked for, raised to FULL when an output marks critical ops. */
static SimAnalysisLevel analysis_level(const AttnJob *job)
{
    bool needs_critical = job->dot_path || job->trace_path || job->csv_path || job->gantt_path;
    return needs_critical ? SIM_ANALYSIS_FULL : job->analysis;
}

/* Program -> engine -> analysis (and the optional DOT file), then the rendered outputs. A failure of
 * a rendered output also takes back the DOT file, so an error leaves no output of this step. */
static SimStatus simulate(const AttnJob *job, const Plan *plan, AttnResult *r, SimError *err)
{
    SimProgram *prog = sim_attention_program(plan, &job->costs);
    if (job->unit_latency_ns)
        prog->unit_latency_ns = g_memdup2(job->unit_latency_ns, sizeof(int32_t) * job->wl.n_sm * job->wl.n_sm);
    SimSchedule s = { 0 };
    SimOutput dot = { 0 };
    bool is_dot_done = false;
    if (sim_engine_run(prog, &s, err) == SIM_OK &&
        (!job->dot_path || sim_output_open(&dot, job->dot_path, err) == SIM_OK) &&
        sim_analyze_level(prog, &s, analysis_level(job), &r->a, dot.f, err) == SIM_OK && job->dot_path)
        is_dot_done = sim_output_commit(&dot, err) == SIM_OK;
    sim_output_abort(&dot);
    if (!err->status && render_outputs(job, plan, prog, &s, &r->a, err) != SIM_OK && is_dot_done)
        unlink(job->dot_path);
    sim_schedule_clear(&s);
    sim_program_free(prog);
    return err->status;
}

/* A plan given by the caller (sim --plan): checked again here, since the job is a library entry point. */
static SimStatus run_given_plan(const AttnJob *job, AttnResult *r, SimError *err)
{
    if (plan_check(job->plan, "", err) != SIM_OK || sim_job_check_size(job, err) != SIM_OK)
        return err->status;
    r->tasks = job->plan->task_count;
    if (!job->plan_path || write_plan(job->plan, &job->costs, job->plan_path, err) == SIM_OK)
        simulate(job, job->plan, r, err);
    return err->status;
}

SimStatus sim_job_run(const AttnJob *job, AttnResult *r, SimError *err)
{
    *r = (AttnResult){ 0 };
    if (job->plan)
        return run_given_plan(job, r, err);
    const PolicyOps *ops = policy_find(job->policy);
    if (!ops)
        return sim_error_set(err, SIM_ERR_USAGE, "unknown policy '%s' (sim --list-policies shows them)",
                             job->policy);
    if (sim_job_check_size(job, err) != SIM_OK)
        return err->status;
    Plan *plan = policy_build(ops, &job->wl, err);
    if (!plan)
        return err->status;
    r->tasks = plan->task_count;
    r->has_closed_form = sim_closed_form_ns(job->policy, &job->wl, &job->costs, &r->closed_form_ns,
                                            &r->is_closed_form_exact);
    if (!job->plan_path || write_plan(plan, &job->costs, job->plan_path, err) == SIM_OK)
        simulate(job, plan, r, err);
    plan_free(plan);
    return err->status;
}

void sim_job_result_clear(AttnResult *r)
{
    sim_analysis_clear(&r->a);
}

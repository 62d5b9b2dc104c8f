/* Running one attention job: every check happens before the first large allocation. */
#include "job.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "output.h"
#include "plan_io.h"
#include "job_render.h"
#include "search.h"

AttnJob sim_job_default(void)
{
    return (AttnJob){ .policy = "fa3", .max_memory_mb = 4096, .trace_max_mb = 512,
                      .wl = { .n_sm = 132, .heads = 1, .kv_tiles = 132, .q_tiles = 132, .mask = MASK_FULL,
                              .tile_ratio = 1, .head_swizzle = 1 },
                      .costs = { .c_ns = 1000, .r_ns = 500, .reduce = REDUCE_SERIAL, .dq_buffers = 1 } };
}

double sim_job_estimate_bytes(const AttnJob *job)
{
    const Workload *wl = &job->wl;
    double tasks = sim_attention_tasks(wl);
    double matrix = job->unit_latency_ns || job->has_unit_latency ? 2.0 * wl->n_sm * wl->n_sm * sizeof(int32_t) : 0;
    return tasks * sim_attention_ops_per_task(&job->costs) * SIM_BYTES_PER_OP + matrix;
}

int64_t sim_job_physical_memory_mb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (int64_t)pages * page >> 20 : 1 << 20;
}

SimStatus sim_job_check_size(const AttnJob *job, SimError *err)
{
    const Workload *wl = &job->wl;
    double matrix = job->unit_latency_ns || job->has_unit_latency ? 2.0 * wl->n_sm * wl->n_sm * sizeof(int32_t) : 0;
    return sim_attention_check_size(wl, &job->costs, matrix, job->max_memory_mb, err);
}

SimStatus sim_job_check_times(const AttnJob *job, int64_t tasks, SimError *err)
{
    const AttnCosts *c = &job->costs;
    int64_t latency = c->latency_ns;
    if (job->unit_latency_ns)
        for (int64_t i = 0; i < (int64_t)job->wl.n_sm * job->wl.n_sm; i++)
            latency = MAX(latency, job->unit_latency_ns[i]);
    /* doubles: the sum itself must not overflow; the 2^62 bound leaves a factor 2 for rounding */
    double per_task = (double)c->c_ns + (double)c->r_ns + (double)c->cta_prologue_ns + (double)latency;
    double total = (double)tasks * per_task * job->wl.n_sm;
    if (c->c_ns < 0 || c->r_ns < 0 || c->cta_prologue_ns < 0 || latency < 0 || total >= (double)SIM_JOB_MAX_TIME_NS)
        return sim_error_set(err, SIM_ERR_LIMIT, "%" PRId64 " tasks x (c %" PRId64 " + r %" PRId64 " + prologue %"
                             PRId64 " + latency %" PRId64 " ns) x %d SMs is %.3g ns, over the simulator's bound of "
                             "2^62 ns: times could overflow", tasks, c->c_ns, c->r_ns, c->cta_prologue_ns, latency,
                             job->wl.n_sm, total);
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

/* A SYNC op is a CTA's prologue when it is the CTA's first op, else a task's deposit (async). */
/* SYNC ops by place (sim_attention_program): a CTA's first op is its prologue, one on the store engine a
 * reduction's completion (tail), any other a deposit. */
static bool is_prologue(const SimProgram *p, int64_t op)
{
    return sim_op_kind(p, op) == SIM_OP_SYNC && sim_op_engine(p, op) == 0 && op == p->ctas[sim_op_cta(p, op)].op_begin;
}

static bool is_tail(const SimProgram *p, int64_t op)
{
    return sim_op_kind(p, op) == SIM_OP_SYNC && sim_op_engine(p, op) >= 1;
}

/* The op's phase letter: C compute, R reduction, T its completion, P prologue, D deposit, W dK/dV write. */
static const char *phase_letter(const SimProgram *p, int64_t op)
{
    static const char *const letter[SIM_OP_KIND_COUNT] = { "C", "R", "V", "D", "W" };
    return is_prologue(p, op) ? "P" : is_tail(p, op) ? "T" : letter[sim_op_kind(p, op)];
}

/* An attention op's label templates: a task's op is named by its phase letter and head, "C h0" (a stable
 * name, so Perfetto gives a head and phase one colour), coloured by head, with args head, kv, q, rank (a
 * PlanTask's fields, in order); an op of no task by its kind alone. Indexed by attention_phase_of. */
enum { PHASE_PROLOGUE = SIM_OP_KIND_COUNT, PHASE_TAIL, PHASE_NO_TASK };
static const SimRenderPhase attention_phases[PHASE_NO_TASK + SIM_OP_KIND_COUNT] = {
    { "compute", "C h", 0, 0 }, { "reduce", "R h", 0, 0 }, { "vector", "V h", 0, 0 }, { "deposit", "D h", 0, 0 },
    { "kv-write", "W h", 0, 0 }, { "prologue", "P h", 0, 0 }, { "reduce-tail", "T h", 0, 0 },
    { "compute", "compute", -1, -1 }, { "reduce", "reduce", -1, -1 }, { "vector", "vector", -1, -1 },
    { "sync", "sync", -1, -1 }, { "write", "write", -1, -1 },
};
_Static_assert(sizeof(PlanTask) == 4 * sizeof(int32_t), "a PlanTask is the four label args head, kv, q, rank");

static int attention_phase(const SimProgram *p, int64_t op)
{
    SimOpKind kind = sim_op_kind(p, op);
    if (sim_op_task(p, op) < 0)
        return PHASE_NO_TASK + (int)kind;
    if (kind != SIM_OP_SYNC)
        return (int)kind;
    return is_prologue(p, op) ? PHASE_PROLOGUE : is_tail(p, op) ? PHASE_TAIL : (int)SIM_OP_SYNC;
}

static void attention_phase_of(void *ctx, int64_t first, int64_t count, uint8_t *out)
{
    const SimProgram *p = ((const AttnLabelCtx *)ctx)->prog;
    for (int64_t i = 0; i < count; i++)
        out[i] = (uint8_t)attention_phase(p, first + i);
}

/* The DOT graph's name of an op: its phase and tile pair, "C h0 kv3 q5". */
static void dot_label(void *ctx, int64_t op, char *buf, size_t len)
{
    const AttnLabelCtx *l = ctx;
    int32_t task = sim_op_task(l->prog, op);
    const PlanTask *t = task >= 0 ? &l->plan->tasks[task] : NULL;
    if (t)
        snprintf(buf, len, "%s h%d kv%d q%d", phase_letter(l->prog, op), t->head, t->kv, t->q);
    else
        snprintf(buf, len, "%s CTA %d", sim_op_kind_name(sim_op_kind(l->prog, op)), sim_op_cta(l->prog, op));
}

SimDotSpec sim_job_dot_spec(FILE *f, const AttnLabelCtx *l)
{
    return (SimDotSpec){ .f = f, .label = dot_label, .ctx = (void *)l };
}

SimRenderSpec sim_job_render_spec(const AttnJob *job, const Plan *plan, const SimProgram *prog,
                                  const SimSchedule *s, const SimAnalysis *a, AttnRenderText *t)
{
    const Workload *wl = &job->wl;
    const AttnCosts *c = &job->costs;
    const char *mask = plan_mask_name(wl->mask);
    const char *reduce = c->reduce == REDUCE_SERIAL ? "serial" : "async";
    const char *keys[ATTN_META_COUNT] = { "policy", "mask", "n_sm", "heads", "kv_tiles", "q_tiles", "c_ns",
                                          "r_ns", "latency_ns", "reduce", "dq_buffers" };
    int64_t nums[ATTN_META_COUNT] = { 0, 0, wl->n_sm, wl->heads, wl->kv_tiles, wl->q_tiles, c->c_ns, c->r_ns,
                                      c->latency_ns, 0, c->dq_buffers };
    for (int i = 0; i < ATTN_META_COUNT; i++) {
        snprintf(t->values[i], sizeof t->values[i], "%" PRId64, nums[i]);
        const char *text = i == 0 ? job->policy : i == 1 ? mask : i == 9 ? reduce : t->values[i];
        t->meta[i] = (SimRenderMeta){ keys[i], text };
    }
    snprintf(t->title, sizeof t->title, "%s, %s mask, %d SMs, %d head%s x %d KV x %d Q tiles, c %" PRId64 " ns, r %"
             PRId64 " ns, %s: makespan %" PRId64 " ns", job->policy, mask, wl->n_sm, wl->heads,
             wl->heads == 1 ? "" : "s", wl->kv_tiles, wl->q_tiles, c->c_ns, c->r_ns, reduce, s->makespan_ns);
    snprintf(t->device, sizeof t->device, "GPU (%d SMs)", wl->n_sm);
    t->label_ctx = (AttnLabelCtx){ plan, prog };
    return (SimRenderSpec){ .program = prog, .schedule = s, .analysis = a, .device = t->device, .unit_name = "SM",
                            .unit_column = "sm", .engine_names = { "compute", "reduction store", "reduction store 2",
                                              "reduction store 3", "reduction store 4", "reduction store 5",
                                              "reduction store 6", "reduction store 7" },
                            .arg_names = { "head", "kv", "q", "rank" }, .group_name = "head", .title = t->title,
                            .meta = t->meta, .meta_count = ATTN_META_COUNT,
                            .flow_edge_kinds = 1u << SIM_EDGE_ACCUM, .label_ctx = &t->label_ctx,
                            .phases = attention_phases, .phase_count = PHASE_NO_TASK + SIM_OP_KIND_COUNT,
                            .phase_of = attention_phase_of,
                            .task_args = plan ? (const int32_t *)plan->tasks : NULL, .task_arg_stride = 4 };
}

/* Trace, CSV, Gantt: pending in the job's output batch, so a later failure takes back the earlier ones. */
static SimStatus render_outputs(const AttnJob *job, const Plan *plan, const SimProgram *prog,
                                const SimSchedule *s, const SimAnalysis *a, SimError *err)
{
    AttnRenderText text;
    SimRenderSpec spec = sim_job_render_spec(job, plan, prog, s, a, &text);
    SimTraceOptions topt = { .has_flows = job->has_trace_flows, .max_bytes = job->trace_max_mb << 20,
                             .cap_flag = "--trace-max-mb", .cap_hint = "simulate fewer heads or tiles" };
    SimGanttOptions gopt = { .box_label_args = { job->has_gantt_labels ? "kv" : NULL, "q" } };
    if (job->trace_path)
        sim_render_trace(&spec, &topt, job->trace_path, err);
    if (!err->status && job->csv_path)
        sim_render_csv(&spec, job->csv_path, err);
    if (!err->status && job->gantt_path)
        sim_render_gantt(&spec, &gopt, job->gantt_path, err);
    return err->status;
}

/* The analysis the job asked for, raised to FULL when an output marks critical ops. */
static SimAnalysisLevel analysis_level(const AttnJob *job)
{
    bool needs_critical = job->dot_path || job->trace_path || job->csv_path || job->gantt_path;
    return needs_critical ? SIM_ANALYSIS_FULL : job->analysis;
}

/* The program of plan under costs (labelled when an output names its ops) run on the engine the job asks for.
 * *owned (see simulate) is freed once the program is built when nothing will need the plan again: no labels, and no
 * clock model that may ask for a second run. */
static bool run_engine(const AttnJob *job, const Plan *plan, Plan **owned, const AttnCosts *costs, SimProgram **prog,
                       SimSchedule *s, SimError *err)
{
    bool is_labelled = job->trace_path || job->csv_path || job->gantt_path || job->dot_path;
    *prog = (is_labelled ? sim_attention_program : sim_attention_program_untasked)(plan, costs);
    if (owned && *owned && !is_labelled && costs->clock.bins <= 0)
        plan_free(*owned), *owned = NULL;
    /* borrowed for the run, not copied: an n_sm x n_sm matrix (3.6 GB at 30000 SMs) held twice, and its
     * copies' holes in the heap between the rows of a sweep, took the peak past the estimate */
    (*prog)->unit_latency_ns = (int32_t *)job->unit_latency_ns;
    return (job->is_event_engine ? sim_engine_run_events : sim_engine_run)(*prog, s, err) == SIM_OK;
}

/* Program -> engine -> analysis (and the optional DOT file), then the rendered outputs. With a clock model the
 * engine may run twice (sim_attention_clock_adjust: a short launch's clock under the dip).
 * plan: the job's; *owned, when not NULL, is the same plan owned by the caller: freed here as soon as the
 * program is built if no output needs its labels (its memory then serves the engine instead). */
static SimStatus simulate(const AttnJob *job, const Plan *plan, Plan **owned, AttnResult *r, SimError *err)
{
    bool is_labelled = job->trace_path || job->csv_path || job->gantt_path || job->dot_path;
    AttnCosts costs; /* at the launch's clock, where the kernel profile has a clock model */
    sim_attention_clock_guess(&job->costs, plan, &costs, &r->clock_scale);
    SimProgram *prog;
    SimSchedule s = { 0 };
    bool is_run = run_engine(job, plan, owned, &costs, &prog, &s, err);
    bool has_clock = job->costs.clock.bins > 0; /* else run_engine may have freed the plan already */
    if (is_run && has_clock && sim_attention_clock_adjust(&job->costs, plan, s.makespan_ns, &costs, &r->clock_scale)) {
        sim_schedule_clear(&s), sim_program_free(prog);
        is_run = run_engine(job, plan, owned, &costs, &prog, &s, err);
    }
    if (owned && !is_labelled) {
        if (*owned)
            plan_free(*owned), *owned = NULL;
        plan = NULL;
    }
    SimOutput dot = { 0 };
    AttnLabelCtx labels = { plan, prog };
    if (!is_labelled) /* the engine's rules have read the ops' tasks; the analysis never does */
        sim_program_drop_tasks(prog);
    if (is_run &&
        (!job->dot_path || sim_output_open(&dot, job->dot_path, err) == SIM_OK)) {
        SimDotSpec dot_spec = sim_job_dot_spec(dot.f, &labels);
        if (sim_analyze_level(prog, &s, analysis_level(job), &r->a, dot.f ? &dot_spec : NULL, err) == SIM_OK &&
            job->dot_path)
            sim_output_commit(&dot, err);
    }
    sim_output_abort(&dot);
    if (!err->status)
        render_outputs(job, plan, prog, &s, &r->a, err);
    sim_schedule_clear(&s);
    prog->unit_latency_ns = NULL; /* the job's */
    sim_program_free(prog);
    return err->status;
}

/* A plan given by the caller (sim --plan): checked again here, since the job is a library entry point. */
static SimStatus run_given_plan(const AttnJob *job, AttnResult *r, SimError *err)
{
    if (plan_check(job->plan, "", err) != SIM_OK || sim_job_check_size(job, err) != SIM_OK ||
        sim_job_check_times(job, job->plan->task_count, err) != SIM_OK)
        return err->status;
    r->tasks = job->plan->task_count;
    if (!job->plan_path || write_plan(job->plan, &job->costs, job->plan_path, err) == SIM_OK)
        simulate(job, job->plan, NULL, r, err);
    return err->status;
}

/* Causal: KV tile j's first Q tile on the diagonal is j x tile_ratio; a KV tile with none would be an
 * empty CTA, which no policy or engine handles. */
static SimStatus check_causal_tiles(const Workload *wl, SimError *err)
{
    int64_t need = ((int64_t)wl->kv_tiles - 1) * wl->tile_ratio + 1;
    if (wl->mask == MASK_CAUSAL && wl->q_tiles < need)
        return sim_error_set(err, SIM_ERR_USAGE, "the causal mask with tile ratio %d and %d KV tiles needs at least "
                             "%" PRId64 " Q tiles (the last KV tile starts at Q tile %" PRId64 "), got %d",
                             wl->tile_ratio, wl->kv_tiles, need, need - 1, wl->q_tiles);
    return SIM_OK;
}

static SimStatus run_policy(const AttnJob *job, AttnResult *r, SimError *err)
{
    const PolicyOps *ops = policy_find(job->policy);
    const char *guess = ops ? NULL : policy_suggest(job->policy);
    if (!ops)
        return sim_error_set(err, SIM_ERR_USAGE, "unknown policy '%s'%s%s%s (sim --list-policies shows them)",
                             job->policy, guess ? "; did you mean '" : "", guess ? guess : "", guess ? "'?" : "");
    if (check_causal_tiles(&job->wl, err) != SIM_OK || sim_job_check_size(job, err) != SIM_OK)
        return err->status;
    PolicyQuery q = sim_policy_query(&job->wl, &job->costs, 1);
    Plan *plan = policy_build_query(ops, &q, err);
    if (!plan)
        return err->status;
    r->tasks = plan->task_count;
    r->has_closed_form = sim_closed_form_ns(ops, &job->wl, &job->costs, &r->closed_form_ns, &r->is_closed_form_exact);
    if (sim_job_check_times(job, plan->task_count, err) == SIM_OK &&
        (!job->plan_path || write_plan(plan, &job->costs, job->plan_path, err) == SIM_OK))
        simulate(job, plan, &plan, r, err);
    plan_free(plan);
    return err->status;
}

SimStatus sim_job_run(const AttnJob *job, AttnResult *r, SimError *err)
{
    *r = (AttnResult){ .clock_scale = 1 };
    int mark = sim_output_batch_begin();
    if (job->plan)
        run_given_plan(job, r, err);
    else
        run_policy(job, r, err);
    if (sim_output_batch_end(mark, err->status, err) != SIM_OK) /* an output failed after the analysis */
        sim_job_result_clear(r), *r = (AttnResult){ 0 };
    return err->status;
}

void sim_job_result_clear(AttnResult *r)
{
    sim_analysis_clear(&r->a);
}

/* The render spec and DOT names of an attention job's realized schedule (sim/run/job_render.h). A slice's
 * name is its phase and head only, so Perfetto, which colours slices by name, gives each head and phase one
 * colour in every trace; the tile pair and rank are arguments. */
#include "job_render.h"

#include <inttypes.h>
#include <stdio.h>

/* A SYNC op is a CTA's prologue when it is the CTA's first op, else a task's deposit (async). */
static bool is_prologue(const SimProgram *p, int64_t op)
{
    return p->ops[op].kind == SIM_OP_SYNC && op == p->ctas[p->ops[op].cta].op_begin;
}

/* The op's phase letter: C compute, R reduction, P prologue, D deposit. */
static const char *phase_letter(const SimProgram *p, int64_t op)
{
    static const char *const letter[SIM_OP_KIND_COUNT] = { "C", "R", "V", "D" };
    return is_prologue(p, op) ? "P" : letter[p->ops[op].kind];
}

/* Labels an attention op by its plan task: "C h0", args head, kv, q, rank; colour = head. */
static void label_attention_op(void *ctx, int64_t op, SimRenderLabel *out)
{
    const SimJobRenderText *l = ctx;
    const SimOp *o = &l->prog->ops[op];
    if (o->task < 0)
        return;
    const PlanTask *t = &l->plan->tasks[o->task];
    if (o->kind == SIM_OP_SYNC)
        out->phase = is_prologue(l->prog, op) ? "prologue" : "deposit";
    snprintf(out->name, sizeof out->name, "%s h%d", phase_letter(l->prog, op), t->head);
    out->group = t->head;
    out->args[0] = t->head, out->args[1] = t->kv, out->args[2] = t->q, out->args[3] = t->rank;
}

SimRenderSpec sim_job_render_spec(const AttnJob *job, const Plan *plan, const SimProgram *prog,
                                  const SimSchedule *s, const SimAnalysis *a, SimJobRenderText *t)
{
    const Workload *wl = &job->wl;
    const AttnCosts *c = &job->costs;
    const char *mask = plan_mask_name(wl->mask);
    const char *reduce = c->reduce == REDUCE_SERIAL ? "serial" : "async";
    const char *keys[SIM_JOB_META_COUNT] = { "policy", "mask", "n_sm", "heads", "kv_tiles", "q_tiles", "c_ns",
                                             "r_ns", "latency_ns", "reduce", "dq_buffers" };
    int64_t nums[SIM_JOB_META_COUNT] = { 0, 0, wl->n_sm, wl->heads, wl->kv_tiles, wl->q_tiles, c->c_ns, c->r_ns,
                                         c->latency_ns, 0, c->dq_buffers };
    for (int i = 0; i < SIM_JOB_META_COUNT; i++) {
        snprintf(t->values[i], sizeof t->values[i], "%" PRId64, nums[i]);
        const char *text = i == 0 ? job->policy : i == 1 ? mask : i == 9 ? reduce : t->values[i];
        t->meta[i] = (SimRenderMeta){ keys[i], text };
    }
    snprintf(t->title, sizeof t->title, "%s, %s mask, %d SMs, %d head%s x %d KV x %d Q tiles, c %" PRId64 " ns, r %"
             PRId64 " ns, %s: makespan %" PRId64 " ns", job->policy, mask, wl->n_sm, wl->heads,
             wl->heads == 1 ? "" : "s", wl->kv_tiles,
             wl->q_tiles, c->c_ns, c->r_ns, reduce, s->makespan_ns);
    snprintf(t->device, sizeof t->device, "GPU (%d SMs)", wl->n_sm);
    t->plan = plan, t->prog = prog;
    return (SimRenderSpec){ .program = prog, .schedule = s, .analysis = a, .device = t->device, .unit_name = "SM",
                            .unit_column = "sm", .engine_names = { "compute", "reduction store" },
                            .arg_names = { "head", "kv", "q", "rank" }, .group_name = "head", .title = t->title,
                            .meta = t->meta, .meta_count = SIM_JOB_META_COUNT,
                            .flow_edge_kinds = 1u << SIM_EDGE_ACCUM, .label = label_attention_op, .label_ctx = t };
}

static void dot_label(void *ctx, int64_t op, char *buf, size_t len)
{
    const SimJobRenderText *l = ctx;
    const SimOp *o = &l->prog->ops[op];
    if (o->task < 0) {
        snprintf(buf, len, "%s CTA %d", sim_op_kind_name(o->kind), o->cta);
        return;
    }
    const PlanTask *t = &l->plan->tasks[o->task];
    snprintf(buf, len, "%s h%d kv%d q%d", phase_letter(l->prog, op), t->head, t->kv, t->q);
}

SimDotSpec sim_job_dot_spec(FILE *f, SimJobRenderText *t)
{
    return (SimDotSpec){ .f = f, .label = dot_label, .ctx = t };
}

/* Measured traces: their lifetime (reading them is sim/io/trace_in.c's job) and their run as a schedule of
 * the model's program, so measured and modelled runs are drawn alike. */
#include "trace.h"

#include <glib.h>

void sim_trace_free(Trace *t)
{
    if (!t)
        return;
    g_free(t->path), g_free(t->policy), g_free(t->group), g_free(t->gpu_name), g_free(t->tasks);
    g_free(t);
}

/* Per plan task, the index of t's row with the same (head, kv, q); SIM_ERR_INPUT when one is missing. */
static int64_t *match_rows(const Trace *t, const Plan *plan, SimError *err)
{
    const Workload *wl = &plan->wl;
    int64_t pairs = (int64_t)wl->heads * wl->kv_tiles * wl->q_tiles;
    int64_t *row_of_pair = g_new(int64_t, pairs), *row = g_new(int64_t, plan->task_count);
    for (int64_t i = 0; i < pairs; i++)
        row_of_pair[i] = -1;
    for (int64_t i = 0; i < t->task_count; i++) {
        const TraceTask *r = &t->tasks[i];
        if (r->head < wl->heads && r->kv < wl->kv_tiles && r->q < wl->q_tiles)
            row_of_pair[((int64_t)r->head * wl->kv_tiles + r->kv) * wl->q_tiles + r->q] = i;
    }
    for (int64_t k = 0; k < plan->task_count && !err->status; k++) {
        const PlanTask *pt = &plan->tasks[k];
        row[k] = row_of_pair[((int64_t)pt->head * wl->kv_tiles + pt->kv) * wl->q_tiles + pt->q];
        if (row[k] < 0)
            sim_error_set(err, SIM_ERR_INPUT, "%s: the plan's task (head %d, kv %d, q %d) has no row in the trace",
                          t->path, pt->head, pt->kv, pt->q);
    }
    g_free(row_of_pair);
    if (err->status)
        g_free(row), row = NULL;
    return row;
}

SimStatus sim_trace_schedule(const Trace *t, const Plan *plan, const SimProgram *prog, SimSchedule *out,
                             SimError *err)
{
    *out = (SimSchedule){ 0 };
    int64_t *row = match_rows(t, plan, err);
    if (!row)
        return err->status;
    out->start_ns = g_new(int64_t, prog->op_count), out->end_ns = g_new(int64_t, prog->op_count);
    out->cta_unit = g_new(int32_t, prog->cta_count);
    out->cta_dispatch_ns = g_new(int64_t, prog->cta_count), out->cta_end_ns = g_new0(int64_t, prog->cta_count);
    for (int32_t c = 0; c < prog->cta_count; c++) {
        const TraceTask *first = &t->tasks[row[plan->ctas[c].task_begin]];
        out->cta_unit[c] = first->smid, out->cta_dispatch_ns[c] = first->c_start;
    }
    for (int64_t op = 0; op < prog->op_count; op++) {
        const TraceTask *r = &t->tasks[row[sim_op_task(prog, op)]];
        SimOpKind kind = sim_op_kind(prog, op);
        int32_t cta = sim_op_cta(prog, op);
        /* a SYNC op is a prologue (first op of its CTA) or a deposit: neither has a measured span */
        bool is_deposit = kind == SIM_OP_SYNC && op > prog->ctas[cta].op_begin;
        int64_t start = kind == SIM_OP_REDUCE ? r->r_start : is_deposit ? r->c_end : r->c_start;
        int64_t end = kind == SIM_OP_REDUCE ? r->r_end : kind == SIM_OP_COMPUTE ? r->c_end : start;
        out->start_ns[op] = start, out->end_ns[op] = end;
        out->cta_end_ns[cta] = MAX(out->cta_end_ns[cta], end);
        out->makespan_ns = MAX(out->makespan_ns, end);
    }
    g_free(row);
    return SIM_OK;
}

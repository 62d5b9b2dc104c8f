/* Compiling an attention plan into an engine program. Each task's ops are appended in the CTA's task
 * order, so program order on each engine is the plan's order; accumulation edges follow the ranks. */
#include "attention.h"

#include <glib.h>

#include "prefault.h"

int sim_attention_ops_per_task(ReduceMode reduce)
{
    return reduce == REDUCE_SERIAL ? 2 : 3;
}

/* Accumulation edges: the reduction of rank k-1 of each row precedes the one of rank k. Added in task
 * order (= op order), so the engine and the analysis read the edge array front to back. */
static void add_accumulation_edges(SimProgram *prog, const Plan *plan, const int32_t *reduce_op,
                                   int32_t latency_ns)
{
    const Workload *wl = &plan->wl;
    int64_t rows = (int64_t)wl->heads * wl->q_tiles;
    int64_t *row_first = g_new0(int64_t, rows + 1);
    for (int64_t t = 0; t < plan->task_count; t++)
        row_first[(int64_t)plan->tasks[t].head * wl->q_tiles + plan->tasks[t].q + 1]++;
    for (int64_t row = 0; row < rows; row++)
        row_first[row + 1] += row_first[row];
    int32_t *by_rank = SIM_PREFAULT_NEW(int32_t, plan->task_count);
    for (int64_t t = 0; t < plan->task_count; t++) {
        const PlanTask *task = &plan->tasks[t];
        by_rank[row_first[(int64_t)task->head * wl->q_tiles + task->q] + task->rank] = reduce_op[t];
    }
    for (int64_t t = 0; t < plan->task_count; t++) { /* in task order: edges then lie in op order */
        const PlanTask *task = &plan->tasks[t];
        int64_t row = (int64_t)task->head * wl->q_tiles + task->q, next = row_first[row] + task->rank + 1;
        if (next < row_first[row + 1])
            sim_program_add_edge(prog, reduce_op[t], by_rank[next], latency_ns, SIM_EDGE_ACCUM);
    }
    g_free(by_rank);
    g_free(row_first);
}

SimProgram *sim_attention_program(const Plan *plan, const AttnCosts *costs)
{
    bool is_async = costs->reduce == REDUCE_ASYNC;
    SimProgram *prog = sim_program_new(plan->wl.n_sm, is_async ? 2 : 1);
    sim_program_reserve(prog, plan->task_count * sim_attention_ops_per_task(costs->reduce) + plan->cta_count,
                        plan->task_count * (is_async ? 3 : 1));
    /* Filled nearly to capacity (the reserve is exact but for a little slack): fault the pages in now */
    sim_prefault(prog->ops, sizeof *prog->ops * prog->op_capacity);
    sim_prefault(prog->edges, sizeof *prog->edges * prog->edge_capacity);
    int32_t *reduce_op = SIM_PREFAULT_NEW(int32_t, plan->task_count); /* op ids: below 2^31 (sim_program_seal) */
    for (int32_t c = 0; c < plan->cta_count; c++) {
        const PlanCta *cta = &plan->ctas[c];
        sim_program_add_cta(prog, plan->is_persistent ? cta->slot : -1);
        if (costs->cta_prologue_ns > 0)
            sim_program_add_op(prog, 0, SIM_OP_SYNC, costs->cta_prologue_ns, cta->task_begin);
        for (int32_t i = 0; i < cta->task_count; i++) {
            int32_t t = cta->task_begin + i;
            sim_program_add_op(prog, 0, SIM_OP_COMPUTE, costs->c_ns, t);
            if (!is_async) {
                reduce_op[t] = (int32_t)sim_program_add_op(prog, 0, SIM_OP_REDUCE, costs->r_ns, t);
                continue;
            }
            int64_t deposit = sim_program_add_op(prog, 0, SIM_OP_SYNC, costs->deposit_ns, t);
            reduce_op[t] = (int32_t)sim_program_add_op(prog, 1, SIM_OP_REDUCE, costs->r_ns, t);
            sim_program_add_edge(prog, deposit, reduce_op[t], 0, SIM_EDGE_PHASE);
            if (i >= costs->dq_buffers)
                sim_program_add_edge(prog, reduce_op[t - costs->dq_buffers], deposit, 0, SIM_EDGE_BUFFER);
        }
    }
    add_accumulation_edges(prog, plan, reduce_op, (int32_t)costs->latency_ns);
    if (costs->load)
        sim_program_set_load(prog, costs->load->slowdown_ppm, costs->load->slowdown_len,
                             costs->load->handoff_extra_ns, costs->load->handoff_len);
    g_free(reduce_op);
    sim_program_seal(prog);
    return prog;
}

/* Plan file writer; the format is line-oriented so CUDA host code reads it with fscanf. */
#include "plan_io.h"

#include <inttypes.h>

bool sim_plan_write(const Plan *plan, const AttnCosts *costs, FILE *f)
{
    const Workload *wl = &plan->wl;
    fprintf(f, "dashsim-plan 1\npolicy %s\nmask %s\ntile_ratio %d\nn_sm %d\nheads %d\nkv_tiles %d\n"
            "q_tiles %d\nc_ns %" PRId64 "\nr_ns %" PRId64 "\nlatency_ns %" PRId64 "\nreduce %s\n"
            "dq_buffers %d\npersistent %d\nctas %d\ntasks %" PRId64 "\n",
            plan->policy, plan_mask_name(wl->mask), wl->tile_ratio, wl->n_sm, wl->heads,
            wl->kv_tiles, wl->q_tiles, costs->c_ns, costs->r_ns, costs->latency_ns,
            costs->reduce == REDUCE_SERIAL ? "serial" : "async", costs->dq_buffers, plan->is_persistent,
            plan->cta_count, plan->task_count);
    for (int32_t c = 0; c < plan->cta_count; c++) {
        const PlanCta *cta = &plan->ctas[c];
        fprintf(f, "cta %d %d %d\n", c, cta->slot, cta->task_count);
        for (int32_t i = cta->task_begin; i < cta->task_begin + cta->task_count; i++)
            fprintf(f, "t %d %d %d %d\n", plan->tasks[i].head, plan->tasks[i].kv, plan->tasks[i].q,
                    plan->tasks[i].rank);
    }
    fprintf(f, "end\n");
    return !ferror(f);
}

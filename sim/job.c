/* Running one attention job: every check happens before the first large allocation. */
#include "job.h"

#include <glib.h>
#include <inttypes.h>

#include "output.h"
#include "plan_io.h"

AttnJob sim_job_default(void)
{
    return (AttnJob){ .policy = "fa3", .max_memory_mb = 4096,
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

/* Program -> engine -> analysis (and the optional DOT file). */
static SimStatus simulate(const AttnJob *job, const Plan *plan, AttnResult *r, SimError *err)
{
    SimProgram *prog = sim_attention_program(plan, &job->costs);
    if (job->unit_latency_ns)
        prog->unit_latency_ns = g_memdup2(job->unit_latency_ns, sizeof(int32_t) * job->wl.n_sm * job->wl.n_sm);
    SimSchedule s = { 0 };
    SimOutput dot = { 0 };
    if (sim_engine_run(prog, &s, err) == SIM_OK &&
        (!job->dot_path || sim_output_open(&dot, job->dot_path, err) == SIM_OK) &&
        sim_analyze(prog, &s, &r->a, dot.f, err) == SIM_OK && job->dot_path)
        sim_output_commit(&dot, err);
    sim_output_abort(&dot);
    sim_schedule_clear(&s);
    sim_program_free(prog);
    return err->status;
}

SimStatus sim_job_run(const AttnJob *job, AttnResult *r, SimError *err)
{
    *r = (AttnResult){ 0 };
    const PolicyOps *ops = policy_find(job->policy);
    if (!ops)
        return sim_error_set(err, SIM_ERR_USAGE, "unknown policy '%s' (sim --list-policies shows them)",
                             job->policy);
    if (sim_job_check_size(job, err) != SIM_OK)
        return err->status;
    char msg[256];
    Plan *plan = policy_build(ops, &job->wl, msg, sizeof msg);
    if (!plan)
        return sim_error_set(err, SIM_ERR_SCHEDULE, "%s", msg);
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

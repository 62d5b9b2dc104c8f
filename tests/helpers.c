/* Test helpers: the pipeline of sim_job_run without its CLI-facing checks and outputs. */
#include "helpers.h"

#include <stdio.h>

#include <check.h>

Workload tst_workload(int n, int heads, Mask mask)
{
    return (Workload){ .n_sm = n, .heads = heads, .kv_tiles = n, .q_tiles = n, .mask = mask, .tile_ratio = 1,
                       .head_swizzle = 1 };
}

AttnCosts tst_costs(int64_t c, int64_t r, int64_t latency_ns, ReduceMode reduce)
{
    return (AttnCosts){ .c_ns = c, .r_ns = r, .latency_ns = latency_ns, .reduce = reduce, .dq_buffers = 1 };
}

TstRun tst_run(const char *policy, const Workload *wl, const AttnCosts *costs, bool with_dag)
{
    TstRun out = { 0 };
    SimError build_err = { 0 };
    const PolicyOps *ops = policy_find(policy);
    ck_assert_ptr_nonnull(ops);
    Plan *plan = policy_build(ops, wl, &build_err);
    if (!plan)
        return out;
    SimProgram *prog = sim_attention_program(plan, costs);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(prog, &s, &err), SIM_OK);
    out.is_ok = true;
    out.makespan_ns = s.makespan_ns;
    if (with_dag) {
        SimAnalysis a;
        ck_assert_int_eq(sim_analyze(prog, &s, &a, NULL, &err), SIM_OK);
        out.critical_path_ns = a.critical_path_ns;
        out.lemma1_violations = a.lemma1_violations;
        sim_analysis_clear(&a);
    }
    sim_schedule_clear(&s);
    sim_program_free(prog);
    plan_free(plan);
    return out;
}

static int skipped;

void tst_skip(const char *suite, const char *what, const char *why)
{
    skipped++;
    printf("skip %s: %s: %s\n", suite, what, why);
}

int tst_skipped(void)
{
    return skipped;
}

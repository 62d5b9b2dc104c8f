/* Conformance: every registered policy, on every mask it supports, over shapes with waves, uneven
 * tiles, tile ratio 2, head swizzle, both reduction modes and signal latency, must give a schedule in
 * which each task runs once, every dependency holds, no SM holds two CTAs at once, makespan >= the
 * plan's critical path (no SM limit) and the engine's makespan equals the critical path of the realized
 * DAG (with SM occupancy), which is >= work / n. The checks read the realized schedule only. */
#include "dag.h"
#include "helpers.h"
#include "tests.h"

#include <check.h>
#include <glib.h>

typedef struct {
    int n, heads, kv, q, ratio, swizzle;
} Shape;

static const Shape shapes[] = {
    { 4, 2, 4, 4, 1, 1 }, { 5, 3, 6, 6, 1, 2 }, { 8, 4, 8, 8, 1, 1 }, { 4, 3, 4, 8, 2, 2 },
    { 7, 2, 10, 12, 1, 1 }, { 16, 3, 8, 8, 1, 3 }, { 3, 4, 2, 2, 1, 1 }, { 1, 2, 4, 4, 1, 1 },
};

/* Longest path over ops with program-order and plan edges only (no SM limit, no latency). */
static int64_t plan_critical_path(const SimProgram *p)
{
    Dag *g = dag_new(p->op_count);
    for (int64_t op = 0; op < p->op_count; op++) {
        dag_set_node(g, op, p->ops[op].duration_ns, 0);
        if (p->next_on_engine[op] >= 0)
            dag_add_edge(g, op, p->next_on_engine[op], 0, 0, true);
    }
    for (int64_t e = 0; e < p->edge_count; e++)
        dag_add_edge(g, p->edges[e].from, p->edges[e].to, 0, 1, false);
    char err[128];
    ck_assert(dag_solve(g, err, sizeof err));
    int64_t cp = dag_critical_path_ns(g);
    dag_free(g);
    return cp;
}

/* Returns the busiest engine's total work (the SMs' work / n bound needs the realized DAG). */
static int64_t check_schedule(const Plan *plan, const SimProgram *p, const SimSchedule *s)
{
    int per_task = p->engines_per_unit == 1 ? 2 : 3;
    int *seen = g_new0(int, plan->task_count);
    int64_t work[2] = { 0, 0 };
    for (int64_t op = 0; op < p->op_count; op++) {
        const SimOp *o = &p->ops[op];
        int32_t c = o->cta;
        seen[o->task]++;
        work[o->engine] += o->duration_ns;
        ck_assert_int_ge(s->start_ns[op], s->cta_dispatch_ns[c]);
        ck_assert_int_le(s->end_ns[op], s->cta_end_ns[c]);
        ck_assert_int_eq(s->end_ns[op] - s->start_ns[op], o->duration_ns);
        if (p->next_on_engine[op] >= 0)
            ck_assert_int_ge(s->start_ns[p->next_on_engine[op]], s->end_ns[op]);
    }
    for (int64_t t = 0; t < plan->task_count; t++)
        ck_assert_int_eq(seen[t], per_task);
    for (int64_t e = 0; e < p->edge_count; e++) {
        const SimEdge *edge = &p->edges[e];
        int64_t lat = sim_program_edge_latency(p, e, s->cta_unit[p->ops[edge->from].cta],
                                               s->cta_unit[p->ops[edge->to].cta]);
        ck_assert_int_ge(s->start_ns[edge->to], s->end_ns[edge->from] + lat);
    }
    for (int32_t a = 0; a < p->cta_count; a++) /* CTAs on one unit never overlap */
        for (int32_t b = a + 1; b < p->cta_count; b++)
            if (s->cta_unit[a] == s->cta_unit[b])
                ck_assert(s->cta_end_ns[a] <= s->cta_dispatch_ns[b] || s->cta_end_ns[b] <= s->cta_dispatch_ns[a]);
    ck_assert_int_ge(s->makespan_ns, plan_critical_path(p)); /* the plan's own bound, no SM limit */
    g_free(seen);
    return MAX(work[0], work[1]);
}

static void run_case(const PolicyOps *ops, const Workload *wl, const AttnCosts *costs)
{
    char msg[256];
    Plan *plan = policy_build(ops, wl, msg, sizeof msg);
    if (!plan)
        return; /* refused with a sentence (odd N for symmetric-shift, M < N for shift): tested elsewhere */
    SimProgram *p = sim_attention_program(plan, costs);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_msg(sim_engine_run(p, &s, &err) == SIM_OK, "%s: %s", ops->name, err.msg);
    int64_t busiest = check_schedule(plan, p, &s);
    SimAnalysis a;
    ck_assert_int_eq(sim_analyze(p, &s, &a, NULL, &err), SIM_OK);
    ck_assert_msg(a.critical_path_ns == s.makespan_ns, "%s n=%d m=%d: engine %" G_GINT64_FORMAT " != DAG %"
                  G_GINT64_FORMAT, ops->name, wl->n_sm, wl->heads, s.makespan_ns, a.critical_path_ns);
    ck_assert_int_ge(a.critical_path_ns * p->n_units, busiest); /* realized DAG >= work / n, no rounding */
    ck_assert_int_ge(a.busy_ns, 0);
    ck_assert_int_eq(a.bubble_ns + a.busy_ns, (int64_t)p->n_units * s.makespan_ns);
    sim_analysis_clear(&a);
    sim_schedule_clear(&s);
    sim_program_free(p);
    plan_free(plan);
}

START_TEST(every_policy_conforms)
{
    const AttnCosts cost_cases[] = {
        tst_costs(1000, 500, 0, REDUCE_SERIAL), tst_costs(300, 900, 250, REDUCE_SERIAL),
        tst_costs(1000, 500, 0, REDUCE_ASYNC), tst_costs(400, 700, 600, REDUCE_ASYNC),
    };
    int ran = 0;
    for (int i = 0; i < policy_count(); i++)
        for (int mask = 0; mask < 2; mask++)
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
                for (size_t c = 0; c < sizeof cost_cases / sizeof cost_cases[0]; c++) {
                    const Shape *sh = &shapes[k];
                    Workload wl = { .n_sm = sh->n, .heads = sh->heads, .kv_tiles = sh->kv, .q_tiles = sh->q,
                                    .mask = mask ? MASK_CAUSAL : MASK_FULL, .tile_ratio = sh->ratio,
                                    .head_swizzle = sh->swizzle };
                    AttnCosts costs = cost_cases[c];
                    costs.dq_buffers = 1 + (int)(k % 2);
                    run_case(policy_at(i), &wl, &costs);
                    ran++;
                }
    ck_assert_int_eq(ran, policy_count() * 2 * 8 * 4);
}
END_TEST

/* Lemma 1 on real schedules: the DASH schedules respect chain depth, FA3's does not. */
START_TEST(lemma1_on_schedules)
{
    AttnCosts costs = tst_costs(1000, 500, 0, REDUCE_SERIAL);
    for (int n = 2; n <= 16; n += 2) {
        Workload full = tst_workload(n, 2, MASK_FULL), causal = tst_workload(n, 2, MASK_CAUSAL);
        ck_assert_int_eq(tst_run("shift", &full, &costs, true).lemma1_violations, 0);
        ck_assert_int_eq(tst_run("symmetric-shift", &causal, &costs, true).lemma1_violations, 0);
        ck_assert_int_gt(tst_run("fa3", &full, &costs, true).lemma1_violations, 0);
        ck_assert_int_gt(tst_run("fa3", &causal, &costs, true).lemma1_violations, 0);
    }
}
END_TEST

Suite *suite_conformance(void)
{
    Suite *s = suite_create("conformance");
    TCase *tc = tcase_create("all_policies");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_policy_conforms);
    tcase_add_test(tc, lemma1_on_schedules);
    suite_add_tcase(s, tc);
    return s;
}

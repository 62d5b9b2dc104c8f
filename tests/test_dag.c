/* DAG analysis: longest path, slack, depth, cycles, and Lemma 1 as a property over random graphs:
 * on n isomorphic chains with positive weights, zero-weight edges (u, v) with depth(u) < depth(v) never
 * change the critical path; one edge with depth(u) >= depth(v) always lengthens it (if still a DAG). */
#include "dag.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
#include <string.h>

START_TEST(longest_path_slack_and_depth)
{
    /* a(3) -> b(4) -> d(1); a -> c(2) -> d with edge weight 5 */
    Dag *g = dag_new(4);
    dag_set_node(g, 0, 3, 0), dag_set_node(g, 1, 4, 0), dag_set_node(g, 2, 2, 0), dag_set_node(g, 3, 1, 0);
    dag_add_edge(g, 0, 1, 0, 0, true);
    dag_add_edge(g, 1, 3, 0, 0, true);
    dag_add_edge(g, 0, 2, 0, 0, true);
    int64_t e = dag_add_edge(g, 2, 3, 5, 1, false);
    SimError err = { 0 };
    ck_assert_int_eq(dag_solve(g, &err), SIM_OK);
    ck_assert_int_eq(dag_critical_path_ns(g), 3 + 2 + 5 + 1);
    ck_assert_int_eq(dag_slack_ns(g, 1), 3);
    ck_assert_int_eq(dag_slack_ns(g, 2), 0);
    ck_assert_int_eq(dag_depth(g, 3), 2);
    const int64_t *nodes, *edges;
    ck_assert_int_eq(dag_critical_path(g, &nodes, &edges), 3);
    ck_assert_int_eq(nodes[1], 2);
    ck_assert_int_eq(edges[1], e);
    dag_free(g);
}
END_TEST

START_TEST(cycle_is_reported)
{
    Dag *g = dag_new(2);
    dag_add_edge(g, 0, 1, 0, 0, true);
    dag_add_edge(g, 1, 0, 0, 0, true);
    SimError err = { 0 };
    ck_assert_int_eq(dag_solve(g, &err), SIM_ERR_SCHEDULE);
    ck_assert_ptr_nonnull(strstr(err.msg, "cycle"));
    dag_free(g);
}
END_TEST

enum { CHAINS = 6, LEN = 10 };

/* G0: CHAINS chains of LEN nodes, node j of every chain weighing w[j] > 0. Node id = chain*LEN + j. */
static Dag *isomorphic_chains(const int64_t *w)
{
    Dag *g = dag_new(CHAINS * LEN);
    for (int a = 0; a < CHAINS; a++)
        for (int j = 0; j < LEN; j++) {
            dag_set_node(g, a * LEN + j, w[j], 0);
            if (j)
                dag_add_edge(g, a * LEN + j - 1, a * LEN + j, 0, 0, true);
        }
    return g;
}

START_TEST(lemma1_property)
{
    GRand *rng = g_rand_new_with_seed(20261122);
    int violating_checked = 0;
    for (int trial = 0; trial < 400; trial++) {
        int64_t w[LEN], cp0 = 0;
        for (int j = 0; j < LEN; j++)
            cp0 += w[j] = g_rand_int_range(rng, 1, 100);
        Dag *g = isomorphic_chains(w);
        int extra = g_rand_int_range(rng, 0, 20);
        for (int k = 0; k < extra; k++) { /* depth-monotone: node i of chain a -> node j > i of chain b */
            int a = g_rand_int_range(rng, 0, CHAINS), b = g_rand_int_range(rng, 0, CHAINS);
            int i = g_rand_int_range(rng, 0, LEN - 1), j = g_rand_int_range(rng, i + 1, LEN);
            dag_add_edge(g, a * LEN + i, b * LEN + j, 0, 1, false);
        }
        bool is_violating = trial % 2;
        if (is_violating) { /* one edge with depth(u) >= depth(v) between different chains */
            int a = g_rand_int_range(rng, 0, CHAINS - 1), b = g_rand_int_range(rng, a + 1, CHAINS);
            int i = g_rand_int_range(rng, 0, LEN), j = g_rand_int_range(rng, 0, i + 1);
            dag_add_edge(g, a * LEN + i, b * LEN + j, 0, 1, false);
        }
        SimError err = { 0 };
        if (dag_solve(g, &err) == SIM_OK) {
            ck_assert_int_eq(dag_count_depth_violations(g, 1), is_violating ? 1 : 0);
            if (is_violating) {
                ck_assert_int_gt(dag_critical_path_ns(g), cp0);
                violating_checked++;
            } else {
                ck_assert_int_eq(dag_critical_path_ns(g), cp0);
            }
        } else {
            ck_assert(is_violating); /* only a depth-decreasing edge can close a cycle */
        }
        dag_free(g);
    }
    ck_assert_int_gt(violating_checked, 100);
    g_rand_free(rng);
}
END_TEST

Suite *suite_dag(void)
{
    Suite *s = suite_create("dag");
    TCase *tc = tcase_create("analysis");
    tcase_add_test(tc, longest_path_slack_and_depth);
    tcase_add_test(tc, cycle_is_reported);
    tcase_add_test(tc, lemma1_property);
    suite_add_tcase(s, tc);
    return s;
}

/* Block masks and schedule search: the generators keep what their spec says, the bounds hold, every
 * schedule the search returns is a checked, deadlock-free plan no slower than the hand-made orders, the
 * search matches Shift and Symmetric Shift on their masks, and on tiny instances it is compared with the
 * exhaustive optimum. */
#include "engine.h"
#include "helpers.h"
#include "mask.h"
#include "search.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
#include <string.h>

static BlockMask make(const char *spec, int tiles)
{
    BlockMask m;
    SimError err = { 0 };
    ck_assert_msg(sim_mask_make(spec, tiles, tiles, &m, &err) == SIM_OK, "%s: %s", spec, err.msg);
    return m;
}

START_TEST(generators_keep_what_they_say)
{
    BlockMask m = make("window:3", 10);
    ck_assert_int_eq(sim_mask_count(&m), 1 + 2 + 3 * 8); /* rows 0 and 1 have fewer than 3 */
    for (int kv = 0; kv < 10; kv++)
        for (int q = 0; q < 10; q++)
            ck_assert_int_eq(m.keep[kv * 10 + q], kv <= q && q - kv < 3);
    sim_mask_clear(&m);
    m = make("document:4,6", 10); /* causal inside [0,4) and [4,10) */
    ck_assert_int_eq(sim_mask_count(&m), 10 + 21);
    ck_assert_int_eq(m.keep[3 * 10 + 4], 0);
    sim_mask_clear(&m);
    m = make("prefix:2", 5); /* kv 0, 1 everywhere, causal after */
    ck_assert_int_eq(sim_mask_count(&m), 5 + 5 + 3 + 2 + 1);
    sim_mask_clear(&m);
    BlockMask a = make("random:0.3:7", 20), b = make("random:0.3:7", 20), c = make("random:0.3:8", 20);
    ck_assert_mem_eq(a.keep, b.keep, 400);
    ck_assert(memcmp(a.keep, c.keep, 400) != 0);
    sim_mask_clear(&a), sim_mask_clear(&b), sim_mask_clear(&c);
}
END_TEST

START_TEST(bad_specs_say_why)
{
    static const char *const bad[] = { "window:0", "window:x", "document:4,4", "document:", "prefix:-1",
                                       "random:0:1", "random:2:1", "diagonal", "window:3:", NULL };
    for (int i = 0; bad[i]; i++) {
        BlockMask m;
        SimError err = { 0 };
        ck_assert_int_eq(sim_mask_make(bad[i], 10, 10, &m, &err), SIM_ERR_USAGE);
        ck_assert_ptr_nonnull(strstr(err.msg, bad[i]));
        ck_assert_ptr_null(m.keep);
    }
}
END_TEST

static SearchResult search(const char *spec, int n, int heads, int tiles, const AttnCosts *costs, int iterations,
                           int64_t exact, BlockMask *m)
{
    *m = make(spec, tiles);
    Workload wl = { .n_sm = n, .heads = heads, .head_swizzle = 1 };
    sim_mask_apply(m, &wl);
    SearchOptions o = { .iterations = iterations, .seed = 3, .exact_max_combinations = exact };
    SearchResult r;
    SimError err = { 0 };
    ck_assert_int_eq(sim_search(&wl, costs, &o, &r, &err), SIM_OK);
    return r;
}

/* The plan is checked, runs (no deadlock) to the reported makespan, is no slower than any baseline that
 * ran and no faster than the bound. */
static void check_result(const SearchResult *r, const AttnCosts *costs)
{
    SimError err = { 0 };
    ck_assert_int_eq(plan_check(r->plan, "", &err), SIM_OK);
    SimProgram *p = sim_attention_program(r->plan, costs);
    SimSchedule s = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(s.makespan_ns, r->makespan_ns);
    ck_assert_int_ge(r->makespan_ns, r->bounds.lower_bound_ns);
    for (int i = 0; i < r->baseline_count; i++)
        ck_assert_int_le(r->makespan_ns, r->baselines[i].makespan_ns);
    sim_schedule_clear(&s);
    sim_program_free(p);
}

START_TEST(every_mask_kind_gives_a_checked_schedule)
{
    static const char *const specs[] = { "full", "causal", "window:3", "window:2:2", "document:5,3,4", "prefix:3",
                                         "random:0.3:1", NULL };
    AttnCosts serial = tst_costs(1000, 500, 200, REDUCE_SERIAL), async = tst_costs(700, 900, 300, REDUCE_ASYNC);
    for (int i = 0; specs[i]; i++)
        for (int mode = 0; mode < 2; mode++) {
            BlockMask m;
            SearchResult r = search(specs[i], 4, 3, 12, mode ? &async : &serial, 20, 0, &m);
            check_result(&r, mode ? &async : &serial);
            sim_search_result_clear(&r);
            sim_mask_clear(&m);
        }
}
END_TEST

/* On Shift's and Symmetric Shift's own masks the search is as fast as they are (they are among its
 * baselines, and the search keeps the best). */
START_TEST(matches_dash_on_full_and_causal)
{
    AttnCosts costs = tst_costs(1000, 500, 0, REDUCE_SERIAL);
    BlockMask m;
    SearchResult r = search("full", 8, 4, 8, &costs, 10, 0, &m);
    ck_assert_int_eq(r.makespan_ns, 4 * 8 * 1500); /* Shift's closed form m n (c + r) = the work bound */
    sim_search_result_clear(&r), sim_mask_clear(&m);
    r = search("causal", 8, 4, 8, &costs, 10, 0, &m);
    ck_assert_int_eq(r.makespan_ns, 4 * 9 * 1500 / 2); /* Symmetric Shift: m (n+1)(c+r)/2 */
    sim_search_result_clear(&r), sim_mask_clear(&m);
}
END_TEST

/* Tiny instances: the exhaustive optimum is no worse than any heuristic found and no better than the
 * bound; the search reports it. */
START_TEST(exact_on_tiny_instances)
{
    AttnCosts costs = tst_costs(1000, 700, 100, REDUCE_SERIAL);
    BlockMask m;
    SearchResult r = search("window:2", 2, 1, 3, &costs, 10, 1000000, &m);
    ck_assert(r.has_exact);
    ck_assert_int_le(r.exact_ns, r.baselines[0].makespan_ns);
    ck_assert_int_ge(r.exact_ns, r.bounds.lower_bound_ns);
    ck_assert_int_eq(r.makespan_ns, r.exact_ns); /* the search keeps the best it saw, the optimum included */
    check_result(&r, &costs);
    sim_search_result_clear(&r), sim_mask_clear(&m);
}
END_TEST

/* GQA: every CTA of the found schedule and of the baselines holds one KV head's tile for all the query
 * heads of its group, and the bound counts the group's chain. */
START_TEST(gqa_keeps_a_group_on_one_cta)
{
    AttnCosts costs = tst_costs(1000, 500, 100, REDUCE_SERIAL);
    BlockMask m = make("window:3", 12);
    Workload wl = { .n_sm = 4, .heads = 6, .head_swizzle = 1 };
    sim_mask_apply(&m, &wl);
    SearchOptions o = { .iterations = 10, .seed = 2, .gqa_group = 3 };
    SearchResult r;
    SimError err = { 0 };
    ck_assert_int_eq(sim_search(&wl, &costs, &o, &r, &err), SIM_OK);
    check_result(&r, &costs);
    ck_assert_int_eq(r.bounds.chain_ns, 3 * 3 * 1500); /* 3 rows x 3 query heads on one SM */
    Plan *base = sim_search_handmade(&wl, "spt", 3);
    const Plan *plans[] = { r.plan, base };
    for (int k = 0; k < 2; k++)
        for (int32_t c = 0; c < plans[k]->cta_count; c++) {
            const PlanCta *cta = &plans[k]->ctas[c];
            const PlanTask *first = &plans[k]->tasks[cta->task_begin];
            bool seen[3] = { false, false, false };
            for (int32_t i = 0; i < cta->task_count; i++) {
                const PlanTask *t = &plans[k]->tasks[cta->task_begin + i];
                ck_assert_int_eq(t->kv, first->kv);
                ck_assert_int_eq(t->head / 3, first->head / 3);
                seen[t->head % 3] = true;
            }
            ck_assert(seen[0] && seen[1] && seen[2]);
        }
    plan_free(base);
    sim_search_result_clear(&r);
    o.gqa_group = 4; /* does not divide 6 */
    ck_assert_int_eq(sim_search(&wl, &costs, &o, &r, &err), SIM_ERR_USAGE);
    sim_mask_clear(&m);
}
END_TEST

START_TEST(rank_table_lists_each_rows_order)
{
    AttnCosts costs = tst_costs(1000, 500, 0, REDUCE_SERIAL);
    BlockMask m;
    SearchResult r = search("causal", 4, 2, 4, &costs, 0, 0, &m);
    int32_t width;
    int32_t *table = sim_search_rank_table(r.plan, &width);
    ck_assert_int_eq(width, 4);
    for (int64_t t = 0; t < r.plan->task_count; t++) {
        const PlanTask *task = &r.plan->tasks[t];
        ck_assert_int_eq(table[((int64_t)task->head * 4 + task->q) * width + task->rank], task->kv);
    }
    ck_assert_int_eq(table[0 * width + 1], -1); /* row 0 of head 0 has one contributor */
    g_free(table);
    sim_search_result_clear(&r), sim_mask_clear(&m);
}
END_TEST

Suite *suite_search(void)
{
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("masks");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, generators_keep_what_they_say);
    tcase_add_test(tc, bad_specs_say_why);
    tcase_add_test(tc, every_mask_kind_gives_a_checked_schedule);
    tcase_add_test(tc, matches_dash_on_full_and_causal);
    tcase_add_test(tc, exact_on_tiny_instances);
    tcase_add_test(tc, rank_table_lists_each_rows_order);
    tcase_add_test(tc, gqa_keeps_a_group_on_one_cta);
    suite_add_tcase(s, tc);
    return s;
}

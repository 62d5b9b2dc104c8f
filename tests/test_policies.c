/* Policies on small shapes checked by hand: task order per CTA, launch order, ranks, and refusals. */
#include "helpers.h"
#include "tests.h"

#include <check.h>
#include <string.h>

static Plan *build(const char *name, const Workload *wl)
{
    SimError err = { 0 };
    Plan *plan = policy_build(policy_find(name), wl, &err);
    ck_assert_msg(plan != NULL, "%s: %s", name, err.msg);
    return plan;
}

static const PlanTask *task(const Plan *plan, int cta, int i)
{
    ck_assert_int_lt(i, plan->ctas[cta].task_count);
    return &plan->tasks[plan->ctas[cta].task_begin + i];
}

START_TEST(registry_lists_every_policy_once)
{
    ck_assert_int_gt(policy_count(), 0);
    for (int i = 0; i < policy_count(); i++) {
        const PolicyOps *p = policy_at(i);
        ck_assert_ptr_eq(policy_find(p->name), p); /* names are unique: find returns this entry */
        char masks[32];
        policy_mask_names(p, masks, sizeof masks);
        ck_assert(p->name[0] && p->summary[0] && p->build && p->supports && masks[0]); /* some mask */
    }
    for (const char *const *name = (const char *const[]){ "fa3", "fa3-spt", "descending", "shift",
                                                           "symmetric-shift", NULL }; *name; name++)
        ck_assert_ptr_nonnull(policy_find(*name)); /* the paper's schedules stay registered */
    ck_assert_ptr_null(policy_find("nope"));
}
END_TEST

START_TEST(fa3_full_ascending_everything)
{
    Workload wl = tst_workload(3, 2, MASK_FULL);
    Plan *plan = build("fa3", &wl);
    ck_assert_int_eq(plan->cta_count, 6);
    ck_assert_int_eq(task(plan, 4, 0)->head, 1); /* launch: kv fastest, then head */
    ck_assert_int_eq(task(plan, 4, 0)->kv, 1);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(task(plan, 4, i)->q, i);
        ck_assert_int_eq(task(plan, 4, i)->rank, 1); /* rank = kv */
    }
    plan_free(plan);
}
END_TEST

START_TEST(descending_walks_rows_down_to_the_diagonal)
{
    Workload wl = tst_workload(4, 1, MASK_CAUSAL);
    Plan *plan = build("descending", &wl);
    ck_assert_int_eq(plan->ctas[1].task_count, 3);
    ck_assert_int_eq(task(plan, 1, 0)->q, 3);
    ck_assert_int_eq(task(plan, 1, 2)->q, 1);
    plan_free(plan);
}
END_TEST

START_TEST(spt_launches_short_tiles_first_and_reverses_rows)
{
    Workload wl = tst_workload(4, 1, MASK_CAUSAL);
    Plan *plan = build("fa3-spt", &wl);
    ck_assert_int_eq(task(plan, 0, 0)->kv, 3); /* shortest: KV tile 3 touches row 3 only */
    ck_assert_int_eq(task(plan, 0, 0)->rank, 0);
    ck_assert_int_eq(task(plan, 3, 3)->kv, 0); /* KV tile 0, row 3: last of 4 in descending KV */
    ck_assert_int_eq(task(plan, 3, 3)->rank, 3);
    plan_free(plan);
}
END_TEST

START_TEST(lpt_swizzle_interleaves_heads)
{
    /* S_w = 2, 3 heads, N = 2: positions 0..3 are (h0,0) (h1,0) (h0,1) (h1,1); then head 2 alone. */
    Workload wl = { .n_sm = 4, .heads = 3, .kv_tiles = 2, .q_tiles = 2, .mask = MASK_CAUSAL, .tile_ratio = 1,
                    .head_swizzle = 2 };
    const int32_t head[] = { 0, 1, 0, 1, 2, 2 }, raw[] = { 0, 0, 1, 1, 0, 1 };
    for (int t = 0; t < 6; t++) {
        int32_t h, r;
        plan_lpt_position(&wl, t, &h, &r);
        ck_assert_int_eq(h, head[t]);
        ck_assert_int_eq(r, raw[t]);
    }
}
END_TEST

START_TEST(shift_rows_are_cyclic_and_ranked_by_step)
{
    Workload wl = tst_workload(4, 1, MASK_FULL);
    Plan *plan = build("shift", &wl);
    for (int kv = 0; kv < 4; kv++)
        for (int t = 0; t < 4; t++) {
            ck_assert_int_eq(task(plan, kv, t)->q, (kv + t) % 4);
            ck_assert_int_eq(task(plan, kv, t)->rank, t);
        }
    plan_free(plan);
}
END_TEST

START_TEST(symmetric_shift_pairs_long_with_short)
{
    Workload wl = tst_workload(4, 2, MASK_CAUSAL);
    Plan *plan = build("symmetric-shift", &wl);
    ck_assert(plan->is_persistent);
    ck_assert_int_eq(plan->cta_count, 4);        /* 2 heads x N/2 chunks */
    for (int c = 0; c < 4; c++) {
        ck_assert_int_eq(plan->ctas[c].slot, c);
        ck_assert_int_eq(plan->ctas[c].task_count, 5); /* n + 1 tasks per chunk */
    }
    ck_assert_int_eq(task(plan, 1, 0)->kv, 1);
    ck_assert_int_eq(task(plan, 1, 4)->kv, 2);   /* then the short tile N-1-k */
    plan_free(plan);
}
END_TEST

START_TEST(refusals_say_why)
{
    SimError e = { 0 };
    const char *err = e.msg;
    Workload wl = tst_workload(3, 1, MASK_CAUSAL);
    ck_assert_ptr_null(policy_build(policy_find("symmetric-shift"), &wl, (e = (SimError){ 0 }, &e)));
    ck_assert_ptr_nonnull(strstr(err, "even number of KV tiles"));
    wl = tst_workload(4, 1, MASK_FULL);
    ck_assert_ptr_null(policy_build(policy_find("symmetric-shift"), &wl, (e = (SimError){ 0 }, &e)));
    ck_assert_ptr_nonnull(strstr(err, "not defined for the full mask"));
    ck_assert_ptr_null(policy_build(policy_find("fa3-spt"), &wl, (e = (SimError){ 0 }, &e)));
    wl.q_tiles = 3;
    ck_assert_ptr_null(policy_build(policy_find("shift"), &wl, (e = (SimError){ 0 }, &e)));
    ck_assert_ptr_nonnull(strstr(err, "at least as many Q tiles"));
    wl = tst_workload(4, 1, MASK_CAUSAL);
    ck_assert_ptr_null(policy_build(policy_find("shift"), &wl, (e = (SimError){ 0 }, &e)));
    ck_assert_ptr_null(policy_build(policy_find("spt"), &wl, (e = (SimError){ 0 }, &e)));
    ck_assert_str_eq(err, "policy spt is not defined for the causal mask; use fa3-spt");
    ck_assert_ptr_null(policy_build(policy_find("ascending"), &wl, (e = (SimError){ 0 }, &e)));
    ck_assert_ptr_nonnull(strstr(err, "policy ascending is not defined for the causal mask; the policies for it are "
                                      "fa3, fa3-spt, descending, symmetric-shift")); /* and any added since */
    uint8_t keep[16] = { 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1 };
    wl.mask = MASK_BLOCK, wl.keep = keep;
    ck_assert_ptr_null(policy_build(policy_find("fa3"), &wl, (e = (SimError){ 0 }, &e)));
    ck_assert_ptr_nonnull(strstr(err, "policy fa3 is not defined for the block mask; the policies for it are "
                                      "ascending, descending, spt, search"));
    ck_assert_ptr_null(policy_build(policy_find("search"), &wl, (e = (SimError){ 0 }, &e))); /* no costs: no time */
    ck_assert_str_eq(err, "policy search needs the costs to build a plan");
    wl.heads = 2;
    PolicyQuery q = { .wl = &wl, .gqa_group = 2 };
    ck_assert_ptr_null(policy_build_query(policy_find("descending"), &q, (e = (SimError){ 0 }, &e)));
    ck_assert_str_eq(err, "policy descending serves one query head a CTA (no GQA)");
}
END_TEST

/* The tile orders on a block mask, by hand: KV tile 0 keeps rows 0, 1; tile 1 row 1; tile 2 none; tile 3
 * rows 0, 2, 3. ascending: head by head, tiles ascending, the empty tile left out; spt: fewest rows first
 * (ties: later head, later tile); descending: each tile's rows from the last; rows in launch order. */
START_TEST(tile_orders_on_a_block_mask)
{
    static const uint8_t keep[16] = { 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1 };
    Workload wl = tst_workload(4, 2, MASK_BLOCK);
    wl.n_sm = 2, wl.keep = keep;
    static const int32_t asc[6][2] = { { 0, 0 }, { 0, 1 }, { 0, 3 }, { 1, 0 }, { 1, 1 }, { 1, 3 } };
    static const int32_t spt[6][2] = { { 1, 1 }, { 0, 1 }, { 1, 0 }, { 0, 0 }, { 1, 3 }, { 0, 3 } };
    for (int k = 0; k < 3; k++) {
        Plan *plan = build((const char *[]){ "ascending", "spt", "descending" }[k], &wl);
        ck_assert_int_eq(plan->cta_count, 6);
        for (int c = 0; c < 6; c++) {
            const int32_t *want = k == 1 ? spt[c] : asc[c];
            ck_assert_int_eq(task(plan, c, 0)->head, want[0]);
            ck_assert_int_eq(task(plan, c, 0)->kv, want[1]);
        }
        const PlanCta *last = &plan->ctas[k == 1 ? 4 : 2]; /* head 1's (spt) or head 0's (else) tile 3 */
        ck_assert_int_eq(last->task_count, 3);
        ck_assert_int_eq(plan->tasks[last->task_begin].q, k == 2 ? 3 : 0);
        for (int64_t t = 0; t < plan->task_count; t++) /* row 1 of head 0: tile 0 first, then 1, in launch order */
            if (plan->tasks[t].head == 0 && plan->tasks[t].q == 1)
                ck_assert_int_eq(plan->tasks[t].rank, plan->tasks[t].kv == 0 ? (k == 1 ? 1 : 0) : (k == 1 ? 0 : 1));
        plan_free(plan);
    }
}
END_TEST

/* plan_check, the invariant the engine and gpu/ share: each violation refused with a sentence. */
START_TEST(plan_check_refuses_each_violation)
{
    Workload wl = tst_workload(4, 2, MASK_CAUSAL);
    SimError err = { 0 };
    Plan *plan = build("fa3", &wl);
    ck_assert_int_eq(plan_check(plan, "", &err), SIM_OK);
    for (int v = 0; v < 6; v++) {
        Plan *bad = build("fa3", &wl);
        if (v == 0)
            for (int64_t i = 0; i < bad->task_count; i++)
                bad->tasks[i].rank = 0; /* every row's ranks all 0: not a permutation */
        else if (v == 1)
            bad->tasks[1] = bad->tasks[0]; /* a repeated pair (and a missing one) */
        else if (v == 2)
            bad->ctas[1].task_begin++; /* CTAs no longer partition the tasks */
        else if (v == 3)
            bad->ctas[0].slot = 0; /* a pin in a plan that is not persistent */
        else if (v == 4)
            bad->tasks[0].q = -1; /* out of range */
        else
            plan_add_cta(bad, -1); /* an empty CTA (the engine would have nothing to run on its unit) */
        err = (SimError){ 0 };
        ck_assert_int_eq(plan_check(bad, "x: ", &err), SIM_ERR_SCHEDULE);
        ck_assert_msg(strncmp(err.msg, "x: plan fa3", 11) == 0, "%s", err.msg);
        plan_free(bad);
    }
    plan_free(plan);
}
END_TEST

Suite *suite_policies(void)
{
    Suite *s = suite_create("policies");
    TCase *tc = tcase_create("plans");
    tcase_add_test(tc, registry_lists_every_policy_once);
    tcase_add_test(tc, fa3_full_ascending_everything);
    tcase_add_test(tc, descending_walks_rows_down_to_the_diagonal);
    tcase_add_test(tc, spt_launches_short_tiles_first_and_reverses_rows);
    tcase_add_test(tc, lpt_swizzle_interleaves_heads);
    tcase_add_test(tc, shift_rows_are_cyclic_and_ranked_by_step);
    tcase_add_test(tc, symmetric_shift_pairs_long_with_short);
    tcase_add_test(tc, refusals_say_why);
    tcase_add_test(tc, tile_orders_on_a_block_mask);
    tcase_add_test(tc, plan_check_refuses_each_violation);
    suite_add_tcase(s, tc);
    return s;
}

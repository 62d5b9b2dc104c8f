/* The DASH paper's closed forms, checked against the engine to the nanosecond, and the exact conditions
 * under which each holds (both sides tested). Shape of the paper: N = M = n, tile ratio 1, serial
 * reduction, heads launched one after another. */
#include "helpers.h"
#include "tests.h"

#include <check.h>

static const int sizes[] = { 1, 2, 3, 8, 64, 131, 132 };
static const int heads[] = { 1, 2, 4, 16 };
static const int64_t ratios[][2] = { { 1000, 500 }, { 500, 1000 }, { 700, 700 }, { 1000, 1 }, { 1, 1000 }, { 1000, 0 } };
#define N_SIZES (int)(sizeof sizes / sizeof sizes[0])
#define N_HEADS (int)(sizeof heads / sizeof heads[0])
#define N_RATIOS (int)(sizeof ratios / sizeof ratios[0])

/* All ratios, except at the two largest n with 16 heads (one ratio keeps the suite under a few seconds). */
static int ratio_count(int n, int m)
{
    return n > 100 && m == 16 ? 1 : N_RATIOS;
}

static int64_t makespan(const char *policy, int n, int m, Mask mask, int64_t c, int64_t r, int64_t latency)
{
    Workload wl = tst_workload(n, m, mask);
    AttnCosts costs = tst_costs(c, r, latency, REDUCE_SERIAL);
    TstRun run = tst_run(policy, &wl, &costs, false);
    ck_assert_msg(run.is_ok, "%s rejected n=%d m=%d", policy, n, m);
    return run.makespan_ns;
}

/* Every (n, m, c:r) of the grid; check(n, m, c, r) asserts one case. */
static void for_grid(bool is_even_heads_only, void (*check)(int n, int m, int64_t c, int64_t r))
{
    for (int i = 0; i < N_SIZES; i++)
        for (int j = 0; j < N_HEADS; j++) {
            if (is_even_heads_only && heads[j] % 2)
                continue;
            for (int k = 0; k < ratio_count(sizes[i], heads[j]); k++)
                check(sizes[i], heads[j], ratios[k][0], ratios[k][1]);
        }
}

static void check_fa3_full(int n, int m, int64_t c, int64_t r)
{
    ck_assert_int_eq(makespan("fa3", n, m, MASK_FULL, c, r, 0), (int64_t)m * n * (c + r) + (n - 1) * r);
}

static void check_shift_full(int n, int m, int64_t c, int64_t r)
{
    ck_assert_int_eq(makespan("shift", n, m, MASK_FULL, c, r, 0), (int64_t)m * n * (c + r));
}

/* The paper derives it for one head and calls the m-head form approximate; it is exact for every m. */
static void check_fa3_causal(int n, int m, int64_t c, int64_t r)
{
    ck_assert_int_eq(makespan("fa3", n, m, MASK_CAUSAL, c, r, 0), (int64_t)m * n * (c + r) + (n - 1) * r);
}

static void check_symmetric_shift(int n, int m, int64_t c, int64_t r)
{
    if (n % 2)
        return; /* pairs KV tiles: odd n is rejected, tested below */
    ck_assert_int_eq(makespan("symmetric-shift", n, m, MASK_CAUSAL, c, r, 0), (int64_t)m * (n + 1) * (c + r) / 2);
}

/* Paper: m(n+1)(c+r)/2 + (n-1)r. Exact iff c >= r or m = 2 (or n = 1); otherwise the simulator finds
 * exactly (m/2 - 1)(n - 1)(r - c) more: both sides asserted. */
static void check_descending(int n, int m, int64_t c, int64_t r)
{
    int64_t got = makespan("descending", n, m, MASK_CAUSAL, c, r, 0);
    int64_t paper = (int64_t)m * (n + 1) * (c + r) / 2 + (n - 1) * r;
    ck_assert_int_eq(got, sim_descending_exact_ns(n, m, c, r));
    if (c >= r || m == 2 || n == 1)
        ck_assert_int_eq(got, paper);
    else
        ck_assert_int_gt(got, paper);
}

START_TEST(fa3_full_mask) { for_grid(false, check_fa3_full); }
END_TEST
START_TEST(shift_full_mask) { for_grid(false, check_shift_full); }
END_TEST
START_TEST(fa3_causal_mask) { for_grid(false, check_fa3_causal); }
END_TEST
START_TEST(symmetric_shift_causal_even_heads) { for_grid(true, check_symmetric_shift); }
END_TEST
START_TEST(descending_causal_conditions) { for_grid(true, check_descending); }
END_TEST

/* Shift and Symmetric Shift stay optimal while the signal latency fits under one compute (each
 * accumulation edge has slack c); one nanosecond more and the makespan grows. From n = 4: at n = 2 a
 * Symmetric Shift head fits on one SM, so no edge crosses SMs and latency never applies. */
START_TEST(latency_up_to_c_keeps_the_optimum)
{
    const int64_t c = 1000, r = 400;
    for (int n = 4; n <= 16; n += 2) {
        ck_assert_int_eq(makespan("shift", n, 2, MASK_FULL, c, r, c), 2 * n * (c + r));
        ck_assert_int_gt(makespan("shift", n, 2, MASK_FULL, c, r, c + 1), 2 * n * (c + r));
        ck_assert_int_eq(makespan("symmetric-shift", n, 2, MASK_CAUSAL, c, r, c), (n + 1) * (c + r));
        ck_assert_int_gt(makespan("symmetric-shift", n, 2, MASK_CAUSAL, c, r, c + 1), (n + 1) * (c + r));
    }
}
END_TEST

/* Beyond the paper: at tile ratio s (hdim 128 causal has s = 2, M = sN) every slot carries the chunk
 * k, N-1-k with 2M - s(N-1) tasks, and the schedule stays bubble-free: T = (m/2)(2M - s(N-1))(c+r). */
START_TEST(symmetric_shift_tile_ratio_two)
{
    const int ns[] = { 2, 8, 64, 132 };
    for (int i = 0; i < 4; i++)
        for (int m = 2; m <= 4; m += 2)
            for (int s = 1; s <= 2; s++) {
                int n = ns[i];
                Workload wl = tst_workload(n, m, MASK_CAUSAL);
                wl.q_tiles = s * n, wl.tile_ratio = s;
                AttnCosts costs = tst_costs(1000, 300, 0, REDUCE_SERIAL);
                TstRun run = tst_run("symmetric-shift", &wl, &costs, true);
                ck_assert_int_eq(run.makespan_ns, (int64_t)m / 2 * (2 * s * n - s * (n - 1)) * 1300);
                ck_assert_int_eq(run.lemma1_violations, 0);
            }
}
END_TEST

/* The closed-form table the CLI reports agrees with the tests above on when it is exact. */
START_TEST(cli_closed_form_flags)
{
    Workload wl = tst_workload(8, 4, MASK_CAUSAL);
    AttnCosts costs = tst_costs(500, 1000, 0, REDUCE_SERIAL);
    int64_t ns;
    bool is_exact;
    ck_assert(sim_closed_form_ns(policy_find("descending"), &wl, &costs, &ns, &is_exact));
    ck_assert(!is_exact);
    costs = tst_costs(1000, 500, 0, REDUCE_SERIAL);
    ck_assert(sim_closed_form_ns(policy_find("descending"), &wl, &costs, &ns, &is_exact) && is_exact);
    ck_assert_int_eq(ns, makespan("descending", 8, 4, MASK_CAUSAL, 1000, 500, 0));
    ck_assert(!sim_closed_form_ns(policy_find("fa3-spt"), &wl, &costs, &ns, &is_exact));
    wl.kv_tiles = 7; /* not the paper's shape: no formula */
    ck_assert(!sim_closed_form_ns(policy_find("fa3"), &wl, &costs, &ns, &is_exact));
}
END_TEST

Suite *suite_closed_forms(void)
{
    Suite *s = suite_create("closed_forms");
    TCase *tc = tcase_create("dash");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fa3_full_mask);
    tcase_add_test(tc, shift_full_mask);
    tcase_add_test(tc, fa3_causal_mask);
    tcase_add_test(tc, symmetric_shift_causal_even_heads);
    tcase_add_test(tc, descending_causal_conditions);
    tcase_add_test(tc, latency_up_to_c_keeps_the_optimum);
    tcase_add_test(tc, symmetric_shift_tile_ratio_two);
    tcase_add_test(tc, cli_closed_form_flags);
    suite_add_tcase(s, tc);
    return s;
}

/* Cube/Vector preload pipelines: closed forms of serial and AMLA runs, the rotation of Theorem B.1 on
 * thousands of seeded random instances (both cases), the brute-force minimum Preload count against a naive
 * enumeration, Lemma B.2's adversarial instances, deadlocks, rings, and engine == DAG on every run. */
#include "pipeline.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
#include <math.h>
#include <string.h>

static PipeWorkload workload(int n, const int64_t *c, const int64_t *v, int64_t blocks)
{
    PipeWorkload wl = { .n_pairs = n, .blocks = blocks, .n_cube = 1, .n_vector = 1 };
    memcpy(wl.c_ns, c, n * sizeof *c);
    memcpy(wl.v_ns, v, n * sizeof *v);
    return wl;
}

/* The amla policy's Cycle, through the registry. */
static void amla_cycle(PipeCycle *out)
{
    const int64_t c[] = { 1, 1 }, v[] = { 1, 1 };
    PipeWorkload wl = workload(2, c, v, 1);
    SimError err = { 0 };
    const PipePolicyOps *p = pipe_policy_find("amla");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(pipe_policy_build(p, &wl, NULL, out, &err), SIM_OK);
}

static int64_t sum(const int64_t *x, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* Runs wl under cy and checks what must hold for every run: engine == DAG, busy time = work. */
static PipeResult run_checked(const PipeWorkload *wl, const PipeCycle *cy)
{
    PipeResult r;
    SimError err = { 0 };
    ck_assert_int_eq(pipe_run(wl, cy, &r, &err), SIM_OK);
    if (!r.is_deadlock) {
        ck_assert_int_eq(r.critical_path_ns, r.makespan_ns);
        ck_assert_int_eq(r.cube_busy_ns, wl->blocks * sum(wl->c_ns, wl->n_pairs));
        ck_assert_int_ge(r.makespan_ns, r.cube_busy_ns / wl->n_cube);
        /* Cycles run one after another (a barrier between them) are a feasible schedule, and no partial
         * Cycle of Preload or drain is longer than a full one: the ASAP engine can only do better. */
        if (!wl->has_v_last && !cy->is_serial && r.steady_cycle_ns >= 0)
            ck_assert_int_le(r.makespan_ns, (wl->blocks + r.preload_count) * r.steady_cycle_ns);
    }
    return r;
}

START_TEST(serial_is_blocks_times_all_stages)
{
    const int64_t c[] = { 1000, 800 }, v[] = { 600, 400 };
    PipeWorkload wl = workload(2, c, v, 8);
    PipeCycle cy;
    pipe_cycle_serial(2, &cy);
    PipeResult r = run_checked(&wl, &cy);
    ck_assert_int_eq(r.makespan_ns, 8 * 2800);
    ck_assert_int_eq(r.steady_cycle_ns, 2800);
    ck_assert(!r.is_stall_free);
    ck_assert_int_eq(r.preload_count, 0);
    pipe_result_clear(&r);
    /* Two Vector engines halve every Vector stage (engine 0 takes the odd ns). */
    const int64_t v3[] = { 601, 400 };
    wl = workload(2, c, v3, 5);
    wl.n_vector = 2;
    r = run_checked(&wl, &cy);
    ck_assert_int_eq(r.makespan_ns, 5 * (1800 + 301 + 200));
    pipe_result_clear(&r);
}
END_TEST

/* Worked by hand in docs/pipelines.md: C 1000, 900; V1 700; V2 0 except 300 on the last of 3 blocks. */
START_TEST(amla_three_blocks_by_hand)
{
    const int64_t c[] = { 1000, 900 }, v[] = { 700, 0 };
    PipeWorkload wl = workload(2, c, v, 3);
    wl.has_v_last = true;
    wl.v_last_ns[0] = 700, wl.v_last_ns[1] = 300;
    PipeCycle cy;
    amla_cycle(&cy);
    ck_assert_int_eq(pipe_cycle_preload(&cy), 2);
    PipeResult r = run_checked(&wl, &cy);
    ck_assert_int_eq(r.makespan_ns, 6000);
    ck_assert_int_eq(r.steady_cycle_ns, 1900);
    ck_assert(r.is_stall_free);
    pipe_result_clear(&r);
}
END_TEST

START_TEST(rotation_of_the_default_instance)
{
    const int64_t c[] = { 1000, 800 }, v[] = { 600, 400 };
    PipeRotation rot;
    PipeCycle cy;
    pipe_rotation(2, c, v, &rot, &cy);
    ck_assert_int_eq(rot.a_ns[0], -200);
    ck_assert_int_eq(rot.a_ns[1], -600);
    ck_assert_int_eq(rot.prefix_ns[2], -800);
    ck_assert_int_eq(rot.k, 2);
    ck_assert(rot.is_cube_dominated);
    const int order[] = { 2, 0, 1, 3 }, offset[] = { 0, 1, 2, 2 };
    for (int j = 0; j < 4; j++) {
        ck_assert_int_eq(cy.order[j], order[j]);
        ck_assert_int_eq(cy.offset[j], offset[j]);
    }
    char buf[128];
    pipe_cycle_format(&cy, buf, sizeof buf);
    ck_assert_str_eq(buf, " C2+2 C1+0 | V1+1 V2+2");
}
END_TEST

/* Random durations in [1, 1000]; is_vector_heavy scales V up so that sum V > sum C. */
static void random_instance(GRand *g, int n, bool is_vector_heavy, int64_t *c, int64_t *v)
{
    for (int p = 0; p < n; p++) {
        c[p] = g_rand_int_range(g, 1, 1001);
        v[p] = g_rand_int_range(g, 1, 1001);
    }
    int64_t *big = is_vector_heavy ? v : c, *small = is_vector_heavy ? c : v;
    if (sum(big, n) <= sum(small, n))
        big[g_rand_int_range(g, 0, n)] += sum(small, n) - sum(big, n) + 1;
}

START_TEST(rotation_with_preload_n_is_stall_free)
{
    GRand *g = g_rand_new_with_seed(20261122);
    int cases[2] = { 0, 0 };
    for (int n = 1; n <= 6; n++)
        for (int t = 0; t < 2000; t++) {
            int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS], period;
            random_instance(g, n, t % 2, c, v);
            PipeRotation rot;
            PipeCycle cy;
            pipe_rotation(n, c, v, &rot, &cy);
            cases[rot.is_cube_dominated]++;
            ck_assert_int_eq(pipe_cycle_preload(&cy), n);
            ck_assert_int_eq(pipe_cycle_period_fast(&cy, c, v), MAX(sum(c, n), sum(v, n)));
            if (t % 20 == 0) {   /* the engine agrees with the fast evaluator */
                SimError err = { 0 };
                ck_assert_int_eq(pipe_cycle_period(&cy, c, v, 0, &period, &err), SIM_OK);
                ck_assert_int_eq(period, MAX(sum(c, n), sum(v, n)));
            }
        }
    for (int t = 0; t < 300; t++) {   /* whole pipelines: engine == DAG and the barrier bound */
        int n = 1 + t % 6;
        int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
        random_instance(g, n, t % 2, c, v);
        PipeWorkload wl = workload(n, c, v, 1 + t % 13);
        wl.n_vector = 1 + t % 3;
        PipeRotation rot;
        PipeCycle cy;
        int64_t ce[PIPE_MAX_PAIRS], ve[PIPE_MAX_PAIRS];
        pipe_effective_durations(&wl, false, ce, ve);
        pipe_rotation(n, ce, ve, &rot, &cy);
        PipeResult r = run_checked(&wl, &cy);
        ck_assert(r.is_stall_free && !r.is_deadlock);
        pipe_result_clear(&r);
    }
    ck_assert_int_eq(cases[0], 6000);
    ck_assert_int_eq(cases[1], 6000);
    g_rand_free(g);
}
END_TEST

/* All permutations of 0..n-1 (n <= 3) into perms; returns their count. */
static int permutations(int n, int perms[6][3])
{
    int count = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            for (int c = 0; c < n; c++) {
                int x[3] = { a, b, c };
                bool is_perm = true;
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < i; j++)
                        is_perm &= x[i] != x[j];
                bool is_canonical = (n >= 2 || b == 0) && (n >= 3 || c == 0);
                if (is_perm && is_canonical)
                    memcpy(perms[count++], x, sizeof x);
            }
    return count;
}

/* Naive: every internal-edge set x every Cube order x every Vector order, ASAP without the engine. */
static int naive_min_preload(int n, const int64_t *c, const int64_t *v)
{
    int perms[6][3], nperm = permutations(n, perms), best = 2 * n;
    int64_t bound = MAX(sum(c, n), sum(v, n));
    for (int set = 0; set < 1 << (2 * n - 1); set++)
        for (int a = 0; a < nperm; a++)
            for (int b = 0; b < nperm; b++) {
                PipeCycle cy = { .n_pairs = n };
                for (int i = 0; i < n; i++) {
                    cy.order[i] = 2 * perms[a][i];
                    cy.order[n + i] = 2 * perms[b][i] + 1;
                }
                for (int j = 0; j + 1 < 2 * n; j++)
                    cy.offset[j + 1] = cy.offset[j] + !(set >> j & 1);
                if (pipe_cycle_period_fast(&cy, c, v) == bound)
                    best = MIN(best, pipe_cycle_preload(&cy));
            }
    ck_assert_int_eq(nperm, n == 1 ? 1 : n == 2 ? 2 : 6);
    return best;
}

START_TEST(brute_force_matches_naive_enumeration)
{
    GRand *g = g_rand_new_with_seed(7);
    for (int n = 1; n <= 3; n++)
        for (int t = 0; t < 300; t++) {
            int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
            random_instance(g, n, t % 2, c, v);
            if (t % 3 == 0)   /* small Vector stages make short Preloads possible */
                for (int p = 0; p < n; p++)
                    v[p] = 1 + v[p] / 20;
            ck_assert_int_eq(pipe_min_preload(n, c, v, NULL), naive_min_preload(n, c, v));
        }
    g_rand_free(g);
}
END_TEST

START_TEST(brute_force_witness_and_bound_n)
{
    GRand *g = g_rand_new_with_seed(11);
    const int count[7] = { 0, 2000, 2000, 1500, 600, 200, 40 };
    int below_n[7] = { 0 };
    for (int n = 1; n <= 6; n++)
        for (int t = 0; t < count[n]; t++) {
            int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS], period;
            random_instance(g, n, t % 2, c, v);
            if (t % 4 == 1)
                for (int p = 0; p < n; p++)
                    v[p] = 1 + v[p] / 10;
            PipeCycle w;
            int min = pipe_min_preload(n, c, v, &w);
            ck_assert_int_le(min, n);   /* Theorem B.1 */
            ck_assert_int_eq(pipe_cycle_preload(&w), min);
            SimError err = { 0 };
            ck_assert_int_eq(pipe_cycle_period(&w, c, v, 0, &period, &err), SIM_OK);
            ck_assert_int_eq(period, MAX(sum(c, n), sum(v, n)));
            below_n[n] += min < n;
        }
    /* n = 1, 2 with positive durations: Preload n is also necessary; from n = 3 on, sometimes not. */
    ck_assert_int_eq(below_n[1], 0);
    ck_assert_int_eq(below_n[2], 0);
    ck_assert_int_gt(below_n[3], 0);
    g_rand_free(g);
}
END_TEST

/* Lemma B.2: V_k + C_j > sum C for every j (and its mirror) leaves at most n - 1 internal chains. */
START_TEST(lemma_b2_instances_need_preload_n)
{
    GRand *g = g_rand_new_with_seed(3);
    for (int n = 1; n <= 6; n++)
        for (int t = 0; t < (n <= 4 ? 200 : 20); t++) {
            int64_t big[PIPE_MAX_PAIRS], small[PIPE_MAX_PAIRS];
            int k = g_rand_int_range(g, 0, n);
            int64_t lo = 1000000;
            for (int p = 0; p < n; p++) {
                big[p] = g_rand_int_range(g, n, 1001);
                lo = MIN(lo, big[p]);
            }
            int64_t total = sum(big, n), rest = lo - 1;   /* the other small stages share lo - 1 */
            for (int p = 0; p < n; p++)
                small[p] = p == k ? total - lo + 1 : rest / n;
            for (int p = 0; p < n; p++)
                ck_assert_int_gt(small[k] + big[p], total);
            bool is_mirror = t % 2;
            const int64_t *c = is_mirror ? small : big, *v = is_mirror ? big : small;
            ck_assert_int_eq(pipe_min_preload(n, c, v, NULL), n);
        }
    g_rand_free(g);
}
END_TEST

START_TEST(preload_n_minus_1_found_stall_free_for_n3)
{
    const int64_t c[] = { 5, 1, 1 }, v[] = { 1, 1, 1 };
    PipeCycle w;
    ck_assert_int_eq(pipe_min_preload(3, c, v, &w), 1);
    PipeWorkload wl = workload(3, c, v, 20);
    PipeResult r = run_checked(&wl, &w);
    ck_assert(r.is_stall_free);
    ck_assert_int_eq(r.preload_count, 1);
    pipe_result_clear(&r);
}
END_TEST

START_TEST(deadlock_is_reported_not_hung)
{
    const int64_t c[] = { 1000, 800 }, v[] = { 600, 400 };
    PipeWorkload wl = workload(2, c, v, 4);
    PipeCycle cy;
    SimError err = { 0 };
    ck_assert_int_eq(pipe_cycle_parse("C2,C1,V1,V2", 2, &cy, &err), SIM_OK);
    PipeResult r = run_checked(&wl, &cy);
    ck_assert(r.is_deadlock);
    ck_assert(strstr(r.deadlock_msg, "deadlocks") != NULL);
    ck_assert_int_eq(pipe_cycle_period_fast(&cy, c, v), -1);
    pipe_result_clear(&r);
}
END_TEST

START_TEST(rings_of_one_and_two_slots)
{
    const int64_t c[] = { 1000, 800 }, v[] = { 600, 400 };
    PipeWorkload wl = workload(2, c, v, 6);
    PipeRotation rot;
    PipeCycle cy;
    pipe_rotation(2, c, v, &rot, &cy);
    PipeResult free_run = run_checked(&wl, &cy);
    wl.ring_slots = 2;
    PipeResult two = run_checked(&wl, &cy);
    wl.ring_slots = 1;
    PipeResult one = run_checked(&wl, &cy), r1;
    ck_assert(!free_run.is_deadlock && !two.is_deadlock && !one.is_deadlock);
    ck_assert_int_eq(two.makespan_ns, free_run.makespan_ns);   /* two slots cost nothing */
    ck_assert(two.is_stall_free);
    /* One slot: each chain edge one Cycle apart becomes a wait inside the Cycle: C2 (800), then V1 (600;
     * its slot is freed by C2), then C1 (1000; its slot is freed by V1): 2400 ns. */
    ck_assert(!one.is_stall_free);
    ck_assert_int_eq(one.steady_cycle_ns, 2400);
    ck_assert_int_eq(one.makespan_ns, 15200);
    pipe_result_clear(&free_run);
    pipe_result_clear(&two);
    pipe_result_clear(&one);
    /* AMLA with one slot: C1 waits for V1, which waits for C2 (the P slot), which follows C1. */
    PipeCycle amla;
    amla_cycle(&amla);
    r1 = run_checked(&wl, &amla);
    ck_assert(r1.is_deadlock);
    ck_assert_int_eq(r1.steady_cycle_ns, -1);
    pipe_result_clear(&r1);
}
END_TEST

START_TEST(preload_count_can_be_set)
{
    const int64_t c[] = { 1000, 800, 500 }, v[] = { 600, 400, 300 };
    PipeRotation rot;
    PipeCycle cy;
    pipe_rotation(3, c, v, &rot, &cy);
    pipe_cycle_set_preload(&cy, 5);
    ck_assert_int_eq(pipe_cycle_preload(&cy), 5);
    ck_assert_int_eq(pipe_cycle_period_fast(&cy, c, v), 2300);
    pipe_cycle_set_preload(&cy, 0);
    ck_assert_int_eq(pipe_cycle_preload(&cy), 0);
    ck_assert_int_eq(pipe_cycle_period_fast(&cy, c, v), -1);   /* C2 first waits on C1 behind it */
    pipe_cycle_serial(3, &cy);                                 /* chain order: never deadlocks */
    cy.is_serial = false;
    pipe_cycle_set_preload(&cy, 1);
    ck_assert_int_eq(pipe_cycle_preload(&cy), 1);
    ck_assert_int_eq(pipe_cycle_period_fast(&cy, c, v), 3300); /* V3 alone crosses Cycles */
}
END_TEST

START_TEST(cycle_parse_errors)
{
    const char *bad[] = { "C1,C1,V1,V2", "C3,C1,V1,V2", "X1,C2,V1,V2", "C1+,C2,V1,V2", "C1,C2,V1",
                          "C1+1,V1,C2+1,V2+1", "C1,C2,V1,V2,V1", "C1,C2,V1,V2x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        PipeCycle cy;
        SimError err = { 0 };
        ck_assert_int_eq(pipe_cycle_parse(bad[i], 2, &cy, &err), SIM_ERR_USAGE);
        ck_assert(strstr(err.msg, "--order") != NULL);
    }
    PipeCycle cy;
    SimError err = { 0 };
    ck_assert_int_eq(pipe_cycle_parse("C1,C2+2,V1+1,V2+2", 2, &cy, &err), SIM_OK);
    ck_assert_int_eq(pipe_cycle_preload(&cy), 2);
}
END_TEST

START_TEST(stage_cost_models)
{
    PipeAscendModel m = pipe_ascend_910();
    int64_t c[2], v[2];
    pipe_mla_costs(&m, 128, false, c, v);
    ck_assert_int_eq(c[0], 5120);             /* 2 x 128 x 512 x 576 FLOP at 14745.6 FLOP/ns */
    ck_assert_int_eq(c[1], 4552);             /* 2 x 128 x 512 x 512, rounded up */
    ck_assert_int_eq(v[1], 23593);            /* 12 B x 65536 at 33.3 B/ns */
    pipe_mla_costs(&m, 128, true, c, v);
    ck_assert_int_eq(v[1], 0);
    pipe_vfa_costs(16, 32, false, c, v);
    ck_assert_int_eq(c[0], 512);              /* 2 x 128^3 FLOP at 8192 FLOP/ns */
    int64_t cv[2], vv[2];
    pipe_vfa_costs(16, 32, true, cv, vv);
    ck_assert_int_lt(vv[0], v[0]);
    ck_assert_int_eq(vv[1], 0);
}
END_TEST

/* Offsets never decrease along the chain and every stage is issued once: the Cycle invariant. */
static void check_cycle(const PipeCycle *cy, int n)
{
    bool is_seen[PIPE_MAX_STAGES] = { false };
    ck_assert_int_eq(cy->n_pairs, n);
    for (int i = 0; i < 2 * n; i++) {
        ck_assert(cy->order[i] >= 0 && cy->order[i] < 2 * n && !is_seen[cy->order[i]]);
        is_seen[cy->order[i]] = true;
    }
    for (int j = 0; j + 1 < 2 * n; j++)
        ck_assert_int_le(cy->offset[j], cy->offset[j + 1]);
}

START_TEST(pipeline_registry_lookup)
{
    ck_assert_int_ge(pipe_policy_count(), 1);
    ck_assert_ptr_null(pipe_policy_at(-1));
    ck_assert_ptr_null(pipe_policy_at(pipe_policy_count()));
    ck_assert_ptr_null(pipe_policy_find("no-such-policy"));
    char *all = pipe_policy_names("|", NULL, false), *request = pipe_policy_names(", ", " or ", true);
    int bars = 0;
    for (const char *c = all; *c; c++)
        bars += *c == '|';
    ck_assert_int_eq(bars, pipe_policy_count() - 1);
    for (int i = 0; i < pipe_policy_count(); i++) {
        const PipePolicyOps *p = pipe_policy_at(i);
        ck_assert_ptr_eq(pipe_policy_find(p->name), p);
        ck_assert(p->summary && *p->summary && p->build);
        ck_assert_ptr_nonnull(strstr(all, p->name));
        if (p->has_cycle_request)
            ck_assert_ptr_nonnull(strstr(request, p->name));
    }
    g_free(all);
    g_free(request);
}
END_TEST

/* Every registered policy, on seeded random n = 2 workloads and engine counts: prepare, build, run; the
 * Cycle invariant, no deadlock, engine == DAG, and no period shorter than the bound. */
START_TEST(every_pipeline_policy_runs_and_passes_invariants)
{
    GRand *g = g_rand_new_with_seed(11);
    for (int i = 0; i < pipe_policy_count(); i++) {
        const PipePolicyOps *p = pipe_policy_at(i);
        for (int t = 0; t < 40; t++) {
            int64_t c[2], v[2];
            for (int k = 0; k < 2; k++)
                c[k] = g_rand_int_range(g, 1, 1001), v[k] = g_rand_int_range(g, 1, 1001);
            PipeWorkload wl = workload(2, c, v, g_rand_int_range(g, 1, 12));
            wl.n_cube = g_rand_int_range(g, 1, 3), wl.n_vector = g_rand_int_range(g, 1, 3);
            SimError err = { 0 };
            PipeCycle cy;
            ck_assert_int_eq(pipe_policy_prepare(p, &wl, &err), SIM_OK);
            ck_assert_int_eq(pipe_policy_build(p, &wl, NULL, &cy, &err), SIM_OK);
            check_cycle(&cy, 2);
            PipeResult r = run_checked(&wl, &cy);
            ck_assert_msg(!r.is_deadlock, "%s deadlocks: %s", p->name, r.deadlock_msg);
            ck_assert_int_ge(r.steady_cycle_ns, r.bound_ns);
            ck_assert_int_ge(r.makespan_ns, r.bound_ns);
            pipe_result_clear(&r);
        }
    }
    g_rand_free(g);
}
END_TEST

static PipeRequest request(const char *policy)
{
    PipeRequest rq = { .policy = pipe_policy_find(policy), .cycle = { .preload = -1 },
                       .wl = { .n_pairs = 2, .c_ns = { 1000, 800 }, .v_ns = { 600, 400 }, .blocks = 8,
                               .n_cube = 1, .n_vector = 1 } };
    ck_assert_ptr_nonnull(rq.policy);
    return rq;
}

START_TEST(request_check_errors)
{
    struct { const char *policy; int n, preload; const char *order; bool has_min; int64_t blocks;
             SimStatus want; const char *says; } cases[] = {
        { "amla", 3, -1, NULL, false, 8, SIM_ERR_USAGE, "needs n = 2" },
        { "serial", 2, 2, NULL, false, 8, SIM_ERR_USAGE, "apply to --policy" },
        { "preload", 2, 1, "C1,C2,V1,V2", false, 8, SIM_ERR_USAGE, "drop --preload" },
        { "preload", 7, -1, NULL, true, 8, SIM_ERR_USAGE, "enumerates n!" },
        { "preload", 2, -1, NULL, false, 1000000, SIM_ERR_LIMIT, "more than the 4000000" },
        { "preload", 2, 1, NULL, true, 8, SIM_OK, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        PipeRequest rq = request(cases[i].policy);
        rq.wl.n_pairs = cases[i].n;
        rq.wl.blocks = cases[i].blocks;
        rq.wl.n_cube = rq.wl.n_vector = cases[i].blocks > 1000 ? 4 : 1;
        rq.cycle = (PipeCycleRequest){ .preload = cases[i].preload, .order_text = cases[i].order };
        rq.has_min_preload = cases[i].has_min;
        SimError err = { 0 };
        ck_assert_int_eq(pipe_request_check(&rq, &err), cases[i].want);
        if (cases[i].says)
            ck_assert_msg(strstr(err.msg, cases[i].says), "case %zu: %s", i, err.msg);
    }
    /* under the ops ceiling, over a memory cap: 4M ops x 56 x (1 + 4) B = 1068 MB */
    PipeRequest big = request("preload");
    big.wl.blocks = 250000, big.wl.n_cube = big.wl.n_vector = 4, big.max_memory_mb = 1000;
    SimError cap = { 0 };
    ck_assert_int_eq(pipe_request_check(&big, &cap), SIM_ERR_LIMIT);
    ck_assert_msg(strstr(cap.msg, "4000000 ops would need about 1068 MB, over the cap of 1000 MB"), "%s", cap.msg);
    big.max_memory_mb = 1100, cap = (SimError){ 0 };
    ck_assert_int_eq(pipe_request_check(&big, &cap), SIM_OK);
    /* amla's prepare moves V2 to the last block. */
    PipeRequest rq = request("amla");
    SimError err = { 0 };
    ck_assert_int_eq(pipe_request_check(&rq, &err), SIM_OK);
    ck_assert(rq.wl.has_v_last);
    ck_assert_int_eq(rq.wl.v_ns[1], 0);
    ck_assert_int_eq(rq.wl.v_last_ns[1], 400);
}
END_TEST

START_TEST(job_of_the_default_request)
{
    PipeRequest rq = request("preload");
    rq.has_min_preload = true;
    SimError err = { 0 };
    PipeJob job;
    ck_assert_int_eq(pipe_request_check(&rq, &err), SIM_OK);
    ck_assert_int_eq(pipe_job_run(&rq, &job, &err), SIM_OK);
    ck_assert_int_eq(job.result.makespan_ns, 14800);
    ck_assert_int_eq(job.result.critical_path_ns, 14800);
    ck_assert_int_eq(job.result.steady_cycle_ns, 1800);
    ck_assert_int_eq(job.result.preload_count, 2);
    ck_assert_int_eq(job.min_preload, 2);
    ck_assert_int_eq(job.rotation.k, 2);
    ck_assert_int_eq(job.rotation.prefix_ns[2], -800);
    pipe_job_clear(&job);
    /* Preload 1 below the minimum: the chain order with one crossing edge, and it stalls. */
    const int64_t c[] = { 25, 1 }, v[] = { 10, 10 };
    memcpy(rq.wl.c_ns, c, sizeof c), memcpy(rq.wl.v_ns, v, sizeof v);
    rq.has_min_preload = false;
    rq.cycle.preload = 1;
    ck_assert_int_eq(pipe_job_run(&rq, &job, &err), SIM_OK);
    char buf[128];
    pipe_cycle_format(&job.cycle, buf, sizeof buf);
    ck_assert_str_eq(buf, " C1+0 C2+0 | V1+0 V2+1");
    ck_assert_int_eq(job.result.steady_cycle_ns, 45);
    ck_assert_int_eq(job.min_preload, -1);
    pipe_job_clear(&job);
    /* A bad --order is the policy's error; a deadlocking one is a result. */
    rq.cycle = (PipeCycleRequest){ .preload = -1, .order_text = "C1,C2" };
    ck_assert_int_eq(pipe_job_run(&rq, &job, &err), SIM_ERR_USAGE);
    err = (SimError){ 0 };
    rq.cycle.order_text = "C2,C1,V1,V2";
    ck_assert_int_eq(pipe_job_run(&rq, &job, &err), SIM_OK);
    ck_assert(job.result.is_deadlock);
    pipe_job_clear(&job);
}
END_TEST

START_TEST(amla_report_rows)
{
    PipeAscendModel m = pipe_ascend_910();
    PipeAmlaRow rows[PIPE_AMLA_REPORT_ROWS];
    SimError err = { 0 };
    ck_assert_int_eq(pipe_amla_report(&m, rows, &err), SIM_OK);
    const PipeAmlaRow *last = &rows[PIPE_AMLA_REPORT_ROWS - 1];
    ck_assert_int_eq(last->sq, 2);
    ck_assert_int_eq(last->sk, 16384);
    ck_assert_int_eq(last->blocks, 32);
    ck_assert_int_eq(last->c_ns[0], 10240);
    ck_assert_int_eq(last->base_v_engine_ns[1], 23593);
    ck_assert_int_eq(last->amla_v1_engine_ns, 19661);
    ck_assert(last->paper_910_percent == 86.8);
    ck_assert(fabs(last->amla_cube_busy - 0.921) < 0.0005 && fabs(last->base_cube_busy - 0.542) < 0.0005);
    for (int i = 0; i < PIPE_AMLA_REPORT_ROWS; i++) {
        ck_assert(rows[i].is_base_stall_free);
        ck_assert_int_eq(rows[i].blocks * 512, rows[i].sk);
        if (rows[i].blocks > 2)   /* AMLA wins once the pipeline is longer than its Preload */
            ck_assert(rows[i].amla_cube_busy > rows[i].base_cube_busy);
    }
}
END_TEST

START_TEST(vfa_report_rows)
{
    PipeVfaRow rows[PIPE_VFA_REPORT_ROWS];
    SimError err = { 0 };
    ck_assert_int_eq(pipe_vfa_report(rows, &err), SIM_OK);
    ck_assert_int_eq(rows[0].makespan_ns, 35044);
    ck_assert(rows[0].vs_fa == 1.0 && rows[0].vs_base == 1.0);
    ck_assert_int_eq(rows[7].makespan_ns, 21326);
    for (int i = 0; i < PIPE_VFA_REPORT_ROWS; i += 2) {
        ck_assert(!rows[i].is_vfa && rows[i + 1].is_vfa);
        ck_assert_int_eq(rows[i].sum_c_ns, rows[i + 1].sum_c_ns);
        ck_assert_int_lt(rows[i + 1].sum_v_ns, rows[i].sum_v_ns);   /* VFA drops vector work */
        ck_assert_int_lt(rows[i + 1].makespan_ns, rows[i].makespan_ns);
    }
}
END_TEST

START_TEST(theorem_report_rows)
{
    PipeTheoremRow rows[PIPE_MAX_BRUTE_PAIRS], again[PIPE_MAX_BRUTE_PAIRS];
    pipe_theorem_report(5, rows);
    for (int i = 0; i < PIPE_MAX_BRUTE_PAIRS; i++) {
        const PipeTheoremRow *r = &rows[i];
        ck_assert_int_eq(r->n, i + 1);
        ck_assert_int_eq(r->rotation_stall_free, r->instances);           /* Theorem B.1 */
        ck_assert_int_eq(r->lemma_min_n, r->lemma_instances);             /* Lemma B.2 */
        ck_assert_int_eq(r->min_below[0] + r->min_below[1] + r->min_below[2], r->instances);
        ck_assert(r->cube_dominated > 0 && r->cube_dominated < r->instances);
    }
    pipe_theorem_report(5, again);
    ck_assert(memcmp(rows, again, sizeof rows) == 0);
}
END_TEST

Suite *suite_pipeline(void)
{
    Suite *s = suite_create("pipeline");
    TCase *t = tcase_create("pipeline");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, serial_is_blocks_times_all_stages);
    tcase_add_test(t, amla_three_blocks_by_hand);
    tcase_add_test(t, rotation_of_the_default_instance);
    tcase_add_test(t, rotation_with_preload_n_is_stall_free);
    tcase_add_test(t, brute_force_matches_naive_enumeration);
    tcase_add_test(t, brute_force_witness_and_bound_n);
    tcase_add_test(t, lemma_b2_instances_need_preload_n);
    tcase_add_test(t, preload_n_minus_1_found_stall_free_for_n3);
    tcase_add_test(t, deadlock_is_reported_not_hung);
    tcase_add_test(t, rings_of_one_and_two_slots);
    tcase_add_test(t, preload_count_can_be_set);
    tcase_add_test(t, cycle_parse_errors);
    tcase_add_test(t, stage_cost_models);
    tcase_add_test(t, pipeline_registry_lookup);
    tcase_add_test(t, every_pipeline_policy_runs_and_passes_invariants);
    tcase_add_test(t, request_check_errors);
    tcase_add_test(t, job_of_the_default_request);
    tcase_add_test(t, amla_report_rows);
    tcase_add_test(t, vfa_report_rows);
    tcase_add_test(t, theorem_report_rows);
    suite_add_tcase(s, t);
    return s;
}

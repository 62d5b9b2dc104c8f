/* The hardware profile: costs from measured curves (interpolation, clock scaling, the load model), and
 * the predicted executor reproduces its own calibration on a one-task-per-CTA kernel. */
#include "attention.h"
#include "calibrate.h"
#include "engine.h"
#include "kernel.h"
#include "profile.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A two-tile profile with a bulk curve 1000 ns alone, 1500 at k = 3, 3000 at k = 7. */
static HwProfile *tiny_profile(void)
{
    HwProfile *p = g_new0(HwProfile, 1);
    p->sm_count = 8, p->clock_mhz = 2000, p->handoff_ns = 300, p->acquire_ns = 20, p->cta_gap_ns = 100;
    p->loop_gap_ns = 7;
    p->tiles = g_new0(ProfileTile, 1), p->tile_count = 1;
    p->tiles[0] = (ProfileTile){ .tile_m = 64, .head_dim = 128, .fixed_cycles = 2000, .per_iter_cycles = 100,
                                 .fixed_cycles_store = 2200, .per_iter_cycles_store = 110, .stage_serial_ns = 50,
                                 .deposit_ns = 70, .reduce_async_ns = 1200, .stage_points = 2,
                                 .stage_iters = { 1, 21 }, .stage_by_iters_ns = { 90, 50 } };
    p->reduces = g_new0(ProfileReduce, 1), p->reduce_count = 1;
    p->reduces[0] = (ProfileReduce){ .tile_m = 64, .head_dim = 128, .op = "bulk", .threads = 1, .points = 3,
                                     .k = { 1, 3, 7 }, .ns = { 1000, 1500, 3000 } };
    p->handoff_points = 2, p->handoff_k[0] = 0, p->handoff_k[1] = 4, p->handoff_extra_ns[1] = 40;
    p->prologue_points = 2, p->prologue_tasks[0] = 1, p->prologue_tasks[1] = 11;
    p->prologue_ns[0] = 200, p->prologue_ns[1] = 300;
    snprintf(p->source, sizeof p->source, "tiny");
    return p;
}

START_TEST(costs_from_curves)
{
    HwProfile *p = tiny_profile();
    ProfileQuery q = { .tile_m = 64, .head_dim = 128, .compute_iters = 10, .reduce = REDUCE_SERIAL,
                       .reduce_op = "bulk", .clock_mhz = 1000, .tasks_per_cta = 6, .n_sm = 8 };
    AttnCosts c;
    SimLoadModel load;
    SimError err = { 0 };
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
    ck_assert_int_eq(c.c_ns, 3000 + 72 + 7);        /* 3000 cycles at 1 GHz, staging at 10 rounds (90 -> 50 over 1..21), the loop */
    ck_assert_int_eq(c.r_ns, 1000 + 20);            /* alone, plus the acquire */
    ck_assert_int_eq(c.latency_ns, 300);
    ck_assert_int_eq(c.cta_prologue_ns, 100 + 250); /* gap + task list of 6 (between 1 and 11) */
    /* no queue: k together take r * curve(k) / curve(1), all of it extra(k) */
    ck_assert_int_eq(load.capacity_milli, 0);
    ck_assert_int_eq(load.issue_ppm, 1000000);
    ck_assert_int_eq(load.extra_ns[1], 0);
    ck_assert_int_eq(load.extra_ns[2], 255);  /* halfway from k 1 to 3: 1.25 x 1020 */
    ck_assert_int_eq(load.extra_ns[5], 1275);
    ck_assert_int_eq(load.extra_ns[8], 2040); /* flat past the last point: 3 x 1020 */
    ck_assert_int_eq(load.handoff_extra_ns[2], 20);
    ck_assert_int_eq(load.handoff_extra_ns[8], 40);
    sim_profile_load_clear(&load);
    q.reduce = REDUCE_ASYNC, q.clock_mhz = 0; /* the profile's clock; the store-warp compute; deposit */
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
    ck_assert_int_eq(c.c_ns, 1650);
    ck_assert_int_eq(c.deposit_ns, 70);
    ck_assert_int_eq(c.r_ns, 1200 + 20);             /* the reduction beside the SM's compute */
    ck_assert_int_eq(load.extra_ns[1], 0);   /* the curve is below it: no slowdown */
    ck_assert_int_eq(load.extra_ns[3], 305); /* 1500 of the shared L2 over 1200 alone: 1.25 x 1220 */
    sim_profile_load_clear(&load);
    /* measured by rounds (1400 beside 1 round, 1200 beside 21): the task's rounds pick it, linearly
     * between; a query without rounds (a real kernel) keeps the long-task reduce_async_ns */
    p->tiles[0].reduce_async_points = 2;
    p->tiles[0].reduce_async_iters[0] = 1, p->tiles[0].reduce_async_iters[1] = 21;
    p->tiles[0].reduce_async_by_iters_ns[0] = 1400, p->tiles[0].reduce_async_by_iters_ns[1] = 1200;
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
    ck_assert_int_eq(c.r_ns, 1310 + 20);             /* 10 rounds: 9/20 of the way from 1400 to 1200 */
    sim_profile_load_clear(&load);
    q.compute_iters = 0;
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
    ck_assert_int_eq(c.r_ns, 1200 + 20);
    sim_profile_load_clear(&load);
    q.compute_iters = 10, p->tiles[0].reduce_async_points = 0;
    /* with a queue (issue half of a reduction): its service time is the
     * curve's, (3000 - 1000 + 500) / 7 ns a reduction, so its capacity is 510 over that; k = 7 together
     * wait ceil((7000 - 1428) * 510 / 1428) = 1990 and the extra makes up the rest of 3 x 1020 */
    q.reduce = REDUCE_SERIAL, q.clock_mhz = 1000;
    p->queues[0] = (ProfileQueue){ .op = "bulk", .issue_share = 0.5 }, p->queue_count = 1;
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
    ck_assert_int_eq(load.issue_ppm, 500000);
    ck_assert_int_eq(load.capacity_milli, 1428);
    ck_assert_int_eq(load.extra_ns[7], 3060 - 1020 - 1990);
    ck_assert_ptr_null(sim_profile_queue(p, "ldst")); /* another family: none */
    sim_profile_load_clear(&load);
    q.tile_m = 80; /* not measured: an error naming the tile */
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "80x128"));
    sim_profile_free(p);
}
END_TEST

/* Predicting a kernel of one task per CTA, all SMs at once: the profile's own reduce curve at k = n
 * (scaled from the reduction alone to the reduction and its acquire), with and without a queue. */
START_TEST(all_at_once_reproduces_the_curve)
{
    HwProfile *p = tiny_profile();
    for (int with_queue = 0; with_queue < 2; with_queue++) {
        p->queues[0] = (ProfileQueue){ .op = "bulk", .issue_share = 0.6 };
        p->queue_count = with_queue;
        ProfileQuery q = { .tile_m = 64, .head_dim = 128, .compute_iters = 0, .reduce = REDUCE_SERIAL,
                           .reduce_op = "bulk", .clock_mhz = 2000, .tasks_per_cta = 1, .n_sm = 7 };
        AttnCosts c;
        SimLoadModel load;
        SimError err = { 0 };
        ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
        SimProgram *prog = sim_program_new(7, 1);
        for (int i = 0; i < 7; i++) {
            sim_program_add_cta(prog, -1);
            sim_program_add_op(prog, 0, SIM_OP_REDUCE, c.r_ns, i);
        }
        sim_program_set_load(prog, &load);
        sim_program_seal(prog);
        SimSchedule s = { 0 };
        ck_assert_int_eq(sim_engine_run(prog, &s, &err), SIM_OK);
        ck_assert_int_eq(s.makespan_ns, 3000 * 1020 / 1000);
        sim_schedule_clear(&s);
        sim_program_free(prog);
        sim_profile_load_clear(&load);
    }
    sim_profile_free(p);
}
END_TEST

/* The queue's fit recovers the shares that made its staggered runs (the runs timed by the engine under
 * known shares), and processor sharing, which cannot tell the early half from the late one, misses them. */
START_TEST(queue_fit_recovers_its_shares)
{
    HwProfile *p = tiny_profile();
    ProfileReduce *r = &p->reduces[0];
    *r = (ProfileReduce){ .tile_m = 64, .head_dim = 128, .op = "bulk", .threads = 1, .points = 3,
                          .k = { 1, 8, 16 }, .ns = { 1000, 1000, 1500 } };
    const ProfileQueue truth = { .op = "bulk", .issue_share = 0.7 };
    StaggerRun runs[5];
    for (int i = 0; i < 5; i++) {
        int64_t stagger = 200 * i, took[2];
        for (int half = 0; half < 2; half++) {
            SimProgram *prog = sim_program_new(16, 1);
            int64_t mine = -1;
            for (int u = 0; u < 16; u++) {
                sim_program_add_cta(prog, u);
                if (u % 2 && stagger > 0)
                    sim_program_add_op(prog, 0, SIM_OP_SYNC, stagger, -1);
                int64_t op = sim_program_add_op(prog, 0, SIM_OP_REDUCE, 1000, -1);
                if (u == half)
                    mine = op;
            }
            SimLoadModel load;
            sim_profile_load(r, &truth, 1000, 1000, 16, &load);
            sim_program_set_load(prog, &load);
            sim_profile_load_clear(&load);
            sim_program_seal(prog);
            SimSchedule s = { 0 };
            SimError err = { 0 };
            ck_assert_int_eq(sim_engine_run(prog, &s, &err), SIM_OK);
            took[half] = sim_schedule_end_ns(prog, &s, mine) - s.start_ns[mine];
            sim_schedule_clear(&s);
            sim_program_free(prog);
        }
        runs[i] = (StaggerRun){ .reduce = r, .k = 16, .stagger_ns = stagger, .early_ns = took[0], .late_ns = took[1] };
    }
    ck_assert_int_gt(runs[2].early_ns, runs[2].late_ns); /* the asymmetry is there to be fitted */
    ProfileQueue fit = { .op = "bulk" };
    sim_profile_fit_queue(runs, 5, &fit);
    ck_assert_double_eq_tol(fit.issue_share, 0.7, 1e-9);
    ck_assert_double_eq_tol(fit.fit_max_error, 0, 1e-12);
    ck_assert_int_eq(fit.fit_runs, 10);
    ck_assert_double_gt(fit.ps_max_error, 0.02);
    sim_profile_free(p);
}
END_TEST

/* The clock rule (reduce_clock): rows made with a share of 0.6 scaling with the clock are fitted back to
 * 0.6; the rule then lengthens a reduction measured on an idle SM at the kernel's lower clock (only its SM
 * side: k together still take the L2's curve), and leaves the async bulk reduction measured beside the
 * SM's compute as measured. */
START_TEST(clock_rule_scales_the_sm_side)
{
    ClockRow rows[6];
    for (int i = 0; i < 6; i++) {
        double mhz = i % 3 == 0 ? 2000 : i % 3 == 1 ? 1800 : 1600, t0 = i < 3 ? 1000 : 4000;
        double t = t0 * (0.4 + 0.6 * 2000 / mhz);
        rows[i] = (ClockRow){ .tile_m = 64, .head_dim = 128, .threads = i < 3 ? 1 : 32, .n_compute = i % 3 * 60,
                              .cycles = t * mhz / 1000, .mhz = mhz };
        snprintf(rows[i].op, sizeof rows[i].op, "%s", i < 3 ? "bulk" : "ldst");
    }
    ProfileClock c;
    double ref = 0;
    ck_assert(sim_profile_fit_clock(rows, 6, "bulk", &c, &ref));
    ck_assert_double_eq_tol(c.clock_share, 0.6, 1e-9);
    ck_assert_double_eq_tol(ref, 2000, 1e-9);
    ck_assert_int_eq(c.fit_rows, 2);
    ck_assert_double_lt(c.fit_max_error, 1e-9);
    ck_assert(!sim_profile_fit_clock(rows, 3, "ldst", &c, &ref)); /* no ldst row among the first three */
    HwProfile *p = tiny_profile();
    p->clocks[0] = (ProfileClock){ .op = "bulk", .clock_share = 0.6 }, p->clock_count = 1, p->clock_ref_mhz = 2000;
    ProfileQuery q = { .tile_m = 64, .head_dim = 128, .compute_iters = 10, .reduce = REDUCE_SERIAL,
                       .reduce_op = "bulk", .clock_mhz = 1600, .tasks_per_cta = 6, .n_sm = 8 };
    AttnCosts cost;
    SimLoadModel load;
    SimError err = { 0 };
    ck_assert_int_eq(sim_profile_costs(p, &q, &cost, &load, &err), SIM_OK);
    ck_assert_int_eq(cost.r_ns, 1150 + 20); /* 1000 x (0.4 + 0.6 x 2000 / 1600), plus the acquire */
    ck_assert_int_eq(load.extra_ns[1], 0);
    ck_assert_int_eq(load.extra_ns[7], 3060 - 1170); /* k = 7: the L2's 3 x 1020, not 3 x 1170 */
    sim_profile_load_clear(&load);
    q.clock_mhz = 2000; /* at the idle clock: as measured */
    ck_assert_int_eq(sim_profile_costs(p, &q, &cost, &load, &err), SIM_OK);
    ck_assert_int_eq(cost.r_ns, 1000 + 20);
    sim_profile_load_clear(&load);
    q.reduce = REDUCE_ASYNC, q.clock_mhz = 1600; /* beside the compute: not scaled */
    ck_assert_int_eq(sim_profile_costs(p, &q, &cost, &load, &err), SIM_OK);
    ck_assert_int_eq(cost.r_ns, 1200 + 20);
    sim_profile_load_clear(&load);
    q.reduce_op = "ldst", q.reduce_threads = 1; /* another family, no rule: not measured here either */
    ck_assert_ptr_null(sim_profile_clock(p, "ldst"));
    sim_profile_free(p);
}
END_TEST

/* The calibration fit on plain rows (sim/model/cost/calibrate.c, moved out of sim/io/profile_io.c in issue
 * 36): the line through exact points, a refusal when the rounds do not differ, a profile's tiles and methods
 * found or added once, the staged reduction's curve kept ascending without repeats, a matrix's median over its
 * measured cells. */
START_TEST(calibration_fit_on_rows)
{
    const double x[] = { 1, 2, 4, 8 }, y[] = { 1300, 1400, 1600, 2000 }, same[] = { 3, 3, 3 };
    double fixed = 0, per = 0;
    ck_assert(sim_calib_line_fit(x, y, 4, &fixed, &per));
    ck_assert_double_eq_tol(fixed, 1200, 1e-9);
    ck_assert_double_eq_tol(per, 100, 1e-9);
    fixed = per = -1;
    ck_assert(!sim_calib_line_fit(same, y, 3, &fixed, &per));
    ck_assert(fixed == -1 && per == -1);
    HwProfile *p = g_new0(HwProfile, 1);
    ProfileTile *t = sim_calib_tile(p, 64, 128);
    ck_assert_ptr_eq(sim_calib_tile(p, 64, 128), t);
    sim_calib_tile(p, 128, 128);
    ck_assert_int_eq(p->tile_count, 2);
    t = sim_calib_tile(p, 64, 128);
    sim_calib_add_reduce_by_iters(t, 32, 3400);
    sim_calib_add_reduce_by_iters(t, 1, 1700);
    sim_calib_add_reduce_by_iters(t, 32, 9999); /* a repeated round count keeps its first row */
    sim_calib_add_reduce_by_iters(t, 8, 2000);
    ck_assert_int_eq(t->reduce_async_points, 3);
    ck_assert_int_eq(t->reduce_async_iters[0], 1);
    ck_assert_int_eq(t->reduce_async_iters[1], 8);
    ck_assert_int_eq(t->reduce_async_iters[2], 32);
    ck_assert_int_eq(t->reduce_async_by_iters_ns[2], 3400);
    ProfileReduce *r = sim_calib_reduce(p, 64, 128, "bulk", 32);
    ck_assert_ptr_eq(sim_calib_reduce(p, 64, 128, "bulk", 32), r);
    ck_assert_ptr_ne(sim_calib_reduce(p, 64, 128, "ldst", 32), sim_calib_reduce(p, 64, 128, "bulk", 32));
    ck_assert_int_eq(p->reduce_count, 2);
    const int32_t matrix[] = { -1, 300, 500, -1 }; /* the diagonal is not measured */
    ck_assert_int_eq(sim_calib_matrix_median(matrix, 2), 400);
    sim_profile_free(p);
}
END_TEST

/* A kernel profile's stage tables (kernel.h): linear between points, along the nearest two outside them (the
 * last two beyond the end), never below 0; the fixed cost adds the stages over rows and, with GQA only, the group
 * sums over their MiB to the lines. */
START_TEST(kernel_stage_tables)
{
    KernelTable t = { 3, { 1000, 2000, 4000 }, { 10, 30, 50 } };
    ck_assert_double_eq_tol(sim_kernel_table_ns(&t, 1500), 20, 1e-9);
    ck_assert_double_eq_tol(sim_kernel_table_ns(&t, 2000), 30, 1e-9);
    ck_assert_double_eq_tol(sim_kernel_table_ns(&t, 3000), 40, 1e-9);
    ck_assert_double_eq_tol(sim_kernel_table_ns(&t, 8000), 90, 1e-9); /* the last segment's rate */
    ck_assert_double_eq_tol(sim_kernel_table_ns(&t, 750), 5, 1e-9);
    ck_assert_double_eq_tol(sim_kernel_table_ns(&t, 100), 0, 1e-9); /* clamped */
    KernelTable none = { 0 };
    ck_assert_double_eq(sim_kernel_table_ns(&none, 5000), 0);
    KernelTile k = { .fixed = { 100, 0 }, .stages = t, .sums = { 2, { 10, 20 }, { 1000, 3000 } } };
    SimShape mha = { .batch = 1, .heads = 2, .kv_heads = 2, .seqlen_q = 1024, .seqlen_k = 1024, .head_dim = 64 };
    ck_assert_int_eq(sim_kernel_fixed_ns(&k, &mha), 100 + 30);
    SimShape gqa = mha;
    gqa.kv_heads = 1;
    double mib[2];
    sim_kernel_stage_mib(&gqa, mib); /* 2048 x 64 x 8 + 1024 x 64 x 4 bytes: 1.25 MiB, below the sums' first point */
    ck_assert_double_eq_tol(mib[1], 1.25, 1e-12);
    ck_assert_int_eq(sim_kernel_fixed_ns(&k, &gqa), 100 + 30 + 0);
    gqa.seqlen_q = gqa.seqlen_k = 16384; /* 20 MiB of sums: 3000 ns; 32768 rows: 50 + 0.01 x 28768 = 337.68 ns */
    ck_assert_int_eq(sim_kernel_fixed_ns(&k, &gqa), 3438);
}
END_TEST

/* The clock dip at launch (attn_costs.h, AttnClock): the compute's factor is ref_mhz over the launch's mean clock, the
 * settled clock less the dip's depth (a line over the busy share above dip_u0) times its shape's mean over the span;
 * no clock model, or a schedule below dip_u0, leaves the settled clock alone. */
START_TEST(clock_dip_scale)
{
    AttnClock none = { 0 };
    ck_assert_double_eq(sim_attention_clock_scale(&none, 100000, 0.9, 0.9), 1);
    AttnClock k = { .max_mhz = 1800, .ref_mhz = 1780, .dip_u0 = 0.3, .dip_mhz_per_u = 200, .dip_bin_ns = 25000,
                    .bins = 2, .dip = { 1, 1 } };
    ck_assert_double_eq_tol(sim_attention_clock_scale(&k, 50000, 0.8, 0.8), 1780.0 / 1700, 1e-12); /* all in the dip */
    ck_assert_double_eq_tol(sim_attention_clock_scale(&k, 30000, 0.8, 0.8), 1780.0 / 1700, 1e-12);
    ck_assert_double_eq_tol(sim_attention_clock_scale(&k, 100000, 0.8, 0.8), 1780.0 / 1750, 1e-12); /* half of it */
    ck_assert_double_eq_tol(sim_attention_clock_scale(&k, 100000, 0.2, 0.2), 1780.0 / 1800, 1e-12); /* not busy */
    ck_assert_double_eq_tol(sim_attention_clock_scale(&k, 1000000000, 0.8, 0.8), 1780.0 / 1799.995, 1e-9); /* settled */
    AttnClock wild = k; /* never beyond 0.5-2, whatever the numbers (the job's time bound leaves a factor 2) */
    wild.max_mhz = 100, wild.dip_mhz_per_u = 1000;
    ck_assert_double_eq(sim_attention_clock_scale(&wild, 50000, 0.8, 0.8), 2);
    wild.ref_mhz = 10;
    ck_assert_double_eq(sim_attention_clock_scale(&wild, 100000000, 0, 0), 0.5);
    /* under sustained load (docs/profile.md, "The clock under sustained load"): per_u x (share - u0) x (1 - e^-x), x
     * the load beyond load_ms (launches x span) over tau_ms; nothing below u0 or load_ms, whatever the dip */
    AttnClock s = k;
    s.sustained.launches = 3, s.sustained.load_ms = 50, s.sustained.tau_ms = 80, s.sustained.u0 = 0.7;
    s.sustained.per_u = 0.5;
    double settled = 1780.0 / (1800 - 200 * 0.6 * 50000 / 90e6); /* the dip's mean over 90 ms, at busy 0.9 */
    ck_assert_double_eq_tol(sim_attention_clock_scale(&s, 90000000, 0.9, 0.9), settled * (1 + 0.5 * 0.2 * (1 - exp(-2.75))),
                            1e-12);
    ck_assert_double_eq_tol(sim_attention_clock_scale(&s, 90000000, 0.9, 0.65), settled, 1e-12); /* share below u0 */
    ck_assert_double_eq_tol(sim_attention_clock_scale(&s, 16000000, 0.9, 0.9), 1780.0 / (1800 - 120 * 50000 / 16e6),
                            1e-12); /* 48 ms of load: below load_ms */
    s.sustained.per_u = 0;
    ck_assert_double_eq_tol(sim_attention_clock_scale(&s, 90000000, 0.9, 0.9), settled, 1e-12); /* per_u 0: none */
    AttnCosts c = { .c_ns = 1000, .c_diag_ns = 0, .deposit_ns = 300, .r_ns = 700 };
    sim_attention_scale_compute(&c, 1.05);
    ck_assert_int_eq(c.c_ns, 1050);
    ck_assert_int_eq(c.c_diag_ns, 0);
    ck_assert_int_eq(c.deposit_ns, 315);
    ck_assert_int_eq(c.r_ns, 700); /* the reduction is not the SM's clock */
}
END_TEST

Suite *suite_profile(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("costs");
    tcase_add_test(tc, costs_from_curves);
    tcase_add_test(tc, all_at_once_reproduces_the_curve);
    tcase_add_test(tc, queue_fit_recovers_its_shares);
    tcase_add_test(tc, clock_rule_scales_the_sm_side);
    tcase_add_test(tc, calibration_fit_on_rows);
    tcase_add_test(tc, kernel_stage_tables);
    tcase_add_test(tc, clock_dip_scale);
    suite_add_tcase(s, tc);
    return s;
}

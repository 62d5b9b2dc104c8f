/* The hardware profile: costs from measured curves (interpolation, clock scaling, the load model), and
 * the predicted executor reproduces its own calibration on a one-task-per-CTA kernel. */
#include "engine.h"
#include "profile.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
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
    ck_assert_int_eq(load.slowdown_ppm[1], 1000000);
    ck_assert_int_eq(load.slowdown_ppm[2], 1250000); /* halfway from k 1 to 3 */
    ck_assert_int_eq(load.slowdown_ppm[5], 2250000);
    ck_assert_int_eq(load.slowdown_ppm[8], 3000000); /* flat past the last point */
    ck_assert_int_eq(load.handoff_extra_ns[2], 20);
    ck_assert_int_eq(load.handoff_extra_ns[8], 40);
    sim_profile_load_clear(&load);
    q.reduce = REDUCE_ASYNC, q.clock_mhz = 0; /* the profile's clock; the store-warp compute; deposit */
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
    ck_assert_int_eq(c.c_ns, 1650);
    ck_assert_int_eq(c.deposit_ns, 70);
    ck_assert_int_eq(c.r_ns, 1200 + 20);             /* the reduction beside the SM's compute */
    ck_assert_int_eq(load.slowdown_ppm[1], 1000000); /* the curve is below it: no slowdown */
    ck_assert_int_eq(load.slowdown_ppm[3], 1250000); /* 1500 of the shared L2 over 1200 alone */
    sim_profile_load_clear(&load);
    q.tile_m = 80; /* not measured: an error naming the tile */
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "80x128"));
    sim_profile_free(p);
}
END_TEST

/* Predicting a kernel of one task per CTA, all SMs at once: the profile's own reduce curve at k = n. */
START_TEST(all_at_once_reproduces_the_curve)
{
    HwProfile *p = tiny_profile();
    ProfileQuery q = { .tile_m = 64, .head_dim = 128, .compute_iters = 0, .reduce = REDUCE_SERIAL,
                       .reduce_op = "bulk", .clock_mhz = 2000, .tasks_per_cta = 1, .n_sm = 7 };
    AttnCosts c;
    SimLoadModel load;
    SimError err = { 0 };
    ck_assert_int_eq(sim_profile_costs(p, &q, &c, &load, &err), SIM_OK);
    c.r_ns -= p->acquire_ns, c.load = &load;
    SimProgram *prog = sim_program_new(7, 1);
    for (int i = 0; i < 7; i++) {
        sim_program_add_cta(prog, -1);
        sim_program_add_op(prog, 0, SIM_OP_REDUCE, c.r_ns, i);
    }
    sim_program_set_load(prog, load.slowdown_ppm, load.slowdown_len, NULL, 0);
    sim_program_seal(prog);
    SimSchedule s = { 0 };
    ck_assert_int_eq(sim_engine_run(prog, &s, &err), SIM_OK);
    ck_assert_int_eq(s.makespan_ns, 3000);
    sim_schedule_clear(&s);
    sim_program_free(prog);
    sim_profile_load_clear(&load);
    sim_profile_free(p);
}
END_TEST

Suite *suite_profile(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("costs");
    tcase_add_test(tc, costs_from_curves);
    tcase_add_test(tc, all_at_once_reproduces_the_curve);
    suite_add_tcase(s, tc);
    return s;
}

/* Engine semantics on hand-built programs: dispatch to the lowest free unit in launch order, pinned
 * CTAs, latency only between units, zero-length ops, deadlocks reported instead of hung on. */
#include "engine.h"
#include "prefault.h"
#include "stats.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* k CTAs of one op each, durations d[i], on n units, dispatched by the block scheduler. */
static SimProgram *chain_of_ctas(int32_t n, const int64_t *d, int k)
{
    SimProgram *p = sim_program_new(n, 1);
    for (int i = 0; i < k; i++) {
        sim_program_add_cta(p, -1);
        sim_program_add_op(p, 0, SIM_OP_COMPUTE, d[i], i);
    }
    return p;
}

START_TEST(dispatch_goes_to_first_free_unit_in_launch_order)
{
    const int64_t d[] = { 5, 3, 4, 1, 1 };
    SimProgram *p = chain_of_ctas(2, d, 5);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    /* CTA0 on unit 0 [0,5), CTA1 on unit 1 [0,3), CTA2 on unit 1 [3,7), CTA3 on unit 0 [5,6), CTA4 unit 0 [6,7) */
    const int32_t unit[] = { 0, 1, 1, 0, 0 };
    const int64_t start[] = { 0, 0, 3, 5, 6 };
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(s.cta_unit[i], unit[i]);
        ck_assert_int_eq(s.start_ns[i], start[i]);
    }
    ck_assert_int_eq(s.makespan_ns, 7);
    ck_assert_ptr_null(s.end_ns); /* the fast path keeps starts only: an end is start + duration */
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, 2), 7);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

START_TEST(equal_free_times_pick_the_lowest_unit)
{
    const int64_t d[] = { 4, 4, 4, 2 };
    SimProgram *p = chain_of_ctas(3, d, 4);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(s.cta_unit[3], 0);
    ck_assert_int_eq(s.cta_dispatch_ns[3], 4);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

START_TEST(latency_applies_only_between_units)
{
    SimProgram *p = sim_program_new(2, 1);
    sim_program_add_cta(p, 0);
    int64_t a = sim_program_add_op(p, 0, SIM_OP_REDUCE, 10, 0);
    sim_program_add_cta(p, 1);
    int64_t b = sim_program_add_op(p, 0, SIM_OP_REDUCE, 10, 1);
    sim_program_add_cta(p, 0);
    int64_t c = sim_program_add_op(p, 0, SIM_OP_REDUCE, 10, 2);
    sim_program_add_edge(p, a, b, 7, SIM_EDGE_ACCUM);
    sim_program_add_edge(p, a, c, 7, SIM_EDGE_ACCUM);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(s.start_ns[b], 17); /* other unit: 10 + 7 */
    ck_assert_int_eq(s.start_ns[c], 10); /* same unit, after CTA 0: no latency */
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

START_TEST(zero_length_ops_and_two_engines)
{
    SimProgram *p = sim_program_new(1, 2);
    sim_program_add_cta(p, -1);
    int64_t c0 = sim_program_add_op(p, 0, SIM_OP_COMPUTE, 5, 0);
    int64_t d0 = sim_program_add_op(p, 0, SIM_OP_SYNC, 0, 0);
    int64_t r0 = sim_program_add_op(p, 1, SIM_OP_REDUCE, 8, 0);
    int64_t c1 = sim_program_add_op(p, 0, SIM_OP_COMPUTE, 5, 1);
    int64_t d1 = sim_program_add_op(p, 0, SIM_OP_SYNC, 0, 1);
    sim_program_add_edge(p, d0, r0, 0, SIM_EDGE_PHASE);
    sim_program_add_edge(p, r0, d1, 0, SIM_EDGE_BUFFER);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, c0), 5);
    ck_assert_int_eq(s.start_ns[r0], 5);
    ck_assert_int_eq(s.start_ns[c1], 5);   /* overlaps the reduction on the other engine */
    ck_assert_int_eq(s.start_ns[d1], 13);  /* waits for the buffer to be read */
    ck_assert_int_eq(s.makespan_ns, 13);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

/* One unit, two engines: compute C0, deposit D0, reduction R0 on the store engine, then compute C1 and a
 * WRITE W on the compute engine; rule is the program's interference rule. */
static SimProgram *store_overlap_program(SimOverlapRule rule, int64_t write_ns)
{
    SimProgram *p = sim_program_new(1, 2);
    sim_program_add_cta(p, -1);
    sim_program_add_op(p, 0, SIM_OP_COMPUTE, 1000, 0);
    int64_t d0 = sim_program_add_op(p, 0, SIM_OP_SYNC, 0, 0);
    int64_t r0 = sim_program_add_op(p, 1, SIM_OP_REDUCE, 500, 0);
    sim_program_add_op(p, 0, SIM_OP_COMPUTE, 1000, 1);
    if (write_ns)
        sim_program_add_op(p, 0, SIM_OP_WRITE, write_ns, 1);
    sim_program_add_op(p, 1, SIM_OP_REDUCE, 500, 1);
    sim_program_add_edge(p, d0, r0, 0, SIM_EDGE_PHASE);
    p->overlap = rule;
    sim_program_seal(p);
    return p;
}

START_TEST(overlap_penalty_slows_the_compute_its_reduction_starts_beside)
{
    /* R0 starts at 1000 with C1: inside the window, C1 pays 200 once */
    SimProgram *p = store_overlap_program((SimOverlapRule){ .penalty_ns = 200, .before_ns = 100, .after_ns = 100 }, 0);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(s.start_ns[3], 1000);
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, 3), 2200);
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, 2), 1500); /* the reduction itself keeps its time */
    sim_schedule_clear(&s);
    sim_program_free(p);
    p = store_overlap_program((SimOverlapRule){ .penalty_ns = 200 }, 0); /* an empty window: no penalty */
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, 3), 2000);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

START_TEST(write_extra_slows_the_store_engine_beside_a_write)
{
    /* C1 ends at 2000, W runs 2000..2600; the second reduction (program order after R0, ends 1500) starts at
     * 1500. Running when W starts, it pays 300 more under the overlap rule and keeps its time under the start
     * rule; started inside W it pays 300 under both (docs/profile.md, "The Hopper kernel's fa3 order") */
    SimProgram *p = store_overlap_program((SimOverlapRule){ .write_extra_ns = 300 }, 600);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(s.start_ns[5], 1500);
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, 5), 2000); /* ends as W starts: not beside it */
    sim_schedule_clear(&s);
    sim_program_free(p);
    for (int at_start = 0; at_start <= 1; at_start++) {
        p = store_overlap_program((SimOverlapRule){ .write_extra_ns = 300, .is_write_extra_at_start = at_start }, 600);
        sim_program_set_duration(p, 5, 800); /* now it runs 1500..2300, across W's start at 2000 */
        ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
        ck_assert_int_eq(sim_schedule_end_ns(p, &s, 5), at_start ? 2300 : 2600);
        ck_assert_int_eq(s.makespan_ns, 2600);
        sim_schedule_clear(&s);
        sim_program_free(p);
        p = store_overlap_program((SimOverlapRule){ .write_extra_ns = 300, .is_write_extra_at_start = at_start }, 600);
        sim_program_set_duration(p, 2, 1200); /* R0 runs 1000..2200 (overlap: lengthened to 2500, as above) */
        ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
        ck_assert_int_eq(s.start_ns[5], at_start ? 2200 : 2500); /* inside W: 300 more */
        ck_assert_int_eq(sim_schedule_end_ns(p, &s, 5), at_start ? 3000 : 3300);
        sim_schedule_clear(&s);
        sim_program_free(p);
    }
}
END_TEST

/* Three units, each one CTA: a compute then a WRITE of 1000 ns. The computes end at 100, 100 and 600, so the
 * first two writes start together and the third starts while both run: with write_slope_ns 50 a write takes 50
 * more per other unit's write in flight at its start (the one started first at the same instant counts for the
 * one started after it), and nothing more without the rule. */
static SimProgram *write_wave_program(int32_t slope)
{
    static const int64_t compute[] = { 100, 100, 600 };
    SimProgram *p = sim_program_new(3, 2);
    for (int32_t u = 0; u < 3; u++) {
        sim_program_add_cta(p, u);
        sim_program_add_op(p, 0, SIM_OP_COMPUTE, compute[u], u);
        sim_program_add_op(p, 0, SIM_OP_WRITE, 1000, u);
    }
    p->overlap = (SimOverlapRule){ .write_slope_ns = slope };
    sim_program_seal(p);
    return p;
}

/* Two store engines (engines 1 and 2, two store warps): C0 0..100, then W 100..700 on the compute engine; R1 on
 * engine 1 and R2 on engine 2 both run 0..1000. Under the overlap rule each store engine's running op pays the
 * write extra once (one store engine's state would have lengthened only the latest); under the start rule, only a
 * reduction that starts inside W pays, and none does. R3 (engine 1, after R1) starts after W has ended: no extra. */
START_TEST(write_extra_per_store_engine)
{
    for (int at_start = 0; at_start <= 1; at_start++) {
        SimProgram *p = sim_program_new(1, 3);
        sim_program_add_cta(p, -1);
        sim_program_add_op(p, 0, SIM_OP_COMPUTE, 100, 0);
        sim_program_add_op(p, 0, SIM_OP_WRITE, 600, 0);
        int64_t r1 = sim_program_add_op(p, 1, SIM_OP_REDUCE, 1000, 0);
        int64_t r2 = sim_program_add_op(p, 2, SIM_OP_REDUCE, 1000, 1);
        int64_t r3 = sim_program_add_op(p, 1, SIM_OP_REDUCE, 100, 2);
        p->overlap = (SimOverlapRule){ .write_extra_ns = 300, .is_write_extra_at_start = at_start };
        sim_program_seal(p);
        SimSchedule s = { 0 };
        SimError err = { 0 };
        ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
        ck_assert_int_eq(s.start_ns[r1], 0);
        ck_assert_int_eq(s.start_ns[r2], 0); /* beside R1, on the other store engine */
        ck_assert_int_eq(sim_schedule_end_ns(p, &s, r1), at_start ? 1000 : 1300);
        ck_assert_int_eq(sim_schedule_end_ns(p, &s, r2), at_start ? 1000 : 1300);
        ck_assert_int_eq(sim_schedule_end_ns(p, &s, r3), at_start ? 1100 : 1400);
        sim_schedule_clear(&s);
        sim_program_free(p);
    }
}
END_TEST

START_TEST(write_slope_slows_a_write_per_write_in_flight)
{
    SimSchedule s = { 0 };
    SimError err = { 0 };
    for (int32_t slope = 0; slope <= 50; slope += 50) {
        SimProgram *p = write_wave_program(slope);
        ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
        int64_t d[3];
        for (int u = 0; u < 3; u++)
            d[u] = sim_schedule_end_ns(p, &s, 2 * u + 1) - s.start_ns[2 * u + 1];
        ck_assert_int_eq(d[0] + d[1], 2000 + slope);     /* the two at 100: one of them sees the other */
        ck_assert_int_eq(d[2], 1000 + 2 * slope);        /* at 600 both still run */
        ck_assert_int_eq(s.makespan_ns, 600 + 1000 + 2 * slope);
        sim_schedule_clear(&s);
        sim_program_free(p);
    }
}
END_TEST

/* write_wave_program's three units, each with a reduction R of 200 ns on its store engine after a first store op
 * P that ends 10 ns after the unit's write starts (110, 110, 610): R starts inside its own write, on units 0 and 1
 * with the other's write in flight, on unit 2 with both. Under the start rule R pays write_extra_ns +
 * write_extra_slope_ns per other write in flight (docs/profile.md, "The write extra and the writes in flight");
 * under the overlap rule P, running when the write begins, pays the write extra, then R pays it, and the slope is
 * not applied. */
START_TEST(write_extra_slope_per_write_in_flight)
{
    SimSchedule s = { 0 };
    SimError err = { 0 };
    for (int at_start = 0; at_start <= 1; at_start++)
        for (int32_t slope = 0; slope <= 40; slope += 40) {
            SimProgram *p = sim_program_new(3, 2);
            int64_t r[3];
            for (int32_t u = 0; u < 3; u++) {
                sim_program_add_cta(p, u);
                sim_program_add_op(p, 0, SIM_OP_COMPUTE, u < 2 ? 100 : 600, u);
                sim_program_add_op(p, 0, SIM_OP_WRITE, 1000, u);
                sim_program_add_op(p, 1, SIM_OP_REDUCE, u < 2 ? 110 : 610, u);
                r[u] = sim_program_add_op(p, 1, SIM_OP_REDUCE, 200, u);
            }
            p->overlap = (SimOverlapRule){ .write_extra_ns = 300, .is_write_extra_at_start = at_start,
                                           .write_extra_slope_ns = slope };
            sim_program_seal(p);
            ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
            for (int u = 0; u < 3; u++) {
                ck_assert_int_eq(s.start_ns[r[u]], (u < 2 ? 110 : 610) + (at_start ? 0 : 300));
                ck_assert_int_eq(sim_schedule_end_ns(p, &s, r[u]) - s.start_ns[r[u]],
                                 500 + (at_start ? (u < 2 ? 1 : 2) * slope : 0));
            }
            sim_schedule_clear(&s);
            sim_program_free(p);
        }
}
END_TEST

/* The write extra by the time into the write (program.h, write_extra_window_ns; docs/profile.md): two units, each a
 * compute (100 ns) then a WRITE of 1000 ns, and on its store engine a first op that ends at 150 (unit 0) or 700
 * (unit 1), then a reduction R of 200: R0 starts 50 ns into its write, R1 600 ns in. Under the start rule with a
 * window of 400, R0 pays write_extra_ns (300) and R1 write_extra_late_ns (40); without a window both pay 300. */
START_TEST(write_extra_by_time_into_the_write)
{
    for (int32_t window = 0; window <= 400; window += 400) {
        SimProgram *p = sim_program_new(2, 2);
        int64_t r[2];
        for (int32_t u = 0; u < 2; u++) {
            sim_program_add_cta(p, u);
            sim_program_add_op(p, 0, SIM_OP_COMPUTE, 100, u);
            sim_program_add_op(p, 0, SIM_OP_WRITE, 1000, u);
            sim_program_add_op(p, 1, SIM_OP_REDUCE, u ? 700 : 150, u);
            r[u] = sim_program_add_op(p, 1, SIM_OP_REDUCE, 200, u);
        }
        p->overlap = (SimOverlapRule){ .write_extra_ns = 300, .is_write_extra_at_start = 1,
                                       .write_extra_window_ns = window, .write_extra_late_ns = 40 };
        sim_program_seal(p);
        SimSchedule s = { 0 };
        SimError err = { 0 };
        ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
        ck_assert_int_eq(s.start_ns[r[0]], 150);
        ck_assert_int_eq(s.start_ns[r[1]], 700);
        ck_assert_int_eq(sim_schedule_end_ns(p, &s, r[0]) - s.start_ns[r[0]], 200 + 300);
        ck_assert_int_eq(sim_schedule_end_ns(p, &s, r[1]) - s.start_ns[r[1]], 200 + (window ? 40 : 300));
        sim_schedule_clear(&s);
        sim_program_free(p);
    }
}
END_TEST

START_TEST(waited_reduction_takes_its_other_times)
{
    /* two units: R0 (unit 0) releases R1 (unit 1) through an ACCUM edge after R1's own compute ended: R1
     * waited, so it takes read_delta more and its tail T1 tail_delta more */
    SimProgram *p = sim_program_new(2, 2);
    sim_program_add_cta(p, 0);
    sim_program_add_op(p, 0, SIM_OP_COMPUTE, 1000, 0);
    int64_t r0 = sim_program_add_op(p, 1, SIM_OP_REDUCE, 400, 0);
    sim_program_add_cta(p, 1);
    sim_program_add_op(p, 0, SIM_OP_COMPUTE, 100, 1);
    int64_t r1 = sim_program_add_op(p, 1, SIM_OP_REDUCE, 400, 1);
    int64_t t1 = sim_program_add_op(p, 1, SIM_OP_SYNC, 600, 1);
    sim_program_add_edge(p, 0, r0, 0, SIM_EDGE_PHASE);
    sim_program_add_edge(p, 2, r1, 0, SIM_EDGE_PHASE);
    sim_program_add_edge(p, r0, r1, 50, SIM_EDGE_ACCUM);
    p->waited = (SimWaitedReduce){ .read_delta_ns = -100, .tail_delta_ns = 250 };
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, r0), 1400);   /* R0 did not wait: its own time */
    ck_assert_int_eq(s.start_ns[r1], 1450); /* the hand-off */
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, r1), 1750);   /* 400 - 100 */
    ck_assert_int_eq(sim_schedule_end_ns(p, &s, t1), 2600);   /* 600 + 250 */
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

START_TEST(waiting_on_an_unplaced_cta_deadlocks)
{
    SimProgram *p = sim_program_new(1, 1);
    sim_program_add_cta(p, -1);
    int64_t a = sim_program_add_op(p, 0, SIM_OP_REDUCE, 1, 0);
    sim_program_add_cta(p, -1);
    int64_t b = sim_program_add_op(p, 0, SIM_OP_REDUCE, 1, 1);
    sim_program_add_edge(p, b, a, 0, SIM_EDGE_ACCUM); /* CTA 0 waits on CTA 1, which needs CTA 0's unit */
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_ERR_SCHEDULE);
    ck_assert_ptr_nonnull(strstr(err.msg, "deadlocks"));
    ck_assert_ptr_nonnull(strstr(err.msg, "never placed"));
    /* neither op started: -1 for both times (the plain path makes ends for it) */
    for (int64_t op = a; op <= b; op++)
        ck_assert(s.start_ns[op] == -1 && sim_schedule_end_ns(p, &s, op) == -1);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

START_TEST(dependency_cycle_deadlocks)
{
    SimProgram *p = sim_program_new(2, 1);
    sim_program_add_cta(p, 0);
    int64_t a = sim_program_add_op(p, 0, SIM_OP_REDUCE, 1, 0);
    sim_program_add_cta(p, 1);
    int64_t b = sim_program_add_op(p, 0, SIM_OP_REDUCE, 1, 1);
    sim_program_add_edge(p, a, b, 0, SIM_EDGE_ACCUM);
    sim_program_add_edge(p, b, a, 0, SIM_EDGE_ACCUM);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_ERR_SCHEDULE);
    ck_assert_ptr_nonnull(strstr(err.msg, "cycle"));
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

/* Runs one REDUCE of duration d per unit, unit i's starting at start[i], under load; returns each one's
 * realised duration in took[]. */
static void run_reductions(const SimLoadModel *load, int n, const int64_t *start, const int64_t *d, int64_t *took)
{
    SimProgram *p = sim_program_new(n, 1);
    int64_t *r = g_new(int64_t, n);
    for (int i = 0; i < n; i++) {
        sim_program_add_cta(p, i);
        if (start[i] > 0)
            sim_program_add_op(p, 0, SIM_OP_SYNC, start[i], i);
        r[i] = sim_program_add_op(p, 0, SIM_OP_REDUCE, d[i], i);
    }
    sim_program_set_load(p, load);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(s.start_ns[r[i]], start[i]);
        took[i] = sim_schedule_end_ns(p, &s, r[i]) - s.start_ns[r[i]];
    }
    sim_schedule_clear(&s);
    sim_program_free(p);
    g_free(r);
}

/* The reductions' queue (program.h), against its closed forms. */
START_TEST(load_model_queues_reductions)
{
    int32_t extra[] = { 0, 0, 400, 400, 400, 400 };
    int64_t zero[5] = { 0 }, d[5] = { 1000, 1000, 1000, 1000, 1000 }, took[5];
    /* k starting together, a queue of capacity 2 (issue 800 of the 1000, then the wait, then 200): each
     * waits for the backlog (k - 2) * 800 over 2, the same for all: d + (k / 2 - 1) * issue */
    SimLoadModel q = { .extra_ns = extra, .extra_len = 1, .issue_ppm = 800000, .capacity_milli = 2000 };
    for (int k = 1; k <= 5; k++) {
        run_reductions(&q, k, zero, d, took);
        for (int i = 0; i < k; i++)
            ck_assert_int_eq(took[i], 1000 + MAX(0, (k * 1000 - 2000) * 800 / 2000));
    }
    /* staggered by 500, capacity 1.5: the early one issues alone, then beside the late one (backlog
     * 500 * 500 at its issue end: waits ceil(250000 / 1500) = 167); the queue drains while the late one
     * issues alone, so it waits for nothing: the early one pays for the overlap */
    q = (SimLoadModel){ .extra_ns = extra, .extra_len = 1, .issue_ppm = 1000000, .capacity_milli = 1500 };
    int64_t stagger[2] = { 0, 500 };
    run_reductions(&q, 2, stagger, d, took);
    ck_assert_int_eq(took[0], 1167);
    ck_assert_int_eq(took[1], 1000);
    /* no queue, extra(2) = 400 averaged over each issue: both issue beside the other for half of theirs */
    q = (SimLoadModel){ .extra_ns = extra, .extra_len = 2, .issue_ppm = 1000000 };
    run_reductions(&q, 2, stagger, d, took);
    ck_assert_int_eq(took[0], 1200);
    ck_assert_int_eq(took[1], 1200);
    /* a reduction that issues alone, with no queue and no extra: exactly its duration, whatever its shares */
    q = (SimLoadModel){ .extra_ns = extra, .extra_len = 1, .issue_ppm = 300000, .capacity_milli = 1000 };
    int64_t d1[1] = { 1001 };
    run_reductions(&q, 1, zero, d1, took);
    ck_assert_int_eq(took[0], 1001);
}
END_TEST

/* The hand-off growth: a cross-unit accumulation edge out of a reduction gets handoff_extra(k), k = the
 * reductions still running when it ends; the schedule records it and sim_engine_edge_latency reports it. */
START_TEST(load_model_grows_handoffs)
{
    int32_t none[] = { 0, 0 }, extra[] = { 7, 11, 13 };
    SimLoadModel load = { .extra_ns = none, .extra_len = 1, .handoff_extra_ns = extra, .handoff_len = 2,
                          .issue_ppm = 1000000 };
    SimProgram *p = sim_program_new(3, 1);
    int64_t r[3];
    for (int i = 0; i < 3; i++) {
        sim_program_add_cta(p, -1);
        r[i] = sim_program_add_op(p, 0, SIM_OP_REDUCE, i == 2 ? 500 : 1000, i);
    }
    sim_program_add_edge(p, r[0], r[2], 100, SIM_EDGE_ACCUM);
    sim_program_set_load(p, &load);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    /* r0 and r1 end together at 1000; r0 completes first (lower sequence) with r1 still in flight: k = 1 */
    ck_assert_int_eq(s.handoff_extra_ns[r[0]], 11);
    ck_assert_int_eq(s.start_ns[r[2]], 1000 + 100 + 11);
    ck_assert_int_eq(sim_engine_edge_latency(p, &s, 0), 111);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

/* Start times of p by both engines (the fast path where it applies), which must agree; ends too. */
static void assert_engines_agree(const SimProgram *p)
{
    SimSchedule a = { 0 }, b = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &a, &err), SIM_OK);
    ck_assert_int_eq(sim_engine_run_events(p, &b, &err), SIM_OK);
    for (int64_t op = 0; op < p->op_count; op++) {
        ck_assert_int_eq(a.start_ns[op], b.start_ns[op]);
        ck_assert_int_eq(sim_schedule_end_ns(p, &a, op), sim_schedule_end_ns(p, &b, op));
    }
    ck_assert_int_eq(a.makespan_ns, b.makespan_ns);
    sim_schedule_clear(&a), sim_schedule_clear(&b);
}

/* The narrow fields (program.h) widen on the first value that needs it and keep every earlier value: a
 * duration past 2^31 ns, a second latency of a kind; a CTA 200 past its block's first op's fits its delta. */
START_TEST(narrow_fields_widen_when_a_value_needs_it)
{
    SimProgram *p = sim_program_new(2, 1);
    sim_program_add_cta(p, 0);
    sim_program_add_op(p, 0, SIM_OP_COMPUTE, 10, 0);
    sim_program_add_op(p, 0, SIM_OP_REDUCE, 20, 1);
    ck_assert_ptr_nonnull(p->op_duration_ns);
    for (int i = 0; i < 200; i++)
        sim_program_add_cta(p, 1);
    sim_program_add_op(p, 0, SIM_OP_COMPUTE, 3000000000LL, 2); /* CTA 200, 3 s */
    ck_assert_ptr_null(p->op_duration_ns);
    ck_assert_int_eq(sim_op_cta(p, 0), 0);
    ck_assert_int_eq(sim_op_cta(p, 1), 0);
    ck_assert_int_eq(sim_op_cta(p, 2), 200);
    ck_assert_int_eq(sim_op_duration_ns(p, 1), 20);
    ck_assert_int_eq(sim_op_duration_ns(p, 2), 3000000000LL);
    sim_program_add_edge(p, 0, 2, 5, SIM_EDGE_ACCUM);
    sim_program_add_edge(p, 1, 2, 0, SIM_EDGE_PHASE);
    ck_assert_ptr_null(p->edge_latency_ns); /* one latency a kind so far */
    sim_program_add_edge(p, 0, 2, 7, SIM_EDGE_ACCUM);
    ck_assert_ptr_nonnull(p->edge_latency_ns);
    ck_assert_int_eq(sim_edge_latency_ns(p, 0), 5);
    ck_assert_int_eq(sim_edge_latency_ns(p, 1), 0);
    ck_assert_int_eq(sim_edge_latency_ns(p, 2), 7);
    sim_program_free(p);
}
END_TEST

/* Adjacency offsets: in two levels while 32 ops have at most 255 edges, else in full; the same runs of
 * edge ids either way, ascending per op, and no ids where the edges came in order. */
START_TEST(adjacency_in_two_levels_or_in_full)
{
    for (int fan = 3; fan <= 300; fan += 297) {
        SimProgram *p = sim_program_new(4, 1);
        for (int i = 0; i < fan; i++) {
            sim_program_add_cta(p, -1);
            sim_program_add_op(p, 0, SIM_OP_COMPUTE, 1 + i % 7, i);
        }
        sim_program_add_cta(p, -1);
        int64_t sink = sim_program_add_op(p, 0, SIM_OP_REDUCE, 4, fan);
        for (int i = fan - 1; i >= 0; i--) /* ids descending by source: in order of 'to', not of 'from' */
            sim_program_add_edge(p, i, sink, 100, SIM_EDGE_DATA);
        sim_program_seal(p);
        ck_assert(fan > 255 ? p->first_in.full != NULL : p->first_in.rel != NULL);
        ck_assert_ptr_null(p->in_edge);
        ck_assert_ptr_nonnull(p->out_edge);
        ck_assert_int_eq(sim_program_in_end(p, sink) - sim_program_in_begin(p, sink), fan);
        for (int64_t k = sim_program_in_begin(p, sink); k < sim_program_in_end(p, sink); k++)
            ck_assert_int_eq(sim_program_in_edge(p, k), k);
        for (int64_t v = 0; v < fan; v++) {
            ck_assert_int_eq(sim_program_out_end(p, v) - sim_program_out_begin(p, v), 1);
            ck_assert_int_eq(sim_edge_from(p, sim_program_out_edge(p, sim_program_out_begin(p, v))), v);
        }
        assert_engines_agree(p);
        sim_program_free(p);
    }
}
END_TEST

/* Ends derived from starts (the fast path's) are the event engine's; without the ops' tasks too. */
START_TEST(derived_ends_match_the_event_engine)
{
    const int64_t d[] = { 6, 2, 9, 1 };
    SimProgram *p = chain_of_ctas(3, d, 4);
    sim_program_seal(p);
    assert_engines_agree(p);
    sim_program_drop_tasks(p); /* the analysis and the engines without rules never read them */
    assert_engines_agree(p);
    sim_program_free(p);
}
END_TEST

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* sim_sort_i64 (validate's sort of trace times) in both digit widths: 8 bits below 64k values, 16 above;
 * signed values across the whole range, and times that share their high digits (passes skipped). */
START_TEST(sort_i64_matches_qsort_on_both_digit_widths)
{
    static const int64_t sizes[] = { 0, 1, 2, 3, 255, 256, 4097, 65535, 65536, 70001 };
    GRand *g = g_rand_new_with_seed(7);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int wide = 0; wide < 2; wide++) {
            int64_t n = sizes[k], *v = g_new(int64_t, n + 1), *w = g_new(int64_t, n + 1);
            for (int64_t i = 0; i < n; i++)
                v[i] = wide ? (int64_t)((uint64_t)g_rand_int(g) << 32 | g_rand_int(g))
                            : 1700000000000LL + g_rand_int_range(g, -5000, 500000);
            memcpy(w, v, sizeof *v * n);
            sim_sort_i64(v, n);
            qsort(w, n, sizeof *w, cmp_i64);
            ck_assert(n == 0 || memcmp(v, w, sizeof *v * n) == 0);
            g_free(v), g_free(w);
        }
    g_rand_free(g);
}
END_TEST

/* n differences of two %globaltimer-like stamps (floor to 32 ns) of a phase of true duration d ns plus a
 * jitter of -6..6 ns, the start's phase spread evenly over the 32-ns step (n = 32 x 13). */
static void quantized_phase(int64_t d, int64_t *v)
{
    for (int64_t i = 0; i < 32 * 13; i++) {
        int64_t start = i % 32 + 64 * i, end = start + d + i / 32 - 6;
        v[i] = end / 32 * 32 - start / 32 * 32;
    }
}

/* sim_median_grouped_i64 (calibrate --kernel --grouped-medians): on a 32-ns timer a phase of 1454 ns and one of
 * 1458 ns read as 1440 or 1472; their plain medians land a whole step apart (1440, 1472), the grouped medians
 * within 3 ns of each true value. A constant sample, a step of 1, and an even sample whose middle classes are
 * not adjacent (the middle of the gap) give the plain median; values off a common grid stay in their class. */
START_TEST(grouped_median_resolves_a_quantized_phase)
{
    int64_t v[32 * 13], w[32 * 13];
    for (int64_t d = 1450; d <= 1466; d += 4) {
        quantized_phase(d, v);
        int64_t m = sim_median_grouped_i64(v, 32 * 13, 32);
        ck_assert_msg(m >= d - 3 && m <= d + 3, "true %lld, grouped median %lld", (long long)d, (long long)m);
    }
    quantized_phase(1454, v), quantized_phase(1458, w);
    ck_assert_int_eq(sim_median_i64(v, 32 * 13), 1440);
    ck_assert_int_eq(sim_median_i64(w, 32 * 13), 1472);
    quantized_phase(1454, v), quantized_phase(1458, w);
    int64_t a = sim_median_grouped_i64(v, 32 * 13, 32), b = sim_median_grouped_i64(w, 32 * 13, 32);
    ck_assert_msg(b - a >= 0 && b - a <= 8, "grouped medians %lld and %lld", (long long)a, (long long)b);
    int64_t same[] = { 1440, 1440, 1440 }, gap[] = { 0, 0, 64, 64 }, odd[] = { 1, 5, 9, 31, 100 };
    ck_assert_int_eq(sim_median_grouped_i64(same, 3, 32), 1440);
    ck_assert_int_eq(sim_median_grouped_i64(gap, 4, 32), 32);
    ck_assert_int_eq(sim_median_grouped_i64(odd, 5, 1), 9);
    ck_assert_int_eq(sim_median_grouped_i64(odd, 5, 32), 20); /* off the grid: 9's class [-7, 25) holds 1, 5, 9 */
    int64_t pair[] = { 1440, 1472 }; /* adjacent classes: the edge between them, as the plain mean of the two */
    ck_assert_int_eq(sim_median_grouped_i64(pair, 2, 32), 1456);
}
END_TEST

/* The VmFlags line of /proc/self/smaps for the mapping that holds addr ("" if none). */
static char *vm_flags_at(uintptr_t addr)
{
    char *text = NULL, *flags = g_strdup("");
    ck_assert(g_file_get_contents("/proc/self/smaps", &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    bool is_in = false;
    for (int i = 0; lines[i]; i++) {
        unsigned long lo, hi;
        if (sscanf(lines[i], "%lx-%lx ", &lo, &hi) == 2)
            is_in = lo <= addr && addr < hi;
        else if (is_in && g_str_has_prefix(lines[i], "VmFlags:"))
            g_free(flags), flags = g_strdup(lines[i]);
    }
    g_strfreev(lines);
    g_free(text);
    return flags;
}

/* An array prefaulted (prefault.h) has its whole 2 MB parts advised as huge pages (smaps' VmFlags "hg"),
 * where the kernel has transparent huge pages at all. */
START_TEST(prefault_advises_huge_pages)
{
    if (!g_file_test("/sys/kernel/mm/transparent_hugepage/enabled", G_FILE_TEST_EXISTS))
        return;
    size_t bytes = (size_t)8 << 20;
    char *a = sim_prefault(g_malloc(bytes), bytes);
    uintptr_t inside = ((uintptr_t)a + ((uintptr_t)2 << 20) - 1) & ~(((uintptr_t)2 << 20) - 1);
    char *flags = vm_flags_at(inside);
    ck_assert_msg(strstr(flags, " hg") != NULL, "%s", flags);
    g_free(flags);
    g_free(a);
}
END_TEST

Suite *suite_engine(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("semantics");
    tcase_add_test(tc, dispatch_goes_to_first_free_unit_in_launch_order);
    tcase_add_test(tc, sort_i64_matches_qsort_on_both_digit_widths);
    tcase_add_test(tc, grouped_median_resolves_a_quantized_phase);
    tcase_add_test(tc, prefault_advises_huge_pages);
    tcase_add_test(tc, equal_free_times_pick_the_lowest_unit);
    tcase_add_test(tc, latency_applies_only_between_units);
    tcase_add_test(tc, zero_length_ops_and_two_engines);
    tcase_add_test(tc, overlap_penalty_slows_the_compute_its_reduction_starts_beside);
    tcase_add_test(tc, write_extra_slows_the_store_engine_beside_a_write);
    tcase_add_test(tc, write_extra_per_store_engine);
    tcase_add_test(tc, write_slope_slows_a_write_per_write_in_flight);
    tcase_add_test(tc, write_extra_slope_per_write_in_flight);
    tcase_add_test(tc, waited_reduction_takes_its_other_times);
    tcase_add_test(tc, write_extra_by_time_into_the_write);
    tcase_add_test(tc, waiting_on_an_unplaced_cta_deadlocks);
    tcase_add_test(tc, dependency_cycle_deadlocks);
    tcase_add_test(tc, load_model_queues_reductions);
    tcase_add_test(tc, load_model_grows_handoffs);
    tcase_add_test(tc, narrow_fields_widen_when_a_value_needs_it);
    tcase_add_test(tc, adjacency_in_two_levels_or_in_full);
    tcase_add_test(tc, derived_ends_match_the_event_engine);
    suite_add_tcase(s, tc);
    return s;
}

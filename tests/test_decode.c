/* Split-KV decode: FA3's split heuristic and the paper's rule on hand-computed cases, the tile geometry,
 * the simulated latency against its closed form in one wave and in two, empty splits, the U-curve's
 * monotone descent to the plateau, `best`, and every rejected input. */
#include "decode.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

static DecodeShape shape(int batch, int hq, int hkv, int64_t lk, bool is_paged)
{
    DecodeShape w = sim_decode_shape_default();
    w.batch = batch, w.hq = hq, w.hkv = hkv, w.lk = lk, w.is_paged = is_paged;
    return w;
}

static DecodeGeometry geometry(const DecodeShape *w)
{
    DecodeGeometry g;
    SimError err = { 0 };
    ck_assert_int_eq(sim_decode_geometry(w, &g, &err), SIM_OK);
    return g;
}

static DecodeRun run(const DecodeShape *w, const DecodeCosts *c, int splits)
{
    DecodeRun r;
    SimError err = { 0 };
    ck_assert_int_eq(sim_decode_run(w, c, splits, &r, &err), SIM_OK);
    return r;
}

static int fa3(const DecodeShape *w)
{
    DecodeGeometry g = geometry(w);
    return sim_decode_fa3_splits(&g, w->n_sm, false, 128);
}

static int seq_aware(const DecodeShape *w)
{
    DecodeGeometry g = geometry(w);
    return sim_decode_seq_aware_splits(&g, w->n_sm, false, 128);
}

/* 8 m-blocks, 47 blocks of 176: eff(s) = 8s/132 up to s = 16, eff(33) = 1, so the smallest s with
 * 8s/132 >= 0.85 is 15. */
START_TEST(fa3_llama70b_8192_gives_47_blocks_and_15_splits)
{
    DecodeShape w = shape(1, 64, 8, 8192, false);
    DecodeGeometry g = geometry(&w);
    ck_assert_int_eq(g.kblock_m, 128);
    ck_assert_int_eq(g.kblock_n, 176);
    ck_assert_int_eq(g.n_blocks, 47);
    ck_assert_int_eq(g.num_m_blocks, 1);
    ck_assert_int_eq(g.total_mblocks, 8);
    ck_assert_int_eq(fa3(&w), 15);
    ck_assert_int_eq(seq_aware(&w), 15);
}
END_TEST

START_TEST(short_contexts_do_not_split_with_176_wide_blocks)
{
    DecodeShape w = shape(1, 64, 8, 512, false);
    ck_assert_int_eq(geometry(&w).n_blocks, 3);
    ck_assert_int_eq(fa3(&w), 1);
    ck_assert_int_eq(seq_aware(&w), 1);
    w.hkv = 1, w.hq = 8; /* even with one KV head: n_blocks 3 is guard 1 of the paper */
    ck_assert_int_eq(fa3(&w), 1);
    ck_assert_int_eq(seq_aware(&w), 1);
}
END_TEST

START_TEST(paged_512_is_the_papers_boundary_bucket)
{
    DecodeShape w = shape(1, 8, 1, 512, true);
    ck_assert_int_eq(geometry(&w).kblock_n, 128);
    ck_assert_int_eq(geometry(&w).n_blocks, 4);
    ck_assert_int_eq(fa3(&w), 1);
    ck_assert_int_eq(seq_aware(&w), 3);
    w = shape(1, 16, 2, 512, true);  /* total_mblocks 2 < 4 */
    ck_assert_int_eq(seq_aware(&w), 3);
    w = shape(2, 16, 2, 512, true);  /* total_mblocks 4: guard 2 */
    ck_assert_int_eq(seq_aware(&w), 1);
    w = shape(1, 64, 8, 512, true);
    ck_assert_int_eq(seq_aware(&w), 1);
    w = shape(1, 8, 1, 384, true);   /* n_blocks 3: guard 1 */
    ck_assert_int_eq(seq_aware(&w), 1);
    w = shape(1, 8, 1, 640, true);   /* n_blocks 5: both run the efficiency loop: s/132 peaks at s = 5 */
    ck_assert_int_eq(fa3(&w), 5);
    ck_assert_int_eq(seq_aware(&w), 5);
}
END_TEST

START_TEST(efficiency_loop_hand_cases)
{
    DecodeShape w = shape(1, 8, 1, 2048, false);     /* 12 blocks, eff = s/132: smallest s >= 10.2 */
    ck_assert_int_eq(fa3(&w), 11);
    w = shape(1, 105, 105, 8192, false);             /* eff(1..4) = 0.7955, eff(5) = 525/528 */
    ck_assert_int_eq(fa3(&w), 5);
    w = shape(1, 106, 106, 8192, false);             /* 106 >= 0.8 * 132: saturated */
    ck_assert_int_eq(fa3(&w), 1);
    w = shape(1, 8, 1, 8192, false);                 /* max_splits = min(128, 132, 47): eff = s/132 */
    ck_assert_int_eq(fa3(&w), 40);                   /* 0.85 * 47 = 39.95 */
}
END_TEST

/* Saturated but one KV head over 50 MB and >= 264 m-blocks: ceil(size / 50 MB) splits, not if causal. */
START_TEST(saturated_long_kv_head_splits_by_l2_size)
{
    DecodeShape w = shape(1, 8, 1, 204801, false);
    w.lq = 4224;                                     /* 4224 * 8 rows / 128 = 264 m-blocks */
    DecodeGeometry g = geometry(&w);
    ck_assert_int_eq(g.num_m_blocks, 264);
    ck_assert_int_eq(g.size_one_kv_head, 204801LL * 512);
    ck_assert_int_eq(sim_decode_fa3_splits(&g, 132, false, 128), 3);
    ck_assert_int_eq(sim_decode_fa3_splits(&g, 132, true, 128), 1);
    w.lk = 204800;                                   /* exactly 2 x 50 MB */
    g = geometry(&w);
    ck_assert_int_eq(sim_decode_fa3_splits(&g, 132, false, 128), 2);
    w.lq = 4208;                                     /* 263 m-blocks: under two waves of m-blocks */
    g = geometry(&w);
    ck_assert_int_eq(g.num_m_blocks, 263);
    ck_assert_int_eq(sim_decode_fa3_splits(&g, 132, false, 128), 1);
}
END_TEST

START_TEST(geometry_tiles_and_errors)
{
    DecodeShape w = shape(1, 8, 1, 512, false);
    w.head_dim = 64;
    ck_assert_int_eq(geometry(&w).kblock_m, 192);
    ck_assert_int_eq(geometry(&w).kblock_n, 192);
    w.is_paged = true;
    ck_assert_int_eq(geometry(&w).kblock_n, 128);
    w.kblock_n = 64;
    ck_assert_int_eq(geometry(&w).n_blocks, 8);
    DecodeGeometry g;
    SimError err = { 0 };
    w = shape(1, 12, 8, 512, false);
    ck_assert_int_eq(sim_decode_geometry(&w, &g, &err), SIM_ERR_USAGE);
    ck_assert_str_eq(err.msg, "H_q = 12 is not a multiple of H_kv = 8 (--hq, --hkv)");
    err = (SimError){ 0 };
    w = shape(1, 8, 1, 0, false);
    ck_assert_int_eq(sim_decode_geometry(&w, &g, &err), SIM_ERR_USAGE);
    err = (SimError){ 0 };
    w = shape(1, 8, 1, 512, false);
    w.dtype = DECODE_FP8;
    ck_assert_int_eq(sim_decode_geometry(&w, &g, &err), SIM_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "--kblock-m"));
    w.kblock_m = 128, w.kblock_n = 224;
    ck_assert_int_eq(geometry(&w).n_blocks, 3);
}
END_TEST

/* One wave (ctas <= SMs, compute-bound blocks): latency = kernel + fixed + ceil(n/s) * block
 * + [s > 1] (combine + s * combine_split). Blocks: ceil(2*128*176*256 / 6061) = 1904 ns. */
START_TEST(one_wave_closed_form_over_every_split)
{
    DecodeShape w = shape(1, 8, 1, 8192, false);
    DecodeCosts c = sim_decode_costs_h100();
    for (int s = 1; s <= 47; s++) {
        DecodeRun r = run(&w, &c, s);
        int64_t per = (47 + s - 1) / s;
        int64_t expect = 6000 + 1650 + per * 1904 + (s > 1 ? 1800 + 4 * s : 0);
        ck_assert_int_eq(r.block_ns, 1904);
        ck_assert_int_eq(r.blocks_per_split, per);
        ck_assert_int_eq(r.latency_ns, expect);
        ck_assert_int_eq(r.ctas, s);
        ck_assert_int_eq(r.empty_ctas, s - (47 + per - 1) / per);
    }
}
END_TEST

/* 256 CTAs on 132 SMs: two waves; 132 streams share 3000 B/ns: ceil(90112 * 132 / 3000) = 3965 ns. */
START_TEST(two_waves_memory_bound)
{
    DecodeShape w = shape(8, 256, 32, 8192, false);
    DecodeCosts c = sim_decode_costs_h100();
    DecodeRun r = run(&w, &c, 1);
    ck_assert_int_eq(r.ctas, 256);
    ck_assert_int_eq(r.block_ns, 3965);
    ck_assert_int_eq(r.main_ns, 2 * (1650 + 47 * 3965));
    ck_assert_int_eq(r.latency_ns, 6000 + 2 * (1650 + 47 * 3965));
    ck_assert(r.sm_occupancy == 1.0);
    /* busy = 256 CTAs of equal length over 132 SMs x 2 CTA lengths */
    ck_assert(r.sm_busy_fraction == 256.0 / 264.0);
}
END_TEST

/* FA3's split sizes: 47 blocks in 15 splits of 4 leave 3 splits empty; empty CTAs pay the fixed part. */
START_TEST(empty_splits_pay_the_fixed_part)
{
    DecodeShape w = shape(1, 64, 8, 8192, false);
    DecodeCosts c = sim_decode_costs_h100();
    DecodeRun r = run(&w, &c, 15);
    ck_assert_int_eq(r.ctas, 120);
    ck_assert_int_eq(r.empty_ctas, 24);
    ck_assert_int_eq(r.blocks_per_split, 4);
    c.block_ns = 1000, c.cta_fixed_ns = 500;        /* busy = 8 * (11 * 4500 + 3500 + 3 * 500) */
    r = run(&w, &c, 15);
    ck_assert_int_eq(r.main_ns, 4500);
    ck_assert(r.sm_busy_fraction == 8.0 * (11 * 4500 + 3500 + 3 * 500) / (132.0 * 4500));
}
END_TEST

/* Latency falls every time the block count per CTA falls, down to one block per CTA (s = n_blocks); in
 * between it rises only by the combine's per-split term. The paper's L_K = 512 curve: 13.36 -> 11.37 us. */
START_TEST(latency_monotone_down_to_the_plateau)
{
    DecodeShape w = shape(1, 8, 1, 8192, false);
    DecodeCosts c = sim_decode_costs_h100();
    DecodeRun prev = run(&w, &c, 1);
    for (int s = 2; s <= 47; s++) {
        DecodeRun r = run(&w, &c, s);
        if (r.blocks_per_split < prev.blocks_per_split)
            ck_assert_int_lt(r.latency_ns, prev.latency_ns);
        else
            ck_assert_int_eq(r.latency_ns - prev.latency_ns, s == 2 ? 1800 + 8 : 4);
        prev = r;
    }
    w = shape(1, 8, 1, 512, false);
    int64_t l1 = run(&w, &c, 1).latency_ns, l2 = run(&w, &c, 2).latency_ns, l3 = run(&w, &c, 3).latency_ns;
    ck_assert_int_eq(l1, 13362);
    ck_assert_int_eq(l3, 11366);
    ck_assert_int_lt(l2, l1);
    ck_assert_int_lt(l3, l2);
    for (int s = 4; s <= 64; s++)
        ck_assert_int_eq(run(&w, &c, s).latency_ns, l3 + 4 * (s - 3));
}
END_TEST

START_TEST(best_is_the_simulated_optimum)
{
    DecodeCosts c = sim_decode_costs_h100();
    DecodeShape w = shape(1, 8, 1, 512, true);       /* 4 blocks: 1, 2, 2, 1 per CTA for s = 1..4 */
    int best = 0;
    int64_t best_ns = 0;
    SimError err = { 0 };
    ck_assert_int_eq(sim_decode_best_splits(&w, &c, &best, &best_ns, &err), SIM_OK);
    ck_assert_int_eq(best, 4);
    ck_assert_int_eq(best_ns, 6000 + 1650 + 1385 + 1800 + 16);
    /* s = 3 holds 2 blocks per CTA like s = 2, so the paper's override is off the plateau here */
    ck_assert_int_eq(run(&w, &c, 3).blocks_per_split, 2);
    ck_assert_int_eq(run(&w, &c, 3).latency_ns - run(&w, &c, 2).latency_ns, 4);
    const DecodeShape shapes[] = { shape(1, 64, 8, 8192, false), shape(8, 64, 8, 8192, false),
                                   shape(4, 16, 2, 1024, true) };
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(sim_decode_best_splits(&shapes[i], &c, &best, &best_ns, &err), SIM_OK);
        ck_assert_int_le(best_ns, run(&shapes[i], &c, fa3(&shapes[i])).latency_ns);
        ck_assert_int_le(best_ns, run(&shapes[i], &c, seq_aware(&shapes[i])).latency_ns);
    }
}
END_TEST

START_TEST(split_policy_parsing)
{
    DecodeSplit sp;
    SimError err = { 0 };
    ck_assert_int_eq(decode_split_parse("fixed:3", &sp, &err), SIM_OK);
    ck_assert_str_eq(sp.ops->name, "fixed");
    ck_assert_int_eq(sp.arg, 3);
    ck_assert_int_eq(decode_split_parse("seq-aware", &sp, &err), SIM_OK);
    ck_assert_str_eq(sp.ops->name, "seq-aware");
    const char *bad[] = { "fixed", "fixed:", "fixed:0", "fixed:257", "fixed:3x", "fixed: 3", "fixed:+3",
                          "fa3:2", "fix", "best:", "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = (SimError){ 0 };
        ck_assert_int_eq(decode_split_parse(bad[i], &sp, &err), SIM_ERR_USAGE);
        ck_assert_ptr_nonnull(strstr(err.msg, "--split-policy expects"));
    }
    DecodeShape w = shape(1, 8, 1, 512, true);
    DecodeCosts c = sim_decode_costs_h100();
    int s = 0;
    decode_split_parse("seq-aware", &sp, &err);
    ck_assert_int_eq(sim_decode_split_choose(&sp, &w, &c, &s, &err), SIM_OK);
    ck_assert_int_eq(s, 3);
}
END_TEST

START_TEST(run_rejects_bad_splits_and_oversized_grids)
{
    DecodeShape w = shape(1, 8, 1, 512, false);
    DecodeCosts c = sim_decode_costs_h100();
    DecodeRun r;
    SimError err = { 0 };
    ck_assert_int_eq(sim_decode_run(&w, &c, 0, &r, &err), SIM_ERR_USAGE);
    err = (SimError){ 0 };
    ck_assert_int_eq(sim_decode_run(&w, &c, 257, &r, &err), SIM_ERR_USAGE);
    err = (SimError){ 0 };
    w = shape(100000, 32, 32, 512, false);           /* 3.2M m-blocks x 2 splits > 4M CTAs */
    ck_assert_int_eq(sim_decode_run(&w, &c, 2, &r, &err), SIM_ERR_LIMIT);
    /* under the ceiling, over a memory cap: 2^20 CTAs x 64 B = 64 MB; refused at 63 MB, run at 64 */
    w = shape(1024, 1024, 1024, 512, false);
    c.max_memory_mb = 63;
    err = (SimError){ 0 };
    ck_assert_int_eq(sim_decode_run(&w, &c, 1, &r, &err), SIM_ERR_LIMIT);
    ck_assert_msg(strstr(err.msg, "would need about 64 MB to simulate, over the cap of 63 MB"), "%s", err.msg);
    c.max_memory_mb = 64;
    err = (SimError){ 0 };
    ck_assert_int_eq(sim_decode_check_size(&w, &c, 1, &err), SIM_OK);
}
END_TEST

START_TEST(split_registry_lookup_and_names)
{
    ck_assert_int_ge(decode_split_count(), 1);
    ck_assert_ptr_null(decode_split_at(-1));
    ck_assert_ptr_null(decode_split_at(decode_split_count()));
    ck_assert_ptr_null(decode_split_find("no-such-policy"));
    char *names = decode_split_names(", ", " or ");
    for (int i = 0; i < decode_split_count(); i++) {
        const DecodeSplitOps *p = decode_split_at(i);
        ck_assert_ptr_eq(decode_split_find(p->name), p);
        ck_assert(p->summary && *p->summary && p->choose);
        ck_assert_ptr_nonnull(strstr(names, p->name));
        /* Every registered name parses as the user writes it, and the error sentence names it. */
        char text[64];
        snprintf(text, sizeof text, "%s%s", p->name, p->has_arg ? ":2" : "");
        DecodeSplit sp;
        SimError err = { 0 };
        ck_assert_int_eq(decode_split_parse(text, &sp, &err), SIM_OK);
        ck_assert_ptr_eq(sp.ops, p);
        ck_assert_int_eq(decode_split_parse("nope", &sp, &err), SIM_ERR_USAGE);
        ck_assert_ptr_nonnull(strstr(err.msg, p->name));
    }
    g_free(names);
}
END_TEST

/* Every registered policy on a spread of shapes: a split count in range, and never better than best. */
START_TEST(every_split_policy_runs_and_is_bounded_by_best)
{
    const DecodeShape shapes[] = { shape(1, 8, 1, 512, false), shape(1, 8, 1, 512, true),
                                   shape(1, 64, 8, 8192, false), shape(8, 256, 32, 128, false),
                                   shape(2, 16, 2, 4096, true) };
    DecodeCosts c = sim_decode_costs_h100();
    for (int i = 0; i < decode_split_count(); i++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            DecodeSplit sp = { .ops = decode_split_at(i), .arg = decode_split_at(i)->has_arg ? 5 : 0 };
            SimError err = { 0 };
            int s = 0, best = 0;
            int64_t best_ns = 0;
            ck_assert_int_eq(sim_decode_split_choose(&sp, &shapes[k], &c, &s, &err), SIM_OK);
            ck_assert(s >= 1 && s <= SIM_DECODE_MAX_SPLITS);
            ck_assert_int_eq(sim_decode_best_splits(&shapes[k], &c, &best, &best_ns, &err), SIM_OK);
            ck_assert_int_le(best_ns, run(&shapes[k], &c, s).latency_ns);
        }
    /* A bad shape is refused before any policy runs. */
    DecodeShape bad = shape(1, 12, 8, 512, false);
    DecodeSplit sp = { .ops = decode_split_at(0) };
    SimError err = { 0 };
    int s;
    ck_assert_int_eq(sim_decode_split_choose(&sp, &bad, &c, &s, &err), SIM_ERR_USAGE);
}
END_TEST

START_TEST(sweep_of_the_paged_boundary_bucket)
{
    DecodeShape w = shape(1, 8, 1, 512, true);
    DecodeCosts c = sim_decode_costs_h100();
    DecodeSweep sw;
    SimError err = { 0 };
    ck_assert_int_eq(sim_decode_sweep(&w, &c, &sw, &err), SIM_OK);
    ck_assert_int_eq(sw.best, 4);
    ck_assert_int_eq(sw.plateau, 4);
    ck_assert_int_eq(sw.fa3, 1);
    ck_assert_int_eq(sw.seq_aware, 3);
    ck_assert_int_eq(sw.runs[3].latency_ns, 10851);
    for (int s = 1; s <= SIM_DECODE_SWEEP_MAX; s++) {
        ck_assert_int_eq(sw.runs[s - 1].splits, s);
        ck_assert_int_ge(sw.runs[s - 1].latency_ns, sw.runs[sw.best - 1].latency_ns);
    }
    /* Contiguous: s = 3 is on the plateau (docs/decode.md). */
    w = shape(1, 8, 1, 512, false);
    ck_assert_int_eq(sim_decode_sweep(&w, &c, &sw, &err), SIM_OK);
    ck_assert_int_eq(sw.plateau, 3);
    ck_assert_int_eq(sw.runs[2].latency_ns, 11366);
    w.hq = 12, w.hkv = 8;
    ck_assert_int_eq(sim_decode_sweep(&w, &c, &sw, &err), SIM_ERR_USAGE);
}
END_TEST

START_TEST(regression_grid_rows_stats_and_regret)
{
    DecodeShape base = shape(1, 8, 1, 512, true);
    DecodeCosts c = sim_decode_costs_h100();
    DecodeGridRow *rows = g_new0(DecodeGridRow, SIM_DECODE_GRID_COUNT);
    DecodeGridStats seq = sim_decode_grid_stats_init(), best = sim_decode_grid_stats_init();
    SimError err = { 0 };
    for (int i = 0; i < SIM_DECODE_GRID_COUNT; i++) {
        ck_assert_int_eq(sim_decode_grid_row(&base, &c, i, &rows[i], &err), SIM_OK);
        ck_assert_int_eq(rows[i].w.hq, SIM_DECODE_GRID_GROUP * rows[i].w.hkv);
        ck_assert(rows[i].w.is_paged);
        ck_assert_int_le(rows[i].best.latency_ns, rows[i].fa3.latency_ns);
        ck_assert_int_le(rows[i].best.latency_ns, rows[i].seq.latency_ns);
        for (int k = 0; k < i; k++)   /* every configuration once */
            ck_assert(rows[k].w.batch != rows[i].w.batch || rows[k].w.lk != rows[i].w.lk ||
                      rows[k].w.hkv != rows[i].w.hkv);
        sim_decode_grid_stats_add(&seq, &rows[i].fa3, &rows[i].seq);
        sim_decode_grid_stats_add(&best, &rows[i].fa3, &rows[i].best);
    }
    /* Paged: seq-aware differs from fa3 in exactly the three low-tile L_K 512 configs, never slower. */
    ck_assert_int_eq(seq.changed, 3);
    ck_assert_int_eq(best.slower, 0);
    ck_assert(best.min >= 1.0 && sim_decode_grid_geomean(&best) >= sim_decode_grid_geomean(&seq));
    DecodeGridRegret g = sim_decode_grid_regret(rows);
    ck_assert(g.beats_both >= 0 && g.beats_both <= SIM_DECODE_GRID_COUNT);
    for (int i = 0; i < SIM_DECODE_GRID_COUNT; i++)
        ck_assert(sim_decode_speedup(&rows[i].fa3, &rows[i].best) <=
                  sim_decode_speedup(&rows[g.worst_fa3].fa3, &rows[g.worst_fa3].best));
    g_free(rows);
}
END_TEST

Suite *suite_decode(void)
{
    Suite *s = suite_create("decode");
    TCase *tc = tcase_create("split heuristics");
    tcase_add_test(tc, fa3_llama70b_8192_gives_47_blocks_and_15_splits);
    tcase_add_test(tc, short_contexts_do_not_split_with_176_wide_blocks);
    tcase_add_test(tc, paged_512_is_the_papers_boundary_bucket);
    tcase_add_test(tc, efficiency_loop_hand_cases);
    tcase_add_test(tc, saturated_long_kv_head_splits_by_l2_size);
    tcase_add_test(tc, geometry_tiles_and_errors);
    tcase_add_test(tc, split_policy_parsing);
    tcase_add_test(tc, split_registry_lookup_and_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("simulated latency");
    tcase_add_test(tc, one_wave_closed_form_over_every_split);
    tcase_add_test(tc, two_waves_memory_bound);
    tcase_add_test(tc, empty_splits_pay_the_fixed_part);
    tcase_add_test(tc, latency_monotone_down_to_the_plateau);
    tcase_add_test(tc, best_is_the_simulated_optimum);
    tcase_add_test(tc, run_rejects_bad_splits_and_oversized_grids);
    tcase_add_test(tc, every_split_policy_runs_and_is_bounded_by_best);
    tcase_add_test(tc, sweep_of_the_paged_boundary_bucket);
    tcase_add_test(tc, regression_grid_rows_stats_and_regret);
    suite_add_tcase(s, tc);
    return s;
}

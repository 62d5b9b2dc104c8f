/* Configs, cost model and sweeps: the cost formulas of docs/configs.md as exact integers, FA3's tile table
 * and LPT swizzle, located errors (syntax line:col, JSON paths, sweep values), every error of a file at once,
 * --set, point order, and a sweep's rows equal to the same jobs run directly. */
#include "config.h"
#include "job.h"
#include "sweep.h"
#include "tests.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* 1000 FLOP/ns, 1 B/ns of L2 and HBM per SM, 1 GHz: every cost below is hand-computable. */
static SimHardware unit_hw(void)
{
    return (SimHardware){ "custom", 100, 1000, 100.0, 1.0, 100.0, 100.0, 100, 7, 11 };
}

START_TEST(cost_formulas_are_exact)
{
    SimHardware hw = unit_hw();
    SimShape sh = { .batch = 2, .heads = 3, .seqlen_q = 1000, .seqlen_k = 1000, .head_dim = 128, .mask = MASK_FULL };
    SimCost c;
    sim_cost_derive(&sh, &hw, &c);
    ck_assert_int_eq(c.block_m, 80);
    ck_assert_int_eq(c.block_n, 128);
    ck_assert(c.tile_flops == 2.0 * 5 * 80 * 128 * 128);
    ck_assert_int_eq(c.c_ns, 13108);            /* 13,107,200 FLOP / 1000 FLOP/ns, rounded up */
    ck_assert_int_eq(c.r_ns, 2 * 80 * 128 * 4 + 100); /* dQ tile read + written at 1 B/ns, 100 cycles at 1 GHz */
    ck_assert_int_eq(c.prologue_ns, 2 * 128 * 128 * 2);
    ck_assert_int_eq(c.wl.heads, 6);
    ck_assert_int_eq(c.wl.kv_tiles, 8);         /* ceil(1000 / 128) */
    ck_assert_int_eq(c.wl.q_tiles, 13);         /* ceil(1000 / 80) */
    ck_assert_int_eq(c.wl.tile_ratio, 1);
    ck_assert_int_eq(c.wl.head_swizzle, 1);
    ck_assert_int_eq(c.wl.n_sm, 100);
    ck_assert(c.bwd_flops == 2.5 * 2 * 6 * 1000.0 * 1000.0 * 256); /* FA3: 2.5 x 2 b h Sq Sk (d + dv) */
    sh.mask = MASK_CAUSAL;
    sim_cost_derive(&sh, &hw, &c);
    ck_assert(c.bwd_flops == 2.5 * 2 * 6 * 1000.0 * 500.0 * 256); /* avg seqlen_k halved */
    ck_assert_int_eq(c.block_m, 64);
    ck_assert_int_eq(c.wl.tile_ratio, 2);
    ck_assert_int_eq(c.wl.q_tiles, 16);
    ck_assert_int_eq(c.wl.head_swizzle, sim_cost_head_swizzle(1000, 128, 2));
    /* summed over a full-mask head the tiles' FLOPs are FA3's count: 10 Sq Sk d = 2.5 x 2 Sq Sk 2d */
    ck_assert(2.0 * 5 * 1000.0 * 1000.0 * 128 == 2.5 * 2 * 1000.0 * 1000.0 * 256);
}
END_TEST

START_TEST(h100_preset_costs)
{
    SimHardware hw;
    ck_assert(sim_cost_preset("h100-sxm", &hw));
    ck_assert_int_eq(hw.sm_count, 132);
    ck_assert(hw.tensor_tflops == 989.4);
    SimShape sh = { .batch = 1, .heads = 16, .seqlen_q = 16384, .seqlen_k = 16384, .head_dim = 128 };
    SimCost c;
    sim_cost_derive(&sh, &hw, &c);
    /* 13,107,200 / (989.4e3 / 132 x 0.6) = 2914.5 -> 2915; 81,920 B / (5500 / 132) = 1966.1 -> 1967,
     * 500 cycles at 1830 MHz = 273.2 -> 274 */
    ck_assert_int_eq(c.c_ns, 2915);
    ck_assert_int_eq(c.r_ns, 1967 + 274);
    ck_assert_int_eq(c.wl.kv_tiles, 128);
    ck_assert_int_eq(c.wl.q_tiles, 205);
    ck_assert(!sim_cost_preset("h100", &hw));
    ck_assert(sim_cost_preset("h200-sxm", &hw) && hw.hbm_bandwidth_gbps == 4800);
}
END_TEST

START_TEST(fa3_tiles_and_swizzle)
{
    int m, n;
    const int64_t d[] = { 64, 96, 128, 128, 192 };
    const Mask k[] = { MASK_CAUSAL, MASK_FULL, MASK_CAUSAL, MASK_FULL, MASK_FULL };
    const int want[][2] = { { 128, 128 }, { 64, 128 }, { 64, 128 }, { 80, 128 }, { 64, 96 } };
    for (int i = 0; i < 5; i++) {
        ck_assert(sim_cost_fa3_tile(d[i], k[i], &m, &n));
        ck_assert_int_eq(m, want[i][0]);
        ck_assert_int_eq(n, want[i][1]);
    }
    ck_assert(!sim_cost_fa3_tile(256, MASK_FULL, &m, &n));
    ck_assert_int_eq(sim_cost_head_swizzle(8192, 128, 2), 4);   /* FA3's example: 8 MiB per head */
    ck_assert_int_eq(sim_cost_head_swizzle(512, 64, 2), 128);   /* 256 KiB: 160 -> 128 */
    ck_assert_int_eq(sim_cost_head_swizzle(40960, 128, 2), 1);  /* exactly 40 MiB */
    ck_assert_int_eq(sim_cost_head_swizzle(40961, 128, 2), 1);  /* above 40 MiB */
    ck_assert_int_eq(sim_cost_head_swizzle(20480, 128, 2), 2);  /* 20 MiB */
}
END_TEST

START_TEST(latency_matrix_halves)
{
    SimHardware hw = unit_hw();
    int32_t *m = sim_cost_latency_matrix(&hw, 4);
    const int32_t want[16] = { 0, 7, 11, 11, 7, 0, 11, 11, 11, 11, 0, 7, 11, 11, 7, 0 };
    ck_assert_mem_eq(m, want, sizeof want);
    free(m);
}
END_TEST

/* Parses and validates text; returns the diag (caller frees) and the config in *out (may be NULL). */
static SimDiag *check_text(const char *text, SimConfig **out)
{
    SimDiag *d = sim_diag_new();
    SimConfig *c = sim_config_parse("t.json", text, strlen(text), d);
    if (c)
        sim_config_validate(c, true, d);
    if (out)
        *out = c;
    else
        sim_config_free(c);
    return d;
}

static bool has_line(const SimDiag *d, const char *text)
{
    for (int i = 0; i < sim_diag_count(d); i++)
        if (strcmp(sim_diag_at(d, i), text) == 0)
            return true;
    return false;
}

START_TEST(syntax_error_line_col)
{
    /* a missing comma: the error is at the next key's quote */
    SimDiag *d = check_text("{\n  \"schema_version\": 1\n  \"workload\": {}\n}", NULL);
    ck_assert_int_eq(sim_diag_count(d), 1);
    ck_assert_str_eq(sim_diag_at(d, 0), "t.json:3:3: invalid JSON here");
    ck_assert_int_eq(sim_diag_status(d), SIM_ERR_INPUT);
    sim_diag_free(d);
    const char nul[] = "{\"a\"\0:1}";
    d = sim_diag_new();
    ck_assert_ptr_null(sim_config_parse("t.json", nul, sizeof nul - 1, d));
    ck_assert_str_eq(sim_diag_at(d, 0), "t.json:1:5: a NUL byte is not allowed in a config");
    sim_diag_free(d);
}
END_TEST

START_TEST(all_errors_listed_with_paths)
{
    SimDiag *d = check_text("{\"schema_version\": 2, \"extra\": 1, \"workload\": {\"heads\": 0, \"heads\": 2, "
                            "\"seqlen_q\": 1024, \"head_dim\": 256, \"mask\": \"diagonal\"}, "
                            "\"hardware\": {\"preset\": \"a100\", \"tensor_efficiency\": 1.5}, "
                            "\"policies\": [\"fa3\", \"nope\", \"fa3\"], \"options\": {\"reduce\": 1}}", NULL);
    ck_assert(has_line(d, "t.json: /workload/heads: duplicate key"));
    ck_assert(has_line(d, "t.json: /extra: unknown key (allowed here: schema_version, description, workload, "
                          "hardware, policies, options, sweep)"));
    ck_assert(has_line(d, "t.json: /schema_version: must be an integer from 1 to 1"));
    ck_assert(has_line(d, "t.json: /workload/heads: must be an integer from 1 to 1000000"));
    ck_assert(has_line(d, "t.json: /workload/mask: must be full, causal or a block mask: window:W, window:L:R, "
                          "document:L1,L2,..., prefix:P, random:DENSITY:SEED (tile units, docs/masks.md)"));
    ck_assert(has_line(d, "t.json: /hardware/preset: must be one of h100-sxm, h800-sxm, h200-sxm"));
    ck_assert(has_line(d, "t.json: /hardware/tensor_efficiency: must be a number above 0 and at most 1"));
    ck_assert(has_line(d, "t.json: /policies/1: unknown policy (sim --list-policies shows them, with the masks "
                          "each takes)"));
    ck_assert(has_line(d, "t.json: /policies/2: policy fa3 is listed twice"));
    ck_assert(has_line(d, "t.json: /options/reduce: must be one of serial, async"));
    ck_assert_int_eq(sim_diag_count(d), 10);
    sim_diag_free(d);
}
END_TEST

START_TEST(semantic_errors)
{
    SimDiag *d = check_text("{\"schema_version\": 1, \"workload\": {\"batch\": 2, \"total_tokens\": 4096, "
                            "\"seqlen_q\": 1024, \"seqlen_k\": 512, \"head_dim\": 256, \"mask\": \"causal\"}}", NULL);
    ck_assert(has_line(d, "t.json: /workload/total_tokens: give batch or total_tokens, not both"));
    ck_assert(has_line(d, "t.json: /workload/head_dim: FA3 has no deterministic backward tile for head_dim 256 "
                          "(it has 64, 96, 128 and 192; or give block_m and block_n)"));
    ck_assert(has_line(d, "t.json: /workload/seqlen_k: the causal mask needs seqlen_k equal to seqlen_q (1024)"));
    sim_diag_free(d);
    d = check_text("{\"schema_version\": 1, \"workload\": {\"head_dim\": 192, \"seqlen_q\": 512, \"mask\": \"causal\","
                   " \"hidden\": 1000}}", NULL);
    ck_assert(has_line(d, "t.json: /workload/hidden: 1000 must be a multiple of head_dim (192)"));
    sim_diag_free(d);
    d = check_text("{\"schema_version\": 1, \"workload\": {\"head_dim\": 192, \"seqlen_q\": 512, \"mask\": \"causal\"}}",
                   NULL);
    ck_assert(has_line(d, "t.json: /workload/head_dim: the causal schedules need kBlockN (96) to be a multiple of "
                          "kBlockM (64)"));
    sim_diag_free(d);
    d = check_text("[1]", NULL);
    ck_assert(has_line(d, "t.json: the config must be a JSON object"));
    sim_diag_free(d);
    d = check_text("{\"workload\": {}}", NULL);
    ck_assert(has_line(d, "t.json: /schema_version: missing (this sim reads schema version 1)"));
    ck_assert(has_line(d, "t.json: /workload/seqlen_q: missing (query tokens per sequence)"));
    ck_assert(has_line(d, "t.json: /workload/head_dim: missing (dimension of one head)"));
    sim_diag_free(d);
}
END_TEST

START_TEST(sweep_values_located_and_ordered)
{
    SimConfig *c;
    SimDiag *d = check_text("{\"schema_version\": 1, \"workload\": {\"total_tokens\": 4096, \"seqlen_q\": 512, "
                            "\"head_dim\": 64}, \"sweep\": {\"seqlen\": [512, 3000], \"bogus\": [1], \"mask\": []}}", &c);
    ck_assert(has_line(d, "t.json: /sweep/bogus: unknown axis (use seqlen, policy, a workload, hardware or options "
                          "key, or section.key)"));
    ck_assert(has_line(d, "t.json: /sweep/mask: must be an array of 1 to 10000 values"));
    sim_config_free(c);
    sim_diag_free(d);
    d = check_text("{\"schema_version\": 1, \"workload\": {\"total_tokens\": 4096, \"seqlen_q\": 512, "
                   "\"head_dim\": 64}, \"sweep\": {\"seqlen\": [512, 3000], \"workload.head_dim\": [64, \"x\"]}}", &c);
    ck_assert(has_line(d, "t.json: /workload/total_tokens: 4096 must be a multiple of seqlen_q (3000) and at "
                          "most 1000000 times it (sweep point 2: /sweep/seqlen/1, "
                          "/sweep/workload.head_dim/0)"));
    ck_assert(has_line(d, "t.json: /sweep/workload.head_dim/1: must be an integer from 1 to 1024"));
    sim_config_free(c);
    sim_diag_free(d);
    d = check_text("{\"schema_version\": 1, \"workload\": {\"total_tokens\": 4096, \"hidden\": 512, \"seqlen_q\": 512,"
                   " \"head_dim\": 64}, \"sweep\": {\"head_dim\": [64, 128], \"seqlen\": [512, 1024, 2048]}}", &c);
    ck_assert_int_eq(sim_diag_count(d), 0);
    ck_assert_int_eq(sim_config_point_count(c, true), 6);
    ck_assert_int_eq(sim_config_point_count(c, false), 1);
    SimConfigPoint p;
    ck_assert(sim_config_point(c, true, 4, &p, d)); /* first axis slowest: head_dim 128, seqlen 1024 */
    ck_assert_int_eq(p.shape.head_dim, 128);
    ck_assert_int_eq(p.shape.seqlen_q, 1024);
    ck_assert_int_eq(p.shape.seqlen_k, 1024);
    ck_assert_int_eq(p.shape.batch, 4);
    ck_assert_int_eq(p.shape.heads, 4);
    ck_assert_int_eq(p.policy_count, policy_count());
    ck_assert(sim_config_set(c, "workload.dtype=fp16", d));
    ck_assert(sim_config_set(c, "sweep.policy=[\"shift\"]", d));
    ck_assert(sim_config_validate(c, true, d));
    ck_assert(sim_config_point(c, true, 0, &p, d));
    ck_assert_int_eq(p.shape.dtype, DTYPE_FP16);
    ck_assert_int_eq(p.policy_count, 1);
    ck_assert_str_eq(p.policies[0], "shift");
    ck_assert(!sim_config_set(c, "workload.seqlen_q.x=1", d));
    ck_assert(has_line(d, "--set workload.seqlen_q.x: the path must name a field inside JSON objects"));
    ck_assert(!sim_config_set(c, "novalue", d));
    sim_config_free(c);
    sim_diag_free(d);
}
END_TEST

typedef struct {
    int64_t count;
    int64_t last_point;
} EmitLog;

/* Each emitted row equals the same job run directly, in row order. */
static void check_row(const SimSweepRow *r, void *ctx)
{
    EmitLog *log = ctx;
    ck_assert_int_ge(r->point, log->last_point);
    log->last_point = r->point;
    log->count++;
    AttnJob job = sim_job_default();
    job.policy = r->policy;
    job.wl = r->cost.wl;
    job.costs.c_ns = 1000, job.costs.r_ns = 500;
    AttnResult res;
    SimError err = { 0 };
    ck_assert_int_eq(sim_job_run(&job, &res, &err), SIM_OK);
    ck_assert_int_eq(r->makespan_ns, res.a.makespan_ns);
    ck_assert(r->tflops == r->cost.bwd_flops / (double)res.a.makespan_ns / 1e3);
    ck_assert(r->has_speedup);
    if (strcmp(r->policy, "fa3") == 0)
        ck_assert(r->speedup == 1.0);
    sim_job_result_clear(&res);
}

START_TEST(sweep_rows_match_direct_jobs)
{
    SimConfig *c;
    SimDiag *d = check_text("{\"schema_version\": 1, \"workload\": {\"batch\": 2, \"heads\": 1, \"seqlen_q\": 1024,"
                            " \"head_dim\": 64}, \"hardware\": {\"sm_count\": 8, \"latency_near_ns\": 0, "
                            "\"latency_far_ns\": 0}, \"options\": {\"model\": \"paper\", \"reduce\": \"serial\", \"c_ns\": 1000, \"r_ns\": 500}, "
                            "\"sweep\": {\"mask\": [\"full\", \"causal\"]}}", &c);
    ck_assert_int_eq(sim_diag_count(d), 0);
    SimSweep *s = sim_sweep_new(c, true, d);
    ck_assert_ptr_nonnull(s);
    int per_mask[2] = { 0, 0 }; /* every registered policy that supports the mask, once per mask */
    for (int i = 0; i < policy_count(); i++) {
        per_mask[0] += policy_supports(policy_at(i), &(Workload){ .mask = MASK_FULL });
        per_mask[1] += policy_supports(policy_at(i), &(Workload){ .mask = MASK_CAUSAL });
    }
    ck_assert_int_eq(sim_sweep_row_count(s), per_mask[0] + per_mask[1]);
    SimError err = { 0 };
    EmitLog log = { 0 };
    ck_assert_int_eq(sim_sweep_run(s, 2, NULL, check_row, NULL, &log, &err), SIM_OK);
    ck_assert_int_eq(log.count, per_mask[0] + per_mask[1]);
    ck_assert_str_eq(sim_sweep_row(s, per_mask[0])->policy, "fa3");
    ck_assert_int_eq(sim_sweep_row(s, per_mask[0])->cost.wl.mask, MASK_CAUSAL);
    sim_sweep_free(s);
    sim_config_free(c);
    sim_diag_free(d);
}
END_TEST

Suite *suite_config(void)
{
    Suite *s = suite_create("config");
    TCase *t = tcase_create("config");
    tcase_add_test(t, cost_formulas_are_exact);
    tcase_add_test(t, h100_preset_costs);
    tcase_add_test(t, fa3_tiles_and_swizzle);
    tcase_add_test(t, latency_matrix_halves);
    tcase_add_test(t, syntax_error_line_col);
    tcase_add_test(t, all_errors_listed_with_paths);
    tcase_add_test(t, semantic_errors);
    tcase_add_test(t, sweep_values_located_and_ordered);
    tcase_add_test(t, sweep_rows_match_direct_jobs);
    suite_add_tcase(s, t);
    return s;
}

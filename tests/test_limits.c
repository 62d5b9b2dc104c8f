/* Issue 34's limits at the library's doors: every path that builds a job refuses, with a status and a
 * sentence, before it allocates what the input asks for (ops past the engine's 32-bit ids, batch x heads
 * past 2^31, masks past the cap, budgets spent); never a signal. Each case is small and fast because the
 * refusal comes first. */
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <igraph.h>
#include <math.h>
#include <string.h>

#include "costing.h"
#include "dashsim/dashsim.h"
#include "job.h"
#include "tests.h"

/* H2: 2^30 tasks pass a memory cap a 560 GiB host allows, and are refused for the engine's ids, at once. */
START_TEST(ops_past_int32_are_refused)
{
    AttnJob job = sim_job_default();
    job.wl.kv_tiles = job.wl.q_tiles = 32768, job.max_memory_mb = 560 << 10;
    AttnResult r;
    SimError err = { 0 };
    ck_assert_int_eq(sim_job_run(&job, &r, &err), SIM_ERR_LIMIT);
    ck_assert_msg(strstr(err.msg, "over the 2^31 - 1 that the engine can index"), "%s", err.msg);
    job.wl.kv_tiles = job.wl.q_tiles = 16384; /* 2^28 tasks x 3 ops: just under, memory the only cap */
    SimError ok = { 0 };
    ck_assert_int_eq(sim_job_check_size(&job, &ok), SIM_OK);
}
END_TEST

/* H1: batch x heads is checked, never wrapped (2^20 x 4097 once became 1,048,576 heads). */
START_TEST(batch_times_heads_is_checked)
{
    CostQuery q = { .shape = { .batch = 1 << 20, .heads = 4097, .seqlen_q = 512, .seqlen_k = 512, .head_dim = 64,
                               .mask = MASK_FULL, .dtype = DTYPE_BF16 },
                    .preset = "h100-sxm", .reduce = REDUCE_ASYNC };
    Workload wl;
    AttnCosts costs;
    CostReport rep;
    SimLoadModel load = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_cost_attention(&q, &wl, &costs, &rep, &load, &err), SIM_ERR_LIMIT);
    ck_assert_msg(strstr(err.msg, "batch 1048576 x heads 4097 is over"), "%s", err.msg);
    sim_profile_load_clear(&load);
}
END_TEST

/* M3: the overwrite rule is per call. A request read m.mask; a later, unrelated job may write to it (the
 * library kept every input of the process and refused: "refusing to overwrite an input"). */
START_TEST(overwrite_rule_is_per_call)
{
    gchar *dir = g_dir_make_tmp("dashsim-limits-XXXXXX", NULL), *mask = g_build_filename(dir, "m.mask", NULL);
    ck_assert(g_file_set_contents(mask, "dashsim-mask 1\nkv_tiles 4\nq_tiles 4\nrows\n1111\n0111\n0011\n0001\nend\n",
                                  -1, NULL));
    gchar *request = g_strdup_printf("{\"schema_version\": 1, \"workload\": {\"heads\": 1, \"seqlen_q\": 512, "
                                     "\"head_dim\": 64, \"mask_file\": \"%s\"}, \"hardware\": {\"preset\": "
                                     "\"h100-sxm\", \"sm_count\": 4}, \"policies\": [\"ascending\"]}", mask);
    char *result = NULL, *error = NULL;
    ck_assert_msg(dashsim_run_json(request, &result, &error) == DASHSIM_OK, "%s", error ? error : "");
    DashsimJob *job = dashsim_job_new();
    DashsimError err;
    DashsimResult r;
    ck_assert_int_eq(dashsim_job_set_shape(job, 4, 1, 4, 4, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_output(job, DASHSIM_OUTPUT_PLAN, mask, &err), DASHSIM_OK);
    ck_assert_msg(dashsim_job_run(job, &r, &err) == DASHSIM_OK, "%s", err.message);
    gchar *text = NULL;
    ck_assert(g_file_get_contents(mask, &text, NULL, NULL));
    ck_assert_msg(!g_str_has_prefix(text, "dashsim-mask"), "the plan was not written over the old input");
    g_free(text), dashsim_job_free(job), dashsim_free(result), dashsim_free(error), g_free(request);
    g_remove(mask), g_rmdir(dir), g_free(mask), g_free(dir);
}
END_TEST

/* M2: dashsim_job_set_mask and the run make the mask under the job's cap, before allocating it. */
START_TEST(api_mask_is_capped)
{
    DashsimJob *job = dashsim_job_new();
    DashsimError err;
    ck_assert_int_eq(dashsim_job_set_shape(job, 132, 1, 32768, 32768, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_max_memory_mb(job, 1, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_mask(job, "random:0.000001:1", &err), DASHSIM_ERR_LIMIT);
    ck_assert_msg(strstr(err.message, "as a mask, over the cap of 1 MB"), "%s", err.message);
    dashsim_job_free(job);
}
END_TEST

static void host_igraph_handler(const char *reason, const char *file, int line, igraph_error_t code)
{
    (void)reason, (void)file, (void)line, (void)code;
}

/* The library installs its own igraph error handler for its igraph calls and puts the host's back (it
 * left igraph's state changed for the host before; an error must never reach igraph's aborting default). */
START_TEST(igraph_handler_is_the_librarys_and_restored)
{
    igraph_error_handler_t *before = igraph_set_error_handler(host_igraph_handler);
    DashsimJob *job = dashsim_job_new();
    DashsimError err;
    DashsimResult r;
    gchar *dir = g_dir_make_tmp("dashsim-limits-XXXXXX", NULL), *dot = g_build_filename(dir, "g.dot", NULL);
    ck_assert_int_eq(dashsim_job_set_shape(job, 4, 1, 4, 4, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_output(job, DASHSIM_OUTPUT_DOT, dot, &err), DASHSIM_OK); /* through igraph */
    ck_assert_msg(dashsim_job_run(job, &r, &err) == DASHSIM_OK, "%s", err.message);
    ck_assert(igraph_set_error_handler(before) == host_igraph_handler);
    dashsim_job_free(job);
    g_remove(dot), g_rmdir(dir), g_free(dot), g_free(dir);
}
END_TEST

/* M5: a request's /options/max_seconds bounds the whole run: a sweep of 200 points (about 20 s) stops after
 * its 1 s budget with a status and a sentence, within a few seconds. */
START_TEST(run_json_has_a_time_budget)
{
    GString *seqlens = g_string_new(NULL);
    for (int i = 1; i <= 100; i++)
        g_string_append_printf(seqlens, "%s%d", i > 1 ? ", " : "", 8192 + 64 * i);
    gchar *request = g_strdup_printf("{\"schema_version\": 1, \"workload\": {\"heads\": 32, \"seqlen_q\": 1024, "
                                     "\"head_dim\": 64, \"mask\": \"full\"}, \"hardware\": {\"preset\": \"h100-sxm\"}, "
                                     "\"policies\": [\"fa3\"], \"options\": {\"max_seconds\": 1}, \"sweep\": "
                                     "{\"mask\": [\"full\", \"causal\"], \"seqlen\": [%s]}}", seqlens->str);
    char *result = NULL, *error = NULL;
    gint64 t0 = g_get_monotonic_time();
    ck_assert_int_eq(dashsim_run_json(request, &result, &error), DASHSIM_ERR_LIMIT);
    ck_assert_msg(g_get_monotonic_time() - t0 < 20 * G_TIME_SPAN_SECOND, "took %.1f s",
                  (g_get_monotonic_time() - t0) / 1e6);
    ck_assert(!result);
    ck_assert_msg(strstr(error, "time budget of 1 s (/options/max_seconds)"), "%s", error);
    dashsim_free(error), g_free(request), g_string_free(seqlens, TRUE);
}
END_TEST

/* A sweep of 200 rows, each about 0.1 s (20 s in all): longer than any budget below. Few long rows, not
 * many short ones: the rows are set up before the budget starts (2,000 rows took 1.3 s). */
static gchar *long_sweep_request(void)
{
    GString *seqlens = g_string_new(NULL);
    for (int i = 1; i <= 100; i++)
        g_string_append_printf(seqlens, "%s%d", i > 1 ? ", " : "", 8192 + 64 * i);
    gchar *request = g_strdup_printf("{\"schema_version\": 1, \"workload\": {\"heads\": 32, \"seqlen_q\": 1024, "
                                     "\"head_dim\": 64, \"mask\": \"full\"}, \"hardware\": {\"preset\": \"h100-sxm\"}, "
                                     "\"policies\": [\"fa3\"], \"sweep\": {\"mask\": [\"full\", \"causal\"], "
                                     "\"seqlen\": [%s]}}", seqlens->str);
    g_string_free(seqlens, TRUE);
    return request;
}

/* Cancels from its third call on; counts the calls. */
static int cancel_third(void *ctx)
{
    int *calls = ctx;
    return ++*calls >= 3;
}

/* Never cancels; counts the calls. */
static int count_calls(void *ctx)
{
    int *calls = ctx;
    ++*calls;
    return 0;
}

/* Cancels once (its first call) and never again: the library must keep the cancel. */
static int cancel_once(void *ctx)
{
    int *calls = ctx;
    return ++*calls == 1;
}

START_TEST(run_json_within_stops_on_budget_and_cancel)
{
    gchar *request = long_sweep_request();
    char *result = NULL, *error = NULL;
    gint64 t0 = g_get_monotonic_time();
    ck_assert_int_eq(dashsim_run_json_within(request, 0.5, NULL, NULL, &result, &error), DASHSIM_ERR_LIMIT);
    ck_assert_msg(g_get_monotonic_time() - t0 < 20 * G_TIME_SPAN_SECOND, "took %.1f s", (g_get_monotonic_time() - t0) / 1e6);
    ck_assert(!result);
    ck_assert_msg(strstr(error, "the run ran past its time budget of 0.5 s"), "%s", error);
    dashsim_free(error), error = NULL;
    int calls = 0;
    t0 = g_get_monotonic_time();
    ck_assert_int_eq(dashsim_run_json_within(request, 0, cancel_third, &calls, &result, &error), DASHSIM_ERR_LIMIT);
    ck_assert_msg(g_get_monotonic_time() - t0 < 20 * G_TIME_SPAN_SECOND, "took %.1f s", (g_get_monotonic_time() - t0) / 1e6);
    ck_assert(!result);
    ck_assert_int_ge(calls, 3);
    ck_assert_msg(strstr(error, "the run was cancelled by its caller"), "%s", error);
    dashsim_free(error), error = NULL;
    ck_assert_int_eq(dashsim_run_json_within(request, -1, NULL, NULL, &result, &error), DASHSIM_ERR_USAGE);
    ck_assert_msg(strstr(error, "max_seconds must be a finite number"), "%s", error);
    dashsim_free(error), error = NULL;
    ck_assert_int_eq(dashsim_run_json_within(request, NAN, NULL, NULL, &result, &error), DASHSIM_ERR_USAGE);
    dashsim_free(error), g_free(request);
}
END_TEST

START_TEST(search_json_within_stops_on_budget_and_cancel)
{
    /* 20 tasks the exact step cannot prove (found 7500, bound 6000): with no node or time bound of its own it
     * would run for hours */
    const char *request = "{\"mask\": \"window:1:1\", \"tiles\": 4, \"n\": 5, \"heads\": 2, "
                          "\"exact_max_nodes\": 100000000, \"exact_max_ms\": 0}";
    char *result = NULL, *error = NULL;
    gint64 t0 = g_get_monotonic_time();
    ck_assert_int_eq(dashsim_search_json_within(request, 0.3, NULL, NULL, &result, &error), DASHSIM_ERR_LIMIT);
    ck_assert_msg(g_get_monotonic_time() - t0 < 5 * G_TIME_SPAN_SECOND, "took %.1f s", (g_get_monotonic_time() - t0) / 1e6);
    ck_assert(!result);
    ck_assert_msg(strstr(error, "the search ran past its time budget of 0.3 s"), "%s", error);
    dashsim_free(error), error = NULL;
    int calls = 0;
    ck_assert_int_eq(dashsim_search_json_within(request, 0, cancel_once, &calls, &result, &error), DASHSIM_ERR_LIMIT);
    ck_assert(!result);
    ck_assert_int_eq(calls, 1);
    ck_assert_msg(strstr(error, "the search was cancelled by its caller"), "%s", error);
    dashsim_free(error), error = NULL;
    /* within a budget it is the plain call's result, byte for byte */
    const char *small = "{\"mask\": \"random:0.3:4\", \"tiles\": 4, \"n\": 4}";
    char *plain = NULL;
    ck_assert_int_eq(dashsim_search_json(small, &plain, &error), DASHSIM_OK);
    calls = 0;
    ck_assert_int_eq(dashsim_search_json_within(small, 60, count_calls, &calls, &result, &error), DASHSIM_OK);
    ck_assert_str_eq(result, plain);
    ck_assert_int_gt(calls, 0); /* the hook was asked */
    dashsim_free(result), dashsim_free(plain);
}
END_TEST

/* Every public entry point driven past each of its limits (sizes past their ranges, the memory cap, the
 * work bound, the time budget) returns a status and a sentence: never a signal (Check would report one as
 * an error), never DASHSIM_OK. */
typedef DashsimStatus (*JsonEntry)(const char *request, char **result, char **error);

static DashsimStatus search_within_tiny(const char *request, char **result, char **error)
{
    return dashsim_search_json_within(request, 0.05, NULL, NULL, result, error);
}

START_TEST(every_entry_point_returns_a_status_past_its_limits)
{
    static const struct {
        JsonEntry fn;
        const char *request;
        DashsimStatus status;
        const char *says;
    } cases[] = {
        { dashsim_run_json, "{\"schema_version\":1,\"workload\":{\"heads\":1000000,\"seqlen_q\":1048576,\"head_dim\":64,"
          "\"mask\":\"full\"},\"hardware\":{\"preset\":\"h100-sxm\"},\"policies\":[\"fa3\"],\"options\":{\"max_memory_mb\":1}}",
          DASHSIM_ERR_LIMIT, "over the cap of 1 MB" },
        { dashsim_run_json, "{\"schema_version\":1,\"workload\":{\"heads\":1000001}}", DASHSIM_ERR_INPUT,
          "/workload/heads: must be an integer from 1 to 1000000" },
        { dashsim_run_json, "{\"schema_version\":1,\"options\":{\"max_seconds\":100000000}}", DASHSIM_ERR_INPUT,
          "/options/max_seconds: must be an integer" },
        { dashsim_search_json, "{\"mask\":\"full\",\"tiles\":4096,\"heads\":4096,\"max_memory_mb\":1}", DASHSIM_ERR_LIMIT,
          "over the cap of 1 MB (max_memory_mb)" },
        { dashsim_search_json, "{\"mask\":\"full\",\"tiles\":64,\"heads\":64,\"iterations\":100000000}", DASHSIM_ERR_LIMIT,
          "over the bound of 2^34" },
        { dashsim_search_json, "{\"mask\":\"full\",\"tiles\":4097}", DASHSIM_ERR_INPUT, "request/tiles: must be" },
        { search_within_tiny, "{\"mask\":\"window:1:1\",\"tiles\":4,\"n\":5,\"heads\":2,\"exact_max_nodes\":100000000,"
          "\"exact_max_ms\":0}", DASHSIM_ERR_LIMIT, "time budget of 0.05 s" },
        { dashsim_decode_json, "{\"batch\":1000000,\"lk\":1000000000,\"max_memory_mb\":1}", DASHSIM_ERR_LIMIT,
          "over the cap of 1 MB" },
        { dashsim_decode_json, "{\"batch\":1e30}", DASHSIM_ERR_INPUT, "request/batch: must be" },
        { dashsim_pipeline_json, "{\"blocks\":1000000,\"max_memory_mb\":1}", DASHSIM_ERR_LIMIT, "over the cap of 1 MB" },
        { dashsim_pipeline_json, "{\"blocks\":1000001}", DASHSIM_ERR_INPUT, "request/blocks: must be" },
        { dashsim_replay_json, "{\"plan\":\"tests/golden/plans/window-search.plan\",\"c_ns\":1000000000001}",
          DASHSIM_ERR_INPUT, "request/c_ns: must be" },
        { dashsim_shape_json, "{\"seqlen\":1048576,\"heads\":1000,\"max_memory_mb\":1}", DASHSIM_ERR_LIMIT,
          "over the cap of 1 MB" },
        { dashsim_shape_json, "{\"seqlen\":16777217}", DASHSIM_ERR_INPUT, "request/seqlen: must be" },
        { dashsim_validate_json, "{\"traces\":[\"traces/h100\"],\"max_memory_mb\":1}", DASHSIM_ERR_LIMIT,
          "over the cap of 1 MB" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *result = NULL, *error = NULL;
        ck_assert_int_eq(cases[i].fn(cases[i].request, &result, &error), cases[i].status);
        ck_assert(!result);
        ck_assert_msg(error && strstr(error, cases[i].says), "case %zu: %s", i, error ? error : "(none)");
        dashsim_free(error);
    }
    /* a request over 1 MiB, to each JSON entry point */
    gchar *big = g_strnfill((1 << 20) + 1, ' ');
    JsonEntry all[] = { dashsim_run_json, dashsim_search_json, dashsim_decode_json, dashsim_pipeline_json,
                        dashsim_replay_json, dashsim_shape_json, dashsim_validate_json };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        char *result = NULL, *error = NULL;
        ck_assert_int_eq(all[i](big, &result, &error), DASHSIM_ERR_LIMIT);
        ck_assert(!result && error);
        dashsim_free(error);
    }
    g_free(big);
    /* the job API: every setter past its range, then a run past the memory cap */
    DashsimJob *job = dashsim_job_new();
    DashsimError err;
    ck_assert_int_ne(dashsim_job_set_shape(job, 0, 1, 4, 4, &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_shape(job, 132, INT32_MAX, INT32_MAX, INT32_MAX, &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_costs(job, -1, 0, 0, &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_costs(job, INT64_MAX, INT64_MAX, INT64_MAX, &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_reduce(job, "async", 65, &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_max_memory_mb(job, 0, &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_max_memory_mb(job, INT64_MAX, &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_mask(job, "random:2:1", &err), DASHSIM_OK);
    ck_assert_int_ne(dashsim_job_set_output(job, DASHSIM_OUTPUT_TRACE, "", &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_shape(job, 132, 4096, 4096, 4096, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_max_memory_mb(job, 1, &err), DASHSIM_OK);
    DashsimResult r;
    ck_assert_int_eq(dashsim_job_run(job, &r, &err), DASHSIM_ERR_LIMIT);
    ck_assert_msg(strstr(err.message, "over the cap of 1 MB"), "%s", err.message);
    dashsim_job_free(job);
}
END_TEST

Suite *suite_limits(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ops_past_int32_are_refused);
    tcase_add_test(tc, batch_times_heads_is_checked);
    tcase_add_test(tc, overwrite_rule_is_per_call);
    tcase_add_test(tc, api_mask_is_capped);
    tcase_add_test(tc, igraph_handler_is_the_librarys_and_restored);
    tcase_add_test(tc, run_json_has_a_time_budget);
    tcase_add_test(tc, run_json_within_stops_on_budget_and_cancel);
    tcase_add_test(tc, search_json_within_stops_on_budget_and_cancel);
    tcase_add_test(tc, every_entry_point_returns_a_status_past_its_limits);
    suite_add_tcase(s, tc);
    return s;
}

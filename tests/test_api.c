/* The public interface (include/dashsim/dashsim.h) against the internals it wraps: a job handle gives what
 * sim_job_run gives for the same job, every setter refuses a bad value with one sentence and leaves the job
 * as it was, and dashsim_run_json returns rows or one error, never both, the same bytes every time. The
 * installed library as a client links it (C, static, C++, Python) is tests/cli_install.sh's. */
#include <cjson/cJSON.h>
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "config.h"
#include "dashsim/dashsim.h"
#include "job.h"
#include "mask.h"
#include "policy.h"
#include "tests.h"

/* The internal job's result for wl, policy, costs (the mask already applied to wl). */
static AttnResult internal_run(const char *policy, Workload wl, AttnCosts costs)
{
    AttnJob job = sim_job_default();
    job.policy = policy, job.wl = wl, job.costs = costs;
    AttnResult r;
    SimError err = { 0 };
    ck_assert_msg(sim_job_run(&job, &r, &err) == SIM_OK, "%s", err.msg);
    return r;
}

static void assert_same(const DashsimResult *got, const AttnResult *want)
{
    ck_assert_int_eq(got->tasks, want->tasks);
    ck_assert_int_eq(got->makespan_ns, want->a.makespan_ns);
    ck_assert_int_eq(got->critical_path_ns, want->a.critical_path_ns);
    ck_assert_int_eq(got->busy_ns, want->a.busy_ns);
    ck_assert_int_eq(got->bubble_ns, want->a.bubble_ns);
    ck_assert(got->busy_fraction == want->a.busy_fraction);
    ck_assert_int_eq(got->lemma1_violations, want->a.lemma1_violations);
    ck_assert_int_eq(got->has_closed_form, want->has_closed_form);
    ck_assert_int_eq(got->is_closed_form_exact, want->is_closed_form_exact);
    ck_assert_int_eq(got->closed_form_ns, want->closed_form_ns);
}

static DashsimResult run(const DashsimJob *job)
{
    DashsimResult r;
    DashsimError err;
    ck_assert_msg(dashsim_job_run(job, &r, &err) == DASHSIM_OK, "%s", err.message);
    ck_assert_int_eq(err.status, DASHSIM_OK);
    return r;
}

START_TEST(default_job_is_the_programs)
{
    DashsimJob *job = dashsim_job_new();
    DashsimResult got = run(job);
    AttnJob d = sim_job_default();
    AttnResult want = internal_run("fa3", d.wl, d.costs);
    assert_same(&got, &want);
    ck_assert_int_eq(got.tasks, 132 * 132);
    sim_job_result_clear(&want);
    dashsim_job_free(job);
    dashsim_job_free(NULL);
}
END_TEST

START_TEST(job_is_the_internal_job)
{
    DashsimJob *job = dashsim_job_new();
    DashsimError err;
    ck_assert_int_eq(dashsim_job_set_policy(job, "symmetric-shift", &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_shape(job, 8, 3, 8, 8, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_mask(job, "causal", &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_costs(job, 700, 300, 50, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_reduce(job, "async", 2, &err), DASHSIM_OK);
    DashsimResult got = run(job);
    Workload wl = { .n_sm = 8, .heads = 3, .kv_tiles = 8, .q_tiles = 8, .mask = MASK_CAUSAL, .tile_ratio = 1,
                    .head_swizzle = 1 };
    AttnCosts costs = { .c_ns = 700, .r_ns = 300, .latency_ns = 50, .reduce = REDUCE_ASYNC, .dq_buffers = 2 };
    AttnResult want = internal_run("symmetric-shift", wl, costs);
    assert_same(&got, &want);
    sim_job_result_clear(&want);
    /* the paper's closed form of shift on the full mask, m n (c + r), through the handle */
    dashsim_job_set_policy(job, "shift", &err), dashsim_job_set_mask(job, "full", &err);
    dashsim_job_set_costs(job, 1000, 500, 0, &err), dashsim_job_set_reduce(job, "serial", 1, &err);
    got = run(job);
    ck_assert(got.has_closed_form && got.is_closed_form_exact);
    ck_assert_int_eq(got.closed_form_ns, 3 * 8 * 1500);
    ck_assert_int_eq(got.makespan_ns, 3 * 8 * 1500);
    dashsim_job_free(job);
}
END_TEST

/* A block mask is made for the tiles the job has at run time: set before or after the shape. */
START_TEST(block_mask_is_made_at_run)
{
    DashsimJob *job = dashsim_job_new();
    DashsimError err;
    ck_assert_int_eq(dashsim_job_set_shape(job, 4, 2, 8, 8, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_mask(job, "window:2", &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_policy(job, "ascending", &err), DASHSIM_OK);
    for (int tiles = 8; tiles <= 16; tiles += 8) {
        ck_assert_int_eq(dashsim_job_set_shape(job, 4, 2, tiles, tiles, &err), DASHSIM_OK);
        DashsimResult got = run(job);
        BlockMask m = { 0 };
        SimError e = { 0 };
        ck_assert_int_eq(sim_mask_make("window:2", tiles, tiles, &m, &e), SIM_OK);
        Workload wl = { .n_sm = 4, .heads = 2, .head_swizzle = 1 };
        sim_mask_apply(&m, &wl);
        AttnResult want = internal_run("ascending", wl, (AttnCosts){ .c_ns = 1000, .r_ns = 500, .dq_buffers = 1 });
        assert_same(&got, &want);
        ck_assert_int_eq(got.tasks, 2 * sim_mask_count(&m));
        sim_job_result_clear(&want);
        sim_mask_clear(&m);
    }
    dashsim_job_free(job);
}
END_TEST

/* Each refusal: its status, a sentence holding `says`, and the job unchanged (the same run as before). */
static void refused(DashsimStatus got, const DashsimError *err, DashsimStatus status, const char *says,
                    const DashsimJob *job, int64_t makespan_ns)
{
    ck_assert_int_eq(got, status);
    ck_assert_int_eq(err->status, status);
    ck_assert_msg(strstr(err->message, says), "'%s' lacks '%s'", err->message, says);
    ck_assert(!strchr(err->message, '\n'));
    ck_assert_int_eq(run(job).makespan_ns, makespan_ns);
}

START_TEST(setters_refuse_bad_values)
{
    DashsimJob *job = dashsim_job_new();
    DashsimError e;
    dashsim_job_set_shape(job, 4, 1, 4, 4, &e);
    int64_t before = run(job).makespan_ns;
    refused(dashsim_job_set_policy(job, "shfit", &e), &e, DASHSIM_ERR_USAGE, "did you mean 'shift'?", job, before);
    refused(dashsim_job_set_policy(job, NULL, &e), &e, DASHSIM_ERR_USAGE, "the policy is NULL", job, before);
    refused(dashsim_job_set_shape(job, 0, 1, 4, 4, &e), &e, DASHSIM_ERR_USAGE, "sm_count must be 1 to 100000, got 0",
            job, before);
    refused(dashsim_job_set_shape(job, 4, 1, 1000001, 4, &e), &e, DASHSIM_ERR_USAGE, "kv_tiles must be 1 to 1000000",
            job, before);
    refused(dashsim_job_set_shape(job, 4, -1, 4, 4, &e), &e, DASHSIM_ERR_USAGE, "heads must be", job, before);
    refused(dashsim_job_set_mask(job, "window:", &e), &e, DASHSIM_ERR_USAGE, "window:", job, before);
    refused(dashsim_job_set_mask(job, "document:2,3", &e), &e, DASHSIM_ERR_USAGE, "document:2,3", job, before);
    refused(dashsim_job_set_mask(job, NULL, &e), &e, DASHSIM_ERR_USAGE, "the mask is NULL", job, before);
    refused(dashsim_job_set_costs(job, -1, 500, 0, &e), &e, DASHSIM_ERR_USAGE, "c_ns must be 0 to", job, before);
    refused(dashsim_job_set_costs(job, 1, 500, 1000000001, &e), &e, DASHSIM_ERR_USAGE, "latency_ns", job, before);
    refused(dashsim_job_set_reduce(job, "lazy", 1, &e), &e, DASHSIM_ERR_USAGE, "serial or async, got 'lazy'", job,
            before);
    refused(dashsim_job_set_reduce(job, "async", 65, &e), &e, DASHSIM_ERR_USAGE, "dq_buffers must be 1 to 64", job,
            before);
    refused(dashsim_job_set_max_memory_mb(job, 0, &e), &e, DASHSIM_ERR_USAGE, "max_memory_mb", job, before);
    refused(dashsim_job_set_output(job, (DashsimOutput)9, "x", &e), &e, DASHSIM_ERR_USAGE, "output kind", job, before);
    refused(dashsim_job_set_output(job, DASHSIM_OUTPUT_GANTT, "g.jpg", &e), &e, DASHSIM_ERR_USAGE, ".png", job, before);
    /* no job, no result: a sentence, not a crash; err may be NULL */
    ck_assert_int_eq(dashsim_job_set_shape(NULL, 4, 1, 4, 4, &e), DASHSIM_ERR_USAGE);
    ck_assert_str_eq(e.message, "the job is NULL");
    ck_assert_int_eq(dashsim_job_run(job, NULL, &e), DASHSIM_ERR_USAGE);
    ck_assert_str_eq(e.message, "the result is NULL");
    ck_assert_int_eq(dashsim_job_set_policy(job, "nope", NULL), DASHSIM_ERR_USAGE);
    ck_assert_int_eq(dashsim_job_set_policy(job, "fa3", &e), DASHSIM_OK);
    ck_assert_int_eq(e.status, DASHSIM_OK);
    ck_assert_str_eq(e.message, "");
    /* a job over the memory cap is refused when it runs, before allocating */
    dashsim_job_set_shape(job, 132, 1000, 1000, 1000, &e), dashsim_job_set_max_memory_mb(job, 1, &e);
    DashsimResult r;
    ck_assert_int_eq(dashsim_job_run(job, &r, &e), DASHSIM_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(e.message, "over the cap of 1 MB"));
    ck_assert_int_eq(r.makespan_ns, 0);
    dashsim_job_free(job);
}
END_TEST

START_TEST(policies_and_names)
{
    ck_assert_int_eq(dashsim_policy_count(), policy_count());
    for (int i = 0; i < policy_count(); i++) {
        ck_assert_str_eq(dashsim_policy_name(i), policy_at(i)->name);
        ck_assert_str_eq(dashsim_policy_summary(i), policy_at(i)->summary);
    }
    ck_assert_ptr_null(dashsim_policy_name(-1));
    ck_assert_ptr_null(dashsim_policy_name(policy_count()));
    ck_assert_ptr_null(dashsim_policy_summary(policy_count()));
    ck_assert_str_eq(dashsim_version(), DASHSIM_VERSION);
    ck_assert_str_eq(dashsim_strerror(DASHSIM_ERR_INPUT), "bad input");
    ck_assert_str_eq(dashsim_strerror((DashsimStatus)99), "unknown status");
}
END_TEST

/* Outputs: written at a run, all or none; two outputs on one path are refused before either is written. */
START_TEST(outputs_are_one_batch)
{
    gchar *dir = g_dir_make_tmp("dashsim-api-XXXXXX", NULL);
    gchar *trace = g_build_filename(dir, "t.json", NULL), *csv = g_build_filename(dir, "t.csv", NULL);
    DashsimJob *job = dashsim_job_new();
    DashsimError e;
    dashsim_job_set_shape(job, 4, 1, 4, 4, &e);
    ck_assert_int_eq(dashsim_job_set_output(job, DASHSIM_OUTPUT_TRACE, trace, &e), DASHSIM_OK);
    ck_assert_int_eq(dashsim_job_set_output(job, DASHSIM_OUTPUT_CSV, csv, &e), DASHSIM_OK);
    run(job);
    ck_assert(g_file_test(trace, G_FILE_TEST_IS_REGULAR) && g_file_test(csv, G_FILE_TEST_IS_REGULAR));
    g_unlink(trace), g_unlink(csv);
    ck_assert_int_eq(dashsim_job_set_output(job, DASHSIM_OUTPUT_CSV, trace, &e), DASHSIM_OK);
    DashsimResult r;
    ck_assert_int_ne(dashsim_job_run(job, &r, &e), DASHSIM_OK);
    ck_assert(!g_file_test(trace, G_FILE_TEST_EXISTS));
    ck_assert_int_eq(dashsim_job_set_output(job, DASHSIM_OUTPUT_CSV, NULL, &e), DASHSIM_OK); /* not written */
    dashsim_job_set_output(job, DASHSIM_OUTPUT_TRACE, NULL, &e);
    run(job);
    ck_assert(!g_file_test(trace, G_FILE_TEST_EXISTS));
    dashsim_job_free(job);
    g_rmdir(dir);
    g_free(trace), g_free(csv), g_free(dir);
}
END_TEST

static const char request[] =
    "{\"schema_version\": 1, \"workload\": {\"heads\": 2, \"seqlen_q\": 640, \"head_dim\": 64, \"mask\": \"full\"},\n"
    " \"hardware\": {\"preset\": \"h100-sxm\", \"sm_count\": 8}, \"policies\": \"all\",\n"
    " \"sweep\": {\"mask\": [\"full\", \"causal\"]}}";

/* text with every `from` replaced by `to`. Owned by the caller. */
static gchar *replaced(const char *text, const char *from, const char *to)
{
    gchar **parts = g_strsplit(text, from, -1);
    gchar *out = g_strjoinv(to, parts);
    ck_assert_int_gt(g_strv_length(parts), 1);
    g_strfreev(parts);
    return out;
}

/* The rows: one object per line between "[" and "]", each a row of `sim run --format jsonl`. */
START_TEST(run_json_returns_the_rows)
{
    char *result = NULL, *again = NULL, *error = (char *)"unset";
    ck_assert_int_eq(dashsim_run_json(request, &result, &error), DASHSIM_OK);
    ck_assert_ptr_null(error);
    ck_assert(g_str_has_prefix(result, "[\n{\"policy\":\"fa3\",\"mask\":\"full\","));
    ck_assert(g_str_has_suffix(result, "}\n]\n"));
    gchar **lines = g_strsplit(result, "\n", -1);
    int rows = 0, skipped = 0;
    for (int i = 1; lines[i] && lines[i + 1] && lines[i + 1][0]; i++, rows++) {
        size_t len = strlen(lines[i]);
        bool is_last = strcmp(lines[i + 1], "]") == 0;
        ck_assert_int_eq(lines[i][len - 1], is_last ? '}' : ','); /* the row, then its separator */
        cJSON *row = cJSON_ParseWithLength(lines[i], len - !is_last);
        ck_assert_ptr_nonnull(row);
        skipped += g_str_has_prefix(cJSON_GetObjectItem(row, "status")->valuestring, "skipped: ");
        cJSON_Delete(row);
    }
    ck_assert_int_eq(rows, 3 + 4); /* full: fa3, descending, shift; causal: fa3, fa3-spt, descending, sym.-shift */
    ck_assert_int_eq(skipped, 1);  /* symmetric-shift on 5 KV tiles */
    ck_assert_int_eq(dashsim_run_json(request, &again, NULL), DASHSIM_OK);
    ck_assert_str_eq(again, result); /* same request, same bytes */
    g_strfreev(lines);
    dashsim_free(result), dashsim_free(again);
    /* no policy for the mask: no rows */
    gchar *shift = replaced(request, "\"all\"", "[\"shift\"]");
    gchar *none = replaced(shift, "\"full\", \"causal\"", "\"causal\"");
    ck_assert_int_eq(dashsim_run_json(none, &result, &error), DASHSIM_OK);
    ck_assert_str_eq(result, "[]\n");
    dashsim_free(result);
    g_free(shift), g_free(none);
}
END_TEST

/* A refusal: the status, a sentence holding `says` (every line of it a sentence), and no result. */
static void json_refused(const char *req, DashsimStatus status, const char *says)
{
    char *result = (char *)"unset", *error = NULL;
    ck_assert_int_eq(dashsim_run_json(req, &result, &error), status);
    ck_assert_ptr_null(result);
    ck_assert_ptr_nonnull(error);
    ck_assert_msg(strstr(error, says), "'%s' lacks '%s'", error, says);
    ck_assert(error[0] && error[strlen(error) - 1] != '\n');
    dashsim_free(error);
    ck_assert_int_eq(dashsim_run_json(req, &result, NULL), status); /* error may be NULL */
}

START_TEST(run_json_refuses_bad_requests)
{
    json_refused(NULL, DASHSIM_ERR_USAGE, "the request is NULL");
    json_refused("", DASHSIM_ERR_INPUT, "request:1:1: invalid JSON");
    json_refused("{\"schema_version\": 1,", DASHSIM_ERR_INPUT, "request:1:");
    json_refused("[]", DASHSIM_ERR_INPUT, "request: the config must be a JSON object");
    json_refused("{\"schema_version\": 2}", DASHSIM_ERR_INPUT, "request: /schema_version");
    gchar *negative = replaced(request, "\"heads\": 2", "\"heads\": -2");
    json_refused(negative, DASHSIM_ERR_INPUT, "request: /workload/heads: must be an integer");
    gchar *misspelt = replaced(request, "\"heads\"", "\"heds\"");
    json_refused(misspelt, DASHSIM_ERR_INPUT, "request: /workload/heds: unknown key");
    g_free(negative), g_free(misspelt);
    gchar *huge = g_strnfill(SIM_CONFIG_MAX_BYTES + 1, ' ');
    json_refused(huge, DASHSIM_ERR_LIMIT, "over 1 MiB");
    huge[SIM_CONFIG_MAX_BYTES - 2] = '[', huge[SIM_CONFIG_MAX_BYTES - 1] = ']', huge[SIM_CONFIG_MAX_BYTES] = 0;
    json_refused(huge, DASHSIM_ERR_INPUT, "the config must be a JSON object"); /* exactly 1 MiB: read */
    g_free(huge);
    char *error = NULL;
    ck_assert_int_eq(dashsim_run_json(request, NULL, &error), DASHSIM_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(error, "needs a place for the result"));
    dashsim_free(error);
    dashsim_free(NULL);
}
END_TEST

/* dashsim_search_json (issue 36): the bytes `sim search --json` prints for the same options (the golden file
 * tests/cli_golden.sh checks against the CLI), the same every call; errors name the request's key. */
START_TEST(search_json_is_the_commands)
{
    char *out = NULL, *error = NULL, *golden = NULL;
    const char *req = "{\"mask\": \"random:0.3:1\", \"tiles\": 5, \"n\": 4, \"heads\": 2}";
    ck_assert(g_file_get_contents("tests/golden/json/search-exact-step.json", &golden, NULL, NULL));
    ck_assert_int_eq(dashsim_search_json(req, &out, &error), DASHSIM_OK);
    ck_assert_ptr_null(error);
    GString *stamped = g_string_new(out); /* the golden file writes the dashsim version as VERSION */
    g_string_replace(stamped, "\"dashsim_version\":\"" DASHSIM_VERSION "\"", "\"dashsim_version\":\"VERSION\"", 1);
    ck_assert_str_eq(stamped->str, golden);
    g_string_free(stamped, TRUE);
    int64_t ms = 0;
    char *stop = NULL;
    DashsimError err;
    ck_assert_int_eq(dashsim_json_get_int64(out, "/makespan_ns", &ms, &err), DASHSIM_OK);
    ck_assert_int_eq(ms, 6000);
    ck_assert_int_eq(dashsim_json_get_int64(out, "/bounds_ns/work", &ms, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_json_get_string(out, "/exact_stop", &stop, &err), DASHSIM_OK);
    ck_assert_str_eq(stop, "bound");
    ck_assert_int_eq(dashsim_json_get_int64(out, "/no_such", &ms, &err), DASHSIM_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.message, "/no_such"));
    ck_assert_int_eq(dashsim_json_get_int64(out, "/exact_stop", &ms, &err), DASHSIM_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.message, "not an integer"));
    dashsim_free(stop), dashsim_free(out), g_free(golden);
    static const struct { const char *req, *says; DashsimStatus status; } bad[] = {
        { "{\"tiles\": 4}", "request/mask: missing", DASHSIM_ERR_INPUT },
        { "{\"mask\": \"causal\", \"tile\": 4}", "request/tile: unknown key", DASHSIM_ERR_INPUT },
        { "{\"mask\": \"causal\", \"n\": 0}", "request/n: must be an integer in 1..4096", DASHSIM_ERR_INPUT },
        { "{\"mask\": \"causal\", \"reduce\": \"x\"}", "request/reduce: must be serial or async", DASHSIM_ERR_INPUT },
        { "{\"mask\": \"window:0\"}", "window:0", DASHSIM_ERR_USAGE },
        { "{\"mask\": ", "request:1:", DASHSIM_ERR_INPUT },
        { "[1]", "must be a JSON object", DASHSIM_ERR_INPUT },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        out = (char *)"unset", error = NULL;
        ck_assert_int_eq(dashsim_search_json(bad[i].req, &out, &error), bad[i].status);
        ck_assert_ptr_null(out);
        ck_assert_msg(error && strstr(error, bad[i].says), "%s: %s", bad[i].req, error);
        dashsim_free(error);
    }
    ck_assert_int_eq(dashsim_search_json(NULL, &out, NULL), DASHSIM_ERR_USAGE);
}
END_TEST

/* dashsim_decode_json: the bytes `sim decode --lk 2048 --json` prints (the golden file), errors by key. */
START_TEST(decode_json_is_the_commands)
{
    char *out = NULL, *error = NULL, *golden = NULL;
    ck_assert(g_file_get_contents("tests/golden/json/decode-lk2048.json", &golden, NULL, NULL));
    ck_assert_int_eq(dashsim_decode_json("{\"lk\": 2048}", &out, &error), DASHSIM_OK);
    char *version = g_strdup_printf("\"dashsim_version\":\"%s\"", DASHSIM_VERSION); /* the golden file says VERSION */
    GString *want = g_string_new(golden);
    g_string_replace(want, "\"dashsim_version\":\"VERSION\"", version, 1);
    ck_assert_str_eq(out, want->str);
    g_string_free(want, TRUE), g_free(version);
    dashsim_free(out), g_free(golden);
    static const struct { const char *req, *says; } bad[] = {
        { "{\"lk\": 0}", "request/lk: must be an integer" }, { "{\"dtype\": \"fp4\"}", "request/dtype" },
        { "{\"paged\": 1}", "request/paged: must be true or false" }, { "{\"sweep\": true}", "request/sweep: unknown key" },
        { "{\"split_policy\": \"nope\"}", "nope" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        out = NULL, error = NULL;
        ck_assert_int_ne(dashsim_decode_json(bad[i].req, &out, &error), DASHSIM_OK);
        ck_assert_ptr_null(out);
        ck_assert_msg(error && strstr(error, bad[i].says), "%s: %s", bad[i].req, error);
        dashsim_free(error);
    }
}
END_TEST

/* dashsim_pipeline_json: the bytes `sim pipeline --policy amla --json` prints (the golden file); errors by key. */
START_TEST(pipeline_json_is_the_commands)
{
    char *out = NULL, *error = NULL, *golden = NULL;
    ck_assert(g_file_get_contents("tests/golden/json/pipeline-amla.json", &golden, NULL, NULL));
    ck_assert_int_eq(dashsim_pipeline_json("{\"policy\": \"amla\"}", &out, &error), DASHSIM_OK);
    char *version = g_strdup_printf("\"dashsim_version\":\"%s\"", DASHSIM_VERSION);
    GString *want = g_string_new(golden);
    g_string_replace(want, "\"dashsim_version\":\"VERSION\"", version, 1);
    ck_assert_str_eq(out, want->str);
    g_string_free(want, TRUE), g_free(version), dashsim_free(out), g_free(golden);
    static const struct { const char *req, *says; } bad[] = {
        { "{\"c_ns\": [1, 2, 3]}", "request/c_ns: has 3 entries" }, { "{\"c_ns\": []}", "request/c_ns: must be an array" },
        { "{\"v_ns\": [1, -2]}", "request/v_ns/1" }, { "{\"policy\": \"nope\"}", "request/policy" },
        { "{\"explain\": 1}", "request/explain: must be true or false" }, { "{\"ring\": 5000}", "request/ring" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        out = NULL, error = NULL;
        ck_assert_int_ne(dashsim_pipeline_json(bad[i].req, &out, &error), DASHSIM_OK);
        ck_assert_ptr_null(out);
        ck_assert_msg(error && strstr(error, bad[i].says), "%s: %s", bad[i].req, error);
        dashsim_free(error);
    }
}
END_TEST

/* text (a result of the library) equals tests/golden/json/NAME.json, whose dashsim version reads VERSION. */
static void assert_golden(const char *text, const char *name)
{
    char *path = g_strdup_printf("tests/golden/json/%s.json", name), *golden = NULL;
    ck_assert_msg(g_file_get_contents(path, &golden, NULL, NULL), "%s", path);
    GString *stamped = g_string_new(text);
    g_string_replace(stamped, "\"dashsim_version\":\"" DASHSIM_VERSION "\"", "\"dashsim_version\":\"VERSION\"", 1);
    ck_assert_str_eq(stamped->str, golden);
    g_string_free(stamped, TRUE), g_free(golden), g_free(path);
}

typedef DashsimStatus (*JsonEntry)(const char *, char **, char **);

/* Each bad request gets its status, no result, and a sentence holding says. */
static void assert_refused(JsonEntry entry, const char *req, DashsimStatus status, const char *says)
{
    char *out = (char *)"unset", *error = NULL;
    ck_assert_int_eq(entry(req, &out, &error), status);
    ck_assert_ptr_null(out);
    ck_assert_msg(error && strstr(error, says), "%s: %s", req, error);
    dashsim_free(error);
}

/* dashsim_replay_json: the bytes `sim --plan FILE --reduce async --json` prints (the golden file, a block-mask
 * plan); the plan goes through the CLI's reader and plan_check, whose sentences name the file and line. */
START_TEST(replay_json_is_the_commands)
{
    char *out = NULL, *error = NULL;
    const char *req = "{\"plan\": \"tests/golden/plans/window-search.plan\", \"reduce\": \"async\"}";
    ck_assert_int_eq(dashsim_replay_json(req, &out, &error), DASHSIM_OK);
    ck_assert_ptr_null(error);
    assert_golden(out, "replay-window");
    dashsim_free(out);
    assert_refused(dashsim_replay_json, "{\"reduce\": \"async\"}", DASHSIM_ERR_INPUT, "request/plan: missing");
    assert_refused(dashsim_replay_json, "{\"plan\": \"x\", \"policy\": \"fa3\"}", DASHSIM_ERR_INPUT,
                   "request/policy: unknown key");
    assert_refused(dashsim_replay_json, "{\"plan\": \"x\", \"c_ns\": -1}", DASHSIM_ERR_INPUT, "request/c_ns");
    assert_refused(dashsim_replay_json, "{\"plan\": 3}", DASHSIM_ERR_INPUT, "request/plan: must be a string");
    assert_refused(dashsim_replay_json, "{\"plan\": \"tests/no-such.plan\"}", DASHSIM_ERR_IO, "tests/no-such.plan");
    assert_refused(dashsim_replay_json, "{\"plan\": \"tests/fuzz/regress-plan/empty-cta.plan\"}", DASHSIM_ERR_INPUT,
                   "empty-cta.plan:19:");
    assert_refused(dashsim_replay_json, "{\"plan\": \"tests/fuzz/regress-plan/crash-8984d44b-rank.plan\"}",
                   DASHSIM_ERR_SCHEDULE, "must be a permutation");
}
END_TEST

/* dashsim_shape_json: the bytes `sim --seqlen 4096 --heads 16 --mask causal --json` prints (the golden file);
 * the ranking read through the getters; errors by key. */
START_TEST(shape_json_is_the_commands)
{
    char *out = NULL, *error = NULL, *winner = NULL;
    ck_assert_int_eq(dashsim_shape_json("{\"seqlen\": 4096, \"heads\": 16, \"mask\": \"causal\"}", &out, &error),
                     DASHSIM_OK);
    assert_golden(out, "shape-causal-4096");
    DashsimError err;
    int64_t heads = 0;
    ck_assert_int_eq(dashsim_json_get_string(out, "/winner", &winner, &err), DASHSIM_OK);
    ck_assert_int_eq(dashsim_json_get_int64(out, "/heads", &heads, &err), DASHSIM_OK);
    ck_assert_int_eq(heads, 16);
    ck_assert_ptr_nonnull(policy_find(winner));
    dashsim_free(winner), dashsim_free(out);
    assert_refused(dashsim_shape_json, "{\"heads\": 4}", DASHSIM_ERR_INPUT, "request/seqlen: missing");
    assert_refused(dashsim_shape_json, "{\"seqlen\": 1024, \"heads\": 6, \"kv_heads\": 4}", DASHSIM_ERR_INPUT,
                   "request/kv_heads: 4 must divide heads 6");
    assert_refused(dashsim_shape_json, "{\"seqlen\": 1024, \"model\": \"flops\"}", DASHSIM_ERR_INPUT, "request/model");
    assert_refused(dashsim_shape_json, "{\"seqlen\": 0}", DASHSIM_ERR_INPUT, "request/seqlen: must be an integer");
    assert_refused(dashsim_shape_json, "{\"seqlen\": 1024, \"tiles\": 4}", DASHSIM_ERR_INPUT, "request/tiles: unknown");
    assert_refused(dashsim_shape_json, "{\"seqlen\": 1024, \"kernel\": \"no-such-kernel\"}", DASHSIM_ERR_IO,
                   "no-such-kernel");
}
END_TEST

/* dashsim_validate_json: the bytes `sim validate TRACES --json` prints (the golden file). A failed check is
 * DASHSIM_ERR_CHECK with the report (pass false) and its sentence; a bad request is an error without one. */
START_TEST(validate_json_is_the_commands)
{
    char *out = NULL, *error = NULL;
    const char *traces = "\"traces\": [\"tests/golden/validate/fa3-tiny.json\", \"tests/golden/validate/shift-tiny.json\"]";
    char *req = g_strdup_printf("{%s}", traces);
    ck_assert_int_eq(dashsim_validate_json(req, &out, &error), DASHSIM_OK);
    ck_assert_ptr_null(error);
    assert_golden(out, "validate-fa3-tiny");
    dashsim_free(out), g_free(req);
    req = g_strdup_printf("{%s, \"predict\": true}", traces); /* the profile predicts no hand-made trace: a miss */
    ck_assert_int_eq(dashsim_validate_json(req, &out, &error), DASHSIM_ERR_CHECK);
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(strstr(out, "\"not_predicted\":2,\"pass\":false}"));
    ck_assert_msg(error && strstr(error, "the check failed"), "%s", error);
    dashsim_free(out), dashsim_free(error), g_free(req);
    assert_refused(dashsim_validate_json, "{\"predict\": true}", DASHSIM_ERR_INPUT, "request/traces: missing");
    assert_refused(dashsim_validate_json, "{\"traces\": []}", DASHSIM_ERR_INPUT, "request/traces: must be a non-empty");
    assert_refused(dashsim_validate_json, "{\"traces\": [1]}", DASHSIM_ERR_INPUT, "request/traces/0");
    assert_refused(dashsim_validate_json, "{\"traces\": [\"tests/no-such.json\"]}", DASHSIM_ERR_IO, "tests/no-such.json");
    assert_refused(dashsim_validate_json, "{\"traces\": [\"x\"], \"tolerance\": -1}", DASHSIM_ERR_INPUT,
                   "request/tolerance: must be a non-negative number");
    assert_refused(dashsim_validate_json, "{\"traces\": [\"x\"], \"verbose\": true}", DASHSIM_ERR_INPUT,
                   "request/verbose: unknown key");
}
END_TEST

/* The numeric version orders as the string does and matches the header. */
START_TEST(version_number_matches)
{
    ck_assert_int_eq(dashsim_version_number(), DASHSIM_VERSION_NUMBER);
    char text[32];
    snprintf(text, sizeof text, "%d.%d.%d", dashsim_version_number() / 10000, dashsim_version_number() / 100 % 100,
             dashsim_version_number() % 100);
    ck_assert_str_eq(text, dashsim_version());
}
END_TEST

Suite *suite_api(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, default_job_is_the_programs);
    tcase_add_test(tc, job_is_the_internal_job);
    tcase_add_test(tc, block_mask_is_made_at_run);
    tcase_add_test(tc, setters_refuse_bad_values);
    tcase_add_test(tc, policies_and_names);
    tcase_add_test(tc, outputs_are_one_batch);
    tcase_add_test(tc, run_json_returns_the_rows);
    tcase_add_test(tc, run_json_refuses_bad_requests);
    tcase_add_test(tc, search_json_is_the_commands);
    tcase_add_test(tc, version_number_matches);
    tcase_add_test(tc, decode_json_is_the_commands);
    tcase_add_test(tc, pipeline_json_is_the_commands);
    tcase_add_test(tc, replay_json_is_the_commands);
    tcase_add_test(tc, shape_json_is_the_commands);
    tcase_add_test(tc, validate_json_is_the_commands);
    suite_add_tcase(s, tc);
    return s;
}

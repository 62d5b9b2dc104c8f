/* dashsim_validate_json: `sim validate --json` as a library call. The request names the traces (and kernel-runs
 * files) and the command's options; the result is the command's report. A model beyond its tolerance (or worse
 * than a baseline) is DASHSIM_ERR_CHECK *with* the report: the one status that comes with a result, since a
 * failed check is an answer, not a failed call. Invariant: the same request gives the bytes `sim validate
 * PATHS [options] --json` prints, and the status its exit code says (0 ok, 1 check, 2 error). */
#include "dashsim/dashsim.h"

#include <cjson/cJSON.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "api_util.h"
#include "datadir.h"
#include "input.h"
#include "job.h"
#include "validate_run.h"

typedef struct {
    ValidateSettings s;
    const char **args;          /* request/traces, borrowed from the request */
    int arg_count;
    const char *profile_name, *kernel_name;
    char profile_path[4096], kernel_path[4096];
} ValidateRequest;

/* request/traces: a non-empty array of file or directory names. */
static SimStatus parse_traces(ValidateRequest *q, const cJSON *item, SimError *err)
{
    int n = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : 0;
    if (n == 0)
        return sim_error_set(err, SIM_ERR_INPUT, "request/traces: must be a non-empty array of trace files or directories");
    g_free(q->args);
    q->args = g_new0(const char *, n);
    q->arg_count = 0;
    for (const cJSON *t = item->child; t; t = t->next) {
        if (!cJSON_IsString(t))
            return sim_error_set(err, SIM_ERR_INPUT, "request/traces/%d: must be a file or directory name", q->arg_count);
        q->args[q->arg_count++] = t->valuestring;
    }
    return SIM_OK;
}

/* A string member (profile, kernel, latency_matrix, baseline). */
static SimStatus parse_text(ValidateRequest *q, const char *key, const cJSON *item, SimError *err)
{
    if (!cJSON_IsString(item))
        return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be a string", key);
    const char **to = !strcmp(key, "profile") ? &q->profile_name : !strcmp(key, "kernel") ? &q->kernel_name
                      : !strcmp(key, "latency_matrix") ? &q->s.matrix_path : &q->s.baseline_path;
    *to = item->valuestring;
    return SIM_OK;
}

static SimStatus parse_number(ValidateRequest *q, const char *key, const cJSON *item, SimError *err)
{
    int64_t v;
    if (!strcmp(key, "max_memory_mb") || !strcmp(key, "jobs")) {
        bool is_jobs = !strcmp(key, "jobs");
        int64_t hi = is_jobs ? 256 : sim_job_physical_memory_mb();
        if (api_json_int(item, 1, hi, &v) != SIM_OK)
            return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be an integer in 1..%" G_GINT64_FORMAT, key, hi);
        *(is_jobs ? &q->s.jobs : &q->s.max_memory_mb) = v;
        return SIM_OK;
    }
    if (!cJSON_IsNumber(item) || !(item->valuedouble >= 0) || !isfinite(item->valuedouble))
        return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be a non-negative number", key);
    if (!strcmp(key, "tolerance"))
        q->s.tolerance = item->valuedouble, q->s.has_tolerance = true;
    else
        q->s.speedup_tolerance_pp = item->valuedouble;
    return SIM_OK;
}

static SimStatus parse_member(ValidateRequest *q, const cJSON *item, SimError *err)
{
    static const char *const text_keys[] = { "profile", "kernel", "latency_matrix", "baseline" };
    static const char *const number_keys[] = { "tolerance", "speedup_tolerance", "max_memory_mb", "jobs" };
    const char *key = item->string;
    if (!strcmp(key, "traces"))
        return parse_traces(q, item, err);
    if (!strcmp(key, "predict")) {
        if (!cJSON_IsBool(item))
            return sim_error_set(err, SIM_ERR_INPUT, "request/predict: must be true or false");
        q->s.is_predict = cJSON_IsTrue(item);
        return SIM_OK;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(text_keys); i++)
        if (!strcmp(key, text_keys[i]))
            return parse_text(q, key, item, err);
    for (size_t i = 0; i < G_N_ELEMENTS(number_keys); i++)
        if (!strcmp(key, number_keys[i]))
            return parse_number(q, key, item, err);
    return sim_error_set(err, SIM_ERR_INPUT, "request/%.64s: unknown key (see docs/api.md, dashsim_validate_json)", key);
}

/* The request as the command's options, with its defaults; the profiles found as the command finds them. */
static SimStatus parse_request(const cJSON *root, ValidateRequest *q, SimError *err)
{
    q->s = (ValidateSettings){ .want_phases = true, .max_memory_mb = MIN(4096, sim_job_physical_memory_mb()),
                               .jobs = MIN(8, (int64_t)g_get_num_processors()), .tolerance = 0.03,
                               .speedup_tolerance_pp = 2.0 };
    if (!cJSON_IsObject(root))
        return sim_error_set(err, SIM_ERR_INPUT, "request: must be a JSON object of validate's options");
    for (const cJSON *item = root->child; item; item = item->next)
        if (parse_member(q, item, err) != SIM_OK)
            return err->status;
    if (!q->args)
        return sim_error_set(err, SIM_ERR_INPUT, "request/traces: missing (an array of trace files or directories)");
    if ((q->s.is_predict || q->profile_name) &&
        sim_data_find_profile(q->profile_name ? q->profile_name : SIM_DATA_DEFAULT_PROFILE, q->profile_path,
                              sizeof q->profile_path, err) != SIM_OK)
        return err->status;
    if (q->kernel_name && sim_data_find_kernel(q->kernel_name, q->kernel_path, sizeof q->kernel_path, err) != SIM_OK)
        return err->status;
    q->s.profile_path = q->s.is_predict || q->profile_name ? q->profile_path : NULL;
    q->s.is_profile_default = q->s.is_predict && !q->profile_name;
    q->s.kernel_path = q->kernel_name ? q->kernel_path : NULL;
    q->s.tolerance = q->s.is_predict && !q->s.has_tolerance ? 0.05 : q->s.tolerance;
    return SIM_OK;
}

/* A failed check's sentences: the verdict, then each note (regressions against the baseline). */
static char *check_sentences(const ValidateOutcome *out)
{
    GString *s = g_string_new("the check failed: a model beyond its tolerance, a run not predicted, or a "
                              "regression against the baseline (the report's /pass and /kernel_runs/N/summary/pass)");
    for (int i = 0; i < out->note_count; i++)
        g_string_append_printf(s, "\n%s", out->notes[i]);
    char *text = strdup(s->str);
    g_string_free(s, TRUE);
    if (!text)
        g_error("out of memory");
    return text;
}

static DashsimStatus validate(const ValidateRequest *q, char **result_json, char **error, SimError *err)
{
    char **paths = NULL;
    int count = 0;
    ValidateOutcome out = { 0 };
    DashsimStatus status = DASHSIM_OK;
    if (sim_validate_find(q->args, q->arg_count, &paths, &count, err) == SIM_OK &&
        sim_validate_run(&q->s, paths, count, &out, NULL, NULL, err) == SIM_OK) {
        ApiText t;
        api_text_open(&t);
        sim_validate_outcome_write_json(t.f, &out);
        *result_json = api_text_take(&t);
        if (out.exit_code != 0 && error)
            *error = check_sentences(&out);
        status = out.exit_code != 0 ? DASHSIM_ERR_CHECK : DASHSIM_OK;
    }
    sim_validate_outcome_clear(&out);
    g_strfreev(paths);
    return err->status ? (DashsimStatus)err->status : status;
}

DashsimStatus dashsim_validate_json(const char *request_json, char **result_json, char **error)
{
    SimError err = { 0 };
    cJSON *root = NULL;
    if (api_json_begin("dashsim_validate_json", request_json, result_json, error, &root, &err) != SIM_OK)
        return api_fail(&err, error);
    ValidateRequest q = { 0 };
    DashsimStatus status = DASHSIM_OK;
    sim_input_call_begin(); /* the overwrite rule is this call's (input.h) */
    if (parse_request(root, &q, &err) == SIM_OK)
        status = validate(&q, result_json, error, &err);
    sim_input_call_end();
    g_free(q.args);
    cJSON_Delete(root);
    return err.status ? api_fail(&err, error) : status;
}

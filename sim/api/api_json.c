/* JSON in, JSON out: dashsim_run_json runs a config given as text through the same loading, validation and
 * sweep as `sim run CONFIG` (sim/io/config.c, sim/run/sweep.c) and returns its JSONL rows as one JSON array.
 * Invariant: every row of the array is byte for byte the line `sim run CONFIG --format jsonl` prints, and
 * on any error nothing but the error is returned. */
#include "dashsim/dashsim.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "input.h"
#include "sweep.h"

/* A malloc'ed copy of text (callers free it with dashsim_free, which is free). */
static char *copy_text(const char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        g_error("out of memory"); /* as GLib's allocator does: the library's rule (dashsim.h) */
    memcpy(s, text, len);
    s[len] = 0;
    return s;
}

/* The rows as "[\n" row ",\n" row ... "\n]\n" ("[]\n" without rows). */
static void emit_row(const SimSweepRow *row, void *ctx)
{
    GString *out = ctx;
    size_t len;
    char *line = sim_sweep_row_text(SWEEP_JSONL, row, &len);
    g_string_append(out, out->len > 2 ? ",\n" : "");
    g_string_append_len(out, line, (gssize)len - 1); /* the line without its newline */
    free(line);
}

/* The sweep of the request's config, or NULL with every error in diag. */
static SimSweep *load(const char *request, size_t len, SimDiag *diag)
{
    SimConfig *cfg = sim_config_parse("request", request, len, diag);
    SimSweep *s = NULL;
    if (cfg && !sim_diag_count(diag) && sim_config_validate(cfg, true, diag))
        s = sim_sweep_new(cfg, true, diag);
    sim_config_free(cfg);
    return s;
}

/* The request's errors, one sentence per line. */
static DashsimStatus fail(SimStatus status, const char *text, char **error)
{
    if (error)
        *error = copy_text(text, strlen(text));
    return (DashsimStatus)status;
}

static DashsimStatus fail_diag(const SimDiag *diag, char **error)
{
    GString *text = g_string_new(NULL);
    for (int i = 0; i < sim_diag_count(diag); i++)
        g_string_append_printf(text, "%s%s", i ? "\n" : "", sim_diag_at(diag, i));
    DashsimStatus status = fail(sim_diag_status(diag), text->str, error);
    g_string_free(text, TRUE);
    return status;
}

static DashsimStatus run_json(const char *request_json, const SimBudget *budget, char **result_json, char **error)
{
    if (error)
        *error = NULL;
    if (result_json)
        *result_json = NULL;
    if (!request_json || !result_json)
        return fail(SIM_ERR_USAGE, request_json ? "dashsim_run_json needs a place for the result, got NULL"
                                                : "the request is NULL, not JSON text", error);
    size_t len = strnlen(request_json, SIM_CONFIG_MAX_BYTES + 1);
    if (len > SIM_CONFIG_MAX_BYTES)
        return fail(SIM_ERR_LIMIT, "the request is over 1 MiB (1048576 bytes), the limit of a config", error);
    SimDiag *diag = sim_diag_new();
    SimSweep *s = load(request_json, len, diag);
    DashsimStatus status = s ? DASHSIM_OK : fail_diag(diag, error);
    sim_diag_free(diag);
    if (!s)
        return status;
    GString *out = g_string_new("[\n");
    SimError err = { 0 };
    sim_sweep_set_budget(s, budget);
    if (sim_sweep_run(s, 1, NULL, emit_row, NULL, out, &err) != SIM_OK)
        status = fail(err.status, err.msg, error);
    else if (out->len == 2)
        *result_json = copy_text("[]\n", 3);
    else
        g_string_append(out, "\n]\n"), *result_json = copy_text(out->str, out->len);
    g_string_free(out, TRUE);
    sim_sweep_free(s);
    return status;
}

DashsimStatus dashsim_run_json(const char *request_json, char **result_json, char **error)
{
    sim_input_call_begin(); /* the overwrite rule is this call's (input.h) */
    DashsimStatus status = run_json(request_json, NULL, result_json, error);
    sim_input_call_end();
    return status;
}

DashsimStatus dashsim_run_json_within(const char *request_json, double max_seconds, DashsimCancelFn is_cancelled,
                                      void *ctx, char **result_json, char **error)
{
    ApiBudget b;
    SimError err = { 0 };
    if (api_budget_start(&b, "dashsim_run_json_within", max_seconds, is_cancelled, ctx, &err) != SIM_OK) {
        if (result_json)
            *result_json = NULL;
        return fail(err.status, err.msg, error);
    }
    sim_input_call_begin();
    DashsimStatus status = run_json(request_json, &b.budget, result_json, error);
    sim_input_call_end();
    return status;
}

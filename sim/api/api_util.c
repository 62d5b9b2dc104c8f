/* The JSON entry points' shared steps (api_util.h). Invariant: an entry point that fails returns no result,
 * and its error is one sentence naming the request's place. */
#include "api_util.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void api_text_open(ApiText *t)
{
    *t = (ApiText){ 0 };
    t->f = open_memstream(&t->text, &t->len);
    if (!t->f)
        g_error("out of memory"); /* as GLib's allocator does (dashsim.h) */
}

char *api_text_take(ApiText *t)
{
    fclose(t->f);
    char *text = t->text;
    *t = (ApiText){ 0 };
    return text;
}

DashsimStatus api_fail(const SimError *err, char **error)
{
    if (error) {
        *error = strdup(err->msg);
        if (!*error)
            g_error("out of memory");
    }
    return (DashsimStatus)err->status;
}

/* The line and column of offset in text (1-based). */
static void locate(const char *text, size_t offset, int *line, int *col)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < offset && text[i]; i++)
        if (text[i] == '\n')
            (*line)++, *col = 1;
        else
            (*col)++;
}

SimStatus api_json_begin(const char *name, const char *request, char **result, char **error, cJSON **root,
                         SimError *err)
{
    if (error)
        *error = NULL;
    if (result)
        *result = NULL;
    *root = NULL;
    if (!request || !result)
        return sim_error_set(err, SIM_ERR_USAGE, request ? "%s needs a place for the result, got NULL"
                                                         : "%s: the request is NULL, not JSON text", name);
    size_t len = strnlen(request, API_MAX_REQUEST_BYTES + 1);
    if (len > API_MAX_REQUEST_BYTES)
        return sim_error_set(err, SIM_ERR_LIMIT, "the request is over 1 MiB (1048576 bytes), the limit of %s", name);
    const char *end = NULL;
    *root = cJSON_ParseWithLengthOpts(request, len + 1, &end, 1);
    if (!*root) {
        int line, col;
        locate(request, end ? (size_t)(end - request) : 0, &line, &col);
        return sim_error_set(err, SIM_ERR_INPUT, "request:%d:%d: not valid JSON", line, col);
    }
    return SIM_OK;
}

SimStatus api_json_int(const cJSON *item, int64_t lo, int64_t hi, int64_t *out)
{
    if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble) || item->valuedouble < (double)lo ||
        item->valuedouble > (double)hi)
        return SIM_ERR_INPUT;
    *out = (int64_t)item->valuedouble;
    return SIM_OK;
}

static bool api_is_cancelled(void *ctx)
{
    ApiBudget *b = ctx;
    if (!b->is_cancelled && b->cancel && b->cancel(b->cancel_ctx))
        b->is_cancelled = true;
    return b->is_cancelled;
}

SimStatus api_budget_start(ApiBudget *b, const char *name, double max_seconds, DashsimCancelFn cancel, void *ctx,
                           SimError *err)
{
    *b = (ApiBudget){ .budget = { .max_seconds = max_seconds, .is_cancelled = api_is_cancelled, .ctx = b },
                      .cancel = cancel, .cancel_ctx = ctx };
    if (!(max_seconds >= 0 && max_seconds < HUGE_VAL))
        return sim_error_set(err, SIM_ERR_USAGE, "%s: max_seconds must be a finite number >= 0 (0: no bound), got %g",
                             name, max_seconds);
    sim_budget_start(&b->budget);
    return SIM_OK;
}

int api_json_int_member(const ApiIntKey *keys, int count, const cJSON *item, int64_t *v, SimError *err)
{
    for (int k = 0; k < count; k++)
        if (!strcmp(item->string, keys[k].key)) {
            if (api_json_int(item, keys[k].lo, keys[k].hi, v) == SIM_OK)
                return k;
            sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be an integer in %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                          item->string, keys[k].lo, keys[k].hi);
            return -2;
        }
    return -1;
}

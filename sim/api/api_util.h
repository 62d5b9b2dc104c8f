/* What the library's JSON entry points share (sim/api/api_util.c): the request's checks and parse, integer
 * members, results through a memory stream, errors as malloc'ed sentences. Internal to sim/api. */
#ifndef SIM_API_UTIL_H
#define SIM_API_UTIL_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "dashsim/dashsim.h"
#include "status.h"

/* The largest request text, as for dashsim_run_json (1 MiB). */
#define API_MAX_REQUEST_BYTES (1L << 20)

/* Clears *result and *error (when not NULL), checks request and result are not NULL and the request at most
 * API_MAX_REQUEST_BYTES, and parses it into *root (owned: cJSON_Delete). A sentence naming name on an error;
 * a syntax error says "request:LINE:COL". */
SimStatus api_json_begin(const char *name, const char *request, char **result, char **error, cJSON **root,
                         SimError *err);
/* item as an integer in lo..hi (a JSON number without a fraction), else SIM_ERR_INPUT. */
SimStatus api_json_int(const cJSON *item, int64_t lo, int64_t hi, int64_t *out);
/* An integer member of a request, with its range as the command's flag has it. */
typedef struct {
    const char *key;
    int64_t lo, hi;
} ApiIntKey;
/* The index in keys (count of them) of item's key, its value into *v; -1 when no key matches; -2 with
 * "request/KEY: must be an integer in LO..HI" in err when the value is not one. */
int api_json_int_member(const ApiIntKey *keys, int count, const cJSON *item, int64_t *v, SimError *err);
/* *error (when error is not NULL) = a malloc'ed copy of err's sentence; returns its status. */
DashsimStatus api_fail(const SimError *err, char **error);
/* A stream into memory (f), and its text as a malloc'ed string (freed by dashsim_free) once taken. */
typedef struct {
    FILE *f;
    char *text;
    size_t len;
} ApiText;
void api_text_open(ApiText *t);
char *api_text_take(ApiText *t);

/* The public budget (max_seconds, DashsimCancelFn) as the core's SimBudget; a cancel, once seen, stays. */
typedef struct {
    SimBudget budget;       /* what the library's loops check; its ctx is this record */
    DashsimCancelFn cancel; /* the caller's hook, may be NULL */
    void *cancel_ctx;
    bool is_cancelled;      /* the hook has returned nonzero once */
} ApiBudget;
/* Starts b's clock; SIM_ERR_USAGE with a sentence naming name when max_seconds is NaN, negative or infinite. */
SimStatus api_budget_start(ApiBudget *b, const char *name, double max_seconds, DashsimCancelFn cancel, void *ctx,
                           SimError *err);

#endif

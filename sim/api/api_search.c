/* dashsim_search_json: `sim search --json` as a library call. The request is a JSON object whose keys are the
 * command's options (mask, n, heads, gqa, tiles, kv_tiles, q_tiles, c_ns, r_ns, latency_ns, reduce, iterations,
 * seed, exact_max_nodes, exact_max_ms, max_memory_mb), with the command's defaults and ranges; the result is
 * the command's JSON object. Invariant: the same request gives the bytes `sim search ... --json` prints. */
#include "dashsim/dashsim.h"

#include <cjson/cJSON.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"
#include "job.h"
#include "mask.h"
#include "search.h"
#include "search_out.h"

typedef struct {
    Workload wl;
    AttnCosts costs;
    SearchOptions o;
    const char *mask;
    int64_t max_memory_mb;
    bool has_kv, has_q;
} SearchRequest;

static const ApiIntKey int_keys[] = {
    { "n", 1, 4096 }, { "heads", 1, 4096 }, { "gqa", 1, 4096 }, { "tiles", 1, 4096 }, { "kv_tiles", 1, 4096 },
    { "q_tiles", 1, 4096 }, { "c_ns", 0, 1000000000 }, { "r_ns", 0, 1000000000 }, { "latency_ns", 0, 1000000000 },
    { "iterations", 0, 100000000 }, { "seed", 0, UINT32_MAX }, { "exact_max_nodes", 0, 100000000 },
    { "exact_max_ms", 0, 86400000 }, { "max_memory_mb", 1, INT64_C(1) << 40 },
};

static void set_int(SearchRequest *q, const char *key, int64_t v)
{
    if (!strcmp(key, "n")) q->wl.n_sm = (int)v;
    else if (!strcmp(key, "heads")) q->wl.heads = (int)v;
    else if (!strcmp(key, "gqa")) q->o.gqa_group = (int32_t)v;
    else if (!strcmp(key, "tiles")) q->wl.kv_tiles = q->wl.q_tiles = (int)v, q->has_kv = q->has_q = true;
    else if (!strcmp(key, "kv_tiles")) q->wl.kv_tiles = (int)v, q->has_kv = true;
    else if (!strcmp(key, "q_tiles")) q->wl.q_tiles = (int)v, q->has_q = true;
    else if (!strcmp(key, "c_ns")) q->costs.c_ns = v;
    else if (!strcmp(key, "r_ns")) q->costs.r_ns = v;
    else if (!strcmp(key, "latency_ns")) q->costs.latency_ns = v;
    else if (!strcmp(key, "iterations")) q->o.iterations = (int)v;
    else if (!strcmp(key, "seed")) q->o.seed = (uint32_t)v;
    else if (!strcmp(key, "exact_max_nodes")) q->o.exact_max_nodes = v;
    else if (!strcmp(key, "exact_max_ms")) q->o.exact_max_ms = v;
    else q->max_memory_mb = v;
}

/* One member of the request into q; a sentence naming it on an error. */
static SimStatus parse_member(SearchRequest *q, const cJSON *item, SimError *err)
{
    const char *key = item->string;
    if (!strcmp(key, "mask") || !strcmp(key, "reduce")) {
        if (!cJSON_IsString(item))
            return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be a string", key);
        if (!strcmp(key, "mask")) {
            q->mask = item->valuestring;
            return SIM_OK;
        }
        if (strcmp(item->valuestring, "serial") && strcmp(item->valuestring, "async"))
            return sim_error_set(err, SIM_ERR_INPUT, "request/reduce: must be serial or async, got '%.64s'",
                                 item->valuestring);
        q->costs.reduce = strcmp(item->valuestring, "serial") ? REDUCE_ASYNC : REDUCE_SERIAL;
        return SIM_OK;
    }
    int64_t v;
    int k = api_json_int_member(int_keys, (int)G_N_ELEMENTS(int_keys), item, &v, err);
    if (k >= 0)
        set_int(q, key, v);
    if (k != -1)
        return err->status;
    return sim_error_set(err, SIM_ERR_INPUT, "request/%.64s: unknown key (see docs/api.md, dashsim_search_json)", key);
}

/* The request as the command's arguments, or a sentence. */
static SimStatus parse_request(const cJSON *root, SearchRequest *q, SimError *err)
{
    *q = (SearchRequest){ .wl = { .n_sm = 132, .heads = 1, .tile_ratio = 1, .head_swizzle = 1 },
                          .costs = { .c_ns = 1000, .r_ns = 500, .dq_buffers = 1 }, .o = sim_search_options_default(),
                          .max_memory_mb = MIN(4096, sim_job_physical_memory_mb()) };
    if (!cJSON_IsObject(root))
        return sim_error_set(err, SIM_ERR_INPUT, "request: must be a JSON object of the search's options");
    for (const cJSON *item = root->child; item; item = item->next)
        if (parse_member(q, item, err) != SIM_OK)
            return err->status;
    if (!q->mask)
        return sim_error_set(err, SIM_ERR_INPUT, "request/mask: missing (a block mask spec, docs/masks.md)");
    if (!q->has_kv)
        q->wl.kv_tiles = q->wl.n_sm;
    if (!q->has_q)
        q->wl.q_tiles = q->wl.n_sm;
    return SIM_OK;
}

/* The search's size against max_memory_mb, as the command checks it. */
static SimStatus check_size(const SearchRequest *q, SimError *err)
{
    SearchSize z;
    if (sim_search_size(&q->wl, &q->costs, &q->o, SIM_BYTES_PER_OP, &z, err) != SIM_OK)
        return err->status;
    if (z.bytes / (1 << 20) > (double)q->max_memory_mb)
        return sim_error_set(err, SIM_ERR_LIMIT, "a search of %" G_GINT64_FORMAT " tasks would need about %.0f MB, "
                             "over the cap of %" G_GINT64_FORMAT " MB (max_memory_mb)", z.tasks, z.bytes / (1 << 20),
                             q->max_memory_mb);
    return SIM_OK;
}

static DashsimStatus search_json(const char *name, const char *request_json, const SimBudget *budget,
                                 char **result_json, char **error)
{
    SimError err = { 0 };
    cJSON *root = NULL;
    if (api_json_begin(name, request_json, result_json, error, &root, &err) != SIM_OK)
        return api_fail(&err, error);
    SearchRequest q;
    BlockMask m = { 0 };
    SearchResult r = { 0 };
    if (parse_request(root, &q, &err) == SIM_OK && sim_mask_make(q.mask, q.wl.kv_tiles, q.wl.q_tiles, &m, &err) == SIM_OK) {
        sim_mask_apply(&m, &q.wl);
        q.o.budget = budget;
        if (check_size(&q, &err) == SIM_OK && sim_search(&q.wl, &q.costs, &q.o, &r, &err) == SIM_OK) {
            ApiText t;
            api_text_open(&t);
            sim_search_write_json(t.f, &m, &q.wl, &q.costs, q.o.gqa_group, &r);
            *result_json = api_text_take(&t);
        }
    }
    sim_search_result_clear(&r);
    sim_mask_clear(&m);
    cJSON_Delete(root);
    return err.status ? api_fail(&err, error) : DASHSIM_OK;
}

DashsimStatus dashsim_search_json(const char *request_json, char **result_json, char **error)
{
    return search_json("dashsim_search_json", request_json, NULL, result_json, error);
}

DashsimStatus dashsim_search_json_within(const char *request_json, double max_seconds, DashsimCancelFn is_cancelled,
                                         void *ctx, char **result_json, char **error)
{
    ApiBudget b;
    SimError err = { 0 };
    if (result_json)
        *result_json = NULL;
    if (api_budget_start(&b, "dashsim_search_json_within", max_seconds, is_cancelled, ctx, &err) != SIM_OK)
        return api_fail(&err, error);
    return search_json("dashsim_search_json_within", request_json, &b.budget, result_json, error);
}

/* dashsim_shape_json: the shape ranking (`sim --seqlen S ... --json`, one shape) as a library call. The
 * request's keys are the shape front end's options; the shape is costed through the one costing path, every
 * policy for its mask (or the one named) is run on it and ranked (sim/run/shape.h). Invariant: the same request
 * gives the bytes `sim --seqlen S [options] --json` prints. */
#include "dashsim/dashsim.h"

#include <cjson/cJSON.h>
#include <glib.h>
#include <string.h>

#include "api_util.h"
#include "input.h"
#include "shape.h"
#include "shape_out.h"

typedef struct {
    ShapeQuery q;
    AttnJob job;          /* heads, mask, reduction, dQ buffers, policy, memory cap */
    bool has_seqlen;
} ShapeRequest;

static const ApiIntKey int_keys[] = {
    { "seqlen", 1, 1 << 24 }, { "seqlen_k", 1, 1 << 24 }, { "head_dim", 1, 1024 }, { "heads", 1, SIM_JOB_MAX_COUNT },
    { "batch", 1, SIM_JOB_MAX_COUNT }, { "kv_heads", 1, SIM_JOB_MAX_COUNT }, { "dq_buffers", 1, 64 },
    { "max_memory_mb", 1, INT64_C(1) << 40 },
};

static void set_int(ShapeRequest *r, int k, int64_t v)
{
    int64_t *to[] = { &r->q.seqlen, &r->q.seqlen_k, &r->q.head_dim, NULL, &r->q.batch, &r->q.kv_heads, NULL,
                      &r->job.max_memory_mb };
    if (k == 3)
        r->job.wl.heads = (int)v;
    else if (k == 6)
        r->job.costs.dq_buffers = (int)v;
    else
        *to[k] = v;
    r->has_seqlen |= k == 0;
}

/* A string member: mask, hardware, profile, kernel, policy, model or reduce. */
static SimStatus set_text(ShapeRequest *r, const char *key, const char *v, SimError *err)
{
    if (!strcmp(key, "mask")) {
        r->q.token_mask = strcmp(v, "full") && strcmp(v, "causal") ? v : NULL;
        r->job.wl.mask = strcmp(v, "causal") == 0 ? MASK_CAUSAL : MASK_FULL;
    } else if (!strcmp(key, "hardware"))
        r->q.preset = v;
    else if (!strcmp(key, "profile"))
        r->q.profile_name = v;
    else if (!strcmp(key, "kernel"))
        r->q.kernel_name = v;
    else if (!strcmp(key, "policy"))
        r->job.policy = v;
    else if (!strcmp(key, "model") && (!strcmp(v, "profile") || !strcmp(v, "paper")))
        r->q.is_paper = strcmp(v, "paper") == 0;
    else if (!strcmp(key, "reduce") && (!strcmp(v, "serial") || !strcmp(v, "async")))
        r->job.costs.reduce = strcmp(v, "serial") ? REDUCE_ASYNC : REDUCE_SERIAL;
    else
        return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be %s, got '%.64s'", key,
                             !strcmp(key, "model") ? "profile or paper" : "serial or async", v);
    return SIM_OK;
}

static SimStatus parse_member(ShapeRequest *r, const cJSON *item, SimError *err)
{
    static const char *const text_keys[] = { "mask", "hardware", "profile", "kernel", "policy", "model", "reduce" };
    const char *key = item->string;
    for (size_t i = 0; i < G_N_ELEMENTS(text_keys); i++)
        if (!strcmp(key, text_keys[i]))
            return cJSON_IsString(item) ? set_text(r, key, item->valuestring, err)
                                        : sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be a string", key);
    int64_t v;
    int k = api_json_int_member(int_keys, (int)G_N_ELEMENTS(int_keys), item, &v, err);
    if (k >= 0)
        set_int(r, k, v);
    if (k != -1)
        return err->status;
    return sim_error_set(err, SIM_ERR_INPUT, "request/%.64s: unknown key (see docs/api.md, dashsim_shape_json)", key);
}

/* The request as the command's options: the shape front end's defaults (policy all, async reduction, the
 * kernel profile's dQ buffers), then the members. */
static SimStatus parse_request(const cJSON *root, ShapeRequest *r, SimError *err)
{
    *r = (ShapeRequest){ .job = sim_job_default() };
    r->job.policy = "all";
    r->job.costs.reduce = REDUCE_ASYNC;
    r->job.costs.dq_buffers = 0;
    r->job.max_memory_mb = MIN(r->job.max_memory_mb, sim_job_physical_memory_mb());
    if (!cJSON_IsObject(root))
        return sim_error_set(err, SIM_ERR_INPUT, "request: must be a JSON object of the shape's options");
    for (const cJSON *item = root->child; item; item = item->next)
        if (parse_member(r, item, err) != SIM_OK)
            return err->status;
    if (!r->has_seqlen)
        return sim_error_set(err, SIM_ERR_INPUT, "request/seqlen: missing (tokens per sequence)");
    if (r->q.kv_heads && (r->q.kv_heads > r->job.wl.heads || r->job.wl.heads % r->q.kv_heads != 0))
        return sim_error_set(err, SIM_ERR_INPUT, "request/kv_heads: %" G_GINT64_FORMAT " must divide heads %d",
                             r->q.kv_heads, r->job.wl.heads);
    sim_shape_query_resolve(&r->q);
    return SIM_OK;
}

static void rank(const ShapeRequest *r, char **result_json, SimError *err)
{
    ShapeProfiles pf;
    ShapeRanking *ranking = g_new0(ShapeRanking, 1); /* about 40 KB: the absent reasons */
    if (sim_shape_profiles_load(&r->q, &pf, err) == SIM_OK &&
        sim_shape_rank_query(&r->q, &pf, &r->job, ranking, NULL, NULL, err) == SIM_OK) {
        ApiText t;
        api_text_open(&t);
        sim_shape_write_json(t.f, &r->q, ranking, pf.hw ? pf.hw_path : NULL, pf.kernel ? pf.kernel_path : NULL);
        fputc('\n', t.f);
        *result_json = api_text_take(&t);
    }
    sim_shape_ranking_clear(ranking);
    g_free(ranking);
    sim_shape_profiles_clear(&pf);
}

DashsimStatus dashsim_shape_json(const char *request_json, char **result_json, char **error)
{
    SimError err = { 0 };
    cJSON *root = NULL;
    if (api_json_begin("dashsim_shape_json", request_json, result_json, error, &root, &err) != SIM_OK)
        return api_fail(&err, error);
    ShapeRequest r;
    sim_input_call_begin(); /* the overwrite rule is this call's (input.h) */
    if (parse_request(root, &r, &err) == SIM_OK)
        rank(&r, result_json, &err);
    sim_input_call_end();
    cJSON_Delete(root);
    return err.status ? api_fail(&err, error) : DASHSIM_OK;
}

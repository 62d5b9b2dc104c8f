/* dashsim_pipeline_json: `sim pipeline --json` (a Cube/Vector preload pipeline, AMLA appendix B) as a library
 * call. Keys: the command's options for one run (policy, c_ns, v_ns, v_last_ns as arrays of integer ns, blocks,
 * cube, vector, ring, preload, order, min_preload, explain, max_memory_mb), with its defaults and checks.
 * Invariant: the bytes `sim pipeline ... --json` prints; a deadlocking schedule is an error, as there. */
#include "dashsim/dashsim.h"

#include <glib.h>
#include <string.h>

#include "api_util.h"
#include "pipeline.h"
#include "pipeline_out.h"

#define MAX_STAGE_NS INT64_C(1000000000000)

typedef struct {
    PipeRequest rq;
    bool has_v, is_explain;
    int n_v, n_v_last;
} PipeApiRequest;

/* An array of 1..PIPE_MAX_PAIRS integer ns. */
static SimStatus parse_list(const cJSON *item, int64_t *out, int *count, SimError *err)
{
    int n = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : 0;
    if (n < 1 || n > PIPE_MAX_PAIRS)
        return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be an array of 1 to %d integer ns", item->string,
                             PIPE_MAX_PAIRS);
    for (int i = 0; i < n; i++)
        if (api_json_int(cJSON_GetArrayItem(item, i), 0, MAX_STAGE_NS, &out[i]) != SIM_OK)
            return sim_error_set(err, SIM_ERR_INPUT, "request/%s/%d: must be an integer from 0 to %" G_GINT64_FORMAT,
                                 item->string, i, MAX_STAGE_NS);
    *count = n;
    return SIM_OK;
}

/* An integer member in lo..hi into *out. */
static SimStatus parse_int(const cJSON *item, int64_t lo, int64_t hi, int64_t *out, SimError *err)
{
    if (api_json_int(item, lo, hi, out) != SIM_OK)
        return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be an integer in %" G_GINT64_FORMAT "..%"
                             G_GINT64_FORMAT, item->string, lo, hi);
    return SIM_OK;
}

static SimStatus parse_flag(const cJSON *item, bool *out, SimError *err)
{
    if (!cJSON_IsBool(item))
        return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be true or false", item->string);
    *out = cJSON_IsTrue(item);
    return SIM_OK;
}

static SimStatus parse_member(PipeApiRequest *q, const cJSON *item, SimError *err)
{
    const char *key = item->string;
    PipeWorkload *wl = &q->rq.wl;
    int64_t v = 0;
    SimStatus s;
    if (!strcmp(key, "policy") || !strcmp(key, "order")) {
        if (!cJSON_IsString(item))
            return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be a string", key);
        if (!strcmp(key, "order"))
            return q->rq.cycle.order_text = item->valuestring, SIM_OK;
        if (!(q->rq.policy = pipe_policy_find(item->valuestring)))
            return sim_error_set(err, SIM_ERR_INPUT, "request/policy: unknown pipeline policy '%.64s'", item->valuestring);
        return SIM_OK;
    }
    if (!strcmp(key, "c_ns")) return parse_list(item, wl->c_ns, &wl->n_pairs, err);
    if (!strcmp(key, "v_ns")) return q->has_v = true, parse_list(item, wl->v_ns, &q->n_v, err);
    if (!strcmp(key, "v_last_ns")) return wl->has_v_last = true, parse_list(item, wl->v_last_ns, &q->n_v_last, err);
    if (!strcmp(key, "blocks")) return parse_int(item, 1, PIPE_MAX_BLOCKS, &wl->blocks, err);
    if (!strcmp(key, "min_preload")) return parse_flag(item, &q->rq.has_min_preload, err);
    if (!strcmp(key, "explain")) return parse_flag(item, &q->is_explain, err);
    if (!strcmp(key, "max_memory_mb")) return parse_int(item, 1, INT64_C(1) << 40, &q->rq.max_memory_mb, err);
    if (!strcmp(key, "cube") || !strcmp(key, "vector")) {
        if ((s = parse_int(item, 1, PIPE_MAX_ENGINES, &v, err)) == SIM_OK)
            *(key[0] == 'c' ? &wl->n_cube : &wl->n_vector) = (int)v;
        return s;
    }
    if (!strcmp(key, "ring") || !strcmp(key, "preload")) {
        if ((s = parse_int(item, 0, 1024, &v, err)) == SIM_OK)
            *(key[0] == 'r' ? &wl->ring_slots : &q->rq.cycle.preload) = (int)v;
        return s;
    }
    return sim_error_set(err, SIM_ERR_INPUT, "request/%.64s: unknown key (see docs/api.md, dashsim_pipeline_json)", key);
}

/* The request as the command's options, then the command's checks of list lengths and the whole request. */
static SimStatus parse_request(const cJSON *root, PipeApiRequest *q, SimError *err)
{
    *q = (PipeApiRequest){ .rq = { .policy = pipe_policy_find("preload"), .cycle = { .preload = -1 },
                                   .wl = { .n_pairs = 2, .c_ns = { 1000, 800 }, .v_ns = { 600, 400 }, .blocks = 8,
                                           .n_cube = 1, .n_vector = 1 }, .max_memory_mb = 4096 } };
    if (!cJSON_IsObject(root))
        return sim_error_set(err, SIM_ERR_INPUT, "request: must be a JSON object of the pipeline's options");
    for (const cJSON *item = root->child; item; item = item->next)
        if (parse_member(q, item, err) != SIM_OK)
            return err->status;
    int n = q->rq.wl.n_pairs;
    if (q->has_v && q->n_v != n)
        return sim_error_set(err, SIM_ERR_INPUT, "request/v_ns: has %d entries but c_ns has %d", q->n_v, n);
    if (q->rq.wl.has_v_last && q->n_v_last != n)
        return sim_error_set(err, SIM_ERR_INPUT, "request/v_last_ns: has %d entries but c_ns has %d", q->n_v_last, n);
    if (!q->has_v && n != 2)
        return sim_error_set(err, SIM_ERR_INPUT, "request/c_ns: has %d entries; give v_ns with as many", n);
    return pipe_request_check(&q->rq, err);
}

DashsimStatus dashsim_pipeline_json(const char *request_json, char **result_json, char **error)
{
    SimError err = { 0 };
    cJSON *root = NULL;
    PipeApiRequest q;
    PipeJob job;
    if (api_json_begin("dashsim_pipeline_json", request_json, result_json, error, &root, &err) == SIM_OK &&
        parse_request(root, &q, &err) == SIM_OK && pipe_job_run(&q.rq, &job, &err) == SIM_OK) {
        if (job.result.is_deadlock)
            sim_error_set(&err, SIM_ERR_SCHEDULE, "%s", job.result.deadlock_msg);
        else {
            ApiText t;
            api_text_open(&t);
            sim_pipeline_write_json(t.f, &q.rq, &job, q.is_explain);
            *result_json = api_text_take(&t);
        }
        pipe_job_clear(&job);
    }
    cJSON_Delete(root);
    return err.status ? api_fail(&err, error) : DASHSIM_OK;
}

/* dashsim_replay_json: `sim --plan FILE --json` as a library call. The request names the plan file and may
 * override its model costs (c_ns, r_ns, latency_ns, reduce, dq_buffers) as the command's flags do; the plan
 * goes through the same reader and plan_check as the CLI's and the GPU executor's. Invariant: the same
 * request gives the bytes `sim --plan FILE [flags] --json` prints. */
#include "dashsim/dashsim.h"

#include <cjson/cJSON.h>
#include <glib.h>
#include <string.h>

#include "api_util.h"
#include "attention_out.h"
#include "input.h"
#include "job.h"
#include "plan_io.h"

typedef struct {
    const char *plan;      /* the plan file (required) */
    AttnCosts costs;       /* the request's costs, where given */
    unsigned given;        /* bit per cost key given (they override the plan file's) */
    int64_t max_memory_mb;
} ReplayRequest;

/* The integer keys in the order of the given bits, with the command's ranges (--c, --r, --latency, ...). */
static const ApiIntKey int_keys[] = {
    { "c_ns", 0, SIM_JOB_MAX_COST_NS }, { "r_ns", 0, SIM_JOB_MAX_COST_NS }, { "latency_ns", 0, SIM_JOB_MAX_LATENCY_NS },
    { "dq_buffers", 1, 64 }, { "max_memory_mb", 1, INT64_C(1) << 40 },
};
enum { GIVEN_C = 1, GIVEN_R = 2, GIVEN_LAT = 4, GIVEN_BUFS = 8, GIVEN_REDUCE = 32 };

static void set_int(ReplayRequest *q, int k, int64_t v)
{
    int64_t *to[] = { &q->costs.c_ns, &q->costs.r_ns, &q->costs.latency_ns, NULL, &q->max_memory_mb };
    if (k == 3)
        q->costs.dq_buffers = (int)v;
    else
        *to[k] = v;
    q->given |= 1u << k;
}

/* One member of the request into q; a sentence naming it on an error. */
static SimStatus parse_member(ReplayRequest *q, const cJSON *item, SimError *err)
{
    const char *key = item->string;
    if (!strcmp(key, "plan") || !strcmp(key, "reduce")) {
        if (!cJSON_IsString(item))
            return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be a string", key);
        if (!strcmp(key, "plan"))
            return q->plan = item->valuestring, SIM_OK;
        if (strcmp(item->valuestring, "serial") && strcmp(item->valuestring, "async"))
            return sim_error_set(err, SIM_ERR_INPUT, "request/reduce: must be serial or async, got '%.64s'",
                                 item->valuestring);
        q->costs.reduce = strcmp(item->valuestring, "serial") ? REDUCE_ASYNC : REDUCE_SERIAL;
        q->given |= GIVEN_REDUCE;
        return SIM_OK;
    }
    int64_t v;
    int k = api_json_int_member(int_keys, (int)G_N_ELEMENTS(int_keys), item, &v, err);
    if (k >= 0)
        set_int(q, k, v);
    if (k != -1)
        return err->status;
    return sim_error_set(err, SIM_ERR_INPUT, "request/%.64s: unknown key (see docs/api.md, dashsim_replay_json)", key);
}

static SimStatus parse_request(const cJSON *root, ReplayRequest *q, SimError *err)
{
    *q = (ReplayRequest){ .max_memory_mb = MIN(4096, sim_job_physical_memory_mb()) };
    if (!cJSON_IsObject(root))
        return sim_error_set(err, SIM_ERR_INPUT, "request: must be a JSON object: the plan and its cost overrides");
    for (const cJSON *item = root->child; item; item = item->next)
        if (parse_member(q, item, err) != SIM_OK)
            return err->status;
    if (!q->plan)
        return sim_error_set(err, SIM_ERR_INPUT, "request/plan: missing (a plan file, docs/plan-format.md)");
    return SIM_OK;
}

/* The plan's job: its workload and policy, the file's costs where the request gives none (as sim --plan). */
static void plan_job(const ReplayRequest *q, const Plan *plan, const AttnCosts *file, AttnJob *job)
{
    *job = sim_job_default();
    job->max_memory_mb = q->max_memory_mb;
    AttnCosts *c = &job->costs;
    c->c_ns = q->given & GIVEN_C ? q->costs.c_ns : file->c_ns;
    c->r_ns = q->given & GIVEN_R ? q->costs.r_ns : file->r_ns;
    c->latency_ns = q->given & GIVEN_LAT ? q->costs.latency_ns : file->latency_ns;
    c->reduce = q->given & GIVEN_REDUCE ? q->costs.reduce : file->reduce;
    c->dq_buffers = q->given & GIVEN_BUFS ? q->costs.dq_buffers : file->dq_buffers;
    job->plan = plan;
    job->wl = plan->wl;
    job->policy = plan->policy;
}

static void replay(const ReplayRequest *q, char **result_json, SimError *err)
{
    Plan *plan = NULL;
    AttnCosts file;
    uint64_t hash;
    AttnJob job;
    AttnResult r = { 0 };
    if (sim_plan_read(q->plan, q->max_memory_mb << 20, &plan, &file, &hash, err) != SIM_OK)
        return;
    plan_job(q, plan, &file, &job);
    if (sim_job_run(&job, &r, err) == SIM_OK) {
        AttnReport rep = { .policy = job.policy, .wl = &job.wl, .costs = &job.costs, .analysis = job.analysis,
                           .mask = job.wl.mask == MASK_BLOCK ? "block" : job.wl.mask == MASK_FULL ? "full" : "causal",
                           .tasks = r.tasks, .a = &r.a, .has_closed_form = r.has_closed_form,
                           .is_closed_form_exact = r.is_closed_form_exact, .closed_form_ns = r.closed_form_ns };
        ApiText t;
        api_text_open(&t);
        sim_attention_write_json(t.f, &rep);
        *result_json = api_text_take(&t);
    }
    sim_job_result_clear(&r);
    plan_free(plan);
}

DashsimStatus dashsim_replay_json(const char *request_json, char **result_json, char **error)
{
    SimError err = { 0 };
    cJSON *root = NULL;
    if (api_json_begin("dashsim_replay_json", request_json, result_json, error, &root, &err) != SIM_OK)
        return api_fail(&err, error);
    ReplayRequest q;
    sim_input_call_begin(); /* the overwrite rule is this call's (input.h) */
    if (parse_request(root, &q, &err) == SIM_OK)
        replay(&q, result_json, &err);
    sim_input_call_end();
    cJSON_Delete(root);
    return err.status ? api_fail(&err, error) : DASHSIM_OK;
}

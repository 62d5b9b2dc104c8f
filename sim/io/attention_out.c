/* `sim --json` and dashsim_replay_json's one JSON object: the job's workload, costs, makespan, critical path,
 * closed form and analysis, in one key order. A writer only. Invariant: the same report gives the same bytes;
 * integers are written as their decimal digits (a double would print 2e+16). */
#include "attention_out.h"

#include <cjson/cJSON.h>
#include <dashsim/version.h>
#include <inttypes.h>

static void add_int(cJSON *j, const char *key, int64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, v);
    cJSON_AddRawToObject(j, key, text);
}

static void add_workload(cJSON *j, const AttnReport *r)
{
    cJSON_AddStringToObject(j, "dashsim_version", DASHSIM_VERSION);
    cJSON_AddStringToObject(j, "policy", r->policy);
    add_int(j, "n", r->wl->n_sm);
    add_int(j, "heads", r->wl->heads);
    add_int(j, "kv_tiles", r->wl->kv_tiles);
    add_int(j, "q_tiles", r->wl->q_tiles);
    cJSON_AddStringToObject(j, "mask", r->mask);
    cJSON_AddStringToObject(j, "reduce", r->costs->reduce == REDUCE_SERIAL ? "serial" : "async");
    add_int(j, "c_ns", r->costs->c_ns);
    add_int(j, "r_ns", r->costs->r_ns);
    add_int(j, "latency_ns", r->costs->latency_ns);
    add_int(j, "tile_ratio", r->wl->tile_ratio);
    add_int(j, "head_swizzle", r->wl->head_swizzle);
    add_int(j, "dq_buffers", r->costs->dq_buffers);
}

void sim_attention_write_json(FILE *f, const AttnReport *r)
{
    cJSON *j = cJSON_CreateObject();
    add_workload(j, r);
    add_int(j, "tasks", r->tasks);
    add_int(j, "makespan_ns", r->a->makespan_ns);
    bool has_dag = r->analysis != SIM_ANALYSIS_NONE;
    if (has_dag)
        add_int(j, "critical_path_ns", r->a->critical_path_ns);
    else
        cJSON_AddNullToObject(j, "critical_path_ns");
    if (r->has_closed_form)
        add_int(j, "closed_form_ns", r->closed_form_ns);
    else
        cJSON_AddNullToObject(j, "closed_form_ns");
    cJSON_AddBoolToObject(j, "closed_form_exact", r->has_closed_form && r->is_closed_form_exact);
    if (has_dag) { /* --analysis none: nothing past the makespan was computed */
        add_int(j, "lemma1_violations", r->a->lemma1_violations);
        cJSON_AddNumberToObject(j, "busy_fraction", r->a->busy_fraction);
        add_int(j, "bubble_ns", r->a->bubble_ns);
        cJSON *b = cJSON_AddObjectToObject(j, "critical_path_breakdown_ns");
        add_int(b, "compute", r->a->breakdown_ns[BREAK_COMPUTE]);
        add_int(b, "reduce", r->a->breakdown_ns[BREAK_REDUCE]);
        add_int(b, "wait", r->a->breakdown_ns[BREAK_WAIT]);
        add_int(b, "latency", r->a->breakdown_ns[BREAK_LATENCY]);
    }
    char *s = cJSON_PrintUnformatted(j);
    fprintf(f, "%s\n", s);
    cJSON_free(s);
    cJSON_Delete(j);
}

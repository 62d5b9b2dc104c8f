/* `sim search --json` and dashsim_search_json's one JSON object: the search's workload, costs, result,
 * bounds, baselines and exact step, in one key order. A writer only: every number comes from
 * sim/model/search/search.h. Invariant: the same inputs give the same bytes. */
#include "search_out.h"

#include <cjson/cJSON.h>
#include <dashsim/version.h>
#include <glib.h>

void sim_search_write_json(FILE *f, const BlockMask *m, const Workload *wl, const AttnCosts *costs, int32_t gqa_group,
                           const SearchResult *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "dashsim_version", DASHSIM_VERSION);
    cJSON_AddStringToObject(j, "mask", m->spec);
    cJSON_AddNumberToObject(j, "n", wl->n_sm);
    cJSON_AddNumberToObject(j, "heads", wl->heads);
    cJSON_AddNumberToObject(j, "gqa", MAX(1, gqa_group));
    cJSON_AddNumberToObject(j, "kv_tiles", m->kv_tiles);
    cJSON_AddNumberToObject(j, "q_tiles", m->q_tiles);
    cJSON_AddNumberToObject(j, "tasks", (double)r->plan->task_count);
    cJSON_AddStringToObject(j, "reduce", costs->reduce == REDUCE_SERIAL ? "serial" : "async");
    cJSON_AddNumberToObject(j, "c_ns", (double)costs->c_ns);
    cJSON_AddNumberToObject(j, "r_ns", (double)costs->r_ns);
    cJSON_AddNumberToObject(j, "latency_ns", (double)costs->latency_ns);
    cJSON_AddNumberToObject(j, "makespan_ns", (double)r->makespan_ns);
    cJSON_AddStringToObject(j, "found_by", r->origin);
    const SearchBounds *bd = &r->bounds;
    cJSON_AddNumberToObject(j, "lower_bound_ns", (double)bd->lower_bound_ns); /* any plan plan_check accepts */
    cJSON_AddNumberToObject(j, "gap", (double)r->makespan_ns / (double)bd->lower_bound_ns - 1);
    cJSON_AddNumberToObject(j, "space_bound_ns", (double)bd->space_bound_ns); /* one CTA per (KV head, KV tile) */
    cJSON_AddNumberToObject(j, "space_gap", (double)r->makespan_ns / (double)bd->space_bound_ns - 1);
    cJSON *b = cJSON_AddObjectToObject(j, "bounds_ns");
    cJSON_AddNumberToObject(b, "work", (double)bd->work_ns);
    cJSON_AddNumberToObject(b, "row", (double)bd->row_ns);
    cJSON_AddNumberToObject(b, "chain", (double)bd->chain_ns);
    cJSON_AddNumberToObject(b, "packing", (double)bd->packing_ns);
    cJSON *base = cJSON_AddObjectToObject(j, "baselines"); /* null: that order deadlocks */
    for (int i = 0; i < r->baseline_count; i++)
        if (r->baselines[i].makespan_ns == INT64_MAX)
            cJSON_AddNullToObject(base, r->baselines[i].name);
        else
            cJSON_AddNumberToObject(base, r->baselines[i].name, (double)r->baselines[i].makespan_ns);
    if (r->has_exact)
        cJSON_AddNumberToObject(j, "exact_ns", (double)r->exact_ns);
    else
        cJSON_AddNullToObject(j, "exact_ns");
    cJSON_AddNumberToObject(j, "exact_nodes", (double)r->exact_nodes);
    cJSON_AddStringToObject(j, "exact_stop", sim_search_exact_stop_name(r->exact_stop));
    cJSON_AddNumberToObject(j, "evaluations", (double)r->evaluations);
    char *s = cJSON_PrintUnformatted(j);
    fprintf(f, "%s\n", s);
    cJSON_free(s);
    cJSON_Delete(j);
}


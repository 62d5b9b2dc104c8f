/* `sim --seqlen S ... --json` and dashsim_shape_json's object: the shape, where its costs came from, every
 * ranked policy's time, the ones left out, the winner, its margins and the tie. A writer only: every number
 * comes from the ranking (shape.h). Invariant: the same ranking gives the same bytes. */
#include "shape_out.h"

#include <cjson/cJSON.h>
#include <dashsim/version.h>
#include <inttypes.h>
#include <math.h>

const char *sim_shape_mask_name(const ShapeQuery *q, const ShapeRanking *r)
{
    return q->token_mask ? q->token_mask : r->job.wl.mask == MASK_FULL ? "full" : "causal";
}

/* Only a kernel profile costs GQA (the dK/dV group sums in its fixed costs, its KV write under GQA); the task
 * graph is the same per query head, so the FLOPs cost model has nothing to change. */
bool sim_shape_gqa_note(const ShapeQuery *q, const ShapeRanking *r, bool has_kernel, int64_t *kv_heads, char *note,
                        size_t len)
{
    int64_t heads = r->job.wl.heads / q->batch;
    *kv_heads = q->kv_heads ? q->kv_heads : heads;
    if (*kv_heads == heads) {
        snprintf(note, len, "none: kv_heads = heads = %" PRId64, heads);
        return false;
    }
    if (has_kernel)
        snprintf(note, len, "kv_heads %" PRId64 " of %" PRId64 " heads, costed by the kernel profile: the dK/dV group "
                 "sums in the launch's fixed costs and the KV write under GQA", *kv_heads, heads);
    else
        snprintf(note, len, "kv_heads %" PRId64 " of %" PRId64 " heads, not costed: the FLOPs cost model has no term "
                 "for the dK/dV group sums and the task graph is the same per query head (--kernel costs them)",
                 *kv_heads, heads);
    return has_kernel;
}

static cJSON *report_json(const ShapeQuery *so, const ShapeRanking *r, const char *profile, const char *kernel)
{
    const SimCost *c = &r->rep.cost;
    const AttnJob *job = &r->job;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "dashsim_version", DASHSIM_VERSION);
    cJSON *sh = cJSON_AddObjectToObject(j, "shape");
    cJSON_AddNumberToObject(sh, "seqlen", (double)so->seqlen);
    cJSON_AddNumberToObject(sh, "head_dim", (double)so->head_dim);
    cJSON_AddNumberToObject(sh, "batch", (double)so->batch);
    cJSON_AddNumberToObject(sh, "block_m", c->block_m);
    cJSON_AddNumberToObject(sh, "block_n", c->block_n);
    cJSON_AddNumberToObject(sh, "flops", c->bwd_flops);
    cJSON_AddStringToObject(sh, "hardware", so->preset);
    if (profile)
        cJSON_AddStringToObject(sh, "profile", profile);
    else
        cJSON_AddNullToObject(sh, "profile");
    if (kernel)
        cJSON_AddStringToObject(sh, "kernel", kernel);
    else
        cJSON_AddNullToObject(sh, "kernel");
    cJSON_AddStringToObject(sh, "compute_from", r->rep.compute_from);
    cJSON_AddStringToObject(sh, "reduce_from", r->rep.reduce_from);
    cJSON_AddStringToObject(sh, "model", "model numbers, not measurements");
    cJSON_AddStringToObject(j, "mask", sim_shape_mask_name(so, r));
    cJSON_AddNumberToObject(sh, "seqlen_k", (double)so->seqlen_k);
    cJSON_AddStringToObject(j, "reduce", job->costs.reduce == REDUCE_ASYNC ? "async" : "serial");
    cJSON_AddNumberToObject(j, "n", job->wl.n_sm);
    cJSON_AddNumberToObject(j, "heads", job->wl.heads);
    char gqa[256];
    int64_t kv_heads;
    cJSON_AddBoolToObject(j, "gqa_costed", sim_shape_gqa_note(so, r, kernel != NULL, &kv_heads, gqa, sizeof gqa));
    cJSON_AddNumberToObject(j, "heads_per_sample", (double)(job->wl.heads / so->batch));
    cJSON_AddNumberToObject(j, "kv_heads", (double)kv_heads);
    cJSON_AddStringToObject(j, "gqa", gqa);
    cJSON_AddNumberToObject(j, "kv_tiles", job->wl.kv_tiles);
    cJSON_AddNumberToObject(j, "q_tiles", job->wl.q_tiles);
    if (so->token_mask)
        cJSON_AddNumberToObject(j, "kept_tiles", r->kept_tiles);
    cJSON_AddNumberToObject(j, "tile_ratio", job->wl.tile_ratio);
    cJSON_AddNumberToObject(j, "head_swizzle", job->wl.head_swizzle);
    cJSON_AddNumberToObject(j, "dq_buffers", job->costs.dq_buffers);
    cJSON_AddNumberToObject(j, "c_ns", (double)job->costs.c_ns);
    cJSON_AddNumberToObject(j, "r_ns", (double)job->costs.r_ns);
    cJSON_AddNumberToObject(j, "latency_ns", (double)job->costs.latency_ns);
    cJSON_AddNumberToObject(j, "fixed_ns", (double)r->rep.fixed_ns);
    cJSON *a = cJSON_AddArrayToObject(j, "policies");
    for (int i = 0; i < r->n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", r->rows[i].policy);
        cJSON_AddNumberToObject(e, "makespan_ns", (double)r->rows[i].makespan_ns);
        cJSON_AddNumberToObject(e, "time_ns", (double)r->rows[i].total_ns);
        cJSON_AddNumberToObject(e, "tflops", r->rows[i].tflops);
        if (r->rows[i].clock_mhz > 0) /* only where the kernel profile has a clock: other outputs stay byte for byte */
            cJSON_AddNumberToObject(e, "clock_mhz", round(r->rows[i].clock_mhz * 10) / 10);
        if (r->fa3 >= 0)
            cJSON_AddNumberToObject(e, "speedup", (double)r->rows[r->fa3].total_ns / r->rows[i].total_ns);
        cJSON_AddItemToArray(a, e);
    }
    cJSON *left = cJSON_AddArrayToObject(j, "not_ranked");
    for (int i = 0; i < r->absent_count; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", r->absent[i].policy);
        cJSON_AddStringToObject(e, "reason", r->absent[i].reason);
        cJSON_AddItemToArray(left, e);
    }
    cJSON_AddStringToObject(j, "winner", r->rows[r->win].policy);
    if (r->fa3 >= 0)
        cJSON_AddNumberToObject(j, "margin_over_fa3", sim_shape_margin(r, r->fa3));
    if (r->spt >= 0)
        cJSON_AddNumberToObject(j, "margin_over_fa3_spt", sim_shape_margin(r, r->spt));
    cJSON_AddNumberToObject(j, "validated_error", r->error);
    cJSON_AddStringToObject(j, "validated_error_from", r->error_from);
    cJSON_AddBoolToObject(j, "is_tie", r->tie_count > 1);
    cJSON *tie = cJSON_AddArrayToObject(j, "tie");
    for (int t = 0; r->tie_count > 1 && t < r->tie_count; t++)
        cJSON_AddItemToArray(tie, cJSON_CreateString(r->rows[r->tied[t]].policy));
    return j;
}

void sim_shape_write_json(FILE *f, const ShapeQuery *q, const ShapeRanking *r, const char *profile, const char *kernel)
{
    cJSON *j = report_json(q, r, profile, kernel);
    char *text = cJSON_PrintUnformatted(j);
    fputs(text, f);
    cJSON_free(text);
    cJSON_Delete(j);
}

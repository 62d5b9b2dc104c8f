/* Loading a measured trace: every field is checked, with its JSON path in the error sentence, before
 * the validator trusts it. Columns are looked up by name, so extra columns are ignored. */
#include "trace_in.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "json_file.h"

#define TRACE_MAX_BYTES (256L << 20)

static const char *const column_names[] = { "cta", "slot", "smid", "head", "kv", "q", "rank",
                                            "c_start", "c_end", "r_ready", "r_start", "r_end" };
enum { N_COLUMNS = 12 };

static SimStatus meta_int(const cJSON *meta, const char *path, const char *key, int lo, int hi, int dflt,
                          int *out, SimError *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (!v && dflt >= 0) {
        *out = dflt;
        return SIM_OK;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int)v->valuedouble || v->valueint < lo || v->valueint > hi)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/%s: must be an integer from %d to %d", path, key,
                             lo, hi);
    *out = v->valueint;
    return SIM_OK;
}

static SimStatus meta_string(const cJSON *meta, const char *path, const char *key, const char *a,
                             const char *b, int *which, char **out, SimError *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (!cJSON_IsString(v) || (a && strcmp(v->valuestring, a) && strcmp(v->valuestring, b)))
        return a ? sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/%s: must be \"%s\" or \"%s\"", path, key, a, b)
                 : sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/%s: must be a string", path, key);
    if (which)
        *which = strcmp(v->valuestring, a) != 0;
    if (out)
        *out = g_strdup(v->valuestring);
    return SIM_OK;
}

/* An optional short string field into out (left "" when absent). */
static SimStatus meta_word(const cJSON *meta, const char *path, const char *key, char *out, size_t len, SimError *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (v && (!cJSON_IsString(v) || strlen(v->valuestring) >= len))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/%s: must be a string of at most %zu bytes", path,
                             key, len - 1);
    if (v)
        snprintf(out, len, "%s", v->valuestring);
    return SIM_OK;
}

/* The kernel's configuration, for predictions from a hardware profile; every field optional. */
static SimStatus load_kernel(Trace *t, const cJSON *meta, SimError *err)
{
    TraceKernel *k = &t->kernel;
    const char *p = t->path;
    (void)(meta_int(meta, p, "tile_m", 0, 1024, 0, &k->tile_m, err) || meta_int(meta, p, "head_dim", 0, 1024, 0, &k->head_dim, err) ||
        meta_int(meta, p, "compute_iters", 0, 1 << 24, 0, &k->compute_iters, err) ||
        meta_int(meta, p, "reduce_threads", 0, 1024, 0, &k->reduce_threads, err) ||
        meta_int(meta, p, "persistent", 0, 1, 0, &k->is_persistent, err) ||
        meta_int(meta, p, "sm_clock_mhz_measured", 0, 100000, 0, &k->sm_clock_mhz, err) ||
        meta_word(meta, p, "compute", k->compute, sizeof k->compute, err) ||
        meta_word(meta, p, "reduce_op", k->reduce_op, sizeof k->reduce_op, err));
    return err->status;
}

static SimStatus load_metadata(Trace *t, const cJSON *meta, SimError *err)
{
    const char *p = t->path;
    int is_causal = 0, is_async = 0;
    if (!cJSON_IsObject(meta))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata: missing or not an object", p);
    t->wl.head_swizzle = 1;
    if (meta_string(meta, p, "policy", NULL, NULL, NULL, &t->policy, err) ||
        meta_string(meta, p, "mask", "full", "causal", &is_causal, NULL, err) ||
        meta_string(meta, p, "reduce", "serial", "async", &is_async, NULL, err) ||
        meta_int(meta, p, "n_sm", 1, 100000, -1, &t->wl.n_sm, err) ||
        meta_int(meta, p, "heads", 1, 1000000, -1, &t->wl.heads, err) ||
        meta_int(meta, p, "kv_tiles", 1, 1000000, -1, &t->wl.kv_tiles, err) ||
        meta_int(meta, p, "q_tiles", 1, 1000000, -1, &t->wl.q_tiles, err) ||
        meta_int(meta, p, "tile_ratio", 1, 64, 1, &t->wl.tile_ratio, err) ||
        meta_int(meta, p, "head_swizzle", 1, 1000000, 1, &t->wl.head_swizzle, err) ||
        meta_int(meta, p, "dq_buffers", 1, 64, 1, &t->model.dq_buffers, err))
        return err->status;
    t->wl.mask = is_causal ? MASK_CAUSAL : MASK_FULL;
    t->model.reduce = is_async ? REDUCE_ASYNC : REDUCE_SERIAL;
    if (load_kernel(t, meta, err) != SIM_OK)
        return err->status;
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(meta, "gpu_name");
    const cJSON *compute = cJSON_GetObjectItemCaseSensitive(meta, "compute");
    const cJSON *iters = cJSON_GetObjectItemCaseSensitive(meta, "compute_iters");
    t->gpu_name = g_strdup(cJSON_IsString(gpu) ? gpu->valuestring : "unknown");
    /* a shape and a kernel configuration: traces of one group differ by policy only (or are repeats) */
    t->group = g_strdup_printf("%s %s h%d kv%d q%d s%d %s %s x%d%s%s%s", t->gpu_name, is_causal ? "causal" : "full",
                               t->wl.heads, t->wl.kv_tiles, t->wl.q_tiles, t->wl.tile_ratio,
                               is_async ? "async" : "serial", cJSON_IsString(compute) ? compute->valuestring : "-",
                               cJSON_IsNumber(iters) ? iters->valueint : 0, t->kernel.reduce_op[0] ? " " : "",
                               t->kernel.reduce_op, t->kernel.reduce_threads ? (t->kernel.reduce_threads == 1 ? " t1" :
                               t->kernel.reduce_threads == 32 ? " t32" : " t256") : "");
    return SIM_OK;
}

static SimStatus load_row(Trace *t, const cJSON *row, int64_t i, const int *col, SimError *err)
{
    int64_t v[N_COLUMNS];
    if (!cJSON_IsArray(row))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT ": must be an array", t->path, i);
    for (int k = 0; k < N_COLUMNS; k++) {
        const cJSON *x = cJSON_GetArrayItem(row, col[k]);
        if (!cJSON_IsNumber(x) || x->valuedouble < (k == 1 ? -1 : 0) || x->valuedouble > 9e15)
            return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT "/%d: %s must be a "
                                 "non-negative number", t->path, i, col[k], column_names[k]);
        v[k] = (int64_t)x->valuedouble;
    }
    TraceTask *task = &t->tasks[i];
    *task = (TraceTask){ (int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3], (int32_t)v[4], (int32_t)v[5],
                         (int32_t)v[6], v[7], v[8], v[9], v[10], v[11] };
    if (!(task->c_start <= task->c_end && task->c_end <= task->r_ready && task->r_ready <= task->r_start &&
          task->r_start <= task->r_end))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT ": times must satisfy c_start "
                             "<= c_end <= r_ready <= r_start <= r_end", t->path, i);
    return SIM_OK;
}

static SimStatus load_tasks(Trace *t, const cJSON *columns, const cJSON *tasks, SimError *err)
{
    int col[N_COLUMNS];
    for (int k = 0; k < N_COLUMNS; k++) {
        col[k] = -1;
        for (int i = 0; i < cJSON_GetArraySize(columns); i++) {
            const cJSON *c = cJSON_GetArrayItem(columns, i);
            if (cJSON_IsString(c) && strcmp(c->valuestring, column_names[k]) == 0)
                col[k] = i;
        }
        if (col[k] < 0)
            return sim_error_set(err, SIM_ERR_INPUT, "%s: /columns: has no \"%s\" column", t->path, column_names[k]);
    }
    if (!cJSON_IsArray(tasks) || cJSON_GetArraySize(tasks) == 0)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks: missing or empty", t->path);
    t->task_count = cJSON_GetArraySize(tasks);
    t->tasks = g_new(TraceTask, t->task_count);
    int64_t i = 0;
    for (const cJSON *row = tasks->child; row; row = row->next, i++)
        if (load_row(t, row, i, col, err))
            return err->status;
    return SIM_OK;
}

SimStatus sim_trace_load(const char *path, Trace **out, SimError *err)
{
    *out = NULL;
    cJSON *root;
    if (sim_json_parse_file(path, TRACE_MAX_BYTES, &root, err))
        return err->status;
    Trace *t = g_new0(Trace, 1);
    t->path = g_strdup(path);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, "dashsim-trace") != 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"dashsim-trace\"", path);
    else if (load_metadata(t, cJSON_GetObjectItemCaseSensitive(root, "metadata"), err) == SIM_OK)
        load_tasks(t, cJSON_GetObjectItemCaseSensitive(root, "columns"),
                   cJSON_GetObjectItemCaseSensitive(root, "tasks"), err);
    cJSON_Delete(root);
    if (err->status) {
        sim_trace_free(t);
        return err->status;
    }
    *out = t;
    return SIM_OK;
}

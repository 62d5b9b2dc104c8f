/* Loading a measured trace: every field is checked, with its JSON path in the error sentence, before
 * the validator trusts it: every cell is an integer in its column's range (ids below the metadata's
 * counts) before any cast. Columns are looked up by name, so extra columns are ignored. The file is
 * streamed (sim/io/json_stream.h): the task rows go into a flat array of numbers, never a JSON tree. */
#include "trace_in.h"

#include <glib.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "input.h"
#include "json_stream.h"


static const char *const column_names[] = { "cta", "slot", "smid", "head", "kv", "q", "rank",
                                            "c_start", "c_end", "r_ready", "r_start", "r_end",
                                            "s_end", "k_end", "r_read", "b_entry", "b_exit", "c_cycles" };
/* The phase columns are optional: the first five all or none, c_cycles (last) with them or not */
enum { N_COLUMNS = 12, N_PHASE_COLUMNS = 6 };

static SimStatus meta_int(const cJSON *meta, const char *path, const char *key, int lo, int hi, int dflt,
                          int *out, SimError *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (!v && dflt >= 0) {
        *out = dflt;
        return SIM_OK;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) || v->valuedouble != floor(v->valuedouble))
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

/* "full", "causal" or "block" (a searched or hand-written schedule: its plan file says which pairs). */
static SimStatus meta_mask(const cJSON *meta, const char *path, Mask *mask, SimError *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, "mask");
    const char *s = cJSON_IsString(v) ? v->valuestring : "";
    if (strcmp(s, "full") && strcmp(s, "causal") && strcmp(s, "block"))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/mask: must be \"full\", \"causal\" or \"block\"", path);
    *mask = strcmp(s, "full") == 0 ? MASK_FULL : strcmp(s, "causal") == 0 ? MASK_CAUSAL : MASK_BLOCK;
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
        meta_word(meta, p, "reduce_op", k->reduce_op, sizeof k->reduce_op, err) ||
        meta_word(meta, p, "plan_file", k->plan_file, sizeof k->plan_file, err) ||
        meta_word(meta, p, "plan_hash", k->plan_hash, sizeof k->plan_hash, err) ||
        meta_word(meta, p, "kernel", k->name, sizeof k->name, err) ||
        meta_word(meta, p, "date", k->date, sizeof k->date, err) ||
        meta_int(meta, p, "tile_n", 0, 1024, 0, &k->tile_n, err) ||
        meta_int(meta, p, "seqlen", 0, 1 << 24, 0, &k->seqlen, err) ||
        meta_int(meta, p, "batch", 0, 1 << 20, 0, &k->batch, err) ||
        meta_int(meta, p, "heads_per_batch", 0, 1 << 20, 0, &k->heads_per_batch, err) ||
        meta_int(meta, p, "kv_heads", 0, 1 << 20, 0, &k->kv_heads, err) ||
        meta_int(meta, p, "store_warps", 1, ATTN_STORE_WARPS_MAX, 1, &k->store_warps, err));
    const char *stage[] = { "memset_ns", "pre_ns", "main_ns", "post_ns" };
    int64_t *out[] = { &k->memset_ns, &k->pre_ns, &k->main_ns, &k->post_ns };
    for (int i = 0; i < 4 && !err->status; i++) {
        int v = 0;
        if (meta_int(meta, p, stage[i], 0, 1000000000, 0, &v, err) == SIM_OK)
            *out[i] = v;
    }
    return err->status;
}

static SimStatus load_metadata(Trace *t, const cJSON *meta, SimError *err)
{
    const char *p = t->path;
    int is_async = 0;
    if (!cJSON_IsObject(meta))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata: missing or not an object", p);
    t->wl.head_swizzle = 1;
    if (meta_string(meta, p, "policy", NULL, NULL, NULL, &t->policy, err) ||
        meta_mask(meta, p, &t->wl.mask, err) ||
        meta_string(meta, p, "reduce", "serial", "async", &is_async, NULL, err) ||
        meta_int(meta, p, "n_sm", 1, 100000, -1, &t->wl.n_sm, err) ||
        meta_int(meta, p, "heads", 1, 1000000, -1, &t->wl.heads, err) ||
        meta_int(meta, p, "kv_tiles", 1, 1000000, -1, &t->wl.kv_tiles, err) ||
        meta_int(meta, p, "q_tiles", 1, 1000000, -1, &t->wl.q_tiles, err) ||
        meta_int(meta, p, "tile_ratio", 1, 64, 1, &t->wl.tile_ratio, err) ||
        meta_int(meta, p, "head_swizzle", 1, 1000000, 1, &t->wl.head_swizzle, err) ||
        meta_int(meta, p, "dq_buffers", 1, 64, 1, &t->model.dq_buffers, err))
        return err->status;
    t->model.reduce = is_async ? REDUCE_ASYNC : REDUCE_SERIAL;
    if (load_kernel(t, meta, err) != SIM_OK)
        return err->status;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(meta, "mode");
    if (cJSON_IsString(mode) && strcmp(mode->valuestring, "deterministic") != 0)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/mode: \"%s\": only deterministic runs follow a "
                             "plan's accumulation order (an atomic run is timing data, not a schedule)", p,
                             mode->valuestring);
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(meta, "gpu_name");
    const cJSON *compute = cJSON_GetObjectItemCaseSensitive(meta, "compute");
    const cJSON *iters = cJSON_GetObjectItemCaseSensitive(meta, "compute_iters");
    t->gpu_name = g_strdup(cJSON_IsString(gpu) ? gpu->valuestring : "unknown");
    /* a shape and a kernel configuration: traces of one group differ by policy only (or are repeats) */
    t->group = g_strdup_printf("%s %s h%d kv%d q%d s%d %s %s x%d%s%s%s", t->gpu_name, plan_mask_name(t->wl.mask),
                               t->wl.heads, t->wl.kv_tiles, t->wl.q_tiles, t->wl.tile_ratio,
                               is_async ? "async" : "serial", cJSON_IsString(compute) ? compute->valuestring : "-",
                               cJSON_IsNumber(iters) ? iters->valueint : 0, t->kernel.reduce_op[0] ? " " : "",
                               t->kernel.reduce_op, t->kernel.reduce_threads ? (t->kernel.reduce_threads == 1 ? " t1" :
                               t->kernel.reduce_threads == 32 ? " t32" : " t256") : "");
    if (t->kernel.name[0]) { /* a real kernel: its traces at other head dims are other shapes, not repeats */
        char *g = g_strdup_printf("%s %s d%d", t->group, t->kernel.name, t->kernel.head_dim);
        g_free(t->group);
        t->group = g;
    }
    return SIM_OK;
}

/* Inclusive range of column k, from the trace's metadata: ids index the workload and the SMs. */
static void column_range(const Trace *t, int k, int64_t *lo, int64_t *hi)
{
    /* 1e11 ns (100 s) per stamp: every cost fitted from the trace stays far below an op's limit
     * (SIM_OP_MAX_DURATION_NS) and a model run over the trace's tasks cannot overflow its int64 times. */
    const int64_t max_time = 100000000000LL;
    const int64_t hi_of[N_COLUMNS] = { INT32_MAX - 1, INT32_MAX - 1, t->wl.n_sm - 1, t->wl.heads - 1,
                                       t->wl.kv_tiles - 1, t->wl.q_tiles - 1, t->wl.kv_tiles - 1,
                                       max_time, max_time, max_time, max_time, max_time };
    *lo = k == 1 ? -1 : 0; /* slot: -1 for a non-persistent kernel */
    *hi = k < N_COLUMNS ? hi_of[k] : max_time;
    if (k == N_COLUMNS + 3) /* b_entry: a block enters before its first compute, the trace's time 0 */
        *lo = -max_time;
}

/* The task rows as read: every row's cells in order (a cell that is not a number is NaN), and the
 * first row that is not an array. */
typedef struct {
    double *cells;
    int64_t *ends;       /* one past each row's last cell in cells */
    int64_t cell_count, row_count, cell_capacity, row_capacity; /* grown by doubling, in line (a call a cell
                                                                  * was 6% of validate's instructions) */
    int64_t not_array;   /* index of the first row that is not an array, -1 none */
    bool is_array;       /* /tasks is an array */
} Rows;

/* Cell k of row i, NaN when the row is shorter. */
static double cell(const Rows *rows, int64_t i, int k)
{
    int64_t start = i ? rows->ends[i - 1] : 0, end = rows->ends[i];
    return start + k < end ? rows->cells[start + k] : NAN;
}

static inline void push_cell(Rows *rows, double x)
{
    if (rows->cell_count == rows->cell_capacity)
        rows->cell_capacity = MAX(1024, 2 * rows->cell_capacity),
        rows->cells = g_renew(double, rows->cells, rows->cell_capacity);
    rows->cells[rows->cell_count++] = x;
}

static inline void end_row(Rows *rows)
{
    if (rows->row_count == rows->row_capacity)
        rows->row_capacity = MAX(256, 2 * rows->row_capacity),
        rows->ends = g_renew(int64_t, rows->ends, rows->row_capacity);
    rows->ends[rows->row_count++] = rows->cell_count;
}

/* Every cell is a number, an integer, and in its column's range before it is cast. */
static SimStatus load_row(Trace *t, const Rows *rows, int64_t i, const int *col, SimError *err)
{
    int64_t v[N_COLUMNS + N_PHASE_COLUMNS] = { 0 };
    if (i == rows->not_array)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT ": must be an array", t->path, i);
    for (int k = 0; k < N_COLUMNS + (t->has_phases ? N_PHASE_COLUMNS : 0); k++) {
        if (col[k] < 0) /* c_cycles absent: 0 */
            continue;
        double x = cell(rows, i, col[k]);
        int64_t lo, hi;
        column_range(t, k, &lo, &hi);
        bool is_int = x == floor(x) && x >= (double)lo; /* NaN: not a number */
        if (is_int && x > (double)hi && k >= 2 && k <= 6) /* an id past its count */
            return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT ": %s %.0f is not below %s %"
                                 G_GINT64_FORMAT, t->path, i, column_names[k], x,
                                 (const char *[]){ "n_sm", "heads", "kv_tiles", "q_tiles", "kv_tiles" }[k - 2], hi + 1);
        if (!is_int || !(x <= (double)hi))
            return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT "/%d: %s must be an integer from "
                                 "%" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, t->path, i, col[k], column_names[k], lo, hi);
        v[k] = (int64_t)x;
    }
    TraceTask *task = &t->tasks[i];
    *task = (TraceTask){ (int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3], (int32_t)v[4], (int32_t)v[5],
                         (int32_t)v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15], v[16], v[17] };
    if (!(task->c_start <= task->c_end && task->c_end <= task->r_ready && task->r_ready <= task->r_start &&
          task->r_start <= task->r_end))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT ": times must satisfy c_start "
                             "<= c_end <= r_ready <= r_start <= r_end", t->path, i);
    if (t->has_phases && !(task->c_end <= task->s_end && task->s_end <= task->k_end && task->r_start <= task->r_read &&
                           task->r_read <= task->r_end && task->b_entry <= task->c_start && task->r_end <= task->b_exit))
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT ": phase times must satisfy c_end <= "
                             "s_end <= k_end, r_start <= r_read <= r_end and b_entry <= c_start, r_end <= b_exit",
                             t->path, i);
    return SIM_OK;
}

/* A block mask is known by its tasks alone: the group gets a fingerprint of the set of (head, kv, q) the
 * trace ran (a sum of per-task FNV-1a hashes, so the order of the rows does not matter). Traces of two
 * block masks of one size are then two shapes, not repeats of one. */
static void group_add_mask(Trace *t)
{
    uint64_t sum = 0;
    for (int64_t i = 0; i < t->task_count; i++) {
        const int32_t id[3] = { t->tasks[i].head, t->tasks[i].kv, t->tasks[i].q };
        uint64_t h = 14695981039346656037ull;
        for (size_t b = 0; b < sizeof id; b++)
            h = (h ^ ((const unsigned char *)id)[b]) * 1099511628211ull;
        sum += h;
    }
    char *group = g_strdup_printf("%s mask:%016" G_GINT64_MODIFIER "x", t->group, (guint64)sum);
    g_free(t->group);
    t->group = group;
}

static SimStatus load_tasks(Trace *t, const cJSON *columns, const Rows *rows, SimError *err)
{
    int col[N_COLUMNS + N_PHASE_COLUMNS], phases = 0;
    for (int k = 0; k < N_COLUMNS + N_PHASE_COLUMNS; k++) {
        col[k] = -1;
        for (int i = 0; i < cJSON_GetArraySize(columns); i++) {
            const cJSON *c = cJSON_GetArrayItem(columns, i);
            if (cJSON_IsString(c) && strcmp(c->valuestring, column_names[k]) == 0)
                col[k] = i;
        }
        if (col[k] < 0 && k < N_COLUMNS)
            return sim_error_set(err, SIM_ERR_INPUT, "%s: /columns: has no \"%s\" column", t->path, column_names[k]);
        phases += k >= N_COLUMNS && k < N_COLUMNS + N_PHASE_COLUMNS - 1 && col[k] >= 0;
    }
    if (phases != 0 && phases != N_PHASE_COLUMNS - 1)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /columns: the phase columns s_end, k_end, r_read, b_entry and "
                             "b_exit come all together or not at all", t->path);
    t->has_phases = phases == N_PHASE_COLUMNS - 1;
    if (!rows->is_array || rows->row_count == 0)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks: missing or empty", t->path);
    t->task_count = rows->row_count;
    if (t->task_count > (int64_t)t->wl.heads * t->wl.kv_tiles * t->wl.q_tiles)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks: %" G_GINT64_FORMAT " rows, more than the %d heads x %d "
                             "KV x %d Q tiles of the metadata", t->path, t->task_count, t->wl.heads, t->wl.kv_tiles,
                             t->wl.q_tiles);
    t->tasks = g_new(TraceTask, t->task_count);
    int64_t last_end = 0;
    for (int64_t i = 0; i < t->task_count; i++) {
        if (load_row(t, rows, i, col, err))
            return err->status;
        last_end = MAX(last_end, t->tasks[i].r_end);
    }
    if (last_end == 0) /* nothing to compare a model with (validate printed -nan%) */
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks: every time is 0, so the trace has no makespan", t->path);
    if (t->wl.mask == MASK_BLOCK)
        group_add_mask(t);
    return SIM_OK;
}

/* What validating the trace will take: the simulation of its claimed workload (as a job does) and its
 * latency matrices; checked before anything of that size is allocated. */
static SimStatus check_claimed_size(const Trace *t, int64_t max_bytes, SimError *err)
{
    double tasks = (double)t->wl.heads * t->wl.kv_tiles * t->wl.q_tiles;
    double bytes = tasks * SIM_TRACE_BYTES_PER_TASK + 2.0 * t->wl.n_sm * t->wl.n_sm * sizeof(int32_t);
    if (bytes > (double)max_bytes)
        return sim_error_set(err, SIM_ERR_LIMIT, "%s: /metadata: %d heads x %d KV x %d Q tiles on %d SMs would need "
                             "about %.0f MB to check, over the cap of %" G_GINT64_FORMAT " MB", t->path, t->wl.heads,
                             t->wl.kv_tiles, t->wl.q_tiles, t->wl.n_sm, bytes / (1 << 20), max_bytes >> 20);
    return SIM_OK;
}

/* /tasks, streamed: each row's cells straight into rows, no tree of them. */
static SimStatus read_rows(JsonStream *js, JsonToken first, Rows *rows, SimError *err)
{
    rows->is_array = first == JSON_ARRAY;
    if (!rows->is_array)
        return sim_json_stream_skip(js, first, err);
    JsonToken tok;
    while (sim_json_stream_next(js, &tok, err) == SIM_OK && tok != JSON_ARRAY_END) {
        if (tok != JSON_ARRAY && rows->not_array < 0)
            rows->not_array = rows->row_count;
        for (double batch[64]; tok == JSON_ARRAY;) { /* the plain integers in batches, the rest one by one */
            for (int got; (got = sim_json_stream_plain_numbers(js, batch, 64)) > 0;)
                for (int k = 0; k < got; k++)
                    push_cell(rows, batch[k]);
            if (sim_json_stream_next(js, &tok, err) != SIM_OK || tok == JSON_ARRAY_END)
                break;
            double x = tok == JSON_NUMBER ? sim_json_stream_number(js) : NAN;
            push_cell(rows, x);
            if (sim_json_stream_skip(js, tok, err) != SIM_OK) /* a nested value: its cell is NaN */
                return err->status;
            tok = JSON_ARRAY;
        }
        if (tok != JSON_ARRAY_END && sim_json_stream_skip(js, tok, err) != SIM_OK)
            return err->status;
        end_row(rows);
    }
    return err->status;
}

/* SIM_ERR_INPUT unless format is "dashsim-trace" (format NULL: the document had none). */
static SimStatus check_format(const cJSON *format, const char *path, SimError *err)
{
    if (!cJSON_IsString(format) || strcmp(format->valuestring, "dashsim-trace") != 0)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"dashsim-trace\"", path);
    return SIM_OK;
}

/* The top-level object: /tasks into rows, every other member into root (keys checked for repeats). */
static SimStatus read_document(SimInput *in, cJSON *root, Rows *rows, SimError *err)
{
    JsonStream *js = sim_json_stream_new(in);
    JsonToken tok;
    GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL); /* repeats in O(1) a key */
    if (sim_json_stream_next(js, &tok, err) == SIM_OK && tok != JSON_OBJECT)
        sim_error_set(err, SIM_ERR_INPUT, "%s: the trace must be a JSON object", sim_input_path(in));
    while (!err->status && sim_json_stream_next(js, &tok, err) == SIM_OK && tok == JSON_KEY) {
        char *key = g_strdup(sim_json_stream_text(js)), *where = g_strdup_printf("/%s", key);
        bool is_tasks = strcmp(key, "tasks") == 0;
        cJSON *value = NULL;
        if (!g_hash_table_add(keys, g_strdup(key)))
            sim_error_set(err, SIM_ERR_INPUT, "%s: %s: duplicate key", sim_input_path(in), where);
        else if (sim_json_stream_next(js, &tok, err) == SIM_OK && is_tasks)
            read_rows(js, tok, rows, err);
        else if (!err->status && sim_json_stream_value(js, tok, where, &value, err) == SIM_OK) {
            cJSON_AddItemToObject(root, key, value);
            if (strcmp(key, "format") == 0) /* a document that cannot be a trace stops here, not at its end */
                check_format(value, sim_input_path(in), err);
        }
        g_free(key), g_free(where);
    }
    if (!err->status)
        sim_json_stream_next(js, &tok, err); /* the end: nothing after the object */
    g_hash_table_destroy(keys);
    sim_json_stream_free(js);
    return err->status;
}

SimStatus sim_trace_load_capped(const char *path, int64_t max_bytes, Trace **out, SimError *err)
{
    *out = NULL;
    /* the rows held while read take up to SIM_TRACE_PARSE_FACTOR times the text's bytes */
    int64_t max_text = MIN(SIM_TRACE_MAX_TEXT_BYTES, max_bytes / SIM_TRACE_PARSE_FACTOR);
    SimInputLimits limits = { .max_bytes = max_text };
    SimInput *in;
    if (sim_input_open(path, &limits, &in, err) != SIM_OK)
        return err->status;
    cJSON *root = cJSON_CreateObject();
    Rows rows = { .not_array = -1 };
    read_document(in, root, &rows, err);
    sim_input_close(in);
    Trace *t = g_new0(Trace, 1);
    t->path = g_strdup(path);
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (err->status || check_format(format, path, err) != SIM_OK)
        ;
    else if (load_metadata(t, cJSON_GetObjectItemCaseSensitive(root, "metadata"), err) == SIM_OK &&
             check_claimed_size(t, max_bytes, err) == SIM_OK)
        load_tasks(t, cJSON_GetObjectItemCaseSensitive(root, "columns"), &rows, err);
    cJSON_Delete(root);
    g_free(rows.cells), g_free(rows.ends);
    if (err->status) {
        sim_trace_free(t);
        return err->status;
    }
    *out = t;
    return SIM_OK;
}

SimStatus sim_trace_load(const char *path, Trace **out, SimError *err)
{
    return sim_trace_load_capped(path, SIM_TRACE_DEFAULT_MAX_BYTES, out, err);
}

/* Reading the latency matrix: gpu-calib's JSON, or the older plain n x n text. Every cell is checked for
 * type, integrality and range before it is stored; SM ids must be distinct. Both are streamed through the
 * bounded reader: no JSON tree of the cells, 8 bytes a cell at most while reading. */
#include "latency_matrix.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "input.h"
#include "json_stream.h"

#define SIM_LATENCY_MAX_FILE_BYTES (64 << 20)

/* The matrix file as read, before the SM ids place its rows: every row's cells (kept as read, checked
 * later) and its length. 4 bytes a cell, whatever the JSON's spelling. */
typedef struct {
    GArray *smids;   /* int64, or NULL without "smids" */
    GArray *cells;   /* double: the latency_ns rows one after another */
    GArray *widths;  /* int: cells of each row; -1 for a row that is not an array */
    bool has_rows;   /* "latency_ns" given and an array */
} Parsed;

/* An array of numbers (a cell that is not one is NaN) appended to out; false if value is no array. */
static SimStatus read_numbers(JsonStream *js, JsonToken first, GArray *out, int *count, SimError *err)
{
    JsonToken tok;
    *count = -1;
    if (first != JSON_ARRAY)
        return sim_json_stream_skip(js, first, err);
    *count = 0;
    while (sim_json_stream_next(js, &tok, err) == SIM_OK && tok != JSON_ARRAY_END) {
        double x = tok == JSON_NUMBER ? sim_json_stream_number(js) : NAN;
        g_array_append_val(out, x);
        (*count)++;
        if (sim_json_stream_skip(js, tok, err) != SIM_OK)
            break;
    }
    return err->status;
}

static SimStatus read_rows(JsonStream *js, JsonToken first, Parsed *p, int n_sm, SimError *err)
{
    JsonToken tok;
    p->has_rows = first == JSON_ARRAY;
    if (!p->has_rows)
        return sim_json_stream_skip(js, first, err);
    while (sim_json_stream_next(js, &tok, err) == SIM_OK && tok != JSON_ARRAY_END && (int)p->widths->len <= n_sm) {
        int width;
        if (read_numbers(js, tok, p->cells, &width, err) != SIM_OK)
            break;
        g_array_append_val(p->widths, width);
    }
    if (!err->status && (int)p->widths->len > n_sm) /* refused before reading more */
        p->has_rows = false;
    return err->status;
}

/* The top-level object: "smids" and "latency_ns" streamed, every other member read (for its syntax and
 * repeated keys) and dropped. */
static SimStatus read_document(const char *path, int n_sm, Parsed *p, SimError *err)
{
    SimInputLimits limits = { .max_bytes = SIM_LATENCY_MAX_FILE_BYTES };
    SimInput *in;
    if (sim_input_open(path, &limits, &in, err) != SIM_OK)
        return err->status;
    JsonStream *js = sim_json_stream_new(in);
    JsonToken tok;
    GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    if (sim_json_stream_next(js, &tok, err) == SIM_OK && tok != JSON_OBJECT)
        sim_error_set(err, SIM_ERR_INPUT, "%s: a JSON latency matrix must be an object", path);
    while (!err->status && sim_json_stream_next(js, &tok, err) == SIM_OK && tok == JSON_KEY) {
        char *key = g_strdup(sim_json_stream_text(js)), *where = g_strdup_printf("/%s", key);
        cJSON *value = NULL;
        int count;
        if (!g_hash_table_add(keys, key))
            sim_error_set(err, SIM_ERR_INPUT, "%s: %s: duplicate key", path, where);
        else if (sim_json_stream_next(js, &tok, err) != SIM_OK)
            ;
        else if (strcmp(key, "smids") == 0)
            p->smids = g_array_new(FALSE, FALSE, sizeof(double)), read_numbers(js, tok, p->smids, &count, err);
        else if (strcmp(key, "latency_ns") == 0)
            read_rows(js, tok, p, n_sm, err);
        else
            sim_json_stream_value(js, tok, where, &value, err);
        cJSON_Delete(value);
        g_free(where);
    }
    if (!err->status)
        sim_json_stream_next(js, &tok, err); /* nothing after the object */
    g_hash_table_destroy(keys);
    sim_json_stream_free(js);
    sim_input_close(in);
    return err->status;
}

/* A number that is an integer in [lo, hi] (NaN: not a number). */
static bool is_int_in(double x, double lo, double hi)
{
    return x == floor(x) && x >= lo && x <= hi;
}

static SimStatus read_smids(const char *path, const GArray *smids, int count, int n_sm, int32_t *sm_of, SimError *err)
{
    bool *seen = g_new0(bool, n_sm);
    for (int i = 0; i < count && !err->status; i++) {
        double id = smids ? g_array_index(smids, double, i) : i;
        if (smids && !is_int_in(id, 0, n_sm - 1))
            sim_error_set(err, SIM_ERR_INPUT, "%s: /smids/%d: must be an integer SM id below %d", path, i, n_sm);
        else if (seen[sm_of[i] = (int32_t)id])
            sim_error_set(err, SIM_ERR_INPUT, "%s: /smids/%d: SM %d appears twice", path, i, sm_of[i]);
        else
            seen[sm_of[i]] = true;
    }
    g_free(seen);
    return err->status;
}

static SimStatus read_json(const char *path, int n_sm, int32_t *m, SimError *err)
{
    Parsed p = { NULL, g_array_new(FALSE, FALSE, sizeof(double)), g_array_new(FALSE, FALSE, sizeof(int)), false };
    int count = (int)p.widths->len;
    if (read_document(path, n_sm, &p, err) == SIM_OK &&
        (!p.has_rows || (count = (int)p.widths->len) == 0 || count > n_sm || (p.smids && (int)p.smids->len != count)))
        sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns: must be a square array of at most %d rows, one per "
                      "entry of /smids", path, n_sm);
    int32_t *sm_of = g_new(int32_t, MAX(count, 1));
    if (!err->status)
        read_smids(path, p.smids, count, n_sm, sm_of, err);
    int64_t at = 0;
    for (int a = 0; a < count && !err->status; a++) {
        int width = g_array_index(p.widths, int, a);
        if (width != count) {
            sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns/%d: must hold %d numbers", path, a, count);
            break;
        }
        for (int b = 0; b < count && !err->status; b++, at++) {
            double x = g_array_index(p.cells, double, at);
            if (!is_int_in(x, -1, SIM_LATENCY_MAX_NS))
                sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns/%d/%d: must be an integer from 0 to %d ns, or "
                              "-1 (not measured)", path, a, b, SIM_LATENCY_MAX_NS);
            else if (a != b)
                m[(int64_t)sm_of[a] * n_sm + sm_of[b]] = (int32_t)x;
        }
    }
    if (p.smids)
        g_array_free(p.smids, TRUE);
    g_array_free(p.cells, TRUE), g_array_free(p.widths, TRUE);
    g_free(sm_of);
    return err->status;
}

/* The older format: n_sm x n_sm whitespace-separated integers, '#' to the end of a line; lines streamed. */
static SimStatus read_plain(const char *path, int n_sm, int32_t *m, SimError *err)
{
    SimInputLimits limits = { .max_bytes = SIM_LATENCY_MAX_FILE_BYTES };
    SimInput *in;
    if (sim_input_open(path, &limits, &in, err) != SIM_OK)
        return err->status;
    int64_t count = 0, cells = (int64_t)n_sm * n_sm;
    char *text;
    size_t len;
    while (!err->status && sim_input_line(in, &text, &len, err) == SIM_OK && text) {
        char *hash = strchr(text, '#');
        if (hash)
            *hash = 0;
        for (const char *p = text + strspn(text, " \t\r"); *p && !err->status; p += strspn(p, " \t\r")) {
            char *end;
            errno = 0;
            long long v = *p == '-' || g_ascii_isdigit(*p) ? strtoll(p, &end, 10) : -2;
            if (v < -1 || v > SIM_LATENCY_MAX_NS || errno || count >= cells || !(*end == 0 || g_ascii_isspace(*end)))
                sim_error_set(err, SIM_ERR_INPUT, "%s:%" PRId64 ": expected at most %" PRId64 " integers from -1 to %d "
                              "(ns)", path, sim_input_line_number(in), cells, SIM_LATENCY_MAX_NS);
            else
                m[count] = count / n_sm == count % n_sm ? -1 : (int32_t)v, count++, p = end;
        }
    }
    sim_input_close(in);
    if (!err->status && count != cells)
        sim_error_set(err, SIM_ERR_INPUT, "%s: has %" PRId64 " values, expected sm_count x sm_count = %" PRId64,
                      path, count, cells);
    return err->status;
}

/* Whether the file's first byte other than white space is '{' (gpu-calib's JSON), from its first chunk. */
static SimStatus is_json_file(const char *path, bool *is_json, SimError *err)
{
    SimInputLimits limits = { .max_bytes = SIM_LATENCY_MAX_FILE_BYTES };
    SimInput *in;
    char buf[4096];
    size_t got = 0, at = 0;
    *is_json = false;
    if (sim_input_open(path, &limits, &in, err) != SIM_OK)
        return err->status;
    while (at == got && sim_input_read(in, buf, sizeof buf, &got, err) == SIM_OK && got > 0)
        for (at = 0; at < got && g_ascii_isspace(buf[at]); at++)
            ;
    *is_json = at < got && buf[at] == '{';
    sim_input_close(in);
    return err->status;
}

SimStatus sim_latency_matrix_load(const char *path, int n_sm, int32_t **matrix, bool *is_legacy, SimError *err)
{
    *matrix = NULL, *is_legacy = false;
    bool is_json;
    if (is_json_file(path, &is_json, err) != SIM_OK)
        return err->status;
    int32_t *m = malloc(sizeof *m * (size_t)n_sm * (size_t)n_sm);
    if (!m)
        return sim_error_set(err, SIM_ERR_LIMIT, "cannot allocate the %d x %d latency matrix of %s", n_sm, n_sm, path);
    for (int64_t i = 0; i < (int64_t)n_sm * n_sm; i++)
        m[i] = -1;
    *is_legacy = !is_json;
    if (is_json)
        read_json(path, n_sm, m, err);
    else
        read_plain(path, n_sm, m, err);
    if (err->status) {
        free(m);
        return err->status;
    }
    *matrix = m;
    return SIM_OK;
}

/* Reading the latency matrix: gpu-calib's JSON, or the older plain n x n text. Every cell is checked for
 * type, integrality and range before it is stored; SM ids must be distinct. */
#include "latency_matrix.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_file.h"

#define SIM_LATENCY_MAX_FILE_BYTES (64 << 20)

/* A JSON number that is an integer in [lo, hi]. */
static bool is_int_in(const cJSON *x, double lo, double hi)
{
    return cJSON_IsNumber(x) && x->valuedouble == floor(x->valuedouble) && x->valuedouble >= lo &&
           x->valuedouble <= hi;
}

static SimStatus read_smids(const char *path, const cJSON *smids, int count, int n_sm, int32_t *sm_of, SimError *err)
{
    bool *seen = g_new0(bool, n_sm);
    for (int i = 0; i < count && !err->status; i++) {
        const cJSON *id = smids ? cJSON_GetArrayItem(smids, i) : NULL;
        if (smids && !is_int_in(id, 0, n_sm - 1))
            sim_error_set(err, SIM_ERR_INPUT, "%s: /smids/%d: must be an integer SM id below %d", path, i, n_sm);
        else if (seen[sm_of[i] = smids ? (int32_t)id->valuedouble : i])
            sim_error_set(err, SIM_ERR_INPUT, "%s: /smids/%d: SM %d appears twice", path, i, sm_of[i]);
        else
            seen[sm_of[i]] = true;
    }
    g_free(seen);
    return err->status;
}

static SimStatus read_json(const char *path, int n_sm, int32_t *m, SimError *err)
{
    cJSON *root;
    if (sim_json_parse_file(path, SIM_LATENCY_MAX_FILE_BYTES, &root, err) ||
        sim_json_check_duplicates(root, path, err)) {
        cJSON_Delete(root);
        return err->status;
    }
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "latency_ns");
    const cJSON *smids = cJSON_GetObjectItemCaseSensitive(root, "smids");
    int count = cJSON_GetArraySize(rows);
    if (!cJSON_IsArray(rows) || count == 0 || count > n_sm || (smids && cJSON_GetArraySize(smids) != count))
        sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns: must be a square array of at most %d rows, one per "
                      "entry of /smids", path, n_sm);
    int32_t *sm_of = g_new(int32_t, MAX(count, 1));
    if (!err->status)
        read_smids(path, smids, count, n_sm, sm_of, err);
    int a = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !err->status; row = row->next, a++) {
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != count) {
            sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns/%d: must hold %d numbers", path, a, count);
            break;
        }
        int b = 0;
        for (const cJSON *x = row->child; x && !err->status; x = x->next, b++)
            if (!is_int_in(x, -1, SIM_LATENCY_MAX_NS))
                sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns/%d/%d: must be an integer from 0 to %d ns, or "
                              "-1 (not measured)", path, a, b, SIM_LATENCY_MAX_NS);
            else if (a != b)
                m[(int64_t)sm_of[a] * n_sm + sm_of[b]] = (int32_t)x->valuedouble;
    }
    cJSON_Delete(root);
    g_free(sm_of);
    return err->status;
}

/* The older format: n_sm x n_sm whitespace-separated integers, '#' to the end of a line. */
static SimStatus read_plain(const char *path, const char *text, int n_sm, int32_t *m, SimError *err)
{
    int64_t count = 0, line = 1, cells = (int64_t)n_sm * n_sm;
    for (const char *p = text; *p && !err->status;) {
        if (*p == '#')
            while (*p && *p != '\n')
                p++;
        else if (*p == '\n' || *p == ' ' || *p == '\t' || *p == '\r')
            line += *p++ == '\n';
        else {
            char *end;
            long long v = strtoll(p, &end, 10);
            if (end == p || v < -1 || v > SIM_LATENCY_MAX_NS || count >= cells || !(*end == 0 || g_ascii_isspace(*end)))
                return sim_error_set(err, SIM_ERR_INPUT, "%s:%" PRId64 ": expected at most %" PRId64 " integers from "
                                     "-1 to %d (ns)", path, line, cells, SIM_LATENCY_MAX_NS);
            m[count] = count / n_sm == count % n_sm ? -1 : (int32_t)v;
            count++, p = end;
        }
    }
    if (count != cells)
        sim_error_set(err, SIM_ERR_INPUT, "%s: has %" PRId64 " values, expected sm_count x sm_count = %" PRId64,
                      path, count, cells);
    return err->status;
}

SimStatus sim_latency_matrix_load(const char *path, int n_sm, int32_t **matrix, bool *is_legacy, SimError *err)
{
    *matrix = NULL, *is_legacy = false;
    gchar *text = NULL;
    GError *gerr = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > SIM_LATENCY_MAX_FILE_BYTES))
        return S_ISREG(st.st_mode) ? sim_error_set(err, SIM_ERR_LIMIT, "%s is over the limit of %d MB", path,
                                                   SIM_LATENCY_MAX_FILE_BYTES >> 20)
                                   : sim_error_set(err, SIM_ERR_IO, "cannot read %s: not a regular file", path);
    if (!g_file_get_contents(path, &text, NULL, &gerr)) {
        sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", path, gerr->message);
        g_error_free(gerr);
        return err->status;
    }
    int32_t *m = malloc(sizeof *m * (size_t)n_sm * (size_t)n_sm);
    if (!m) {
        g_free(text);
        return sim_error_set(err, SIM_ERR_LIMIT, "cannot allocate the %d x %d latency matrix of %s", n_sm, n_sm, path);
    }
    for (int64_t i = 0; i < (int64_t)n_sm * n_sm; i++)
        m[i] = -1;
    const char *first = text + strspn(text, " \t\r\n");
    *is_legacy = *first != '{';
    if (*is_legacy)
        read_plain(path, text, n_sm, m, err);
    else
        read_json(path, n_sm, m, err);
    g_free(text);
    if (err->status) {
        free(m);
        return err->status;
    }
    *matrix = m;
    return SIM_OK;
}

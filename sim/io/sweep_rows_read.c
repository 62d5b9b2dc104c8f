/* Reading sweep rows back (sim sweep --merge --plot): a row line of the table, CSV or JSONL that sim sweep wrote,
 * into the fields its plot draws (policy, mask, head_dim, seqlen, preset, reduction, TFLOPS, speedup). Invariant:
 * the figure of rows read back is the figure of the rows written, since every value is read at the precision it
 * was printed with and the plot prints it at that precision again. */
#include <cjson/cJSON.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_out.h"

/* The fields of one row, as text. */
typedef struct {
    char policy[64], mask[512], head_dim[32], seqlen[32], preset[64], reduce[16], tflops[64], speedup[64];
    bool is_ok;                  /* the row ran (status ok) */
} RowText;

/* A CSV line's fields (quoted ones unquoted), into a NULL-terminated array; g_strfreev it. */
static gchar **csv_fields(const char *line)
{
    GPtrArray *out = g_ptr_array_new();
    GString *f = g_string_new("");
    bool is_quoted = false;
    for (const char *p = line;; p++) {
        if (is_quoted && *p == '"' && p[1] == '"')
            g_string_append_c(f, '"'), p++;
        else if (*p == '"')
            is_quoted = !is_quoted;
        else if (*p && (is_quoted || *p != ','))
            g_string_append_c(f, *p);
        else {
            g_ptr_array_add(out, g_string_free(f, FALSE));
            if (!*p)
                break;
            f = g_string_new("");
        }
    }
    g_ptr_array_add(out, NULL);
    return (gchar **)g_ptr_array_free(out, FALSE);
}

static bool read_csv(const char *line, RowText *t)
{
    gchar **f = csv_fields(line);
    bool is_row = g_strv_length(f) == 30; /* the columns of sweep_out.c */
    if (is_row) {
        snprintf(t->policy, sizeof t->policy, "%s", f[0]), snprintf(t->mask, sizeof t->mask, "%s", f[1]);
        snprintf(t->head_dim, sizeof t->head_dim, "%s", f[2]), snprintf(t->seqlen, sizeof t->seqlen, "%s", f[3]);
        snprintf(t->preset, sizeof t->preset, "%s", f[8]), snprintf(t->reduce, sizeof t->reduce, "%s", f[19]);
        snprintf(t->tflops, sizeof t->tflops, "%s", f[25]), snprintf(t->speedup, sizeof t->speedup, "%s", f[26]);
        t->is_ok = strcmp(f[29], "ok") == 0;
    }
    g_strfreev(f);
    return is_row;
}

/* A JSONL member as text: a string as is, a number as printed ("" for null). */
static void json_text(const cJSON *row, const char *key, char *out, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
    out[0] = 0;
    if (cJSON_IsString(v))
        snprintf(out, len, "%s", v->valuestring);
    else if (cJSON_IsNumber(v))
        snprintf(out, len, "%.17g", v->valuedouble);
}

static bool read_jsonl(const char *line, RowText *t)
{
    cJSON *row = cJSON_Parse(line);
    bool is_row = cJSON_IsObject(row) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "status"));
    if (is_row) {
        json_text(row, "policy", t->policy, sizeof t->policy), json_text(row, "mask", t->mask, sizeof t->mask);
        json_text(row, "head_dim", t->head_dim, sizeof t->head_dim), json_text(row, "seqlen", t->seqlen, sizeof t->seqlen);
        json_text(row, "hardware", t->preset, sizeof t->preset), json_text(row, "reduce", t->reduce, sizeof t->reduce);
        json_text(row, "tflops", t->tflops, sizeof t->tflops), json_text(row, "speedup", t->speedup, sizeof t->speedup);
        t->is_ok = strcmp(cJSON_GetObjectItemCaseSensitive(row, "status")->valuestring, "ok") == 0;
    }
    cJSON_Delete(row);
    return is_row;
}

/* A table row: policy mask d seqlen bxh hardware reduce N M c_ns r_ns, then makespan TFLOPS speedup, or
 * "skipped: why". */
static bool read_table(const char *line, RowText *t)
{
    gchar **f = g_strsplit_set(line, " ", -1);
    const char *w[14];
    int n = 0;
    for (int i = 0; f[i] && n < 14; i++)
        if (f[i][0])
            w[n++] = f[i];
    bool is_row = n >= 12;
    if (is_row) {
        snprintf(t->policy, sizeof t->policy, "%s", w[0]), snprintf(t->mask, sizeof t->mask, "%s", w[1]);
        snprintf(t->head_dim, sizeof t->head_dim, "%s", w[2]), snprintf(t->seqlen, sizeof t->seqlen, "%s", w[3]);
        snprintf(t->preset, sizeof t->preset, "%s", w[5]), snprintf(t->reduce, sizeof t->reduce, "%s", w[6]);
        t->is_ok = n == 14 && strcmp(w[11], "skipped:") != 0;
        snprintf(t->tflops, sizeof t->tflops, "%s", t->is_ok ? w[12] : "");
        snprintf(t->speedup, sizeof t->speedup, "%s", t->is_ok && strcmp(w[13], "-") ? w[13] : "");
    }
    g_strfreev(f);
    return is_row;
}

/* The row's point: the last one when the row belongs to it (a point's rows are consecutive), else a new one. */
static int64_t point_of(SweepMerged *m, const SimConfigPoint *p)
{
    const SimConfigPoint *last = m->point_count ? &m->points[m->point_count - 1] : NULL;
    if (last && last->shape.head_dim == p->shape.head_dim && last->shape.seqlen_q == p->shape.seqlen_q &&
        last->hw.preset == p->hw.preset && last->reduce == p->reduce && strcmp(last->mask_file, p->mask_file) == 0)
        return m->point_count - 1;
    if (m->point_count == m->point_cap)
        m->point_cap = MAX(16, 2 * m->point_cap), m->points = g_renew(SimConfigPoint, m->points, m->point_cap);
    m->points[m->point_count] = *p;
    return m->point_count++;
}

/* The row's fields as the plot reads them; false when one is not what sim sweep writes. */
static bool to_row(const RowText *t, SimConfigPoint *p, SimSweepRow *r)
{
    const PolicyOps *ops = policy_find(t->policy);
    char *end1, *end2, *end3;
    p->shape.head_dim = strtoll(t->head_dim, &end1, 10);
    p->shape.seqlen_q = strtoll(t->seqlen, &end2, 10);
    r->tflops = strtod(t->tflops, &end3);
    p->shape.mask = strcmp(t->mask, "full") == 0 ? MASK_FULL : strcmp(t->mask, "causal") == 0 ? MASK_CAUSAL : MASK_BLOCK;
    if (p->shape.mask == MASK_BLOCK)
        snprintf(p->mask_file, sizeof p->mask_file, "%s", t->mask); /* the name rows gave it, as it is drawn */
    p->reduce = strcmp(t->reduce, "async") == 0 ? REDUCE_ASYNC : REDUCE_SERIAL;
    r->has_speedup = t->speedup[0] != 0;
    r->speedup = r->has_speedup ? strtod(t->speedup, NULL) : 0;
    r->policy = ops ? ops->name : NULL;
    r->is_done = true;
    return ops && !*end1 && !*end2 && !*end3 && t->tflops[0] && sim_cost_preset(t->preset, &p->hw);
}

SimStatus sim_sweep_row_read(SweepFormat format, const char *line, SweepMerged *m, SimError *err)
{
    RowText t = { .is_ok = false };
    bool is_row = format == SWEEP_CSV ? read_csv(line, &t) : format == SWEEP_JSONL ? read_jsonl(line, &t)
                                                                                   : read_table(line, &t);
    if (!is_row)
        return sim_error_set(err, SIM_ERR_INPUT, "not a row of sim sweep: %.80s", line);
    if (!t.is_ok) /* skipped rows are not drawn */
        return SIM_OK;
    SimConfigPoint p = { .dq_buffers = 0 };
    SimSweepRow r = { .point = 0 };
    if (!to_row(&t, &p, &r))
        return sim_error_set(err, SIM_ERR_INPUT, "a row the plot cannot read (policy, mask, head_dim, seqlen, "
                             "hardware, reduce, tflops, speedup): %.80s", line);
    r.point = point_of(m, &p);
    if (m->row_count == m->row_cap)
        m->row_cap = MAX(64, 2 * m->row_cap), m->rows = g_renew(SimSweepRow, m->rows, m->row_cap);
    m->rows[m->row_count++] = r;
    return SIM_OK;
}

SimStatus sim_sweep_merged_plot(SweepMerged *m, const char *png_path, bool is_speedup, SimError *err)
{
    for (int64_t i = 0; i < m->row_count; i++)
        m->rows[i].cfg = &m->points[m->rows[i].point];
    return sim_sweep_plot_rows(m->rows, m->row_count, m->costs_from, png_path, is_speedup, err);
}

void sim_sweep_merged_clear(SweepMerged *m)
{
    g_free(m->rows), g_free(m->points);
    *m = (SweepMerged){ .row_count = 0 };
}

/* The mask file reader. Format:
 *   dashsim-mask 1
 *   kv_tiles N
 *   q_tiles M
 *   rows            then N lines of M characters '0' or '1' (line k: KV tile k, character q: Q tile q)
 *   | pairs K       then K lines "kv q"
 *   end
 * '#' starts a comment; blank lines are skipped. */
#include "mask_io.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_file.h"

/* The largest mask file read (1 GiB: dense rows of 32768 x 32768 tiles); a bigger one is refused unread. */
#define MASK_FILE_MAX_BYTES (1L << 30)

typedef struct {
    const char *path;
    char **lines;
    int at, count;   /* next line index, lines in all */
    SimError *err;
} Lines;

/* The next non-blank line without its comment, or NULL at the end; *number its 1-based line. */
static char *next_line(Lines *l, int *number)
{
    while (l->at < l->count) {
        char *s = l->lines[l->at++], *hash = strchr(s, '#');
        if (hash)
            *hash = 0;
        g_strstrip(s);
        *number = l->at;
        if (*s)
            return s;
    }
    return NULL;
}

static bool header_int(Lines *l, const char *key, int64_t hi, int64_t *out)
{
    int line = l->count;
    char *s = next_line(l, &line), *end;
    size_t k = strlen(key);
    errno = 0;
    long long v = s && strncmp(s, key, k) == 0 && s[k] == ' ' ? strtoll(s + k + 1, &end, 10) : -1;
    if (!s || v < 1 || v > hi || errno || *end) {
        sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: expected '%s N' with N from 1 to %" G_GINT64_FORMAT, l->path, line,
                      key, hi);
        return false;
    }
    *out = v;
    return true;
}

static SimStatus read_rows(Lines *l, BlockMask *m)
{
    for (int kv = 0; kv < m->kv_tiles; kv++) {
        int line = l->count;
        char *s = next_line(l, &line);
        if (!s || (int)strlen(s) != m->q_tiles || strspn(s, "01") != strlen(s))
            return sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: KV tile %d needs a row of %d characters 0 or 1",
                                 l->path, line, kv, m->q_tiles);
        for (int q = 0; q < m->q_tiles; q++)
            m->keep[(int64_t)kv * m->q_tiles + q] = s[q] == '1';
    }
    return SIM_OK;
}

static SimStatus read_pairs(Lines *l, BlockMask *m, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        int line = l->count, used = 0;
        long long kv = -1, q = -1;
        char *s = next_line(l, &line);
        if (!s || sscanf(s, "%lld %lld%n", &kv, &q, &used) != 2 || s[used] || kv < 0 || kv >= m->kv_tiles ||
            q < 0 || q >= m->q_tiles)
            return sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: pair %" G_GINT64_FORMAT " must be 'kv q' with kv below "
                                 "%d and q below %d", l->path, line, i, m->kv_tiles, m->q_tiles);
        if (m->keep[kv * m->q_tiles + q])
            return sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: pair (%lld, %lld) given twice", l->path, line, kv, q);
        m->keep[kv * m->q_tiles + q] = 1;
    }
    return SIM_OK;
}

static SimStatus read_body(Lines *l, BlockMask *m)
{
    int64_t kv, q, count = 0;
    int line = l->count;
    char *s = next_line(l, &line);
    if (!s || strcmp(s, "dashsim-mask 1") != 0)
        return sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: not a mask file: the first line must be 'dashsim-mask 1'",
                             l->path, line);
    if (!header_int(l, "kv_tiles", 1 << 20, &kv) || !header_int(l, "q_tiles", 1 << 20, &q))
        return l->err->status;
    if (kv * q > (1LL << 30))
        return sim_error_set(l->err, SIM_ERR_LIMIT, "%s: %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " tiles is over 2^30 "
                             "pairs", l->path, kv, q);
    m->kv_tiles = (int)kv, m->q_tiles = (int)q, m->keep = g_new0(uint8_t, kv * q);
    s = next_line(l, &line);
    if (s && strcmp(s, "rows") == 0)
        read_rows(l, m);
    else if (s && strncmp(s, "pairs ", 6) == 0 && (count = strtoll(s + 6, NULL, 10)) > 0 && count <= kv * q)
        read_pairs(l, m, count);
    else
        sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: expected 'rows' or 'pairs K' (K from 1 to the tiles)", l->path, line);
    if (!l->err->status && ((s = next_line(l, &line)) == NULL || strcmp(s, "end") != 0))
        sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: expected 'end'", l->path, line);
    if (!l->err->status && next_line(l, &line))
        sim_error_set(l->err, SIM_ERR_INPUT, "%s:%d: text after 'end'", l->path, line);
    return l->err->status;
}

SimStatus sim_mask_read(const char *path, BlockMask *out, SimError *err)
{
    *out = (BlockMask){ 0 };
    char *text = NULL;
    size_t len = 0;
    if (sim_json_read_file(path, MASK_FILE_MAX_BYTES, &text, &len, err) != SIM_OK) /* regular files only */
        return err->status;
    Lines l = { .path = path, .lines = g_strsplit(text, "\n", -1), .err = err };
    l.count = (int)g_strv_length(l.lines);
    read_body(&l, out);
    g_strfreev(l.lines);
    g_free(text);
    snprintf(out->spec, sizeof out->spec, "file:%.100s", path);
    if (err->status)
        sim_mask_clear(out);
    return err->status;
}

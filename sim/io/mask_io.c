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

#include "input.h"

/* The largest mask file read (1 GiB: dense rows of 32768 x 32768 tiles); a bigger one, or a .gz one that
 * decompresses to more, is refused. Lines are streamed: memory is the mask and one line. */
#define MASK_FILE_MAX_BYTES (1L << 30)
#define MASK_LINE_MAX_BYTES ((1L << 20) + 4096) /* a row of 2^20 tiles and a comment */

typedef struct {
    const char *path;
    SimInput *in;
    SimError *err;
} Lines;

/* The next non-blank line without its comment, or NULL at the end (or on a read error, in err); *number
 * its 1-based line (at the end: the last line + 1). */
static char *next_line(Lines *l, int64_t *number)
{
    char *s;
    size_t len;
    while (sim_input_line(l->in, &s, &len, l->err) == SIM_OK && s) {
        if (len == 0) /* nothing to strip: a file of blank lines (a gzip bomb's) is read at memchr's pace */
            continue;
        char *hash = strchr(s, '#');
        if (hash)
            *hash = 0;
        g_strstrip(s);
        *number = sim_input_line_number(l->in);
        if (*s)
            return s;
    }
    *number = sim_input_line_number(l->in) + 1;
    return NULL;
}

/* A decimal integer from lo to hi filling all of s (no sign, no space: "1junk" is refused). */
static bool parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = g_ascii_isdigit(*s) ? strtoll(s, &end, 10) : -1;
    if (v < lo || v > hi || errno || *end)
        return false;
    *out = v;
    return true;
}

static bool header_int(Lines *l, const char *key, int64_t hi, int64_t *out)
{
    int64_t line;
    char *s = next_line(l, &line);
    size_t k = strlen(key);
    if (!l->err->status && (!s || strncmp(s, key, k) != 0 || s[k] != ' ' || !parse_int(s + k + 1, 1, hi, out)))
        sim_error_set(l->err, SIM_ERR_INPUT, "%s:%" G_GINT64_FORMAT ": expected '%s N' with N from 1 to %"
                      G_GINT64_FORMAT, l->path, line, key, hi);
    return !l->err->status;
}

static SimStatus read_rows(Lines *l, BlockMask *m)
{
    for (int kv = 0; kv < m->kv_tiles; kv++) {
        int64_t line;
        char *s = next_line(l, &line);
        if (l->err->status) /* a read error ended the lines */
            return l->err->status;
        if (!s || (int)strlen(s) != m->q_tiles || strspn(s, "01") != strlen(s))
            return sim_error_set(l->err, SIM_ERR_INPUT, "%s:%" G_GINT64_FORMAT ": KV tile %d needs a row of %d "
                                 "characters 0 or 1", l->path, line, kv, m->q_tiles);
        for (int q = 0; q < m->q_tiles; q++)
            m->keep[(int64_t)kv * m->q_tiles + q] = s[q] == '1';
    }
    return l->err->status;
}

static SimStatus read_pairs(Lines *l, BlockMask *m, int64_t count)
{
    for (int64_t i = 0; i < count; i++) {
        int64_t line, kv = -1, q = -1;
        char *s = next_line(l, &line), *rest = s ? s + strcspn(s, " \t") : NULL;
        if (l->err->status)
            return l->err->status;
        if (rest && *rest)
            *rest++ = 0;
        if (!s || !parse_int(s, 0, m->kv_tiles - 1, &kv) || !parse_int(g_strchug(rest), 0, m->q_tiles - 1, &q))
            return sim_error_set(l->err, SIM_ERR_INPUT, "%s:%" G_GINT64_FORMAT ": pair %" G_GINT64_FORMAT " must be "
                                 "'kv q' with kv below %d and q below %d", l->path, line, i, m->kv_tiles, m->q_tiles);
        if (m->keep[kv * m->q_tiles + q])
            return sim_error_set(l->err, SIM_ERR_INPUT, "%s:%" G_GINT64_FORMAT ": pair (%" G_GINT64_FORMAT ", %"
                                 G_GINT64_FORMAT ") given twice", l->path, line, kv, q);
        m->keep[kv * m->q_tiles + q] = 1;
    }
    return SIM_OK;
}

/* A read error (in err) at a line is reported as it is, not as the line's syntax. */
static SimStatus expected(Lines *l, int64_t line, const char *what)
{
    return l->err->status ? l->err->status
                          : sim_error_set(l->err, SIM_ERR_INPUT, "%s:%" G_GINT64_FORMAT ": %s", l->path, line, what);
}

static SimStatus read_body(Lines *l, BlockMask *m, int64_t max_bytes)
{
    int64_t kv, q, count = 0, line;
    char *s = next_line(l, &line);
    if (!s || strcmp(s, "dashsim-mask 1") != 0)
        return expected(l, line, "not a mask file: the first line must be 'dashsim-mask 1'");
    if (!header_int(l, "kv_tiles", 1 << 20, &kv) || !header_int(l, "q_tiles", 1 << 20, &q))
        return l->err->status;
    if (kv * q > (1LL << 30) || kv * q > max_bytes)
        return sim_error_set(l->err, SIM_ERR_LIMIT, "%s: %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " tiles is over %s",
                             l->path, kv, q, kv * q > (1LL << 30) ? "2^30 pairs" : "the memory cap (--max-memory-mb)");
    m->kv_tiles = (int)kv, m->q_tiles = (int)q, m->keep = g_new0(uint8_t, kv * q);
    s = next_line(l, &line);
    if (s && strcmp(s, "rows") == 0)
        read_rows(l, m);
    else if (s && strncmp(s, "pairs ", 6) == 0 && parse_int(s + 6, 1, kv * q, &count))
        read_pairs(l, m, count);
    else
        expected(l, line, "expected 'rows' or 'pairs K' (K from 1 to the tiles)");
    if (!l->err->status && ((s = next_line(l, &line)) == NULL || strcmp(s, "end") != 0))
        expected(l, line, "expected 'end'");
    if (!l->err->status && next_line(l, &line))
        expected(l, line, "text after 'end'");
    return l->err->status;
}

SimStatus sim_mask_read_capped(const char *path, int64_t max_bytes, BlockMask *out, SimError *err)
{
    *out = (BlockMask){ 0 };
    SimInputLimits limits = { .max_bytes = MASK_FILE_MAX_BYTES, .max_line = MASK_LINE_MAX_BYTES };
    Lines l = { .path = path, .err = err };
    if (sim_input_open(path, &limits, &l.in, err) != SIM_OK) /* regular files only */
        return err->status;
    read_body(&l, out, max_bytes);
    sim_input_close(l.in);
    snprintf(out->spec, sizeof out->spec, "file:%.100s", path);
    if (err->status)
        sim_mask_clear(out);
    return err->status;
}

SimStatus sim_mask_read(const char *path, BlockMask *out, SimError *err)
{
    return sim_mask_read_capped(path, MASK_FILE_MAX_BYTES, out, err);
}

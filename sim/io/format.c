/* Escaping for streamed JSON and CSV. */
#include "format.h"

#include <stdlib.h>
#include <string.h>

void sim_write_json_value(FILE *f, const char *v)
{
    char *end = NULL;
    strtoll(v, &end, 10);
    if (*v && *end == '\0' && (v[0] != '0' || v[1] == '\0'))
        fputs(v, f);
    else
        sim_write_json_string(f, v);
}

void sim_write_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

void sim_write_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *c = s; *c; c++)
        fputs(*c == '"' ? "\"\"" : (char[]){ *c, 0 }, f);
    fputc('"', f);
}

char *sim_format_memo_miss(char *p, SimFormatMemo *m, int64_t v)
{
    memcpy(p, m->text, sizeof m->text);
    if (v > 0 && v - 1 == m->value && m->text[m->len - 1] != '9') { /* p's text read back by bytes: no stall */
        p[m->len - 1]++, m->text[m->len - 1]++;
        m->value = v;
        return p + m->len;
    }
    m->value = v;
    m->len = (size_t)(sim_format_i64(m->text, v) - m->text);
    return sim_format_i64(p, v);
}

void sim_writer_init(SimWriter *w, FILE *f)
{
    *w = (SimWriter){ .f = f, .buf = malloc(SIM_WRITER_BYTES + SIM_WRITER_MAX_ROOM), .block = SIM_WRITER_BYTES };
    if (!w->buf)
        abort();
}

void sim_writer_init_sink(SimWriter *w, SimWriterSink sink, void *ctx, int64_t offset)
{
    sim_writer_init(w, NULL);
    w->sink = sink, w->sink_ctx = ctx;
    w->block = SIM_WRITER_BYTES - (size_t)(offset % SIM_WRITER_BYTES);
}

/* Writes the buffer's first n bytes. */
static void write_out(SimWriter *w, size_t n)
{
    if (n)
        w->is_bad |= w->sink ? !w->sink(w->sink_ctx, w->buf, n) : fwrite(w->buf, 1, n, w->f) != n;
}

void sim_writer_flush(SimWriter *w)
{
    write_out(w, w->block);
    w->len -= w->block;
    memmove(w->buf, w->buf + w->block, w->len); /* at most a row */
    w->block = SIM_WRITER_BYTES;
}

void sim_writer_i64(SimWriter *w, int64_t v)
{
    sim_writer_end(w, sim_format_i64(sim_writer_room(w, 20), v));
}

void sim_writer_str(SimWriter *w, const char *s)
{
    for (size_t n = strlen(s); n > 0;) {
        size_t k = n < SIM_WRITER_MAX_ROOM ? n : SIM_WRITER_MAX_ROOM;
        memcpy(sim_writer_room(w, k), s, k);
        w->len += k, s += k, n -= k;
    }
}

void sim_writer_char(SimWriter *w, char c)
{
    *sim_writer_room(w, 1) = c;
    w->len++;
}

void sim_writer_json_string(SimWriter *w, const char *s)
{
    size_t n = 0;
    for (unsigned char c; (c = (unsigned char)s[n]) >= 0x20 && c != '"' && c != '\\';)
        n++;
    if (s[n] == '\0' && n + 2 <= SIM_WRITER_MAX_ROOM) { /* nothing to escape: the common case */
        char *p = sim_writer_room(w, n + 2);
        *p++ = '"';
        memcpy(p, s, n);
        p[n] = '"';
        sim_writer_end(w, p + n + 1);
        return;
    }
    sim_writer_char(w, '"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char *p = sim_writer_room(w, 7); /* "\\u00XX" and snprintf's NUL */
        if (*c == '"' || *c == '\\')
            p[0] = '\\', p[1] = (char)*c, p += 2;
        else if (*c < 0x20)
            p += snprintf(p, 7, "\\u%04x", *c);
        else
            *p++ = (char)*c;
        sim_writer_end(w, p);
    }
    sim_writer_char(w, '"');
}

bool sim_writer_done(SimWriter *w)
{
    write_out(w, w->len);
    free(w->buf);
    *w = (SimWriter){ .is_bad = w->is_bad };
    return !w->is_bad;
}

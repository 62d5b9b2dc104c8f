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

#define WRITER_BYTES (1 << 20)

void sim_writer_init(SimWriter *w, FILE *f)
{
    *w = (SimWriter){ .f = f, .buf = malloc(WRITER_BYTES) };
    if (!w->buf)
        abort();
}

/* Room for at least n more bytes (n < WRITER_BYTES). */
static void reserve(SimWriter *w, size_t n)
{
    if (w->len + n <= WRITER_BYTES)
        return;
    w->is_bad |= fwrite(w->buf, 1, w->len, w->f) != w->len;
    w->len = 0;
}

void sim_writer_i64(SimWriter *w, int64_t v)
{
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do
        digits[n++] = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    reserve(w, (size_t)n + 1);
    if (v < 0)
        w->buf[w->len++] = '-';
    while (n > 0)
        w->buf[w->len++] = digits[--n];
}

void sim_writer_str(SimWriter *w, const char *s)
{
    for (size_t n = strlen(s); n > 0;) {
        size_t k = n < WRITER_BYTES / 2 ? n : WRITER_BYTES / 2;
        reserve(w, k);
        memcpy(w->buf + w->len, s, k);
        w->len += k, s += k, n -= k;
    }
}

void sim_writer_char(SimWriter *w, char c)
{
    reserve(w, 1);
    w->buf[w->len++] = c;
}

bool sim_writer_done(SimWriter *w)
{
    if (w->len)
        w->is_bad |= fwrite(w->buf, 1, w->len, w->f) != w->len;
    free(w->buf);
    *w = (SimWriter){ .is_bad = w->is_bad };
    return !w->is_bad;
}

/* The one JSON string escaper and the one CSV field writer of dashsim's hand-streamed outputs (Chrome
 * traces, sweep rows, per-phase CSV), and the buffered writer the large ones go through: numbers
 * formatted by hand into a 1 MB buffer, the same bytes printf's %lld and "%lld.%03lld" give.
 * Whole JSON documents are built with cJSON instead. */
#ifndef SIM_FORMAT_H
#define SIM_FORMAT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* s as a JSON string: quotes, '"' and '\' escaped, control bytes as \u00XX; other bytes (UTF-8) as is. */
void sim_write_json_string(FILE *f, const char *s);
/* v as a JSON number when it is a whole decimal integer without leading zeros ("132", "-5"), else as a
 * JSON string: metadata held as text keeps its numbers numbers. */
void sim_write_json_value(FILE *f, const char *v);
/* s as an RFC 4180 CSV field: as is, or quoted with '"' doubled when it holds ',', '"', CR or LF. */
void sim_write_csv_field(FILE *f, const char *s);

/* Decimal digits of u (1 to 20): the bit length gives the digits within one, a table decides (its entry 0
 * is 0, not 1: a number below 8 has one digit, 0 included). */
static inline int sim_format_digits(uint64_t u)
{
    static const uint64_t pow10[20] = { 0ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
                                        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
                                        1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
                                        1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
                                        1000000000000000000ULL, 10000000000000000000ULL };
    int d = ((64 - __builtin_clzll(u | 1)) * 1233) >> 12; /* floor(bits * log10(2)) */
    return d + (u >= pow10[d]);
}

/* The decimal digits of 0 to 99, two a number. */
static const char sim_format_pairs[201] = "000102030405060708091011121314151617181920212223242526272829303132333435"
                                          "363738394041424344454647484950515253545556575859606162636465666768697071"
                                          "72737475767778798081828384858687888990919293949596979899";

/* v in decimal at p, as printf's %lld; returns the end (at most 20 bytes written). Two digits a step. */
static inline char *sim_format_i64(char *p, int64_t v)
{
    const char *pairs = sim_format_pairs;
    uint64_t u = (uint64_t)v;
    if (v < 0)
        *p++ = '-', u = -u;
    char *end = p + sim_format_digits(u);
    for (p = end; u >= 100; u /= 100) {
        p -= 2;
        memcpy(p, &pairs[2 * (u % 100)], 2);
    }
    if (u >= 10)
        memcpy(p - 2, &pairs[2 * u], 2);
    else
        p[-1] = (char)('0' + u);
    return end;
}

/* A nanosecond count as microseconds with three decimals (printf's "%lld.%03lld" of ns / 1000 and
 * ns % 1000, whose odd form for a negative count is kept) at p; returns the end (at most 41 bytes). */
static inline char *sim_format_us(char *p, int64_t ns)
{
    if (ns < 0)
        return p + sprintf(p, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    p = sim_format_i64(p, ns / 1000);
    int frac = (int)(ns % 1000);
    p[0] = '.', p[1] = (char)('0' + frac / 100), p[2] = (char)('0' + frac / 10 % 10), p[3] = (char)('0' + frac % 10);
    return p + 4;
}

/* A column's value in the row before and its text: where a row repeats it (its CTA, a task's args within its
 * CTA, a zero wait) sim_format_memo copies the text rather than formatting it again. Start it at
 * SIM_FORMAT_MEMO_ZERO (it holds 0), or at any value with its text. */
typedef struct {
    int64_t value;
    size_t len;                       /* of text */
    char text[24];                    /* value in decimal (at most 20 bytes) and room for a whole-block copy */
} SimFormatMemo;
#define SIM_FORMAT_MEMO_ZERO ((SimFormatMemo){ .value = 0, .len = 1, .text = "0" })

/* v's text at p through m, where v is not m's value: m's text with its last digit stepped where v is the next
 * number (a Q tile, a CTA), else v formatted at p and into m (formatted twice, not read back: see
 * sim_format_memo_near). Out of line: the memos' hits stay small enough to inline. */
char *sim_format_memo_miss(char *p, SimFormatMemo *m, int64_t v);

/* v's text at p through m; writes 24 bytes of room (the text, then bytes the caller overwrites); returns
 * the end of the text. */
static inline char *sim_format_memo(char *p, SimFormatMemo *m, int64_t v)
{
    if (v != m->value)
        return sim_format_memo_miss(p, m, v);
    memcpy(p, m->text, sizeof m->text);
    return p + m->len;
}

/* v's text at p and into m, from near's (another memo): where v and near's value are both of at least five
 * digits and differ only in the last four (a time and the end of a short span after it), those four digits
 * are written into copies of near's text; else v is formatted. m may be near. Returns the end at p (24 bytes
 * of room). Neither text is read back just after it is written: a wide read of bytes just stored by narrower
 * stores waits for them to reach the cache (store-to-load forwarding fails), which costs more than writing
 * both. */
static inline char *sim_format_memo_near(char *p, SimFormatMemo *m, const SimFormatMemo *near, int64_t v)
{
    int64_t base = near->value;
    uint64_t low = (uint64_t)(base % 10000) + ((uint64_t)v - (uint64_t)base); /* below 10000 in base's block */
    m->value = v;
    if (base < 10000 || low >= 10000) {
        m->len = (size_t)(sim_format_i64(m->text, v) - m->text);
        return sim_format_i64(p, v);
    }
    size_t n = near->len;
    memcpy(p, near->text, sizeof near->text);
    if (m != near)
        memcpy(m->text, near->text, sizeof m->text);
    memcpy(p + n - 4, &sim_format_pairs[2 * (low / 100)], 2);
    memcpy(p + n - 2, &sim_format_pairs[2 * (low % 100)], 2);
    memcpy(m->text + n - 4, &sim_format_pairs[2 * (low / 100)], 2);
    memcpy(m->text + n - 2, &sim_format_pairs[2 * (low % 100)], 2);
    m->len = n;
    return p + n;
}

/* Texts copied whole by a move of fixed size: a text of len bytes kept with SIM_FORMAT_PAD bytes after it
 * (zeroed or not: the caller writes over them) is copied to c by one move of 32 or 64 bytes where it fits one
 * (a few vector moves, not a call), else by memcpy; c must have room for the move. Returns c + len. */
#define SIM_FORMAT_PAD 64
static inline char *sim_format_put_padded(char *c, const char *text, size_t len)
{
    if (len <= SIM_FORMAT_PAD / 2)
        memcpy(c, text, SIM_FORMAT_PAD / 2);
    else if (len <= SIM_FORMAT_PAD)
        memcpy(c, text, SIM_FORMAT_PAD);
    else
        memcpy(c, text, len);
    return c + len;
}

/* A row counter as decimal text, stepped in place rather than formatted: {"0", 1} counts from 0. */
typedef struct {
    char digits[24];
    size_t len;
} SimFormatCounter;

static inline void sim_format_counter_step(SimFormatCounter *n)
{
    size_t i = n->len;
    while (i > 0 && n->digits[i - 1] == '9')
        n->digits[--i] = '0';
    if (i > 0) {
        n->digits[i - 1]++;
        return;
    }
    memmove(n->digits + 1, n->digits, n->len++); /* 99..9 + 1: one more digit */
    n->digits[0] = '1';
}

/* sim_format_us of ns >= 0 from ns's own decimal text (len digits): its digits with the point put in. */
static inline char *sim_format_us_of_text(char *p, const char *ns_text, size_t len)
{
    if (len > 3) {
        memcpy(p, ns_text, len - 3);
        p += len - 3;
        *p++ = '.';
        memcpy(p, ns_text + len - 3, 3);
        return p + 3;
    }
    memcpy(p, "0.000", 5);
    memcpy(p + 5 - len, ns_text, len);
    return p + 5;
}

/* Where a writer's blocks go instead of its stream: sink(ctx, bytes, n) writes all n or returns false. */
typedef bool (*SimWriterSink)(void *ctx, const char *bytes, size_t n);

/* A buffered writer for large outputs. It writes blocks of SIM_WRITER_BYTES, each ending in the file on a
 * multiple of that (the first one shorter), so that a block given to a sink (output.h's
 * sim_output_writer_init) reaches the file in one write(2) at a page boundary. Errors are sticky:
 * sim_writer_done reports any. */
typedef struct {
    FILE *f;         /* where blocks go without a sink */
    SimWriterSink sink; /* NULL: f */
    void *sink_ctx;
    char *buf;       /* owned: SIM_WRITER_BYTES + SIM_WRITER_MAX_ROOM bytes */
    size_t len;
    size_t block;    /* the next block's bytes: they are written out once the buffer holds them */
    bool is_bad;     /* a write failed */
} SimWriter;

#define SIM_WRITER_BYTES (1 << 20)
#define SIM_WRITER_MAX_ROOM (SIM_WRITER_BYTES / 2) /* the most one sim_writer_room may ask for */

/* A writer to f, the file offset of f's next byte taken as a multiple of SIM_WRITER_BYTES. */
void sim_writer_init(SimWriter *w, FILE *f);
/* A writer whose blocks go to sink; offset: the file offset of its first byte. */
void sim_writer_init_sink(SimWriter *w, SimWriterSink sink, void *ctx, int64_t offset);
/* Writes the next block out (the bytes past it go to the buffer's start); len >= block. */
void sim_writer_flush(SimWriter *w);
/* Room for n more bytes (n <= SIM_WRITER_MAX_ROOM): returns where they go; sim_writer_end then takes the
 * end of what was written there. For a row of known greatest length: one check for all its fields. */
static inline char *sim_writer_room(SimWriter *w, size_t n)
{
    (void)n; /* the buffer holds SIM_WRITER_MAX_ROOM bytes past a block */
    if (w->len >= w->block)
        sim_writer_flush(w);
    return w->buf + w->len;
}
static inline void sim_writer_end(SimWriter *w, const char *end)
{
    w->len = (size_t)(end - w->buf);
}
void sim_writer_i64(SimWriter *w, int64_t v);
void sim_writer_str(SimWriter *w, const char *s);
void sim_writer_char(SimWriter *w, char c);
/* s as a JSON string (sim_write_json_string's bytes). */
void sim_writer_json_string(SimWriter *w, const char *s);
/* Writes what is buffered and frees the buffer; false if any write failed. */
bool sim_writer_done(SimWriter *w);

#endif

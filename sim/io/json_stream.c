/* Streaming JSON: a byte reader over SimInput's chunks with line and column, a grammar kept as one state
 * per open container, and a tree builder for the parts a caller wants whole. Invariant: a token is
 * returned only if the text up to it is a prefix of a valid JSON text; memory is the nesting stack, the
 * longest string, and a 64 KiB chunk. */
#include "json_stream.h"

#include <glib.h>
#include <string.h>

#define CHUNK (64 * 1024)
#define MAX_NUMBER_CHARS 256

/* What the innermost open container (or the top level) expects next. */
typedef enum {
    TOP_VALUE, TOP_DONE,                      /* the top level: one value, then the end */
    ARRAY_FIRST, ARRAY_VALUE, ARRAY_NEXT,     /* after '[', after ',', after a value */
    OBJECT_FIRST, OBJECT_KEY, OBJECT_VALUE, OBJECT_NEXT, /* after '{', after ',', after ':', after a value */
} State;

struct JsonStream {
    SimInput *in;
    char buf[CHUNK];
    size_t at, len;
    bool is_eof;
    int64_t line, col;       /* of the next byte */
    State *stack;            /* stack[0] the top level */
    int depth, cap;
    GString *text;           /* the last string or key, decoded */
    double number;
};

JsonStream *sim_json_stream_new(SimInput *in)
{
    JsonStream *s = g_new0(JsonStream, 1);
    s->in = in;
    s->line = 1, s->col = 1;
    s->cap = 16;
    s->stack = g_new(State, s->cap);
    s->stack[0] = TOP_VALUE;
    s->text = g_string_new(NULL);
    return s;
}

void sim_json_stream_free(JsonStream *s)
{
    if (!s)
        return;
    g_free(s->stack);
    g_string_free(s->text, TRUE);
    g_free(s);
}

const char *sim_json_stream_text(const JsonStream *s) { return s->text->str; }
double sim_json_stream_number(const JsonStream *s) { return s->number; }

/* ---- bytes ---- */

/* The next byte without taking it; -1 at the end (or on the input's error, then in err). */
static int peek(JsonStream *s, SimError *err)
{
    if (s->at == s->len && !s->is_eof && !err->status) {
        size_t got;
        if (sim_input_read(s->in, s->buf, sizeof s->buf, &got, err) != SIM_OK)
            return -1;
        s->at = 0, s->len = got, s->is_eof = got == 0;
    }
    return s->at < s->len ? (unsigned char)s->buf[s->at] : -1;
}

static void take(JsonStream *s)
{
    if (s->buf[s->at++] == '\n')
        s->line++, s->col = 1;
    else
        s->col++;
}

static SimStatus bad(JsonStream *s, SimError *err, const char *why)
{
    return sim_error_set(err, SIM_ERR_INPUT, "%s:%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ": %s",
                         sim_input_path(s->in), s->line, s->col, why);
}

/* At the end of the text (or at a byte that cannot start what is expected). */
static SimStatus unexpected(JsonStream *s, int c, SimError *err)
{
    if (err->status)
        return err->status;
    return bad(s, err, c < 0 ? "the JSON ends early (truncated file?)" : "invalid JSON here");
}

static int skip_space(JsonStream *s, SimError *err)
{
    while (s->at < s->len && s->buf[s->at] == ' ') /* the common case without peek's refill check */
        s->at++, s->col++;
    int c;
    while ((c = peek(s, err)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        take(s);
    return c;
}

/* ---- scalars ---- */

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static SimStatus read_hex4(JsonStream *s, unsigned *out, SimError *err)
{
    *out = 0;
    for (int i = 0; i < 4; i++) {
        int c = peek(s, err);
        if (c < 0 || !g_ascii_isxdigit(c))
            return unexpected(s, c, err);
        *out = *out * 16 + (unsigned)g_ascii_xdigit_value((char)c);
        take(s);
    }
    return SIM_OK;
}

/* \uXXXX (a surrogate pair as one code point) appended as UTF-8. */
static SimStatus read_unicode(JsonStream *s, SimError *err)
{
    unsigned u, low;
    if (read_hex4(s, &u, err) != SIM_OK)
        return err->status;
    if (u >= 0xD800 && u < 0xDC00) {
        if (peek(s, err) != '\\' || (take(s), peek(s, err)) != 'u')
            return bad(s, err, "a \\u escape starts a surrogate pair that does not go on");
        take(s);
        if (read_hex4(s, &low, err) != SIM_OK)
            return err->status;
        if (low < 0xDC00 || low > 0xDFFF)
            return bad(s, err, "a \\u escape starts a surrogate pair that does not go on");
        u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
    } else if (u >= 0xDC00 && u < 0xE000)
        return bad(s, err, "a lone low surrogate in a \\u escape");
    if (u == 0)
        return bad(s, err, "a NUL character (\\u0000) in a string");
    g_string_append_unichar(s->text, u);
    return SIM_OK;
}

/* A string after its opening quote, decoded into s->text. */
static SimStatus read_string(JsonStream *s, SimError *err)
{
    g_string_truncate(s->text, 0);
    for (;;) {
        int c = peek(s, err);
        if (c < 0x20)
            return c < 0 ? unexpected(s, c, err) : bad(s, err, "a control character in a string");
        take(s);
        if (c == '"')
            return SIM_OK;
        if (c != '\\') {
            g_string_append_c(s->text, (char)c);
            continue;
        }
        c = peek(s, err);
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *at = c > 0 ? strchr(from, c) : NULL;
        if (c == 'u') {
            take(s);
            if (read_unicode(s, err) != SIM_OK)
                return err->status;
        } else if (at) {
            take(s);
            g_string_append_c(s->text, to[at - from]);
        } else
            return unexpected(s, c, err);
    }
}

/* Digits (at least one) into text; false if none. */
static bool copy_digits(JsonStream *s, char *text, int *n, SimError *err)
{
    int start = *n, c;
    while (is_digit(c = peek(s, err)) && *n < MAX_NUMBER_CHARS)
        text[(*n)++] = (char)c, take(s);
    return *n > start;
}

/* The common number of a trace, read straight from the chunk: an integer of 1 to 15 digits, not 0-led
 * (unless 0 itself), followed by a byte that cannot continue a number. False (nothing taken) otherwise. */
static bool read_plain_integer(JsonStream *s)
{
    const char *p = s->buf + s->at, *end = s->buf + s->len;
    if (end - p < 20)
        return false; /* near the chunk's end: the general path refills */
    bool is_negative = *p == '-';
    const char *digits = p + is_negative, *q = digits;
    int64_t v = 0;
    while (q - digits < 16 && is_digit(*q))
        v = v * 10 + (*q++ - '0');
    if (q == digits || q - digits > 15 || (*digits == '0' && q - digits > 1) || *q == '.' || *q == 'e' || *q == 'E')
        return false;
    s->number = (double)(is_negative ? -v : v);
    s->col += q - p;
    s->at += (size_t)(q - p);
    return true;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? ; an integer of up to 15 digits is converted exactly
 * without strtod (traces are millions of them). */
static SimStatus read_number(JsonStream *s, SimError *err)
{
    if (read_plain_integer(s))
        return SIM_OK;
    char text[MAX_NUMBER_CHARS + 8];
    int n = 0, c = peek(s, err);
    if (c == '-')
        text[n++] = '-', take(s);
    bool is_zero = peek(s, err) == '0';
    if (!copy_digits(s, text, &n, err) || (is_zero && n - (text[0] == '-') > 1))
        return unexpected(s, is_zero ? '0' : peek(s, err), err);
    bool is_int = true;
    if (peek(s, err) == '.') {
        text[n++] = '.', take(s), is_int = false;
        if (!copy_digits(s, text, &n, err))
            return unexpected(s, peek(s, err), err);
    }
    if ((c = peek(s, err)) == 'e' || c == 'E') {
        text[n++] = 'e', take(s), is_int = false;
        if ((c = peek(s, err)) == '+' || c == '-')
            text[n++] = (char)c, take(s);
        if (!copy_digits(s, text, &n, err))
            return unexpected(s, peek(s, err), err);
    }
    if (n >= MAX_NUMBER_CHARS)
        return bad(s, err, "a number of over " G_STRINGIFY(MAX_NUMBER_CHARS) " characters");
    text[n] = 0;
    bool is_negative = text[0] == '-';
    if (is_int && n - is_negative <= 15) {
        int64_t v = 0;
        for (int i = is_negative; i < n; i++)
            v = v * 10 + (text[i] - '0');
        s->number = (double)(is_negative ? -v : v);
    } else
        s->number = g_ascii_strtod(text, NULL);
    return err->status;
}

static SimStatus read_literal(JsonStream *s, const char *word, SimError *err)
{
    for (const char *w = word; *w; w++) {
        int c = peek(s, err);
        if (c != *w)
            return unexpected(s, c, err);
        take(s);
    }
    return SIM_OK;
}

/* ---- grammar ---- */

static SimStatus push(JsonStream *s, State state, SimError *err)
{
    if (s->depth >= CJSON_NESTING_LIMIT)
        return bad(s, err, "the JSON is nested too deep (over " G_STRINGIFY(CJSON_NESTING_LIMIT) " levels)");
    if (++s->depth == s->cap)
        s->stack = g_renew(State, s->stack, s->cap *= 2);
    s->stack[s->depth] = state;
    return SIM_OK;
}

/* A value starting at c; the enclosing level then expects a comma or its end. */
static SimStatus read_value(JsonStream *s, int c, JsonToken *tok, SimError *err)
{
    State *parent = &s->stack[s->depth];
    *parent = *parent == TOP_VALUE ? TOP_DONE : *parent == OBJECT_VALUE ? OBJECT_NEXT : ARRAY_NEXT;
    switch (c) {
    case '{': take(s); *tok = JSON_OBJECT; return push(s, OBJECT_FIRST, err);
    case '[': take(s); *tok = JSON_ARRAY; return push(s, ARRAY_FIRST, err);
    case '"': take(s); *tok = JSON_STRING; return read_string(s, err);
    case 't': *tok = JSON_TRUE; return read_literal(s, "true", err);
    case 'f': *tok = JSON_FALSE; return read_literal(s, "false", err);
    case 'n': *tok = JSON_NULL; return read_literal(s, "null", err);
    }
    if (c == '-' || is_digit(c)) {
        *tok = JSON_NUMBER;
        return read_number(s, err);
    }
    return unexpected(s, c, err);
}

/* A key and its colon. */
static SimStatus read_key(JsonStream *s, int c, JsonToken *tok, SimError *err)
{
    if (c != '"' || (take(s), read_string(s, err)) != SIM_OK)
        return unexpected(s, c, err);
    if ((c = skip_space(s, err)) != ':')
        return unexpected(s, c, err);
    take(s);
    s->stack[s->depth] = OBJECT_VALUE;
    *tok = JSON_KEY;
    return SIM_OK;
}

SimStatus sim_json_stream_next(JsonStream *s, JsonToken *tok, SimError *err)
{
    if (err->status)
        return err->status;
    int c = skip_space(s, err);
    State st = s->stack[s->depth];
    if ((st == ARRAY_NEXT || st == OBJECT_NEXT) && c == ',') {
        take(s);
        s->stack[s->depth] = st = st == ARRAY_NEXT ? ARRAY_VALUE : OBJECT_KEY;
        c = skip_space(s, err);
    } else if ((c == ']' && (st == ARRAY_FIRST || st == ARRAY_NEXT)) ||
               (c == '}' && (st == OBJECT_FIRST || st == OBJECT_NEXT))) {
        take(s);
        s->depth--;
        *tok = c == ']' ? JSON_ARRAY_END : JSON_OBJECT_END;
        return SIM_OK;
    }
    switch (st) {
    case TOP_DONE:
        if (c >= 0)
            return bad(s, err, "text after the JSON value");
        *tok = JSON_END;
        return err->status;
    case OBJECT_FIRST:
    case OBJECT_KEY: return read_key(s, c, tok, err);
    case ARRAY_NEXT:
    case OBJECT_NEXT: return unexpected(s, c, err);
    default: return read_value(s, c, tok, err);
    }
}

int sim_json_stream_plain_numbers(JsonStream *s, double *out, int max)
{
    int n = 0;
    for (State *st = &s->stack[s->depth]; n < max && *st >= ARRAY_FIRST && *st <= ARRAY_NEXT; n++) {
        size_t at = s->at;
        while (s->at < s->len && s->buf[s->at] == ' ')
            s->at++;
        if (*st == ARRAY_NEXT && s->at < s->len && s->buf[s->at] == ',')
            for (s->at++; s->at < s->len && s->buf[s->at] == ' ';)
                s->at++;
        else if (*st == ARRAY_NEXT) {
            s->at = at;
            break;
        }
        s->col += (int64_t)(s->at - at); /* spaces and a comma: no line ends */
        if (!read_plain_integer(s)) {
            s->col -= (int64_t)(s->at - at), s->at = at;
            break;
        }
        out[n] = s->number, *st = ARRAY_NEXT;
    }
    return n;
}

/* ---- trees ---- */

/* "/key" (JSON Pointer: ~ and / escaped) or "/index" before *path (created if NULL). */
static void prepend_segment(GString **path, const char *key, int index)
{
    GString *seg = g_string_new("/");
    if (!key)
        g_string_append_printf(seg, "%d", index);
    for (const char *c = key; c && *c; c++)
        g_string_append(seg, *c == '~' ? "~0" : *c == '/' ? "~1" : (char[]){ *c, 0 });
    *path = *path ? *path : g_string_new(NULL);
    g_string_prepend(*path, seg->str);
    g_string_free(seg, TRUE);
}

/* The rest of the value that started with first as a tree. A repeated key: *dup_path gets its JSON
 * path (from this value down) and SIM_ERR_INPUT is returned with err still free for the caller. */
static SimStatus build(JsonStream *s, JsonToken first, cJSON **out, GString **dup_path, SimError *err)
{
    *out = NULL;
    switch (first) {
    case JSON_STRING: *out = cJSON_CreateString(s->text->str); return SIM_OK;
    case JSON_NUMBER: *out = cJSON_CreateNumber(s->number); return SIM_OK;
    case JSON_TRUE: *out = cJSON_CreateTrue(); return SIM_OK;
    case JSON_FALSE: *out = cJSON_CreateFalse(); return SIM_OK;
    case JSON_NULL: *out = cJSON_CreateNull(); return SIM_OK;
    default: break;
    }
    bool is_object = first == JSON_OBJECT;
    *out = is_object ? cJSON_CreateObject() : cJSON_CreateArray();
    /* an object's keys so far, for the repeat check in O(1) a key (a scan of the tree is quadratic) */
    GHashTable *keys = is_object ? g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) : NULL;
    JsonToken tok;
    SimStatus status = SIM_ERR_INPUT;
    for (int index = 0; sim_json_stream_next(s, &tok, err) == SIM_OK; index++) {
        if (tok == JSON_OBJECT_END || tok == JSON_ARRAY_END) {
            status = SIM_OK;
            break;
        }
        char *key = is_object ? g_strdup(s->text->str) : NULL;
        bool is_dup = key && !g_hash_table_add(keys, g_strdup(key));
        cJSON *child = NULL;
        if (is_dup || (is_object && sim_json_stream_next(s, &tok, err) != SIM_OK) ||
            build(s, tok, &child, dup_path, err) != SIM_OK) {
            if (is_dup || *dup_path) /* where the repeat is, built on the way back */
                prepend_segment(dup_path, key, index);
            g_free(key);
            cJSON_Delete(child);
            break;
        }
        if (key) /* cJSON >= 1.7.13 appends in O(1) (the first child's prev is the last) */
            cJSON_AddItemToObject(*out, key, child);
        else
            cJSON_AddItemToArray(*out, child);
        g_free(key);
    }
    if (keys)
        g_hash_table_destroy(keys);
    return status == SIM_OK ? SIM_OK : err->status ? err->status : SIM_ERR_INPUT;
}

SimStatus sim_json_stream_value(JsonStream *s, JsonToken first, const char *where, cJSON **out, SimError *err)
{
    GString *dup_path = NULL;
    if (build(s, first, out, &dup_path, err) != SIM_OK) {
        cJSON_Delete(*out);
        *out = NULL;
        if (dup_path)
            sim_error_set(err, SIM_ERR_INPUT, "%s: %s%s: duplicate key", sim_input_path(s->in), where, dup_path->str);
        if (dup_path)
            g_string_free(dup_path, TRUE);
        return err->status;
    }
    return SIM_OK;
}

SimStatus sim_json_stream_skip(JsonStream *s, JsonToken first, SimError *err)
{
    if (first != JSON_OBJECT && first != JSON_ARRAY)
        return SIM_OK;
    int depth = s->depth - 1;
    JsonToken tok;
    while (s->depth > depth && sim_json_stream_next(s, &tok, err) == SIM_OK)
        ;
    return err->status;
}

/* JSON files: size-checked read, parse, and a located sentence on a syntax error. */
#include "json_file.h"

#include <errno.h>
#include <glib.h>
#include <zlib.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void sim_json_line_col(const char *text, long offset, int *line, int *col)
{
    *line = 1, *col = 1;
    for (long i = 0; i < offset && text[i]; i++) {
        if (text[i] == '\n')
            (*line)++, *col = 1;
        else
            (*col)++;
    }
}

/* The text stops mid-value (inside a string or with brackets open) and nothing structural follows
 * the parser's error position: a truncated file rather than a syntax error. */
static bool is_truncated(const char *text, long len, long error_offset)
{
    bool is_in_string = false;
    long depth = 0, last_structural = -1;
    for (long i = 0; i < len; i++) {
        char ch = text[i];
        if (is_in_string) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                is_in_string = false;
            continue;
        }
        if (ch == '"')
            is_in_string = true;
        else if (strchr("{[,:]}", ch)) {
            depth += ch == '{' || ch == '[' ? 1 : ch == '}' || ch == ']' ? -1 : 0;
            last_structural = i;
        }
    }
    return (is_in_string || depth > 0) && error_offset >= last_structural;
}

/* Deepest nesting of brackets outside strings (cJSON refuses more than CJSON_NESTING_LIMIT). */
static long max_depth(const char *text, long len)
{
    bool is_in_string = false;
    long depth = 0, deepest = 0;
    for (long i = 0; i < len; i++) {
        char ch = text[i];
        if (is_in_string) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                is_in_string = false;
        } else if (ch == '"')
            is_in_string = true;
        else if (ch == '{' || ch == '[')
            deepest = MAX(deepest, ++depth);
        else if (ch == '}' || ch == ']')
            depth--;
    }
    return deepest;
}

bool sim_json_is_too_deep(const char *text, long len)
{
    return max_depth(text, len) > CJSON_NESTING_LIMIT;
}

/* A gzip file (measured traces are committed as .json.gz): its decompressed bytes, at most max_bytes. */
static SimStatus read_gzip(const char *path, long max_bytes, char **text, size_t *len, SimError *err)
{
    gzFile z = gzopen(path, "rb");
    if (!z)
        return sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", path, strerror(errno ? errno : ENOMEM));
    size_t cap = 1 << 20, n = 0;
    char *buf = g_malloc(cap + 1);
    int got;
    while ((got = gzread(z, buf + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if ((long)n > max_bytes)
            break;
        if (n == cap)
            buf = g_realloc(buf, (cap *= 2) + 1);
    }
    int zerr = Z_OK;
    const char *why = got < 0 ? gzerror(z, &zerr) : NULL;
    gzclose(z);
    if (why || (long)n > max_bytes) {
        g_free(buf);
        return why ? sim_error_set(err, SIM_ERR_INPUT, "%s: not a readable gzip file (%s)", path, why)
                   : sim_error_set(err, SIM_ERR_LIMIT, "%s decompresses to over the limit of %ld bytes", path, max_bytes);
    }
    buf[n] = 0;
    *text = buf, *len = n;
    return SIM_OK;
}

/* Standard input ("-"), read to its end; over max_bytes is refused. */
static SimStatus read_stdin(long max_bytes, char **text, size_t *len, SimError *err)
{
    GString *s = g_string_new(NULL);
    char buf[1 << 16];
    for (size_t got; (got = fread(buf, 1, sizeof buf, stdin)) > 0 && (long)s->len <= max_bytes;)
        g_string_append_len(s, buf, (gssize)got);
    if ((long)s->len > max_bytes || ferror(stdin)) {
        bool is_big = (long)s->len > max_bytes;
        g_string_free(s, TRUE);
        return is_big ? sim_error_set(err, SIM_ERR_LIMIT, "standard input is over the limit of %ld bytes", max_bytes)
                      : sim_error_set(err, SIM_ERR_IO, "cannot read standard input: %s", strerror(errno));
    }
    *len = s->len;
    *text = g_string_free(s, FALSE);
    return SIM_OK;
}

SimStatus sim_json_read_file(const char *path, long max_bytes, char **text, size_t *len, SimError *err)
{
    if (strcmp(path, "-") == 0)
        return read_stdin(max_bytes, text, len, err);
    struct stat st;
    if (stat(path, &st) != 0)
        return sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", path,
                             S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
    if (st.st_size > max_bytes)
        return sim_error_set(err, SIM_ERR_LIMIT, "%s is %lld bytes, over the limit of %ld", path,
                             (long long)st.st_size, max_bytes);
    if (g_str_has_suffix(path, ".gz"))
        return read_gzip(path, max_bytes, text, len, err);
    GError *gerr = NULL;
    gsize n = 0;
    if (!g_file_get_contents(path, text, &n, &gerr)) {
        sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", path, gerr->message);
        g_error_free(gerr);
        return err->status;
    }
    if ((long)n > max_bytes) { /* it grew since stat */
        g_free(*text);
        return sim_error_set(err, SIM_ERR_LIMIT, "%s is %zu bytes, over the limit of %ld", path, (size_t)n,
                             max_bytes);
    }
    *len = n;
    return SIM_OK;
}

SimStatus sim_json_parse_file(const char *path, long max_bytes, cJSON **out, SimError *err)
{
    *out = NULL;
    char *text;
    size_t len;
    if (sim_json_read_file(path, max_bytes, &text, &len, err) != SIM_OK)
        return err->status;
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1) /* + its NUL */;
    if (!*out) {
        int line, col;
        long offset = end ? (long)(end - text) : (long)len;
        sim_json_line_col(text, offset, &line, &col);
        bool is_deep = sim_json_is_too_deep(text, (long)len);
        sim_error_set(err, SIM_ERR_INPUT, "%s:%d:%d: %s", path, line, col,
                      is_deep ? "the JSON is nested too deep (over " G_STRINGIFY(CJSON_NESTING_LIMIT) " levels)"
                      : is_truncated(text, (long)len, offset) ? "the JSON ends early (truncated file?)"
                                                             : "invalid JSON here");
    }
    g_free(text);
    return err->status;
}

/* Appends "/key" or "/index" to path (JSON Pointer, with ~ and / escaped). */
static void path_push(GString *path, const cJSON *item, int index)
{
    g_string_append_c(path, '/');
    if (!item->string) {
        g_string_append_printf(path, "%d", index);
        return;
    }
    for (const char *c = item->string; *c; c++)
        g_string_append(path, *c == '~' ? "~0" : *c == '/' ? "~1" : (char[]){ *c, 0 });
}

/* Depth first; iterative over siblings, recursive over nesting (bounded by CJSON_NESTING_LIMIT). */
static bool find_duplicate(const cJSON *node, GString *path)
{
    GHashTable *seen = cJSON_IsObject(node) ? g_hash_table_new(g_str_hash, g_str_equal) : NULL;
    int index = 0;
    bool is_dup = false;
    for (const cJSON *c = node->child; c && !is_dup; c = c->next, index++) {
        gsize len = path->len;
        path_push(path, c, index);
        if (seen && c->string && !g_hash_table_add(seen, c->string))
            is_dup = true;
        else if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && find_duplicate(c, path))
            is_dup = true;
        else
            g_string_truncate(path, len);
    }
    if (seen)
        g_hash_table_destroy(seen);
    return is_dup;
}

SimStatus sim_json_check_duplicates(const cJSON *root, const char *file, SimError *err)
{
    if (!root)
        return SIM_OK;
    GString *path = g_string_new("");
    if (find_duplicate(root, path))
        sim_error_set(err, SIM_ERR_INPUT, "%s: %s: duplicate key", file, path->str);
    g_string_free(path, TRUE);
    return err->status;
}

/* JSON files: size-checked read, parse, and a located sentence on a syntax error. */
#include "json_file.h"

#include "input.h"

#include <errno.h>
#include <glib.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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
        else if (ch == '{' || ch == '[') {
            depth++; /* not inside MAX(): GLib's macro evaluates its arguments twice */
            deepest = MAX(deepest, depth);
        }
        else if (ch == '}' || ch == ']')
            depth--;
    }
    return deepest;
}

bool sim_json_is_too_deep(const char *text, long len)
{
    return max_depth(text, len) > CJSON_NESTING_LIMIT;
}

SimStatus sim_json_read_file(const char *path, long max_bytes, char **text, size_t *len, SimError *err)
{
    SimInputLimits limits = { .max_bytes = max_bytes };
    /* malloc'd: g_free is free since GLib 2.46, so callers g_free it */
    return sim_input_read_all(path, &limits, text, len, err);
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

/* Prepends "/key" or "/index" to path (JSON Pointer, with ~ and / escaped): paths are built on the way
 * back from a duplicate, so a document without one formats nothing. */
static void path_prepend(GString *path, const cJSON *item, int index)
{
    GString *seg = g_string_new("/");
    if (!item->string)
        g_string_append_printf(seg, "%d", index);
    for (const char *c = item->string; c && *c; c++)
        g_string_append(seg, *c == '~' ? "~0" : *c == '/' ? "~1" : (char[]){ *c, 0 });
    g_string_prepend(path, seg->str);
    g_string_free(seg, TRUE);
}

/* Whether an object's children repeat a key: pairwise for a few keys, a hash set for more. The repeated
 * child in *dup. */
static bool has_repeated_key(const cJSON *node, const cJSON **dup)
{
    int n = 0;
    for (const cJSON *c = node->child; c && n <= 16; c = c->next)
        n++;
    GHashTable *set = n > 16 ? g_hash_table_new(g_str_hash, g_str_equal) : NULL;
    for (const cJSON *c = node->child; c && !*dup; c = c->next) {
        if (set && c->string && !g_hash_table_add(set, c->string))
            *dup = c;
        for (const cJSON *d = node->child; !set && d != c && c->string; d = d->next)
            if (d->string && strcmp(d->string, c->string) == 0)
                *dup = c;
    }
    if (set)
        g_hash_table_destroy(set);
    return *dup != NULL;
}

/* Depth first in document order; iterative over siblings, recursive over nesting (bounded by
 * CJSON_NESTING_LIMIT). On a duplicate, path receives where it is. */
static bool find_duplicate(const cJSON *node, GString *path)
{
    const cJSON *dup = NULL; /* the first child repeating a key: reported unless a child before it has one */
    if (cJSON_IsObject(node))
        has_repeated_key(node, &dup);
    int index = 0;
    for (const cJSON *c = node->child; c; c = c->next, index++)
        if (c == dup || ((cJSON_IsObject(c) || cJSON_IsArray(c)) && c->child && find_duplicate(c, path))) {
            path_prepend(path, c, index);
            return true;
        }
    return false;
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

/* JSON files: size-checked read, parse, and a located sentence on a syntax error. */
#include "json_file.h"

#include <glib.h>
#include <stdbool.h>
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

SimStatus sim_json_parse_file(const char *path, long max_bytes, cJSON **out, SimError *err)
{
    *out = NULL;
    gchar *text;
    gsize len;
    GError *gerr = NULL;
    if (!g_file_get_contents(path, &text, &len, &gerr)) {
        sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", path, gerr->message);
        g_error_free(gerr);
        return err->status;
    }
    if ((long)len > max_bytes) {
        g_free(text);
        return sim_error_set(err, SIM_ERR_LIMIT, "%s is %zu bytes, over the limit of %ld", path, (size_t)len,
                             max_bytes);
    }
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1) /* + its NUL */;
    if (!*out) {
        int line, col;
        long offset = end ? (long)(end - text) : (long)len;
        sim_json_line_col(text, offset, &line, &col);
        sim_error_set(err, SIM_ERR_INPUT, "%s:%d:%d: %s", path, line, col,
                      is_truncated(text, (long)len, offset) ? "the JSON ends early (truncated file?)"
                                                             : "invalid JSON here");
    }
    g_free(text);
    return err->status;
}

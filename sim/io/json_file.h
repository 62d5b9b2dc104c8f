/* Reading a JSON file with cJSON and reporting syntax errors as `file:line:col: sentence`. */
#ifndef SIM_JSON_FILE_H
#define SIM_JSON_FILE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "status.h"

/* Parses the whole file ("-": standard input). On failure SIM_ERR_IO (unreadable, not a regular file: a FIFO would block),
 * SIM_ERR_LIMIT (over max_bytes, refused before reading) or SIM_ERR_INPUT (syntax, with line:col; nesting
 * deeper than cJSON's limit is said so). *out is owned by the caller (cJSON_Delete). */
SimStatus sim_json_parse_file(const char *path, long max_bytes, cJSON **out, SimError *err);
/* SIM_ERR_INPUT "file: /json/path: duplicate key" for the first object (in document order) that repeats a
 * key. O(nodes). */
SimStatus sim_json_check_duplicates(const cJSON *root, const char *file, SimError *err);
/* Reads a regular file (a FIFO or a device would block or never end) of at most max_bytes, checked
 * before reading: SIM_ERR_IO or SIM_ERR_LIMIT with a sentence. path "-" reads standard input to its end
 * (refused once over max_bytes). *text (NUL-terminated) is g_free'd by the
 * caller. */
SimStatus sim_json_read_file(const char *path, long max_bytes, char **text, size_t *len, SimError *err);
/* Whether text nests brackets deeper than cJSON parses (CJSON_NESTING_LIMIT): "too deep", not "invalid". */
bool sim_json_is_too_deep(const char *text, long len);
/* 1-based line and column of byte offset in text. */
void sim_json_line_col(const char *text, long offset, int *line, int *col);

#endif

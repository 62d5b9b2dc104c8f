/* Reading a JSON file with cJSON and reporting syntax errors as `file:line:col: sentence`. */
#ifndef SIM_JSON_FILE_H
#define SIM_JSON_FILE_H

#include <cjson/cJSON.h>

#include "status.h"

/* Parses the whole file. On failure SIM_ERR_IO (unreadable) or SIM_ERR_INPUT (syntax, with line:col).
 * *out is owned by the caller (cJSON_Delete). Files over max_bytes are refused before reading. */
SimStatus sim_json_parse_file(const char *path, long max_bytes, cJSON **out, SimError *err);
/* 1-based line and column of byte offset in text. */
void sim_json_line_col(const char *text, long offset, int *line, int *col);

#endif

/* The one JSON string escaper and the one CSV field writer of dashsim's hand-streamed outputs (Chrome
 * traces, sweep rows, per-phase CSV). Whole JSON documents are built with cJSON instead. */
#ifndef SIM_FORMAT_H
#define SIM_FORMAT_H

#include <stdio.h>

/* s as a JSON string: quotes, '"' and '\' escaped, control bytes as \u00XX; other bytes (UTF-8) as is. */
void sim_write_json_string(FILE *f, const char *s);
/* s as an RFC 4180 CSV field: as is, or quoted with '"' doubled when it holds ',', '"', CR or LF. */
void sim_write_csv_field(FILE *f, const char *s);

#endif

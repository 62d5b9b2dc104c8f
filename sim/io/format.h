/* The one JSON string escaper and the one CSV field writer of dashsim's hand-streamed outputs (Chrome
 * traces, sweep rows, per-phase CSV). Whole JSON documents are built with cJSON instead. */
#ifndef SIM_FORMAT_H
#define SIM_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* s as a JSON string: quotes, '"' and '\' escaped, control bytes as \u00XX; other bytes (UTF-8) as is. */
void sim_write_json_string(FILE *f, const char *s);
/* v as a JSON number when it is a whole decimal integer without leading zeros ("132", "-5"), else as a
 * JSON string: metadata held as text keeps its numbers numbers. */
void sim_write_json_value(FILE *f, const char *v);
/* s as an RFC 4180 CSV field: as is, or quoted with '"' doubled when it holds ',', '"', CR or LF. */
void sim_write_csv_field(FILE *f, const char *s);

/* A buffered writer for large outputs: integers formatted by hand into a 1 MB buffer written in one go,
 * the same bytes as printf's %d / %s. Errors are sticky: sim_writer_done reports any. */
typedef struct {
    FILE *f;
    char *buf;       /* owned */
    size_t len;
    bool is_bad;     /* a write failed */
} SimWriter;

void sim_writer_init(SimWriter *w, FILE *f);
void sim_writer_i64(SimWriter *w, int64_t v);
void sim_writer_str(SimWriter *w, const char *s);
void sim_writer_char(SimWriter *w, char c);
/* Writes what is buffered and frees the buffer; false if any write failed. */
bool sim_writer_done(SimWriter *w);

#endif

/* A streaming JSON reader (RFC 8259, strict) over a bounded input: tokens one at a time, so that a file
 * of millions of numbers is read without a tree of it; any value can also be built as a cJSON tree
 * (small parts: a trace's metadata). Errors are sentences with file:line:col; a key repeated in an
 * object is an error with the object's JSON path. Used by the trace reader (sim/io/trace_in.c). */
#ifndef SIM_JSON_STREAM_H
#define SIM_JSON_STREAM_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "input.h"

typedef enum {
    JSON_END,          /* after the top-level value: nothing but white space followed */
    JSON_OBJECT,       /* '{' */
    JSON_OBJECT_END,   /* '}' */
    JSON_ARRAY,        /* '[' */
    JSON_ARRAY_END,    /* ']' */
    JSON_KEY,          /* an object member's name: sim_json_stream_text */
    JSON_STRING,       /* sim_json_stream_text */
    JSON_NUMBER,       /* sim_json_stream_number */
    JSON_TRUE,
    JSON_FALSE,
    JSON_NULL,
} JsonToken;

typedef struct JsonStream JsonStream;

/* Reads from in (borrowed: it must outlive the stream). Owned: sim_json_stream_free. */
JsonStream *sim_json_stream_new(SimInput *in);
void sim_json_stream_free(JsonStream *s);
/* The next token, the grammar checked (commas, colons, brackets matched, one top-level value, nesting at
 * most CJSON_NESTING_LIMIT). SIM_ERR_INPUT "file:line:col: sentence", or the input's own error. */
SimStatus sim_json_stream_next(JsonStream *s, JsonToken *tok, SimError *err);
/* Inside an array: its next values while each is a plain integer (1 to 15 digits) after a comma and
 * spaces, all in the chunk at hand, into out (at most max); how many. The stream is then where as many
 * sim_json_stream_next calls would have left it; 0 (nothing taken) at anything else, for them to read.
 * (A trace's rows are millions of such numbers: a token each through the grammar cost 3x the bytes.) */
int sim_json_stream_plain_numbers(JsonStream *s, double *out, int max);
/* The decoded text of the last JSON_KEY or JSON_STRING (NUL-terminated; "\u0000" is refused). */
const char *sim_json_stream_text(const JsonStream *s);
/* The last JSON_NUMBER as a double (strtod's rounding; an integer below 2^53 exactly). */
double sim_json_stream_number(const JsonStream *s);
/* The value that starts with first (the token just read) as a cJSON tree, keys checked for repeats
 * ("file: /json/path: duplicate key", path below where: e.g. "/metadata"). *out owned (cJSON_Delete). */
SimStatus sim_json_stream_value(JsonStream *s, JsonToken first, const char *where, cJSON **out, SimError *err);
/* Reads past the rest of the value that starts with first. */
SimStatus sim_json_stream_skip(JsonStream *s, JsonToken first, SimError *err);

#endif

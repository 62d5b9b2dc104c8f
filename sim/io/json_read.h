/* Typed reads of a parsed JSON document that name the file and the JSON path of the first problem: the
 * profile readers' one vocabulary. Invariant: after the first error every read returns its lower bound (or
 * NULL) and leaves the error as it was, so a reader can read on and check the status once. */
#ifndef SIM_JSON_READ_H
#define SIM_JSON_READ_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct {
    const char *file;   /* for messages */
    SimError *err;      /* the first problem */
} JsonIn;

/* Member key of obj (an object), or NULL with "missing". */
const cJSON *sim_json_get(JsonIn *in, const cJSON *obj, const char *path, const char *key);
/* A number in [lo, hi]; an integer in [lo, hi]; a string of fewer than len bytes copied into out. */
double sim_json_num(JsonIn *in, const cJSON *obj, const char *path, const char *key, double lo, double hi);
int64_t sim_json_int(JsonIn *in, const cJSON *obj, const char *path, const char *key, int64_t lo, int64_t hi);
void sim_json_text(JsonIn *in, const cJSON *obj, const char *path, const char *key, char *out, size_t len);
/* An array member of 1 to max entries, or NULL. */
const cJSON *sim_json_array(JsonIn *in, const cJSON *obj, const char *path, const char *key, int max);
/* The keys of obj must all be in names (NULL-terminated): else "unknown key" with its path. */
void sim_json_known_keys(JsonIn *in, const cJSON *obj, const char *path, const char *const *names);

#endif

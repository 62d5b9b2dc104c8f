/* Typed, path-reporting reads of parsed JSON (json_read.h). Nothing is cast before it is range-checked. */
#include "json_read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const cJSON *sim_json_get(JsonIn *in, const cJSON *obj, const char *path, const char *key)
{
    if (in->err->status)
        return NULL;
    const cJSON *v = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
    if (!v)
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s: missing", in->file, path, key);
    return v;
}

double sim_json_num(JsonIn *in, const cJSON *obj, const char *path, const char *key, double lo, double hi)
{
    const cJSON *v = sim_json_get(in, obj, path, key);
    if (v && (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi)))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s: must be a number from %g to %g", in->file, path, key, lo, hi);
    return in->err->status ? lo : v->valuedouble;
}

int64_t sim_json_int(JsonIn *in, const cJSON *obj, const char *path, const char *key, int64_t lo, int64_t hi)
{
    double x = sim_json_num(in, obj, path, key, (double)lo, (double)hi);
    if (!in->err->status && x != floor(x))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s: must be an integer", in->file, path, key);
    return in->err->status ? lo : (int64_t)x;
}

void sim_json_text(JsonIn *in, const cJSON *obj, const char *path, const char *key, char *out, size_t len)
{
    const cJSON *v = sim_json_get(in, obj, path, key);
    if (v && (!cJSON_IsString(v) || strlen(v->valuestring) >= len))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s: must be a string of at most %zu bytes", in->file, path,
                      key, len - 1);
    if (!in->err->status)
        snprintf(out, len, "%s", v->valuestring);
}

const cJSON *sim_json_array(JsonIn *in, const cJSON *obj, const char *path, const char *key, int max)
{
    const cJSON *v = sim_json_get(in, obj, path, key);
    if (v && (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > max))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s: must be an array of 1 to %d entries", in->file, path, key,
                      max);
    return in->err->status ? NULL : v;
}

void sim_json_known_keys(JsonIn *in, const cJSON *obj, const char *path, const char *const *names)
{
    if (in->err->status || !cJSON_IsObject(obj))
        return;
    for (const cJSON *c = obj->child; c; c = c->next) {
        const char *const *n = names;
        while (*n && strcmp(*n, c->string) != 0)
            n++;
        if (!*n) {
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s: unknown key", in->file, path, c->string);
            return;
        }
    }
}

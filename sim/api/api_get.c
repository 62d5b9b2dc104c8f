/* Getters over the JSON results the library returns (dashsim_json_get_*): a field read by its JSON Pointer
 * (RFC 6901), so a C client needs no JSON parser and a new field in a result never changes the ABI.
 * Invariant: a getter changes *value only when it returns DASHSIM_OK. */
#include "dashsim/dashsim.h"

#include <glib.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"

/* The member of root at pointer ("" is root; "/a/0/b": key a, element 0, key b; "~1" is '/', "~0" '~'). */
static const cJSON *find(const cJSON *root, const char *pointer)
{
    const cJSON *at = root;
    while (at && *pointer == '/') {
        const char *end = strchr(pointer + 1, '/');
        size_t len = end ? (size_t)(end - pointer - 1) : strlen(pointer + 1);
        GString *key = g_string_sized_new(len);
        for (size_t i = 1; i <= len; i++) {
            bool is_escape = pointer[i] == '~' && i < len && (pointer[i + 1] == '0' || pointer[i + 1] == '1');
            g_string_append_c(key, is_escape ? (pointer[++i] == '0' ? '~' : '/') : pointer[i]);
        }
        char *stop = NULL;
        long index = cJSON_IsArray(at) ? strtol(key->str, &stop, 10) : -1;
        at = cJSON_IsArray(at) ? (stop && !*stop && key->len ? cJSON_GetArrayItem(at, (int)index) : NULL)
                               : cJSON_IsObject(at) ? cJSON_GetObjectItemCaseSensitive(at, key->str) : NULL;
        g_string_free(key, TRUE);
        pointer += len + 1;
    }
    return *pointer ? NULL : at;
}

/* The value at pointer in json, parsed into *root (owned), or a sentence. */
static const cJSON *lookup(const char *json, const char *pointer, cJSON **root, DashsimError *err)
{
    SimError e = { 0 };
    const cJSON *item = NULL;
    if (!json || !pointer)
        sim_error_set(&e, SIM_ERR_USAGE, "dashsim_json_get: %s is NULL", json ? "the pointer" : "the JSON text");
    else if (!(*root = cJSON_Parse(json)))
        sim_error_set(&e, SIM_ERR_INPUT, "dashsim_json_get: the text is not valid JSON");
    else if (!(item = find(*root, pointer)))
        sim_error_set(&e, SIM_ERR_INPUT, "dashsim_json_get: no member at '%.200s'", pointer);
    else if (cJSON_IsNull(item))
        sim_error_set(&e, SIM_ERR_INPUT, "dashsim_json_get: '%.200s' is null", pointer), item = NULL;
    if (e.status && err)
        err->status = (DashsimStatus)e.status, snprintf(err->message, sizeof err->message, "%s", e.msg);
    return item;
}

static DashsimStatus wrong_type(const char *pointer, const char *want, DashsimError *err)
{
    if (err)
        err->status = DASHSIM_ERR_INPUT,
        snprintf(err->message, sizeof err->message, "dashsim_json_get: '%.200s' is not %s", pointer, want);
    return DASHSIM_ERR_INPUT;
}

DashsimStatus dashsim_json_get_int64(const char *json, const char *pointer, int64_t *value, DashsimError *err)
{
    cJSON *root = NULL;
    const cJSON *item = lookup(json, pointer, &root, err);
    DashsimStatus status = item ? DASHSIM_OK : err ? err->status : DASHSIM_ERR_INPUT;
    if (item && (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble) || fabs(item->valuedouble) > 0x1p63))
        status = wrong_type(pointer, "an integer", err);
    else if (item)
        *value = (int64_t)item->valuedouble;
    cJSON_Delete(root);
    return status;
}

DashsimStatus dashsim_json_get_double(const char *json, const char *pointer, double *value, DashsimError *err)
{
    cJSON *root = NULL;
    const cJSON *item = lookup(json, pointer, &root, err);
    DashsimStatus status = item ? DASHSIM_OK : err ? err->status : DASHSIM_ERR_INPUT;
    if (item && !cJSON_IsNumber(item))
        status = wrong_type(pointer, "a number", err);
    else if (item)
        *value = item->valuedouble;
    cJSON_Delete(root);
    return status;
}

DashsimStatus dashsim_json_get_string(const char *json, const char *pointer, char **value, DashsimError *err)
{
    cJSON *root = NULL;
    const cJSON *item = lookup(json, pointer, &root, err);
    DashsimStatus status = item ? DASHSIM_OK : err ? err->status : DASHSIM_ERR_INPUT;
    if (item && !cJSON_IsString(item))
        status = wrong_type(pointer, "a string", err);
    else if (item && !(*value = strdup(item->valuestring)))
        g_error("out of memory");
    cJSON_Delete(root);
    return status;
}

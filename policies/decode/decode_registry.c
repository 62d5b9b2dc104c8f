/* The only list of decode split policies, and the parser of --split-policy values. Adding a policy = one
 * file + one line here. */
#include "decode_policy.h"

#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* One line per policy: the const DecodeSplitOps its file exports. Order = --list-policies order. */
#define DECODE_SPLIT_LIST(X)    \
    X(decode_split_fa3)         \
    X(decode_split_seq_aware)   \
    X(decode_split_fixed)       \
    X(decode_split_best)

#define DECLARE(ops) extern const DecodeSplitOps ops;
#define ENTRY(ops) &ops,
DECODE_SPLIT_LIST(DECLARE)
static const DecodeSplitOps *const registry[] = { DECODE_SPLIT_LIST(ENTRY) };

int decode_split_count(void)
{
    return (int)(sizeof registry / sizeof registry[0]);
}

const DecodeSplitOps *decode_split_at(int i)
{
    return i >= 0 && i < decode_split_count() ? registry[i] : NULL;
}

const DecodeSplitOps *decode_split_find(const char *name)
{
    for (int i = 0; i < decode_split_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

char *decode_split_names(const char *sep, const char *last_sep)
{
    GString *s = g_string_new(NULL);
    int n = decode_split_count(), k = 0;
    for (int pass = 0; pass < 2; pass++)   /* plain names first, then NAME:S */
        for (int i = 0; i < n; i++)
            if (registry[i]->has_arg == (pass == 1)) {
                g_string_append_printf(s, "%s%s%s", k == 0 ? "" : k == n - 1 && last_sep ? last_sep : sep,
                                       registry[i]->name, pass ? ":S" : "");
                k++;
            }
    return g_string_free(s, FALSE);
}

/* S of NAME:S: digits only, 1..SIM_DECODE_MAX_SPLITS. */
static bool parse_arg(const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || errno || *end || v < 1 || v > SIM_DECODE_MAX_SPLITS)
        return false;
    *out = (int)v;
    return true;
}

SimStatus decode_split_parse(const char *text, DecodeSplit *out, SimError *err)
{
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    for (int i = 0; i < decode_split_count(); i++) {
        const DecodeSplitOps *ops = registry[i];
        if (strlen(ops->name) != len || strncmp(ops->name, text, len) != 0)
            continue;
        *out = (DecodeSplit){ .ops = ops };
        if (!ops->has_arg && !colon)
            return SIM_OK;
        if (ops->has_arg && colon && parse_arg(colon + 1, &out->arg))
            return SIM_OK;
        break;
    }
    char *names = decode_split_names(", ", " or ");
    sim_error_set(err, SIM_ERR_USAGE, "--split-policy expects %s with S from 1 to %d, got '%s'", names,
                  SIM_DECODE_MAX_SPLITS, text);
    g_free(names);
    return err->status;
}

SimStatus decode_split_choose(const DecodeSplit *sp, const DecodeSplitQuery *q, int *splits, SimError *err)
{
    return sp->ops->choose(q, splits, err);
}

/* The only list of attention policies. Adding a policy = one file + one line here. */
#include "policy.h"

#include <string.h>

/* One line per policy: the const PolicyOps its file exports. Order = --list-policies order. */
#define POLICY_LIST(X)          \
    X(policy_fa3)               \
    X(policy_fa3_spt)           \
    X(policy_descending)        \
    X(policy_shift)             \
    X(policy_symmetric_shift)

#define DECLARE(ops) extern const PolicyOps ops;
#define ENTRY(ops) &ops,
POLICY_LIST(DECLARE)
static const PolicyOps *const registry[] = { POLICY_LIST(ENTRY) };

int policy_count(void)
{
    return (int)(sizeof registry / sizeof registry[0]);
}

const PolicyOps *policy_at(int i)
{
    return i >= 0 && i < policy_count() ? registry[i] : NULL;
}

const PolicyOps *policy_find(const char *name)
{
    for (int i = 0; i < policy_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

/* Levenshtein distance of a and b (lengths below 64; longer names are never close). O(|a| |b|). */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), row[64];
    if (la >= 64 || lb >= 64)
        return 64;
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best, diag = up;
        }
    }
    return row[lb];
}

const char *policy_suggest(const char *name)
{
    const char *best = NULL;
    int best_d = (int)strlen(name) / 3 + 1; /* more than a third of the name wrong: no guess */
    best_d = best_d < 3 ? best_d : 3;
    for (int i = 0; i < policy_count(); i++) {
        int d = edit_distance(name, registry[i]->name);
        if (d <= best_d && (d < best_d || !best))
            best = registry[i]->name, best_d = d;
    }
    for (int i = 0; !best && *name && i < policy_count(); i++) /* "symmetric" -> symmetric-shift */
        if (strstr(registry[i]->name, name))
            best = registry[i]->name;
    return best;
}

const PolicyOps *policy_for_mask(const PolicyOps *p, Mask mask)
{
    for (int i = 0; i < policy_count(); i++) {
        const PolicyOps *q = registry[i];
        bool fits = mask == MASK_FULL ? q->supports_full : q->supports_causal;
        if (q != p && fits && (strstr(q->name, p->name) || strstr(p->name, q->name)))
            return q;
    }
    return NULL;
}

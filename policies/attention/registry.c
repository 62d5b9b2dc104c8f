/* The only list of attention policies, for every mask. Adding a policy = one file + one line here. */
#include "policy.h"

#include <stdio.h>
#include <string.h>

/* One line per policy: the const PolicyOps its file exports. Order = --list-policies order, the order of
 * a sweep's "all" and of the plots' styles. */
#define POLICY_LIST(X)          \
    X(policy_fa3)               \
    X(policy_fa3_spt)           \
    X(policy_ascending)         \
    X(policy_descending)        \
    X(policy_spt)               \
    X(policy_shift)             \
    X(policy_symmetric_shift)   \
    X(policy_search)

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

bool policy_on_full(const Workload *wl) { return wl->mask == MASK_FULL; }
bool policy_on_causal(const Workload *wl) { return wl->mask == MASK_CAUSAL; }
bool policy_on_full_or_causal(const Workload *wl) { return wl->mask != MASK_BLOCK; }
bool policy_on_block(const Workload *wl) { return wl->mask == MASK_BLOCK; }
bool policy_on_any(const Workload *wl) { (void)wl; return true; }

bool policy_is_paper_shape(const Workload *wl, const PolicyCosts *c)
{
    return wl->kv_tiles == wl->n_sm && wl->q_tiles == wl->n_sm && wl->tile_ratio == 1 && wl->head_swizzle == 1 &&
           c->is_serial;
}

bool policy_supports(const PolicyOps *p, const Workload *wl)
{
    return p->supports(wl);
}

bool policy_closed_form(const PolicyOps *p, const Workload *wl, const PolicyCosts *c, int64_t *ns, bool *is_exact)
{
    *is_exact = false;
    return p->closed_form && p->closed_form(wl, c, ns, is_exact);
}

Workload policy_kind_workload(Mask mask)
{
    static const uint8_t keep = 1; /* the one pair of a block mask */
    return (Workload){ .mask = mask, .keep = mask == MASK_BLOCK ? &keep : NULL };
}

void policy_mask_names(const PolicyOps *p, char *buf, size_t len)
{
    buf[0] = 0;
    for (Mask m = MASK_FULL; m <= MASK_BLOCK; m++) {
        Workload kind = policy_kind_workload(m);
        if (p->supports(&kind))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", plan_mask_name(m));
    }
}

void policy_names_for(const Workload *wl, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < policy_count(); i++)
        if (registry[i]->supports(wl))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", registry[i]->name);
}

const PolicyOps *policy_for_mask(const PolicyOps *p, const Workload *wl)
{
    for (int i = 0; i < policy_count(); i++) {
        const PolicyOps *q = registry[i];
        if (q != p && q->supports(wl) && (strstr(q->name, p->name) || strstr(p->name, q->name)))
            return q;
    }
    return NULL;
}

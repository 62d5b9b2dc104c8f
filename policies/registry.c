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

/* The only list of attention policies. Adding a policy = one file + one line here. */
#include "policy.h"

#include <string.h>

extern const PolicyOps policy_fa3, policy_fa3_spt, policy_descending, policy_shift, policy_symmetric_shift;

static const PolicyOps *const registry[] = {
    &policy_fa3, &policy_fa3_spt, &policy_descending, &policy_shift, &policy_symmetric_shift,
};

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

/* The only list of pipeline policies. Adding a policy = one file + one line here. */
#include "pipeline_policy.h"

#include <glib.h>
#include <string.h>

/* One line per policy: the const PipePolicyOps its file exports. Order = --list-policies order. */
#define PIPE_POLICY_LIST(X)     \
    X(pipe_policy_serial)       \
    X(pipe_policy_preload)      \
    X(pipe_policy_amla)

#define DECLARE(ops) extern const PipePolicyOps ops;
#define ENTRY(ops) &ops,
PIPE_POLICY_LIST(DECLARE)
static const PipePolicyOps *const registry[] = { PIPE_POLICY_LIST(ENTRY) };

int pipe_policy_count(void)
{
    return (int)(sizeof registry / sizeof registry[0]);
}

const PipePolicyOps *pipe_policy_at(int i)
{
    return i >= 0 && i < pipe_policy_count() ? registry[i] : NULL;
}

const PipePolicyOps *pipe_policy_find(const char *name)
{
    for (int i = 0; i < pipe_policy_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

char *pipe_policy_names(const char *sep, const char *last_sep, bool is_cycle_request_only)
{
    const char *names[sizeof registry / sizeof registry[0]];
    int n = 0;
    for (int i = 0; i < pipe_policy_count(); i++)
        if (!is_cycle_request_only || registry[i]->has_cycle_request)
            names[n++] = registry[i]->name;
    GString *s = g_string_new(NULL);
    for (int i = 0; i < n; i++)
        g_string_append_printf(s, "%s%s", i == 0 ? "" : i == n - 1 && last_sep ? last_sep : sep, names[i]);
    return g_string_free(s, FALSE);
}

SimStatus pipe_policy_prepare(const PipePolicyOps *p, PipeWorkload *wl, SimError *err)
{
    return p->prepare ? p->prepare(wl, err) : SIM_OK;
}

SimStatus pipe_policy_build(const PipePolicyOps *p, const PipeWorkload *wl, const PipeCycleRequest *req,
                            PipeCycle *out, SimError *err)
{
    return p->build(wl, req, out, err);
}

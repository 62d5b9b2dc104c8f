/* Timed kernel runs (kernel_runs.h): lookup and lifetime. */
#include "kernel_runs.h"

#include <glib.h>
#include <string.h>

const KernelRun *sim_kernel_runs_find(const KernelRuns *r, const KernelRun *like)
{
    for (int i = 0; i < r->count; i++) {
        const KernelRun *x = &r->runs[i];
        if (!x->is_atomic && x->is_ok && x->seqlen == like->seqlen && x->batch == like->batch &&
            x->heads == like->heads && x->kv_heads == like->kv_heads && x->head_dim == like->head_dim &&
            x->mask == like->mask && strcmp(x->policy, like->policy) == 0)
            return x;
    }
    return NULL;
}

void sim_kernel_runs_free(KernelRuns *r)
{
    if (!r)
        return;
    g_free(r->path);
    g_free(r->runs);
    g_free(r);
}

void sim_kernel_stages_clear(KernelStageSweep *s)
{
    g_free(s->path);
    g_free(s->points);
    *s = (KernelStageSweep){ 0 };
}

/* Kernel profiles (kernel.h): tile lookup and the fixed costs of a launch. */
#include "kernel.h"

#include <glib.h>
#include <math.h>
#include <stdbool.h>

const KernelTile *sim_kernel_tile(const KernelProfile *k, int head_dim, Mask mask)
{
    const KernelTile *any = NULL;
    for (int i = 0; i < k->tile_count; i++) {
        const KernelTile *t = &k->tiles[i];
        if (t->head_dim != head_dim)
            continue;
        if (t->mask == (int)mask)
            return t;
        if (t->mask < 0 && !any)
            any = t;
    }
    return any;
}

void sim_kernel_stage_mib(const SimShape *s, double mib[2])
{
    double rows = (double)s->batch * (double)s->heads * (double)s->seqlen_q, d = (double)s->head_dim;
    double kv_rows = (double)s->batch * (double)(s->kv_heads > 0 ? s->kv_heads : s->heads) * (double)s->seqlen_k;
    const double per_mib = 1.0 / (1 << 20);
    mib[0] = (rows * d * 4                 /* dQaccum zeroed */
              + rows * d * 2 * 2 + rows * 4 * 3 /* O and dO read; LSE read, LSE2 and Delta written */
              + rows * d * (4 + 2)) * per_mib; /* dQaccum read, dQ written */
    bool is_gqa = s->kv_heads > 0 && s->kv_heads < s->heads;
    mib[1] = is_gqa ? (rows * d * 4 * 2 + kv_rows * d * 2 * 2) * per_mib : 0; /* fp32 partials read, dK/dV written */
}

double sim_kernel_table_ns(const KernelTable *t, double x)
{
    if (t->n < 2)
        return t->n ? t->ns[0] : 0;
    int i = 1;
    while (i < t->n - 1 && t->x[i] < x)
        i++;
    double ns = t->ns[i - 1] + (t->ns[i] - t->ns[i - 1]) * (x - t->x[i - 1]) / (t->x[i] - t->x[i - 1]);
    return ns > 0 ? ns : 0;
}

int64_t sim_kernel_fixed_ns(const KernelTile *t, const SimShape *shape)
{
    double mib[2];
    sim_kernel_stage_mib(shape, mib);
    double ns = t->fixed.base_ns + t->fixed.ns_per_mib * (mib[0] + mib[1]); /* every stage at one rate */
    if (mib[1] > 0)
        ns += t->fixed_gqa.base_ns + t->fixed_gqa.ns_per_mib * mib[1] + sim_kernel_table_ns(&t->sums, mib[1]);
    ns += sim_kernel_table_ns(&t->stages, (double)shape->batch * shape->heads * shape->seqlen_q);
    return ns > 0 ? llround(ns) : 0;
}

void sim_kernel_free(KernelProfile *k)
{
    if (!k)
        return;
    g_free(k->tiles);
    g_free(k);
}

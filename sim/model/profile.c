/* From a hardware profile to model costs. Curves are linear between measured points and flat beyond the
 * last one; compute scales with the clock (it is stored in cycles), everything else is in ns. */
#include "profile.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* Linear interpolation of (x[i], y[i]), x ascending; flat outside. */
static double interp(const int32_t *x, const int64_t *y, int n, double at)
{
    if (at <= x[0] || n == 1)
        return (double)y[0];
    for (int i = 1; i < n; i++)
        if (at <= x[i])
            return (double)y[i - 1] + (double)(y[i] - y[i - 1]) * (at - x[i - 1]) / (double)(x[i] - x[i - 1]);
    return (double)y[n - 1];
}

static const ProfileTile *find_tile(const HwProfile *p, int tile_m, int head_dim)
{
    for (int i = 0; i < p->tile_count; i++)
        if (p->tiles[i].tile_m == tile_m && p->tiles[i].head_dim == head_dim)
            return &p->tiles[i];
    return NULL;
}

static const ProfileReduce *find_reduce(const HwProfile *p, int tile_m, int head_dim, const char *op, int threads)
{
    for (int i = 0; i < p->reduce_count; i++) {
        const ProfileReduce *r = &p->reduces[i];
        if (r->tile_m == tile_m && r->head_dim == head_dim && strcmp(r->op, op) == 0 && r->threads == threads)
            return r;
    }
    return NULL;
}

/* The usual adders of ldst/red: the store warp (async) or the whole CTA (serial). Bulk: one thread. */
static int default_threads(const ProfileQuery *q)
{
    return q->reduce == REDUCE_ASYNC ? 32 : 256;
}

/* A reduction takes the larger of its time alone (on its SM: alone_ns) and the time the curve gives with k
 * in flight (the shared L2), so the slowdown is curve(k) / alone_ns, at least 1. */
static void fill_load(const HwProfile *p, const ProfileReduce *r, int64_t alone_ns, int n_sm, SimLoadModel *load)
{
    *load = (SimLoadModel){ .slowdown_len = n_sm, .handoff_len = n_sm };
    load->slowdown_ppm = g_new0(int32_t, n_sm + 1);
    load->handoff_extra_ns = g_new0(int32_t, n_sm + 1);
    double alone = (double)alone_ns;
    for (int k = 1; k <= n_sm; k++)
        load->slowdown_ppm[k] = (int32_t)MAX(1000000, llround(1e6 * interp(r->k, r->ns, r->points, k) / alone));
    for (int k = 0; k <= n_sm; k++)
        load->handoff_extra_ns[k] = p->handoff_points ?
            (int32_t)MAX(0, llround(interp(p->handoff_k, p->handoff_extra_ns, p->handoff_points, k))) : 0;
}

SimStatus sim_profile_costs(const HwProfile *p, const ProfileQuery *q, AttnCosts *costs, SimLoadModel *load,
                            SimError *err)
{
    const ProfileTile *tile = find_tile(p, q->tile_m, q->head_dim);
    int threads = strcmp(q->reduce_op, "bulk") == 0 ? 1 : q->reduce_threads > 0 ? q->reduce_threads : default_threads(q);
    const ProfileReduce *r = find_reduce(p, q->tile_m, q->head_dim, q->reduce_op, threads);
    if (!tile || !r)
        return sim_error_set(err, SIM_ERR_INPUT, "the profile (%s) has no %s for a %dx%d tile%s%s reduced by %d "
                             "thread(s)", p->source, !tile ? "compute measurement" : "reduction measurement",
                             q->tile_m, q->head_dim, tile ? " with " : "", tile ? q->reduce_op : "", threads);
    bool is_async = q->reduce == REDUCE_ASYNC;
    double clock = q->clock_mhz > 0 ? q->clock_mhz : p->clock_mhz;
    double cycles = is_async ? tile->fixed_cycles_store + tile->per_iter_cycles_store * q->compute_iters
                             : tile->fixed_cycles + tile->per_iter_cycles * q->compute_iters;
    int64_t compute_ns = llround(cycles * 1000.0 / clock);
    int64_t prologue = p->prologue_points ? llround(interp(p->prologue_tasks, p->prologue_ns, p->prologue_points,
                                                          q->tasks_per_cta)) : 0;
    int64_t stage = tile->stage_points ? llround(interp(tile->stage_iters, tile->stage_by_iters_ns, tile->stage_points,
                                                      q->compute_iters)) : tile->stage_serial_ns;
    /* async bulk: the reduction alone is the one measured beside the SM's own compute; the load curve
     * (the slowdown with k in flight) keeps its shape */
    int64_t alone = is_async && strcmp(q->reduce_op, "bulk") == 0 && tile->reduce_async_ns > 0 ? tile->reduce_async_ns
                                                                                               : r->ns[0];
    *costs = (AttnCosts){ .c_ns = compute_ns + (is_async ? 0 : stage + p->loop_gap_ns),
                          .r_ns = alone + p->acquire_ns, .latency_ns = p->handoff_ns, .reduce = q->reduce,
                          .dq_buffers = q->dq_buffers > 0 ? q->dq_buffers : 1,
                          .cta_prologue_ns = p->cta_gap_ns + prologue, .deposit_ns = is_async ? tile->deposit_ns : 0 };
    fill_load(p, r, alone, q->n_sm > 0 ? q->n_sm : p->sm_count, load);
    return SIM_OK;
}

void sim_profile_load_clear(SimLoadModel *load)
{
    g_free(load->slowdown_ppm);
    g_free(load->handoff_extra_ns);
    *load = (SimLoadModel){ 0 };
}

void sim_profile_free(HwProfile *p)
{
    if (!p)
        return;
    g_free(p->tiles);
    g_free(p->reduces);
    g_free(p);
}

/* The one costing path (costing.h). Order of precedence for each cost: the kernel profile's own measurement,
 * then the hardware profile, then the cost model; the report names which one each cost came from. */
#include "costing.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The tile: the kernel profile's for (head_dim, mask), else the one asked for, else FA3's table. */
static SimStatus pick_tile(const CostQuery *q, SimShape *s, const KernelTile **kt, SimError *err)
{
    *kt = q->kernel ? sim_kernel_tile(q->kernel, (int)s->head_dim, s->mask) : NULL;
    if (q->kernel && !*kt)
        return sim_error_set(err, SIM_ERR_USAGE, "the kernel profile %s has no tile for head_dim %lld with a %s mask",
                             q->kernel->name, (long long)s->head_dim, s->mask == MASK_CAUSAL ? "causal" : "full");
    if (*kt)
        s->block_m = (*kt)->block_m, s->block_n = (*kt)->block_n;
    else if (!s->block_m && !sim_cost_fa3_tile(s->head_dim, s->mask, &s->block_m, &s->block_n))
        return sim_error_set(err, SIM_ERR_USAGE, "FA3's sm90 backward has no deterministic tile for head_dim %lld "
                             "(64, 96, 128 and 192 have one; a kernel profile can give others)", (long long)s->head_dim);
    return SIM_OK;
}

/* The kernel's per-task costs (kernel.h) into costs. */
static void kernel_costs(const KernelProfile *k, const KernelTile *t, bool is_gqa, AttnCosts *costs)
{
    costs->c_ns = t->compute_ns, costs->c_diag_ns = t->diag_ns, costs->c_first_extra_ns = 0;
    costs->kv_write_ns = is_gqa && t->kv_write_gqa_ns > 0 ? t->kv_write_gqa_ns : t->kv_write_ns;
    costs->deposit_ns = t->deposit_ns;
    costs->cta_prologue_ns = t->cta_prologue_ns, costs->overlap = t->overlap;
    costs->overlap.is_write_extra_at_start = k->is_write_rule_start;
    costs->launch_extra_ns = t->launch_extra_ns, costs->kv_switch_ns = t->kv_switch_ns;
    costs->cta_first_extra_ns = t->cta_first_extra_ns, costs->store_warps = t->store_warps;
    costs->cta_gap_ns = t->cta_gap_ns, costs->clock = t->clock;
    costs->is_release_at_read = k->release == KERNEL_RELEASE_AT_READ;
    if (t->reduce_read_ns > 0) { /* measured in the kernel itself, at the load it ran: no load model on top */
        costs->r_ns = t->reduce_read_ns + t->reduce_tail_ns;
        costs->reduce_read_ns = t->reduce_read_ns;
        if (t->reduce_read_waited_ns > 0)
            costs->waited = (SimWaitedReduce){ (int32_t)(t->reduce_read_waited_ns - t->reduce_read_ns),
                                               (int32_t)(t->reduce_tail_waited_ns - t->reduce_tail_ns),
                                               (int32_t)t->reduce_turn_jitter_ns,
                                               (int32_t)t->reduce_waited_slope_milli, (int32_t)t->reduce_waited_k_ref };
    }
}

/* The profile's measured tile whose dQ tile is nearest in bytes to block_m x head_dim, the same block_m
 * first (its bulk reduction measured too); 0 if none. */
static int nearest_measured(const HwProfile *p, int block_m, int head_dim, int *tile_m)
{
    int best = 0;
    double best_gap = 0;
    for (int i = 0; i < p->reduce_count; i++) {
        const ProfileReduce *r = &p->reduces[i];
        double gap = fabs(log((double)r->tile_m * r->head_dim / ((double)block_m * head_dim))) + (r->tile_m != block_m);
        if (strcmp(r->op, "bulk") == 0 && (!best || gap < best_gap))
            best = r->head_dim, *tile_m = r->tile_m, best_gap = gap;
    }
    return best;
}

/* r, hand-off, deposit and the load model from the hardware profile (bulk reduction of the dQ tile). A tile
 * the profile did not measure (head_dim 96 or 192 under the H100 profile) takes the nearest measured one's,
 * its reduction times scaled by the dQ tile's bytes: an estimate that the report states (the reduction is
 * bandwidth-bound, so its time and its extra under load scale with its bytes; the hand-off does not). */
static SimStatus hw_costs(const CostQuery *q, const SimCost *cost, AttnCosts *costs, SimLoadModel *load,
                          CostReport *rep, SimError *err)
{
    ProfileQuery pq = { .tile_m = cost->block_m, .head_dim = (int)q->shape.head_dim, .reduce = costs->reduce,
                        .reduce_op = "bulk", .dq_buffers = costs->dq_buffers, .n_sm = cost->wl.n_sm,
                        .tasks_per_cta = 1 };
    AttnCosts c;
    SimError why = { 0 };
    double scale = 1;
    if (sim_profile_costs(q->hw, &pq, &c, load, &why) != SIM_OK) {
        int tile_m = 0, head_dim = nearest_measured(q->hw, cost->block_m, (int)q->shape.head_dim, &tile_m);
        scale = head_dim ? (double)cost->block_m * (double)q->shape.head_dim / ((double)tile_m * head_dim) : 1;
        ProfileQuery near = pq;
        near.tile_m = tile_m, near.head_dim = head_dim;
        SimError ignored = { 0 };
        if (!head_dim || sim_profile_costs(q->hw, &near, &c, load, &ignored) != SIM_OK)
            return sim_error_set(err, SIM_ERR_USAGE, "the hardware profile cannot cost a %d x %lld tile: %s (--model "
                                 "paper uses the cost model instead)", cost->block_m, (long long)q->shape.head_dim, why.msg);
        int64_t acquire = q->hw->acquire_ns; /* inside r: a semaphore's, not bytes */
        c.r_ns = acquire + llround((double)(c.r_ns - acquire) * scale), c.deposit_ns = llround((double)c.deposit_ns * scale);
        for (int k = 0; k < load->extra_len; k++)
            load->extra_ns[k] = (int32_t)lround(load->extra_ns[k] * scale);
        snprintf(rep->reduce_from, sizeof rep->reduce_from, "hardware profile %.64s (bulk reduction, load model), "
                 "its %dx%d tile's scaled by the dQ tile's bytes (x%.3f, an estimate)", q->hw->gpu_name, tile_m,
                 head_dim, scale);
    } else
        snprintf(rep->reduce_from, sizeof rep->reduce_from, "hardware profile %s (bulk reduction, load model)",
                 q->hw->gpu_name);
    costs->r_ns = c.r_ns, costs->latency_ns = c.latency_ns, costs->load = load;
    if (!q->kernel)
        costs->deposit_ns = c.deposit_ns;
    return SIM_OK;
}

/* A profile measured on another GPU than the preset's stands in for it only with a statement: appended to the
 * source it fed, naming the GPU it was measured on and the one asked for (no profile of that one was given). */
static void note_other_gpu(const CostQuery *q, const char *measured_on, char *from, size_t len)
{
    char gpu[16];
    sim_cost_preset_gpu(q->hardware ? NULL : q->preset, gpu, sizeof gpu);
    if (!*gpu || strstr(measured_on, gpu))
        return;
    size_t n = strlen(from);
    snprintf(from + n, len - n, "; measured on %s: no %s profile, another GPU's numbers",
             *measured_on ? measured_on : "an unnamed GPU", gpu);
}

SimStatus sim_cost_tasks(const CostQuery *q, AttnCosts *costs, CostReport *rep, SimLoadModel *load, SimError *err)
{
    SimHardware hw;
    *load = (SimLoadModel){ 0 };
    *rep = (CostReport){ 0 };
    if (q->hardware)
        hw = *q->hardware;
    else if (!sim_cost_preset(q->preset, &hw))
        return sim_error_set(err, SIM_ERR_USAGE, "unknown hardware preset '%s' (one of %s)", q->preset,
                             sim_cost_preset_names());
    SimShape s = q->shape;
    const KernelTile *kt;
    if (pick_tile(q, &s, &kt, err) != SIM_OK)
        return err->status;
    if (!s.seqlen_q) /* a tile-level query: one tile's worth of shape, for the cost model's per-tile costs */
        s.seqlen_q = s.seqlen_k = s.block_n, s.batch = s.heads = 1;
    sim_cost_derive(&s, &hw, &rep->cost);
    int buffers = q->dq_buffers > 0 ? q->dq_buffers : q->kernel ? q->kernel->dq_buffers : 1;
    *costs = (AttnCosts){ .c_ns = rep->cost.c_ns, .r_ns = rep->cost.r_ns, .latency_ns = hw.latency_near_ns,
                          .reduce = q->reduce, .dq_buffers = buffers };
    snprintf(rep->compute_from, sizeof rep->compute_from, "FLOPs cost model of preset %s (an estimate: no kernel "
             "profile)", hw.preset);
    snprintf(rep->reduce_from, sizeof rep->reduce_from, "cost model of preset %s (tile bytes over L2 bandwidth)",
             hw.preset);
    bool has_own_reduce = kt && kt->reduce_read_ns > 0; /* the kernel measured its own: no hardware needed */
    if (q->hw && !has_own_reduce) {
        if (hw_costs(q, &rep->cost, costs, load, rep, err) != SIM_OK)
            return err->status;
        note_other_gpu(q, q->hw->gpu_name, rep->reduce_from, sizeof rep->reduce_from);
    }
    if (!kt)
        return SIM_OK;
    kernel_costs(q->kernel, kt, q->shape.kv_heads > 0 && q->shape.kv_heads < q->shape.heads, costs);
    if (kt->handoff_ns > 0)
        costs->latency_ns = kt->handoff_ns;
    if (has_own_reduce) {
        snprintf(rep->reduce_from, sizeof rep->reduce_from, "kernel profile %s (its own reduction, release at %s)",
                 q->kernel->name, q->kernel->release == KERNEL_RELEASE_AT_READ ? "read" : "completion");
        note_other_gpu(q, q->kernel->gpu_name, rep->reduce_from, sizeof rep->reduce_from);
    }
    rep->fixed_ns = q->shape.seqlen_q ? sim_kernel_fixed_ns(kt, &s) : 0;
    rep->first_compute_ns = kt->cta_prologue_ns;
    snprintf(rep->compute_from, sizeof rep->compute_from, "kernel profile %s (%s%s)", q->kernel->name,
             q->kernel->method, kt->traces ? ", measured on traces" : "");
    note_other_gpu(q, q->kernel->gpu_name, rep->compute_from, sizeof rep->compute_from);
    return SIM_OK;
}

int64_t sim_cost_time_ns(const CostReport *rep, int64_t makespan_ns)
{
    return rep->fixed_ns > 0 ? rep->fixed_ns + makespan_ns - rep->first_compute_ns : makespan_ns;
}

SimStatus sim_cost_attention(const CostQuery *q, Workload *wl, AttnCosts *costs, CostReport *rep, SimLoadModel *load,
                             SimError *err)
{
    if (!q->shape.seqlen_q || !q->shape.batch || !q->shape.heads)
        return sim_error_set(err, SIM_ERR_USAGE, "a shape needs seqlen, batch and heads");
    if (q->shape.batch < 0 || q->shape.heads < 0 || q->shape.batch > INT32_MAX / q->shape.heads)
        return sim_error_set(err, SIM_ERR_LIMIT, "batch %" PRId64 " x heads %" PRId64 " is over the 2^31 - 1 heads "
                             "a job can hold", q->shape.batch, q->shape.heads);
    if (sim_cost_tasks(q, costs, rep, load, err) != SIM_OK)
        return err->status;
    *wl = rep->cost.wl;
    if (q->kernel && q->kernel->head_swizzle == 1)
        wl->head_swizzle = 1;
    if (q->kernel && rep->cost.block_n % rep->cost.block_m == 0) /* a kernel's plans carry its tile ratio */
        wl->tile_ratio = rep->cost.block_n / rep->cost.block_m;
    return SIM_OK;
}

/* The shape front end (shape.h): FA3's tile and swizzle from the cost model's tables, c from its FLOP
 * estimate, r, latency, deposit and the load model from the measured profile. */
#include "shape.h"

#include <string.h>

SimStatus sim_shape_job(const ShapeQuery *q, AttnJob *job, SimCost *cost, SimLoadModel *load, SimError *err)
{
    SimHardware hw;
    if (!sim_cost_preset(q->preset, &hw))
        return sim_error_set(err, SIM_ERR_USAGE, "unknown hardware preset '%s' (one of %s)", q->preset,
                             sim_cost_preset_names());
    SimShape s = q->shape;
    if (!s.block_m && !sim_cost_fa3_tile(s.head_dim, s.mask, &s.block_m, &s.block_n))
        return sim_error_set(err, SIM_ERR_USAGE, "FA3's sm90 backward has no deterministic tile for head_dim %lld "
                             "(64, 96, 128 and 192 have one)", (long long)s.head_dim);
    sim_cost_derive(&s, &hw, cost);
    job->wl = cost->wl;
    job->costs = (AttnCosts){ .c_ns = cost->c_ns, .r_ns = cost->r_ns, .latency_ns = hw.latency_near_ns,
                              .reduce = q->reduce, .dq_buffers = q->dq_buffers };
    *load = (SimLoadModel){ 0 };
    if (!q->profile)
        return SIM_OK;
    ProfileQuery pq = { .tile_m = cost->block_m, .head_dim = (int)s.head_dim, .reduce = q->reduce,
                        .reduce_op = "bulk", .dq_buffers = q->dq_buffers, .n_sm = job->wl.n_sm, .tasks_per_cta = 1 };
    AttnCosts c;
    SimError why = { 0 };
    if (sim_profile_costs(q->profile, &pq, &c, load, &why) != SIM_OK)
        return sim_error_set(err, SIM_ERR_USAGE, "the profile cannot cost a %d x %lld tile: %s (--model paper uses "
                             "the cost model instead)", cost->block_m, (long long)s.head_dim, why.msg);
    job->costs.r_ns = c.r_ns, job->costs.latency_ns = c.latency_ns, job->costs.deposit_ns = c.deposit_ns;
    job->costs.load = load;
    return SIM_OK;
}

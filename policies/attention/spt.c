/* spt: FA3's causal default (shortest processing time first, fa3-spt) generalised to block masks. One CTA
 * per (KV head, KV tile with work), the tiles with the fewest kept Q tiles launched first, Q tiles ascending,
 * every row accumulated in launch order (tile_order.c). */
#include "policy.h"

static SimStatus spt_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    (void)err;
    plan_add_tile_order(plan, q->gqa_group, PLAN_TILES_SPT);
    return SIM_OK;
}

const PolicyOps policy_spt = {
    .name = "spt",
    .summary = "FA3's shortest-first launch on a block mask: fewest kept Q tiles first, rows in launch order",
    .supports = policy_on_block,
    .has_gqa = true,
    .build = spt_build,
};

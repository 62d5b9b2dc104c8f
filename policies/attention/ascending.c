/* ascending: FA3's order generalised to block masks. One CTA per (KV head, KV tile with work), launched head
 * by head with KV tiles ascending, Q tiles ascending, every row accumulated in launch order (tile_order.c).
 * It is the full mask's fa3 order on the pairs a block mask keeps: the baseline the search is measured against. */
#include "policy.h"

static SimStatus ascending_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    (void)err;
    plan_add_tile_order(plan, q->gqa_group, PLAN_TILES_ASCENDING);
    return SIM_OK;
}

const PolicyOps policy_ascending = {
    .name = "ascending",
    .summary = "FA3's order on a block mask: head by head, KV tiles and their Q tiles ascending",
    .supports = policy_on_block,
    .has_gqa = true,
    .build = ascending_build,
};

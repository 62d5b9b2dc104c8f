/* search: the schedule search (sim/model/search/search.h) as a policy. Its plan depends on the costs, so it asks
 * the query's search hook, the one way time reaches a policy; sim/model supplies the hook (the search's
 * defaults: 100 moves, seed 1). The plan is named by what found it (a layout: "search"; else a baseline). */
#include "policy.h"

static SimStatus search_build(Plan *plan, const PolicyQuery *q, SimError *err)
{
    Plan *found = NULL;
    if (q->search(q->ctx, q, &found, err) != SIM_OK)
        return err->status;
    Plan spare = *plan; /* the found plan's content replaces the empty one: the caller keeps its pointer */
    *plan = *found, *found = spare;
    plan_free(found);
    return SIM_OK;
}

const PolicyOps policy_search = {
    .name = "search",
    .summary = "Schedule search on a block mask: constructive layout, local search, exact for small cases",
    .supports = policy_on_block,
    .is_timed = true,
    .has_gqa = true,
    .build = search_build,
};

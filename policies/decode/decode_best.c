/* best: the simulator's own optimum, an oracle no host heuristic can be: every split count in
 * 1..min(128, num_n_blocks) is simulated through the query's callback; ties go to the fewest splits. */
#include "decode_policy.h"

static SimStatus best_choose(const DecodeSplitQuery *q, int *splits, SimError *err)
{
    return decode_split_argmin(q, splits, NULL, err);
}

const DecodeSplitOps decode_split_best = {
    .name = "best",
    .summary = "the simulator's optimum over s = 1..min(128, num_n_blocks), fewest splits on ties",
    .has_arg = false,
    .choose = best_choose,
};

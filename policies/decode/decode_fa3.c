/* fa3: FA3's num_splits_heuristic as get_num_splits calls it (max_splits 128, no causal mask): no split
 * when the m-blocks nearly fill the SMs or num_n_blocks <= 4, else the 0.85 wave-efficiency loop. */
#include "decode_policy.h"

static SimStatus fa3_choose(const DecodeSplitQuery *q, int *splits, SimError *err)
{
    (void)err;
    *splits = sim_decode_fa3_splits(q->geometry, q->shape->n_sm, false, SIM_DECODE_MAX_SPLITS_HEURISTIC);
    return SIM_OK;
}

const DecodeSplitOps decode_split_fa3 = {
    .name = "fa3",
    .summary = "FA3's num_splits_heuristic: no split if num_n_blocks <= 4, else the 0.85 wave-efficiency loop",
    .has_arg = false,
    .choose = fa3_choose,
};

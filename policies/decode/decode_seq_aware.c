/* seq-aware: the paper's sequence-aware rule (Llopart Font et al. 2026, Figure 2): FA3's heuristic with its
 * num_n_blocks <= 4 guard replaced, so that the low-tile boundary bucket (4 blocks, fewer than 4 m-blocks) gets 3 splits. */
#include "decode_policy.h"

static SimStatus seq_aware_choose(const DecodeSplitQuery *q, int *splits, SimError *err)
{
    (void)err;
    *splits = sim_decode_seq_aware_splits(q->geometry, q->shape->n_sm, false, SIM_DECODE_MAX_SPLITS_HEURISTIC);
    return SIM_OK;
}

const DecodeSplitOps decode_split_seq_aware = {
    .name = "seq-aware",
    .summary = "the paper's rule: as fa3, but 3 splits when num_n_blocks == 4 and total_mblocks < 4",
    .has_arg = false,
    .choose = seq_aware_choose,
};

/* fixed:S: S splits whatever the shape, as when the caller passes num_splits explicitly. The registry's
 * parser has already checked S in 1..SIM_DECODE_MAX_SPLITS. */
#include "decode_policy.h"

static SimStatus fixed_choose(const DecodeSplitQuery *q, int *splits, SimError *err)
{
    (void)err;
    *splits = q->arg;
    return SIM_OK;
}

const DecodeSplitOps decode_split_fixed = {
    .name = "fixed",
    .summary = "fixed:S runs S splits (1..256), as a num_splits passed explicitly",
    .has_arg = true,
    .choose = fixed_choose,
};

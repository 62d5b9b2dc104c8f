/* Mask files (docs/masks.md): a block mask as dense rows of 0/1 per KV tile, or a list of kept
 * (KV tile, Q tile) pairs. Strict: every line checked, errors as file:line and a sentence. */
#ifndef SIM_MASK_IO_H
#define SIM_MASK_IO_H

#include "mask.h"

/* Reads path into *out (owned: sim_mask_clear). SIM_ERR_IO / SIM_ERR_INPUT; sizes above 2^30 pairs are
 * refused before allocating. */
SimStatus sim_mask_read(const char *path, BlockMask *out, SimError *err);

#endif

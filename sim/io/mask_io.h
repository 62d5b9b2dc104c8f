/* Mask files (docs/masks.md): a block mask as dense rows of 0/1 per KV tile, or a list of kept
 * (KV tile, Q tile) pairs. Strict: every line checked, errors as file:line and a sentence. */
#ifndef SIM_MASK_IO_H
#define SIM_MASK_IO_H

#include "mask.h"

/* Reads path (through sim/io/input.h: a regular file, .gz allowed, at most 1 GiB read or decompressed,
 * lines streamed) into *out (owned: sim_mask_clear). SIM_ERR_IO / SIM_ERR_INPUT; SIM_ERR_LIMIT before
 * allocating when the tiles are over 2^30 pairs or their one byte each is over max_bytes. O(file). */
SimStatus sim_mask_read_capped(const char *path, int64_t max_bytes, BlockMask *out, SimError *err);
/* sim_mask_read_capped with a 1 GiB mask at most. */
SimStatus sim_mask_read(const char *path, BlockMask *out, SimError *err);

#endif

/* Block masks (docs/masks.md): which (KV tile, Q tile) pairs an attention backward computes, in tile
 * units, the same for every head. Generators for the common masks and the spec syntax of --mask; the
 * file format is read by sim/io/mask_io.c. A mask feeds Workload.keep (MASK_BLOCK). */
#ifndef SIM_MASK_H
#define SIM_MASK_H

#include <stdint.h>

#include "plan.h"
#include "status.h"

typedef struct {
    int kv_tiles, q_tiles;
    uint8_t *keep;        /* kv_tiles x q_tiles, keep[kv * q_tiles + q]; owned */
    char spec[128];       /* how it was made, for reports: "window:8", "file:m.txt" */
} BlockMask;

/* Makes the mask of spec for kv_tiles x q_tiles tiles. spec (tile units, q and kv tiles the same size):
 *   full | causal (kv <= q) | window:W (causal, the W latest: q - W < kv <= q) | window:L:R (q - L <= kv
 *   <= q + R) | document:L1,L2,... (causal inside each segment; the lengths sum to the tiles) | prefix:P
 *   (kv < P for every row, causal after) | random:DENSITY:SEED (each pair kept with that probability, a
 *   seeded generator; the diagonal always kept so every row and KV tile has work).
 * SIM_ERR_USAGE with a sentence naming the spec on a bad one. O(kv_tiles * q_tiles). */
SimStatus sim_mask_make(const char *spec, int kv_tiles, int q_tiles, BlockMask *out, SimError *err);
/* Workload for the mask: MASK_FULL / MASK_CAUSAL for those specs (so the registered policies apply), else
 * MASK_BLOCK with keep borrowed from m (m must outlive it). Sets the tiles and tile ratio 1. */
void sim_mask_apply(const BlockMask *m, Workload *wl);
/* Pairs the mask keeps. */
int64_t sim_mask_count(const BlockMask *m);
void sim_mask_clear(BlockMask *m);

#endif

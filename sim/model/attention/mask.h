/* Block masks (docs/masks.md): which (KV tile, Q tile) pairs an attention backward computes, in tile
 * units, the same for every head. Generators for the common masks and the spec syntax of --mask; the
 * file format is read by sim/io/mask_io.c. A mask feeds Workload.keep (MASK_BLOCK). */
#ifndef SIM_MASK_H
#define SIM_MASK_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"
#include "status.h"

typedef struct {
    int kv_tiles, q_tiles;
    uint8_t *keep;        /* kv_tiles x q_tiles, keep[kv * q_tiles + q]; owned */
    char spec[128];       /* how it was made, for reports: "window:8", "file:m.txt" */
} BlockMask;

/* Makes the mask of spec for kv_tiles x q_tiles tiles. spec (tile units, q and kv tiles the same size):
 * one of the kinds of mask.c's table (sim_mask_kind_at: full, causal, window, document, prefix, random);
 * the random mask keeps the diagonal so every row and KV tile has work. SIM_ERR_USAGE with a sentence
 * naming the spec and every kind on a bad one. O(kv_tiles * q_tiles). */
SimStatus sim_mask_make(const char *spec, int kv_tiles, int q_tiles, BlockMask *out, SimError *err);
/* sim_mask_make under a cap: SIM_ERR_LIMIT with a sentence, before anything is allocated or filled, when
 * the mask's kv_tiles x q_tiles bytes are over max_bytes. */
SimStatus sim_mask_make_capped(const char *spec, int kv_tiles, int q_tiles, int64_t max_bytes, BlockMask *out,
                               SimError *err);
/* The mask kinds (one entry per spec form): kind i's syntax ("window:W") and the pairs it keeps, in words;
 * false past the last. */
int sim_mask_kind_count(void);
bool sim_mask_kind_at(int i, const char **syntax, const char **keeps);
/* Every kind's syntax joined by sep ("full, causal, window:W, ..."), only the block masks' (those with an
 * argument) when is_block_only. Caller frees (g_free). */
char *sim_mask_syntax(const char *sep, bool is_block_only);
/* Whether spec names a block mask's kind ("window:..."); its numbers are checked by sim_mask_make. */
bool sim_mask_is_block_kind(const char *spec);
/* Workload for the mask: MASK_FULL / MASK_CAUSAL for those specs (so the registered policies apply), else
 * MASK_BLOCK with keep borrowed from m (m must outlive it). Sets the tiles and tile ratio 1. */
void sim_mask_apply(const BlockMask *m, Workload *wl);
/* A mask in tokens over a kernel's tiles (sim_mask_from_tokens). */
typedef struct {
    int64_t seqlen_q, seqlen_k;   /* tokens; the queries sit at the end of the keys when seqlen_k > seqlen_q */
    int64_t block_m, block_n;     /* the kernel's tiles: query rows per Q tile, keys per KV tile */
} MaskTokens;
/* The most (KV tile, Q tile) pairs a mask in tokens may make (a byte each). */
#define SIM_MASK_MAX_PAIRS (1 << 28)
/* The tile mask of spec in tokens (window:W, window:L:R, document:L1,L2,..., prefix:P: docs/masks.md) over
 * shape's tiles: a pair is kept when any of its query rows keeps any of its keys; *kept_pairs: the (query, key)
 * pairs the token mask keeps (its FLOPs). SIM_ERR_USAGE with a sentence on a bad spec, or a mask that keeps
 * nothing; SIM_ERR_LIMIT above SIM_MASK_MAX_PAIRS tiles. Time O(seqlen_q + kv_tiles x q_tiles). */
SimStatus sim_mask_from_tokens(const char *spec, const MaskTokens *shape, BlockMask *out, int64_t *kept_pairs,
                               SimError *err);
/* Pairs the mask keeps. */
int64_t sim_mask_count(const BlockMask *m);
void sim_mask_clear(BlockMask *m);

#endif

/* Split-KV decode split policies (Llopart Font et al. 2026), timing-free: the decode shape, FA3's tile geometry as the
 * num_splits heuristic sees it, FA3's heuristic and the paper's sequence-aware rule, and the split policy
 * registry. A policy sees time only through the simulate callback of its query (sim/model/decode/decode.h
 * supplies sim_decode_run). Invariant: every policy returns a split count in 1..SIM_DECODE_MAX_SPLITS.
 * Adding a split policy: one file exporting a const DecodeSplitOps, one line in decode_registry.c. */
#ifndef DECODE_POLICY_H
#define DECODE_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

typedef enum { DECODE_BF16, DECODE_FP16, DECODE_FP8 } DecodeDtype;

/* One decode step of one attention layer. */
typedef struct {
    int batch;           /* B */
    int hq, hkv;         /* query heads and KV heads; hq a multiple of hkv (PackGQA packs a group) */
    int lq;              /* query tokens per sequence (1 for plain decode) */
    int64_t lk;          /* KV length, tokens */
    int head_dim;        /* d = dv */
    DecodeDtype dtype;
    bool is_paged;       /* paged KV (no TMA): FA3 keeps 128-wide KV blocks */
    int n_sm;            /* SMs of the device */
    int kblock_m, kblock_n; /* forward tile; 0 = FA3's sm90 choice for head_dim/dtype/paged */
} DecodeShape;

/* What FA3's get_num_splits sees; derived from a shape by sim_decode_geometry (sim/model/decode/decode.h). */
typedef struct {
    int kblock_m, kblock_n;    /* the tile used */
    int64_t n_blocks;          /* num_n_blocks = ceil(lk / kblock_n) */
    int64_t num_m_blocks;      /* per (batch, kv head): ceil(lq * hq/hkv / kblock_m) */
    int64_t total_mblocks;     /* batch * hkv * num_m_blocks */
    int64_t size_one_kv_head;  /* lk * (d + dv) * element bytes */
} DecodeGeometry;

/* Most splits a fixed policy may ask for: FA3's combine kernel handles up to 256. */
#define SIM_DECODE_MAX_SPLITS 256
/* get_num_splits passes max_splits = 128 to the heuristic; `best` searches the same range. */
#define SIM_DECODE_MAX_SPLITS_HEURISTIC 128

/* FA3's num_splits_heuristic (hopper/heuristics.h), float arithmetic as upstream. Pure; O(max_splits). */
int sim_decode_fa3_splits(const DecodeGeometry *g, int n_sm, bool is_causal, int max_splits);
/* The paper's Figure 2 rule: FA3 with its num_n_blocks <= 4 guard replaced. Pure; O(max_splits). */
int sim_decode_seq_aware_splits(const DecodeGeometry *g, int n_sm, bool is_causal, int max_splits);

/* What a split policy is asked: the shape, its geometry, the policy's argument, and time on demand. */
typedef struct {
    const DecodeShape *shape;
    const DecodeGeometry *geometry;
    int arg;                   /* S of NAME:S for has_arg policies; 0 otherwise */
    /* The simulated latency of splits (1..SIM_DECODE_MAX_SPLITS); errors from the simulation. */
    SimStatus (*simulate)(void *ctx, int splits, int64_t *latency_ns, SimError *err);
    void *simulate_ctx;
} DecodeSplitQuery;

/* The split count in 1..min(SIM_DECODE_MAX_SPLITS_HEURISTIC, n_blocks) with the lowest simulated latency
 * (ties: fewest splits); latency_ns may be NULL. O(n_blocks) simulations. */
SimStatus decode_split_argmin(const DecodeSplitQuery *q, int *splits, int64_t *latency_ns, SimError *err);

typedef struct {
    const char *name;
    const char *summary;       /* one line for --list-policies */
    bool has_arg;              /* written NAME:S (fixed) */
    /* Sets *splits. Errors only from q->simulate. */
    SimStatus (*choose)(const DecodeSplitQuery *q, int *splits, SimError *err);
} DecodeSplitOps;

/* A parsed --split-policy value. */
typedef struct {
    const DecodeSplitOps *ops;
    int arg;                   /* S of NAME:S; 0 otherwise */
} DecodeSplit;

/* Registry (decode_registry.c): the only list. find: by bare name, NULL when unknown. */
int decode_split_count(void);
const DecodeSplitOps *decode_split_at(int i);
const DecodeSplitOps *decode_split_find(const char *name);
/* The names as the user writes them, those without an argument first, then NAME:S, joined by sep and the
 * last by last_sep when not NULL ("fa3, seq-aware, best or fixed:S"). Caller frees (g_free). */
char *decode_split_names(const char *sep, const char *last_sep);
/* Parses NAME or NAME:S (S in 1..SIM_DECODE_MAX_SPLITS for has_arg policies); SIM_ERR_USAGE with a sentence
 * naming every policy otherwise. O(policies). */
SimStatus decode_split_parse(const char *text, DecodeSplit *out, SimError *err);
/* Thin wrapper over the choose hook. */
SimStatus decode_split_choose(const DecodeSplit *sp, const DecodeSplitQuery *q, int *splits, SimError *err);

#endif

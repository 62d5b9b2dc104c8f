/* The shape ranking ("which schedule for my shape?"): one shape costed through the one costing path, every
 * policy for its mask (or the one named) run on it, and the ranking read off: the fastest, FA3's baselines,
 * and the rows the model cannot order (a tie: within the validated error of the fastest). The shape front end
 * (sim --seqlen) prints this; it holds no model logic of its own. */
#ifndef SIM_SHAPE_H
#define SIM_SHAPE_H

#include "costing.h"
#include "job.h"
#include "kernel.h"
#include "mask.h"
#include "profile.h"

#define SIM_SHAPE_MAX_ROWS 64

typedef struct {
    const char *policy;             /* registry name (static storage) */
    int64_t makespan_ns, total_ns;  /* the engine's makespan; with the launch's fixed costs */
    double tflops;                  /* backward FLOPs over total_ns */
    double clock_mhz;               /* the launch's mean SM clock under the kernel profile's clock dip (docs/profile.md,
                                     * "The clock dip at launch"); 0: the profile has no clock model */
} ShapeRow;

/* A policy the ranking left out (its plan does not fit the shape) and the policy's sentence why. */
typedef struct {
    const char *policy;
    char reason[sizeof ((SimError *)0)->msg];
} ShapeAbsent;

/* Caller-owned (sim_shape_rank fills it in place; it must not be copied afterwards: job.costs points into
 * load); sim_shape_ranking_clear frees what it holds. */
typedef struct {
    AttnJob job;                    /* the costed job: workload and task costs of the shape, the given outputs */
    CostReport rep;                 /* where c and r came from, the fixed costs, the FLOPs */
    SimLoadModel load;              /* the hardware profile's load model (job.costs points here) */
    BlockMask block;                /* a mask in tokens as tiles (job.wl borrows it); empty otherwise */
    int kept_tiles;                 /* (KV, Q) tile pairs kept per head under a block mask; 0 otherwise */
    ShapeRow rows[SIM_SHAPE_MAX_ROWS];
    int n, win, fa3, spt;           /* row count; fastest, and the baselines' rows (-1: absent) */
    ShapeAbsent absent[SIM_SHAPE_MAX_ROWS];
    int absent_count;
    double error;                   /* the validated error a lead must beat (a fraction) */
    const char *error_from;         /* where that error came from, in words */
    int tied[SIM_SHAPE_MAX_ROWS], tie_count; /* rows within error of the fastest, it first; 1: no tie */
} ShapeRanking;

/* The costing of a shape with its mask as the front end takes it (configs cost theirs here too): token_mask NULL,
 * q->shape as is (sim_cost_attention); else a block mask's spec in tokens (mask_tokens.c), costed as the causal
 * shape (FA3 takes the causal tiles for local masks too), its tile mask over those tiles in *block (caller-owned,
 * sim_mask_clear) applied to *wl, the FLOPs of the (query, key) pairs it keeps in rep->cost.bwd_flops, and the
 * (KV, Q) tile pairs kept per head in *kept_tiles (0 without a token mask). Errors of the costing and the mask
 * unchanged. O(n_sm + seqlen + tiles). */
SimStatus sim_shape_cost(const CostQuery *q, const char *token_mask, Workload *wl, AttnCosts *costs, CostReport *rep,
                         SimLoadModel *load, BlockMask *block, int *kept_tiles, SimError *err);
/* Costs q's shape (token_mask: a block mask in tokens, mask_tokens.c, over the kernel's tiles of the causal
 * shape; NULL: q->shape.mask as is), then runs given->policy ("all": every policy that takes the mask; one whose
 * plan does not fit the shape is listed in absent) with given's memory cap and engine choice, no outputs. The
 * baselines are fa3 and fa3-spt, or ascending and spt under a token mask (FA3's orders on a block mask).
 * SIM_ERR_USAGE when no policy fits or the name is unknown; the costing's and the engine's errors unchanged.
 * O(policies x one job run). */
/* progress (may be NULL) is called before each policy runs and once at the end (done == total), with the
 * policy about to run (NULL at the end). */
typedef void (*SimShapeProgress)(void *ctx, int done, int total, const char *policy);
SimStatus sim_shape_rank(const CostQuery *q, const char *token_mask, const AttnJob *given, ShapeRanking *out,
                         SimShapeProgress progress, void *progress_ctx, SimError *err);
void sim_shape_ranking_clear(ShapeRanking *r);
/* A shape as its front ends give it (sim --seqlen ..., dashsim_shape_json); sim_shape_query_resolve fills the
 * defaults. Borrowed strings. */
typedef struct {
    int64_t seqlen, seqlen_k;       /* tokens per sequence (Q, K); seqlen_k 0: seqlen */
    int64_t head_dim, batch;        /* 0: 128, 1 */
    int64_t kv_heads;               /* GQA: KV heads per sample; 0: as many as heads */
    const char *token_mask;         /* window:W, document:L1,..., prefix:P in tokens; NULL: the job's full/causal */
    const char *preset;             /* hardware preset; NULL: h100-sxm */
    const char *profile_name;       /* hardware profile, a name or a file; NULL: the preset's own or the default */
    const char *kernel_name;        /* kernel profile, a name or a file; NULL: none (FA3's tiles, FLOPs compute) */
    bool is_paper;                  /* the paper's model: no hardware profile */
} ShapeQuery;

/* q's defaults filled in (seqlen_k, head_dim, batch, preset). */
void sim_shape_query_resolve(ShapeQuery *q);

/* The profiles a shape is costed with, found from any directory (sim/io/datadir.h) and read. Caller-owned;
 * sim_shape_profiles_clear frees them. */
typedef struct {
    HwProfile *hw;                  /* NULL under the paper's model */
    KernelProfile *kernel;          /* NULL: none named */
    char hw_path[4096], kernel_path[4096]; /* where they were found */
} ShapeProfiles;
SimStatus sim_shape_profiles_load(const ShapeQuery *q, ShapeProfiles *pf, SimError *err);
void sim_shape_profiles_clear(ShapeProfiles *pf);
/* sim_shape_rank of a resolved query with its profiles: the shape of q, heads, mask, reduction, dQ buffers and
 * policy from given. */
SimStatus sim_shape_rank_query(const ShapeQuery *q, const ShapeProfiles *pf, const AttnJob *given, ShapeRanking *out,
                               SimShapeProgress progress, void *progress_ctx, SimError *err);

/* The speedup of row `base` over the fastest (1.0: it is the fastest); 0 when base is -1. */
double sim_shape_margin(const ShapeRanking *r, int base);

#endif

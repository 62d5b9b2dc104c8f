/* Schedule search for any block mask (docs/masks.md): lower bounds, the hand-made orders as baselines,
 * a constructive schedule that generalises the DASH ideas, local search with the event engine as the
 * evaluator, and an exhaustive search for tiny instances. Every schedule it returns passed plan_check and
 * ran to completion on the engine (so it is deadlock-free under the dispatch model). Deterministic: the
 * same workload, costs and options give the same plan. */
#ifndef SIM_SEARCH_H
#define SIM_SEARCH_H

#include "attention.h"

/* Lower bounds on the makespan (ns), in two spaces (docs/masks.md). */
typedef struct {
    /* Every plan plan_check accepts (a KV tile may be split over CTAs): */
    int64_t work_ns;         /* the SM with the most tasks, ceil(tasks / n), running them alone */
    int64_t row_ns;          /* the longest dQ row: one compute, then its reductions one after another */
    int64_t lower_bound_ns;  /* the larger of the two */
    /* One CTA per (KV head, KV tile), the search's space, on top of those: */
    int64_t chain_ns;        /* the CTA with the most tasks (with GQA: its group's) on one SM */
    int64_t packing_ns;      /* the CTAs as indivisible jobs on n SMs (bin-packing bounds) */
    int64_t space_bound_ns;  /* the largest of all four */
} SearchBounds;

typedef struct {
    char name[64];           /* "ascending", "descending", "spt", or "policy:NAME" for a registered policy */
    int64_t makespan_ns;
} SearchBaseline;

typedef struct {
    int iterations;          /* local-search moves (each one engine run or two); 0: none */
    uint32_t seed;           /* of the moves' random choices */
    int64_t exact_max_nodes; /* the exact search (instances of at most 64 tasks) gives up after this many
                              * partial schedules (0: no exact search) */
    int32_t gqa_group;       /* GQA: query heads per KV head (1 or 0: none). A KV tile's CTA then serves the
                              * group's query heads one after another, as FA3's GQA backward does */
    void (*progress)(void *ctx, int done, int total, int64_t best_ns); /* optional, after each move */
    void *progress_ctx;
} SearchOptions;

#define SIM_SEARCH_MAX_BASELINES 12

typedef struct {
    Plan *plan;              /* the best schedule found; owned (plan_free) */
    int64_t makespan_ns;
    char origin[64];         /* what found it: "constructive", "local search", "exact", or a baseline */
    SearchBounds bounds;
    SearchBaseline baselines[SIM_SEARCH_MAX_BASELINES];
    int baseline_count;
    int64_t evaluations;     /* engine runs */
    bool has_exact;          /* proved optimal: no persistent schedule with one CTA per (KV head, KV tile) is
                              * faster than makespan_ns (the exact search completed, or the bound is met) */
    int64_t exact_ns;        /* then: makespan_ns */
    int64_t exact_nodes;     /* partial schedules the exact search visited (0: it did not run) */
} SearchResult;

/* gqa_group: query heads per KV head (a KV tile's CTA runs all of theirs); 1 for none. O(N * M + tasks). */
void sim_search_bounds(const Workload *wl, const AttnCosts *costs, int32_t gqa_group, SearchBounds *out);
/* Searches a schedule for wl under costs. SIM_ERR_LIMIT when the workload has no task. */
SimStatus sim_search(const Workload *wl, const AttnCosts *costs, const SearchOptions *o, SearchResult *out,
                     SimError *err);
void sim_search_result_clear(SearchResult *r);

/* The orders a block mask (MASK_BLOCK) takes where full and causal take a registered policy: the
 * hand-made orders below and "search" (sim_search, 100 moves, seed 1), in this order. */
#define SIM_SEARCH_ORDER_COUNT 4
extern const char *const sim_search_orders[SIM_SEARCH_ORDER_COUNT];
/* The static name of a search order, or NULL when name is none. */
const char *sim_search_order_name(const char *name);
bool sim_search_order_known(const char *name);

/* The plan of a hand-made order by name ("ascending", "descending", "spt"), as the search's baselines
 * build it; NULL for another name. Owned by the caller (plan_free). */
Plan *sim_search_handmade(const Workload *wl, const char *name, int32_t gqa_group);

/* The accumulation order as an int32 table an external kernel can read: rows (head-major, then Q tile)
 * x contributors, entry [row][k] = the KV tile of rank k, -1 past the row's contributors. Returns the
 * table (g_free) and sets *contributors to its width. */
int32_t *sim_search_rank_table(const Plan *plan, int32_t *contributors);

#endif

/* Schedule search for any block mask (docs/masks.md): lower bounds in two spaces, the hand-made orders as
 * baselines, a constructive schedule that generalises the DASH ideas, local search that times layouts
 * without the event engine (to the engine's nanosecond), and an exact branch and bound for small instances.
 * Every schedule it returns passed plan_check and ran to completion on the engine (so it is deadlock-free
 * under the dispatch model). Deterministic: the same workload, costs and options give the same plan. */
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
    int iterations;          /* local-search moves (each timed once or twice); 0: none */
    uint32_t seed;           /* of the moves' random choices */
    int64_t exact_max_nodes; /* the exact step (instances of at most 64 tasks) gives up after this many
                              * partial schedules (0: no exact step) */
    int64_t exact_max_ms;    /* and after this many milliseconds of wall time (0: no time bound); a search
                              * that stops on time says so (SearchResult.exact_stop): only then may the same
                              * inputs give another plan on a slower machine */
    int32_t gqa_group;       /* GQA: query heads per KV head (1 or 0: none). A KV tile's CTA then serves the
                              * group's query heads one after another, as FA3's GQA backward does */
    /* optional: after each move ("moves") and every 65536 nodes of the exact search ("exact nodes") */
    void (*progress)(void *ctx, const char *phase, int64_t done, int64_t total, int64_t best_ns);
    void *progress_ctx;
    /* optional: the caller's time budget and cancel hook (status.h), checked after each move and every 4096
     * nodes of the exact step; when it runs out sim_search returns SIM_ERR_LIMIT. Borrowed; NULL: none */
    const SimBudget *budget;
} SearchOptions;

/* The options every entry point searches with unless told otherwise (sim search, the registered policy
 * "search" in jobs, configs, sweeps and the library): 100 moves, seed 1, the exact step within 2,000,000
 * partial schedules and 10 s, no GQA. */
SearchOptions sim_search_options_default(void);

/* Moves the exact step makes from the accepted layout before its branch and bound, while the best is
 * above the space bound. */
#define SIM_SEARCH_EXACT_MOVES 5000

/* Why the exact step ended (SearchResult.exact_stop). */
typedef enum {
    SEARCH_EXACT_BOUND,      /* the best meets the space bound: proved optimal, no search needed */
    SEARCH_EXACT_COMPLETE,   /* the branch and bound searched the whole space: proved optimal */
    SEARCH_EXACT_NODES,      /* it gave up after exact_max_nodes partial schedules: not proved */
    SEARCH_EXACT_TIME,       /* it gave up after exact_max_ms: not proved */
    SEARCH_EXACT_SIZE,       /* not run: more than 64 tasks: not proved */
    SEARCH_EXACT_OFF,        /* not run: exact_max_nodes is 0: not proved */
} SearchExactStop;

/* "bound", "complete", "nodes", "time", "size", "off". */
const char *sim_search_exact_stop_name(SearchExactStop stop);

#define SIM_SEARCH_MAX_BASELINES 12

/* What a search holds and does, known before it allocates (sim_search_size). */
typedef struct {
    int64_t tasks, rows, items; /* tasks; dQ rows with work; CTAs (KV head x KV tile with work) */
    double bytes;               /* peak memory, the mask itself not counted */
    double work;                /* task visits: timing a layout visits each task once (an engine run counts
                                 * as 20); the exact search visits its nodes' tasks */
} SearchSize;

/* The time bound: a search whose work is above this many task visits is refused (SIM_ERR_LIMIT). At
 * about 13 ns a visit (measured at 340k tasks), 2^34 visits take about 4 minutes on one core. */
#define SIM_SEARCH_MAX_WORK (INT64_C(1) << 34)

typedef struct {
    Plan *plan;              /* the best schedule found; owned (plan_free) */
    int64_t makespan_ns;
    char origin[64];         /* what found it: "constructive", "local search", "exact", or a baseline */
    SearchBounds bounds;
    SearchBaseline baselines[SIM_SEARCH_MAX_BASELINES];
    int baseline_count;
    int64_t evaluations;     /* timings of a layout (by the walk or the engine) and engine runs of plans */
    bool has_exact;          /* proved optimal: no persistent schedule with one CTA per (KV head, KV tile) is
                              * faster than makespan_ns (the exact search completed, or the bound is met) */
    int64_t exact_ns;        /* then: makespan_ns */
    int64_t exact_nodes;     /* partial schedules the exact search visited (0: it did not run) */
    SearchExactStop exact_stop; /* why the exact step ended; has_exact is true for BOUND and COMPLETE only */
} SearchResult;

/* gqa_group: query heads per KV head (a KV tile's CTA runs all of theirs); 1 for none. O(N * M + tasks). */
void sim_search_bounds(const Workload *wl, const AttnCosts *costs, int32_t gqa_group, SearchBounds *out);
/* The search's size for wl under costs and options; engine_bytes_per_op: the engine's peak bytes per op
 * (sim/run/job.h). SIM_ERR_LIMIT with a sentence when it has no task. O(N x M / 8 + N). */
SimStatus sim_search_size(const Workload *wl, const AttnCosts *costs, const SearchOptions *o,
                          double engine_bytes_per_op, SearchSize *out, SimError *err);
/* Searches a schedule for wl under costs. costs is the one way task costs enter the search: plain ones (no
 * load model, no kernel-profile part) are timed by its own walk, which equals the engine; any others by the
 * engine through sim_attention_program, and bounds and pruning use the plain model below them. SIM_ERR_LIMIT
 * when the workload has no task, more than 2^29, or its work is above SIM_SEARCH_MAX_WORK. Time O(N x M / 8
 * + work), memory O(tasks + M) (sim_search_size). */
SimStatus sim_search(const Workload *wl, const AttnCosts *costs, const SearchOptions *o, SearchResult *out,
                     SimError *err);
void sim_search_result_clear(SearchResult *r);

/* The plan of a tile order (policy.h: ascending, descending, spt) with GQA group, as the search's baselines
 * build it. Owned by the caller (plan_free). O(tasks + N x M / 8). */
Plan *sim_search_handmade(const Workload *wl, PlanTileOrder order, int32_t gqa_group);

/* The query a policy is built with under costs (borrowed; it must outlive the query): the search hook runs
 * sim_search with sim_search_options_default() and gqa_group, the exact step included. */
PolicyQuery sim_policy_query(const Workload *wl, const AttnCosts *costs, int32_t gqa_group);

/* The accumulation order as an external kernel reads it (the rank file, docs/masks.md): rows (head-major,
 * then Q tile) in compressed-row form, each row's KV tiles in rank order. Sized to the content: 4 bytes a
 * row and a task. */
typedef struct {
    int32_t heads, q_tiles, kv_tiles;
    int64_t entries;         /* tasks */
    int32_t *row_first;      /* heads x q_tiles + 1 offsets into kv (tasks < 2^31); owned */
    int32_t *kv;             /* row (h, q) adds its tiles kv[row_first[h * q_tiles + q] ..] in this order; owned */
} SearchRanks;

/* The rank file's first 8 bytes. */
#define SIM_SEARCH_RANKS_MAGIC "DSRANKS1"

/* The accumulation order of a checked plan. O(tasks + heads x q_tiles). */
void sim_search_ranks(const Plan *plan, SearchRanks *out);
void sim_search_ranks_clear(SearchRanks *r);

#endif

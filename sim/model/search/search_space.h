/* The schedule search's space, shared by sim/model/search*.c and not installed: the kept (head, KV tile,
 * Q tile) triples numbered densely as tasks (every array is linear in tasks, never heads x N x M), items (a
 * KV tile of a KV head: one persistent CTA), layouts (items placed on SM slots, each with its task order)
 * and their evaluation. Invariant: the makespan and compute ends search_eval gives for a layout are the
 * engine's for the plan search_layout_plan builds from it, to the nanosecond. */
#ifndef SIM_SEARCH_SPACE_H
#define SIM_SEARCH_SPACE_H

#include "search.h"

typedef struct {
    int32_t head, kv;      /* head: the KV head (with GQA, query heads head*group .. +group-1); kv: KV tile */
    int32_t tile;          /* index of kv among the KV tiles that keep a pair */
    int32_t slot, pos;     /* the SM slot, and the place in its sequence (distinct per slot; gaps allowed) */
    int32_t offset;        /* the item's tasks start at this index of its list, cyclically */
    bool is_reverse;
} Item;

/* How a layout's rows are ranked: by the tasks' depths in their slots (ties: lower slot), or by the
 * compute ends of the previous evaluation (ties: lower KV tile), the readiness order. */
typedef enum { RANK_BY_DEPTH, RANK_BY_READINESS } RankMode;

typedef struct {
    int64_t end_ns;              /* -1 until it has run */
    int32_t slot;                /* of its task */
} Reduction;

typedef struct {
    const Workload *wl;
    const AttnCosts *costs;      /* the one source of task costs (the engine runs plans under them) */
    AttnCosts model;             /* the plain model the walk times: costs themselves when plain, else the
                                  * plain model below them (search_eval.c: plain_below), for bounds */
    int32_t group;               /* GQA: query heads per KV head */
    bool is_fast;                /* plain costs: layouts are timed by the walk, not the engine */
    /* One head's kept pairs by KV tile: tile j is KV tile tile_kv[j], its rows pair_q[tile_first[j] ..
     * tile_first[j + 1]), ascending. */
    int32_t tile_count, q_count; /* KV tiles and Q tiles that keep a pair */
    int32_t *tile_kv, *tile_first, *pair_q;
    int32_t *pair_row;           /* the index of the pair's Q tile among the Q tiles that keep a pair */
    int64_t pairs, tasks, rows;  /* per head; in all (< 2^31: search_space_init checks); dQ rows with work */
    /* Tasks: item (head, tile) owns [item_first .. + group x its rows); task k of an item is query head
     * head * group + k / rows, pair tile_first + k % rows. */
    int32_t *task_row;           /* its dQ row: query head x q_count + pair_row */
    int32_t *task_kv;
    int32_t *row_first;          /* rows + 1: offsets of each row's contributors in row_pos */
    /* The last evaluation (sized on first use, reused). Slot-major indices: slot u's tasks in program
     * order are at slot_first[u] ..; positions number them depth by depth (search_eval.c says why), and
     * the per-task arrays below but slot_pos and row_pos are per position. */
    int32_t slots, placed;       /* slots (n_sm) and tasks (all) in the arrays below */
    int32_t *slot_first, *slot_cta_first; /* slots + 1 offsets: slot-major indices; the slots' CTAs */
    int32_t *cta_len, *item_index; /* per CTA (slot by slot): its tasks, its index in the items */
    int32_t *slot_pos;           /* slot-major index -> position */
    int32_t *seq;                /* the task at a position */
    int32_t *pred;               /* the rank order: the position ranked before in the row; -1: none */
    int32_t *row_last;           /* per row: its last position in that order */
    int32_t *row_pos;            /* the same order as each row's positions, CSR by row_first, when made
                                  * (search_last_ranks) */
    int64_t *c_end, *d_end;      /* compute and deposit (async; NULL in serial) end */
    Reduction *red;              /* the reduction at a position: end, slot (one cache line for both) */
    bool is_ranked_by_last;      /* the links hold the last run's readiness, not the ranks it ran with */
    int64_t evaluations;
} Search;

/* The largest instance the exact search takes (a CTA's tasks are a 64-bit set there). */
#define SEARCH_EXACT_MAX_TASKS 64
/* The most tasks the search numbers (positions and op ids stay in 32 bits with room). */
#define SEARCH_MAX_TASKS (INT32_MAX / 4)

/* The space's size without building it: SIM_ERR_LIMIT with a sentence when the workload has no task.
 * O(N x M / 8 + N) time, O(M) memory. */
SimStatus search_space_size(const Workload *wl, int32_t group, SearchSize *out, SimError *err);
/* Sets the space up for wl under costs (search_space_size's errors, and SIM_ERR_LIMIT above
 * SEARCH_MAX_TASKS); O(N x M / 8 + tasks) time, O(tasks + M) memory. search_space_clear also after an
 * error. */
SimStatus search_space_init(Search *s, const Workload *wl, const AttnCosts *costs, int32_t group, SimError *err);
void search_space_clear(Search *s);
/* Bytes the space and its evaluation hold. */
double search_space_bytes(const SearchSize *size, int32_t n_sm);

/* The lower bounds of both spaces (search_bounds.c). O(tasks + rows). */
void search_bounds(const Search *s, SearchBounds *out);
/* The items of every (KV head, kept KV tile), head by head; *items owned by the caller. */
int search_items(const Search *s, Item **items);
int32_t search_item_rows(const Search *s, const Item *it);   /* its tasks: group x the tile's rows */
int64_t search_item_first(const Search *s, const Item *it);  /* its first task */
/* Query head and Q tile of task k of an item (its natural order). O(1). */
void search_item_pair(const Search *s, const Item *it, int32_t k, int32_t *head, int32_t *q);
/* Query head and Q tile of a task. O(log KV tiles). */
void search_task_pair(const Search *s, int32_t task, int32_t *head, int32_t *q);

/* Sorts items by launch (place, then slot), the order plans and moves see. */
void search_sort_items(Item *items, int n);
/* Evaluates items (sorted) with ranks by mode (RANK_BY_READINESS: the previous evaluation's compute ends,
 * which must be of the same layout). The makespan, or INT64_MAX when the ranks deadlock; the ends and the
 * rank order (pred) are the run's. A walk (RANK_BY_READINESS, no load model) may stop once some slot
 * cannot end before stop_ns and return INT64_MAX, its arrays part-filled: for a caller that only asks
 * whether the layout beats stop_ns (INT64_MAX: never stops; the makespan is exact below stop_ns). O(tasks) without a load model, plus the
 * insertion sort of the rows by readiness; with one, an engine run. */
int64_t search_eval(Search *s, const Item *items, int n, RankMode mode, int64_t stop_ns);
/* The evaluation arrays (search_eval allocates them on first use). */
void search_alloc_eval(Search *s);
/* The fixed-duration schedule of what the evaluation arrays hold (slots, placed, slot_first, slot_cta_first,
 * cta_len, slot_pos, red[].slot, pred; any ranking, any subset of the tasks): the slots advance in step,
 * each as far as the reductions it waits on allow; every op once, no event queue. The makespan, INT64_MAX when
 * the ranks deadlock; each slot's end into slot_end (slots entries) unless NULL. Unless stop_ns is INT64_MAX, every 4th round
 * looks for a slot that cannot end before stop_ns (its time and the work it has left) and returns INT64_MAX
 * when it finds one: the result is the makespan when that is below stop_ns. O(placed + slots). */
int64_t search_walk(Search *s, int64_t *slot_end, int64_t stop_ns);
/* The ranks the last evaluation ran with, as s->row_pos (made now), or NULL when it ranked by depth (a
 * one-pass evaluation leaves the next ranking in the links). O(tasks). */
const int32_t *search_last_ranks(Search *s);
/* The plan of items (sorted) ranked by row_pos: the last evaluation's (s->row_pos, of these items), a copy
 * of an earlier one's of these items, or NULL for ranks by depth. When plan_pos is not NULL it gets, per
 * plan task, its position (tasks entries). Owned by the caller. */
Plan *search_layout_plan(Search *s, const Item *items, int n, const int32_t *row_pos, const char *name,
                         int32_t *plan_pos);
/* A lower bound on the makespan of any ranking of this layout: its busiest slot's work. O(items). */
int64_t search_layout_bound(const Search *s, const Item *items, int n);

/* Branch and bound over the persistent one-CTA-per-(KV head, KV tile) schedules (search_exact.c) of items
 * (one per KV head x tile, natural order), for a schedule faster than upper_ns, within max_nodes partial
 * schedules and until g_get_monotonic_time() passes deadline_us (o->progress told). Returns
 * SEARCH_EXACT_COMPLETE when it searched the whole space: then no schedule of it is faster than upper_ns or
 * *plan; else SEARCH_EXACT_NODES or SEARCH_EXACT_TIME. *plan: the fastest it found below upper_ns (NULL if
 * none; owned by the caller), of makespan *plan_ns; *nodes: the partial schedules it visited. */
SearchExactStop search_exact(Search *s, const Item *items, int n, int64_t upper_ns, const SearchOptions *o,
                             int64_t max_nodes, int64_t deadline_us, Plan **plan, int64_t *plan_ns, int64_t *nodes);
/* Whether the load model (if any) never makes a reduction faster than alone nor a hand-off shorter: then
 * no schedule is faster under the costs than under model, and pruning by the walk's timings is valid. */
bool search_is_monotone(const Search *s);

#endif

/* Attention schedules: a policy turns a workload into a plan (sim/core/plan.h). Every plan a policy
 * returns has passed plan_check, the same check a plan read from a file or by gpu/ passes. A policy sees
 * time only through its query's search hook (sim/model supplies it), as a decode split policy does through
 * its simulate callback (decode_policy.h). Adding a policy: one file exporting a const PolicyOps, one line
 * in registry.c. */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* The paper's cost model a closed form is stated in (sim/model fills it from its costs). */
typedef struct {
    int64_t c_ns, r_ns;        /* compute and reduction of one task */
    int64_t latency_ns;        /* on each cross-SM accumulation edge */
    bool is_serial;            /* a reduction blocks the next compute (the paper's model) */
} PolicyCosts;

typedef struct PolicyQuery PolicyQuery;

/* What a policy is asked: the workload, and time on demand. */
struct PolicyQuery {
    const Workload *wl;
    int32_t gqa_group;         /* query heads one CTA of a KV tile serves, one after another (0 or 1: none);
                                * policies without has_gqa refuse more than 1 */
    /* The schedule search of q->wl under the costs the caller holds (sim/model/search/search.h: its best plan,
     * named by what found it); NULL: no costs given, and timed policies refuse to build. */
    SimStatus (*search)(void *ctx, const PolicyQuery *q, Plan **plan, SimError *err);
    void *ctx;
};

typedef struct {
    const char *name;
    const char *summary;                       /* one line for --list-policies */
    /* Whether the policy schedules wl's mask (the kind: full, causal or a block mask). A build may still
     * refuse a size with a sentence (symmetric-shift on odd N). */
    bool (*supports)(const Workload *wl);
    bool is_timed;             /* the plan depends on the costs (through q->search): a trace's plan file,
                                * not a rebuild, says what ran, and the search does not take it as a baseline */
    bool has_gqa;              /* honours q->gqa_group */
    /* Fills plan->ctas/tasks (the caller has set wl and policy, and room for every kept pair; a timed
     * policy gets no room and moves its search's plan into *plan). SIM_ERR_SCHEDULE with a sentence when
     * the workload does not suit the policy (e.g. odd N for symmetric-shift). */
    SimStatus (*build)(Plan *plan, const PolicyQuery *q, SimError *err);
    /* Optional (NULL: none). The DASH paper's formula for wl under c, when it gives one (sets *ns), and
     * whether the simulator reproduces it exactly for this input (*is_exact; conditions in README, tested
     * in tests/test_closed_forms.c). */
    bool (*closed_form)(const Workload *wl, const PolicyCosts *c, int64_t *ns, bool *is_exact);
} PolicyOps;

/* Registry: the only list of policies. NULL when the name is unknown. */
const PolicyOps *policy_find(const char *name);
int policy_count(void);
const PolicyOps *policy_at(int i);
/* The registered name closest to a misspelled one (edit distance at most a third of its length, at most 3;
 * else a name containing it), for "did you mean"; NULL when none is close. O(policies x length^2). */
const char *policy_suggest(const char *name);
/* supports hooks for the common cases: the full mask, the causal one, both, any block mask, every mask. */
bool policy_on_full(const Workload *wl);
bool policy_on_causal(const Workload *wl);
bool policy_on_full_or_causal(const Workload *wl);
bool policy_on_block(const Workload *wl);
bool policy_on_any(const Workload *wl);
/* The shape the paper's closed forms are stated for: n = SMs = KV tiles = Q tiles, tile ratio 1, heads one
 * after another (head swizzle 1), serial reduction. */
bool policy_is_paper_shape(const Workload *wl, const PolicyCosts *c);
/* A workload standing for a mask kind (full, causal, or a one-pair block mask), for questions about the kind
 * rather than a workload (--list-policies, a config's policy list, --help). Static storage. O(1). */
Workload policy_kind_workload(Mask mask);
/* Thin wrappers over the hooks. policy_closed_form is false for a policy without one. */
bool policy_supports(const PolicyOps *p, const Workload *wl);
bool policy_closed_form(const PolicyOps *p, const Workload *wl, const PolicyCosts *c, int64_t *ns, bool *is_exact);
/* The mask kinds p supports, as "full,causal,block" (block: the block masks), into buf. O(1). */
void policy_mask_names(const PolicyOps *p, char *buf, size_t len);
/* The registered policies that support wl's mask, joined by ", ", into buf. O(policies). */
void policy_names_for(const Workload *wl, char *buf, size_t len);
/* The registered policy that does p's job for a mask p does not support (the name of one contains the
 * other's: shift <-> symmetric-shift, fa3-spt <-> spt); NULL when none. O(policies). */
const PolicyOps *policy_for_mask(const PolicyOps *p, const Workload *wl);

/* Builds the plan for q->wl with policy p. NULL with SIM_ERR_SCHEDULE and a sentence in err when the policy
 * does not support the mask or the workload (naming the policies that do), SIM_ERR_USAGE when a timed policy
 * has no search hook or the query asks GQA of a policy without it; a timed policy's errors otherwise. The
 * tasks array holds every kept (head, kv, q) pair: O(heads*N*M), a timed policy its search's time. */
Plan *policy_build_query(const PolicyOps *p, const PolicyQuery *q, SimError *err);
/* policy_build_query with no costs and no GQA: the time-free policies. */
Plan *policy_build(const PolicyOps *p, const Workload *wl, SimError *err);

/* Helpers for policy files (plan_add_cta and plan_add_task are in sim/core/plan.h). Ranks are set last. */
/* Sets every rank from key[task]: within each row, tasks are ranked by ascending key (ties: lower kv
 * first). O(T log T). */
void plan_rank_by_key(Plan *plan, const int64_t *key);
/* Appends one CTA for KV tile kv of head: its rows q_lo(kv)..M-1, ascending or descending. */
void plan_add_kv_cta(Plan *plan, int32_t head, int32_t kv, bool is_descending);
/* Ranks every row by KV index: ascending (FA3) or descending (FA3-SPT). */
void plan_rank_by_kv(Plan *plan, bool is_descending);
/* Launch position t of the non-persistent kernels -> (head, kv). Full mask: kv fastest, then head
 * (L = kv + N*head). Causal: FA3's LPT scheduler, raw index longest first, or shortest first when
 * is_shortest_first (kv = N-1-raw). */
void plan_launch_kv(const Workload *wl, int64_t t, bool is_shortest_first, int32_t *head, int32_t *kv);
/* FA3's causal launch order (SingleTileBwdLPTScheduler): launch position t -> (head, raw KV index);
 * policies map raw to kv (longest first: kv = raw; shortest first: kv = N-1-raw). */
void plan_lpt_position(const Workload *wl, int64_t t, int32_t *head, int32_t *raw);
/* The first Q tile at or after q that KV tile kv keeps, q_tiles when none. A block mask's row is scanned
 * a word at a time (a mask file may hold a billion pairs of which few are kept). */
int32_t plan_next_kept(const Workload *wl, int32_t kv, int32_t q);

/* FA3-style orders for any mask (tile_order.c): one CTA per (KV head, KV tile with work), serving the
 * group's query heads one after another, every row accumulated in launch order (which keeps in-order
 * dispatch free of deadlock). */
typedef enum {
    PLAN_TILES_ASCENDING,      /* head by head, KV tiles ascending, each tile's rows ascending */
    PLAN_TILES_DESCENDING,     /* as ascending, each query head's rows from the last down */
    PLAN_TILES_SPT             /* shortest KV tile first (ties: later head, later tile), rows ascending */
} PlanTileOrder;
/* "ascending", "descending" or "spt": the order's name, as the search names its baselines. */
const char *plan_tile_order_name(PlanTileOrder order);
/* Appends the CTAs of order to plan (empty, plan->wl set; group divides the heads). O(tasks + N x M / 8). */
void plan_add_tile_order(Plan *plan, int32_t group, PlanTileOrder order);

#endif

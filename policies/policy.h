/* Attention schedules: a policy turns a workload into a plan.
 * A plan is timing-free: per CTA its ordered tasks (head, kv, q), the launch order or persistent pinning,
 * and every task's rank in its dQ row's accumulation order. Invariant of every plan a policy returns:
 * each (head, kv, q) pair the mask keeps appears exactly once, and the ranks of each row are 0..len-1. */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { MASK_FULL, MASK_CAUSAL } Mask;

/* What is computed: m heads (heads x batch), each with N KV tiles and M Q tiles. */
typedef struct {
    int n_sm;        /* SMs of the device */
    int heads;       /* m: heads x batch */
    int kv_tiles;    /* N per head */
    int q_tiles;     /* M per head */
    Mask mask;
    int tile_ratio;  /* s = kBlockN / kBlockM; causal: KV tile n starts at row n*s */
    int head_swizzle;/* S_w of FA3's causal LPT launch order: heads interleaved per L2 section; 1 = none */
} Workload;

typedef struct {
    int32_t head, kv, q; /* the tile pair */
    int32_t rank;        /* position in row (head, q)'s accumulation order, 0-based */
} PlanTask;

typedef struct {
    int32_t slot;        /* persistent: the SM slot it is pinned to; else -1 */
    int32_t task_begin;  /* index of its first task in Plan.tasks */
    int32_t task_count;
} PlanCta;

/* CTAs are stored in launch order. Owned by whoever holds it; free with plan_free. */
typedef struct {
    const char *policy;  /* static name of the policy that built it */
    Workload wl;
    bool is_persistent;
    PlanCta *ctas;
    int32_t cta_count;
    int32_t cta_capacity; /* allocated entries of ctas */
    PlanTask *tasks;
    int64_t task_count;
} Plan;

typedef struct {
    const char *name;
    const char *summary;                       /* one line for --list-policies */
    bool supports_full, supports_causal;
    /* Fills plan->ctas/tasks (the caller has set wl and policy). Returns false with a sentence in err
     * when the workload does not suit the policy (e.g. odd N for symmetric-shift). */
    bool (*build)(Plan *plan, char *err, size_t errlen);
} PolicyOps;

/* Registry: the only list of policies. NULL when the name is unknown. */
const PolicyOps *policy_find(const char *name);
int policy_count(void);
const PolicyOps *policy_at(int i);

/* Builds the plan for wl with policy p. NULL with a sentence in err when the policy does not support
 * the mask or the workload. The tasks array holds every kept (head, kv, q) pair: O(heads*N*M). */
Plan *policy_build(const PolicyOps *p, const Workload *wl, char *err, size_t errlen);
void plan_free(Plan *plan);

/* Causal geometry (square sequences): rows of KV tile kv are [q_lo(kv), M); row q is touched by kv < kv_hi(q). */
int policy_q_lo(const Workload *wl, int kv);
int policy_kv_hi(const Workload *wl, int q);
/* Number of (kv, q) pairs of one head that the mask keeps. */
int64_t policy_tasks_per_head(const Workload *wl);

/* Helpers for policy files: append CTAs and tasks while building. Ranks are set afterwards. */
int32_t plan_add_cta(Plan *plan, int32_t slot);
void plan_add_task(Plan *plan, int32_t head, int32_t kv, int32_t q);
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

#endif

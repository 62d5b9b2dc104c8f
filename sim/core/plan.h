/* Attention plans: the timing-free schedule a policy builds, a plan file holds and gpu/ runs. Per CTA its
 * ordered tasks (head, kv, q), the launch order (CTAs are stored in launch order) or persistent pinning,
 * and every task's rank in its dQ row's accumulation order. plan_check states the invariant every layer
 * relies on; it is plain C (no GLib) so that gpu/ links the same object. */
#ifndef SIM_PLAN_H
#define SIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* full: every (KV tile, Q tile) pair; causal: KV tile n keeps rows from n*s on; block: Workload.keep says
 * (any block mask: windows, documents, prefix-LM, block-sparse; docs/masks.md). */
typedef enum { MASK_FULL, MASK_CAUSAL, MASK_BLOCK } Mask;

/* What is computed: m heads (heads x batch), each with N KV tiles and M Q tiles. */
typedef struct {
    int n_sm;        /* SMs of the device */
    int heads;       /* m: heads x batch */
    int kv_tiles;    /* N per head */
    int q_tiles;     /* M per head */
    Mask mask;
    int tile_ratio;  /* s = kBlockN / kBlockM; causal: KV tile n starts at row n*s */
    int head_swizzle;/* S_w of FA3's causal LPT launch order: heads interleaved per L2 section; 1 = none */
    const uint8_t *keep; /* block mask: kv_tiles x q_tiles bytes, keep[kv * q_tiles + q] != 0 when the pair
                          * is computed, the same for every head; borrowed; NULL for full and causal */
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
    char policy[64];     /* name of the policy that built it (or the plan file's policy line) */
    Workload wl;
    bool is_persistent;
    PlanCta *ctas;
    int32_t cta_count;
    int32_t cta_capacity; /* allocated entries of ctas */
    PlanTask *tasks;
    int64_t task_count;
    int64_t task_capacity; /* allocated entries of tasks */
    uint8_t *keep;         /* a block mask the plan owns (a plan file's, made from its tasks); wl.keep
                            * points here then; NULL otherwise */
} Plan;

/* An empty plan for wl with room for task_capacity tasks (plan_add_task never grows the array). The name
 * is copied (truncated to 63 bytes). Aborts when memory runs out, as GLib does. */
Plan *plan_new(const char *policy, const Workload *wl, int64_t task_capacity);
/* Appends a CTA (launch order = call order); slot: persistent pin or -1. Returns its index. */
int32_t plan_add_cta(Plan *plan, int32_t slot);
/* Appends a task to the last CTA, rank unset (-1). At most task_capacity tasks in all. */
void plan_add_task(Plan *plan, int32_t head, int32_t kv, int32_t q);
/* Frees a plan and its arrays (from any builder: policy_build, the plan reader); NULL is a no-op. */
void plan_free(Plan *plan);

/* Causal geometry (square sequences): rows of KV tile kv are [q_lo(kv), M); row q is touched by
 * kv < kv_hi(q). Full mask: every row, every KV tile. Block mask: the first kept row / one past the last
 * kept KV tile (the rows in between need not all be kept: use plan_is_kept). */
int plan_q_lo(const Workload *wl, int kv);
int plan_kv_hi(const Workload *wl, int q);
/* Whether the mask keeps the pair (kv, q). O(1). */
bool plan_is_kept(const Workload *wl, int kv, int q);
/* Number of (kv, q) pairs of one head that the mask keeps. O(N) (block: O(N*M)). */
int64_t plan_tasks_per_head(const Workload *wl);
/* The mask's name: "full", "causal" or "block". */
const char *plan_mask_name(Mask mask);

/* The plan invariant: the workload is in range; CTAs partition the task array in order (launch order a
 * permutation of the CTAs, each task in exactly one CTA, no CTA empty); persistent plans pin every CTA to a slot in
 * 0..n_sm-1 and others pin none; every task's tile pair is in range and kept by the mask; each kept pair
 * appears exactly once; the ranks of every dQ row are a permutation of 0..len-1. SIM_ERR_SCHEDULE with a
 * sentence naming the first offending task or CTA (prefixed by where, e.g. "plan.txt: ", may be "").
 * O(tasks + heads*N*M / 8) memory and time. */
SimStatus plan_check(const Plan *plan, const char *where, SimError *err);
/* Whether a checked plan runs to its end on n_sm SMs whatever the task times: CTAs placed in launch order
 * (persistent: each in its slot's order) and held until their last task, a task after its CTA's previous
 * one and after its dQ row's previous rank. It does exactly when this runs to the end with every task done
 * as soon as it may (a finish only ever frees an SM or a rank, so earliest is best), which is what is
 * simulated. SIM_ERR_SCHEDULE "where plan P: it deadlocks on N SMs: ..." naming a CTA that waits.
 * O(tasks + heads*N*M) time and memory. The engine finds the same deadlocks by running the plan; gpu/
 * calls this where it runs none (gpu-exec --dry-run). */
SimStatus plan_check_progress(const Plan *plan, const char *where, SimError *err);

#ifdef __cplusplus
}
#endif

#endif

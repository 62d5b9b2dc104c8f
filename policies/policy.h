/* Attention schedules: a policy turns a workload into a plan (sim/core/plan.h). Every plan a policy
 * returns has passed plan_check, the same check a plan read from a file or by gpu/ passes. Adding a
 * policy: one file exporting a const PolicyOps, one line in registry.c. */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

typedef struct {
    const char *name;
    const char *summary;                       /* one line for --list-policies */
    bool supports_full, supports_causal;
    /* Fills plan->ctas/tasks (the caller has set wl and policy). SIM_ERR_SCHEDULE with a sentence when
     * the workload does not suit the policy (e.g. odd N for symmetric-shift). */
    SimStatus (*build)(Plan *plan, SimError *err);
} PolicyOps;

/* Registry: the only list of policies. NULL when the name is unknown. */
const PolicyOps *policy_find(const char *name);
int policy_count(void);
const PolicyOps *policy_at(int i);
/* The registered name closest to a misspelled one (edit distance at most a third of its length, at most 3;
 * else a name containing it), for "did you mean"; NULL when none is close. O(policies x length^2). */
const char *policy_suggest(const char *name);
/* The registered policy that does p's job for a mask p does not support (the name of one contains the
 * other's: shift <-> symmetric-shift, fa3-spt -> fa3); NULL when none. O(policies). */
const PolicyOps *policy_for_mask(const PolicyOps *p, Mask mask);

/* Builds the plan for wl with policy p. NULL with SIM_ERR_SCHEDULE and a sentence in err when the policy
 * does not support the mask or the workload. The tasks array holds every kept (head, kv, q) pair:
 * O(heads*N*M). */
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

#endif

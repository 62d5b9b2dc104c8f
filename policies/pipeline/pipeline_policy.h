/* Cube/Vector preload pipeline schedules (AMLA appendix B, VFA section 4), timing-free: the workload, the
 * Cycle (which block each stage works on and in which order the engines issue them), the Preload theorem's
 * rotation and brute force, and the pipeline policy registry. Invariant of a Cycle: offsets never decrease
 * along the chain C1 -> V1 -> ... -> Cn -> Vn; Preload count = max offset - offset of C1. Adding a
 * pipeline policy: one file exporting a const PipePolicyOps, one line in pipeline_registry.c. */
#ifndef PIPELINE_POLICY_H
#define PIPELINE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define PIPE_MAX_PAIRS 8                    /* n: CV pairs per block */
#define PIPE_MAX_STAGES (2 * PIPE_MAX_PAIRS)
#define PIPE_MAX_BRUTE_PAIRS 6              /* pipe_min_preload enumerates n! Cube orders */
#define PIPE_MAX_ENGINES 4                  /* per class (Cube or Vector) */
#define PIPE_MAX_BLOCKS 1000000

/* Stage j of a block: j = 2p is C_{p+1} (Cube), j = 2p + 1 is V_{p+1} (Vector). */
typedef struct {
    int n_pairs;
    int64_t c_ns[PIPE_MAX_PAIRS];       /* Cube stage durations of one block (whole stage, one engine) */
    int64_t v_ns[PIPE_MAX_PAIRS];       /* Vector stage durations of one block */
    bool has_v_last;                    /* the last block uses v_last_ns (AMLA: V2 only there) */
    int64_t v_last_ns[PIPE_MAX_PAIRS];
    int64_t blocks;                     /* >= 1 */
    int n_cube, n_vector;               /* engines; a stage is split evenly over its class's engines */
    int ring_slots;                     /* workspace ring per chain edge; 0: unbounded */
} PipeWorkload;

/* One Cycle: block offsets and issue order. order lists the 2n stages; the Cube (Vector) engines issue
 * the Cube (Vector) stages in the order they appear there. */
typedef struct {
    int n_pairs;
    int offset[PIPE_MAX_STAGES];
    int order[PIPE_MAX_STAGES];
    bool is_serial;                     /* also Vn(b) -> C1(b+1): blocks never overlap */
} PipeCycle;

/* Theorem B.1: a_i = V_i - C_{i+1} (cyclic), F(l) = a_1 + ... + a_l, k = the first argmin of F. */
typedef struct {
    int64_t a_ns[PIPE_MAX_PAIRS];
    int64_t prefix_ns[PIPE_MAX_PAIRS + 1]; /* F(0..n) */
    int k;                              /* 1-based */
    bool is_cube_dominated;             /* sum V <= sum C */
} PipeRotation;

/* ---- Cycle algebra (pipeline_cycle.c, pipeline_theorem.c); all O(n) unless said ---- */

/* One block at a time, stages in chain order. */
void pipe_cycle_serial(int n_pairs, PipeCycle *out);
/* The rotation of Theorem B.1 for durations c, v (n entries): Cube order C_{k+2} .. C_{k+1}, Vector order
 * V_{k+1} .. V_k, every C_i -> V_i internal except i = k+1, every V -> C from the previous Cycle:
 * Preload count n, stall-free in both the Cube- and the Vector-dominated case. */
void pipe_rotation(int n_pairs, const int64_t *c, const int64_t *v, PipeRotation *rot, PipeCycle *out);
/* Moves the last stage K - n Cycles later (K >= n) or makes n - K more chain edges internal, in chain
 * order (K < n: usually not stall-free; pipe_min_preload finds a better Cycle). */
void pipe_cycle_set_preload(PipeCycle *c, int preload);
int pipe_cycle_preload(const PipeCycle *c);
/* Parses "C1,C2+2,V1+1,V2+2": every stage once, '+K' its offset (default 0). SIM_ERR_USAGE otherwise. */
SimStatus pipe_cycle_parse(const char *text, int n_pairs, PipeCycle *out, SimError *err);
/* " C1+0 C2+2 | V1+1 V2+2" into buf (note the leading space). */
void pipe_cycle_format(const PipeCycle *c, char *buf, size_t len);
/* Durations one engine of each class sees: ceil(d / engines) (engine 0 takes the remainder). */
void pipe_effective_durations(const PipeWorkload *wl, bool is_last_block, int64_t *c, int64_t *v);
/* The period of one isolated Cycle by ASAP over its 2n ops, one engine each, no rings; -1 on a
 * deadlock. For the brute force and the theorem report; sim/model's pipe_cycle_period uses the engine. */
int64_t pipe_cycle_period_fast(const PipeCycle *cy, const int64_t *c, const int64_t *v);
/* Exact minimum stall-free Preload count over every Cycle (internal chain edges x Cube order x Vector
 * order) for n <= PIPE_MAX_BRUTE_PAIRS, one engine each; a Cycle achieving it in witness (may be NULL).
 * O(n! 2^n n^2). */
int pipe_min_preload(int n_pairs, const int64_t *c, const int64_t *v, PipeCycle *witness);

/* ---- Pipeline policies ---- */

/* What the user asked of the Cycle beyond the policy (policies with has_cycle_request only). */
typedef struct {
    int preload;                        /* -1: the policy's own Preload count */
    const char *order_text;             /* an explicit Cycle for pipe_cycle_parse; NULL: none */
} PipeCycleRequest;

typedef struct {
    const char *name;
    const char *summary;                /* one line for --list-policies */
    const char *brief;                  /* a few words for --help; NULL: none */
    bool has_cycle_request;             /* honours PipeCycleRequest (--order, --preload) */
    /* Optional (NULL: any workload, unchanged). Checks that wl suits the policy and adapts it in place
     * (amla: n = 2, V2 moved to the last block). SIM_ERR_USAGE with a sentence otherwise. */
    SimStatus (*prepare)(PipeWorkload *wl, SimError *err);
    /* The Cycle for wl (after prepare). SIM_ERR_USAGE for a request it cannot honour. */
    SimStatus (*build)(const PipeWorkload *wl, const PipeCycleRequest *req, PipeCycle *out, SimError *err);
} PipePolicyOps;

/* Registry (pipeline_registry.c): the only list. find: NULL when the name is unknown. */
const PipePolicyOps *pipe_policy_find(const char *name);
int pipe_policy_count(void);
const PipePolicyOps *pipe_policy_at(int i);
/* Registered names joined by sep, the last by last_sep when not NULL ("serial, preload or amla"); only
 * those with has_cycle_request when is_cycle_request_only. Caller frees (g_free). O(policies). */
char *pipe_policy_names(const char *sep, const char *last_sep, bool is_cycle_request_only);

/* Thin wrappers over the hooks. req may be NULL (no request). */
SimStatus pipe_policy_prepare(const PipePolicyOps *p, PipeWorkload *wl, SimError *err);
SimStatus pipe_policy_build(const PipePolicyOps *p, const PipeWorkload *wl, const PipeCycleRequest *req,
                            PipeCycle *out, SimError *err);

#endif

/* Cube/Vector preload pipelines (AMLA appendix B, VFA section 4) as engine programs. A block is the chain
 * C1 -> V1 -> ... -> Cn -> Vn; a Cycle issues every stage once, stage j for block L - offset[j]; the
 * engine runs Preload (partial Cycles), steady Cycles and drain as one CTA on one unit (Cube engines
 * first, then Vector engines). Invariant: offsets never decrease along the chain, so a chain edge is
 * either internal to a Cycle (equal offsets) or comes from an earlier Cycle; Preload count = max offset. */
#ifndef SIM_PIPELINE_H
#define SIM_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "analyze.h"
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

typedef struct {
    int preload_count;
    int64_t bound_ns;                   /* max(sum C, sum V) per engine: no Cycle is shorter */
    int64_t steady_cycle_ns;            /* makespan of one isolated Cycle (the engine run of it); -1 if the
                                         * Cycle cannot run alone (sentence in cycle_msg) */
    char cycle_msg[512];
    bool is_stall_free;                 /* steady_cycle_ns == bound_ns */
    bool is_deadlock;                   /* the full run deadlocks; sentence in deadlock_msg */
    char deadlock_msg[512];
    int64_t makespan_ns, critical_path_ns;
    int64_t cube_busy_ns, vector_busy_ns;
    double cube_busy_fraction, vector_busy_fraction; /* busy / (engines x makespan) */
    SimProgram *program;                /* owned; kept for the renderers */
    uint8_t *op_stage;                  /* per op: its stage j; owned */
    SimSchedule schedule;
    SimAnalysis analysis;
} PipeResult;

/* Cycles of the three policies. serial: one block at a time. amla: n = 2, offsets C1 0, V1 1, C2 2,
 * V2 2, Cube order C1 C2, Vector order V1 V2 (Preload count 2). */
void pipe_cycle_serial(int n_pairs, PipeCycle *out);
void pipe_cycle_amla(PipeCycle *out);
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
/* "C1+0 C2+2 | V1+1 V2+2" into buf. */
void pipe_cycle_format(const PipeCycle *c, char *buf, size_t len);

/* Durations one engine of each class sees: ceil(d / engines) (engine 0 takes the remainder). */
void pipe_effective_durations(const PipeWorkload *wl, bool is_last_block, int64_t *c, int64_t *v);

/* Builds the whole pipeline program (sealed) for wl under c; if op_stage is not NULL, *op_stage gets a
 * new array (g_free it) with each op's stage j. O(blocks x stages x engines^2). */
SimProgram *pipe_program_new(const PipeWorkload *wl, const PipeCycle *c, uint8_t **op_stage);
/* Runs the Cycle alone (one engine each, durations c, v, internal edges only) on the engine: its
 * makespan is the steady period. With ring_slots R > 0, a chain edge whose ends are R Cycles apart also
 * makes the producer wait for the consumer in the same Cycle (it frees the slot of block b - R), and
 * more than R apart cannot run. SIM_ERR_SCHEDULE if the Cycle deadlocks or cannot run. */
SimStatus pipe_cycle_period(const PipeCycle *cy, const int64_t *c, const int64_t *v, int ring_slots,
                            int64_t *period_ns, SimError *err);
/* The same without the engine and without rings (ASAP over 2n ops); -1 on a deadlock. For the brute force. */
int64_t pipe_cycle_period_fast(const PipeCycle *cy, const int64_t *c, const int64_t *v);
/* Builds, runs and analyses. A deadlock is a result (is_deadlock), not an error. */
SimStatus pipe_run(const PipeWorkload *wl, const PipeCycle *c, PipeResult *r, SimError *err);
void pipe_result_clear(PipeResult *r);

/* Exact minimum stall-free Preload count over every Cycle (internal chain edges x Cube order x Vector
 * order) for n <= PIPE_MAX_BRUTE_PAIRS, one engine each; a Cycle achieving it in witness (may be NULL).
 * O(n! 2^n n^2). */
int pipe_min_preload(int n_pairs, const int64_t *c, const int64_t *v, PipeCycle *witness);

/* Stage costs (documented in docs/pipelines.md). AMLA / base FlashAttention on MLA decode, one AI core
 * pair of an Ascend 910 (1 Cube : 2 Vector), one KV block of 512 tokens, rows = 128 heads x Sq. */
typedef struct {
    double cube_flops_per_ns;   /* one Cube core */
    double vector_ops_per_ns;   /* one Vector core (FP32 elementwise) */
    double hbm_bytes_per_ns;    /* HBM share of one core pair (KV loads) */
    double gm_bytes_per_ns;     /* workspace round trips (S, P, O) of one core pair through GM */
} PipeAscendModel;
PipeAscendModel pipe_ascend_910(void);
/* c[0..1], v[0..1] for rows query rows; is_amla: V2 becomes the integer add folded into V1 (v[1] = 0). */
void pipe_mla_costs(const PipeAscendModel *m, int rows, bool is_amla, int64_t *c, int64_t *v);

/* VFA (seed 003 Table 1): per (Q, K) tile of 128 x 128 x d128. tensor_bits 16/8/4 (ratio 1:2:6),
 * vector_bits 32/16 (V16 doubles linear vector throughput); exp = 1/250 of FP16 tensor, vector = 8x exp. */
void pipe_vfa_costs(int tensor_bits, int vector_bits, bool is_vfa, int64_t *c, int64_t *v);

#endif

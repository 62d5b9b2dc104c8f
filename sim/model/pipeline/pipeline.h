/* Cube/Vector preload pipelines (AMLA appendix B, VFA section 4) as engine programs, and the questions
 * `sim pipeline` asks of them: one request (policy + workload) run and analysed, and the AMLA, VFA and
 * Theorem B.1 reports. The timing-free part (workload, Cycle, rotation, brute force, policies) is in
 * policies/pipeline/pipeline_policy.h. A block is the chain C1 -> V1 -> ... -> Cn -> Vn; a Cycle issues every stage
 * once, stage j for block L - offset[j]; the engine runs Preload (partial Cycles), steady Cycles and drain
 * as one CTA on one unit (Cube engines first, then Vector engines). */
#ifndef SIM_PIPELINE_H
#define SIM_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "analyze.h"
#include "pipeline_policy.h"
#include "status.h"

/* Ops one pipeline run may have, whatever --max-memory-mb says: the ceiling that bounds its time (5.3 s at
 * the ceiling on the 2-core test machine, docs/limits.md) and, at 0.8 GB measured, its memory under the
 * default cap of 4096 MB. */
#define PIPE_MAX_OPS 4000000
/* Peak bytes of a run per op, at most: PIPE_BYTES_PER_OP_UNIT x (1 + the larger engine count), since an op
 * has an edge to each engine of the next stage. Measured with /usr/bin/time -f %M on `sim pipeline` at
 * 2M and 4M ops, 2 and 8 CV pairs: 70 B an op with one engine of each class, 89 with two, 121 with four;
 * with --ring 1 94, 119 and 169 to 198. The bound is 1.2 to 1.6 times these. */
#define PIPE_BYTES_PER_OP_UNIT 56

/* One run of a workload under a Cycle. */
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

/* Builds the whole pipeline program (sealed) for wl under c; if op_stage is not NULL, *op_stage gets a
 * new array (g_free it) with each op's stage j. O(blocks x stages x engines^2). */
SimProgram *pipe_program_new(const PipeWorkload *wl, const PipeCycle *c, uint8_t **op_stage);
/* Runs the Cycle alone (one engine each, durations c, v, internal edges only) on the engine: its
 * makespan is the steady period. With ring_slots R > 0, a chain edge whose ends are R Cycles apart also
 * makes the producer wait for the consumer in the same Cycle (it frees the slot of block b - R), and
 * more than R apart cannot run. SIM_ERR_SCHEDULE if the Cycle deadlocks or cannot run. */
SimStatus pipe_cycle_period(const PipeCycle *cy, const int64_t *c, const int64_t *v, int ring_slots,
                            int64_t *period_ns, SimError *err);
/* Builds, runs and analyses. A deadlock is a result (is_deadlock), not an error. */
SimStatus pipe_run(const PipeWorkload *wl, const PipeCycle *c, PipeResult *r, SimError *err);
/* Frees what r owns; r may be zeroed or cleared already. */
void pipe_result_clear(PipeResult *r);

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

/* VFA (Vector Relieved Flash Attention, Table 1): per (Q, K) tile of 128 x 128 x d128. tensor_bits 16/8/4
 * (ratio 1:2:6), vector_bits 32/16 (V16 doubles linear vector throughput); exp = 1/250 of FP16 tensor, vector = 8x exp. */
void pipe_vfa_costs(int tensor_bits, int vector_bits, bool is_vfa, int64_t *c, int64_t *v);

/* ---- One `sim pipeline` request (pipeline_job.c) ---- */

typedef struct {
    const PipePolicyOps *policy;        /* from pipe_policy_find; not owned */
    PipeWorkload wl;                    /* as given; pipe_request_check lets the policy adapt it */
    PipeCycleRequest cycle;             /* --order / --preload (preload = -1: none) */
    bool has_min_preload;               /* also brute force the minimum stall-free Preload count */
    int64_t max_memory_mb;              /* refuse a run estimated above this (--max-memory-mb); 0: no cap
                                         * but PIPE_MAX_OPS */
} PipeRequest;

/* The checks that need the whole request, in this order: the policy's prepare (which adapts rq->wl),
 * a cycle request only for policies that take one, not both --order and --preload, the brute force only
 * for n <= PIPE_MAX_BRUTE_PAIRS (SIM_ERR_USAGE), at most PIPE_MAX_OPS ops and the estimated peak
 * (PIPE_BYTES_PER_OP_UNIT) within max_memory_mb (SIM_ERR_LIMIT). O(1). */
SimStatus pipe_request_check(PipeRequest *rq, SimError *err);

typedef struct {
    PipeCycle cycle;                    /* the policy's Cycle */
    PipeRotation rotation;              /* Theorem B.1 on the steady durations (for --explain) */
    int min_preload;                    /* -1 unless has_min_preload */
    PipeCycle witness;                  /* a Cycle with min_preload (when min_preload >= 0) */
    PipeResult result;                  /* owned: pipe_job_clear */
} PipeJob;

/* Builds the Cycle through the policy, the rotation and (if asked) the brute force, then pipe_run. A
 * deadlock is a result (job->result.is_deadlock). On error job holds nothing to free. Cost: pipe_run's
 * plus O(n! 2^n n^2) for the brute force. */
SimStatus pipe_job_run(const PipeRequest *rq, PipeJob *job, SimError *err);
void pipe_job_clear(PipeJob *job);

/* ---- Reports (pipeline_report.c) ---- */

/* AMLA vs base FlashAttention on MLA decode (Liao et al. 2025, Table 5): Sq 1..2 x the six Sk, 2 Vector
 * engines. */
#define PIPE_AMLA_REPORT_ROWS 12
typedef struct {
    int sq, sk;                         /* query rows per head, KV length (tokens) */
    int64_t blocks;                     /* KV blocks of 512 */
    int64_t c_ns[2];                    /* base C1, C2 (one Cube engine) */
    int64_t base_v_engine_ns[2];        /* base V1, V2 per Vector engine (half a stage, rounded up) */
    int64_t amla_v1_engine_ns;          /* AMLA V1 per Vector engine */
    bool is_base_stall_free;
    double base_cube_busy, amla_cube_busy;        /* Cube busy / makespan, fractions */
    double paper_910_percent, paper_gpu_percent;  /* the paper's FLOPS utilisation, percent */
} PipeAmlaRow;
/* Fills rows (PIPE_AMLA_REPORT_ROWS) under model m. Errors only from pipe_run. O(rows x blocks). */
SimStatus pipe_amla_report(const PipeAscendModel *m, PipeAmlaRow *rows, SimError *err);

/* FA vs VFA (the VFA paper's Table 1) under C16V32, C8V32, C4V32, C4V16: one FA and one VFA row each. */
#define PIPE_VFA_REPORT_ROWS 8
#define PIPE_VFA_REPORT_BLOCKS 32       /* KV tiles of one Q tile at 4k context */
typedef struct {
    int tensor_bits, vector_bits;
    bool is_vfa;
    int64_t sum_c_ns, sum_v_ns;         /* per tile */
    int64_t makespan_ns;
    double vs_fa, vs_base;              /* speedup over FA of the same config, over FA C16V32 */
} PipeVfaRow;
SimStatus pipe_vfa_report(PipeVfaRow *rows, SimError *err);

/* Theorem B.1 / Lemma B.2 on seeded random instances, one row per n = 1..PIPE_MAX_BRUTE_PAIRS. */
typedef struct {
    int n, instances, cube_dominated, rotation_stall_free;
    int min_below[3];                   /* instances with min Preload < n-1, = n-1, = n */
    int lemma_instances, lemma_min_n;   /* Lemma B.2 constructions, and those that needed n */
} PipeTheoremRow;
/* Deterministic in seed. Pure (no engine); about 6 s for all rows, the brute force dominating. */
void pipe_theorem_report(uint32_t seed, PipeTheoremRow *rows);

#endif

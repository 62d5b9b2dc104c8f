/* Attention schedules on the engine: costs, the compilation of a plan into an engine program, and the
 * paper's closed forms. One task = compute C (cost c) then reduction R (cost r) of its partial dQ. */
#ifndef SIM_ATTENTION_H
#define SIM_ATTENTION_H

#include "policy.h"
#include "program.h"

typedef enum { REDUCE_SERIAL, REDUCE_ASYNC } ReduceMode;

typedef struct {
    int64_t c_ns;        /* compute of one tile pair */
    int64_t r_ns;        /* ordered reduction of one partial dQ tile */
    int64_t latency_ns;  /* added to each accumulation edge between different SMs */
    ReduceMode reduce;   /* serial: R blocks the next C (the paper); async: FA3's store warp */
    int dq_buffers;      /* async: staging buffer depth; the next C may deposit only once R(t-depth) ended */
    int64_t cta_prologue_ns; /* per CTA before its first task (dispatch gap, K/V load); 0 in the paper */
    int64_t deposit_ns;  /* async: the compute warps' staging of a tile for the store warp; 0 in the paper */
    const SimLoadModel *load; /* optional load-dependent reductions (profile); borrowed; NULL: fixed */
    /* What a kernel profile adds (sim/model/kernel.h); every field 0 (false): the plain model above */
    int64_t c_diag_ns;        /* compute of a task the causal diagonal cuts (q tile / tile ratio = kv); 0: c_ns */
    int64_t c_first_extra_ns; /* more compute for the first task of each run of one KV tile on a CTA (K/V load) */
    int64_t launch_extra_ns;  /* more compute for the first task of a CTA that starts at launch (the first
                               * CTA on each unit: every SM loads K/V at once) */
    int64_t kv_write_ns;      /* after the last task of a KV-tile run: dK/dV written (compute engine) */
    int64_t kv_switch_ns;     /* after a run that is not its CTA's last: K/V of the next run loaded */
    int64_t reduce_read_ns;   /* async: R is its read (this long; frees the staging buffer) then the rest of
                               * r_ns (completion); 0: one op */
    bool is_release_at_read;  /* with a split R: the row's next reduction may start when this one's read ends
                               * (FA3 releases the semaphore after the read), else when it completes */
    SimOverlapRule overlap;   /* compute slowed by the SM's own reduction starting near its start (program.h) */
    SimWaitedReduce waited;   /* a reduction that waited for its turn takes other times (program.h) */
} AttnCosts;

/* A CTA with a prologue opens with a SYNC op of that length (attributed to its first task).
 * Ops per task: serial: C, R on engine 0 in program order. async: C and a deposit D (deposit_ns) on
 * engine 0, then a KV write W (kv_write_ns, SYNC) on the task that ends its KV-tile run, R on engine 1 (the
 * store engine) and, when R is split, its completion T (SYNC, engine 1); D(t) -> R(t), R(t - depth) -> D(t).
 * Every row gets R or T (rank k-1) -> R(rank k) with the latency. With costs->load the program gets a copy of
 * the load model. Owned by the caller. O(tasks). */
SimProgram *sim_attention_program(const Plan *plan, const AttnCosts *costs);

/* Ops one task compiles to at most, for size estimates. */
int sim_attention_ops_per_task(const AttnCosts *costs);

/* Peak bytes per engine op across plan, program, engine, schedule and analysis, measured peak RSS over
 * ops (fa3 524288 tasks: serial 69 MB for 1.05M ops, 69 each; async 126 MB for 1.57M ops, 84 each;
 * symmetric-shift causal async 85 each; 10.5M tasks serial 62 each), with room above. Used to refuse
 * inputs over the memory cap before allocating. */
#define SIM_BYTES_PER_OP 112

/* The one size check of a job on wl with costs, before anything is built: SIM_ERR_LIMIT with a sentence
 * when its ops or edges would not fit the engine's 32-bit ids (2^31 - 1; counted with checked arithmetic,
 * so any heads x tiles x tiles is refused rather than wrapped), or when its estimate plus extra_bytes (for
 * example a latency matrix) is above max_memory_mb. O(1). */
SimStatus sim_attention_check_size(const Workload *wl, const AttnCosts *costs, double extra_bytes,
                                   int64_t max_memory_mb, SimError *err);

/* The DASH paper's formula for policy p on wl under costs, if p's closed-form hook gives one (sets *ns).
 * *is_exact says whether the simulator reproduces it exactly for this input (conditions in README, tested
 * in tests/). */
bool sim_closed_form_ns(const PolicyOps *p, const Workload *wl, const AttnCosts *costs, int64_t *ns, bool *is_exact);

/* The simulator's exact makespan of descending on the paper's causal shape (even m, serial, no latency):
 * the paper's form plus (m/2 - 1)(n - 1) max(0, r - c). Found by this simulator, tested in tests/. */
int64_t sim_descending_exact_ns(int64_t n, int64_t m, int64_t c, int64_t r);

#endif

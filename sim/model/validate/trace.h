/* A measured kernel trace (written by gpu/, read by sim/io/trace_in.c, format in docs/gpu.md): metadata
 * naming the policy and shape, and per task the SM it ran on and the start/end of its compute, wait and
 * reduction (ns, %globaltimer, relative to the earliest compute start). */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include "attention.h"
#include "engine.h"

typedef struct {
    int32_t cta, slot, smid, head, kv, q, rank;
    int64_t c_start, c_end, r_ready, r_start, r_end;
    /* gpu/bwd's phase stamps (Trace.has_phases; else 0): the tile staged, dK/dV written (= s_end on a task
     * that ends no KV-tile run), the staging buffer read, the GPU block's entry and exit, and the SM cycles
     * of the compute (0 when the kernel did not record them) */
    int64_t s_end, k_end, r_read, b_entry, b_exit, c_cycles;
} TraceTask;

/* How the kernel that made the trace ran (its metadata; 0 or "" when the trace does not say). */
typedef struct {
    int tile_m, head_dim;      /* the partial dQ tile */
    int compute_iters;         /* mma rounds per task */
    int reduce_threads;        /* threads that add a tile (ldst/red); 0: the method's usual */
    int is_persistent;
    int sm_clock_mhz;          /* SM clock measured during the run (clock64 / globaltimer) */
    char compute[32];          /* "mma", "spin" or "attention-backward" (gpu/bwd) */
    char reduce_op[16];        /* "bulk", "ldst" or "red" */
    char plan_file[256];       /* the plan it ran, as the run named it (for schedules no policy builds) */
    char plan_hash[40];        /* "fnv1a64:<16 hex digits>" of that plan file */
    /* A real attention kernel's run (gpu/bwd): 0 or "" when the trace does not say */
    char name[32];             /* "kernel": which kernel ("dashsim-bwd"), for its kernel profile */
    char date[32];             /* when the run was made (ISO 8601, UTC) */
    int tile_n, seqlen, batch, heads_per_batch, kv_heads;
    int store_warps;           /* the kernel's store warps (metadata "store_warps"; 1 when absent) */
    int64_t memset_ns, pre_ns, main_ns, post_ns; /* cudaEvent-timed stages of the recorded launch */
} TraceKernel;

typedef struct {
    char *path;
    char *policy;
    Workload wl;
    AttnCosts model;       /* reduce and dq_buffers from the metadata; costs are fitted later */
    char *group;           /* shape + compute configuration: traces of one group compare policies */
    char *gpu_name;
    TraceKernel kernel;
    TraceTask *tasks;
    int64_t task_count;
    bool has_phases;       /* the phase columns of TraceTask were in the trace */
} Trace;

/* Frees t and everything it owns; NULL is a no-op. */
void sim_trace_free(Trace *t);

/* The measured run as a schedule of prog, the program compiled from plan (the plan t ran; each plan task
 * matched to t's row of the same head, kv and q), so that it is drawn as the model's schedules are: a
 * compute op spans c_start..c_end, a reduction r_start..r_end, a deposit (async) c_end..r_ready; a CTA
 * prologue has no measured span (it is put at the CTA's first compute start, length 0); each CTA is on the
 * SM its first task ran on and is dispatched at that compute start. Times as in t (ns after the earliest
 * compute start); no completion order. SIM_ERR_INPUT with a sentence when a plan task has no row in t.
 * Free with sim_schedule_clear. O(tasks + heads x kv_tiles x q_tiles). */
SimStatus sim_trace_schedule(const Trace *t, const Plan *plan, const SimProgram *prog, SimSchedule *out,
                             SimError *err);

#endif

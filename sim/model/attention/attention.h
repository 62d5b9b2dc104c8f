/* Attention schedules on the engine: costs, the compilation of a plan into an engine program, and the
 * paper's closed forms. One task = compute C (cost c) then reduction R (cost r) of its partial dQ. */
#ifndef SIM_ATTENTION_H
#define SIM_ATTENTION_H

#include "attn_costs.h"
#include "policy.h"
#include "program.h"


/* A CTA with a prologue opens with a SYNC op of that length (attributed to its first task).
 * Ops per task: serial: C, R on engine 0 in program order. async: C and a deposit D (deposit_ns) on
 * engine 0, then a KV write W (kv_write_ns, SYNC) on the task that ends its KV-tile run, R on a store engine
 * (engine 1 + i % store_warps for the CTA's i-th task; engine 1 with one store warp) and, when R is split, its
 * completion T (SYNC, the same engine); D(t) -> R(t), R(t - depth) -> D(t).
 * Every row gets R or T (rank k-1) -> R(rank k) with the latency. With costs->load the program gets a copy of
 * the load model. Owned by the caller. O(tasks). */
SimProgram *sim_attention_program(const Plan *plan, const AttnCosts *costs);
/* The same without the ops' tasks (sim_program_drop_tasks: 4 bytes an op less, never written), for a job
 * whose outputs label no op; with a waited-reduction rule (the engine reads the tasks) the same as above. */
SimProgram *sim_attention_program_untasked(const Plan *plan, const AttnCosts *costs);

/* The compute costs' factor at the clock of a launch whose tasks span span_ns (first compute to last reduction) with
 * busy its compute's share of the SMs' time at the profile's costs, share the same at the launch's own clock: ref_mhz
 * over the launch's mean clock under the dip, times the slowdown under sustained load (AttnClock); 1 with no clock
 * model. O(bins). */
double sim_attention_clock_scale(const AttnClock *k, int64_t span_ns, double busy, double share);
/* c_ns, c_diag_ns and deposit_ns (the SM's own work, which runs at its clock) times scale, rounded to ns. */
void sim_attention_scale_compute(AttnCosts *c, double scale);
/* A launch's compute at its own clock (docs/profile.md, "The clock dip at launch"), in two steps around the engine:
 * guess gives the costs at the clock of a launch as busy as the bubble-free orders (0.7) and as long as its compute
 * spread over the SMs at that share (*scale; with no clock model the costs as given and 1); after a run of those
 * costs on plan took makespan_ns, adjust finds the clock of a launch that long and that busy (tasks x c_ns over its
 * SMs' time) and, when it is more than 0.2% off the run's, puts the costs at it into *at and *scale and returns true:
 * run again (once: the second run's span moves the dip's mean by a fraction of a MHz). O(bins). */
void sim_attention_clock_guess(const AttnCosts *given, const Plan *plan, AttnCosts *at, double *scale);
bool sim_attention_clock_adjust(const AttnCosts *given, const Plan *plan, int64_t makespan_ns, AttnCosts *at,
                                double *scale);
/* The engine's makespan of plan under given at the launch's own clock (settle, run, adjust, run again if asked). */
SimStatus sim_attention_clocked_makespan(const Plan *plan, const AttnCosts *given, int64_t *makespan_ns, SimError *err);

/* Ops one task compiles to at most, for size estimates. */
int sim_attention_ops_per_task(const AttnCosts *costs);

/* Peak bytes per engine op across plan, program, engine, schedule and analysis, measured peak RSS over
 * the ops of the tasks a job builds (a causal mask builds about half of kv x q; counting all of them put the
 * estimate at 3x the peak). Measured (docs/shape.md): the shape front end at 32 heads, async, summary
 * analysis: causal 8k 35 MB, 16k batch 2 218 MB, 32k 426 MB; full 8k 50 MB (65-72 B per op); the tile-level
 * command with full analysis: serial 69, async 84-85 B per op. 100 puts every estimate 1.1-1.45x above its
 * peak. Used to refuse inputs over the memory cap before allocating. */
#define SIM_BYTES_PER_OP 100
/* The tasks a job on wl builds: heads x the (KV, Q) pairs its mask keeps (causal about half of kv x q; a block
 * mask not yet made counts every pair). O(kv_tiles), O(kv x q) for a block mask. */
double sim_attention_tasks(const Workload *wl);

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

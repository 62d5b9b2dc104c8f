/* Attention schedules on the engine: costs, the compilation of a plan into an engine program, and the
 * paper's closed forms. One task = compute C (cost c) then reduction R (cost r) of its partial dQ. */
#ifndef SIM_ATTENTION_H
#define SIM_ATTENTION_H

#include "attn_costs.h"
#include "policy.h"
#include "program.h"


/* A CTA with a prologue opens with a SYNC op of that length (attributed to its first task).
 * Ops per task: serial: C, R on engine 0 in program order. async: C and a deposit D (deposit_ns) on
 * engine 0, then a KV write W (kv_write_ns, SYNC) on the task that ends its KV-tile run, R on engine 1 (the
 * store engine) and, when R is split, its completion T (SYNC, engine 1); D(t) -> R(t), R(t - depth) -> D(t).
 * Every row gets R or T (rank k-1) -> R(rank k) with the latency. With costs->load the program gets a copy of
 * the load model. Owned by the caller. O(tasks). */
SimProgram *sim_attention_program(const Plan *plan, const AttnCosts *costs);

/* Ops one task compiles to at most, for size estimates. */
int sim_attention_ops_per_task(const AttnCosts *costs);

/* The DASH paper's formula for policy p on wl under costs, if p's closed-form hook gives one (sets *ns).
 * *is_exact says whether the simulator reproduces it exactly for this input (conditions in README, tested
 * in tests/). */
bool sim_closed_form_ns(const PolicyOps *p, const Workload *wl, const AttnCosts *costs, int64_t *ns, bool *is_exact);

/* The simulator's exact makespan of descending on the paper's causal shape (even m, serial, no latency):
 * the paper's form plus (m/2 - 1)(n - 1) max(0, r - c). Found by this simulator, tested in tests/. */
int64_t sim_descending_exact_ns(int64_t n, int64_t m, int64_t c, int64_t r);

#endif

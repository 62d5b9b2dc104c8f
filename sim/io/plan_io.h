/* The plan file (docs/plan-format.md): what gpu/ executes, what traces refer to, and what `sim --plan`
 * simulates. One writer and one strict reader; both plain C (no GLib), so gpu/ links this object and
 * reads plans exactly as the simulator does. Invariant of a plan the reader returns: plan_check passed. */
#ifndef SIM_PLAN_IO_H
#define SIM_PLAN_IO_H

#include <stdio.h>

#include "attn_costs.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes plan and its model costs to f in the documented text format. False if a write failed. */
bool sim_plan_write(const Plan *plan, const AttnCosts *costs, FILE *f);

/* Reads and checks the plan file at path: every header field once, CTA positions in order, numbers in
 * range, then plan_check (each kept pair once, each row's ranks a permutation, pins in range). Plans
 * whose tasks would take more than max_bytes (about 32 bytes a task) are refused before allocating.
 * On success *plan is owned by the caller (plan_free), *costs holds the file's model costs and *hash
 * the FNV-1a 64 of the file's bytes. Errors: SIM_ERR_IO (unreadable), SIM_ERR_INPUT ("path:line: ..."),
 * SIM_ERR_SCHEDULE (plan_check), SIM_ERR_LIMIT. O(file size + tasks + heads*N*M/8). */
SimStatus sim_plan_read(const char *path, int64_t max_bytes, Plan **plan, AttnCosts *costs, uint64_t *hash,
                        SimError *err);

/* FNV-1a 64 of a byte range, continuing from h (start with SIM_FNV_OFFSET). */
#define SIM_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t sim_fnv1a64(uint64_t h, const void *data, size_t n);

#ifdef __cplusplus
}
#endif

#endif

/* The shape front end: an attention shape (batch, heads, seqlen, head_dim, mask) on a GPU preset turned into
 * the attention job FA3 would run there: its sm90 backward tile (sim_cost_fa3_tile), the causal head swizzle,
 * c from the cost model (backward FLOPs over the per-SM tensor rate: an estimate, not measured), and r, the
 * hand-off latency, the async deposit and the load model from a measured hardware profile (bulk reduction of
 * a kBlockM x head_dim tile). Invariant: the same query gives the same job on every machine. */
#ifndef SIM_SHAPE_H
#define SIM_SHAPE_H

#include "costmodel.h"
#include "job.h"
#include "profile.h"

typedef struct {
    SimShape shape;              /* block_m = block_n = 0: FA3's table */
    const char *preset;          /* hardware preset, e.g. "h100-sxm" */
    const HwProfile *profile;    /* borrowed; NULL: the cost model's r and near latency (no load model) */
    ReduceMode reduce;           /* FA3: async */
    int dq_buffers;              /* FA3: 1 */
} ShapeQuery;

/* Fills *job (policy left as it was; no outputs), *cost (tiles, FLOPs) and *load (owned by the caller:
 * sim_profile_load_clear; job->costs.load points at it). SIM_ERR_USAGE with a sentence for an unknown
 * preset, a head_dim FA3 has no deterministic backward for, or a profile without that tile. O(n_sm). */
SimStatus sim_shape_job(const ShapeQuery *q, AttnJob *job, SimCost *cost, SimLoadModel *load, SimError *err);

#endif

/* The one costing path (docs/profile.md): from (hardware, kernel, shape) to the workload and task costs the
 * engine runs. Every front end calls it: the shape command, configs and sweeps, search, the tile-level command
 * with --kernel, and validate --predict; so two of them given the same inputs cannot disagree. The kernel
 * profile gives the tile geometry and the per-task costs; the hardware profile gives the reductions and the
 * hand-off under load when the kernel profile has no measurement of its own; with no kernel profile, compute
 * comes from the FLOPs cost model, and the report says so. */
#ifndef SIM_COSTING_H
#define SIM_COSTING_H

#include "costmodel.h"
#include "kernel.h"
#include "profile.h"

typedef struct {
    SimShape shape;              /* block_m = block_n = 0: the kernel profile's tile, else FA3's table */
    const char *preset;          /* hardware preset: SM count, and the cost model's rates ("h100-sxm") */
    const SimHardware *hardware; /* borrowed; a configured GPU instead of the preset (configs); NULL: preset */
    const HwProfile *hw;         /* borrowed; NULL: the cost model's r and latency, no load model */
    const KernelProfile *kernel; /* borrowed; NULL: compute from the FLOPs cost model (an estimate) */
    ReduceMode reduce;           /* FA3-like kernels: async */
    int dq_buffers;              /* 0: the kernel profile's (1 without one) */
} CostQuery;

typedef struct {
    SimCost cost;                /* tile, FLOPs, c and r of the cost model, the workload */
    int64_t fixed_ns;            /* the launch's fixed costs (kernel profile); 0 without one */
    int64_t first_compute_ns;    /* engine time of the first compute (the CTA prologue): a trace's makespan,
                                  * first compute to last reduction, is the engine's makespan minus this */
    char compute_from[320];      /* where c came from, in words; names the GPU when measured on another */
    char reduce_from[384];       /* where r and the hand-off came from; likewise */
} CostReport;

/* The end-to-end time of a launch whose engine run took makespan_ns: the fixed costs plus the engine's
 * makespan less the first CTA's prologue (the fixed costs, fitted to whole launches, hold it). Every report
 * of a predicted time uses this one rule. */
int64_t sim_cost_time_ns(const CostReport *rep, int64_t makespan_ns);
/* The task costs alone, for a workload given elsewhere (the tile-level command, a plan): shape.head_dim and
 * shape.mask pick the tile; with shape.seqlen_q 0 there are no fixed costs. Same rules as below. */
SimStatus sim_cost_tasks(const CostQuery *q, AttnCosts *costs, CostReport *rep, SimLoadModel *load, SimError *err);
/* Fills *wl, *costs (costs->load points at *load when there is a load model: the caller clears *load with
 * sim_profile_load_clear) and *rep. SIM_ERR_USAGE with a sentence for an unknown preset, a head_dim that
 * neither the kernel profile nor FA3's table has, or a profile without that tile; SIM_ERR_LIMIT when batch x heads
 * is over 2^31 - 1 (checked, never wrapped). O(n_sm). */
SimStatus sim_cost_attention(const CostQuery *q, Workload *wl, AttnCosts *costs, CostReport *rep, SimLoadModel *load,
                             SimError *err);

#endif

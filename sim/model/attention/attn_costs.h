/* The costs of one attention task on the engine (AttnCosts): compute, reduction, latency, reduction mode and
 * what a kernel profile adds. Its own header, on sim/core's program.h alone, so that gpu/ (which reads plans
 * and their model costs through sim/io/plan_io.h) takes the costs without the attention model. */
#ifndef SIM_ATTN_COSTS_H
#define SIM_ATTN_COSTS_H

#include <stdbool.h>
#include <stdint.h>

#include "program.h"

typedef enum { REDUCE_SERIAL, REDUCE_ASYNC } ReduceMode;

#define ATTN_STORE_WARPS_MAX 7 /* store engines a unit at most (the renderers name 8 engines) */
#define ATTN_CLOCK_BINS 16     /* bins of a clock dip's shape at most */

/* The SM clock over a launch (docs/profile.md, "The clock dip at launch"): a kernel profile's compute costs are at
 * ref_mhz, the clock its calibration ran at on average; a launch runs at max_mhz less a dip that follows its start,
 * dip_mhz_per_u x max(0, busy - dip_u0) deep (busy: the launch's compute over its SMs' time) and shaped dip[0..bins)
 * over bins of dip_bin_ns (peak 1). bins 0: no clock model, the costs stand as given. Under sustained load
 * (docs/profile.md, "The clock under sustained load") a launch timed after `launches` x its span of load runs slower
 * still: its compute by per_u x max(0, share - u0) x (1 - exp(-max(0, launches x span - load_ms) / tau_ms)), share
 * the launch's compute at its own clock over its SMs' time; per_u 0: none. */
typedef struct {
    double max_mhz, ref_mhz;  /* settled clock; the clock the compute costs were measured at */
    double dip_u0, dip_mhz_per_u;
    int32_t dip_bin_ns, bins;
    double dip[ATTN_CLOCK_BINS];
    struct {
        double launches, load_ms, tau_ms, u0, per_u;
    } sustained;
} AttnClock;

typedef struct {
    int64_t c_ns;        /* compute of one tile pair */
    int64_t r_ns;        /* ordered reduction of one partial dQ tile */
    int64_t latency_ns;  /* added to each accumulation edge between different SMs */
    ReduceMode reduce;   /* serial: R blocks the next C (the paper); async: FA3's store warp */
    int dq_buffers;      /* async: staging buffer depth; the next C may deposit only once R(t-depth) ended */
    int store_warps;     /* async: store engines a unit (the kernel's store warps); reduction i of a CTA runs on
                          * store engine 1 + i % store_warps; 0 or 1: one, engine 1 */
    int64_t cta_prologue_ns; /* per CTA before its first task (dispatch gap, K/V load); 0 in the paper */
    int64_t deposit_ns;  /* async: the compute warps' staging of a tile for the store warp; 0 in the paper */
    const SimLoadModel *load; /* optional load-dependent reductions (profile); borrowed; NULL: fixed */
    /* What a kernel profile adds (sim/model/cost/kernel.h); every field 0 (false): the plain model above */
    int64_t c_diag_ns;        /* compute of a task the causal diagonal cuts (q tile / tile ratio = kv); 0: c_ns */
    int64_t c_first_extra_ns; /* more compute for the first task of each run of one KV tile on a CTA (K/V load) */
    int64_t cta_first_extra_ns; /* more compute for the first task of a CTA that starts after launch (its K/V
                                 * load on an SM another CTA left) */
    int64_t cta_gap_ns;       /* more prologue for a CTA that starts on a unit another CTA left (not the launch
                               * wave, not a persistent slot's next plan CTA): the exit and block scheduler's
                               * turnover between them */
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
    AttnClock clock;          /* the launch's clock (bins 0: none): sim_attention_clock_guess and _adjust rescale the
                               * compute to it (attention.h) */
} AttnCosts;

#endif

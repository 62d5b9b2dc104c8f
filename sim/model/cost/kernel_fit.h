/* Fitting a kernel profile (kernel.h) to measured traces of that kernel (docs/profile.md, "Making a kernel
 * profile"). Each cost is a median of the phase it names (or, asked for, the median of grouped data on the
 * stamps' grid), over every trace of the head dim: compute of an interior task and of a diagonal
 * one (each without the overlap that slows it), the overlap's window and its penalty (within each trace), the
 * launch wave's extra load, the dK/dV write, the K/V switch of persistent CTAs, the deposit, the kernel's own
 * reduction (read and tail), the hand-off, the CTA prologue; the fixed costs of a launch by least squares over the
 * traces' stage times against the bytes each stage moves, or from the stages timed alone (KernelFitOptions). */
#ifndef SIM_KERNEL_FIT_H
#define SIM_KERNEL_FIT_H

#include "kernel.h"
#include "kernel_runs.h"
#include "trace.h"

/* How the fit reads the traces (zero: the defaults every committed profile was made with). */
typedef struct {
    bool is_write_rule_start; /* a reduction already running when its SM's dK/dV write starts is not slowed
                               * (geometry write_rule "start", the Hopper kernel: docs/profile.md); else it
                               * pays the excess measured on such reductions */
    int64_t step_ns;          /* > 1: every median of stamp differences is taken as grouped data on a grid of
                               * that step (sim_median_grouped_i64; sim_trace_stamp_step gives the traces' own
                               * step); 0 or 1: plain medians (every committed profile: the grouped ones
                               * predicted the held-out runs worse, docs/profile.md, "The timer's 32-ns step") */
    bool has_cta_gap;         /* fit cta_gap_ns (a CTA's last op end -> the next CTA's entry on its SM); else 0
                               * (every committed profile: with it the held-out runs were predicted worse,
                               * docs/profile.md, "The CTA turnover") */
    bool has_write_extra_slope; /* with is_write_rule_start: fit the write extra as write_extra_ns +
                               * write_extra_slope_ns per other SM's write in flight at the reduction's start;
                               * else one median (docs/profile.md, "The write extra and the writes in flight") */
    bool has_write_extra_window; /* with is_write_rule_start: one write extra for the reductions that start early in
                               * a dK/dV write and one for those that start late, split at the window that fits
                               * best; else one median (docs/profile.md, "The write extra by the time into the
                               * write") */
    bool has_turn_jitter;     /* fit the jitter around a reduction's turn (reduce_turn_jitter_ns; docs/profile.md,
                               * "The jitter around a turn"); else none, a reduction waits only when its turn is late */
    bool has_waited_slope;    /* fit the waited chain step's growth with the reductions in flight
                               * (reduce_waited_slope_ns; docs/profile.md, "The waited step and the load") */
    bool has_clock;           /* fit the clock dip at launch from the traces' cycle counts (AttnClock; docs/profile.md,
                               * "The clock dip at launch"); else none, the compute costs stand at every launch */
    const KernelStageSweep *stages; /* the fixed stages timed alone on the traces' GPU: the tiles get stage tables
                               * from it and fixed becomes the launch's rest beyond them (docs/profile.md, "The
                               * fixed stages at the sizes people run"); NULL: a line over the MiB moved */
} KernelFitOptions;

/* One kernel profile from traces of one kernel on one GPU (their "kernel" and "gpu_name" metadata must
 * agree; each needs the phase columns). timed_ns[i]: the median time of the same run unrecorded (the
 * kernel-runs file), for the fixed costs; NULL or 0: the recorded run's stage times instead. The profile's
 * name and source are the caller's to fill. One tile per head dim found. SIM_ERR_INPUT with a sentence
 * naming the trace that cannot be used. O(tasks log tasks). */
SimStatus sim_kernel_fit_traces(Trace *const *traces, const int64_t *timed_ns, int count, const KernelFitOptions *o,
                                KernelProfile **out, SimError *err);

/* The step of the traces' time stamps: the greatest common divisor of every phase stamp (c_cycles is no
 * stamp), 1 when they have none but 0. %globaltimer on Hopper ticks every 32 ns: every committed trace's
 * stamps are multiples of 32. O(stamps). */
int64_t sim_trace_stamp_step(Trace *const *traces, int count);

#endif

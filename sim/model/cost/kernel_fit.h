/* Fitting a kernel profile (kernel.h) to measured traces of that kernel (docs/profile.md, "Making a kernel
 * profile"). Each cost is a median of the phase it names, over every trace of the head dim: compute of an
 * interior task and of a diagonal one (each without the overlap that slows it), the overlap's penalty and
 * window, the launch wave's extra load, the dK/dV write, the K/V switch of persistent CTAs, the deposit, the
 * kernel's own reduction (read and tail), the hand-off, the CTA prologue; the fixed costs of a launch by
 * least squares over the traces' stage times against the bytes each stage moves. */
#ifndef SIM_KERNEL_FIT_H
#define SIM_KERNEL_FIT_H

#include "kernel.h"
#include "trace.h"

/* One kernel profile from traces of one kernel on one GPU (their "kernel" and "gpu_name" metadata must
 * agree; each needs the phase columns). timed_ns[i]: the median time of the same run unrecorded (the
 * kernel-runs file), for the fixed costs; NULL or 0: the recorded run's stage times instead. The profile's
 * name and source are the caller's to fill. One tile per head dim found. SIM_ERR_INPUT with a sentence
 * naming the trace that cannot be used. is_write_rule_start: a reduction already running when its SM's dK/dV
 * write starts is not slowed (geometry write_rule "start", the Hopper kernel: docs/profile.md); else it pays
 * the excess measured on such reductions. O(tasks log tasks). */
SimStatus sim_kernel_fit_traces(Trace *const *traces, const int64_t *timed_ns, int count, bool is_write_rule_start,
                                KernelProfile **out, SimError *err);

#endif

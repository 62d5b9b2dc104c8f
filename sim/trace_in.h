/* Measured kernel traces (written by gpu/, format in docs/gpu.md): metadata naming the policy and shape,
 * and per task the SM it ran on and the start/end of its compute, wait and reduction (ns, %globaltimer).
 * Invariant of a loaded trace: every task row is complete and its times are ordered
 * c_start <= c_end <= r_ready <= r_start <= r_end. */
#ifndef SIM_TRACE_IN_H
#define SIM_TRACE_IN_H

#include "attention.h"
#include "status.h"

typedef struct {
    int32_t cta, slot, smid, head, kv, q, rank;
    int64_t c_start, c_end, r_ready, r_start, r_end;
} TraceTask;

typedef struct {
    char *path;
    char *policy;
    Workload wl;
    AttnCosts model;       /* reduce and dq_buffers from the metadata; costs are fitted later */
    char *group;           /* shape + compute configuration: traces of one group compare policies */
    char *gpu_name;
    TraceTask *tasks;
    int64_t task_count;
} Trace;

/* Loads and checks path. SIM_ERR_INPUT with the file and JSON path of the first problem. */
SimStatus sim_trace_load(const char *path, Trace **out, SimError *err);
void sim_trace_free(Trace *t);

#endif

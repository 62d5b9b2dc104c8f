/* Reading measured kernel traces (format in docs/gpu.md) into sim/model/trace.h records, and the
 * its metadata (the latency matrix is sim/io/latency_matrix.h). Invariant of a loaded trace: every task row is complete and its times are
 * ordered c_start <= c_end <= r_ready <= r_start <= r_end. */
#ifndef SIM_TRACE_IN_H
#define SIM_TRACE_IN_H

#include "status.h"
#include "trace.h"


/* Loads and checks path. SIM_ERR_INPUT with the file and JSON path of the first problem. */
SimStatus sim_trace_load(const char *path, Trace **out, SimError *err);

#endif

/* Reading measured kernel traces (format in docs/gpu.md) into sim/model/trace.h records, and the
 * latency matrix of gpu-calib. Invariant of a loaded trace: every task row is complete and its times are
 * ordered c_start <= c_end <= r_ready <= r_start <= r_end. */
#ifndef SIM_TRACE_IN_H
#define SIM_TRACE_IN_H

#include "status.h"
#include "trace.h"


/* Loads and checks path. SIM_ERR_INPUT with the file and JSON path of the first problem. */
SimStatus sim_trace_load(const char *path, Trace **out, SimError *err);

/* Latency matrix file (traces/calib-latency.json): latency_ns[i][j] from SM smids[i] to SM smids[j];
 * *matrix is n_sm x n_sm indexed by SM id, -1 where unmeasured. Caller frees it with g_free. */
SimStatus sim_latency_matrix_load(const char *path, int n_sm, int32_t **matrix, SimError *err);

#endif

/* Reading measured kernel traces (format in docs/gpu.md) into sim/model/validate/trace.h records, and the
 * its metadata (the latency matrix is sim/io/latency_matrix.h). Invariant of a loaded trace: every task row is complete and its times are
 * ordered c_start <= c_end <= r_ready <= r_start <= r_end. */
#ifndef SIM_TRACE_IN_H
#define SIM_TRACE_IN_H

#include <stdint.h>

#include "status.h"
#include "trace.h"

#define SIM_TRACE_BYTES_PER_TASK 1024      /* validating re-simulates the workload: 3 engine ops + a row */
#define SIM_TRACE_PARSE_FACTOR 8           /* bytes held while reading per byte of JSON text, at most: a
                                             * one-digit cell and its comma become an 8-byte double, and
                                             * the task records are made before the cells are freed */
#define SIM_TRACE_DEFAULT_MAX_BYTES (INT64_C(4096) << 20)
#define SIM_TRACE_MAX_TEXT_BYTES (INT64_C(256) << 20) /* JSON text read, at most, whatever max_bytes says */

/* Loads and checks path. SIM_ERR_INPUT with the file and JSON path of the first problem (a cell that is
 * not an integer in its column's range, a duplicate key, more rows than the workload has tasks);
 * SIM_ERR_LIMIT before reading when the file (times SIM_TRACE_PARSE_FACTOR) or the claimed workload
 * (heads x kv_tiles x q_tiles x SIM_TRACE_BYTES_PER_TASK plus two n_sm x n_sm matrices) is over max_bytes.
 * sim_trace_load: max_bytes = SIM_TRACE_DEFAULT_MAX_BYTES. */
SimStatus sim_trace_load_capped(const char *path, int64_t max_bytes, Trace **out, SimError *err);
SimStatus sim_trace_load(const char *path, Trace **out, SimError *err);

#endif

/* Reading a kernel-runs file ("format": "dashsim-kernel-runs", gpu/bwd/shapes.py) into KernelRuns. */
#ifndef SIM_KERNEL_RUNS_IO_H
#define SIM_KERNEL_RUNS_IO_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "kernel_runs.h"
#include "status.h"

/* A baseline-times file (kernel_io.h) reads the same way: its records are runs. Every record checked (types, ranges, mask and mode words), with its JSON path in the error. A record
 * with an "error" field, or whose gradients or repeatability failed, is kept with is_ok false. The caller
 * frees *out (sim_kernel_runs_free). */
SimStatus sim_kernel_runs_read(const char *path, KernelRuns **out, SimError *err);
/* The same from a parsed document (its "metadata" and "records"; the format word is the caller's). */
SimStatus sim_kernel_runs_parse(const cJSON *root, const char *path, KernelRuns **out, SimError *err);
/* Whether path holds a kernel-runs file (its "format"), without reading all of it: cheap for validate's
 * directory scan. */
bool sim_kernel_runs_is(const char *path);

/* A stage sweep (bin/gpu-bwd-stages' output) into *out: every point's head dim (1-1024), rows (1024 to 2^31),
 * group (1-1024, dividing rows by 1024-row heads is the tool's business) and chain_ns (0 to 1e10) checked, with its
 * JSON path in the error; the caller clears *out (sim_kernel_stages_clear) whatever the status. */
SimStatus sim_kernel_stages_read(const char *path, KernelStageSweep *out, SimError *err);

#endif

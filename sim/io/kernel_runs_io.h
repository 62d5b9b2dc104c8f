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

#endif

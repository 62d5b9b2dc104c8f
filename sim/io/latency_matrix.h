/* The SM-to-SM signal latency matrix, one format: gpu-calib's JSON (traces/calib-latency.json,
 * docs/gpu.md): "smids" (SM id of each row/column) and "latency_ns" (rows of integers, -1 on the
 * diagonal or where unmeasured). The older plain format (n x n whitespace-separated integers, '#'
 * comments, rows = SM ids 0..n-1) is still read, and flagged so the caller can print a note. */
#ifndef SIM_LATENCY_MATRIX_H
#define SIM_LATENCY_MATRIX_H

#include <stdbool.h>
#include <stdint.h>

#include "program.h"
#include "status.h"


/* Reads path into *matrix: n_sm x n_sm ns indexed by SM id (from x to y at [x * n_sm + y]), -1 where the
 * file has no value (the diagonal, unmeasured SMs). Values must be integers in 0..SIM_LATENCY_MAX_NS (or
 * -1), SM ids distinct and below n_sm. *is_legacy tells the plain text format was read. The caller frees
 * *matrix with free(). SIM_ERR_IO / SIM_ERR_INPUT with the file and JSON path (or line) of the problem.
 * O(n_sm^2); n_sm is limited by the caller's memory budget (8 bytes per cell while reading). */
SimStatus sim_latency_matrix_load(const char *path, int n_sm, int32_t **matrix, bool *is_legacy, SimError *err);

#endif

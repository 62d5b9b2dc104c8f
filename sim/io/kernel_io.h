/* Kernel profile files (docs/profile.md, "The kernel profile"): "format": "dashsim-kernel", "version": 1.
 * Written by `sim calibrate --kernel`, read by every front end's --kernel. */
#ifndef SIM_KERNEL_IO_H
#define SIM_KERNEL_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel.h"
#include "kernel_baseline.h"

/* Reads and checks a kernel profile: every key known, every field present and in range. SIM_ERR_IO /
 * SIM_ERR_INPUT with the file and JSON path. The caller frees *out (sim_kernel_free). */
SimStatus sim_kernel_read(const char *path, KernelProfile **out, SimError *err);
/* Every kernel profile (*.json, in name order) of directory dir into a new array *out of *count (free each
 * with sim_kernel_free, then the array with g_free). A file that is not a valid profile is an error. */
SimStatus sim_kernel_read_dir(const char *dir, KernelProfile ***out, int *count, SimError *err);
/* Reads a baseline-times file ("format": "dashsim-kernel-baseline", docs/profile.md): the kernel's name,
 * GPU, source, geometry and tiles to fit (head_dim, mask, block_m, block_n), and its published or measured
 * times as kernel-runs records. The caller clears *out (sim_kernel_baseline_clear). */
SimStatus sim_kernel_baseline_read(const char *path, KernelBaseline *out, SimError *err);
/* A fitted slowdown under sustained load (scripts/fit-sustained.py's "dashsim-sustained" file) for the tiles of
 * *head_dim: into k->sustained, and the GPU it was measured on into gpu ("" where the file names none; docs/profile.md,
 * "The clock under sustained load"). */
SimStatus sim_kernel_sustained_read(const char *path, int *head_dim, AttnClock *k, char *gpu, size_t gpu_len,
                                    SimError *err);
/* Writes k; false if a write failed. Same profile, same bytes. */
bool sim_kernel_write(const KernelProfile *k, FILE *f);

#endif

/* Finding dashsim's data files (hardware profiles, kernel profiles, preset configs) from any working
 * directory: a path that names an existing file is taken as is; a name is looked for, in order, under
 * $DASHSIM_DATA, the configs/ of the build tree the running program sits in (bin/ -> ../configs), the
 * configs of a relocated install (bin/ -> ../share/dashsim/configs), the install prefix the library was
 * built for, and ./configs. A failure names every place it looked. */
#ifndef SIM_DATADIR_H
#define SIM_DATADIR_H

#include <stddef.h>

#include "status.h"

/* name: a path ("configs/profiles/x.json", "./my.json") or a name under configs ("profiles/h100-sxm.json").
 * Writes the file found into out (len bytes). SIM_ERR_IO with every place looked. */
SimStatus sim_data_find(const char *name, char *out, size_t len, SimError *err);
/* A kernel profile by file or by name: "gpu-bwd" is kernels/gpu-bwd.json under the data places. */
SimStatus sim_data_find_kernel(const char *name, char *out, size_t len, SimError *err);
/* A hardware profile by file or by name: "h100-sxm" is profiles/h100-sxm.json under the data places. */
SimStatus sim_data_find_profile(const char *name, char *out, size_t len, SimError *err);
/* The profiles a shape is costed with by default, the same for every front end (the shape command, configs):
 * with no name, the preset's own hardware profile (profiles/h200-sxm.json for h200-sxm) where one is
 * installed, else SIM_DATA_DEFAULT_PROFILE (the report then says whose GPU measured it). A kernel named bare
 * ("gpu-bwd-wgmma") is taken in the preset GPU's own measurement where one is installed (gpu-bwd-wgmma-h200 for
 * h200-sxm), else as named. Errors as above. */
#define SIM_DATA_DEFAULT_PROFILE "h100-sxm"
SimStatus sim_data_find_profile_for(const char *name, const char *preset, char *out, size_t len, SimError *err);
SimStatus sim_data_find_kernel_for(const char *name, const char *preset, char *out, size_t len, SimError *err);

#endif

/* Hardware profile files (docs/profile.md): made from gpu-calib --profile output (sim calibrate), read by
 * every subcommand's --profile. The profile is versioned ("format": "dashsim-profile", "version": 1). */
#ifndef SIM_PROFILE_IO_H
#define SIM_PROFILE_IO_H

#include <stdio.h>

#include "profile.h"

/* Builds a profile from a raw calibration file ("format": "dashsim-calib-profile-raw"). latency_matrix:
 * optional gpu-calib latency matrix whose median one-way latency is the idle hand-off when the raw file
 * has no stamped hand-off measurement (NULL: the raw file's own). SIM_ERR_IO / SIM_ERR_INPUT with the
 * JSON path of what is missing. The caller frees *out (sim_profile_free). */
SimStatus sim_profile_from_raw(const char *raw_path, const char *latency_matrix, HwProfile **out, SimError *err);
/* Fits p's load rule (its queue per family of methods) to the staggered runs of another raw calibration
 * file (reduce_staggered, with the reduce_inflight curves of the same methods); p names it as the queue's
 * source. sim_profile_from_raw does this itself when its raw file has staggered runs. */
SimStatus sim_profile_fit_load(HwProfile *p, const char *raw_path, SimError *err);
/* Fits p's clock rule (the share of each family's reduction that scales with the SM clock) to the
 * reduce_clock rows of a raw calibration file (gpu-calib --steady); p names it as the rule's source. */
SimStatus sim_profile_fit_clock_rule(HwProfile *p, const char *raw_path, SimError *err);
/* Reads and checks a profile file: every field present, numbers in range, curves ascending. */
SimStatus sim_profile_read(const char *path, HwProfile **out, SimError *err);
/* Writes p as a profile file; false if a write failed. Same profile, same bytes. */
bool sim_profile_write(const HwProfile *p, FILE *f);

#endif

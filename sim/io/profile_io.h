/* Hardware profile files (docs/profile.md): made from gpu-calib --profile output (sim calibrate), read by
 * every subcommand's --profile. The profile is versioned ("format": "dashsim-profile", "version": 1). */
#ifndef SIM_PROFILE_IO_H
#define SIM_PROFILE_IO_H

#include <stdio.h>

#include "profile.h"

/* Raw files are read at most 64 MB (SIM_PROFILE_RAW_MAX_BYTES, a ceiling) and parsed whole into a JSON tree:
 * at most SIM_PROFILE_RAW_PARSE_FACTOR bytes held per byte of text. Measured with /usr/bin/time -f %M on
 * `sim calibrate` of a raw file of one array of "0,": 42 to 44 bytes a byte at 4, 16, 32 and 60 MB (80-byte
 * cJSON nodes of 2-byte values, and the compact copy hashed); arrays of "[]," took 29. */
#define SIM_PROFILE_RAW_MAX_BYTES (INT64_C(64) << 20)
#define SIM_PROFILE_RAW_PARSE_FACTOR 48

/* Builds a profile from a raw calibration file ("format": "dashsim-calib-profile-raw"). latency_matrix:
 * optional gpu-calib latency matrix whose median one-way latency is the idle hand-off when the raw file
 * has no stamped hand-off measurement (NULL: the raw file's own). max_memory_bytes caps the raw file's
 * JSON tree: its text is read at most min(SIM_PROFILE_RAW_MAX_BYTES, max_memory_bytes /
 * SIM_PROFILE_RAW_PARSE_FACTOR) bytes (SIM_ERR_LIMIT beyond). SIM_ERR_IO / SIM_ERR_INPUT with the JSON path
 * of what is missing. The caller frees *out (sim_profile_free). */
SimStatus sim_profile_from_raw(const char *raw_path, const char *latency_matrix, int64_t max_memory_bytes,
                               HwProfile **out, SimError *err);
/* Fits p's load rule (its queue per family of methods) to the staggered runs of another raw calibration
 * file (reduce_staggered, with the reduce_inflight curves of the same methods), read under max_memory_bytes
 * as sim_profile_from_raw; p names it as the queue's source. sim_profile_from_raw does this itself when its
 * raw file has staggered runs. */
SimStatus sim_profile_fit_load(HwProfile *p, const char *raw_path, int64_t max_memory_bytes, SimError *err);
/* Fits p's clock rule (the share of each family's reduction that scales with the SM clock) to the
 * reduce_clock rows of a raw calibration file (gpu-calib --steady), read under max_memory_bytes as
 * sim_profile_from_raw; p names it as the rule's source. */
SimStatus sim_profile_fit_clock_rule(HwProfile *p, const char *raw_path, int64_t max_memory_bytes, SimError *err);

/* The load curve of each method that raw_path's reduce_steady measured (gpu-calib --steady: every SM reducing
 * from a random phase, as in a kernel, not k started together), in place of the burst curve, scaled to the
 * profile's own time alone; the methods it did not measure keep the burst curve. */
SimStatus sim_profile_fit_steady_curve(HwProfile *p, const char *raw_path, int64_t max_memory_bytes, SimError *err);
/* Reads and checks a profile file: every field present, numbers in range, curves ascending. */
SimStatus sim_profile_read(const char *path, HwProfile **out, SimError *err);
/* Writes p as a profile file; false if a write failed. Same profile, same bytes. */
bool sim_profile_write(const HwProfile *p, FILE *f);

#endif

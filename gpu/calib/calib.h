/* gpu-calib's shared declarations (docs/gpu.md, "How gpu-calib works"): the flag spacing, the profile's
 * thread layout and named barriers, the options, the tiles and reduction variants every calibration sweeps,
 * the host helpers of common.cu and one entry point per calibration (one file each, named for what it
 * measures). Invariant: one CTA per SM (GPU_SMEM_BYTES of dynamic shared memory), SMs by %smid. */
#ifndef GPU_CALIB_H
#define GPU_CALIB_H

#include "../gpu_device.cuh"
#include "../gpu_host.h"
extern "C" {
#include "stats.h" /* sim/core: the one median of dashsim */
}

#include <cuda_runtime.h>
#include <stdio.h>

#define LAT_LINE 64 /* unsigned words between flags: each flag alone on a 256-byte line */
enum { LAT_PING = 0, LAT_PONG = 1, LAT_TURN = 2, LAT_ARRIVE = 3, LAT_WORDS = 4 * LAT_LINE };

#define PROF_THREADS (GPU_COMPUTE_THREADS + GPU_STORE_THREADS)
#define PROF_BAR_COMPUTE 1 /* named barrier of the 256 compute threads */
#define PROF_BAR_FULL 2    /* async: staged tile ready for the store warp */
#define PROF_BAR_EMPTY 3   /* async: the store warp has read the staging buffer */

typedef struct {
    const char *out_dir;
    int trips, warm, is_skip_latency, is_profile, is_steady;
    unsigned seed; /* --steady: the random phases and gaps */
    GpuMeta meta;
} Options;

typedef struct {
    int tile_m, head_dim;
} Tile;

typedef struct {
    const char *name;
    int op, nthr;
} Variant;

#define CALIB_TILES 4
#define CALIB_VARIANTS 5
extern const Tile calib_tiles[CALIB_TILES];          /* 64x128, 80x128, 128x64, 128x128 */
extern const Variant calib_variants[CALIB_VARIANTS]; /* bulk, ldst and red by a warp or a CTA */

#define PROF_NI 9
static const int prof_iters[PROF_NI] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

/* ---- common.cu ---- */
/* dir/name opened for writing (path gets the name); exits 1 with a sentence when it cannot be. */
FILE *calib_open_out(const char *dir, const char *name, char *path, size_t len);
/* Sorts v ascending (for order statistics and extremes read off the array itself). */
void calib_sort_d(double *v, int n);
/* The q-quantile of v by the nearest rank, after sorting v in place; 0 when n == 0. */
double calib_pct(double *v, int n, double q);
/* "key":[v0,v1,...] with each value printed by fmt. */
void calib_array_d(FILE *f, const char *key, const double *v, int n, const char *fmt);
/* bytes of zeroed device memory (exits 1 on a CUDA error). */
void *calib_alloc(size_t bytes);
/* Least squares y = fixed + slope x over n points; returns the largest relative residual. */
double calib_fit(const int *x, const double *y, int n, double *fixed, double *slope);
/* "key":{median, p10, p90, min, max, samples} of v (sorted in place). */
void calib_stats(FILE *f, const char *key, double *v, int n);

/* ---- the calibrations: default mode (files calib-latency.json, calib-reduce.json, calib-iters.txt) ---- */
void calib_sm_latency(const Options *o, int sm_count, GpuMeta *meta);
void calib_tile_costs(const Options *o, int sm_count, GpuMeta *meta);

/* ---- --profile: each writes its JSON section(s) into f; the clock it measured where it returns one ---- */
double calib_compute(FILE *f, int sm_count);
void calib_staging(FILE *f, int sm_count);
void calib_reduce_inflight(FILE *f, int sm_count, const char *section, int shift);
void calib_reduce_staggered(FILE *f, int sm_count);
void calib_handoff(FILE *f, int sm_count);
double calib_launch(FILE *f, int sm_count);
void calib_task_loop(FILE *f, int sm_count);
void calib_handoff_stamped(FILE *f, int sm_count);
/* ---- --steady (reduce_steady.cu): samples go to tsv, one line each ---- */
void calib_reduce_steady(FILE *f, int sm_count, unsigned seed, FILE *tsv, int is_compute);
void calib_reduce_per_sm(FILE *f, int sm_count);
void calib_reduce_clock(FILE *f, int sm_count);

#endif

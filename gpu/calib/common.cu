/* gpu-calib's shared host helpers: the output files, the tiles and reduction variants every calibration
 * sweeps, order statistics (the core's median, sim/core/stats.h), least squares, zeroed device buffers
 * and JSON arrays. Invariant: every helper that sorts says so; the callers read sorted arrays only after. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void calib_sort_d(double *v, int n)
{
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_d);
}

FILE *calib_open_out(const char *dir, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpu-calib: cannot write %s\n", path);
        exit(1);
    }
    return f;
}

const Tile calib_tiles[CALIB_TILES] = {{64, 128}, {80, 128}, {128, 64}, {128, 128}};

const Variant calib_variants[CALIB_VARIANTS] = {{"bulk", GPU_OP_BULK, 1},
                                                {"ldst-warp", GPU_OP_LDST, 32},
                                                {"ldst-cta", GPU_OP_LDST, GPU_COMPUTE_THREADS},
                                                {"red-warp", GPU_OP_RED, 32},
                                                {"red-cta", GPU_OP_RED, GPU_COMPUTE_THREADS}};

/* The q-quantile of v (sorted in place), nearest rank; 0 when n == 0. */
double calib_pct(double *v, int n, double q)
{
    if (n <= 0)
        return 0;
    calib_sort_d(v, n);
    int i = (int)(q * (n - 1) + 0.5);
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

void calib_array_d(FILE *f, const char *key, const double *v, int n, const char *fmt)
{
    fprintf(f, "\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        fprintf(f, fmt, v[i]);
    }
    fputc(']', f);
}

void *calib_alloc(size_t bytes)
{
    void *p;
    GPU_CHECK(cudaMalloc(&p, bytes));
    GPU_CHECK(cudaMemset(p, 0, bytes));
    return p;
}

/* Least squares ns = fixed + per_iter * iters over n points; returns the largest relative residual. */
double calib_fit(const int *x, const double *y, int n, double *fixed, double *slope)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        sx += x[i], sy += y[i], sxx += (double)x[i] * x[i], sxy += x[i] * y[i];
    *slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *fixed = (sy - *slope * sx) / n;
    double worst = 0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(*fixed + *slope * x[i] - y[i]) / y[i]);
    return worst;
}

void calib_stats(FILE *f, const char *key, double *v, int n)
{
    calib_sort_d(v, n); /* min and max below are read after it (argument order is unspecified) */
    fprintf(f, "\"%s\":{\"median\":%.1f,\"p10\":%.1f,\"p90\":%.1f,\"min\":%.1f,\"max\":%.1f,\"samples\":%d}", key,
            calib_pct(v, n, 0.5), calib_pct(v, n, 0.1), calib_pct(v, n, 0.9), n ? v[0] : 0, n ? v[n - 1] : 0, n);
}

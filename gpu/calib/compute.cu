/* gpu-calib --profile, section compute (docs/gpu.md, "Profile calibration"): the executor's compute per task
 * against tile and mma rounds, on one SM and on all SMs, with and without a store warp spinning beside it,
 * and the serial staging of the same tasks. Invariant: the tasks are the executor's (gpu_tile_compute and
 * gpu_tile_stage), so the fit is of the compute that the executor's traces time. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Compute per task: ntasks tasks per CTA as the executor's serial mode runs them (compute, stage, fence,
 * barrier of the compute warps). out[(blk*ntasks+i)*2 + 0]: cycles of the compute (thread 0, c_start to
 * c_end), +1: cycles of the staging (c_end to after the barrier). With store_warp, warp 8 spins
 * ld.acquire.gpu on a flag meanwhile, as the async store warp waiting on a semaphore does. */
template <int MB, int NB>
__global__ void __launch_bounds__(PROF_THREADS, 1)
    prof_compute_kernel(int iters, int ntasks, unsigned *flag, long long *out, long long *span, float *sink)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = (float *)smem;
    const int tid = threadIdx.x;
    unsigned *f = flag + (size_t)blockIdx.x * LAT_LINE;
    if (tid >= GPU_COMPUTE_THREADS) {
        if ((tid & 31) == 0)
            while (gpu_ld_acquire(f) == 0) {
            }
        __syncwarp();
        return;
    }
    const long long g0 = gpu_globaltimer(), k0 = clock64();
    for (int i = 0; i < ntasks; i++) {
        float acc[MB][NB][4];
        gpu_bar_sync(PROF_BAR_COMPUTE, GPU_COMPUTE_THREADS);
        const long long c0 = clock64();
        gpu_tile_compute<MB, NB>(acc, 0, (int)blockIdx.x, i, iters, 0, c0);
        const long long c1 = clock64();
        gpu_tile_stage<MB, NB>(acc, stage);
        gpu_fence_proxy_smem();
        gpu_bar_sync(PROF_BAR_COMPUTE, GPU_COMPUTE_THREADS);
        const long long c2 = clock64();
        if (tid == 0) {
            out[((size_t)blockIdx.x * ntasks + i) * 2] = c1 - c0;
            out[((size_t)blockIdx.x * ntasks + i) * 2 + 1] = c2 - c1;
        }
    }
    if (tid == 0) {
        span[2 * blockIdx.x] = gpu_globaltimer() - g0;
        span[2 * blockIdx.x + 1] = clock64() - k0;
        sink[blockIdx.x] = stage[blockIdx.x % 64];
        gpu_st_release(f, 1u);
    }
}

typedef void (*ProfComputeKernel)(int, int, unsigned *, long long *, long long *, float *);

static ProfComputeKernel prof_compute_for(const Tile *t)
{
    if (t->tile_m == 64)
        return prof_compute_kernel<4, 2>;
    if (t->tile_m == 80)
        return prof_compute_kernel<5, 2>;
    return t->head_dim == 64 ? prof_compute_kernel<8, 1> : prof_compute_kernel<8, 2>;
}

/* (a) compute vs tile and rounds, one SM and all SMs, with and without a spinning store warp; the serial
 * staging of the same tasks comes along (d). */
double calib_compute(FILE *f, int sm_count)
{
    const int ntasks = 8;
    unsigned *d_flag = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * 2 * ntasks * sm_count);
    long long *d_span = (long long *)calib_alloc(sizeof(long long) * 2 * sm_count);
    float *d_sink = (float *)calib_alloc(sizeof(float) * sm_count);
    long long *out = (long long *)malloc(sizeof(long long) * 2 * ntasks * sm_count);
    long long *span = (long long *)malloc(sizeof(long long) * 2 * sm_count);
    double *c = (double *)malloc(sizeof(double) * ntasks * sm_count), *s = (double *)malloc(sizeof(double) * ntasks * sm_count);
    double *c1 = (double *)malloc(sizeof(double) * sm_count), *mhz = (double *)malloc(sizeof(double) * sm_count);
    double clock_all = 0;
    fprintf(f, ",\n\"compute\":{\"method\":\"one CTA per SM (200 KB shared memory) on 1 SM or on every SM; each runs %d "
               "tasks of the executor's compute (gpu_tile_compute: operand hashing + iters mma.sync rounds + scale/bias, "
               "8 compute warps) followed by its serial staging (registers to swizzled shared memory, "
               "fence.proxy.async, barrier of the compute warps); thread 0 times both with clock64, converted to ns at "
               "the CTA's own clock64/globaltimer ratio; task 0 (cold) reported apart, medians over tasks 1..%d x "
               "CTAs; store_warp spinning: a ninth warp spins ld.acquire.gpu on a flag meanwhile (async mode's store "
               "warp waiting on a semaphore); fit: least squares of the medians, ns = fixed_ns + per_iter_ns * "
               "iters\",\"units\":\"ns\",\"tasks_per_cta\":%d,\"rows\":[",
            ntasks, ntasks - 1, ntasks);
    int row = 0;
    for (int ti = 0; ti < CALIB_TILES; ti++)
        for (int si = 0; si < 2; si++)
            for (int sw = 0; sw < 2; sw++) {
                const Tile *t = &calib_tiles[ti];
                const int blocks = si ? sm_count : 1, threads = sw ? PROF_THREADS : GPU_COMPUTE_THREADS;
                ProfComputeKernel k = prof_compute_for(t);
                GPU_CHECK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, GPU_SMEM_BYTES));
                double med[PROF_NI], p90[PROF_NI], first[PROF_NI], st[PROF_NI], st90[PROF_NI], clk[PROF_NI];
                for (int ii = 0; ii < PROF_NI; ii++) {
                    for (int rep = 0; rep < 2; rep++) { /* the first launch warms up */
                        GPU_CHECK(cudaMemset(d_flag, 0, sizeof(unsigned) * LAT_LINE * sm_count));
                        k<<<blocks, threads, GPU_SMEM_BYTES>>>(prof_iters[ii], ntasks, d_flag, d_out, d_span, d_sink);
                        gpu_check_launch("profile compute kernel", __FILE__, __LINE__);
                    }
                    GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 2 * ntasks * blocks, cudaMemcpyDeviceToHost));
                    GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * 2 * blocks, cudaMemcpyDeviceToHost));
                    int n = 0;
                    for (int b = 0; b < blocks; b++) {
                        const double nspc = (double)span[2 * b] / (double)span[2 * b + 1];
                        mhz[b] = 1000.0 / nspc;
                        c1[b] = (double)out[(size_t)b * ntasks * 2] * nspc;
                        for (int i = 1; i < ntasks; i++, n++) {
                            c[n] = (double)out[((size_t)b * ntasks + i) * 2] * nspc;
                            s[n] = (double)out[((size_t)b * ntasks + i) * 2 + 1] * nspc;
                        }
                    }
                    med[ii] = calib_pct(c, n, 0.5);
                    p90[ii] = calib_pct(c, n, 0.9);
                    st[ii] = calib_pct(s, n, 0.5);
                    st90[ii] = calib_pct(s, n, 0.9);
                    first[ii] = calib_pct(c1, blocks, 0.5);
                    clk[ii] = calib_pct(mhz, blocks, 0.5);
                }
                double fixed, slope, worst = calib_fit(prof_iters, med, PROF_NI, &fixed, &slope);
                if (si && !sw)
                    clock_all = clk[PROF_NI - 1];
                fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"sms\":%d,\"store_warp\":\"%s\",\"threads\":%d,"
                           "\"fixed_ns\":%.1f,\"per_iter_ns\":%.3f,\"fit_max_rel_err\":%.4f,",
                        row++ ? "," : "", t->tile_m, t->head_dim, blocks, sw ? "spinning" : "none", threads, fixed,
                        slope, worst);
                fprintf(f, "\"iters\":[1,2,4,8,16,32,64,128,256],");
                calib_array_d(f, "median_ns", med, PROF_NI, "%.1f");
                fputc(',', f);
                calib_array_d(f, "p90_ns", p90, PROF_NI, "%.1f");
                fputc(',', f);
                calib_array_d(f, "first_task_median_ns", first, PROF_NI, "%.1f");
                fputc(',', f);
                calib_array_d(f, "stage_serial_median_ns", st, PROF_NI, "%.1f");
                fputc(',', f);
                calib_array_d(f, "stage_serial_p90_ns", st90, PROF_NI, "%.1f");
                fputc(',', f);
                calib_array_d(f, "sm_clock_mhz", clk, PROF_NI, "%.0f");
                fputc('}', f);
                printf("compute %3dx%-3d sms %3d store warp %-8s: %7.1f ns + %6.2f ns/iter (fit err %.3f), stage %.0f ns, "
                       "clock %.0f MHz\n",
                       t->tile_m, t->head_dim, blocks, sw ? "spinning" : "none", fixed, slope, worst, st[3], clk[8]);
            }
    fprintf(f, "\n]}");
    cudaFree(d_flag);
    cudaFree(d_out);
    cudaFree(d_span);
    cudaFree(d_sink);
    free(out);
    free(span);
    free(c);
    free(s);
    free(c1);
    free(mhz);
    return clock_all;
}

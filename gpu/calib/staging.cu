/* gpu-calib --profile, section staging: the executor's async hand-off between the compute warps and the
 * store warp (one staging buffer, no semaphore wait), per task stamps of compute end, buffer wait, staging,
 * the store warp's start and its release; one SM and all SMs, bulk and ld/st reductions. Invariant: the
 * barrier choreography is exec_loop.cuh's async mode, FULL/EMPTY named barriers. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Async staging, the executor's async structure with one staging buffer and no semaphore wait: per task
 * the compute warps compute (c_end: t1), wait on EMPTY (t2), stage (+ fence.proxy.async for bulk) + arrive
 * FULL (t3); the store warp syncs FULL (t4 = r_ready), reduces into its own tile (op: bulk by lane 0, or
 * ld/st by the 32 lanes, as exec_store_warp), arrives EMPTY once read, completes, fences and
 * release-increments (t5). out[(blk*ntasks+i)*5 + 0..4] = t1..t5 in clock64. */
template <int MB, int NB>
__global__ void __launch_bounds__(PROF_THREADS, 1)
    prof_async_kernel(int op, int iters, int ntasks, float *dq, unsigned *sem, long long *out, long long *span)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = (float *)smem;
    const int tid = threadIdx.x, tile = MB * 16 * NB * 64;
    const long long g0 = gpu_globaltimer(), k0 = clock64();
    long long *o = out + (size_t)blockIdx.x * ntasks * 5;
    if (tid < GPU_COMPUTE_THREADS) {
        for (int i = 0; i < ntasks; i++) {
            float acc[MB][NB][4];
            const long long c0 = clock64();
            gpu_tile_compute<MB, NB>(acc, 0, (int)blockIdx.x, i, iters, 0, c0);
            const long long t1 = clock64();
            if (i >= 1)
                gpu_bar_sync(PROF_BAR_EMPTY, PROF_THREADS);
            const long long t2 = clock64();
            gpu_tile_stage<MB, NB>(acc, stage);
            if (op == GPU_OP_BULK)
                gpu_fence_proxy_smem();
            gpu_bar_arrive(PROF_BAR_FULL, PROF_THREADS);
            const long long t3 = clock64();
            if (tid == 0) {
                o[i * 5 + 0] = t1;
                o[i * 5 + 1] = t2;
                o[i * 5 + 2] = t3;
            }
        }
    } else {
        const int lane = tid & 31;
        float *dst = dq + (size_t)blockIdx.x * tile;
        unsigned *s = sem + (size_t)blockIdx.x * LAT_LINE;
        for (int i = 0; i < ntasks; i++) {
            gpu_bar_sync(PROF_BAR_FULL, PROF_THREADS);
            const long long t4 = clock64();
            if (op == GPU_OP_BULK) {
                if (lane == 0) {
                    gpu_reduce_bulk_issue(stage, dst, tile);
                    gpu_bulk_wait_read();
                }
            } else {
                gpu_reduce_vec(op, stage, dst, tile, lane, 32);
            }
            __syncwarp();
            if (i + 1 < ntasks)
                gpu_bar_arrive(PROF_BAR_EMPTY, PROF_THREADS);
            if (lane == 0) {
                if (op == GPU_OP_BULK)
                    gpu_bulk_wait_done();
                gpu_release_increment(s);
                o[i * 5 + 3] = t4;
                o[i * 5 + 4] = clock64();
            }
            __syncwarp();
        }
    }
    __syncthreads();
    if (tid == 0) {
        span[2 * blockIdx.x] = gpu_globaltimer() - g0;
        span[2 * blockIdx.x + 1] = clock64() - k0;
    }
}

typedef void (*ProfAsyncKernel)(int, int, int, float *, unsigned *, long long *, long long *);

static ProfAsyncKernel prof_async_for(const Tile *t)
{
    if (t->tile_m == 64)
        return prof_async_kernel<4, 2>;
    if (t->tile_m == 80)
        return prof_async_kernel<5, 2>;
    return t->head_dim == 64 ? prof_async_kernel<8, 1> : prof_async_kernel<8, 2>;
}

/* (d) async staging: the executor's compute-warp / store-warp hand-off, 1 SM and all SMs. */
void calib_staging(FILE *f, int sm_count)
{
    const int ntasks = 16, drop = 2;
    /* the joint load curve: k SMs each computing and reducing at once, for both store-warp methods and
     * several compute lengths (iters 1: the store warp is the bottleneck; 32: the reduction hides) */
    static const int iters[] = {1, 4, 16, 32}, sms_want[] = {1, 16, 33, 66, 99, 132};
    static const struct { const char *name; int op, threads; } ops[] = {{"bulk", GPU_OP_BULK, 1}, {"ldst", GPU_OP_LDST, 32}};
    const int n_iters = (int)(sizeof iters / sizeof iters[0]), n_sms = (int)(sizeof sms_want / sizeof sms_want[0]);
    float *d_dq = (float *)calib_alloc(sizeof(float) * 128 * 128 * sm_count);
    unsigned *d_sem = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * 5 * ntasks * sm_count);
    long long *d_span = (long long *)calib_alloc(sizeof(long long) * 2 * sm_count);
    long long *out = (long long *)malloc(sizeof(long long) * 5 * ntasks * sm_count);
    long long *span = (long long *)malloc(sizeof(long long) * 2 * sm_count);
    const int cap = ntasks * sm_count;
    double *v[5];
    for (int j = 0; j < 5; j++)
        v[j] = (double *)malloc(sizeof(double) * cap);
    fprintf(f, ",\n\"staging\":{\"method\":\"serial: see compute rows' stage_serial_*; async: the executor's async "
               "structure (288 threads, one staging buffer) without semaphore waits, %d tasks per CTA, first %d "
               "dropped, on sms CTAs (one per SM, all computing and reducing at once); compute thread 0 stamps "
               "clock64 at c_end (t1), after the EMPTY barrier (t2), after staging (+ fence.proxy.async.shared::cta "
               "for bulk) + arrive FULL (t3); store-warp lane 0 after sync FULL (t4 = the executor's r_ready) and "
               "after the reduction (op: bulk by one lane, ldst by the 32 lanes) + fence + release (t5); ns at the "
               "CTA's clock64/globaltimer ratio; medians and p90 over tasks x CTAs\",\"units\":\"ns\",\"async\":[",
            ntasks, drop);
    int row = 0;
    for (int ti = 0; ti < CALIB_TILES; ti++)
        for (int oi = 0; oi < 2; oi++)
            for (int si = 0; si < n_sms; si++)
                for (int ii = 0; ii < n_iters; ii++) {
                    const Tile *t = &calib_tiles[ti];
                    const int blocks = sms_want[si] < sm_count ? sms_want[si] : sm_count;
                    if (si + 1 < n_sms && sms_want[si] >= sm_count)
                        continue; /* a GPU of fewer SMs: its count comes once, from the last entry */
                    ProfAsyncKernel k = prof_async_for(t);
                    GPU_CHECK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, GPU_SMEM_BYTES));
                    for (int rep = 0; rep < 2; rep++) {
                        k<<<blocks, PROF_THREADS, GPU_SMEM_BYTES>>>(ops[oi].op, iters[ii], ntasks, d_dq, d_sem, d_out, d_span);
                        gpu_check_launch("profile async staging kernel", __FILE__, __LINE__);
                    }
                    GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 5 * ntasks * blocks, cudaMemcpyDeviceToHost));
                    GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * 2 * blocks, cudaMemcpyDeviceToHost));
                    int n = 0;
                    for (int b = 0; b < blocks; b++) {
                        const double nspc = (double)span[2 * b] / (double)span[2 * b + 1];
                        for (int i = drop; i < ntasks; i++, n++) {
                            const long long *o = out + ((size_t)b * ntasks + i) * 5;
                            v[0][n] = (double)(o[1] - o[0]) * nspc; /* wait EMPTY */
                            v[1][n] = (double)(o[2] - o[1]) * nspc; /* stage + fence + arrive */
                            v[2][n] = (double)(o[3] - o[2]) * nspc; /* store warp wakes */
                            v[3][n] = (double)(o[3] - o[0]) * nspc; /* c_end -> r_ready */
                            v[4][n] = (double)(o[4] - o[3]) * nspc; /* reduction */
                        }
                    }
                    static const char *names[5] = {"wait_empty", "deposit", "store_wake", "c_end_to_r_ready", "reduce"};
                    fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"op\":\"%s\",\"threads\":%d,\"sms\":%d,\"compute_iters\":%d",
                            row++ ? "," : "", t->tile_m, t->head_dim, ops[oi].name, ops[oi].threads, blocks, iters[ii]);
                    double med[5];
                    for (int j = 0; j < 5; j++) {
                        med[j] = calib_pct(v[j], n, 0.5);
                        fprintf(f, ",\"%s_median_ns\":%.1f,\"%s_p90_ns\":%.1f", names[j], med[j], names[j],
                                calib_pct(v[j], n, 0.9));
                    }
                    fputc('}', f);
                    if (ii == 0 || ii == n_iters - 1)
                        printf("async staging %3dx%-3d %-4s sms %3d iters %2d: wait_empty %.0f deposit %.0f wake %.0f "
                               "c_end->r_ready %.0f reduce %.0f ns\n",
                               t->tile_m, t->head_dim, ops[oi].name, blocks, iters[ii], med[0], med[1], med[2], med[3], med[4]);
                }
    fprintf(f, "\n]}");
    for (int j = 0; j < 5; j++)
        free(v[j]);
    free(out);
    free(span);
    cudaFree(d_dq);
    cudaFree(d_sem);
    cudaFree(d_out);
    cudaFree(d_span);
}

/* gpu-calib --profile, section task_loop: the executor's own task loop (gpu/exec_loop.cuh) with every rank
 * already free, serial and async, bulk and ld/st reductions: the per-task costs of its loop without any
 * wait on another SM. Invariant: the kernel is gpu-exec's, instantiated here for each tile. */
#include "calib.h"
#include "../exec_loop.cuh"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* (g) the executor's own task loop (gpu/exec_loop.cuh) with every rank already there: the per-task costs of
 * its loop. */
typedef void (*TlKernel)(ExecArgs);

static TlKernel tl_kernel_for(const Tile *t, int is_async)
{
#define PICK(M, D)                                                                                             \
    if (t->tile_m == (M) && t->head_dim == (D))                                                                \
        return is_async ? exec_kernel<(M) / 16, (D) / 64, true> : exec_kernel<(M) / 16, (D) / 64, false>;
    PICK(64, 128)
    PICK(80, 128)
    PICK(128, 64)
    PICK(128, 128)
#undef PICK
    return NULL;
}

/* Writes "<name>_ns" (median), "<name>_mean_ns" and "<name>_p90_ns" of v[0..n-1] (sorted in place). */
static double tl_stat(FILE *f, const char *name, double *v, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    const double med = calib_pct(v, n, 0.5);
    fprintf(f, ",\"%s_ns\":%.1f,\"%s_mean_ns\":%.1f,\"%s_p90_ns\":%.1f", name, med, name, n ? sum / n : 0.0, name,
            calib_pct(v, n, 0.9));
    return med;
}

void calib_task_loop(FILE *f, int sm_count)
{
    const int G = sm_count, ntasks = 16, rows_q = 2, drop = 1, n = G * ntasks;
    static const int iters[3] = {1, 8, 64};
    typedef struct {
        const char *mode, *op_name;
        int is_async, op;
    } TlMode;
    static const TlMode modes[3] = {
        {"serial", "bulk", 0, GPU_OP_BULK}, {"async", "bulk", 1, GPU_OP_BULK}, {"async", "ldst-warp", 1, GPU_OP_LDST}};
    int4 *tasks = (int4 *)malloc(sizeof(int4) * n);
    int *bb = (int *)malloc(sizeof(int) * (G + 1));
    for (int b = 0; b < G; b++) {
        bb[b] = b * ntasks;
        for (int i = 0; i < ntasks; i++) /* head b, row q = i % 2, rank i / 2: the block's own earlier task
                                          * (two tasks back) has already released that rank */
            tasks[b * ntasks + i] = make_int4(b, i, i % rows_q, i / rows_q);
    }
    bb[G] = n;
    const size_t dq_floats = (size_t)G * rows_q * 128 * 128, sems = (size_t)G * rows_q;
    ExecArgs a;
    memset(&a, 0, sizeof a);
    a.tasks = (const int4 *)calib_alloc(sizeof(int4) * n);
    a.block_begin = (const int *)calib_alloc(sizeof(int) * (G + 1));
    GPU_CHECK(cudaMemcpy((void *)a.tasks, tasks, sizeof(int4) * n, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemcpy((void *)a.block_begin, bb, sizeof(int) * (G + 1), cudaMemcpyHostToDevice));
    a.dq = (float *)calib_alloc(sizeof(float) * dq_floats);
    a.sem = (unsigned *)calib_alloc(sizeof(unsigned) * sems);
    a.rec = (long long *)calib_alloc(sizeof(long long) * REC_FIELDS * n);
    a.blk = (long long *)calib_alloc(sizeof(long long) * BLK_FIELDS * G);
    a.err = (int *)calib_alloc(sizeof(int));
    a.heads = G;
    a.q_tiles = rows_q;
    a.nbuf = 1;
    a.reduce_threads = GPU_COMPUTE_THREADS;
    a.timeout_ns = 2000000000LL;
    long long *rec = (long long *)malloc(sizeof(long long) * REC_FIELDS * n), *blk = (long long *)malloc(sizeof(long long) * BLK_FIELDS * G);
    double *v[6], *mhz = (double *)malloc(sizeof(double) * G);
    for (int j = 0; j < 6; j++)
        v[j] = (double *)malloc(sizeof(double) * n);
    const int before = gpu_nvml_sm_clock_mhz();
    fprintf(f, ",\n\"task_loop\":{\"method\":\"the executor's own task loop (a copy of gpu/executor.cu's exec_kernel with "
               "exec_serial or exec_compute_warps + exec_store_warp, same statements, same 5 %%globaltimer stamps per "
               "task), one CTA per SM on every SM (200 KB shared memory, 1 staging buffer), %d tasks per CTA; task i of "
               "CTA b: head b, kv i, q i %% %d, rank i / %d, so every semaphore is already at its rank (released by the "
               "CTA's own task i-2, or 0 from the memset) and no wait spins; one warm-up launch, then one timed launch; "
               "task 0 dropped; per task: acquire_ready = r_start - r_ready (semaphore read of a free rank), loop_gap = "
               "c_start - previous task's r_end (serial) or c_end (async: deposit + loop), stage = r_ready - c_end, "
               "compute = c_end - c_start, add = r_end - r_start, period = c_start - previous c_start; <name>_ns is "
               "the median over tasks 1..%d x CTAs, also the mean (resolves the 32 ns timer steps) and p90; "
               "sm_clock_mhz: median over CTAs of clock64 / globaltimer from entry to exit\",\"units\":\"ns\","
               "\"tasks_per_cta\":%d,\"ctas\":%d,\"dq_buffers\":1,\"rows\":[",
            ntasks, rows_q, rows_q, ntasks - 1, ntasks, G);
    int row = 0, any_err = 0;
    for (int ti = 0; ti < CALIB_TILES; ti++)
        for (int mi = 0; mi < 3; mi++)
            for (int ii = 0; ii < 3; ii++) {
                const Tile *t = &calib_tiles[ti];
                const TlMode *md = &modes[mi];
                TlKernel k = tl_kernel_for(t, md->is_async);
                GPU_CHECK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, GPU_SMEM_BYTES));
                const int threads = md->is_async ? EXEC_THREADS_ASYNC : GPU_COMPUTE_THREADS;
                a.iters = iters[ii];
                a.op = md->op;
                int err = 0;
                for (int rep = 0; rep < 2; rep++) { /* the first launch warms up */
                    GPU_CHECK(cudaMemset(a.dq, 0, sizeof(float) * dq_floats));
                    GPU_CHECK(cudaMemset(a.sem, 0, sizeof(unsigned) * sems));
                    GPU_CHECK(cudaMemset(a.rec, 0xFF, sizeof(long long) * REC_FIELDS * n));
                    GPU_CHECK(cudaMemset(a.err, 0, sizeof(int)));
                    GPU_CHECK(cudaDeviceSynchronize());
                    k<<<G, threads, GPU_SMEM_BYTES>>>(a);
                    gpu_check_launch("profile task-loop kernel", __FILE__, __LINE__);
                }
                GPU_CHECK(cudaMemcpy(rec, a.rec, sizeof(long long) * REC_FIELDS * n, cudaMemcpyDeviceToHost));
                GPU_CHECK(cudaMemcpy(blk, a.blk, sizeof(long long) * BLK_FIELDS * G, cudaMemcpyDeviceToHost));
                GPU_CHECK(cudaMemcpy(&err, a.err, sizeof(int), cudaMemcpyDeviceToHost));
                for (int i = 0; i < REC_FIELDS * n; i++)
                    err |= rec[i] == -1;
                any_err |= err;
                int m = 0, nm = 0;
                for (int b = 0; b < G; b++) {
                    const long long *kb = blk + (size_t)b * BLK_FIELDS;
                    if (kb[4] > kb[3])
                        mhz[nm++] = (double)(kb[2] - kb[1]) * 1000.0 / (double)(kb[4] - kb[3]);
                    for (int i = drop; i < ntasks; i++, m++) {
                        const long long *e = rec + ((size_t)b * ntasks + i) * REC_FIELDS, *p = e - REC_FIELDS;
                        v[0][m] = (double)(e[3] - e[2]);
                        v[1][m] = (double)(e[0] - (md->is_async ? p[1] : p[4]));
                        v[2][m] = (double)(e[2] - e[1]);
                        v[3][m] = (double)(e[1] - e[0]);
                        v[4][m] = (double)(e[4] - e[3]);
                        v[5][m] = (double)(e[0] - p[0]);
                    }
                }
                fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"mode\":\"%s\",\"op\":\"%s\",\"threads\":%d,\"iters\":%d,"
                           "\"samples\":%d",
                        row++ ? "," : "", t->tile_m, t->head_dim, md->mode, md->op_name, threads, iters[ii], m);
                static const char *names[6] = {"acquire_ready", "loop_gap", "stage", "compute", "add", "period"};
                double med[6];
                for (int j = 0; j < 6; j++)
                    med[j] = tl_stat(f, names[j], v[j], m);
                const double clock = calib_pct(mhz, nm, 0.5);
                fprintf(f, ",\"sm_clock_mhz\":%.0f,\"timeout\":%s}", clock, err ? "true" : "false");
                printf("task loop %3dx%-3d %-6s %-9s iters %2d: acquire %4.0f loop_gap %4.0f stage %4.0f compute %6.0f "
                       "add %5.0f period %6.0f ns, clock %.0f MHz%s\n",
                       t->tile_m, t->head_dim, md->mode, md->op_name, iters[ii], med[0], med[1], med[2], med[3], med[4],
                       med[5], clock, err ? " TIMEOUT" : "");
            }
    fprintf(f, "\n],\"nvml_before_mhz\":%d,\"nvml_after_mhz\":%d,\"timeout\":%s}", before, gpu_nvml_sm_clock_mhz(),
            any_err ? "true" : "false");
    for (int j = 0; j < 6; j++)
        free(v[j]);
    free(mhz);
    free(rec);
    free(blk);
    free(tasks);
    free(bb);
    cudaFree((void *)a.tasks);
    cudaFree((void *)a.block_begin);
    cudaFree(a.dq);
    cudaFree(a.sem);
    cudaFree(a.rec);
    cudaFree(a.blk);
    cudaFree(a.err);
}

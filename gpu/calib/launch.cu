/* gpu-calib --profile, section launch: launch costs as the executor meets them, from a queued kernel to
 * its first CTA, the event-timed overhead, the CTA prologue against task-list size, and the gap between
 * consecutive CTAs on one SM. Invariant: one CTA per SM (200 KB of shared memory), SMs told apart by %smid. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Marks its own end on the global timer after spinning spin_ns: the kernel before a launch under test. */
__global__ void __launch_bounds__(32, 1) prof_stamp_kernel(long long spin_ns, long long *out)
{
    if (threadIdx.x)
        return;
    const long long t0 = gpu_globaltimer();
    while (gpu_globaltimer() - t0 < spin_ns) {
    }
    out[0] = gpu_globaltimer();
}

/* A CTA as the executor starts one: globaltimer and clock64 at the first instruction, copy of ntasks
 * int4 task records from global into shared memory, barrier (the prologue, up to the first c_start),
 * then work_ns of spinning, a barrier and the exit stamp (the executor's epilogue).
 * out[blk*6 + 0..5]: smid, entry ns, prologue cycles, exit ns, clock64 at entry, clock64 at exit. */
__global__ void __launch_bounds__(PROF_THREADS, 1)
    prof_cta_kernel(const int4 *tasks, int ntasks, long long work_ns, long long *out, int *sink)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const long long t_entry = gpu_globaltimer(), k_entry = clock64();
    int4 *copy = (int4 *)smem;
    for (int i = threadIdx.x; i < ntasks; i += blockDim.x)
        copy[i] = tasks[i];
    __syncthreads();
    const long long k_first = clock64();
    if (threadIdx.x == 0) {
        while (gpu_globaltimer() - t_entry < work_ns) {
        }
        sink[blockIdx.x] = copy[ntasks - 1].x;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        long long *o = out + (size_t)blockIdx.x * 6;
        o[0] = gpu_smid();
        o[1] = t_entry;
        o[2] = k_first - k_entry;
        o[4] = k_entry;
        o[5] = clock64();
        o[3] = gpu_globaltimer();
    }
}

/* (e) launch costs: queued kernel -> first CTA, event-timed overhead, prologue vs task-list size, gap
 * between consecutive CTAs on one SM. */
double calib_launch(FILE *f, int sm_count)
{
    const int G = sm_count, waves = 4, maxb = waves * G;
    int4 *d_tasks = (int4 *)calib_alloc(sizeof(int4) * 512);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * 6 * maxb), *d_stamp = (long long *)calib_alloc(64);
    int *d_sink = (int *)calib_alloc(sizeof(int) * maxb);
    long long *out = (long long *)malloc(sizeof(long long) * 6 * maxb), stamp;
    double *v = (double *)malloc(sizeof(double) * 64 * maxb), *w = (double *)malloc(sizeof(double) * 64 * maxb);
    GPU_CHECK(cudaFuncSetAttribute((const void *)prof_cta_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   GPU_SMEM_BYTES));
    cudaEvent_t e0, e1;
    GPU_CHECK(cudaEventCreate(&e0));
    GPU_CHECK(cudaEventCreate(&e1));
    fprintf(f, ",\n\"launch\":{\"method\":\"prof_cta_kernel mimics the executor's CTA: %%globaltimer and clock64 at its "
               "first instruction, copy of the task list (int4 per task) into shared memory + barrier (prologue, up "
               "to the first c_start), a spin of work_ns, barrier, exit stamp (epilogue); 200 KB shared memory (one "
               "CTA per SM). kernel_to_first_cta: a 1-CTA kernel spins 20 us and stamps its end, the kernel under test "
               "is queued behind it on the same stream: earliest CTA entry minus that stamp; first_wave_spread: "
               "latest minus earliest entry of its grid CTAs; event_overhead: cudaEvent time around a grid of one "
               "wave (work 5 us) minus its device span (latest exit - earliest entry); prologue: clock64 entry -> "
               "after the copy's barrier, ns at the clock measured in the event runs; cta_gap: grids of %d waves, per "
               "SM consecutive CTAs (by entry), next entry minus previous exit stamp (includes the barrier before the "
               "stamp, CTA retirement, dispatch and start)\",\"units\":\"ns\"",
            waves);
    /* queued kernel -> first CTA, for grids of 1 and G CTAs, 288 and 256 threads */
    static const int grids[2] = {1, 0}, thr[2] = {PROF_THREADS, GPU_COMPUTE_THREADS};
    fprintf(f, ",\"kernel_to_first_cta\":[");
    for (int gi = 0; gi < 2; gi++)
        for (int th = 0; th < 2; th++) {
            const int g = grids[gi] ? grids[gi] : G, reps = 24;
            int n = 0;
            for (int r = 0; r < reps; r++) {
                prof_stamp_kernel<<<1, 32>>>(20000, d_stamp);
                prof_cta_kernel<<<g, thr[th], GPU_SMEM_BYTES>>>(d_tasks, 1, 0, d_out, d_sink);
                gpu_check_launch("profile launch kernel", __FILE__, __LINE__);
                GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 6 * g, cudaMemcpyDeviceToHost));
                GPU_CHECK(cudaMemcpy(&stamp, d_stamp, sizeof stamp, cudaMemcpyDeviceToHost));
                long long lo = out[1], hi = out[1];
                for (int b = 1; b < g; b++) {
                    lo = out[b * 6 + 1] < lo ? out[b * 6 + 1] : lo;
                    hi = out[b * 6 + 1] > hi ? out[b * 6 + 1] : hi;
                }
                if (r >= 4) {
                    v[n] = (double)(lo - stamp);
                    w[n++] = (double)(hi - lo);
                }
            }
            fprintf(f, "%s{\"grid_ctas\":%d,\"threads\":%d,", gi + th ? "," : "", g, thr[th]);
            calib_stats(f, "kernel_to_first_cta_ns", v, n);
            fputc(',', f);
            calib_stats(f, "first_wave_spread_ns", w, n);
            fputc('}', f);
            printf("launch: grid %3d x %d threads: queued kernel -> first CTA median %.0f ns, first-wave spread %.0f ns\n",
                   g, thr[th], calib_pct(v, n, 0.5), calib_pct(w, n, 0.5));
        }
    fprintf(f, "]");
    /* event overhead and the clock for the prologue conversion */
    int n = 0, nm = 0;
    for (int r = 0; r < 20; r++) {
        GPU_CHECK(cudaEventRecord(e0));
        prof_cta_kernel<<<G, PROF_THREADS, GPU_SMEM_BYTES>>>(d_tasks, 1, 5000, d_out, d_sink);
        GPU_CHECK(cudaEventRecord(e1));
        gpu_check_launch("profile launch kernel", __FILE__, __LINE__);
        float ms = 0;
        GPU_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 6 * G, cudaMemcpyDeviceToHost));
        long long lo = out[1], hi = out[3];
        for (int b = 0; b < G; b++) {
            lo = out[b * 6 + 1] < lo ? out[b * 6 + 1] : lo;
            hi = out[b * 6 + 3] > hi ? out[b * 6 + 3] : hi;
            if (r >= 2)
                w[nm++] = (double)(out[b * 6 + 5] - out[b * 6 + 4]) * 1000.0 / (double)(out[b * 6 + 3] - out[b * 6 + 1]);
        }
        if (r >= 2)
            v[n++] = ms * 1e6 - (double)(hi - lo);
    }
    const double mhz = calib_pct(w, nm, 0.5);
    fprintf(f, ",");
    calib_stats(f, "event_overhead_ns", v, n);
    fprintf(f, ",\"sm_clock_mhz\":%.0f", mhz);
    printf("launch: event time - device span median %.0f ns; clock %.0f MHz\n", calib_pct(v, n, 0.5), mhz);
    /* prologue vs task-list length */
    static const int ntasks[] = {1, 16, 64, 132, 264, 512};
    fprintf(f, ",\"prologue\":[");
    for (int ti = 0; ti < 6; ti++) {
        n = 0;
        for (int r = 0; r < 6; r++) {
            prof_cta_kernel<<<G, PROF_THREADS, GPU_SMEM_BYTES>>>(d_tasks, ntasks[ti], 0, d_out, d_sink);
            gpu_check_launch("profile launch kernel", __FILE__, __LINE__);
            GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 6 * G, cudaMemcpyDeviceToHost));
            if (r >= 1)
                for (int b = 0; b < G; b++)
                    v[n++] = (double)out[b * 6 + 2] * 1000.0 / mhz;
        }
        fprintf(f, "%s{\"tasks\":%d,\"bytes\":%d,\"threads\":%d,", ti ? "," : "", ntasks[ti], ntasks[ti] * 16, PROF_THREADS);
        calib_stats(f, "prologue_ns", v, n);
        fputc('}', f);
        printf("launch: prologue with %3d tasks: median %.0f ns\n", ntasks[ti], calib_pct(v, n, 0.5));
    }
    fprintf(f, "]");
    /* gap between consecutive CTAs on one SM */
    static const long long works[] = {0, 2000, 10000};
    fprintf(f, ",\"cta_gap\":[");
    int row = 0;
    for (int th = 0; th < 2; th++)
        for (int wi = 0; wi < 3; wi++) {
            n = 0;
            for (int r = 0; r < 4; r++) {
                prof_cta_kernel<<<maxb, thr[th], GPU_SMEM_BYTES>>>(d_tasks, 16, works[wi], d_out, d_sink);
                gpu_check_launch("profile launch kernel", __FILE__, __LINE__);
                GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 6 * maxb, cudaMemcpyDeviceToHost));
                if (r == 0)
                    continue;
                for (int s = 0; s < 1024; s++) { /* per SM: CTAs by entry time (insertion order of a tiny list) */
                    long long ent[64], ex[64];
                    int m = 0;
                    for (int b = 0; b < maxb && m < 64; b++)
                        if (out[b * 6] == s) {
                            int j = m++;
                            for (; j > 0 && ent[j - 1] > out[b * 6 + 1]; j--)
                                ent[j] = ent[j - 1], ex[j] = ex[j - 1];
                            ent[j] = out[b * 6 + 1];
                            ex[j] = out[b * 6 + 3];
                        }
                    for (int j = 1; j < m; j++)
                        v[n++] = (double)(ent[j] - ex[j - 1]);
                }
            }
            fprintf(f, "%s{\"threads\":%d,\"work_ns\":%lld,\"grid_ctas\":%d,", row++ ? "," : "", thr[th], works[wi], maxb);
            calib_stats(f, "cta_gap_ns", v, n);
            fputc('}', f);
            printf("launch: CTA gap on one SM (%d threads, work %lld ns): median %.0f ns (p10 %.0f, p90 %.0f; %d gaps)\n",
                   thr[th], works[wi], calib_pct(v, n, 0.5), calib_pct(v, n, 0.1), calib_pct(v, n, 0.9), n);
        }
    fprintf(f, "]}");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    free(out);
    free(v);
    free(w);
    cudaFree(d_tasks);
    cudaFree(d_out);
    cudaFree(d_stamp);
    cudaFree(d_sink);
    return mhz;
}

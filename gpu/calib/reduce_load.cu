/* gpu-calib --profile, sections reduce_inflight, reduce_migratory and reduce_staggered: the cost of one
 * dQ-tile reduction against the number of reductions in flight at once (k CTAs released together by a
 * published start time), into the CTA's own tile or into the tile another SM added the round before, and
 * with odd CTAs starting later. Invariant: cooperative launches, one CTA per SM, rounds met at a barrier. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__device__ static inline unsigned long long prof_ld_acquire_u64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ static inline void prof_st_release_u64(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* k reductions in flight: the grid (k CTAs, one per SM, cooperative) meets at a barrier each round; the
 * last to arrive publishes a start time 4 us ahead on the global timer, every CTA spins until then and
 * adds its staged tile into its own dQ tile (distinct rows), completes, fences and release-increments a
 * semaphore. out[(blk*rounds+r)*3]: cycles of the reduction (thread 0), +1: globaltimer at its start
 * minus the published start, +2: globaltimer at its end minus the published start. */
__global__ void __launch_bounds__(GPU_COMPUTE_THREADS, 1)
    prof_reduce_k_kernel(float *dq, unsigned *sem, unsigned *arrive, unsigned long long *go, int tile, int op,
                         int nthr, int rounds, int shift, int stagger_ns, long long *out, long long *span, int *err)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = (float *)smem;
    const int tid = threadIdx.x;
    for (int i = tid; i < tile; i += blockDim.x)
        stage[i] = (float)((i * 7 + (int)blockIdx.x) % 97) * 0.001f;
    gpu_fence_proxy_smem();
    unsigned *s = sem + (size_t)blockIdx.x * LAT_LINE;
    __shared__ long long t_go;
    __syncthreads();
    const long long g0 = gpu_globaltimer(), k0 = clock64(), deadline = g0 + 2000000000LL;
    for (int r = 0; r < rounds; r++) {
        if (tid == 0) {
            unsigned long long *g = go + (size_t)r * (LAT_LINE / 2);
            if (atomicAdd(arrive + (size_t)r * LAT_LINE, 1u) == gridDim.x - 1)
                prof_st_release_u64(g, (unsigned long long)gpu_globaltimer() + 4000ull);
            unsigned long long t;
            unsigned n = 0;
            while ((t = prof_ld_acquire_u64(g)) == 0)
                if ((++n & 255u) == 0 && gpu_globaltimer() > deadline) {
                    atomicExch(err, 1);
                    t = 1;
                    break;
                }
            /* stagger: odd blocks start stagger_ns after the even ones (o[1] shows it) */
            const long long t_mine = (long long)t + ((blockIdx.x & 1u) ? stagger_ns : 0);
            while (gpu_globaltimer() < t_mine) {
            }
            t_go = (long long)t;
        }
        __syncthreads();
        /* shift 0: the CTA's own tile every round; shift 1: the tile CTA blk-1 added into the round before */
        float *dst = dq + (size_t)((blockIdx.x + (unsigned)(r * shift)) % gridDim.x) * tile;
        const long long c0 = clock64(), gs = gpu_globaltimer();
        if (op == GPU_OP_BULK) {
            if (tid == 0) {
                gpu_reduce_bulk_issue(stage, dst, tile);
                gpu_bulk_wait_read();
                gpu_bulk_wait_done();
                gpu_release_increment(s);
            }
        } else {
            if (tid < nthr)
                gpu_reduce_vec(op, stage, dst, tile, tid, nthr);
            __syncthreads();
            if (tid == 0)
                gpu_release_increment(s);
        }
        if (tid == 0) {
            const long long c1 = clock64(), ge = gpu_globaltimer();
            long long *o = out + ((size_t)blockIdx.x * rounds + r) * 3;
            o[0] = c1 - c0;
            o[1] = gs - t_go;
            o[2] = ge - t_go;
        }
        __syncthreads();
    }
    if (tid == 0) {
        span[2 * blockIdx.x] = gpu_globaltimer() - g0;
        span[2 * blockIdx.x + 1] = clock64() - k0;
    }
}

/* (b) one tile reduction with k reductions started together on k SMs, into the CTA's own dQ tile every
 * round (section reduce_inflight, shift 0), or into the tile another SM added into the round before
 * (section reduce_migratory, shift 1: the executor's case, a row's previous rank on another SM). */
void calib_reduce_inflight(FILE *f, int sm_count, const char *section, int shift)
{
    static const int ks[] = {1, 2, 4, 8, 16, 32, 64, 96, 132};
    const int nk = (int)(sizeof ks / sizeof ks[0]), rounds = 12, warm = 2;
    float *d_dq = (float *)calib_alloc(sizeof(float) * 128 * 128 * sm_count);
    unsigned *d_sem = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    unsigned *d_arrive = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    unsigned long long *d_go = (unsigned long long *)calib_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * 3 * rounds * sm_count);
    long long *d_span = (long long *)calib_alloc(sizeof(long long) * 2 * sm_count);
    int *d_err = (int *)calib_alloc(sizeof(int));
    long long *out = (long long *)malloc(sizeof(long long) * 3 * rounds * sm_count);
    long long *span = (long long *)malloc(sizeof(long long) * 2 * sm_count);
    double *ns = (double *)malloc(sizeof(double) * rounds * sm_count), done[16], skew[16];
    GPU_CHECK(cudaFuncSetAttribute((const void *)prof_reduce_k_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   GPU_SMEM_BYTES));
    fprintf(f, ",\n\"%s\":{\"method\":\"k CTAs (cooperative launch, one per SM) meet at a grid barrier "
               "each round; the last to arrive publishes a start time 4 us ahead on %%globaltimer and every CTA spins "
               "until it, then adds its staged fp32 tile from shared memory into %s (distinct rows), "
               "completes, fences and release-increments a semaphore, exactly as the executor's reduction phase; "
               "thread 0 times it with clock64 at the CTA's clock64/globaltimer ratio; %d rounds, the first %d "
               "dropped; median/p90/max over rounds x CTAs; all_done: last CTA's end minus the published start, "
               "median over rounds; start_skew: latest minus earliest start, median over rounds\",\"units\":\"ns\","
               "\"rounds\":%d,\"rows\":[",
            section, shift ? "the dQ tile the CTA before it (block index - 1, mod k) added into the round before"
                           : "its own dQ tile", rounds, warm, rounds);
    int row = 0;
    for (int ti = 0; ti < CALIB_TILES; ti++)
        for (int vi = 0; vi < CALIB_VARIANTS; vi++)
            for (int ki = 0; ki < nk; ki++) {
                const Tile *t = &calib_tiles[ti];
                const Variant *v = &calib_variants[vi];
                int k = ks[ki] < sm_count ? ks[ki] : sm_count, tile = t->tile_m * t->head_dim, op = v->op, nthr = v->nthr;
                int rr = rounds;
                GPU_CHECK(cudaMemset(d_arrive, 0, sizeof(unsigned) * LAT_LINE * rounds));
                GPU_CHECK(cudaMemset(d_go, 0, sizeof(unsigned) * LAT_LINE * rounds));
                int stagger = 0;
                void *args[] = {&d_dq, &d_sem, &d_arrive, &d_go, &tile, &op, &nthr, &rr, &shift, &stagger, &d_out, &d_span,
                                &d_err};
                GPU_CHECK(cudaLaunchCooperativeKernel((const void *)prof_reduce_k_kernel, k, GPU_COMPUTE_THREADS, args,
                                                      GPU_SMEM_BYTES, 0));
                gpu_check_launch("profile reduce-in-flight kernel", __FILE__, __LINE__);
                GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 3 * rounds * k, cudaMemcpyDeviceToHost));
                GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * 2 * k, cudaMemcpyDeviceToHost));
                int n = 0;
                for (int r = warm; r < rounds; r++) {
                    long long mx = 0, s_lo = 0, s_hi = 0;
                    for (int b = 0; b < k; b++) {
                        const long long *o = out + ((size_t)b * rounds + r) * 3;
                        mx = o[2] > mx ? o[2] : mx;
                        s_lo = (b == 0 || o[1] < s_lo) ? o[1] : s_lo;
                        s_hi = (b == 0 || o[1] > s_hi) ? o[1] : s_hi;
                    }
                    done[r - warm] = (double)mx;
                    skew[r - warm] = (double)(s_hi - s_lo);
                }
                for (int b = 0; b < k; b++) {
                    const double nspc = (double)span[2 * b] / (double)span[2 * b + 1];
                    for (int r = warm; r < rounds; r++)
                        ns[n++] = (double)out[((size_t)b * rounds + r) * 3] * nspc;
                }
                const double med = calib_pct(ns, n, 0.5), p90 = calib_pct(ns, n, 0.9), mx = ns[n - 1];
                const double dmed = calib_pct(done, rounds - warm, 0.5), smed = calib_pct(skew, rounds - warm, 0.5);
                fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"bytes\":%d,\"op\":\"%s\",\"threads\":%d,\"k\":%d,"
                           "\"median_ns\":%.1f,\"p90_ns\":%.1f,\"max_ns\":%.1f,\"all_done_median_ns\":%.0f,"
                           "\"start_skew_median_ns\":%.0f}",
                        row++ ? "," : "", t->tile_m, t->head_dim, tile * 4, v->name, v->nthr, k, med, p90, mx, dmed, smed);
                if (ki == 0 || ks[ki] == 132 || ks[ki] == 16)
                    printf("%s %3dx%-3d %-9s k %3d: median %.0f p90 %.0f all_done %.0f skew %.0f ns\n", section, t->tile_m,
                           t->head_dim, v->name, k, med, p90, dmed, smed);
            }
    fprintf(f, "\n]}");
    int err = 0;
    GPU_CHECK(cudaMemcpy(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost));
    if (err)
        printf("reduce in flight: TIMEOUT at a grid barrier\n");
    free(out);
    free(span);
    free(ns);
    cudaFree(d_dq);
    cudaFree(d_sem);
    cudaFree(d_arrive);
    cudaFree(d_go);
    cudaFree(d_out);
    cudaFree(d_span);
    cudaFree(d_err);
}

/* (b') all SMs reduce, the odd blocks starting stagger_ns after the even ones: how a reduction's time
 * depends on how long it overlaps the others (processor sharing charges the whole duration by the count in
 * flight; a fixed part would not slow down). Medians over rounds x blocks, even (early) and odd (late). */
void calib_reduce_staggered(FILE *f, int sm_count)
{
    static const int staggers[] = {0, 250, 500, 1000, 1500, 2500, 4000};
    static const struct { int tile_m, head_dim; } tl[] = {{80, 128}, {128, 64}};
    const int rounds = 12, warm = 2, k = sm_count, ns_count = (int)(sizeof staggers / sizeof staggers[0]);
    float *d_dq = (float *)calib_alloc(sizeof(float) * 128 * 128 * sm_count);
    unsigned *d_sem = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    unsigned *d_arrive = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    unsigned long long *d_go = (unsigned long long *)calib_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * 3 * rounds * sm_count);
    long long *d_span = (long long *)calib_alloc(sizeof(long long) * 2 * sm_count);
    int *d_err = (int *)calib_alloc(sizeof(int));
    long long *out = (long long *)malloc(sizeof(long long) * 3 * rounds * sm_count);
    long long *span = (long long *)malloc(sizeof(long long) * 2 * sm_count);
    double *early = (double *)malloc(sizeof(double) * rounds * sm_count), *late = (double *)malloc(sizeof(double) * rounds * sm_count);
    fprintf(f, ",\n\"reduce_staggered\":{\"method\":\"reduce_inflight on every SM (k = all), own tiles, but the odd "
               "blocks start stagger_ns after the even ones; medians of the reduction time (clock64 at the CTA's "
               "clock64/globaltimer ratio) over rounds x blocks, early = even blocks, late = odd; %d rounds, the "
               "first %d dropped\",\"units\":\"ns\",\"rows\":[", rounds, warm);
    int row = 0;
    for (int ti = 0; ti < 2; ti++)
        for (int vi = 0; vi < CALIB_VARIANTS; vi++) {
            const Variant *v = &calib_variants[vi];
            if (strcmp(v->name, "bulk") != 0 && strcmp(v->name, "ldst-warp") != 0)
                continue;
            for (int si = 0; si < ns_count; si++) {
                int tile = tl[ti].tile_m * tl[ti].head_dim, op = v->op, nthr = v->nthr, rr = rounds, shift = 0;
                int stagger = staggers[si];
                GPU_CHECK(cudaMemset(d_arrive, 0, sizeof(unsigned) * LAT_LINE * rounds));
                GPU_CHECK(cudaMemset(d_go, 0, sizeof(unsigned) * LAT_LINE * rounds));
                void *args[] = {&d_dq, &d_sem, &d_arrive, &d_go, &tile, &op, &nthr, &rr, &shift, &stagger, &d_out, &d_span,
                                &d_err};
                GPU_CHECK(cudaLaunchCooperativeKernel((const void *)prof_reduce_k_kernel, k, GPU_COMPUTE_THREADS, args,
                                                      GPU_SMEM_BYTES, 0));
                gpu_check_launch("profile reduce-staggered kernel", __FILE__, __LINE__);
                GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 3 * rounds * k, cudaMemcpyDeviceToHost));
                GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * 2 * k, cudaMemcpyDeviceToHost));
                int ne = 0, nl = 0;
                for (int b = 0; b < k; b++) {
                    const double nspc = (double)span[2 * b] / (double)span[2 * b + 1];
                    for (int r = warm; r < rounds; r++) {
                        const double ns = (double)out[((size_t)b * rounds + r) * 3] * nspc;
                        if (b & 1)
                            late[nl++] = ns;
                        else
                            early[ne++] = ns;
                    }
                }
                const double me = calib_pct(early, ne, 0.5), ml = calib_pct(late, nl, 0.5);
                fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"op\":\"%s\",\"threads\":%d,\"k\":%d,\"stagger_ns\":%d,"
                           "\"early_median_ns\":%.1f,\"late_median_ns\":%.1f}",
                        row++ ? "," : "", tl[ti].tile_m, tl[ti].head_dim, v->name, v->nthr, k, stagger, me, ml);
                printf("reduce_staggered %3dx%-3d %-9s k %3d stagger %4d: early %.0f late %.0f ns\n", tl[ti].tile_m,
                       tl[ti].head_dim, v->name, k, stagger, me, ml);
            }
        }
    fprintf(f, "\n]}");
    free(out), free(span), free(early), free(late);
    cudaFree(d_dq), cudaFree(d_sem), cudaFree(d_arrive), cudaFree(d_go), cudaFree(d_out), cudaFree(d_span);
    cudaFree(d_err);
}

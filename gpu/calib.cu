/* gpu-calib: measures what the simulator's cost model needs on this GPU (docs/gpu.md):
 * (1) the one-way signal latency between every ordered pair of SMs (release store / acquire spin through
 *     global memory, half the median round trip of a ping-pong while all other SMs idle),
 * (2) the cost of adding one dQ tile into global memory (float4 load+add+store, red.v4, TMA bulk reduce),
 *     alone and with every SM doing the same, and (3) the time of one mma round of the executor's compute.
 * Invariant: one CTA per SM (200 KB of dynamic shared memory), matrices indexed by %smid, never blockIdx. */
#include "gpu_device.cuh"
#include "gpu_host.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAT_LINE 64 /* unsigned words between flags: each flag alone on a 256-byte line */
enum { LAT_PING = 0, LAT_PONG = 1, LAT_TURN = 2, LAT_ARRIVE = 3, LAT_WORDS = 4 * LAT_LINE };

/* Every block records its SM once all blocks are resident (a grid barrier, so no SM is counted twice). */
__global__ void __launch_bounds__(32, 1) lat_smid_kernel(unsigned *flags, int *blk_smid, int *err)
{
    if (threadIdx.x)
        return;
    unsigned *arrive = flags + LAT_ARRIVE * LAT_LINE;
    atomicAdd(arrive, 1u);
    gpu_wait_equal(arrive, gridDim.x, gpu_globaltimer() + 2000000000LL, err);
    blk_smid[blockIdx.x] = gpu_smid();
}

/* Ordered pairs (a, b) in turn: the CTA on SM a pings, the one on SM b answers; everyone else sleeps.
 * out_clk[p*trips + k]: cycles of round trip k on SM a; out_span[p*2]: globaltimer ns and cycles over the
 * timed trips (to convert cycles to ns at the clock the pair ran at). */
__global__ void __launch_bounds__(32, 1)
    lat_pingpong_kernel(const int2 *pairs, int npairs, int warm, int trips, unsigned *flags, long long *out_clk,
                        long long *out_span, int *err)
{
    if (threadIdx.x)
        return;
    unsigned *ping = flags + LAT_PING * LAT_LINE, *pong = flags + LAT_PONG * LAT_LINE;
    unsigned *turn = flags + LAT_TURN * LAT_LINE;
    const int me = gpu_smid();
    const long long deadline = gpu_globaltimer() + 20000000000LL;
    for (int p = 0; p < npairs; p++) {
        const int2 pr = pairs[p];
        if (pr.x != me && pr.y != me)
            continue;
        for (unsigned n = 0; gpu_ld_acquire(turn) != (unsigned)p; n++) {
            __nanosleep(200);
            if ((n & 255u) == 0 && gpu_globaltimer() > deadline) {
                atomicExch(err, 1);
                return;
            }
        }
        const unsigned base = (unsigned)p * (unsigned)(warm + trips);
        if (pr.x == me) {
            long long g0 = 0, k0 = 0;
            for (int k = 0; k < warm + trips; k++) {
                const unsigned seq = base + (unsigned)k + 1u;
                if (k == warm) {
                    g0 = gpu_globaltimer();
                    k0 = clock64();
                }
                long long c0 = clock64();
                gpu_st_release(ping, seq);
                if (!gpu_wait_equal(pong, seq, deadline, err))
                    return;
                long long c1 = clock64();
                if (k >= warm)
                    out_clk[(size_t)p * trips + (k - warm)] = c1 - c0;
            }
            out_span[2 * p] = gpu_globaltimer() - g0;
            out_span[2 * p + 1] = clock64() - k0;
            gpu_st_release(turn, (unsigned)p + 1u);
        } else {
            for (int k = 0; k < warm + trips; k++) {
                const unsigned seq = base + (unsigned)k + 1u;
                if (!gpu_wait_equal(ping, seq, deadline, err))
                    return;
                gpu_st_release(pong, seq);
            }
        }
    }
}

/* Each block adds its staged tile into its own dQ tile reps times, exactly as the executor's reduction
 * phase does (add, complete, fence, release increment); thread 0 records the cycles of each. */
__global__ void __launch_bounds__(GPU_COMPUTE_THREADS, 1)
    reduce_calib_kernel(float *dq, unsigned *sem, int tile, int op, int nthr, int reps, long long *out,
                        long long *span)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = (float *)smem;
    const int tid = threadIdx.x;
    for (int i = tid; i < tile; i += blockDim.x)
        stage[i] = (float)((i * 7 + (int)blockIdx.x) % 97) * 0.001f;
    gpu_fence_proxy_smem();
    float *dst = dq + (size_t)blockIdx.x * tile;
    unsigned *s = sem + (size_t)blockIdx.x * LAT_LINE;
    __syncthreads();
    const long long g0 = gpu_globaltimer(), k0 = clock64();
    for (int r = 0; r < reps; r++) {
        __syncthreads();
        const long long c0 = clock64();
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
        if (tid == 0)
            out[(size_t)blockIdx.x * reps + r] = clock64() - c0;
    }
    if (tid == 0) {
        span[2 * blockIdx.x] = gpu_globaltimer() - g0;
        span[2 * blockIdx.x + 1] = clock64() - k0;
    }
}

/* ------------------------------------------------------------------ host ---- */

typedef struct {
    const char *out_dir;
    int trips, warm, is_skip_latency;
    GpuMeta meta;
} Options;

static FILE *open_out(const char *dir, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpu-calib: cannot write %s\n", path);
        exit(1);
    }
    return f;
}

/* SMs of the device in ascending %smid; returns their count. */
static int collect_smids(int sm_count, unsigned *d_flags, int *d_err, int *smids)
{
    int *d_smid;
    GPU_CHECK(cudaMalloc(&d_smid, sizeof(int) * sm_count));
    GPU_CHECK(cudaFuncSetAttribute((const void *)lat_smid_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   GPU_SMEM_BYTES));
    GPU_CHECK(cudaMemset(d_flags, 0, sizeof(unsigned) * LAT_WORDS));
    void *args[] = {&d_flags, &d_smid, &d_err};
    GPU_CHECK(cudaLaunchCooperativeKernel((const void *)lat_smid_kernel, sm_count, 32, args, GPU_SMEM_BYTES, 0));
    gpu_check_launch("smid kernel", __FILE__, __LINE__);
    GPU_CHECK(cudaMemcpy(smids, d_smid, sizeof(int) * sm_count, cudaMemcpyDeviceToHost));
    cudaFree(d_smid);
    for (int i = 1; i < sm_count; i++) /* insertion sort: 132 entries */
        for (int j = i; j > 0 && smids[j - 1] > smids[j]; j--) {
            int t = smids[j];
            smids[j] = smids[j - 1];
            smids[j - 1] = t;
        }
    int n = 0;
    for (int i = 0; i < sm_count; i++)
        if (i == 0 || smids[i] != smids[i - 1])
            smids[n++] = smids[i];
    return n;
}

/* Two clusters of the off-diagonal latencies by 1-D 2-means (Lloyd, from min and max). */
static void two_means(const double *v, int n, double *lo_mean, double *hi_mean, double *split, int *n_lo)
{
    double mn = v[0], mx = v[0];
    for (int i = 1; i < n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    double a = mn, b = mx;
    for (int it = 0; it < 50; it++) {
        double sa = 0, sb = 0, cut = (a + b) / 2;
        int na = 0, nb = 0;
        for (int i = 0; i < n; i++)
            if (v[i] <= cut)
                sa += v[i], na++;
            else
                sb += v[i], nb++;
        a = na ? sa / na : a;
        b = nb ? sb / nb : b;
        *n_lo = na;
    }
    *lo_mean = a;
    *hi_mean = b;
    *split = (a + b) / 2;
}

static void run_latency(const Options *o, int sm_count, GpuMeta *meta)
{
    unsigned *d_flags;
    int *d_err, err = 0;
    GPU_CHECK(cudaMalloc(&d_flags, sizeof(unsigned) * LAT_WORDS));
    GPU_CHECK(cudaMalloc(&d_err, sizeof(int)));
    GPU_CHECK(cudaMemset(d_err, 0, sizeof(int)));
    int *smids = (int *)malloc(sizeof(int) * sm_count);
    int n = collect_smids(sm_count, d_flags, d_err, smids);
    int npairs = n * (n - 1);
    int2 *pairs = (int2 *)malloc(sizeof(int2) * npairs);
    int p = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                pairs[p++] = make_int2(smids[i], smids[j]);
    int2 *d_pairs;
    long long *d_clk, *d_span;
    GPU_CHECK(cudaMalloc(&d_pairs, sizeof(int2) * npairs));
    GPU_CHECK(cudaMalloc(&d_clk, sizeof(long long) * npairs * o->trips));
    GPU_CHECK(cudaMalloc(&d_span, sizeof(long long) * npairs * 2));
    GPU_CHECK(cudaMemcpy(d_pairs, pairs, sizeof(int2) * npairs, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemset(d_flags, 0, sizeof(unsigned) * LAT_WORDS));
    GPU_CHECK(cudaFuncSetAttribute((const void *)lat_pingpong_kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, GPU_SMEM_BYTES));
    int warm = o->warm, trips = o->trips;
    void *args[] = {&d_pairs, &npairs, &warm, &trips, &d_flags, &d_clk, &d_span, &d_err};
    cudaEvent_t e0, e1;
    GPU_CHECK(cudaEventCreate(&e0));
    GPU_CHECK(cudaEventCreate(&e1));
    GPU_CHECK(cudaEventRecord(e0));
    GPU_CHECK(cudaLaunchCooperativeKernel((const void *)lat_pingpong_kernel, sm_count, 32, args, GPU_SMEM_BYTES, 0));
    GPU_CHECK(cudaEventRecord(e1));
    gpu_check_launch("ping-pong kernel", __FILE__, __LINE__);
    float ms = 0;
    GPU_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    GPU_CHECK(cudaMemcpy(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost));
    long long *clk = (long long *)malloc(sizeof(long long) * npairs * trips);
    long long *span = (long long *)malloc(sizeof(long long) * npairs * 2);
    GPU_CHECK(cudaMemcpy(clk, d_clk, sizeof(long long) * npairs * trips, cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * npairs * 2, cudaMemcpyDeviceToHost));
    /* lat[i][j] (positions in smids): half the median round trip, cycles converted at the pair's clock */
    double *lat = (double *)malloc(sizeof(double) * n * n), *off = (double *)malloc(sizeof(double) * npairs);
    double *mhz = (double *)malloc(sizeof(double) * npairs);
    for (p = 0; p < npairs; p++) {
        int i = p / (n - 1), j = p % (n - 1);
        j += j >= i;
        double ns_per_cycle = (double)span[2 * p] / (double)span[2 * p + 1];
        mhz[p] = 1000.0 / ns_per_cycle;
        lat[i * n + j] = (double)gpu_median_ll(clk + (size_t)p * trips, trips) / 2.0 * ns_per_cycle;
        off[p] = lat[i * n + j];
    }
    for (int i = 0; i < n; i++)
        lat[i * n + i] = -1;
    double med_mhz = gpu_median_d(mhz, npairs);
    double lo_mean, hi_mean, split;
    int n_lo;
    two_means(off, npairs, &lo_mean, &hi_mean, &split, &n_lo);
    double asym = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                asym = fmax(asym, fabs(lat[i * n + j] - lat[j * n + i]));
    double lmed = gpu_median_d(off, npairs), lmin = off[0], lmax = off[npairs - 1]; /* off is sorted now */
    char path[1024];
    FILE *f = open_out(o->out_dir, "calib-latency.json", path, sizeof path);
    GpuMeta m = *meta;
    if (gpu_nvml_sm_clock_mhz() >= 0)
        gpu_meta_raw(&m, "sm_clock_mhz_after", "%d", gpu_nvml_sm_clock_mhz());
    gpu_meta_str(&m, "method", "ordered SM pairs (a,b): CTA on SM a st.release.gpu a flag, CTA on SM b spins "
                               "ld.acquire.gpu and answers likewise; one-way = median round trip / 2; cycles "
                               "(clock64 on a) converted with the pair's own globaltimer/clock64 ratio; all other "
                               "SMs idle (nanosleep); flags on separate 256-byte lines of one allocation");
    gpu_meta_raw(&m, "round_trips", "%d", trips);
    gpu_meta_raw(&m, "warmup_round_trips", "%d", warm);
    gpu_meta_raw(&m, "pairs", "%d", npairs);
    gpu_meta_raw(&m, "sm_clock_mhz_measured", "%.0f", med_mhz);
    gpu_meta_raw(&m, "kernel_ms", "%.1f", ms);
    gpu_meta_raw(&m, "timeout", err ? "true" : "false");
    fprintf(f, "{\"format\":\"dashsim-calib-latency\",\"version\":1,\n\"metadata\":");
    gpu_meta_write(f, &m);
    fprintf(f, ",\n\"summary\":{\"min_ns\":%.1f,\"median_ns\":%.1f,\"max_ns\":%.1f,\"near_mean_ns\":%.1f,"
               "\"far_mean_ns\":%.1f,\"split_ns\":%.1f,\"near_pairs\":%d,\"far_pairs\":%d,\"max_asymmetry_ns\":%.1f},\n",
            lmin, lmed, lmax, lo_mean, hi_mean, split, n_lo, npairs - n_lo, asym);
    fprintf(f, "\"smids\":[");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? "," : "", smids[i]);
    fprintf(f, "],\n\"latency_ns_doc\":\"latency_ns[i][j]: SM smids[i] signals SM smids[j]; -1 on the diagonal\",\n"
               "\"latency_ns\":[");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s\n[", i ? "," : "");
        for (int j = 0; j < n; j++)
            fprintf(f, j ? ",%.0f" : "%.0f", lat[i * n + j]);
        fputc(']', f);
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    printf("latency: %d SMs, %d ordered pairs in %.1f ms, clock %.0f MHz%s\n", n, npairs, ms, med_mhz,
           err ? " TIMEOUT" : "");
    printf("latency_ns: min %.0f median %.0f max %.0f; near cluster %.0f (%d pairs), far %.0f (%d pairs), split "
           "%.0f, max |a->b - b->a| %.0f\n",
           lmin, lmed, lmax, lo_mean, n_lo, hi_mean, npairs - n_lo, split, asym);
    free(lat);
    free(off);
    free(mhz);
    free(clk);
    free(span);
    free(pairs);
    free(smids);
    cudaFree(d_pairs);
    cudaFree(d_clk);
    cudaFree(d_span);
    cudaFree(d_flags);
    cudaFree(d_err);
}

typedef struct {
    int tile_m, head_dim;
} Tile;

static const Tile tiles[] = {{64, 128}, {80, 128}, {128, 64}, {128, 128}};
#define N_TILES 4

typedef struct {
    const char *name;
    int op, nthr;
} Variant;

static const Variant variants[] = {{"bulk", GPU_OP_BULK, 1},
                                   {"ldst-warp", GPU_OP_LDST, 32},
                                   {"ldst-cta", GPU_OP_LDST, GPU_COMPUTE_THREADS},
                                   {"red-warp", GPU_OP_RED, 32},
                                   {"red-cta", GPU_OP_RED, GPU_COMPUTE_THREADS}};
#define N_VARIANTS 5

/* Median ns of one tile reduction on `blocks` SMs at once (timed reps after 4 warm-ups, over all blocks). */
static double reduce_cost(const Tile *t, const Variant *v, int blocks, int reps, double *p90)
{
    const int warm = 4, all = warm + reps, tile = t->tile_m * t->head_dim;
    float *d_dq;
    unsigned *d_sem;
    long long *d_out, *d_span;
    GPU_CHECK(cudaMalloc(&d_dq, sizeof(float) * tile * blocks));
    GPU_CHECK(cudaMalloc(&d_sem, sizeof(unsigned) * LAT_LINE * blocks));
    GPU_CHECK(cudaMalloc(&d_out, sizeof(long long) * all * blocks));
    GPU_CHECK(cudaMalloc(&d_span, sizeof(long long) * 2 * blocks));
    GPU_CHECK(cudaMemset(d_dq, 0, sizeof(float) * tile * blocks));
    GPU_CHECK(cudaMemset(d_sem, 0, sizeof(unsigned) * LAT_LINE * blocks));
    GPU_CHECK(cudaFuncSetAttribute((const void *)reduce_calib_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   GPU_SMEM_BYTES));
    reduce_calib_kernel<<<blocks, GPU_COMPUTE_THREADS, GPU_SMEM_BYTES>>>(d_dq, d_sem, tile, v->op, v->nthr, all,
                                                                        d_out, d_span);
    gpu_check_launch("reduce calibration kernel", __FILE__, __LINE__);
    long long *out = (long long *)malloc(sizeof(long long) * all * blocks);
    long long *span = (long long *)malloc(sizeof(long long) * 2 * blocks);
    GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * all * blocks, cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * 2 * blocks, cudaMemcpyDeviceToHost));
    double *ns = (double *)malloc(sizeof(double) * reps * blocks);
    int n = 0;
    for (int b = 0; b < blocks; b++) {
        double ns_per_cycle = (double)span[2 * b] / (double)span[2 * b + 1];
        for (int r = warm; r < all; r++)
            ns[n++] = (double)out[(size_t)b * all + r] * ns_per_cycle;
    }
    double med = gpu_median_d(ns, n);
    *p90 = ns[(int)(0.9 * (n - 1))];
    free(ns);
    free(out);
    free(span);
    cudaFree(d_dq);
    cudaFree(d_sem);
    cudaFree(d_out);
    cudaFree(d_span);
    return med;
}

typedef void (*CalibKernel)(int, long long, long long *, float *);

static CalibKernel calib_kernel_for(const Tile *t)
{
    if (t->tile_m == 64)
        return gpu_compute_calib_kernel<4, 2>;
    if (t->tile_m == 80)
        return gpu_compute_calib_kernel<5, 2>;
    return t->head_dim == 64 ? gpu_compute_calib_kernel<8, 1> : gpu_compute_calib_kernel<8, 2>;
}

/* Median ns (cycles at the measured clock) of one tile's compute with iters rounds, every SM busy. */
static double compute_ns(const Tile *t, int iters, int sm_count, double *mhz)
{
    CalibKernel k = calib_kernel_for(t);
    GPU_CHECK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, GPU_SMEM_BYTES));
    long long *d_out, *h = (long long *)malloc(sizeof(long long) * 3 * sm_count);
    float *d_sink;
    GPU_CHECK(cudaMalloc(&d_out, sizeof(long long) * 3 * sm_count));
    GPU_CHECK(cudaMalloc(&d_sink, sizeof(float) * sm_count));
    double *cyc = (double *)malloc(sizeof(double) * sm_count), *clk = (double *)malloc(sizeof(double) * sm_count);
    for (int rep = 0; rep < 2; rep++) {
        k<<<sm_count, GPU_COMPUTE_THREADS, GPU_SMEM_BYTES>>>(iters, 0, d_out, d_sink);
        gpu_check_launch("compute calibration kernel", __FILE__, __LINE__);
    }
    GPU_CHECK(cudaMemcpy(h, d_out, sizeof(long long) * 3 * sm_count, cudaMemcpyDeviceToHost));
    int nc = 0;
    for (int i = 0; i < sm_count; i++) {
        cyc[i] = (double)h[3 * i];
        if (h[3 * i + 1] > 10000)
            clk[nc++] = (double)h[3 * i] * 1000.0 / (double)h[3 * i + 1];
    }
    double c = gpu_median_d(cyc, sm_count);
    if (nc)
        *mhz = gpu_median_d(clk, nc);
    free(cyc);
    free(clk);
    free(h);
    cudaFree(d_out);
    cudaFree(d_sink);
    return c * 1000.0 / *mhz;
}

static void run_reduce_and_compute(const Options *o, int sm_count, GpuMeta *meta)
{
    char path[1024];
    FILE *fi = open_out(o->out_dir, "calib-iters.txt", path, sizeof path);
    char *body = NULL; /* the tables, written after the metadata once the clock after them is known */
    size_t body_len = 0;
    FILE *f = open_memstream(&body, &body_len);
    GpuMeta m = *meta;
    const int reps = 32;
    gpu_meta_str(&m, "method", "each CTA (one per SM) adds a staged kBlockM x head_dim fp32 tile from shared "
                               "memory into its own dQ tile, then completes, fences and release-increments a "
                               "semaphore, as the executor's reduction phase; thread 0 times it with clock64 "
                               "converted at the CTA's globaltimer/clock64 ratio; 4 warm-ups, then the median "
                               "over reps x CTAs");
    gpu_meta_raw(&m, "reps", "%d", reps);
    fprintf(f, ",\n\"reduce\":[");
    printf("%-9s %-10s %12s %12s %12s %12s\n", "tile", "op", "1sm_med_ns", "1sm_p90_ns", "all_med_ns", "all_p90_ns");
    double bulk_1sm[N_TILES];
    for (int ti = 0; ti < N_TILES; ti++)
        for (int vi = 0; vi < N_VARIANTS; vi++) {
            const Tile *t = &tiles[ti];
            const Variant *v = &variants[vi];
            double p90_1, p90_all;
            double one = reduce_cost(t, v, 1, reps, &p90_1), all = reduce_cost(t, v, sm_count, reps, &p90_all);
            if (v->op == GPU_OP_BULK)
                bulk_1sm[ti] = one;
            fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"bytes\":%d,\"op\":\"%s\",\"threads\":%d,"
                       "\"one_sm_median_ns\":%.1f,\"one_sm_p90_ns\":%.1f,\"all_sms_median_ns\":%.1f,"
                       "\"all_sms_p90_ns\":%.1f,\"all_sms\":%d}",
                    ti + vi ? "," : "", t->tile_m, t->head_dim, t->tile_m * t->head_dim * 4, v->name, v->nthr, one,
                    p90_1, all, p90_all, sm_count);
            printf("%3dx%-5d %-10s %12.0f %12.0f %12.0f %12.0f\n", t->tile_m, t->head_dim, v->name, one, p90_1, all,
                   p90_all);
        }
    fprintf(f, "\n],\n\"compute\":[");
    fprintf(fi, "# tile_m head_dim ratio compute_iters   (c/r with r = bulk reduce on one SM, c = mma rounds)\n");
    static const int iters_probe[] = {1, 8, 32, 128};
    static const int ratios[] = {1, 3, 8};
    for (int ti = 0; ti < N_TILES; ti++) {
        const Tile *t = &tiles[ti];
        double mhz = 1980, ns[4];
        compute_ns(t, 128, sm_count, &mhz); /* sets mhz from a long run */
        for (int i = 0; i < 4; i++)
            ns[i] = compute_ns(t, iters_probe[i], sm_count, &mhz);
        double per_iter = (ns[3] - ns[1]) / (iters_probe[3] - iters_probe[1]);
        double fixed = ns[0] - per_iter;
        double flops = 2.0 * t->tile_m * t->head_dim * 16 * sm_count / per_iter * 1e-3; /* TFLOP/s, all SMs */
        fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"ns_iters_1_8_32_128\":[%.0f,%.0f,%.0f,%.0f],"
                   "\"ns_per_iter\":%.2f,\"fixed_ns\":%.1f,\"sm_clock_mhz\":%.0f,\"tflops_all_sms\":%.1f,"
                   "\"iters_for_ratio\":{",
                ti ? "," : "", t->tile_m, t->head_dim, ns[0], ns[1], ns[2], ns[3], per_iter, fixed, mhz, flops);
        printf("compute %dx%d: %.2f ns/iter + %.0f ns fixed (%.0f MHz, %.0f TFLOP/s mma.sync); iters for c/r:",
               t->tile_m, t->head_dim, per_iter, fixed, mhz, flops);
        for (int r = 0; r < 3; r++) {
            long k = lround((ratios[r] * bulk_1sm[ti] - fixed) / per_iter);
            k = k < 1 ? 1 : k;
            fprintf(f, "%s\"%d\":%ld", r ? "," : "", ratios[r], k);
            fprintf(fi, "%d %d %d %ld\n", t->tile_m, t->head_dim, ratios[r], k);
            printf(" %d->%ld", ratios[r], k);
        }
        printf("\n");
        fprintf(f, "},\"r_bulk_one_sm_ns\":%.1f}", bulk_1sm[ti]);
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    fclose(fi);
    if (gpu_nvml_sm_clock_mhz() >= 0)
        gpu_meta_raw(&m, "sm_clock_mhz_after", "%d", gpu_nvml_sm_clock_mhz());
    FILE *out = open_out(o->out_dir, "calib-reduce.json", path, sizeof path);
    fprintf(out, "{\"format\":\"dashsim-calib-reduce\",\"version\":1,\n\"metadata\":");
    gpu_meta_write(out, &m);
    fwrite(body, 1, body_len, out);
    fclose(out);
    free(body);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu-calib [--out-dir DIR] [--round-trips N] [--warmup N] [--skip-latency] [--meta K=V]...\n"
               "Writes DIR/calib-latency.json (SM-to-SM signal latency), DIR/calib-reduce.json (dQ tile reduction\n"
               "and mma compute costs) and DIR/calib-iters.txt (compute iterations for c/r = 1, 3, 8).\n");
}

int main(int argc, char **argv)
{
    Options o;
    memset(&o, 0, sizeof o);
    o.out_dir = ".";
    o.trips = 16;
    o.warm = 4;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(s, "--version")) {
            printf("gpu-calib 1\n");
            return 0;
        } else if (!strcmp(s, "--skip-latency")) {
            o.is_skip_latency = 1;
        } else if (!v) {
            usage(stderr);
            return 2;
        } else if (!strcmp(s, "--out-dir")) {
            o.out_dir = v, i++;
        } else if (!strcmp(s, "--round-trips")) {
            o.trips = atoi(v), i++;
        } else if (!strcmp(s, "--warmup")) {
            o.warm = atoi(v), i++;
        } else if (!strcmp(s, "--meta") && !gpu_meta_parse(&o.meta, v)) {
            i++;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (o.trips < 1 || o.trips > 1024 || o.warm < 0 || o.warm > 1024) {
        fprintf(stderr, "gpu-calib: --round-trips takes 1..1024 and --warmup 0..1024\n");
        return 2;
    }
    GPU_CHECK(cudaSetDevice(0));
    GpuMeta meta;
    memset(&meta, 0, sizeof meta);
    gpu_meta_device(&meta, 0);
    gpu_meta_merge(&meta, &o.meta);
    int sm_count = 0, coop = 0;
    GPU_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    GPU_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    if (!o.is_skip_latency) {
        if (!coop) {
            fprintf(stderr, "gpu-calib: the device cannot launch cooperative kernels\n");
            return 1;
        }
        run_latency(&o, sm_count, &meta);
    }
    run_reduce_and_compute(&o, sm_count, &meta);
    return 0;
}

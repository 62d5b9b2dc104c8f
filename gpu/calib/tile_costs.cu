/* gpu-calib's tile costs (docs/gpu.md): the cost of adding one staged dQ tile into global memory (bulk,
 * ld/st and red, by one thread, a warp or a CTA; one SM alone and all SMs at once) and of one mma round of
 * the executor's compute per tile; calib-reduce.json and the compute iterations for c/r targets
 * (calib-iters.txt). Invariant: one CTA per SM; each adds into its own tile, as the executor's reduction. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    calib_sort_d(ns, n);
    double med = sim_median_f64(ns, n);
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
    double c = sim_median_f64(cyc, sm_count);
    if (nc)
        *mhz = sim_median_f64(clk, nc);
    free(cyc);
    free(clk);
    free(h);
    cudaFree(d_out);
    cudaFree(d_sink);
    return c * 1000.0 / *mhz;
}

void calib_tile_costs(const Options *o, int sm_count, GpuMeta *meta)
{
    char path[1024];
    FILE *fi = calib_open_out(o->out_dir, "calib-iters.txt", path, sizeof path);
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
    double bulk_1sm[CALIB_TILES];
    for (int ti = 0; ti < CALIB_TILES; ti++)
        for (int vi = 0; vi < CALIB_VARIANTS; vi++) {
            const Tile *t = &calib_tiles[ti];
            const Variant *v = &calib_variants[vi];
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
    for (int ti = 0; ti < CALIB_TILES; ti++) {
        const Tile *t = &calib_tiles[ti];
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
    FILE *out = calib_open_out(o->out_dir, "calib-reduce.json", path, sizeof path);
    fprintf(out, "{\"format\":\"dashsim-calib-reduce\",\"version\":1,\n\"metadata\":");
    gpu_meta_write(out, &m);
    fwrite(body, 1, body_len, out);
    fclose(out);
    free(body);
}

/* gpu-calib's SM-to-SM signal latency (docs/gpu.md, "How gpu-calib works"): every ordered pair of SMs in
 * turn pings and pongs through global memory (release store, acquire spin) while all other SMs sleep;
 * one-way latency = half the median round trip, as a 132 x 132 matrix indexed by %smid (calib-latency.json).
 * Invariant: one CTA per SM, all resident (cooperative launches), rows and columns by %smid, never blockIdx. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void calib_sm_latency(const Options *o, int sm_count, GpuMeta *meta)
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
    int64_t *clk = (int64_t *)malloc(sizeof(int64_t) * npairs * trips); /* the device's long long stamps */
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
        lat[i * n + j] = (double)sim_median_i64(clk + (size_t)p * trips, trips) / 2.0 * ns_per_cycle;
        off[p] = lat[i * n + j];
    }
    for (int i = 0; i < n; i++)
        lat[i * n + i] = -1;
    double med_mhz = sim_median_f64(mhz, npairs);
    double lo_mean, hi_mean, split;
    int n_lo;
    two_means(off, npairs, &lo_mean, &hi_mean, &split, &n_lo);
    double asym = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j)
                asym = fmax(asym, fabs(lat[i * n + j] - lat[j * n + i]));
    calib_sort_d(off, npairs);
    double lmed = sim_median_f64(off, npairs), lmin = off[0], lmax = off[npairs - 1];
    char path[1024];
    FILE *f = calib_open_out(o->out_dir, "calib-latency.json", path, sizeof path);
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

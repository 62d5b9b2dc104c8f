/* gpu-calib --steady, sections reduce_steady and reduce_per_sm: the dQ-tile reduction under steady load
 * (every SM loops reductions with seeded random phases and gaps, never started together, as an executor's
 * SMs drift apart), binned by the reductions in flight that each one saw, with its SM and the bulk copy's
 * read point; and each SM's own reduction alone, SMs taking turns. Invariant: cooperative launches, one CTA
 * per SM; every time is %globaltimer or clock64 at the CTA's own clock64/globaltimer ratio. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEADY_FIELDS 4 /* start, read point, end (globaltimer ns from the published start), clock64 cycles */
#define STEADY_ROUNDS 80
#define STEADY_WARM 10
#define STEADY_LEVELS 10
#define STEADY_BINS 15
#define PERSM_ROUNDS 12

/* Gap between a CTA's reductions, in multiples of the variant's time alone: in flight about k / (1 + m). */
static const double steady_gap_mult[STEADY_LEVELS] = {0, 0.15, 0.4, 0.8, 1.5, 3, 6, 12, 30, 80};
/* The same levels with the gap computed (reduce_steady_compute): mma rounds between reductions. */
static const int steady_compute_iters[STEADY_LEVELS] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
/* Bins of the time-averaged reductions in flight: [lo[i], lo[i+1]). */
static const double steady_bin_lo[STEADY_BINS + 1] = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 80, 96, 112, 124, 133};

typedef struct {
    int tile_m, head_dim, op, nthr;
    const char *name;
    int alone_est_ns; /* the gap's unit: about the reduction's time alone */
} SteadyVariant;

/* The tiles and methods of the executor's committed traces: bulk (serial and async) and the store warp's
 * ldst (async). */
static const SteadyVariant steady_variants[] = {
    {64, 128, GPU_OP_BULK, 1, "bulk", 1400},       {80, 128, GPU_OP_BULK, 1, "bulk", 1550},
    {128, 64, GPU_OP_BULK, 1, "bulk", 1400},       {64, 128, GPU_OP_LDST, 32, "ldst-warp", 4300},
    {80, 128, GPU_OP_LDST, 32, "ldst-warp", 5200}, {128, 64, GPU_OP_LDST, 32, "ldst-warp", 5000},
};
#define STEADY_VARIANTS ((int)(sizeof steady_variants / sizeof steady_variants[0]))

__device__ static inline unsigned long long steady_ld_acquire_u64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* The CTA's staged tile: tile fp32 values in shared memory, visible to the bulk copy engine (each thread
 * fences what it wrote; the caller synchronises before the tile is read). */
__device__ static inline float *steady_stage(unsigned char *smem, int tile)
{
    float *stage = (float *)smem;
    for (int i = threadIdx.x; i < tile; i += blockDim.x)
        stage[i] = (float)((i * 7 + (int)blockIdx.x) % 97) * 0.001f;
    gpu_fence_proxy_smem();
    return stage;
}

/* Uniform in [0, 1) from (seed, block, round). */
__device__ static inline double steady_uniform(unsigned seed, unsigned blk, unsigned r)
{
    return (double)(gpu_hash3(seed, blk + 0x5000u, r + 0x9000u) >> 8) / (double)(1u << 24);
}

/* One reduction of the staged tile into dst, as the executor's reduction phase (add, complete, fence,
 * release-increment); thread 0 returns the globaltimer at the bulk copy's read point (ldst: 0). */
__device__ static inline long long steady_reduce(const float *stage, float *dst, unsigned *sem, int tile, int op, int nthr)
{
    long long read = 0;
    if (op == GPU_OP_BULK) {
        if (threadIdx.x == 0) {
            gpu_reduce_bulk_issue(stage, dst, tile);
            gpu_bulk_wait_read();
            read = gpu_globaltimer();
            gpu_bulk_wait_done();
            gpu_release_increment(sem);
        }
    } else {
        if ((int)threadIdx.x < nthr)
            gpu_reduce_vec(op, stage, dst, tile, threadIdx.x, nthr);
        __syncthreads();
        if (threadIdx.x == 0)
            gpu_release_increment(sem);
    }
    return read;
}

/* Every CTA (one per SM) loops `rounds` reductions into its own dQ tile: it starts at a seeded random phase
 * in [0, alone + gap) after a start time published 20 us ahead, and after each reduction waits
 * gap x (0.5 + u), u seeded uniform in [0, 1); with compute_iters > 0 it computes instead, as the
 * executor's serial loop does: max(1, compute_iters x (0.5 + u)) mma rounds of an MB x NB tile.
 * out[(blk*rounds+r)*4]: start, read point, end (ns from the published start), cycles; smid[blk];
 * span[2 blk]: globaltimer ns and clock64 cycles of the whole loop. */
template <int MB, int NB>
__global__ void __launch_bounds__(GPU_COMPUTE_THREADS, 1)
    prof_reduce_steady_kernel(float *dq, unsigned *sem, unsigned *arrive, unsigned long long *go, int tile, int op,
                              int nthr, int rounds, int alone_ns, int gap_ns, int compute_iters, unsigned seed,
                              long long *out, long long *span, int *smid, float *sink, int *err)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = steady_stage(smem, tile);
    const int tid = threadIdx.x;
    unsigned *s = sem + (size_t)blockIdx.x * LAT_LINE;
    float *dst = dq + (size_t)blockIdx.x * tile;
    __shared__ long long t_go;
    __syncthreads();
    if (tid == 0) {
        smid[blockIdx.x] = gpu_smid();
        const long long deadline = gpu_globaltimer() + 2000000000LL;
        if (atomicAdd(arrive, 1u) == gridDim.x - 1)
            asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(go),
                         "l"((unsigned long long)gpu_globaltimer() + 20000ull)
                         : "memory");
        unsigned long long t;
        unsigned n = 0;
        while ((t = steady_ld_acquire_u64(go)) == 0)
            if ((++n & 255u) == 0 && gpu_globaltimer() > deadline) {
                atomicExch(err, 1);
                t = (unsigned long long)gpu_globaltimer();
                break;
            }
        t_go = (long long)t;
    }
    __syncthreads();
    const long long go_ns = t_go, g0 = gpu_globaltimer(), k0 = clock64();
    long long next = go_ns + (long long)(steady_uniform(seed, blockIdx.x, 0xFFFFu) * (alone_ns + gap_ns));
    for (int r = 0; r < rounds; r++) {
        if (tid == 0)
            while (gpu_globaltimer() < next) {
            }
        if (compute_iters > 0 && r > 0) {
            const double u = steady_uniform(seed, blockIdx.x, (unsigned)r + 0x40000u);
            float acc[MB][NB][4];
            gpu_tile_compute<MB, NB>(acc, (int)blockIdx.x, r, 0, max(1, (int)(compute_iters * (0.5 + u))), 0, 0);
            if (acc[0][0][0] == 1234.5f) /* never: keeps the compute */
                sink[blockIdx.x] = acc[MB - 1][NB - 1][3];
        }
        __syncthreads();
        const long long c0 = clock64(), gs = gpu_globaltimer();
        const long long read = steady_reduce(stage, dst, s, tile, op, nthr);
        if (tid == 0) {
            const long long c1 = clock64(), ge = gpu_globaltimer();
            long long *o = out + ((size_t)blockIdx.x * rounds + r) * STEADY_FIELDS;
            o[0] = gs - go_ns;
            o[1] = (read ? read : ge) - go_ns;
            o[2] = ge - go_ns;
            o[3] = c1 - c0;
            next = compute_iters > 0 ? ge : ge + (long long)(gap_ns * (0.5 + steady_uniform(seed, blockIdx.x, (unsigned)r)));
        }
        __syncthreads();
    }
    if (tid == 0) {
        span[2 * blockIdx.x] = gpu_globaltimer() - g0;
        span[2 * blockIdx.x + 1] = clock64() - k0;
    }
}

/* Each SM alone: CTA b waits for turn b, times `rounds` reductions into its own tile, hands the turn on.
 * out[(blk*rounds+r)*2]: cycles, and globaltimer ns, of reduction r; smid[blk]. */
__global__ void __launch_bounds__(GPU_COMPUTE_THREADS, 1)
    prof_reduce_turns_kernel(float *dq, unsigned *sem, unsigned *turn, int tile, int op, int nthr, int rounds,
                             long long *out, int *smid, int *err)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = steady_stage(smem, tile);
    const int tid = threadIdx.x;
    unsigned *s = sem + (size_t)blockIdx.x * LAT_LINE;
    float *dst = dq + (size_t)blockIdx.x * tile;
    if (tid == 0) {
        smid[blockIdx.x] = gpu_smid();
        const long long deadline = gpu_globaltimer() + 2000000000LL;
        for (unsigned n = 0; gpu_ld_acquire(turn) != blockIdx.x; n++) {
            __nanosleep(256); /* waiting CTAs must not load L2 with polls */
            if ((n & 255u) == 0 && gpu_globaltimer() > deadline) {
                atomicExch(err, 1);
                break;
            }
        }
    }
    __syncthreads();
    for (int r = 0; r < rounds; r++) {
        const long long c0 = clock64(), g0 = gpu_globaltimer();
        steady_reduce(stage, dst, s, tile, op, nthr);
        if (tid == 0) {
            out[((size_t)blockIdx.x * rounds + r) * 2] = clock64() - c0;
            out[((size_t)blockIdx.x * rounds + r) * 2 + 1] = gpu_globaltimer() - g0;
        }
        __syncthreads();
    }
    if (tid == 0)
        gpu_st_release(turn, blockIdx.x + 1);
}

/* Reductions in flight at time t: started at or before t, not ended by then (starts, ends sorted). */
static int steady_count_at(const double *starts, const double *ends, int n, double t)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (starts[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    int started = lo;
    lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ends[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return started - lo;
}

typedef struct {
    double *dur, *read, *avg, *mid;
    int *blk;
    int n;
} SteadySamples;

/* The samples of one level from out: every reduction after the warm rounds whose whole span lies while
 * every CTA is still looping; its time (cycles at the CTA's ratio), read point, in flight (mean over five
 * points of its span, and at its midpoint), one TSV line each into tsv. */
static void steady_collect(const long long *out, const long long *span, const int *smid, int k, int rounds,
                           const SteadyVariant *v, int gap_ns, FILE *tsv, SteadySamples *ss) /* gap_ns < 0: computed */
{
    const int total = k * rounds;
    double *starts = (double *)malloc(sizeof(double) * total), *ends = (double *)malloc(sizeof(double) * total);
    double lo = 0, hi = 1e300;
    for (int b = 0; b < k; b++) {
        for (int r = 0; r < rounds; r++) {
            const long long *o = out + ((size_t)b * rounds + r) * STEADY_FIELDS;
            starts[b * rounds + r] = (double)o[0], ends[b * rounds + r] = (double)o[2];
        }
        lo = fmax(lo, (double)out[((size_t)b * rounds + STEADY_WARM) * STEADY_FIELDS]);
        hi = fmin(hi, (double)out[((size_t)b * rounds + rounds - 1) * STEADY_FIELDS + 2]);
    }
    calib_sort_d(starts, total);
    calib_sort_d(ends, total);
    ss->n = 0;
    for (int b = 0; b < k; b++) {
        const double nspc = (double)span[2 * b] / (double)span[2 * b + 1];
        for (int r = STEADY_WARM; r < rounds; r++) {
            const long long *o = out + ((size_t)b * rounds + r) * STEADY_FIELDS;
            const double s = (double)o[0], e = (double)o[2];
            if (s < lo || e > hi)
                continue;
            double avg = 0;
            for (int i = 0; i < 5; i++)
                avg += steady_count_at(starts, ends, total, s + (e - s) * (i + 0.5) / 5) / 5.0;
            const int at_mid = steady_count_at(starts, ends, total, (s + e) / 2);
            const int i = ss->n++;
            /* computed gaps: clock64 across the compute's end reads early on some samples (up to twice the
             * globaltimer span; calib7 run 3/4), so the time is the globaltimer span there (32 ns steps) */
            ss->dur[i] = gap_ns < 0 ? e - s : (double)o[3] * nspc, ss->read[i] = (double)(o[1] - o[0]), ss->avg[i] = avg;
            ss->mid[i] = at_mid, ss->blk[i] = b;
            if (tsv)
                fprintf(tsv, "%d\t%d\t%s\t%d\t%d\t%d\t%lld\t%lld\t%lld\t%.0f\t%.2f\t%d\n", v->tile_m, v->head_dim,
                        v->name, gap_ns, smid[b], r, o[0], o[1], o[2], ss->dur[i], avg, at_mid);
        }
    }
    free(starts), free(ends);
}

/* Median of the n values of v at the indices where keep[i] (copied; v untouched). */
static double steady_median_where(const double *v, const char *keep, int n, double *scratch, int *count)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            scratch[m++] = v[i];
    *count = m;
    return calib_pct(scratch, m, 0.5);
}

/* The per-SM factor of a variant: each SM's median over all levels of its time / its level's median. */
static void steady_per_sm(FILE *f, const double *ratio_sum, const int *ratio_n, const int *sm_of, int k)
{
    fprintf(f, ",\"per_sm\":[");
    for (int b = 0; b < k; b++)
        fprintf(f, "%s{\"smid\":%d,\"factor\":%.4f,\"samples\":%d}", b ? "," : "", sm_of[b],
                ratio_n[b] ? ratio_sum[b] / ratio_n[b] : 0, ratio_n[b]);
    fputc(']', f);
}

/* (a) reduce_steady: per variant, per gap level, the samples' medians; the curve binned by mean in flight
 * over all levels; the per-SM factor (mean over levels of the SM's median over its level's median). */
/* The steady kernel for the variant's own tile (its compute, when the gap is computed). */
static const void *steady_kernel_for(const SteadyVariant *v)
{
    if (v->tile_m == 128)
        return (const void *)prof_reduce_steady_kernel<8, 1>;
    return v->tile_m == 80 ? (const void *)prof_reduce_steady_kernel<5, 2> : (const void *)prof_reduce_steady_kernel<4, 2>;
}

/* Median over CTAs of clock64 cycles per globaltimer us over the loop. */
static double steady_mhz(const long long *span, int k)
{
    double *v = (double *)malloc(sizeof(double) * k);
    for (int b = 0; b < k; b++)
        v[b] = span[2 * b] > 0 ? 1000.0 * (double)span[2 * b + 1] / (double)span[2 * b] : 0;
    const double m = calib_pct(v, k, 0.5);
    free(v);
    return m;
}

void calib_reduce_steady(FILE *f, int sm_count, unsigned seed, FILE *tsv, int is_compute)
{
    const int k = sm_count, rounds = STEADY_ROUNDS, cap = k * rounds;
    float *d_dq = (float *)calib_alloc(sizeof(float) * 128 * 128 * k);
    unsigned *d_sem = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * k);
    unsigned *d_arrive = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE);
    unsigned long long *d_go = (unsigned long long *)calib_alloc(sizeof(unsigned) * LAT_LINE);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * STEADY_FIELDS * cap);
    long long *d_span = (long long *)calib_alloc(sizeof(long long) * 2 * k);
    int *d_smid = (int *)calib_alloc(sizeof(int) * k), *d_err = (int *)calib_alloc(sizeof(int));
    long long *out = (long long *)malloc(sizeof(long long) * STEADY_FIELDS * cap);
    long long *span = (long long *)malloc(sizeof(long long) * 2 * k);
    int *smid = (int *)malloc(sizeof(int) * k);
    const int all_cap = cap * STEADY_LEVELS;
    SteadySamples all = {(double *)malloc(sizeof(double) * all_cap), (double *)malloc(sizeof(double) * all_cap),
                         (double *)malloc(sizeof(double) * all_cap), (double *)malloc(sizeof(double) * all_cap),
                         (int *)malloc(sizeof(int) * all_cap), 0};
    double *scratch = (double *)malloc(sizeof(double) * all_cap);
    char *keep = (char *)malloc(all_cap);
    double *ratio_sum = (double *)malloc(sizeof(double) * k);
    int *ratio_n = (int *)malloc(sizeof(int) * k);
    float *d_sink = (float *)calib_alloc(sizeof(float) * k);
    for (int vi = 0; vi < STEADY_VARIANTS; vi++)
        GPU_CHECK(cudaFuncSetAttribute(steady_kernel_for(&steady_variants[vi]),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, GPU_SMEM_BYTES));
    fprintf(f, ",\n\"%s\":{\"method\":\"%severy SM (k CTAs, cooperative, one per SM) loops %d reductions of its "
               "staged fp32 tile into its own dQ tile (add, complete, fence, release-increment, as the executor's "
               "reduction phase), starting at a seeded random phase in [0, alone_est + gap) after a published start, "
               "and waiting gap x (0.5 + u) after each, u seeded uniform in [0, 1); gap = gap_mult x alone_est. "
               "Kept: rounds after the first %d whose span lies while every CTA loops. time: clock64 at the CTA's "
               "clock64/globaltimer ratio; read: globaltimer from its start to the bulk copy's read point "
               "(cp.async.bulk.wait_group.read; ldst: its end); inflight_avg: reductions in flight (itself included) "
               "averaged over five points of its span; inflight_mid: at its midpoint. curve: samples of all levels "
               "binned by inflight_avg in [lo, hi), bins of fewer than 100 samples left out. per_sm: the SM's median "
               "over its level's median, averaged over levels\",\"units\":\"ns\",\"seed\":%u,\"k\":%d,\"rounds\":%d,"
               "\"rows\":[",
            is_compute ? "reduce_steady_compute" : "reduce_steady",
            is_compute ? "as reduce_steady, but the gap is the executor's serial compute: the CTA computes "
                         "max(1, compute_iters x (0.5 + u)) mma rounds of the variant's tile between reductions, so "
                         "the SM clock is the executor's (measured_mhz: clock64 per globaltimer us over the loop, "
                         "median over CTAs); time: the globaltimer span (clock64 across the compute's end read early). "
                         "reduce_steady: " : "",
            rounds, STEADY_WARM, seed, k, rounds);
    for (int vi = 0; vi < STEADY_VARIANTS; vi++) {
        const SteadyVariant *v = &steady_variants[vi];
        int tile = v->tile_m * v->head_dim, op = v->op, nthr = v->nthr, rr = rounds, alone = v->alone_est_ns;
        memset(ratio_sum, 0, sizeof(double) * k), memset(ratio_n, 0, sizeof(int) * k);
        all.n = 0;
        fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"op\":\"%s\",\"threads\":%d,\"alone_est_ns\":%d,\"levels\":[",
                vi ? "," : "", v->tile_m, v->head_dim, v->name, v->nthr, alone);
        for (int li = 0; li < STEADY_LEVELS; li++) {
            int gap = is_compute ? 0 : (int)lround(steady_gap_mult[li] * alone);
            int iters = is_compute ? steady_compute_iters[li] : 0;
            unsigned sd = seed + 7919u * (unsigned)(vi * STEADY_LEVELS + li);
            GPU_CHECK(cudaMemset(d_arrive, 0, sizeof(unsigned) * LAT_LINE));
            GPU_CHECK(cudaMemset(d_go, 0, sizeof(unsigned) * LAT_LINE));
            void *args[] = {&d_dq, &d_sem, &d_arrive, &d_go, &tile, &op, &nthr, &rr, &alone, &gap, &iters, &sd, &d_out,
                            &d_span, &d_smid, &d_sink, &d_err};
            GPU_CHECK(cudaLaunchCooperativeKernel(steady_kernel_for(v), k, GPU_COMPUTE_THREADS, args, GPU_SMEM_BYTES, 0));
            gpu_check_launch("profile reduce-steady kernel", __FILE__, __LINE__);
            GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * STEADY_FIELDS * cap, cudaMemcpyDeviceToHost));
            GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * 2 * k, cudaMemcpyDeviceToHost));
            GPU_CHECK(cudaMemcpy(smid, d_smid, sizeof(int) * k, cudaMemcpyDeviceToHost));
            SteadySamples lv = {all.dur + all.n, all.read + all.n, all.avg + all.n, all.mid + all.n, all.blk + all.n, 0};
            steady_collect(out, span, smid, k, rounds, v, is_compute ? -iters : gap, tsv, &lv);
            const double mhz = steady_mhz(span, k);
            memset(keep, 1, lv.n);
            int m;
            const double med = steady_median_where(lv.dur, keep, lv.n, scratch, &m);
            const double p10 = calib_pct(scratch, m, 0.1), p90 = calib_pct(scratch, m, 0.9);
            const double rd = steady_median_where(lv.read, keep, lv.n, scratch, &m);
            const double av = steady_median_where(lv.avg, keep, lv.n, scratch, &m);
            const double md = steady_median_where(lv.mid, keep, lv.n, scratch, &m);
            for (int b = 0; b < k; b++) {
                for (int i = 0; i < lv.n; i++)
                    keep[i] = lv.blk[i] == b;
                const double sm_med = steady_median_where(lv.dur, keep, lv.n, scratch, &m);
                if (m >= 5 && med > 0)
                    ratio_sum[b] += sm_med / med, ratio_n[b]++;
            }
            fprintf(f, "%s{\"gap_mult\":%.2f,\"gap_ns\":%d,\"compute_iters\":%d,\"samples\":%d,\"median_ns\":%.1f,"
                       "\"p10_ns\":%.1f,\"p90_ns\":%.1f,\"read_median_ns\":%.0f,\"inflight_avg_median\":%.1f,"
                       "\"inflight_mid_median\":%.0f,\"measured_mhz\":%.0f}",
                    li ? "," : "", is_compute ? 0 : steady_gap_mult[li], gap, iters, lv.n, med, p10, p90, rd, av, md, mhz);
            printf("%s %3dx%-3d %-9s gap %6d iters %3d: %5d samples, in flight %5.1f, median %.0f p90 %.0f read %.0f ns, "
                   "%.0f MHz\n", is_compute ? "reduce_steady_compute" : "reduce_steady", v->tile_m, v->head_dim, v->name,
                   gap, iters, lv.n, av, med, p90, rd, mhz);
            all.n += lv.n;
        }
        fprintf(f, "],\"curve\":[");
        for (int bi = 0, row = 0; bi < STEADY_BINS; bi++) {
            for (int i = 0; i < all.n; i++)
                keep[i] = all.avg[i] >= steady_bin_lo[bi] && all.avg[i] < steady_bin_lo[bi + 1];
            int m;
            const double med = steady_median_where(all.dur, keep, all.n, scratch, &m);
            if (m < 100)
                continue;
            const double rd = steady_median_where(all.read, keep, all.n, scratch, &m);
            const double p90 = (steady_median_where(all.dur, keep, all.n, scratch, &m), calib_pct(scratch, m, 0.9));
            double mean_k = 0;
            for (int i = 0; i < all.n; i++)
                mean_k += keep[i] ? all.avg[i] / m : 0;
            fprintf(f, "%s{\"lo\":%.0f,\"hi\":%.0f,\"k\":%.2f,\"samples\":%d,\"median_ns\":%.1f,\"p90_ns\":%.1f,"
                       "\"read_median_ns\":%.0f}",
                    row++ ? "," : "", steady_bin_lo[bi], steady_bin_lo[bi + 1], mean_k, m, med, p90, rd);
        }
        fputc(']', f);
        steady_per_sm(f, ratio_sum, ratio_n, smid, k);
        fputc('}', f);
        fflush(stdout);
    }
    fprintf(f, "\n]}");
    int err = 0;
    GPU_CHECK(cudaMemcpy(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost));
    if (err)
        printf("reduce_steady: TIMEOUT at the start\n");
    free(out), free(span), free(smid), free(scratch), free(keep), free(ratio_sum), free(ratio_n);
    free(all.dur), free(all.read), free(all.avg), free(all.mid), free(all.blk);
    cudaFree(d_dq), cudaFree(d_sem), cudaFree(d_arrive), cudaFree(d_go), cudaFree(d_out), cudaFree(d_span);
    cudaFree(d_smid), cudaFree(d_err), cudaFree(d_sink);
}

/* (b) reduce_per_sm: each SM's own reduction alone (the others wait, sleeping), the variants of
 * reduce_steady; per SM the median over PERSM_ROUNDS after the first two. */
void calib_reduce_per_sm(FILE *f, int sm_count)
{
    const int k = sm_count, rounds = PERSM_ROUNDS, warm = 2;
    float *d_dq = (float *)calib_alloc(sizeof(float) * 128 * 128 * k);
    unsigned *d_sem = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE * k);
    unsigned *d_turn = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * 2 * rounds * k);
    int *d_smid = (int *)calib_alloc(sizeof(int) * k), *d_err = (int *)calib_alloc(sizeof(int));
    long long *out = (long long *)malloc(sizeof(long long) * 2 * rounds * k);
    int *smid = (int *)malloc(sizeof(int) * k);
    double v_ns[PERSM_ROUNDS], *sm_med = (double *)malloc(sizeof(double) * k), *sorted = (double *)malloc(sizeof(double) * k);
    GPU_CHECK(cudaFuncSetAttribute((const void *)prof_reduce_turns_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   GPU_SMEM_BYTES));
    fprintf(f, ",\n\"reduce_per_sm\":{\"method\":\"one SM at a time (CTAs take turns through a global counter, the "
               "others sleeping): %d reductions of its staged tile into its own dQ tile, the first %d dropped; per SM "
               "the median, in globaltimer ns and in clock64 cycles; factor = the SM's median over the median of all "
               "SMs\",\"units\":\"ns\",\"rows\":[",
            rounds, warm);
    for (int vi = 0; vi < STEADY_VARIANTS; vi++) {
        const SteadyVariant *v = &steady_variants[vi];
        int tile = v->tile_m * v->head_dim, op = v->op, nthr = v->nthr, rr = rounds;
        GPU_CHECK(cudaMemset(d_turn, 0, sizeof(unsigned) * LAT_LINE));
        void *args[] = {&d_dq, &d_sem, &d_turn, &tile, &op, &nthr, &rr, &d_out, &d_smid, &d_err};
        GPU_CHECK(cudaLaunchCooperativeKernel((const void *)prof_reduce_turns_kernel, k, GPU_COMPUTE_THREADS, args,
                                              GPU_SMEM_BYTES, 0));
        gpu_check_launch("profile reduce-per-SM kernel", __FILE__, __LINE__);
        GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 2 * rounds * k, cudaMemcpyDeviceToHost));
        GPU_CHECK(cudaMemcpy(smid, d_smid, sizeof(int) * k, cudaMemcpyDeviceToHost));
        for (int b = 0; b < k; b++) {
            for (int r = warm; r < rounds; r++)
                v_ns[r - warm] = (double)out[((size_t)b * rounds + r) * 2 + 1];
            sm_med[b] = calib_pct(v_ns, rounds - warm, 0.5);
            sorted[b] = sm_med[b];
        }
        const double all = calib_pct(sorted, k, 0.5);
        fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"op\":\"%s\",\"threads\":%d,\"median_ns\":%.0f,\"max_factor\":%.4f,"
                   "\"sms\":[",
                vi ? "," : "", v->tile_m, v->head_dim, v->name, v->nthr, all, sorted[k - 1] / all);
        for (int b = 0; b < k; b++)
            fprintf(f, "%s{\"smid\":%d,\"median_ns\":%.0f,\"factor\":%.4f}", b ? "," : "", smid[b], sm_med[b],
                    sm_med[b] / all);
        fprintf(f, "]}");
        printf("reduce_per_sm %3dx%-3d %-9s: median %.0f ns, slowest SM x%.3f, fastest x%.3f\n", v->tile_m, v->head_dim,
               v->name, all, sorted[k - 1] / all, sorted[0] / all);
    }
    fprintf(f, "\n]}");
    int err = 0;
    GPU_CHECK(cudaMemcpy(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost));
    if (err)
        printf("reduce_per_sm: TIMEOUT waiting for a turn\n");
    free(out), free(smid), free(sm_med), free(sorted);
    cudaFree(d_dq), cudaFree(d_sem), cudaFree(d_turn), cudaFree(d_out), cudaFree(d_smid), cudaFree(d_err);
}

/* reduce_clock: one SM (block 0) reduces alone, `rounds` times 2 us apart after warm_ns, while blocks
 * 1..n_compute compute mma rounds of a 80x128 tile without pause (no memory traffic: only the SM clock
 * moves) and the rest sleep; block 0 then stops them. out[r*2]: cycles, globaltimer ns of reduction r;
 * span: globaltimer ns and clock64 cycles of block 0's loop. */
__global__ void __launch_bounds__(GPU_COMPUTE_THREADS, 1)
    prof_reduce_clock_kernel(float *dq, unsigned *sem, unsigned *stop, int tile, int op, int nthr, int n_compute,
                             int rounds, long long warm_ns, long long *out, long long *span, float *sink, int *err)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = (float *)smem;
    const int tid = threadIdx.x;
    __shared__ int is_stop;
    const long long t0 = gpu_globaltimer(), deadline = t0 + 2000000000LL;
    if (blockIdx.x == 0) {
        steady_stage(smem, tile);
        __syncthreads();
        if (tid == 0)
            while (gpu_globaltimer() < t0 + warm_ns) {
            }
        __syncthreads();
        const long long g0 = gpu_globaltimer(), k0 = clock64();
        for (int r = 0; r < rounds; r++) {
            const long long c0 = clock64(), gs = gpu_globaltimer();
            steady_reduce(stage, dq, sem, tile, op, nthr);
            if (tid == 0) {
                out[2 * r] = clock64() - c0;
                out[2 * r + 1] = gpu_globaltimer() - gs;
                const long long next = gpu_globaltimer() + 2000;
                while (gpu_globaltimer() < next) {
                }
            }
            __syncthreads();
        }
        if (tid == 0) {
            span[0] = gpu_globaltimer() - g0;
            span[1] = clock64() - k0;
            gpu_st_release(stop, 1u);
        }
        return;
    }
    for (;;) {
        if ((int)blockIdx.x <= n_compute) {
            float acc[5][2][4];
            gpu_tile_compute<5, 2>(acc, (int)blockIdx.x, 0, 0, 32, 0, 0);
            if (acc[0][0][0] == 1234.5f) /* never: keeps the compute */
                sink[blockIdx.x] = acc[4][1][3];
        } else if (tid == 0) {
            __nanosleep(1000);
        }
        if (tid == 0) {
            is_stop = gpu_ld_acquire(stop) != 0u;
            if (!is_stop && gpu_globaltimer() > deadline) {
                atomicExch(err, 1);
                is_stop = 1;
            }
        }
        __syncthreads();
        if (is_stop)
            break;
        __syncthreads();
    }
}

/* (c) reduce_clock: how a reduction alone depends on the SM clock, which the executor's compute on the
 * other SMs pulls down (power): per variant and number of computing SMs, the median time and the clock. */
void calib_reduce_clock(FILE *f, int sm_count)
{
    static const int n_compute[] = {0, 33, 66, 99, 131};
    const int nl = (int)(sizeof n_compute / sizeof n_compute[0]), rounds = 60, warm = 10;
    const long long warm_ns = 2000000;
    float *d_dq = (float *)calib_alloc(sizeof(float) * 128 * 128);
    unsigned *d_sem = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE);
    unsigned *d_stop = (unsigned *)calib_alloc(sizeof(unsigned) * LAT_LINE);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * 2 * rounds), *d_span = (long long *)calib_alloc(16);
    float *d_sink = (float *)calib_alloc(sizeof(float) * sm_count);
    int *d_err = (int *)calib_alloc(sizeof(int));
    long long out[2 * 60], span[2];
    double ns[60], cyc[60];
    GPU_CHECK(cudaFuncSetAttribute((const void *)prof_reduce_clock_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   GPU_SMEM_BYTES));
    fprintf(f, ",\n\"reduce_clock\":{\"method\":\"one SM reduces alone (its staged tile into one dQ tile, as "
               "reduce_steady), %d times 2 us apart after %lld us, while n_compute other SMs run mma rounds of a 80x128 "
               "tile without pause (no memory traffic: they move only the SM clock) and the rest sleep; first %d "
               "dropped; median_ns: globaltimer, median_cycles: clock64; measured_mhz: the reducer's clock64 per "
               "globaltimer us over its loop\",\"units\":\"ns\",\"rows\":[",
            rounds, warm_ns / 1000, warm);
    int row = 0;
    for (int vi = 0; vi < STEADY_VARIANTS; vi++)
        for (int li = 0; li < nl; li++) {
            const SteadyVariant *v = &steady_variants[vi];
            int tile = v->tile_m * v->head_dim, op = v->op, nthr = v->nthr, nc = n_compute[li] < sm_count ? n_compute[li] : sm_count - 1;
            int rr = rounds;
            long long wn = warm_ns;
            GPU_CHECK(cudaMemset(d_stop, 0, sizeof(unsigned) * LAT_LINE));
            void *args[] = {&d_dq, &d_sem, &d_stop, &tile, &op, &nthr, &nc, &rr, &wn, &d_out, &d_span, &d_sink, &d_err};
            GPU_CHECK(cudaLaunchCooperativeKernel((const void *)prof_reduce_clock_kernel, sm_count, GPU_COMPUTE_THREADS,
                                                  args, GPU_SMEM_BYTES, 0));
            gpu_check_launch("profile reduce-clock kernel", __FILE__, __LINE__);
            GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * 2 * rounds, cudaMemcpyDeviceToHost));
            GPU_CHECK(cudaMemcpy(span, d_span, sizeof span, cudaMemcpyDeviceToHost));
            for (int r = warm; r < rounds; r++)
                cyc[r - warm] = (double)out[2 * r], ns[r - warm] = (double)out[2 * r + 1];
            const double mhz = span[0] > 0 ? 1000.0 * (double)span[1] / (double)span[0] : 0;
            const double mc = calib_pct(cyc, rounds - warm, 0.5), mn = calib_pct(ns, rounds - warm, 0.5);
            const double p10 = calib_pct(ns, rounds - warm, 0.1), p90 = calib_pct(ns, rounds - warm, 0.9);
            fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"op\":\"%s\",\"threads\":%d,\"n_compute\":%d,\"median_ns\":%.0f,"
                       "\"p10_ns\":%.0f,\"p90_ns\":%.0f,\"median_cycles\":%.0f,\"measured_mhz\":%.0f}",
                    row++ ? "," : "", v->tile_m, v->head_dim, v->name, v->nthr, nc, mn, p10, p90, mc, mhz);
            printf("reduce_clock %3dx%-3d %-9s computing %3d: median %.0f ns (%.0f cycles) at %.0f MHz\n", v->tile_m,
                   v->head_dim, v->name, nc, mn, mc, mhz);
        }
    fprintf(f, "\n]}");
    int err = 0;
    GPU_CHECK(cudaMemcpy(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost));
    if (err)
        printf("reduce_clock: TIMEOUT\n");
    cudaFree(d_dq), cudaFree(d_sem), cudaFree(d_stop), cudaFree(d_out), cudaFree(d_span), cudaFree(d_sink);
    cudaFree(d_err);
}

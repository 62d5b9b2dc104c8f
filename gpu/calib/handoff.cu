/* gpu-calib --profile, sections handoff_load and handoff_stamped: the SM-to-SM hand-off (the executor's
 * release and acquire) while k other SMs bulk-reduce without pause, and the same hand-off as the executor
 * stamps it (r_end on one SM, r_start on the other, r_ready to r_start of a free rank). Invariant:
 * cooperative, one 32-thread CTA per SM; turns handed on through a global turn counter. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- The two hand-off kernels' common parts (prof_handoff_kernel, prof_handoff_stamped_kernel) ---- */
typedef struct {
    unsigned *ping, *pong, *stop, *done; /* turn p's flags, one line each */
} HandoffTurn;

/* Fills the block's staging tile in shared memory and records its SM; returns the tile. */
__device__ __forceinline__ float *handoff_prologue(unsigned char *smem, int tile, int *blk_smid)
{
    float *stage = (float *)smem;
    const int lane = threadIdx.x, me = blockIdx.x;
    for (int i = lane; i < tile; i += 32)
        stage[i] = (float)((i * 5 + me) % 89) * 0.001f;
    gpu_fence_proxy_smem();
    __syncwarp();
    if (lane == 0)
        blk_smid[me] = gpu_smid();
    return stage;
}

/* Turn p (a pings b): false when this block has no part in it (neither a, b nor one of the k loaders after
 * b in cyclic block order, skipping a); else waits until the turn is p and gives its flags. */
__device__ __forceinline__ bool handoff_enter_turn(int p, int a, int b, int k, unsigned *turn, unsigned *tflags,
                                                   long long deadline, int *err, HandoffTurn *t)
{
    const int me = blockIdx.x, G = gridDim.x;
    const int d = (me - b + G) % G, da = (a - b + G) % G, rank = d - 1 - (d > da ? 1 : 0);
    const bool is_loader = me != a && me != b && rank < k;
    if (!is_loader && me != a && me != b)
        return false;
    t->ping = tflags + (size_t)(4 * p) * LAT_LINE, t->pong = t->ping + LAT_LINE, t->stop = t->ping + 2 * LAT_LINE,
    t->done = t->ping + 3 * LAT_LINE;
    if (threadIdx.x == 0)
        for (unsigned n = 0; gpu_ld_acquire(turn) != (unsigned)p; n++) {
            __nanosleep(128); /* waiting blocks must not load L2 with polls */
            if ((n & 255u) == 0 && gpu_globaltimer() > deadline) {
                atomicExch(err, 1);
                break;
            }
        }
    __syncwarp();
    return true;
}

/* The pinger (lane 0) after its trips: the span since (g0, k0), then stop the loaders, wait for them all
 * and hand the next turn on. */
__device__ __forceinline__ void handoff_close_turn(const HandoffTurn *t, int p, int k, long long g0, long long k0,
                                                   long long *out_span, unsigned *turn, long long deadline, int *err)
{
    out_span[2 * p] = gpu_globaltimer() - g0;
    out_span[2 * p + 1] = clock64() - k0;
    gpu_st_release(t->stop, 1u);
    const int loaders = k < (int)gridDim.x - 2 ? k : (int)gridDim.x - 2;
    gpu_wait_equal(t->done, (unsigned)loaders, deadline, err);
    gpu_st_release(turn, (unsigned)p + 1u);
}

/* A loader: adds the staged tile into its own dQ tile (op, as the executor's store warp) without pause
 * until the pinger says stop; red_stat[0..1]: reductions done and their globaltimer ns. */
__device__ __forceinline__ void handoff_load(const HandoffTurn *t, int op, const float *stage, float *dst, int tile,
                                             unsigned *my_sem, long long deadline, long long *red_stat)
{
    const int lane = threadIdx.x;
    const long long g0 = gpu_globaltimer();
    long long n = 0;
    for (;;) {
        if (op == GPU_OP_BULK) {
            if (lane == 0) {
                gpu_reduce_bulk_issue(stage, dst, tile);
                gpu_bulk_wait_read();
                gpu_bulk_wait_done();
            }
        } else {
            gpu_reduce_vec(op, stage, dst, tile, lane, 32);
        }
        __syncwarp();
        unsigned is_stop = 0;
        if (lane == 0) {
            gpu_release_increment(my_sem);
            is_stop = gpu_ld_acquire(t->stop) || gpu_globaltimer() > deadline;
        }
        n++;
        if (__shfl_sync(0xffffffffu, is_stop, 0))
            break;
    }
    if (lane == 0) {
        red_stat[0] = n;
        red_stat[1] = gpu_globaltimer() - g0;
        atomicAdd(t->done, 1u);
    }
}

/* Hand-off under load (cooperative, one 32-thread CTA per SM). Turn p: block pairs[p].x pings block
 * pairs[p].y with the executor's release (fence.acq_rel + red.release.gpu.add) and acquire (ld.acquire
 * spin); the pong goes back the same way; meanwhile the k blocks that follow the ponger in cyclic block
 * order (skipping the pinger) add tiles into their own dQ tiles without pause (op, as the executor's
 * store warp); all other blocks idle. out_clk[p*trips+i]: cycles of round trip i on the pinger;
 * out_span[p*2]: globaltimer ns and cycles over the timed trips; red_stat[(p*G+blk)*2]: reductions done
 * by a loading block during the turn and their globaltimer ns. */
__global__ void __launch_bounds__(32, 1)
    prof_handoff_kernel(const int2 *pairs, int npairs, int k, int warm, int trips, int tile, int op, float *dq,
                        unsigned *flags, long long *out_clk, long long *out_span, long long *red_stat,
                        int *blk_smid, int *err)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const float *stage = handoff_prologue(smem, tile, blk_smid);
    const int lane = threadIdx.x, me = blockIdx.x, G = gridDim.x;
    unsigned *turn = flags, *my_sem = flags + (size_t)(1 + me) * LAT_LINE;
    unsigned *tflags = flags + (size_t)(1 + G) * LAT_LINE; /* per turn: ping, pong, stop, done */
    float *dst = dq + (size_t)me * tile;
    const long long deadline = gpu_globaltimer() + 3000000000LL;
    for (int p = 0; p < npairs; p++) {
        const int a = pairs[p].x, b = pairs[p].y;
        HandoffTurn t;
        if (!handoff_enter_turn(p, a, b, k, turn, tflags, deadline, err, &t))
            continue;
        if (me == a) {
            if (lane == 0) {
                const long long t_start = gpu_globaltimer() + 3000;
                while (gpu_globaltimer() < t_start) { /* let the loaders start */
                }
                long long g0 = 0, k0 = 0;
                for (int i = 0; i < warm + trips; i++) {
                    if (i == warm) {
                        g0 = gpu_globaltimer();
                        k0 = clock64();
                    }
                    const long long c0 = clock64();
                    gpu_release_increment(t.ping);
                    if (!gpu_wait_equal(t.pong, (unsigned)i + 1u, deadline, err))
                        break;
                    const long long c1 = clock64();
                    if (i >= warm)
                        out_clk[(size_t)p * trips + (i - warm)] = c1 - c0;
                }
                handoff_close_turn(&t, p, k, g0, k0, out_span, turn, deadline, err);
            }
        } else if (me == b) {
            if (lane == 0)
                for (int i = 0; i < warm + trips; i++) {
                    if (!gpu_wait_equal(t.ping, (unsigned)i + 1u, deadline, err))
                        break;
                    gpu_release_increment(t.pong);
                }
        } else {
            handoff_load(&t, op, stage, dst, tile, my_sem, deadline, red_stat + ((size_t)p * G + me) * 2);
        }
        __syncwarp();
    }
}

/* ---- handoff_stamped: the hand-off as the executor stamps it (cooperative, one 32-thread CTA per SM) ----
 * Turn p: block pairs[p].x (a) and pairs[p].y (b); per trip a waits a pseudo-random 256..767 ns (b is
 * spinning meanwhile, as a waiting store warp), then gpu_release_increment(ping) and %globaltimer (the
 * executor's r_end); b returns from gpu_wait_equal(ping) and reads %globaltimer (the executor's r_start),
 * then times one more gpu_wait_equal on the value already there between two %globaltimer reads (the
 * executor's r_ready -> r_start of a free rank) and answers with gpu_release_increment(pong); a waits for
 * the pong. out[(p*trips+i)*4 + 0..3]: r_end on a, r_start on b, then b's r_ready and r_start of the free
 * rank (globaltimer ns).
 * Meanwhile the k blocks after b in cyclic block order (skipping a) bulk-reduce tiles into their own dQ
 * tiles without pause, as prof_handoff_kernel's loaders. */
__global__ void __launch_bounds__(32, 1)
    prof_handoff_stamped_kernel(const int2 *pairs, int npairs, int k, int warm, int trips, int tile, float *dq,
                                unsigned *flags, long long *out, long long *out_span, long long *red_stat,
                                int *blk_smid, int *err)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const float *stage = handoff_prologue(smem, tile, blk_smid);
    const int lane = threadIdx.x, me = blockIdx.x, G = gridDim.x;
    unsigned *turn = flags, *my_sem = flags + (size_t)(1 + me) * LAT_LINE;
    unsigned *tflags = flags + (size_t)(1 + G) * LAT_LINE; /* per turn: ping, pong, stop, done */
    float *dst = dq + (size_t)me * tile;
    const long long deadline = gpu_globaltimer() + 3000000000LL;
    for (int p = 0; p < npairs; p++) {
        const int a = pairs[p].x, b = pairs[p].y;
        HandoffTurn t;
        if (!handoff_enter_turn(p, a, b, k, turn, tflags, deadline, err, &t))
            continue;
        if (me == a) {
            if (lane == 0) {
                const long long t_start = gpu_globaltimer() + 3000;
                while (gpu_globaltimer() < t_start) { /* let the loaders start */
                }
                long long g0 = 0, k0 = 0;
                unsigned x = 2654435761u * (unsigned)(p + 1);
                for (int i = 0; i < warm + trips; i++) {
                    if (i == warm) {
                        g0 = gpu_globaltimer();
                        k0 = clock64();
                    }
                    x = x * 1103515245u + 12345u;
                    const long long t_go = gpu_globaltimer() + 256 + (long long)((x >> 8) & 511u);
                    while (gpu_globaltimer() < t_go) {
                    }
                    gpu_release_increment(t.ping);
                    const long long r_end = gpu_globaltimer();
                    if (i >= warm)
                        out[((size_t)p * trips + (i - warm)) * 4] = r_end;
                    if (!gpu_wait_equal(t.pong, (unsigned)i + 1u, deadline, err))
                        break;
                }
                handoff_close_turn(&t, p, k, g0, k0, out_span, turn, deadline, err);
            }
        } else if (me == b) {
            if (lane == 0)
                for (int i = 0; i < warm + trips; i++) {
                    if (!gpu_wait_equal(t.ping, (unsigned)i + 1u, deadline, err))
                        break;
                    const long long r_start = gpu_globaltimer();
                    long long *o = out + ((size_t)p * trips + (i >= warm ? i - warm : 0)) * 4;
                    if (i >= warm)
                        o[1] = r_start;
                    const long long r_ready = gpu_globaltimer(); /* the executor's r_ready, r_start of a free rank */
                    if (i >= warm)
                        o[2] = r_ready;
                    gpu_wait_equal(t.ping, (unsigned)i + 1u, deadline, err);
                    const long long r_start2 = gpu_globaltimer();
                    if (i >= warm)
                        o[3] = r_start2;
                    gpu_release_increment(t.pong);
                }
        } else {
            handoff_load(&t, GPU_OP_BULK, stage, dst, tile, my_sem, deadline, red_stat + ((size_t)p * G + me) * 2);
        }
        __syncwarp();
    }
}

/* (c) hand-off latency while k other SMs reduce without pause. */
void calib_handoff(FILE *f, int sm_count)
{
    const int G = sm_count, npairs = 16, warm = 8, trips = 64;
    static const int ks[] = {0, 16, 32, 64, 128};
    const int nk = 5;
    typedef struct {
        const char *name;
        int op, tile_m, head_dim;
    } Load;
    static const Load loads[] = {{"bulk", GPU_OP_BULK, 80, 128}, {"ldst-warp", GPU_OP_LDST, 80, 128}};
    int2 pairs[16];
    unsigned x = 12345u;
    for (int p = 0; p < npairs; p++) {
        x = x * 1103515245u + 12345u;
        int a = (int)((x >> 8) % (unsigned)G);
        x = x * 1103515245u + 12345u;
        int b = (int)((x >> 8) % (unsigned)(G - 1));
        b += b >= a;
        pairs[p] = make_int2(a, b);
    }
    const size_t nflags = (size_t)(1 + G + 4 * npairs) * LAT_LINE;
    int2 *d_pairs = (int2 *)calib_alloc(sizeof pairs);
    GPU_CHECK(cudaMemcpy(d_pairs, pairs, sizeof pairs, cudaMemcpyHostToDevice));
    unsigned *d_flags = (unsigned *)calib_alloc(sizeof(unsigned) * nflags);
    float *d_dq = (float *)calib_alloc(sizeof(float) * 128 * 128 * G);
    long long *d_clk = (long long *)calib_alloc(sizeof(long long) * npairs * trips);
    long long *d_span = (long long *)calib_alloc(sizeof(long long) * npairs * 2);
    long long *d_red = (long long *)calib_alloc(sizeof(long long) * npairs * G * 2);
    int *d_smid = (int *)calib_alloc(sizeof(int) * G), *d_err = (int *)calib_alloc(sizeof(int));
    long long *clk = (long long *)malloc(sizeof(long long) * npairs * trips), span[32];
    long long *red = (long long *)malloc(sizeof(long long) * npairs * G * 2);
    int *smid = (int *)malloc(sizeof(int) * G);
    double *all = (double *)malloc(sizeof(double) * npairs * trips), per_pair[16], tmp[64], mhz[16];
    GPU_CHECK(cudaFuncSetAttribute((const void *)prof_handoff_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   GPU_SMEM_BYTES));
    fprintf(f, ",\n\"handoff_load\":{\"method\":\"cooperative launch of one 32-thread CTA per SM; %d SM pairs (a,b) in "
               "turn: a releases (fence.acq_rel.gpu + red.release.gpu.add, the executor's release), b spins "
               "ld.acquire.gpu until the count turns (the executor's wait) and answers the same way; one-way = round "
               "trip / 2, clock64 on a converted at a's clock64/globaltimer ratio over the timed trips; %d warm-up + "
               "%d timed trips per pair; meanwhile the k CTAs after b in cyclic block order (skipping a) add a "
               "load_tile_m x load_head_dim fp32 tile into their own dQ tile and release-increment a semaphore "
               "without pause (op bulk: one thread, cp.reduce.async.bulk; ldst-warp: 32 lanes float4 load+add+store "
               "through L2); others idle; the turn starts 3 us after the loaders; load_reduce_mean_ns = loaders' "
               "turn time / reductions done\",\"units\":\"ns\",\"pairs_blocks\":[",
            npairs, warm, trips);
    for (int p = 0; p < npairs; p++)
        fprintf(f, "%s[%d,%d]", p ? "," : "", pairs[p].x, pairs[p].y);
    fprintf(f, "],\"rows\":[");
    int row = 0;
    for (int li = 0; li < 2; li++)
        for (int ki = 0; ki < nk; ki++) {
            const Load *l = &loads[li];
            int k = ks[ki] < G - 2 ? ks[ki] : G - 2, np = npairs, w = warm, tr = trips, tile = l->tile_m * l->head_dim,
                op = l->op;
            GPU_CHECK(cudaMemset(d_flags, 0, sizeof(unsigned) * nflags));
            GPU_CHECK(cudaMemset(d_red, 0, sizeof(long long) * npairs * G * 2));
            void *args[] = {&d_pairs, &np, &k, &w, &tr, &tile, &op, &d_dq, &d_flags, &d_clk, &d_span, &d_red, &d_smid, &d_err};
            GPU_CHECK(cudaLaunchCooperativeKernel((const void *)prof_handoff_kernel, G, 32, args, GPU_SMEM_BYTES, 0));
            gpu_check_launch("profile hand-off kernel", __FILE__, __LINE__);
            GPU_CHECK(cudaMemcpy(clk, d_clk, sizeof(long long) * npairs * trips, cudaMemcpyDeviceToHost));
            GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * npairs * 2, cudaMemcpyDeviceToHost));
            GPU_CHECK(cudaMemcpy(red, d_red, sizeof(long long) * npairs * G * 2, cudaMemcpyDeviceToHost));
            GPU_CHECK(cudaMemcpy(smid, d_smid, sizeof(int) * G, cudaMemcpyDeviceToHost));
            int n = 0;
            long long rn = 0, rt = 0;
            for (int p = 0; p < npairs; p++) {
                const double nspc = (double)span[2 * p] / (double)span[2 * p + 1];
                mhz[p] = 1000.0 / nspc;
                for (int i = 0; i < trips; i++)
                    tmp[i] = all[n++] = (double)clk[(size_t)p * trips + i] * nspc / 2.0;
                per_pair[p] = calib_pct(tmp, trips, 0.5);
                for (int b = 0; b < G; b++)
                    rn += red[((size_t)p * G + b) * 2], rt += red[((size_t)p * G + b) * 2 + 1];
            }
            const double med = calib_pct(all, n, 0.5), p10 = calib_pct(all, n, 0.1), p90 = calib_pct(all, n, 0.9);
            const double rmean = rn ? (double)rt / (double)rn : 0, clock = calib_pct(mhz, npairs, 0.5);
            fprintf(f, "%s\n{\"load_op\":\"%s\",\"load_tile_m\":%d,\"load_head_dim\":%d,\"k\":%d,\"one_way_median_ns\":%.1f,"
                       "\"one_way_p10_ns\":%.1f,\"one_way_p90_ns\":%.1f,\"pairs_smids\":[",
                    row++ ? "," : "", l->name, l->tile_m, l->head_dim, k, med, p10, p90);
            for (int p = 0; p < npairs; p++)
                fprintf(f, "%s[%d,%d]", p ? "," : "", smid[pairs[p].x], smid[pairs[p].y]);
            fprintf(f, "],");
            calib_array_d(f, "per_pair_one_way_median_ns", per_pair, npairs, "%.0f");
            fprintf(f, ",\"load_reductions\":%lld,\"load_reduce_mean_ns\":%.1f,\"sm_clock_mhz\":%.0f}", rn, rmean, clock);
            printf("hand-off under load %-9s k %3d: one-way median %.0f (p10 %.0f, p90 %.0f) ns; loaders' reduction "
                   "%.0f ns\n",
                   l->name, k, med, p10, p90, rmean);
        }
    fprintf(f, "\n]}");
    int err = 0;
    GPU_CHECK(cudaMemcpy(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost));
    if (err)
        printf("hand-off: TIMEOUT\n");
    free(clk);
    free(red);
    free(smid);
    free(all);
    cudaFree(d_pairs);
    cudaFree(d_flags);
    cudaFree(d_dq);
    cudaFree(d_clk);
    cudaFree(d_span);
    cudaFree(d_red);
    cudaFree(d_smid);
    cudaFree(d_err);
}

/* (h) the hand-off as the executor stamps it (release -> %globaltimer on SM a, wait returns -> %globaltimer
 * on SM b), idle and with k SMs bulk-reducing; and the acquire of a free rank on an idle SM. */
void calib_handoff_stamped(FILE *f, int sm_count)
{
    const int G = sm_count, npairs = 16, warm = 8, trips = 64, tile_m = 80, head_dim = 128;
    static const int ks[] = {0, 16, 32, 64, 128};
    const int nk = 5;
    int2 pairs[16];
    unsigned x = 12345u; /* the same pairs as handoff_load */
    for (int p = 0; p < npairs; p++) {
        x = x * 1103515245u + 12345u;
        int a = (int)((x >> 8) % (unsigned)G);
        x = x * 1103515245u + 12345u;
        int b = (int)((x >> 8) % (unsigned)(G - 1));
        b += b >= a;
        pairs[p] = make_int2(a, b);
    }
    const size_t nflags = (size_t)(1 + G + 4 * npairs) * LAT_LINE, nout = (size_t)npairs * trips * 4;
    int2 *d_pairs = (int2 *)calib_alloc(sizeof pairs);
    GPU_CHECK(cudaMemcpy(d_pairs, pairs, sizeof pairs, cudaMemcpyHostToDevice));
    unsigned *d_flags = (unsigned *)calib_alloc(sizeof(unsigned) * nflags);
    float *d_dq = (float *)calib_alloc(sizeof(float) * tile_m * head_dim * G);
    long long *d_out = (long long *)calib_alloc(sizeof(long long) * nout);
    long long *d_span = (long long *)calib_alloc(sizeof(long long) * npairs * 2);
    long long *d_red = (long long *)calib_alloc(sizeof(long long) * npairs * G * 2);
    int *d_smid = (int *)calib_alloc(sizeof(int) * G), *d_err = (int *)calib_alloc(sizeof(int));
    long long *out = (long long *)malloc(sizeof(long long) * nout), span[32];
    long long *red = (long long *)malloc(sizeof(long long) * npairs * G * 2);
    double *hv = (double *)malloc(sizeof(double) * npairs * trips), *av = (double *)malloc(sizeof(double) * npairs * trips);
    double mhz[16];
    GPU_CHECK(cudaFuncSetAttribute((const void *)prof_handoff_stamped_kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, GPU_SMEM_BYTES));
    char *rows = NULL;
    size_t rows_len = 0;
    FILE *fr = open_memstream(&rows, &rows_len);
    double idle_med = 0, idle_mean = 0, idle_acq = 0, idle_acq_mean = 0;
    int any_err = 0;
    const int before = gpu_nvml_sm_clock_mhz();
    for (int ki = 0; ki < nk; ki++) {
        int k = ks[ki] < G - 2 ? ks[ki] : G - 2, np = npairs, w = warm, tr = trips, tile = tile_m * head_dim, err = 0;
        GPU_CHECK(cudaMemset(d_flags, 0, sizeof(unsigned) * nflags));
        GPU_CHECK(cudaMemset(d_red, 0, sizeof(long long) * npairs * G * 2));
        GPU_CHECK(cudaMemset(d_out, 0xFF, sizeof(long long) * nout));
        void *args[] = {&d_pairs, &np, &k, &w, &tr, &tile, &d_dq, &d_flags, &d_out, &d_span, &d_red, &d_smid, &d_err};
        GPU_CHECK(cudaLaunchCooperativeKernel((const void *)prof_handoff_stamped_kernel, G, 32, args, GPU_SMEM_BYTES, 0));
        gpu_check_launch("profile stamped hand-off kernel", __FILE__, __LINE__);
        GPU_CHECK(cudaMemcpy(out, d_out, sizeof(long long) * nout, cudaMemcpyDeviceToHost));
        GPU_CHECK(cudaMemcpy(span, d_span, sizeof(long long) * npairs * 2, cudaMemcpyDeviceToHost));
        GPU_CHECK(cudaMemcpy(red, d_red, sizeof(long long) * npairs * G * 2, cudaMemcpyDeviceToHost));
        GPU_CHECK(cudaMemcpy(&err, d_err, sizeof(int), cudaMemcpyDeviceToHost));
        int n = 0;
        long long rn = 0, rt = 0;
        double hsum = 0, asum = 0;
        for (int p = 0; p < npairs; p++) {
            mhz[p] = span[2 * p] > 0 ? (double)span[2 * p + 1] * 1000.0 / (double)span[2 * p] : 0;
            for (int i = 0; i < trips; i++) {
                const long long *o = out + ((size_t)p * trips + i) * 4;
                if (o[0] == -1 || o[1] == -1 || o[2] == -1 || o[3] == -1) {
                    err = 1;
                    continue;
                }
                hsum += hv[n] = (double)(o[1] - o[0]);
                asum += av[n] = (double)(o[3] - o[2]);
                n++;
            }
            for (int b = 0; b < G; b++)
                rn += red[((size_t)p * G + b) * 2], rt += red[((size_t)p * G + b) * 2 + 1];
        }
        any_err |= err;
        const double med = calib_pct(hv, n, 0.5), p10 = calib_pct(hv, n, 0.1), p90 = calib_pct(hv, n, 0.9);
        const double amed = calib_pct(av, n, 0.5), ap90 = calib_pct(av, n, 0.9);
        const double mean = n ? hsum / n : 0, amean = n ? asum / n : 0;
        const double rmean = rn ? (double)rt / (double)rn : 0, clock = calib_pct(mhz, npairs, 0.5);
        if (ki == 0)
            idle_med = med, idle_mean = mean, idle_acq = amed, idle_acq_mean = amean;
        fprintf(fr, "%s\n{\"k\":%d,\"load_op\":\"bulk\",\"load_tile_m\":%d,\"load_head_dim\":%d,\"median_ns\":%.1f,"
                    "\"p10_ns\":%.1f,\"p90_ns\":%.1f,\"mean_ns\":%.1f,\"samples\":%d,\"acquire_ready_median_ns\":%.1f,"
                    "\"acquire_ready_mean_ns\":%.1f,\"acquire_ready_p90_ns\":%.1f,\"load_reductions\":%lld,"
                    "\"load_reduce_mean_ns\":%.1f,\"sm_clock_mhz\":%.0f,\"timeout\":%s}",
                ki ? "," : "", k, tile_m, head_dim, med, p10, p90, mean, n, amed, amean, ap90, rn, rmean, clock,
                err ? "true" : "false");
        printf("stamped hand-off k %3d: median %.0f (p10 %.0f, p90 %.0f, mean %.1f) ns; free-rank acquire median %.0f "
               "(mean %.1f) ns; loaders' reduction %.0f ns%s\n",
               k, med, p10, p90, mean, amed, amean, rmean, err ? " TIMEOUT" : "");
    }
    fclose(fr);
    fprintf(f, ",\n\"handoff_stamped\":{\"method\":\"cooperative launch of one 32-thread CTA per SM; the %d SM pairs (a,b) "
               "of handoff_load in turn, %d warm-up + %d timed trips each: a spins a pseudo-random 256..767 ns (b spins "
               "ld.acquire.gpu meanwhile), then gpu_release_increment (fence.acq_rel.gpu + red.release.gpu.add) and "
               "reads %%globaltimer (the executor's r_end); b's gpu_wait_equal returns and b reads %%globaltimer (the "
               "executor's r_start of the next rank); hand-off = r_start on b - r_end on a (%%globaltimer, 32 ns "
               "steps), median/p10/p90/mean over trips x pairs; then b stamps r_ready, runs gpu_wait_equal on the value "
               "already there and stamps r_start (acquire_ready: the executor's r_start - r_ready of a free rank, b "
               "idle apart from this pair) and answers a the same way; meanwhile k CTAs after b in cyclic block order "
               "(skipping a) bulk-reduce a %dx%d fp32 tile into their own dQ tile and release-increment without pause; "
               "top-level median_ns / acquire_ready_median_ns (and _mean_ns) are the k = 0 row's\",\"units\":\"ns\","
               "\"median_ns\":%.1f,\"mean_ns\":%.1f,\"acquire_ready_median_ns\":%.1f,\"acquire_ready_mean_ns\":%.1f,"
               "\"nvml_before_mhz\":%d,\"nvml_after_mhz\":%d,\"timeout\":%s,\"rows\":[",
            npairs, warm, trips, tile_m, head_dim, idle_med, idle_mean, idle_acq, idle_acq_mean, before,
            gpu_nvml_sm_clock_mhz(), any_err ? "true" : "false");
    fwrite(rows, 1, rows_len, f);
    fprintf(f, "\n]}");
    free(rows);
    free(out);
    free(red);
    free(hv);
    free(av);
    cudaFree(d_pairs);
    cudaFree(d_flags);
    cudaFree(d_dq);
    cudaFree(d_out);
    cudaFree(d_span);
    cudaFree(d_red);
    cudaFree(d_smid);
    cudaFree(d_err);
}

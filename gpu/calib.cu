/* gpu-calib: measures what the simulator's cost model needs on this GPU (docs/gpu.md):
 * (1) the one-way signal latency between every ordered pair of SMs (release store / acquire spin through
 *     global memory, half the median round trip of a ping-pong while all other SMs idle),
 * (2) the cost of adding one dQ tile into global memory (float4 load+add+store, red.v4, TMA bulk reduce),
 *     alone and with every SM doing the same, and (3) the time of one mma round of the executor's compute.
 * --profile measures the predictor's raw hardware profile instead (see run_profile).
 * Invariant: one CTA per SM (200 KB of dynamic shared memory), matrices indexed by %smid, never blockIdx. */
#include "exec_loop.cuh"
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

/* =================================================================================================
 * --profile: the raw measurements of the predictor's hardware profile (docs/gpu.md, "Profile
 * calibration"): compute vs tile and rounds, staging, reduction vs reductions in flight, hand-off under
 * load, CTA launch costs and the SM clock. One JSON file, "dashsim-calib-profile-raw". No schedule runs.
 * ================================================================================================= */

#define PROF_THREADS (GPU_COMPUTE_THREADS + GPU_STORE_THREADS)
#define PROF_BAR_COMPUTE 1 /* named barrier of the 256 compute threads */
#define PROF_BAR_FULL 2    /* async: staged tile ready for the store warp */
#define PROF_BAR_EMPTY 3   /* async: the store warp has read the staging buffer */

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

/* ------------------------------------------------------------------ host ---- */

typedef struct {
    const char *out_dir;
    int trips, warm, is_skip_latency, is_profile;
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

/* ---------------------------------------------------------- profile host ---- */

typedef void (*ProfComputeKernel)(int, int, unsigned *, long long *, long long *, float *);
typedef void (*ProfAsyncKernel)(int, int, int, float *, unsigned *, long long *, long long *);

static ProfComputeKernel prof_compute_for(const Tile *t)
{
    if (t->tile_m == 64)
        return prof_compute_kernel<4, 2>;
    if (t->tile_m == 80)
        return prof_compute_kernel<5, 2>;
    return t->head_dim == 64 ? prof_compute_kernel<8, 1> : prof_compute_kernel<8, 2>;
}

static ProfAsyncKernel prof_async_for(const Tile *t)
{
    if (t->tile_m == 64)
        return prof_async_kernel<4, 2>;
    if (t->tile_m == 80)
        return prof_async_kernel<5, 2>;
    return t->head_dim == 64 ? prof_async_kernel<8, 1> : prof_async_kernel<8, 2>;
}

/* The q-quantile of v (sorted in place), nearest rank; 0 when n == 0. */
static double prof_pct(double *v, int n, double q)
{
    if (n <= 0)
        return 0;
    gpu_median_d(v, n); /* sorts */
    int i = (int)(q * (n - 1) + 0.5);
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static void prof_array_d(FILE *f, const char *key, const double *v, int n, const char *fmt)
{
    fprintf(f, "\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        fprintf(f, fmt, v[i]);
    }
    fputc(']', f);
}

typedef struct {
    const char *section;
    int before, after;
    double measured;
} ProfClock;

static void *prof_alloc(size_t bytes)
{
    void *p;
    GPU_CHECK(cudaMalloc(&p, bytes));
    GPU_CHECK(cudaMemset(p, 0, bytes));
    return p;
}

/* Least squares ns = fixed + per_iter * iters over n points; returns the largest relative residual. */
static double prof_fit(const int *x, const double *y, int n, double *fixed, double *slope)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        sx += x[i], sy += y[i], sxx += (double)x[i] * x[i], sxy += x[i] * y[i];
    *slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *fixed = (sy - *slope * sx) / n;
    double worst = 0;
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs(*fixed + *slope * x[i] - y[i]) / y[i]);
    return worst;
}

#define PROF_NI 9
static const int prof_iters[PROF_NI] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

/* (a) compute vs tile and rounds, one SM and all SMs, with and without a spinning store warp; the serial
 * staging of the same tasks comes along (d). */
static double prof_compute(FILE *f, int sm_count)
{
    const int ntasks = 8;
    unsigned *d_flag = (unsigned *)prof_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    long long *d_out = (long long *)prof_alloc(sizeof(long long) * 2 * ntasks * sm_count);
    long long *d_span = (long long *)prof_alloc(sizeof(long long) * 2 * sm_count);
    float *d_sink = (float *)prof_alloc(sizeof(float) * sm_count);
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
    for (int ti = 0; ti < N_TILES; ti++)
        for (int si = 0; si < 2; si++)
            for (int sw = 0; sw < 2; sw++) {
                const Tile *t = &tiles[ti];
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
                    med[ii] = prof_pct(c, n, 0.5);
                    p90[ii] = prof_pct(c, n, 0.9);
                    st[ii] = prof_pct(s, n, 0.5);
                    st90[ii] = prof_pct(s, n, 0.9);
                    first[ii] = prof_pct(c1, blocks, 0.5);
                    clk[ii] = prof_pct(mhz, blocks, 0.5);
                }
                double fixed, slope, worst = prof_fit(prof_iters, med, PROF_NI, &fixed, &slope);
                if (si && !sw)
                    clock_all = clk[PROF_NI - 1];
                fprintf(f, "%s\n{\"tile_m\":%d,\"head_dim\":%d,\"sms\":%d,\"store_warp\":\"%s\",\"threads\":%d,"
                           "\"fixed_ns\":%.1f,\"per_iter_ns\":%.3f,\"fit_max_rel_err\":%.4f,",
                        row++ ? "," : "", t->tile_m, t->head_dim, blocks, sw ? "spinning" : "none", threads, fixed,
                        slope, worst);
                fprintf(f, "\"iters\":[1,2,4,8,16,32,64,128,256],");
                prof_array_d(f, "median_ns", med, PROF_NI, "%.1f");
                fputc(',', f);
                prof_array_d(f, "p90_ns", p90, PROF_NI, "%.1f");
                fputc(',', f);
                prof_array_d(f, "first_task_median_ns", first, PROF_NI, "%.1f");
                fputc(',', f);
                prof_array_d(f, "stage_serial_median_ns", st, PROF_NI, "%.1f");
                fputc(',', f);
                prof_array_d(f, "stage_serial_p90_ns", st90, PROF_NI, "%.1f");
                fputc(',', f);
                prof_array_d(f, "sm_clock_mhz", clk, PROF_NI, "%.0f");
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

/* (d) async staging: the executor's compute-warp / store-warp hand-off, 1 SM and all SMs. */
static void prof_async_staging(FILE *f, int sm_count)
{
    const int ntasks = 16, drop = 2;
    /* the joint load curve: k SMs each computing and reducing at once, for both store-warp methods and
     * several compute lengths (iters 1: the store warp is the bottleneck; 32: the reduction hides) */
    static const int iters[] = {1, 4, 16, 32}, sms_want[] = {1, 16, 33, 66, 99, 132};
    static const struct { const char *name; int op, threads; } ops[] = {{"bulk", GPU_OP_BULK, 1}, {"ldst", GPU_OP_LDST, 32}};
    const int n_iters = (int)(sizeof iters / sizeof iters[0]), n_sms = (int)(sizeof sms_want / sizeof sms_want[0]);
    float *d_dq = (float *)prof_alloc(sizeof(float) * 128 * 128 * sm_count);
    unsigned *d_sem = (unsigned *)prof_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    long long *d_out = (long long *)prof_alloc(sizeof(long long) * 5 * ntasks * sm_count);
    long long *d_span = (long long *)prof_alloc(sizeof(long long) * 2 * sm_count);
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
    for (int ti = 0; ti < N_TILES; ti++)
        for (int oi = 0; oi < 2; oi++)
            for (int si = 0; si < n_sms; si++)
                for (int ii = 0; ii < n_iters; ii++) {
                    const Tile *t = &tiles[ti];
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
                        med[j] = prof_pct(v[j], n, 0.5);
                        fprintf(f, ",\"%s_median_ns\":%.1f,\"%s_p90_ns\":%.1f", names[j], med[j], names[j],
                                prof_pct(v[j], n, 0.9));
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

/* (b) one tile reduction with k reductions started together on k SMs, into the CTA's own dQ tile every
 * round (section reduce_inflight, shift 0), or into the tile another SM added into the round before
 * (section reduce_migratory, shift 1: the executor's case, a row's previous rank on another SM). */
static void prof_reduce_inflight(FILE *f, int sm_count, const char *section, int shift)
{
    static const int ks[] = {1, 2, 4, 8, 16, 32, 64, 96, 132};
    const int nk = (int)(sizeof ks / sizeof ks[0]), rounds = 12, warm = 2;
    float *d_dq = (float *)prof_alloc(sizeof(float) * 128 * 128 * sm_count);
    unsigned *d_sem = (unsigned *)prof_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    unsigned *d_arrive = (unsigned *)prof_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    unsigned long long *d_go = (unsigned long long *)prof_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    long long *d_out = (long long *)prof_alloc(sizeof(long long) * 3 * rounds * sm_count);
    long long *d_span = (long long *)prof_alloc(sizeof(long long) * 2 * sm_count);
    int *d_err = (int *)prof_alloc(sizeof(int));
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
    for (int ti = 0; ti < N_TILES; ti++)
        for (int vi = 0; vi < N_VARIANTS; vi++)
            for (int ki = 0; ki < nk; ki++) {
                const Tile *t = &tiles[ti];
                const Variant *v = &variants[vi];
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
                const double med = prof_pct(ns, n, 0.5), p90 = prof_pct(ns, n, 0.9), mx = ns[n - 1];
                const double dmed = prof_pct(done, rounds - warm, 0.5), smed = prof_pct(skew, rounds - warm, 0.5);
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
static void prof_reduce_staggered(FILE *f, int sm_count)
{
    static const int staggers[] = {0, 250, 500, 1000, 1500, 2500, 4000};
    static const struct { int tile_m, head_dim; } tl[] = {{80, 128}, {128, 64}};
    const int rounds = 12, warm = 2, k = sm_count, ns_count = (int)(sizeof staggers / sizeof staggers[0]);
    float *d_dq = (float *)prof_alloc(sizeof(float) * 128 * 128 * sm_count);
    unsigned *d_sem = (unsigned *)prof_alloc(sizeof(unsigned) * LAT_LINE * sm_count);
    unsigned *d_arrive = (unsigned *)prof_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    unsigned long long *d_go = (unsigned long long *)prof_alloc(sizeof(unsigned) * LAT_LINE * rounds);
    long long *d_out = (long long *)prof_alloc(sizeof(long long) * 3 * rounds * sm_count);
    long long *d_span = (long long *)prof_alloc(sizeof(long long) * 2 * sm_count);
    int *d_err = (int *)prof_alloc(sizeof(int));
    long long *out = (long long *)malloc(sizeof(long long) * 3 * rounds * sm_count);
    long long *span = (long long *)malloc(sizeof(long long) * 2 * sm_count);
    double *early = (double *)malloc(sizeof(double) * rounds * sm_count), *late = (double *)malloc(sizeof(double) * rounds * sm_count);
    fprintf(f, ",\n\"reduce_staggered\":{\"method\":\"reduce_inflight on every SM (k = all), own tiles, but the odd "
               "blocks start stagger_ns after the even ones; medians of the reduction time (clock64 at the CTA's "
               "clock64/globaltimer ratio) over rounds x blocks, early = even blocks, late = odd; %d rounds, the "
               "first %d dropped\",\"units\":\"ns\",\"rows\":[", rounds, warm);
    int row = 0;
    for (int ti = 0; ti < 2; ti++)
        for (int vi = 0; vi < N_VARIANTS; vi++) {
            const Variant *v = &variants[vi];
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
                const double me = prof_pct(early, ne, 0.5), ml = prof_pct(late, nl, 0.5);
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

/* (c) hand-off latency while k other SMs reduce without pause. */
static void prof_handoff(FILE *f, int sm_count)
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
    int2 *d_pairs = (int2 *)prof_alloc(sizeof pairs);
    GPU_CHECK(cudaMemcpy(d_pairs, pairs, sizeof pairs, cudaMemcpyHostToDevice));
    unsigned *d_flags = (unsigned *)prof_alloc(sizeof(unsigned) * nflags);
    float *d_dq = (float *)prof_alloc(sizeof(float) * 128 * 128 * G);
    long long *d_clk = (long long *)prof_alloc(sizeof(long long) * npairs * trips);
    long long *d_span = (long long *)prof_alloc(sizeof(long long) * npairs * 2);
    long long *d_red = (long long *)prof_alloc(sizeof(long long) * npairs * G * 2);
    int *d_smid = (int *)prof_alloc(sizeof(int) * G), *d_err = (int *)prof_alloc(sizeof(int));
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
                per_pair[p] = prof_pct(tmp, trips, 0.5);
                for (int b = 0; b < G; b++)
                    rn += red[((size_t)p * G + b) * 2], rt += red[((size_t)p * G + b) * 2 + 1];
            }
            const double med = prof_pct(all, n, 0.5), p10 = prof_pct(all, n, 0.1), p90 = prof_pct(all, n, 0.9);
            const double rmean = rn ? (double)rt / (double)rn : 0, clock = prof_pct(mhz, npairs, 0.5);
            fprintf(f, "%s\n{\"load_op\":\"%s\",\"load_tile_m\":%d,\"load_head_dim\":%d,\"k\":%d,\"one_way_median_ns\":%.1f,"
                       "\"one_way_p10_ns\":%.1f,\"one_way_p90_ns\":%.1f,\"pairs_smids\":[",
                    row++ ? "," : "", l->name, l->tile_m, l->head_dim, k, med, p10, p90);
            for (int p = 0; p < npairs; p++)
                fprintf(f, "%s[%d,%d]", p ? "," : "", smid[pairs[p].x], smid[pairs[p].y]);
            fprintf(f, "],");
            prof_array_d(f, "per_pair_one_way_median_ns", per_pair, npairs, "%.0f");
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

static void prof_stats(FILE *f, const char *key, double *v, int n)
{
    gpu_median_d(v, n); /* sorts v: min and max below are read after it (argument order is unspecified) */
    fprintf(f, "\"%s\":{\"median\":%.1f,\"p10\":%.1f,\"p90\":%.1f,\"min\":%.1f,\"max\":%.1f,\"samples\":%d}", key,
            prof_pct(v, n, 0.5), prof_pct(v, n, 0.1), prof_pct(v, n, 0.9), n ? v[0] : 0, n ? v[n - 1] : 0, n);
}

/* (e) launch costs: queued kernel -> first CTA, event-timed overhead, prologue vs task-list size, gap
 * between consecutive CTAs on one SM. */
static double prof_launch(FILE *f, int sm_count)
{
    const int G = sm_count, waves = 4, maxb = waves * G;
    int4 *d_tasks = (int4 *)prof_alloc(sizeof(int4) * 512);
    long long *d_out = (long long *)prof_alloc(sizeof(long long) * 6 * maxb), *d_stamp = (long long *)prof_alloc(64);
    int *d_sink = (int *)prof_alloc(sizeof(int) * maxb);
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
            prof_stats(f, "kernel_to_first_cta_ns", v, n);
            fputc(',', f);
            prof_stats(f, "first_wave_spread_ns", w, n);
            fputc('}', f);
            printf("launch: grid %3d x %d threads: queued kernel -> first CTA median %.0f ns, first-wave spread %.0f ns\n",
                   g, thr[th], prof_pct(v, n, 0.5), prof_pct(w, n, 0.5));
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
    const double mhz = prof_pct(w, nm, 0.5);
    fprintf(f, ",");
    prof_stats(f, "event_overhead_ns", v, n);
    fprintf(f, ",\"sm_clock_mhz\":%.0f", mhz);
    printf("launch: event time - device span median %.0f ns; clock %.0f MHz\n", prof_pct(v, n, 0.5), mhz);
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
        prof_stats(f, "prologue_ns", v, n);
        fputc('}', f);
        printf("launch: prologue with %3d tasks: median %.0f ns\n", ntasks[ti], prof_pct(v, n, 0.5));
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
            prof_stats(f, "cta_gap_ns", v, n);
            fputc('}', f);
            printf("launch: CTA gap on one SM (%d threads, work %lld ns): median %.0f ns (p10 %.0f, p90 %.0f; %d gaps)\n",
                   thr[th], works[wi], prof_pct(v, n, 0.5), prof_pct(v, n, 0.1), prof_pct(v, n, 0.9), n);
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
    const double med = prof_pct(v, n, 0.5);
    fprintf(f, ",\"%s_ns\":%.1f,\"%s_mean_ns\":%.1f,\"%s_p90_ns\":%.1f", name, med, name, n ? sum / n : 0.0, name,
            prof_pct(v, n, 0.9));
    return med;
}

static void prof_task_loop(FILE *f, int sm_count)
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
    a.tasks = (const int4 *)prof_alloc(sizeof(int4) * n);
    a.block_begin = (const int *)prof_alloc(sizeof(int) * (G + 1));
    GPU_CHECK(cudaMemcpy((void *)a.tasks, tasks, sizeof(int4) * n, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemcpy((void *)a.block_begin, bb, sizeof(int) * (G + 1), cudaMemcpyHostToDevice));
    a.dq = (float *)prof_alloc(sizeof(float) * dq_floats);
    a.sem = (unsigned *)prof_alloc(sizeof(unsigned) * sems);
    a.rec = (long long *)prof_alloc(sizeof(long long) * REC_FIELDS * n);
    a.blk = (long long *)prof_alloc(sizeof(long long) * BLK_FIELDS * G);
    a.err = (int *)prof_alloc(sizeof(int));
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
    for (int ti = 0; ti < N_TILES; ti++)
        for (int mi = 0; mi < 3; mi++)
            for (int ii = 0; ii < 3; ii++) {
                const Tile *t = &tiles[ti];
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
                const double clock = prof_pct(mhz, nm, 0.5);
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

/* (h) the hand-off as the executor stamps it (release -> %globaltimer on SM a, wait returns -> %globaltimer
 * on SM b), idle and with k SMs bulk-reducing; and the acquire of a free rank on an idle SM. */
static void prof_handoff_stamped(FILE *f, int sm_count)
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
    int2 *d_pairs = (int2 *)prof_alloc(sizeof pairs);
    GPU_CHECK(cudaMemcpy(d_pairs, pairs, sizeof pairs, cudaMemcpyHostToDevice));
    unsigned *d_flags = (unsigned *)prof_alloc(sizeof(unsigned) * nflags);
    float *d_dq = (float *)prof_alloc(sizeof(float) * tile_m * head_dim * G);
    long long *d_out = (long long *)prof_alloc(sizeof(long long) * nout);
    long long *d_span = (long long *)prof_alloc(sizeof(long long) * npairs * 2);
    long long *d_red = (long long *)prof_alloc(sizeof(long long) * npairs * G * 2);
    int *d_smid = (int *)prof_alloc(sizeof(int) * G), *d_err = (int *)prof_alloc(sizeof(int));
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
        const double med = prof_pct(hv, n, 0.5), p10 = prof_pct(hv, n, 0.1), p90 = prof_pct(hv, n, 0.9);
        const double amed = prof_pct(av, n, 0.5), ap90 = prof_pct(av, n, 0.9);
        const double mean = n ? hsum / n : 0, amean = n ? asum / n : 0;
        const double rmean = rn ? (double)rt / (double)rn : 0, clock = prof_pct(mhz, npairs, 0.5);
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

/* Runs every profile measurement and writes DIR/calib-profile-raw.json. */
static void run_profile(const Options *o, int sm_count, GpuMeta *meta)
{
    char *body = NULL;
    size_t body_len = 0;
    FILE *f = open_memstream(&body, &body_len);
    ProfClock clocks[5] = {{"compute", 0, 0, 0}, {"staging", 0, 0, 0}, {"reduce_inflight", 0, 0, 0},
                           {"handoff_load", 0, 0, 0}, {"launch", 0, 0, 0}};
    for (int s = 0; s < 5; s++) {
        clocks[s].before = gpu_nvml_sm_clock_mhz();
        switch (s) {
        case 0: clocks[s].measured = prof_compute(f, sm_count); break;
        case 1: prof_async_staging(f, sm_count); break;
        case 2:
            prof_reduce_inflight(f, sm_count, "reduce_inflight", 0);
            prof_reduce_inflight(f, sm_count, "reduce_migratory", 1);
            prof_reduce_staggered(f, sm_count);
            break;
        case 3: prof_handoff(f, sm_count); break;
        default: clocks[s].measured = prof_launch(f, sm_count); break;
        }
        clocks[s].after = gpu_nvml_sm_clock_mhz();
        fflush(stdout);
    }
    /* the executor's own per-task costs, after the sections above (their clocks carry in the sections) */
    prof_task_loop(f, sm_count);
    fflush(stdout);
    prof_handoff_stamped(f, sm_count);
    fflush(stdout);
    fprintf(f, ",\n\"clock\":{\"method\":\"NVML SM clock just before and after each section (-1: NVML missing); "
               "measured: clock64 cycles per globaltimer us, median over CTAs (compute: all SMs, 256 rounds; launch: "
               "5 us CTAs); every row of compute and handoff_load carries its own sm_clock_mhz\",\"units\":\"MHz\","
               "\"sections\":[");
    for (int s = 0; s < 5; s++)
        if (clocks[s].measured > 0)
            fprintf(f, "%s{\"section\":\"%s\",\"nvml_before_mhz\":%d,\"nvml_after_mhz\":%d,\"measured_mhz\":%.0f}",
                    s ? "," : "", clocks[s].section, clocks[s].before, clocks[s].after, clocks[s].measured);
        else
            fprintf(f, "%s{\"section\":\"%s\",\"nvml_before_mhz\":%d,\"nvml_after_mhz\":%d,\"measured_mhz\":null}",
                    s ? "," : "", clocks[s].section, clocks[s].before, clocks[s].after);
    fprintf(f, "]}}\n");
    fclose(f);
    GpuMeta m = *meta;
    if (gpu_nvml_sm_clock_mhz() >= 0)
        gpu_meta_raw(&m, "sm_clock_mhz_after", "%d", gpu_nvml_sm_clock_mhz());
    gpu_meta_str(&m, "method", "raw measurements for the predictor's hardware profile from calibration kernels only "
                               "(no schedule traces); each section carries its own method text; all times in ns");
    gpu_meta_str(&m, "tool", "gpu-calib --profile");
    char path[1024];
    FILE *out = open_out(o->out_dir, "calib-profile-raw.json", path, sizeof path);
    fprintf(out, "{\"format\":\"dashsim-calib-profile-raw\",\"version\":1,\n\"metadata\":");
    gpu_meta_write(out, &m);
    fwrite(body, 1, body_len, out);
    fclose(out);
    free(body);
    printf("profile: wrote %s\n", path);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu-calib [--out-dir DIR] [--round-trips N] [--warmup N] [--skip-latency] [--profile]\n"
               "                 [--meta K=V]...\n"
               "Writes DIR/calib-latency.json (SM-to-SM signal latency), DIR/calib-reduce.json (dQ tile reduction\n"
               "and mma compute costs) and DIR/calib-iters.txt (compute iterations for c/r = 1, 3, 8).\n"
               "--profile instead writes DIR/calib-profile-raw.json: compute vs tile and rounds, staging, reduction\n"
               "vs reductions in flight, hand-off under load, CTA launch costs, clocks, the executor's own task loop\n"
               "with every rank free (task_loop) and the hand-off as the executor stamps it (handoff_stamped) (docs/gpu.md).\n");
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
        } else if (!strcmp(s, "--profile")) {
            o.is_profile = 1;
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
    if (o.is_profile) {
        if (!coop) {
            fprintf(stderr, "gpu-calib: the device cannot launch cooperative kernels\n");
            return 1;
        }
        run_profile(&o, sm_count, &meta);
        return 0;
    }
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

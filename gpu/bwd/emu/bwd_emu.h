/* Host emulation of the warp-level and asynchronous primitives of gpu/bwd/bwd_common.cuh, so that
 * the kernel's own source runs on the CPU (one OS thread per GPU thread, docs/kernel.md "CPU emulation").
 * ldmatrix and mma.sync are emulated lane by lane from PTX's fragment layouts through a per-warp exchange
 * buffer; named barriers keep bar.sync/bar.arrive semantics (a generation completes at `count` arrivals);
 * cp.async copies at once; the bulk reduce adds element by element (atomically, as the L2 does).
 * Included only with BWD_EMULATE, by a host compiler. */
#ifndef GPU_BWD_EMU_H
#define GPU_BWD_EMU_H

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif

/* A barrier generation completes at `count` arrivals. The generation and the arrivals so far share one word
 * (generation << 32 | arrivals), so an arrival belongs to exactly the generation its update saw. Waiters sleep
 * on a futex (wakes, bumped at each completion), with no mutex to take again on waking and no spinning: with a
 * mutex and a condition variable, the woken threads' fight for the mutex was most of the emulator's system
 * time, and with std::atomic::wait its spinning yields were. */
struct EmuBarrier {
    std::atomic<uint64_t> word{0};
    std::atomic<uint32_t> wakes{0};
    /* Arrives; returns the generation the arrival belongs to, completing it at the count-th arrival. */
    uint64_t arrive_in(int count)
    {
        uint64_t w = word.load(), next;
        do {
            const uint64_t gen = w >> 32, arrivals = (w & 0xFFFFFFFFu) + 1;
            next = arrivals == (uint64_t)count ? (gen + 1) << 32 : gen << 32 | arrivals;
        } while (!word.compare_exchange_weak(w, next));
        if ((next & 0xFFFFFFFFu) == 0) {
            wakes.fetch_add(1);
            syscall(SYS_futex, &wakes, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
        }
        return w >> 32;
    }
    void sync(int count)
    {
        const uint64_t gen = arrive_in(count);
        for (;;) { /* a wake between the two loads changes wakes, and the futex then returns at once */
            const uint32_t seen = wakes.load();
            if (word.load() >> 32 != gen)
                return;
            syscall(SYS_futex, &wakes, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
        }
    }
    void arrive(int count)
    {
        arrive_in(count);
    }
};

struct EmuWarp {
    EmuBarrier bar;
    const void *ptr[32];
    uint32_t a[32][4], b[32][2];
    float f[2][32]; /* __shfl_xor_sync's exchange, the two halves in turn */
};

/* One wgmma in flight (gpu/bwd/emu/wg_emu.h): where its operands are, and its result from the operands as they
 * were at issue (written to the accumulators at the wait_group that completes it). */
struct EmuWgmmaOp {
    int n, ta, tb, is_acc, group;
    uint64_t da, db;
    float *acc[128];           /* each thread's accumulator array */
    const uint32_t *a_reg[128]; /* each thread's A registers (NULL: A from shared memory through da) */
    std::vector<float> out;    /* [64][n] */
};

/* One warpgroup's exchange for the emulated wgmma: each thread's accumulators and A registers, gathered
 * behind the group's barrier, and the wgmma issued and not yet waited for (kept by its first thread). */
struct EmuWarpgroup {
    EmuBarrier bar;
    float *acc[128];
    uint32_t a[128][4];
    const uint32_t *a_reg[128];
    std::vector<EmuWgmmaOp> pending;
    int commits = 0;
};

struct EmuCta {
    EmuBarrier named[16];
    EmuWarp warp[16];
    EmuWarpgroup wg[4];
    unsigned char *smem;
    int smid;
};

struct EmuIdx {
    unsigned x, y, z;
};

extern thread_local EmuIdx emu_tid, emu_bid, emu_bdim;
extern thread_local EmuCta *emu_cta;
extern thread_local std::mt19937 *emu_rng;
extern thread_local unsigned emu_shfl_count; /* the calling thread's __shfl_xor_sync calls so far */
extern int emu_jitter_us; /* > 0: random sleeps before semaphore waits and bulk adds */
extern int emu_inject_inflight_write; /* 1: a test of the emulation itself (wg_emu.h): writes to wgmma in flight */

#define threadIdx emu_tid
#define blockIdx emu_bid
#define blockDim emu_bdim
#define BWD_SMEM_BASE(name) unsigned char *name = emu_cta->smem

static inline EmuWarp &emu_warp(void)
{
    return emu_cta->warp[emu_tid.x >> 5];
}

static inline void emu_jitter(void)
{
    if (emu_jitter_us > 0)
        std::this_thread::sleep_for(std::chrono::microseconds((*emu_rng)() % (unsigned)emu_jitter_us));
}

static inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    (void)mask;
    emu_warp().bar.sync(32);
}

/* One barrier per shuffle: the values go to the half of the exchange the last shuffle did not use, and a lane
 * writes a half again only after the next shuffle's barrier, which every lane reaches after reading it (the
 * 32 lanes of a full mask make the same calls, so their counts agree). */
static inline float __shfl_xor_sync(unsigned mask, float v, int off)
{
    (void)mask;
    EmuWarp &w = emu_warp();
    const int lane = emu_tid.x & 31;
    float *f = w.f[emu_shfl_count++ & 1];
    f[lane] = v;
    w.bar.sync(32);
    return f[lane ^ off];
}

static inline int atomicCAS(int *p, int expect, int desired)
{
    std::atomic_ref<int>(*p).compare_exchange_strong(expect, desired);
    return expect;
}

static inline int atomicExch(int *p, int v)
{
    return std::atomic_ref<int>(*p).exchange(v);
}

static inline long long gpu_globaltimer(void)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static inline long long clock64(void) /* emulation: ns stand in for cycles */
{
    return gpu_globaltimer();
}

static inline int gpu_smid(void)
{
    return emu_cta->smid;
}

/* A poll of a semaphore or an mbarrier sleeps 20 us first: with hundreds of emulated threads on a few cores, a
 * yield per poll made the scheduler's context switches most of the emulator's CPU time (docs/performance.md,
 * set-up times; the same bits: the runs' order of events is jittered anyway). */
static inline void emu_poll_pause(void)
{
    std::this_thread::sleep_for(std::chrono::microseconds(20));
}

static inline unsigned gpu_ld_acquire(const unsigned *p)
{
    emu_poll_pause();
    return std::atomic_ref<unsigned>(*const_cast<unsigned *>(p)).load(std::memory_order_acquire);
}

static inline void gpu_release_increment(unsigned *p)
{
    std::atomic_ref<unsigned>(*p).fetch_add(1u, std::memory_order_release);
}

static inline void gpu_bar_sync(int id, int count)
{
    emu_cta->named[id].sync(count);
}

static inline void gpu_bar_arrive(int id, int count)
{
    emu_cta->named[id].arrive(count);
}

static inline void gpu_fence_proxy_smem(void)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

static inline void gpu_reduce_bulk_issue(const float *stage, float *gdst, int n_floats)
{
    emu_jitter();
    for (int i = 0; i < n_floats; i++)
        std::atomic_ref<float>(gdst[i]).fetch_add(stage[i], std::memory_order_relaxed);
}

static inline void gpu_bulk_wait_read(void)
{
}

static inline void gpu_bulk_wait_done(void)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

static inline void bwd_bulk_wait_all(void)
{
}

static inline void bwd_setmaxnreg_compute(void)
{
}

static inline void bwd_setmaxnreg_producer(void)
{
}

static inline uint32_t emu_bf16_at(const void *row, int col)
{
    return ((const uint16_t *)row)[col];
}

/* ldmatrix.x4 (.trans): lanes 8j..8j+7 give the rows of matrix j; lane (g = lane/4, t = lane%4) receives
 * elements (g, 2t), (g, 2t+1) of matrix j in register j, or of its transpose with .trans. */
static inline void emu_ldsm(uint32_t (&r)[4], const void *p, bool is_trans)
{
    EmuWarp &w = emu_warp();
    const int lane = emu_tid.x & 31, g = lane >> 2, t = lane & 3;
    w.ptr[lane] = p;
    w.bar.sync(32);
    for (int j = 0; j < 4; j++) {
        uint32_t lo, hi;
        if (!is_trans) {
            lo = emu_bf16_at(w.ptr[8 * j + g], 2 * t);
            hi = emu_bf16_at(w.ptr[8 * j + g], 2 * t + 1);
        } else {
            lo = emu_bf16_at(w.ptr[8 * j + 2 * t], g);
            hi = emu_bf16_at(w.ptr[8 * j + 2 * t + 1], g);
        }
        r[j] = lo | (hi << 16);
    }
    w.bar.sync(32);
}

static inline void bwd_ldsm_x4(uint32_t (&r)[4], const __nv_bfloat16 *p)
{
    emu_ldsm(r, p, false);
}

static inline void bwd_ldsm_x4_t(uint32_t (&r)[4], const __nv_bfloat16 *p)
{
    emu_ldsm(r, p, true);
}

static inline float emu_bf16_half(uint32_t reg, int half)
{
    const uint32_t bits = half ? (reg & 0xFFFF0000u) : (reg << 16);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* mma.sync.m16n8k16 row.col bf16 -> fp32: A (16x16) in a0..a3 = (g, 2t..), (g+8, 2t..), (g, 2t+8..),
 * (g+8, 2t+8..); B (16x8) in b0 = (k 2t.., n g), b1 = (k 2t+8.., n g); C/D: (g, 2t..), (g+8, 2t..). */
static inline void bwd_mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    EmuWarp &w = emu_warp();
    const int lane = emu_tid.x & 31, g = lane >> 2, t = lane & 3;
    memcpy(w.a[lane], a, sizeof a);
    w.b[lane][0] = b0;
    w.b[lane][1] = b1;
    w.bar.sync(32);
    for (int i = 0; i < 4; i++) {
        const int row = g + (i >> 1) * 8, col = 2 * t + (i & 1);
        float acc = c[i];
        for (int k = 0; k < 16; k++) {
            const int kl = (k & 7) >> 1;
            const float x = emu_bf16_half(w.a[(row & 7) * 4 + kl][(row >> 3) + 2 * (k >> 3)], k & 1);
            const float y = emu_bf16_half(w.b[col * 4 + kl][k >> 3], k & 1);
            acc += x * y;
        }
        c[i] = acc;
    }
    w.bar.sync(32);
}

static inline float bwd_exp2(float x)
{
    return exp2f(x);
}

static inline void bwd_cp_async16(void *smem, const void *gmem)
{
    memcpy(smem, gmem, 16);
}

static inline void bwd_cp_commit(void)
{
}

static inline void bwd_cp_wait_all(void)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

#endif

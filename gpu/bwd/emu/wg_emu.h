/* Host emulation of the Hopper primitives of gpu/bwd/wg/wg_ops.cuh, so that the wgmma kernel's own source
 * runs on the CPU (docs/kernel.md, "CPU emulation"). mbarriers are one 64-bit word in the emulated shared
 * memory (phase bit, pending arrivals, expected arrivals, transaction bytes), updated by compare-and-swap;
 * TMA and bulk loads copy at once (writing the 128-byte swizzle of wg_swz) and complete their bytes on the
 * barrier; wgmma is asynchronous as in PTX: at issue the warpgroup's 128 threads hand over their accumulators
 * and A registers and its first thread computes the result (A and B from shared memory through the
 * descriptors, PTX's canonical layouts as read by this project); the accumulators are written only at the
 * wgmma.wait_group that completes the group, after the product is computed again from the operands as they
 * are then. A difference means an operand (shared memory, A registers, accumulators) changed while the wgmma
 * was in flight, which PTX leaves undefined: the emulation stops with a message and exit 1. Reading accumulators before
 * their wait sees the old values. Included only with BWD_EMULATE. */
#ifndef GPU_BWD_WG_EMU_H
#define GPU_BWD_WG_EMU_H

#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#ifndef __grid_constant__
#define __grid_constant__
#endif

/* The emulated tensor map: bf16 base[rows][cols], boxes of 64 columns x box_rows rows. */
struct EmuTmap {
    const void *base;
    long long rows;
    int cols, box_rows;
};
typedef EmuTmap WgTmap;

static inline uint32_t wg_smem(const void *p)
{
    return (uint32_t)((const unsigned char *)p - emu_cta->smem);
}

static inline void wg_st_shared_v2(uint32_t addr, float a, float b)
{
    memcpy(emu_cta->smem + addr, &a, 4);
    memcpy(emu_cta->smem + addr + 4, &b, 4);
}

static inline float2 wg_ld_shared_v2(uint32_t addr)
{
    float2 v;
    memcpy(&v.x, emu_cta->smem + addr, 4);
    memcpy(&v.y, emu_cta->smem + addr + 4, 4);
    return v;
}

static inline void wg_st_shared_b32(uint32_t addr, uint32_t v)
{
    memcpy(emu_cta->smem + addr, &v, 4);
}

/* mbarrier word: bit 63 phase, bits 0-19 pending arrivals, 20-39 expected arrivals, 40-62 pending bytes. */
static inline std::atomic_ref<uint64_t> emu_mbar(uint64_t *bar)
{
    return std::atomic_ref<uint64_t>(*bar);
}

static inline void __syncthreads(void)
{
    emu_cta->named[0].sync((int)emu_bdim.x);
}

static inline void wg_mbar_init(uint64_t *bar, unsigned count)
{
    emu_mbar(bar).store((uint64_t)count | (uint64_t)count << 20);
}

static inline void wg_mbar_fence_init(void)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

/* Applies -arrivals and +bytes to the current phase; completes it when both reach zero. */
static inline void emu_mbar_update(uint64_t *bar, int arrivals, long long bytes)
{
    auto w = emu_mbar(bar);
    uint64_t old = w.load(), nv;
    do {
        long long pending = (long long)(old & 0xFFFFF) - arrivals, tx = (long long)((old >> 40) & 0x7FFFFF) + bytes;
        const uint64_t expected = (old >> 20) & 0xFFFFF, phase = old >> 63;
        assert(pending >= 0 && tx >= 0);
        if (pending == 0 && tx == 0)
            nv = expected | expected << 20 | (phase ^ 1) << 63;
        else
            nv = (uint64_t)pending | expected << 20 | (uint64_t)tx << 40 | phase << 63;
    } while (!w.compare_exchange_weak(old, nv, std::memory_order_acq_rel));
}

static inline void wg_mbar_arrive(uint64_t *bar)
{
    emu_mbar_update(bar, 1, 0);
}

static inline void wg_mbar_expect(uint64_t *bar, unsigned bytes)
{
    emu_mbar_update(bar, 0, bytes);
    emu_mbar_update(bar, 1, 0);
}

static inline int wg_mbar_try_wait(uint64_t *bar, unsigned parity)
{
    if ((emu_mbar(bar).load(std::memory_order_acquire) >> 63) != parity)
        return 1;
    emu_poll_pause();
    return 0;
}

static inline void wg_tma_load(void *dst, const WgTmap *map, int c0, int c1, uint64_t *bar)
{
    const uint16_t *src = (const uint16_t *)map->base;
    unsigned char *out = (unsigned char *)dst;
    assert((wg_smem(dst) & 1023) == 0 && c0 % 64 == 0 && c1 + map->box_rows <= map->rows);
    for (int r = 0; r < map->box_rows; r++)
        for (int c = 0; c < 64; c++)
            memcpy(out + wg_swz(r, 2 * c), &src[(size_t)(c1 + r) * map->cols + c0 + c], 2);
    emu_mbar_update(bar, 0, -(long long)map->box_rows * 128);
}

static inline void wg_bulk_load(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    memcpy(dst, src, bytes);
    emu_mbar_update(bar, 0, -(long long)bytes);
}

static inline void wg_prefetch_tmap(const WgTmap *)
{
}

static inline void wg_fence(void)
{
}

static inline void emu_wgmma_wait(int n_pending);

/* Closes the open group (the bookkeeping is the warpgroup's first thread's, which issues in program order). */
static inline void wg_commit(void)
{
    if (emu_tid.x % 128 == 0)
        emu_cta->wg[emu_tid.x / 128].commits++;
}

template <int N> static inline void wg_wait(void)
{
    emu_wgmma_wait(N);
}

static inline void wg_keep(float &)
{
}

static inline void wg_keep(uint32_t &)
{
}

static inline void wg_keep(uint64_t &)
{
}

template <int R> static inline void wg_setmaxnreg_inc(void)
{
}

template <int R> static inline void wg_setmaxnreg_dec(void)
{
}

#define WG_SMEM_BASE(name) unsigned char *name = emu_cta->smem
/* Element (row, k) of a shared operand (is_mn: M/N-major) under descriptor desc, as a float. */
static inline float emu_desc_at(uint64_t desc, int is_mn, int mn, int k)
{
    const uint32_t start = (uint32_t)(desc & 0x3FFF) << 4, lbo = (uint32_t)((desc >> 16) & 0x3FFF) << 4,
                   sbo = (uint32_t)((desc >> 32) & 0x3FFF) << 4;
    assert(desc >> 62 == 1); /* 128-byte swizzle, the only layout the kernel uses */
    const uint32_t a = is_mn ? start + (mn % 64) * 2 + (mn / 64) * lbo + (k % 8) * 128 + (k / 8) * sbo
                             : start + (mn % 8) * 128 + (mn / 8) * sbo + k * 2;
    const uint32_t phys = a ^ (((a >> 7) & 7) << 4);
    uint16_t bits;
    memcpy(&bits, emu_cta->smem + phys, 2);
    return emu_bf16_half(bits, 0);
}

/* Thread and register of element (row, col) of a 64 x n accumulator (the layout of wg_mainloop_sm90.cuh's comment). */
static inline int emu_acc_thread(int row, int col)
{
    return (row / 16) * 32 + (row % 8) * 4 + (col % 8) / 2;
}
static inline int emu_acc_index(int row, int col)
{
    return (col / 8) * 4 + ((row % 16) / 8) * 2 + col % 2;
}

/* op's product from A registers a (NULL: shared memory), shared memory as it is now and the accumulator
 * input in ([64][n], read when is_acc), into out. */
static inline void emu_wgmma_eval(const EmuWgmmaOp &op, const uint32_t (*a)[4], const float *in, float *out)
{
    for (int row = 0; row < 64; row++)
        for (int col = 0; col < op.n; col++) {
            float sum = 0.0f;
            for (int k = 0; k < 16; k++) {
                const float x = a ? emu_bf16_half(a[(row / 16) * 32 + (row % 8) * 4 + (k % 8) / 2][(row % 16) / 8 + 2 * (k / 8)], k & 1)
                                  : emu_desc_at(op.da, op.ta, row, k);
                sum += x * emu_desc_at(op.db, op.tb, col, k);
            }
            out[row * op.n + col] = op.is_acc ? in[row * op.n + col] + sum : sum;
        }
}

/* The accumulators of op as they are now, [64][n]. */
static inline void emu_wgmma_gather(const EmuWgmmaOp &op, float *in)
{
    for (int row = 0; row < 64; row++)
        for (int col = 0; col < op.n; col++)
            in[row * op.n + col] = op.acc[emu_acc_thread(row, col)][emu_acc_index(row, col)];
}

/* wgmma.mma_async: D[64 x n] (+)= A . B for the calling warpgroup (a_regs NULL: A from shared memory through
 * da), in flight until a wait_group completes its group. The accumulator input of a wgmma that follows one
 * in flight on the same accumulators is that one's result (the chained k-steps of one product). */
static inline void emu_wgmma(float *d, int n, const uint32_t *a_regs, uint64_t da, uint64_t db, int ta, int tb, int is_acc)
{
    EmuWarpgroup &g = emu_cta->wg[emu_tid.x / 128];
    const int t = emu_tid.x % 128;
    g.acc[t] = d;
    g.a_reg[t] = a_regs;
    if (a_regs)
        memcpy(g.a[t], a_regs, 16);
    g.bar.sync(128);
    if (t == 0) {
        EmuWgmmaOp op;
        op.n = n, op.ta = ta, op.tb = tb, op.is_acc = is_acc, op.group = g.commits, op.da = da, op.db = db;
        memcpy(op.acc, g.acc, sizeof op.acc);
        memcpy(op.a_reg, g.a_reg, sizeof op.a_reg);
        std::vector<float> in((size_t)64 * n);
        const EmuWgmmaOp *chained = NULL;
        for (const EmuWgmmaOp &p : g.pending)
            if (p.acc[0] == d)
                chained = &p;
        if (chained)
            assert(chained->n == n), in = chained->out;
        else
            emu_wgmma_gather(op, in.data());
        op.out.resize((size_t)64 * n);
        emu_wgmma_eval(op, a_regs ? g.a : NULL, in.data(), op.out.data());
        g.pending.push_back(std::move(op));
        if (emu_inject_inflight_write)
            d[0] += 1.0f; /* what a kernel must not do: must stop the run at the wait */
    }
    g.bar.sync(128);
}

/* wgmma.wait_group n_pending: completes every group but the n_pending latest committed ones, in issue order. */
static inline void emu_wgmma_wait(int n_pending)
{
    EmuWarpgroup &g = emu_cta->wg[emu_tid.x / 128];
    g.bar.sync(128);
    if (emu_tid.x % 128 == 0) {
        size_t done = 0;
        for (; done < g.pending.size() && g.pending[done].group < g.commits - n_pending; done++) {
            EmuWgmmaOp &op = g.pending[done];
            std::vector<float> in((size_t)64 * op.n), now((size_t)64 * op.n);
            uint32_t a[128][4];
            for (int t = 0; t < 128 && op.a_reg[0]; t++)
                memcpy(a[t], op.a_reg[t], 16);
            emu_wgmma_gather(op, in.data());
            emu_wgmma_eval(op, op.a_reg[0] ? a : NULL, in.data(), now.data());
            if (memcmp(now.data(), op.out.data(), now.size() * sizeof(float))) {
                fprintf(stderr, "gpu-bwd-emu: block %u warpgroup %u: an operand of a wgmma (m64n%dk16) changed while it "
                                "was in flight\n", emu_bid.x, emu_tid.x / 128, op.n);
                fflush(stderr);
                std::_Exit(1); /* a check failed; the other threads of the run are stopped with it */
            }
            for (int row = 0; row < 64; row++)
                for (int col = 0; col < op.n; col++)
                    op.acc[emu_acc_thread(row, col)][emu_acc_index(row, col)] = op.out[row * op.n + col];
        }
        g.pending.erase(g.pending.begin(), g.pending.begin() + (long)done);
    }
    g.bar.sync(128);
}

template <int TA, int TB> static inline void wg_mma_ss_n32_set(float (&d)[16], uint64_t da, uint64_t db)
{
    emu_wgmma(d, 32, NULL, da, db, TA, TB, 0);
}
template <int TA, int TB> static inline void wg_mma_ss_n32_acc(float (&d)[16], uint64_t da, uint64_t db)
{
    emu_wgmma(d, 32, NULL, da, db, TA, TB, 1);
}
template <int TA, int TB> static inline void wg_mma_ss_n64_set(float (&d)[32], uint64_t da, uint64_t db)
{
    emu_wgmma(d, 64, NULL, da, db, TA, TB, 0);
}
template <int TA, int TB> static inline void wg_mma_ss_n64_acc(float (&d)[32], uint64_t da, uint64_t db)
{
    emu_wgmma(d, 64, NULL, da, db, TA, TB, 1);
}
template <int TB> static inline void wg_mma_rs_n64(float (&d)[32], const uint32_t (&a)[4], uint64_t db)
{
    emu_wgmma(d, 64, a, 0, db, 0, TB, 1);
}
template <int TB> static inline void wg_mma_rs_n128(float (&d)[64], const uint32_t (&a)[4], uint64_t db)
{
    emu_wgmma(d, 128, a, 0, db, 0, TB, 1);
}

#endif

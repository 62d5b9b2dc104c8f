/* Hopper primitives of the wgmma backward (docs/kernel.md, "The Hopper kernel"): mbarriers with transaction
 * counts, TMA tile loads and 1D bulk loads that complete on them, wgmma fences and groups, shared-memory
 * matrix descriptors for the 128-byte swizzle. Invariant: every shared tile that TMA writes and wgmma reads
 * is a stack of 1024-byte swizzle atoms (8 rows of 128 bytes, 16-byte chunks XORed by row % 8) whose first
 * atom is 1024-byte aligned, so wg_swz() below is the one address map of TMA, wgmma and the kernel's own
 * stores. With BWD_EMULATE the CPU emulation (gpu/bwd/emu/wg_emu.h) provides the same functions. */
#ifndef GPU_BWD_WG_OPS_CUH
#define GPU_BWD_WG_OPS_CUH

#include <stdint.h>

/* Byte offset of byte `b` of row `row` in a stack of 128-byte-swizzled rows (the swizzle the copy engine
 * applies with CU_TENSOR_MAP_SWIZZLE_128B and wgmma reads with layout type 1). */
__host__ __device__ static inline uint32_t wg_swz(uint32_t row, uint32_t b)
{
    return row * 128u + ((((b >> 4) ^ row) & 7u) << 4) + (b & 15u);
}

/* Shared-memory matrix descriptor, 128-byte swizzle (layout type 1). addr: shared-window byte address of the
 * operand's first element; lbo, sbo: the leading and stride byte offsets of PTX's canonical layouts
 * (K-major: sbo = 1024 between 8-row groups, lbo unused; MN-major: lbo between 64-element column blocks,
 * sbo = 1024 between 8-row groups along K). */
__host__ __device__ static inline uint64_t wg_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)((lbo & 0x3FFFFu) >> 4) << 16 |
           (uint64_t)((sbo & 0x3FFFFu) >> 4) << 32 | 1ull << 62;
}

#ifndef BWD_EMULATE
#include <cuda.h> /* CUtensorMap: the type only; the tensor maps are encoded through the runtime's entry point */

typedef CUtensorMap WgTmap;

__device__ static inline uint32_t wg_smem(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Two floats to the shared address addr (8-byte aligned): st.shared, no generic address conversion. */
__device__ static inline void wg_st_shared_v2(uint32_t addr, float a, float b)
{
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(a), "f"(b) : "memory");
}

/* Two floats from the shared address addr (8-byte aligned). */
__device__ static inline float2 wg_ld_shared_v2(uint32_t addr)
{
    float2 v;
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr) : "memory");
    return v;
}

/* One 32-bit word to the shared address addr. */
__device__ static inline void wg_st_shared_b32(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

__device__ static inline void wg_mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(wg_smem(bar)), "r"(count) : "memory");
}

/* After the initialisations, before the barrier that publishes them: visible to the async proxy too. */
__device__ static inline void wg_mbar_fence_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ static inline void wg_mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(wg_smem(bar)) : "memory");
}

/* One arrival that also announces `bytes` of copies completing on this phase. */
__device__ static inline void wg_mbar_expect(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(wg_smem(bar)), "r"(bytes)
                 : "memory");
}

/* 1 once the phase of parity `parity` has completed (a bounded wait inside; callers loop). */
__device__ static inline int wg_mbar_try_wait(uint64_t *bar, unsigned parity)
{
    uint32_t ok;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok)
                 : "r"(wg_smem(bar)), "r"(parity)
                 : "memory");
    return (int)ok;
}

/* TMA: the box of map at (c0 = column, c1 = row) into dst (1024-byte aligned), completing on bar. */
__device__ static inline void wg_tma_load(void *dst, const WgTmap *map, int c0, int c1, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];" ::"r"(wg_smem(dst)),
                 "l"(map), "r"(c0), "r"(c1), "r"(wg_smem(bar))
                 : "memory");
}

/* bytes (a multiple of 16) from src (16-byte aligned) into dst, completing on bar. */
__device__ static inline void wg_bulk_load(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     wg_smem(dst)),
                 "l"(src), "r"(bytes), "r"(wg_smem(bar))
                 : "memory");
}

__device__ static inline void wg_prefetch_tmap(const WgTmap *map)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

/* Registers written by ordinary instructions are complete before the next wgmma reads them. */
__device__ static inline void wg_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ static inline void wg_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/* At most N committed groups of this warpgroup are still running. */
template <int N> __device__ static inline void wg_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving reads of x before, or reusing its register across, the wait above it. */
__device__ static inline void wg_keep(float &x)
{
    asm volatile("" : "+f"(x)::"memory");
}

__device__ static inline void wg_keep(uint32_t &x)
{
    asm volatile("" : "+r"(x)::"memory");
}

/* A descriptor the compiler cannot see through: its k-step descriptors are computed where they are used, not
 * hoisted out of the task loop into registers (that ran out of registers at 128-row Q tiles). */
__device__ static inline void wg_keep(uint64_t &x)
{
    asm volatile("" : "+l"(x));
}

/* Registers per thread of the consumer and producer warpgroups (R a multiple of 8; the kernel's comment says
 * why the two must balance). */
template <int R> __device__ static inline void wg_setmaxnreg_inc(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

template <int R> __device__ static inline void wg_setmaxnreg_dec(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}

#define WG_SMEM_BASE(name) extern __shared__ __align__(128) unsigned char name[] /* rounded up to 1024 by the kernel */
#include "wg_mma.cuh"
#endif

#endif

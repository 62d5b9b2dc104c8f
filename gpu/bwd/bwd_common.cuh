/* What both backward kernels share (docs/kernel.md): the kernel arguments (BwdArgs: tasks, tensors, dQ
 * accumulator and row semaphores, records), the record layout, the timeout report (BwdErr) and the warp-level and
 * asynchronous primitives that the CPU emulator (gpu/bwd/emu/) replaces. The fallback kernel is
 * bwd_fallback_sm80.cuh, the Hopper kernel wg/wg_kernel_sm90.cuh, the rank protocol bwd_rank.cuh. */
#ifndef GPU_BWD_COMMON_CUH
#define GPU_BWD_COMMON_CUH

#include "../gpu_device.cuh"
#include "bwd.h"

#include <cuda_bf16.h>
#ifdef BWD_EMULATE
#include "emu/bwd_emu.h"
#endif

/* Per task, globaltimer ns: c_start, c_end, r_ready, r_start, r_end (the executor's five), then s_end (tile
 * staged and handed over), r_read (the bulk add has read the staging buffer), k_end (dK/dV written, on the
 * task that ends a KV tile; else equal to s_end), and clock64 at c_start and at c_end (the trace's c_cycles is
 * their difference: with the two stamps, the clock the compute ran at). docs/gpu.md lists the trace columns. */
#define BWD_REC_FIELDS 10
#define BWD_BLK_FIELDS 3  /* smid, globaltimer at entry, at exit */
#define BWD_LOG2E 1.4426950408889634f

typedef struct {
    int flag;      /* 1 after the first timeout */
    int block, head, q, rank;
    unsigned seen; /* the semaphore's value when the wait gave up */
} BwdErr;

typedef struct {
    const int4 *tasks;      /* execution order: head, kv, q, rank */
    const int *block_begin; /* block b runs tasks block_begin[b] .. block_begin[b+1]-1 */
    const __nv_bfloat16 *q, *k, *v, *dout;
    const float *lse2, *delta; /* [heads][seqlen]: LSE * log2(e), rowsum(dO * O) */
    float *dq_accum;           /* [heads][q_tiles][64 * D] in gpu_tile_pos layout */
    unsigned *sem;             /* [q_tiles][heads] */
    void *dk, *dv;             /* bf16 [kv heads][seqlen][D] (group 1) or fp32 [heads][seqlen][D] */
    long long *rec, *blk;      /* NULL: no records */
    BwdErr *err;
    int group, seqlen, q_tiles, heads, is_causal, is_atomic, is_dkv_fp32;
    float scale_log2, scale;
    long long timeout_ns;
} BwdArgs;

__device__ static inline uint32_t bwd_pack(float lo, float hi)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *(uint32_t *)&v;
}

/* Warp-level and asynchronous primitives. With BWD_EMULATE the host emulator (gpu/bwd/emu/) provides
 * them, so that the kernels run unchanged on the CPU (docs/kernel.md, "CPU emulation"). */
#ifndef BWD_EMULATE
__device__ static inline void bwd_ldsm_x4(uint32_t (&r)[4], const __nv_bfloat16 *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(gpu_smem_addr(p)));
}

__device__ static inline void bwd_ldsm_x4_t(uint32_t (&r)[4], const __nv_bfloat16 *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(gpu_smem_addr(p)));
}

__device__ static inline void bwd_mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ static inline float bwd_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ static inline void bwd_cp_async16(void *smem, const void *gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(gpu_smem_addr(smem)), "l"(gmem) : "memory");
}

__device__ static inline void bwd_cp_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

__device__ static inline void bwd_cp_wait_all(void)
{
    asm volatile("cp.async.wait_group 0;" ::: "memory");
}

__device__ static inline void bwd_setmaxnreg_compute(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
}

__device__ static inline void bwd_setmaxnreg_producer(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
}

/* Every bulk operation this thread issued is complete (atomic mode: before the kernel ends). */
__device__ static inline void bwd_bulk_wait_all(void)
{
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

#define BWD_SMEM_BASE(name) extern __shared__ __align__(128) unsigned char name[]
#endif

#endif

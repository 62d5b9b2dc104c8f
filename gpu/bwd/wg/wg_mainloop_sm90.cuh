/* The Hopper backward's mainloop (docs/kernel.md, "The Hopper kernel"; its kernel: wg_kernel_sm90.cuh): the
 * fallback's tasks, plans, rank protocol and records on TMA and wgmma. Warp 0 loads Q, dO, LSE, Delta (a stage per
 * task, ST deep) and K, V (per KV tile) with TMA onto mbarriers; the two consumer warpgroups own KV rows 64w.. and
 * compute per task, with swap-AB: S^T = K Q^T, dP^T = V dO^T (shared memory operands), P^T and dS^T in registers
 * as the A operand of dV += P^T dO and dK += dS^T Q, dS^T to shared memory, dQ = dS K (a part per warpgroup).
 * Invariant: every wait is bounded by the block's deadline and gives up once any wait has. */
#ifndef GPU_BWD_WG_MAINLOOP_SM90_CUH
#define GPU_BWD_WG_MAINLOOP_SM90_CUH

#include "../bwd_common.cuh"
#include "wg_ops.cuh"
#ifdef BWD_EMULATE
#include "../emu/wg_emu.h"
#endif

#define BWD_WG_THREADS 384
#define BWD_WG_CONSUMER0 128 /* threads 128..383: the two consumer warpgroups */
#define BWD_WG_CONSUMERS 256
#define BWD_WG_HANDOFF (BWD_WG_CONSUMERS + 32) /* consumers + the store warp */
#define BWD_WG_BAR_DQ 3      /* both consumer warpgroups' dQ wgmma are done (one dS^T buffer: BM 128, first tasks) */
#define BWD_WG_BAR_DS 4      /* both consumer warpgroups have stored their dS^T */
#define BWD_WG_BAR_END 5     /* consumers and the store warp are done (the block's exit stamp) */
#define BWD_WG_BAR_FULL(b) (6 + 2 * (b))  /* staging buffer b holds a tile for the store warp */
#define BWD_WG_BAR_EMPTY(b) (7 + 2 * (b)) /* the store warp has read staging buffer b */

/* A variant of the kernel (docs/kernel.md, "Variants"): head dim; ST stages of Q/dO/LSE/Delta; NB dQ staging
 * buffers; OVL: P^T computed while dP^T's wgmma runs; PIPE: the next task's S^T and dP^T wgmma issued
 * before this task's dQ is staged (within a KV tile); SW store warps (2: one per staging buffer, taking
 * alternate tasks, so that two bulk adds and their row releases overlap); BM Q rows per tile (128: head dim
 * 64 only, on plans of tile_ratio 1; each consumer warpgroup then computes dQ of its 64 Q rows, all columns); SZ
 * flags: bit 0 the dQ staging layout, so dQaccum's too (gpu_tile_pos_z: 1 makes the staging stores conflict-free),
 * bit 1 the staging stores as st.shared on 32-bit shared addresses (the struct is reached through an integer
 * rounding, so the compiler sees generic pointers and emits generic stores with their address conversions), bit 2
 * the consumers' next task record loaded during this task (a global load no longer opens every task), bit 3 the LSE
 * read and dS^T written by ld/st.shared on 32-bit shared addresses (the struct itself at the 1024-byte aligned base,
 * so that every access is a shared one, spilled 8 bytes at head dim 128), bit 4 the LSE read by ld.shared before the
 * wait for S^T, bit 5 Delta before the wait for dP^T (their load latency under the wgmma), bit 6 two store warps at
 * head dim 128 as at 64 (SW2, above), bit 7 EARLY (with bit 4; not with PIPE): the LSE of the task's first 64 Q rows
 * read at the loop's top, before S^T and dP^T are issued, so that its loads do not queue behind their shared-memory
 * operand reads (Nsight Compute, call 28). */
template <int D_, int ST_, int NB_, int OVL_, int PIPE_, int SW_, int BM_, int SZ_> struct BwdWgCfg {
    /* PIPE holds the next task's 64 score registers across the staging, and a second store warp needs more than
     * the producer warpgroup's 24 registers at head dim 128: both are head dim 64 only (128 has no registers),
     * as is BM 128 (128 score and dP registers); SW2 (flag bit 6) takes the second store warp at head dim 128 too,
     * with the consumers at 232 registers (the x variant's consumers fit them: 0 spills). Registers: consumers
     * REG_C, producer warpgroup REG_P, 256 REG_C + 128 REG_P = 384 x 168. NDS dS^T buffers (one at BM 128: shared
     * memory); DQ dQ floats per thread. */
    enum { D = D_, ST = ST_, NB = NB_, OVL = OVL_, BM = D_ == 64 ? BM_ : 64, PIPE = PIPE_ && D_ == 64 && BM == 64,
           SW2 = (SZ_ >> 6) & 1, SW = D_ == 64 || SW2 ? SW_ : 1, REG_C = D_ == 128 && !SW2 ? 240 : 232,
           REG_P = D_ == 128 && !SW2 ? 24 : 40,
           NDS = BM == 64 ? 2 : 1, DQ = BM == 64 ? D_ / 4 : D_ / 2, SZ = SZ_ & 1, STAGE = SZ_ & 3,
           PF = (SZ_ >> 2) & 1, SH = (SZ_ >> 3) & 1, PRE = (SZ_ >> 4) & 1, DPRE = (SZ_ >> 5) & 1,
           EARLY = ((SZ_ >> 7) & 1) && !PIPE };
    static_assert(NB_ == 1 || NB_ == 2, "one or two dQ staging buffers");
    static_assert(SW_ == 1 || (SW_ == 2 && NB_ == 2), "two store warps need two staging buffers");
    static_assert(BM_ == 64 || BM_ == 128, "Q tiles of 64 or 128 rows");
    static_assert(SZ_ >= 0 && SZ_ <= 255, "flags: staging (2 bits), prefetch, shared LSE, LSE and Delta early, SW2, EARLY");
    static_assert(!((SZ_ >> 7) & 1) || ((SZ_ >> 4) & 1), "EARLY reads the LSE as PRE does (flag bit 4)");
};

/* The variants a host can select by name (bwd_set_kernel, gpu-bwd --kernel, gpu-bwd-emu --kernel): name,
 * then ST, NB, OVL, PIPE, SW, BM, SZ. "wgmma" is the default; the others are the variant table's rows. */
#define BWD_WG_VARIANTS(X)                                                                                         \
    X("wgmma", 2, 2, 1, 0, 2, 64, 0)                                                                               \
    X("wgmma-s2b1o1p0w1", 2, 1, 1, 0, 1, 64, 0)                                                                    \
    X("wgmma-s2b1o0p0w1", 2, 1, 0, 0, 1, 64, 0)                                                                    \
    X("wgmma-s3b1o1p0w1", 3, 1, 1, 0, 1, 64, 0)                                                                    \
    X("wgmma-s2b2o1p0w1", 2, 2, 1, 0, 1, 64, 0)                                                                    \
    X("wgmma-s2b1o1p1w1", 2, 1, 1, 1, 1, 64, 0)                                                                    \
    X("wgmma-s2b2o1p1w2", 2, 2, 1, 1, 2, 64, 0)                                                                    \
    X("wgmma-s2b2o1p0w2m128", 2, 2, 1, 0, 2, 128, 0)                                                               \
    X("wgmma-s2b2o1p0w2z", 2, 2, 1, 0, 2, 64, 1)                                                                   \
    X("wgmma-s2b2o1p0w2zm128", 2, 2, 1, 0, 2, 128, 1)                                                             \
    X("wgmma-s2b2o1p0w2y", 2, 2, 1, 0, 2, 64, 3)                                                                   \
    X("wgmma-s2b2o1p0w2ym128", 2, 2, 1, 0, 2, 128, 3)                                                             \
    X("wgmma-s2b2o1p0w2x", 2, 2, 1, 0, 2, 64, 15)                                                                  \
    X("wgmma-s2b2o1p0w2xm128", 2, 2, 1, 0, 2, 128, 15)                                                           \
    X("wgmma-s2b2o1p0w2wm128", 2, 2, 1, 0, 2, 128, 63)                                                           \
    X("wgmma-s2b2o1p0w2u", 2, 2, 1, 0, 2, 64, 79)                                                                  \
    X("wgmma-s2b2o1p0w2t", 2, 2, 1, 0, 2, 64, 127)                                                                 \
    X("wgmma-s2b2o1p0w2e", 2, 2, 1, 0, 2, 64, 255)                                                                 \
    X("wgmma-s2b2o1p0w2em128", 2, 2, 1, 0, 2, 128, 191)

/* Shared memory (after rounding the base up to 1024 bytes). bf16 tiles are [D/64][rows][64] stacks of
 * 128-byte-swizzled rows (wg_swz), as TMA writes them: element (r, c) at byte (c / 64) rows 128 +
 * wg_swz(r, 2 (c % 64)). */
template <class C> struct BwdWgSmem {
    __nv_bfloat16 k[BWD_BLOCK_N * C::D], v[BWD_BLOCK_N * C::D];
    __nv_bfloat16 q[C::ST][C::BM * C::D], dout[C::ST][C::BM * C::D];
    __nv_bfloat16 ds[C::NDS][BWD_BLOCK_N * C::BM]; /* dS^T [q/64][kv][64 q], 128-byte rows; by task parity */
    float stage[C::NB][C::BM * C::D];               /* partial dQ, 64-row tiles in gpu_tile_pos_z layout (as dQaccum) */
    float lse2[C::ST][C::BM], delta[C::ST][C::BM];
    uint64_t q_full[C::ST], q_empty[C::ST], kv_full, kv_empty;
};
template <class C> constexpr size_t bwd_wg_smem_bytes(void)
{
    return sizeof(BwdWgSmem<C>) + 1024; /* + the rounding of the base */
}

typedef struct {
    WgTmap q, k, v, dout; /* bf16 [rows][D], box 64 columns x 64 (q, dout) or 128 (k, v) rows, 128B swizzle */
} BwdWgMaps;

/* ---- the consumer warpgroups' math (also driven by the layout test, gpu/bwd/wg/wg_test.cu) ---- */

/* D[64 x N] (+)= A . B by shape: SS for N 32 and 64 (IS_ACC 0: D = A . B), RS for N 64 and 128 (D +=). */
template <int TA, int TB, int IS_ACC> __device__ static inline void wg_ss(float (&d)[16], uint64_t a, uint64_t b)
{
    if (IS_ACC)
        wg_mma_ss_n32_acc<TA, TB>(d, a, b);
    else
        wg_mma_ss_n32_set<TA, TB>(d, a, b);
}
template <int TA, int TB, int IS_ACC> __device__ static inline void wg_ss(float (&d)[32], uint64_t a, uint64_t b)
{
    if (IS_ACC)
        wg_mma_ss_n64_acc<TA, TB>(d, a, b);
    else
        wg_mma_ss_n64_set<TA, TB>(d, a, b);
}
__device__ static inline void wg_rs(float (&d)[32], const uint32_t (&a)[4], uint64_t b)
{
    wg_mma_rs_n64<1>(d, a, b);
}
__device__ static inline void wg_rs(float (&d)[64], const uint32_t (&a)[4], uint64_t b)
{
    wg_mma_rs_n128<1>(d, a, b);
}

template <int N> __device__ static inline void wg_zero(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        d[i] = 0.0f;
}

template <int N> __device__ static inline void wg_keep_all(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        wg_keep(d[i]);
}

/* acc[64 x 64] = rows 64w.. of A (a [D/64][128][64] tile: K or V) . B^T (b: 64 rows of a [D/64][BM][64] tile,
 * Q or dO); both K-major: the k-th 16 columns start 32 bytes further inside a 128-byte row. Issued and
 * committed; after a wg_fence (this warpgroup's registers are settled). */
template <int D, int BM>
__device__ static inline void wg_gemm_rows_qt(float (&acc)[32], const __nv_bfloat16 *a, const __nv_bfloat16 *b, int w)
{
    uint64_t da = wg_desc(wg_smem(a) + w * 64 * 128, 16, 1024), db = wg_desc(wg_smem(b), 16, 1024);
    if (BM == 128)
        wg_keep(da);
    wg_ss<0, 0, 0>(acc, da, db);
#pragma unroll
    for (int k = 1; k < D / 16; k++)
        wg_ss<0, 0, 1>(acc, da + (((k / 4) * BWD_BLOCK_N * 128 + (k % 4) * 32) >> 4),
                       db + (((k / 4) * BM * 128 + (k % 4) * 32) >> 4));
    wg_commit();
}

/* acc[64 x D] += A (registers: BM/16 k-steps of 16 q, 4 per 64 q; k-steps K0..K1-1) . B (b: a [D/64][BM][64]
 * tile, Q or dO, N-major: the k-th 16 rows start 2048 bytes further, column blocks BM 128 bytes apart). Issued,
 * not committed. */
template <int D, int BM, int K0, int K1>
__device__ static inline void wg_gemm_acc(float (&acc)[D / 2], const uint32_t (&a)[BM / 64][4][4],
                                          const __nv_bfloat16 *b)
{
    const uint64_t db = wg_desc(wg_smem(b), BM * 128, 1024);
#pragma unroll
    for (int k = K0; k < K1; k++)
        wg_rs(acc, a[k / 4][k % 4], db + ((k * 2048) >> 4));
}

/* BM 64: acc[64 x D/2] = dS (ds: dS^T [128][64], M-major) . K[:, w D/2 ..] (k tile, N-major; for D = 64 the
 * half starts 64 bytes into the 128-byte rows). BM 128 (D 64): acc[64 x 64] = dS[64w.., :] (the w-th [128][64]
 * block of dS^T) . K. Issued and committed. */
template <int D, int BM>
__device__ static inline void wg_gemm_dq(float (&acc)[BM == 64 ? D / 4 : D / 2], const __nv_bfloat16 *ds,
                                         const __nv_bfloat16 *k, int w)
{
    uint64_t da = wg_desc(wg_smem(ds) + (BM == 64 ? 0 : w * BWD_BLOCK_N * 128), BWD_BLOCK_M * 128, 1024),
             db = wg_desc(wg_smem(k) + (BM == 128 ? 0 : D == 128 ? w * BWD_BLOCK_N * 128 : w * 64), BWD_BLOCK_N * 128,
                          1024);
    if (BM == 128) { /* loop-invariant (one dS^T buffer): kept out of registers between tasks */
        wg_keep(da);
        wg_keep(db);
    }
    wg_ss<1, 1, 0>(acc, da, db);
#pragma unroll
    for (int kk = 1; kk < BWD_BLOCK_N / 16; kk++)
        wg_ss<1, 1, 1>(acc, da + ((kk * 2048) >> 4), db + ((kk * 2048) >> 4));
    wg_commit();
}

/* The accumulator layout of m64nN (per warp 16 rows, mma.sync's C layout per 8 columns): element i of a
 * thread is row 16 (warp % 4) + lane / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (lane % 4) + i % 2. The A
 * operand of the next wgmma takes k-step k's 16 columns as (i = 8k..8k+7) packed in pairs. */
__device__ static inline void wg_pack_a(uint32_t (&a)[4][4], const float (&acc)[32])
{
#pragma unroll
    for (int k = 0; k < 4; k++)
#pragma unroll
        for (int r = 0; r < 4; r++)
            a[k][r] = bwd_pack(acc[8 * k + 2 * r], acc[8 * k + 2 * r + 1]);
}

/* P^T (in place of S^T) of this thread's elements; rows are KV rows kv0 + .., columns Q rows q0 + ... SH: the LSE
 * read by ld.shared (a float2 per 8 columns) rather than through a generic pointer. */
template <bool SH = false>
__device__ static inline void wg_softmax_p(float (&s)[32], const float *lse2, const BwdArgs &a, int kv0, int q0)
{
    const int lane = threadIdx.x & 31, row = kv0 + ((threadIdx.x >> 5) & 3) * 16 + (lane >> 2);
    const bool is_masked = a.is_causal && q0 < kv0 + 63;
    if constexpr (SH) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            const int c0 = 8 * j + 2 * (lane & 3);
            const float2 l = wg_ld_shared_v2(wg_smem(lse2) + 4u * c0);
#pragma unroll
            for (int i = 4 * j; i < 4 * j + 4; i++) {
                const int col = c0 + (i & 1), kv = row + 8 * ((i >> 1) & 1);
                const float p = bwd_exp2(fmaf(s[i], a.scale_log2, -(i & 1 ? l.y : l.x)));
                s[i] = is_masked && q0 + col < kv ? 0.0f : p;
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < 32; i++) {
            const int col = 8 * (i / 4) + 2 * (lane & 3) + (i & 1), kv = row + 8 * ((i >> 1) & 1);
            const float p = bwd_exp2(fmaf(s[i], a.scale_log2, -lse2[col]));
            s[i] = is_masked && q0 + col < kv ? 0.0f : p;
        }
    }
}

/* This thread's 16 values of a per-Q-row vector (LSE or Delta: a float2 per 8 columns) by ld.shared, issued before the
 * wait for the wgmma that they follow (BwdWgCfg's PRE, DPRE). */
__device__ static inline void wg_load_cols(float2 (&l)[8], const float *lse2)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < 8; j++)
        l[j] = wg_ld_shared_v2(wg_smem(lse2) + 4u * (8 * j + 2 * (lane & 3)));
}

/* wg_load_cols, or (is_read: EARLY's first 64 Q rows) the values it read at the loop's top. */
__device__ static inline void wg_load_cols_or(float2 (&l)[8], const float *lse2, bool is_read, const float2 (&l0)[8])
{
    if (is_read) {
#pragma unroll
        for (int j = 0; j < 8; j++)
            l[j] = l0[j];
    } else {
        wg_load_cols(l, lse2);
    }
}

/* wg_softmax_p from the LSE values wg_load_cols read. */
__device__ static inline void wg_softmax_p_pre(float (&s)[32], const float2 (&l)[8], const BwdArgs &a, int kv0, int q0)
{
    const int lane = threadIdx.x & 31, row = kv0 + ((threadIdx.x >> 5) & 3) * 16 + (lane >> 2);
    const bool is_masked = a.is_causal && q0 < kv0 + 63;
#pragma unroll
    for (int i = 0; i < 32; i++) {
        const int col = 8 * (i / 4) + 2 * (lane & 3) + (i & 1), kv = row + 8 * ((i >> 1) & 1);
        const float p = bwd_exp2(fmaf(s[i], a.scale_log2, -(i & 1 ? l[i / 4].y : l[i / 4].x)));
        s[i] = is_masked && q0 + col < kv ? 0.0f : p;
    }
}

/* dS^T = P^T (dP^T - Delta) from the Delta values wg_load_cols read. */
__device__ static inline void wg_softmax_ds_pre(const float (&p)[32], float (&dp)[32], const float2 (&d)[8])
{
#pragma unroll
    for (int i = 0; i < 32; i++)
        dp[i] = p[i] * (dp[i] - (i & 1 ? d[i / 4].y : d[i / 4].x));
}

/* dS^T = P^T (dP^T - Delta), in place of dP^T. (Read here by ld.shared, beside the prefetched task record, Delta
 * spilled 8 bytes at head dim 128; DPRE reads it by ld.shared before the wait instead, wg_softmax_ds_pre.) */
__device__ static inline void wg_softmax_ds(const float (&p)[32], float (&dp)[32], const float *delta)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < 32; i++)
        dp[i] = p[i] * (dp[i] - delta[8 * (i / 4) + 2 * (lane & 3) + (i & 1)]);
}

/* dS^T (A fragments) into ds [128 kv][64 q], rows 64w.. (swizzled 128-byte rows; SH: by st.shared). */
template <bool SH = false>
__device__ static inline void wg_store_ds(const uint32_t (&a)[4][4], __nv_bfloat16 *ds, int w)
{
    const int lane = threadIdx.x & 31, r0 = w * 64 + ((threadIdx.x >> 5) & 3) * 16 + (lane >> 2);
    unsigned char *base = (unsigned char *)ds;
#pragma unroll
    for (int k = 0; k < 4; k++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int row = r0 + 8 * (r & 1), col = 16 * k + 8 * (r >> 1) + 2 * (lane & 3);
            if (SH)
                wg_st_shared_b32(wg_smem(ds) + wg_swz(row, 2 * col), a[k][r]);
            else
                *(uint32_t *)(base + wg_swz(row, 2 * col)) = a[k][r];
        }
}

/* This warpgroup's part of the partial dQ into the staging tile: BM 64, its half of the columns (w D/2 ..);
 * BM 128, all columns of its 64 rows (the w-th 64-row tile of the two). STAGE: BwdWgCfg's staging flags (bit 0 the
 * layout, gpu_tile_pos_z's z; bit 1 stores by st.shared). */
template <int D, int BM, int STAGE = 0>
__device__ static inline void wg_stage_dq(const float (&acc)[BM == 64 ? D / 4 : D / 2], float *stage, int w)
{
    const int lane = threadIdx.x & 31, r0 = ((threadIdx.x >> 5) & 3) * 16 + (lane >> 2);
    if (BM == 128)
        stage += w * 64 * D;
#pragma unroll
    for (int j = 0; j < (BM == 64 ? D / 16 : D / 8); j++) {
        const int col = (BM == 64 ? w * (D / 2) : 0) + 8 * j + 2 * (lane & 3);
        if (STAGE & 2) {
            const uint32_t base = wg_smem(stage);
            wg_st_shared_v2(base + 4u * gpu_tile_pos_z(r0, col, D, STAGE & 1), acc[4 * j], acc[4 * j + 1]);
            wg_st_shared_v2(base + 4u * gpu_tile_pos_z(r0 + 8, col, D, STAGE & 1), acc[4 * j + 2], acc[4 * j + 3]);
        } else {
            *(float2 *)&stage[gpu_tile_pos_z(r0, col, D, STAGE)] = make_float2(acc[4 * j], acc[4 * j + 1]);
            *(float2 *)&stage[gpu_tile_pos_z(r0 + 8, col, D, STAGE)] = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
        }
    }
}

/* Writes this thread's dK (scaled) and dV rows of KV tile kv (rows 128 kv + 64w + ..) of query head h. */
template <int D>
__device__ static inline void wg_write_dkv(const float (&dk)[D / 2], const float (&dv)[D / 2], const BwdArgs &a, int h,
                                           int kv, int w)
{
    const int lane = threadIdx.x & 31;
    const size_t row = (size_t)kv * BWD_BLOCK_N + w * 64 + ((threadIdx.x >> 5) & 3) * 16 + (lane >> 2);
    const size_t head = a.is_dkv_fp32 ? (size_t)h : (size_t)(h / a.group);
#pragma unroll
    for (int j = 0; j < D / 8; j++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const size_t e = (head * a.seqlen + row + 8 * half) * D + 8 * j + 2 * (lane & 3);
            const int i = 4 * j + 2 * half;
            if (a.is_dkv_fp32) { /* GQA: per query head, summed over the group in a fixed order afterwards */
                *(float2 *)&((float *)a.dk)[e] = make_float2(dk[i], dk[i + 1]);
                *(float2 *)&((float *)a.dv)[e] = make_float2(dv[i], dv[i + 1]);
            } else {
                *(uint32_t *)&((__nv_bfloat16 *)a.dk)[e] = bwd_pack(dk[i] * a.scale, dk[i + 1] * a.scale);
                *(uint32_t *)&((__nv_bfloat16 *)a.dv)[e] = bwd_pack(dv[i], dv[i + 1]);
            }
        }
}

/* ---- waits ---- */

/* Waits for the phase of parity `parity` of bar. Gives up (returns 0) once another wait of the kernel has
 * given up, or past the deadline, then recording which barrier (rank -1 - which) for which task. */
__device__ static inline int wg_wait_phase(uint64_t *bar, unsigned parity, const BwdArgs &a, long long deadline,
                                           int4 t, int which)
{
    for (unsigned n = 1;; n++) {
        if (wg_mbar_try_wait(bar, parity))
            return 1;
        if ((n & 63u) == 0) {
            if (*(volatile int *)&a.err->flag)
                return 0;
            if (gpu_globaltimer() > deadline) {
                if (atomicCAS(&a.err->flag, 0, 1) == 0) {
                    a.err->block = (int)blockIdx.x;
                    a.err->head = t.x;
                    a.err->q = t.z;
                    a.err->rank = -1 - which;
                    a.err->seen = parity;
                }
                return 0;
            }
        }
    }
}

enum { WG_WAIT_Q_FULL, WG_WAIT_Q_EMPTY, WG_WAIT_KV_FULL, WG_WAIT_KV_EMPTY };

__device__ static inline bool wg_same_kv(int4 x, int4 y)
{
    return x.x == y.x && x.y == y.y;
}

/* ---- the three roles ---- */

/* The producer (one thread): per task, Q, dO, LSE, Delta into stage n % ST once the consumers have freed
 * it; at a new KV tile, K and V once the consumers are done with the previous one. */
template <class C>
__device__ static void wg_produce(BwdWgSmem<C> &sm, const BwdArgs &a, const BwdWgMaps &m, int begin, int end,
                                  long long deadline)
{
    constexpr int D = C::D, BM = C::BM;
    int4 prev = make_int4(-1, -1, -1, -1);
    for (int i = begin, n = 0, kv_n = 0; i < end; i++, n++) {
        const int4 t = a.tasks[i];
        const int s = n % C::ST, use = n / C::ST;
        if (!wg_wait_phase(&sm.q_empty[s], (use & 1) ^ 1, a, deadline, t, WG_WAIT_Q_EMPTY))
            return;
        const int row = t.x * a.seqlen + t.z * BM;
        wg_mbar_expect(&sm.q_full[s], 2 * BM * D * 2 + 2 * BM * 4);
#pragma unroll
        for (int cb = 0; cb < D / 64; cb++)
#pragma unroll
            for (int hb = 0; hb < BM / BWD_BLOCK_M; hb++) { /* the maps' boxes are 64 rows */
                const int at = (cb * BM + hb * BWD_BLOCK_M) * 64;
                wg_tma_load(sm.q[s] + at, &m.q, cb * 64, row + hb * BWD_BLOCK_M, &sm.q_full[s]);
                wg_tma_load(sm.dout[s] + at, &m.dout, cb * 64, row + hb * BWD_BLOCK_M, &sm.q_full[s]);
            }
        wg_bulk_load(sm.lse2[s], a.lse2 + row, BM * 4, &sm.q_full[s]);
        wg_bulk_load(sm.delta[s], a.delta + row, BM * 4, &sm.q_full[s]);
        if (!wg_same_kv(t, prev)) { /* after this task's Q: it loads while the last tile's tasks finish */
            if (!wg_wait_phase(&sm.kv_empty, (kv_n & 1) ^ 1, a, deadline, t, WG_WAIT_KV_EMPTY))
                return;
            const int kv_row = (t.x / a.group) * a.seqlen + t.y * BWD_BLOCK_N;
            wg_mbar_expect(&sm.kv_full, 2 * BWD_BLOCK_N * D * 2);
#pragma unroll
            for (int cb = 0; cb < D / 64; cb++) {
                wg_tma_load(sm.k + cb * BWD_BLOCK_N * 64, &m.k, cb * 64, kv_row, &sm.kv_full);
                wg_tma_load(sm.v + cb * BWD_BLOCK_N * 64, &m.v, cb * 64, kv_row, &sm.kv_full);
            }
            kv_n++;
        }
        prev = t;
    }
}

/* Issues S^T = K Q^T and dP^T = V dO^T of stage s (two committed groups) into sc and dp (at BM 128: of the
 * first 64 Q rows). */
template <class C>
__device__ static inline void wg_issue_scores(BwdWgSmem<C> &sm, int s, int w, float (&sc)[32], float (&dp)[32])
{
    wg_fence();
    wg_gemm_rows_qt<C::D, C::BM>(sc, sm.k, sm.q[s], w);
    wg_gemm_rows_qt<C::D, C::BM>(dp, sm.v, sm.dout[s], w);
}

/* BM 128, from S^T and dP^T of the first 64 Q rows in flight: their P^T and dS^T, dV's and dK's first 4 k-steps
 * issued on them (one group) with S^T and dP^T of the last 64 rows into the same registers, then their P^T and
 * dS^T (pa[1], dsa[1]). Every product is the BM 64 kernel's (per 64 Q rows; dV and dK chained over k-steps). */
template <class C>
__device__ static inline void wg_task_ds_m128(BwdWgSmem<C> &sm, const BwdArgs &a, int s, int w, int kv0, int q0,
                                              float (&sc)[32], float (&dp)[32], float (&dk)[C::D / 2],
                                              float (&dv)[C::D / 2], uint32_t (&pa)[2][4][4], uint32_t (&dsa)[2][4][4],
                                              const float2 (&l0)[8])
{
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float2 l[8];
        if constexpr (C::PRE)
            wg_load_cols_or(l, sm.lse2[s] + 64 * h, C::EARLY && h == 0, l0);
        wg_wait<1>();
        wg_keep_all(sc);
        if constexpr (C::PRE)
            wg_softmax_p_pre(sc, l, a, kv0, q0 + 64 * h);
        else
            wg_softmax_p<C::SH>(sc, sm.lse2[s] + 64 * h, a, kv0, q0 + 64 * h);
        float2 dl[8];
        if constexpr (C::DPRE)
            wg_load_cols(dl, sm.delta[s] + 64 * h);
        wg_wait<0>();
        wg_keep_all(sc);
        wg_keep_all(dp);
        if constexpr (C::DPRE)
            wg_softmax_ds_pre(sc, dp, dl);
        else
            wg_softmax_ds(sc, dp, sm.delta[s] + 64 * h);
        wg_pack_a(pa[h], sc);
        wg_pack_a(dsa[h], dp);
        if (h == 0) {
            wg_fence();
            wg_gemm_acc<C::D, C::BM, 0, 4>(dv, pa, sm.dout[s]);
            wg_gemm_acc<C::D, C::BM, 0, 4>(dk, dsa, sm.q[s]);
            wg_commit();
            wg_gemm_rows_qt<C::D, C::BM>(sc, sm.k, sm.q[s] + 64 * 64, w);
            wg_gemm_rows_qt<C::D, C::BM>(dp, sm.v, sm.dout[s] + 64 * 64, w);
        }
    }
}

/* From S^T and dP^T in flight (the two latest groups): P^T, dS^T and the dV, dK updates of one task (stage
 * s); C::OVL computes P^T while dP^T's wgmma runs. Leaves dV's and dK's wgmma running, with P^T's and dS^T's
 * fragments in pa and dsa. */
template <class C>
__device__ static inline void wg_task_grads(BwdWgSmem<C> &sm, const BwdArgs &a, int4 t, int s, int w,
                                            float (&sc)[32], float (&dp)[32], float (&dk)[C::D / 2],
                                            float (&dv)[C::D / 2], uint32_t (&pa)[C::BM / 64][4][4],
                                            uint32_t (&dsa)[C::BM / 64][4][4], const float2 (&l0)[8])
{
    const int kv0 = t.y * BWD_BLOCK_N + w * 64, q0 = t.z * C::BM;
    if constexpr (C::BM == 128) {
        wg_task_ds_m128<C>(sm, a, s, w, kv0, q0, sc, dp, dk, dv, pa, dsa, l0);
    } else {
        if (C::OVL) {
            float2 l[8];
            if constexpr (C::PRE)
                wg_load_cols_or(l, sm.lse2[s], C::EARLY, l0);
            wg_wait<1>();
            wg_keep_all(sc);
            if constexpr (C::PRE)
                wg_softmax_p_pre(sc, l, a, kv0, q0);
            else
                wg_softmax_p<C::SH>(sc, sm.lse2[s], a, kv0, q0);
        }
        float2 dl[8];
        if constexpr (C::DPRE)
            wg_load_cols(dl, sm.delta[s]);
        wg_wait<0>();
        wg_keep_all(sc);
        wg_keep_all(dp);
        if (!C::OVL)
            wg_softmax_p<C::SH>(sc, sm.lse2[s], a, kv0, q0);
        if constexpr (C::DPRE)
            wg_softmax_ds_pre(sc, dp, dl);
        else
            wg_softmax_ds(sc, dp, sm.delta[s]);
        wg_pack_a(pa[0], sc);
        wg_pack_a(dsa[0], dp);
    }
    wg_fence();
    wg_gemm_acc<C::D, C::BM, C::BM / 16 - 4, C::BM / 16>(dv, pa, sm.dout[s]); /* (BM 128: the last 4 k-steps) */
    wg_gemm_acc<C::D, C::BM, C::BM / 16 - 4, C::BM / 16>(dk, dsa, sm.q[s]);
    wg_commit();
}

/* Stamps c_start (globaltimer and clock64) of task i (thread 0 of the consumers; rec NULL: none). */
__device__ static inline void wg_stamp_start(long long *rec)
{
    if (rec) {
        rec[0] = gpu_globaltimer();
        rec[8] = clock64();
    }
}

/* The consumer warpgroups' task loop: per task, S^T/dP^T (issued here, or during the previous task with
 * C::PIPE), the gradients, dS^T to shared memory, the partial dQ, its hand-off to the store warp (named
 * barriers FULL/EMPTY per staging buffer, as the executor's async mode) and dK/dV at the end of a KV tile.
 * Longer than a screen: the order of its waits, stamps and barriers is the protocol, read best whole; and
 * it is the code call 3 measured (a helper split off it changes the generated code). */
template <class C>
__device__ static void wg_consume(BwdWgSmem<C> &sm, const BwdArgs &a, int begin, int end, long long deadline)
{
    constexpr int D = C::D, BM = C::BM;
    const int ct = threadIdx.x - BWD_WG_CONSUMER0, w = ct >> 7;
    float dk[D / 2], dv[D / 2], dq[C::DQ], sc[32], dp[32];
    uint32_t pa[BM / 64][4][4], dsa[BM / 64][4][4];
    int4 prev = make_int4(-1, -1, -1, -1);
    bool is_issued = false; /* this task's S^T and dP^T were issued during the previous one */
    int4 t_pf = C::PF ? a.tasks[begin] : prev; /* PF: this task's record, loaded as the last task's next */
    for (int i = begin, n = 0, kv_n = 0; i < end; i++, n++) {
        const int4 t = C::PF ? t_pf : a.tasks[i];
        int4 next = !C::PF && i + 1 < end ? a.tasks[i + 1] : make_int4(-1, -1, -1, -1);
        const int s = n % C::ST, b = n % C::NB;
        bool is_kv_end = !C::PF && !wg_same_kv(t, next); /* PF: compared once the next record has arrived */
        long long *rec = a.rec && ct == 0 ? a.rec + (size_t)i * BWD_REC_FIELDS : NULL;
        float2 l0[8]; /* EARLY: the LSE of the first 64 Q rows, read before the scores are issued */
        if (!is_issued) {
            wg_stamp_start(rec);
            if (!wg_same_kv(t, prev)) {
                wg_wait_phase(&sm.kv_full, kv_n & 1, a, deadline, t, WG_WAIT_KV_FULL);
                kv_n++;
                wg_zero(dk);
                wg_zero(dv);
            }
            wg_wait_phase(&sm.q_full[s], (n / C::ST) & 1, a, deadline, t, WG_WAIT_Q_FULL);
            if constexpr (C::EARLY)
                wg_load_cols(l0, sm.lse2[s]);
            wg_issue_scores<C>(sm, s, w, sc, dp);
        }
        wg_task_grads<C>(sm, a, t, s, w, sc, dp, dk, dv, pa, dsa, l0);
        if (C::PF && i + 1 < end) /* loaded here, under the dQ product; the next task's record */
            next = t_pf = a.tasks[i + 1];
        __nv_bfloat16 *ds = sm.ds[n % C::NDS];
#pragma unroll
        for (int h = 0; h < BM / 64; h++) /* dS^T's h-th 64 Q columns: the h-th [128][64] block */
            wg_store_ds<C::SH>(dsa[h], ds + h * BWD_BLOCK_N * 64, w);
        gpu_fence_proxy_smem(); /* generic stores, read next by wgmma (async proxy) */
        gpu_bar_sync(BWD_WG_BAR_DS, BWD_WG_CONSUMERS);
        wg_gemm_dq<D, BM>(dq, ds, sm.k, w);
        if (C::PF)
            is_kv_end = !wg_same_kv(t, next);
        is_issued = C::PIPE && !is_kv_end;
        if (is_issued) { /* the next task's scores run on the tensor cores while this task's dQ is staged */
            wg_stamp_start(rec ? rec + BWD_REC_FIELDS : NULL);
            wg_wait_phase(&sm.q_full[(n + 1) % C::ST], ((n + 1) / C::ST) & 1, a, deadline, next, WG_WAIT_Q_FULL);
            wg_issue_scores<C>(sm, (n + 1) % C::ST, w, sc, dp);
            wg_wait<2>();
        } else {
            wg_wait<0>();
        }
        wg_keep_all(dq);
        wg_keep_all(dk);
        wg_keep_all(dv);
#pragma unroll
        for (int k = 0; k < BM / 16; k++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                wg_keep(pa[k / 4][k % 4][r]);
                wg_keep(dsa[k / 4][k % 4][r]);
            }
        wg_mbar_arrive(&sm.q_empty[s]);
        if (is_kv_end)
            wg_mbar_arrive(&sm.kv_empty);
        if (rec) {
            rec[1] = gpu_globaltimer();
            rec[9] = clock64();
        }
        if (n >= C::NB) /* (also: both warpgroups' dQ wgmma of this task are done, so one dS^T buffer will do) */
            gpu_bar_sync(BWD_WG_BAR_EMPTY(b), BWD_WG_HANDOFF);
        else if (C::NDS == 1)
            gpu_bar_sync(BWD_WG_BAR_DQ, BWD_WG_CONSUMERS);
        wg_stage_dq<D, BM, C::STAGE>(dq, sm.stage[b], w);
        gpu_fence_proxy_smem();
        gpu_bar_arrive(BWD_WG_BAR_FULL(b), BWD_WG_HANDOFF);
        if (rec)
            rec[5] = rec[7] = gpu_globaltimer();
        if (is_kv_end) {
            wg_wait<0>(); /* nothing runs here (no next task was issued); says so to ptxas for dK, dV */
            wg_write_dkv<D>(dk, dv, a, t.x, t.y, w);
            if (rec)
                rec[7] = gpu_globaltimer(); /* thread 0's part of the write: the others end within its spread */
        }
        if (C::PIPE)
            wg_wait<0>(); /* the next task's scores, carried across the loop: ptxas waits here anyway */
        prev = t;
    }
}

#endif

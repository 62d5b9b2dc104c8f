/* The fallback backward kernel (mma.sync, any sm_80+; the reference the Hopper kernel wg/wg_kernel_sm90.cuh is
 * checked against; docs/kernel.md). One CTA = 8 compute warps + 1 store warp. A task (head, kv, q) computes, for
 * the 128-row KV tile kv and the 64-row Q tile q: S^T = K Q^T, dP^T = V dO^T, P^T, dS^T, dV += P^T dO, dK += dS^T Q
 * (warp w owns KV rows 16w..16w+15, so these stay in registers) and the partial dQ = dS K, staged in shared memory
 * in dQaccum's layout for the store warp (bwd_rank.cuh: in rank order, or atomic). Q/dO of task i+1 are copied
 * (cp.async) while task i computes. */
#ifndef GPU_BWD_FALLBACK_SM80_CUH
#define GPU_BWD_FALLBACK_SM80_CUH

#include "bwd_common.cuh"
#include "bwd_rank.cuh"

#define BWD_WARPS 8
#define BWD_COMPUTE_THREADS (BWD_WARPS * 32)
#define BWD_STORE_THREADS (BWD_COMPUTE_THREADS + 32) /* compute warps + the store warp (named barriers) */
#define BWD_THREADS (BWD_COMPUTE_THREADS + 128)        /* + one producer warpgroup: the store warp, 3 idle */
#define BWD_BAR_COMPUTE 1 /* the 8 compute warps */
#define BWD_BAR_FULL 2    /* the staging buffer holds a tile for the store warp */
#define BWD_BAR_EMPTY 3   /* the store warp has read the staging buffer */

/* Element offset of (row, col) in a bf16 tile with rows of D elements padded by 16 bytes: ldmatrix of 8
 * rows at one column and the cp.async row copies are bank-conflict free, and every fragment address is a
 * per-lane base plus a compile-time offset (no per-address registers, unlike an XOR swizzle). */
#define BWD_PAD 8
template <int D> __device__ static inline int bwd_swz(int row, int col)
{
    return row * (D + BWD_PAD) + col;
}

/* Copies ROWS x D bf16 (contiguous rows) into a padded tile; the 256 compute threads. */
template <int D, int ROWS> __device__ static inline void bwd_load_tile(__nv_bfloat16 *s, const __nv_bfloat16 *g)
{
    constexpr int CHUNKS = ROWS * D / 8, PER_ROW = D / 8;
#pragma unroll
    for (int i = 0; i < CHUNKS / BWD_COMPUTE_THREADS; i++) {
        const int c = threadIdx.x + i * BWD_COMPUTE_THREADS, row = c / PER_ROW, col = (c % PER_ROW) * 8;
        bwd_cp_async16(s + bwd_swz<D>(row, col), g + (size_t)c * 8);
    }
}

/* Shared memory of one CTA (bf16 tiles padded as bwd_swz says). */
template <int D> struct BwdSmem {
    __nv_bfloat16 k[BWD_BLOCK_N * (D + BWD_PAD)], v[BWD_BLOCK_N * (D + BWD_PAD)];
    __nv_bfloat16 q[2][BWD_BLOCK_M * (D + BWD_PAD)], dout[2][BWD_BLOCK_M * (D + BWD_PAD)];
    __nv_bfloat16 ds[BWD_BLOCK_N * (BWD_BLOCK_M + BWD_PAD)]; /* dS^T [kv][q] */
    float lse2[2][BWD_BLOCK_M], delta[2][BWD_BLOCK_M];
    float stage[BWD_BLOCK_M * D]; /* partial dQ, gpu_tile_pos layout */
};

/* Issues the copies of task t's Q, dO, LSE and Delta into buffer b. */
template <int D> __device__ static inline void bwd_load_q(BwdSmem<D> &s, const BwdArgs &a, int4 t, int b)
{
    const size_t row0 = (size_t)t.x * a.seqlen + (size_t)t.z * BWD_BLOCK_M;
    bwd_load_tile<D, BWD_BLOCK_M>(s.q[b], a.q + row0 * D);
    bwd_load_tile<D, BWD_BLOCK_M>(s.dout[b], a.dout + row0 * D);
    if (threadIdx.x < 16)
        bwd_cp_async16(&s.lse2[b][threadIdx.x * 4], a.lse2 + row0 + threadIdx.x * 4);
    else if (threadIdx.x < 32)
        bwd_cp_async16(&s.delta[b][(threadIdx.x - 16) * 4], a.delta + row0 + (threadIdx.x - 16) * 4);
}

template <int D> __device__ static inline void bwd_load_kv(BwdSmem<D> &s, const BwdArgs &a, int4 t)
{
    const size_t row0 = ((size_t)(t.x / a.group) * a.seqlen + (size_t)t.y * BWD_BLOCK_N) * D;
    bwd_load_tile<D, BWD_BLOCK_N>(s.k, a.k + row0);
    bwd_load_tile<D, BWD_BLOCK_N>(s.v, a.v + row0);
}

/* acc[16 x 64] (this warp's KV rows x the Q tile) = A_rows . B^T, A = K or V rows, B = Q or dO. */
template <int D>
__device__ static inline void bwd_gemm_rows_qt(float (&acc)[8][4], const __nv_bfloat16 *sa, const __nv_bfloat16 *sb)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            acc[j][i] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        uint32_t af[4];
        bwd_ldsm_x4(af, sa + bwd_swz<D>(warp * 16 + (lane & 15), kk * 16 + (lane >> 4) * 8));
#pragma unroll
        for (int n2 = 0; n2 < 4; n2++) {
            uint32_t bf[4];
            bwd_ldsm_x4(bf, sb + bwd_swz<D>(n2 * 16 + (lane & 7) + ((lane >> 4) << 3), kk * 16 + ((lane >> 3) & 1) * 8));
            bwd_mma(acc[2 * n2], af, bf[0], bf[1]);
            bwd_mma(acc[2 * n2 + 1], af, bf[2], bf[3]);
        }
    }
}

/* acc[16 x D] += A[16 x 64] (registers, mma A layout) . B[64 x D] (shared, [q][d]). */
template <int D>
__device__ static inline void bwd_gemm_acc(float (&acc)[D / 8][4], const uint32_t (&af)[4][4], const __nv_bfloat16 *sb)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int kk = 0; kk < 4; kk++)
#pragma unroll
        for (int n2 = 0; n2 < D / 16; n2++) {
            uint32_t bf[4];
            bwd_ldsm_x4_t(bf, sb + bwd_swz<D>(kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, n2 * 16 + (lane >> 4) * 8));
            bwd_mma(acc[2 * n2], af[kk], bf[0], bf[1]);
            bwd_mma(acc[2 * n2 + 1], af[kk], bf[2], bf[3]);
        }
}

/* P^T, dS^T of this warp's 16 x 64 block (registers, in place: s -> P, dp -> dS), packed into A fragments,
 * and dS^T written to shared memory for the dQ GEMM. */
template <int D>
__device__ static inline void bwd_softmax_grad(float (&s)[8][4], float (&dp)[8][4], uint32_t (&pa)[4][4],
                                               uint32_t (&dsa)[4][4], BwdSmem<D> &sm, const BwdArgs &a, int4 t,
                                               int b)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, tq = lane & 3;
    const int kv0 = t.y * BWD_BLOCK_N + warp * 16 + g, q0 = t.z * BWD_BLOCK_M;
    const bool is_masked = a.is_causal && q0 < t.y * BWD_BLOCK_N + BWD_BLOCK_N - 1;
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int col = j * 8 + 2 * tq + (i & 1), kv = kv0 + (i >> 1) * 8;
            float p = bwd_exp2(fmaf(s[j][i], a.scale_log2, -sm.lse2[b][col]));
            if (is_masked && q0 + col < kv)
                p = 0.0f;
            s[j][i] = p;
            dp[j][i] = p * (dp[j][i] - sm.delta[b][col]);
        }
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        pa[kk][0] = bwd_pack(s[2 * kk][0], s[2 * kk][1]);
        pa[kk][1] = bwd_pack(s[2 * kk][2], s[2 * kk][3]);
        pa[kk][2] = bwd_pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
        pa[kk][3] = bwd_pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
        dsa[kk][0] = bwd_pack(dp[2 * kk][0], dp[2 * kk][1]);
        dsa[kk][1] = bwd_pack(dp[2 * kk][2], dp[2 * kk][3]);
        dsa[kk][2] = bwd_pack(dp[2 * kk + 1][0], dp[2 * kk + 1][1]);
        dsa[kk][3] = bwd_pack(dp[2 * kk + 1][2], dp[2 * kk + 1][3]);
    }
    const int r0 = warp * 16 + g;
#pragma unroll
    for (int kk = 0; kk < 4; kk++) {
        const int c0 = kk * 16 + 2 * tq;
        *(uint32_t *)&sm.ds[bwd_swz<BWD_BLOCK_M>(r0, c0)] = dsa[kk][0];
        *(uint32_t *)&sm.ds[bwd_swz<BWD_BLOCK_M>(r0 + 8, c0)] = dsa[kk][1];
        *(uint32_t *)&sm.ds[bwd_swz<BWD_BLOCK_M>(r0, c0 + 8)] = dsa[kk][2];
        *(uint32_t *)&sm.ds[bwd_swz<BWD_BLOCK_M>(r0 + 8, c0 + 8)] = dsa[kk][3];
    }
}

/* dQ[64 x D] = dS[64 x 128] . K[128 x D]; warp w computes rows 16(w%4).., columns (w/4) D/2 .. */
template <int D> __device__ static inline void bwd_gemm_dq(float (&acc)[D / 16][4], const BwdSmem<D> &sm)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, mw = warp & 3, nh = warp >> 2;
#pragma unroll
    for (int j = 0; j < D / 16; j++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            acc[j][i] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < BWD_BLOCK_N / 16; kk++) {
        uint32_t af[4];
        bwd_ldsm_x4_t(af, sm.ds + bwd_swz<BWD_BLOCK_M>(kk * 16 + (lane & 7) + (lane >> 4) * 8, mw * 16 + ((lane >> 3) & 1) * 8));
#pragma unroll
        for (int n2 = 0; n2 < D / 32; n2++) {
            uint32_t bf[4];
            bwd_ldsm_x4_t(bf, sm.k + bwd_swz<D>(kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, nh * (D / 2) + n2 * 16 + (lane >> 4) * 8));
            bwd_mma(acc[2 * n2], af, bf[0], bf[1]);
            bwd_mma(acc[2 * n2 + 1], af, bf[2], bf[3]);
        }
    }
}

template <int D> __device__ static inline void bwd_stage_dq(const float (&acc)[D / 16][4], float *stage)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, tq = lane & 3;
    const int r0 = (warp & 3) * 16 + g;
#pragma unroll
    for (int j = 0; j < D / 16; j++) {
        const int col = (warp >> 2) * (D / 2) + j * 8 + 2 * tq;
        *(float2 *)&stage[gpu_tile_pos(r0, col, D)] = make_float2(acc[j][0], acc[j][1]);
        *(float2 *)&stage[gpu_tile_pos(r0 + 8, col, D)] = make_float2(acc[j][2], acc[j][3]);
    }
}

/* Writes this warp's rows of dK (scaled) and dV for the KV tile of task t. */
template <int D>
__device__ static inline void bwd_write_dkv(const float (&dk)[D / 8][4], const float (&dv)[D / 8][4], const BwdArgs &a,
                                            int4 t)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, tq = lane & 3;
    const size_t row = (size_t)t.y * BWD_BLOCK_N + warp * 16 + g;
    if (a.is_dkv_fp32) { /* GQA: per query head, summed over the group in a fixed order afterwards */
        float *gk = (float *)a.dk + ((size_t)t.x * a.seqlen + row) * D, *gv = (float *)a.dv + ((size_t)t.x * a.seqlen + row) * D;
#pragma unroll
        for (int j = 0; j < D / 8; j++) {
            const int col = j * 8 + 2 * tq;
            *(float2 *)&gk[col] = make_float2(dk[j][0], dk[j][1]);
            *(float2 *)&gk[8 * D + col] = make_float2(dk[j][2], dk[j][3]);
            *(float2 *)&gv[col] = make_float2(dv[j][0], dv[j][1]);
            *(float2 *)&gv[8 * D + col] = make_float2(dv[j][2], dv[j][3]);
        }
        return;
    }
    __nv_bfloat16 *gk = (__nv_bfloat16 *)a.dk + ((size_t)t.x * a.seqlen + row) * D;
    __nv_bfloat16 *gv = (__nv_bfloat16 *)a.dv + ((size_t)t.x * a.seqlen + row) * D;
#pragma unroll
    for (int j = 0; j < D / 8; j++) {
        const int col = j * 8 + 2 * tq;
        *(uint32_t *)&gk[col] = bwd_pack(dk[j][0] * a.scale, dk[j][1] * a.scale);
        *(uint32_t *)&gk[8 * D + col] = bwd_pack(dk[j][2] * a.scale, dk[j][3] * a.scale);
        *(uint32_t *)&gv[col] = bwd_pack(dv[j][0], dv[j][1]);
        *(uint32_t *)&gv[8 * D + col] = bwd_pack(dv[j][2], dv[j][3]);
    }
}

/* The compute warps' task loop. Buffer b = n % 2 holds task n's Q/dO; task n+1's copy is issued right after
 * the barrier that ends task n-1 (whose reads of that buffer are then complete). At a change of KV tile the
 * accumulators are written out and K/V reloaded behind a barrier. */
template <int D> __device__ static void bwd_compute(BwdSmem<D> &sm, const BwdArgs &a, int begin, int end)
{
    float dk[D / 8][4], dv[D / 8][4];
#pragma unroll
    for (int j = 0; j < D / 8; j++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            dk[j][i] = dv[j][i] = 0.0f;
    int4 t = a.tasks[begin];
    bwd_load_kv<D>(sm, a, t);
    bwd_load_q<D>(sm, a, t, 0);
    bwd_cp_commit();
    for (int i = begin, n = 0; i < end; i++, n++) {
        const int b = n & 1;
        const int4 next = i + 1 < end ? a.tasks[i + 1] : make_int4(-1, -1, -1, -1);
        const bool is_same_kv = next.x == t.x && next.y == t.y;
        long long *rec = a.rec ? a.rec + (size_t)i * BWD_REC_FIELDS : NULL;
        if (rec && threadIdx.x == 0) { /* stores only: nothing read back, no register held across the task */
            rec[0] = gpu_globaltimer();
            rec[8] = clock64();
        }
        bwd_cp_wait_all();
        gpu_bar_sync(BWD_BAR_COMPUTE, BWD_COMPUTE_THREADS);
        if (is_same_kv) {
            bwd_load_q<D>(sm, a, next, b ^ 1);
            bwd_cp_commit();
        }
        {
            float s[8][4], dp[8][4];
            uint32_t pa[4][4], dsa[4][4];
            bwd_gemm_rows_qt<D>(s, sm.k, sm.q[b]);
            bwd_gemm_rows_qt<D>(dp, sm.v, sm.dout[b]);
            bwd_softmax_grad<D>(s, dp, pa, dsa, sm, a, t, b);
            bwd_gemm_acc<D>(dv, pa, sm.dout[b]);
            bwd_gemm_acc<D>(dk, dsa, sm.q[b]);
        }
        gpu_bar_sync(BWD_BAR_COMPUTE, BWD_COMPUTE_THREADS); /* dS^T complete */
        float dq[D / 16][4];
        bwd_gemm_dq<D>(dq, sm);
        if (rec && threadIdx.x == 0) {
            rec[1] = gpu_globaltimer();
            rec[9] = clock64();
        }
        if (n >= 1)
            gpu_bar_sync(BWD_BAR_EMPTY, BWD_STORE_THREADS);
        bwd_stage_dq<D>(dq, sm.stage);
        gpu_fence_proxy_smem();
        gpu_bar_arrive(BWD_BAR_FULL, BWD_STORE_THREADS);
        if (rec && threadIdx.x == 0)
            rec[5] = rec[7] = gpu_globaltimer();
        if (!is_same_kv) {
            bwd_write_dkv<D>(dk, dv, a, t);
            if (rec && threadIdx.x == 0)
                rec[7] = gpu_globaltimer(); /* warp 0's part of the write: the others end within its spread */
#pragma unroll
            for (int j = 0; j < D / 8; j++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                    dk[j][k] = dv[j][k] = 0.0f;
            if (i + 1 < end) {
                gpu_bar_sync(BWD_BAR_COMPUTE, BWD_COMPUTE_THREADS); /* K/V and the other Q buffer are free */
                bwd_load_kv<D>(sm, a, next);
                bwd_load_q<D>(sm, a, next, b ^ 1);
                bwd_cp_commit();
            }
        }
        t = next;
    }
}

template <int D> __global__ void __launch_bounds__(BWD_THREADS, 1) bwd_kernel(BwdArgs a)
{
    BWD_SMEM_BASE(smem_raw);
    BwdSmem<D> &sm = *(BwdSmem<D> *)smem_raw;
    const int begin = a.block_begin[blockIdx.x], end = a.block_begin[blockIdx.x + 1];
    const long long t_entry = gpu_globaltimer();
    if (a.blk && threadIdx.x == 0) {
        a.blk[blockIdx.x * BWD_BLK_FIELDS + 0] = gpu_smid();
        a.blk[blockIdx.x * BWD_BLK_FIELDS + 1] = t_entry;
    }
    if (begin == end)
        return;
    /* Registers: 384 threads start with 168 each (64512 in all); setmaxnreg only moves registers inside
     * that allocation (an increase waits until they are free), so the producer warpgroup (the store warp
     * and three idle warps) gives 128 x (168 - 40) and the two compute warpgroups take 256 x (232 - 168). */
    if (threadIdx.x < BWD_COMPUTE_THREADS) {
        bwd_setmaxnreg_compute();
        bwd_compute<D>(sm, a, begin, end);
    } else {
        bwd_setmaxnreg_producer();
        if (threadIdx.x < BWD_STORE_THREADS)
            bwd_store_tasks<1, 1>(a, sm.stage, BWD_BLOCK_M * D, BWD_BAR_FULL, BWD_BAR_EMPTY, 0, BWD_STORE_THREADS, begin,
                                  end, 0, t_entry + a.timeout_ns);
    }
    if (a.blk && threadIdx.x == BWD_COMPUTE_THREADS)
        a.blk[blockIdx.x * BWD_BLK_FIELDS + 2] = gpu_globaltimer();
}

#endif

/* gpu-wg-test: checks on the GPU every wgmma operand and fragment layout the Hopper kernel assumes, through
 * the kernel's own functions (wg_mainloop_sm90.cuh), before the kernel is trusted: TMA tile loads with the 128-byte
 * swizzle, K-major A and B (S^T = K Q^T), the accumulator layout, accumulators repacked as the register A
 * operand against an N-major B (dV = P^T dO), the dS^T store, an M-major A against an N-major B split by
 * warpgroup (dQ = dS K, its half-row offset for head_dim 64) and the dQ staging layout. Operands are
 * integers in -1..1, so every product and sum is exact and the comparison is bit for bit.
 * Usage: gpu-wg-test. Exit 0 all layouts right, 1 a mismatch or a CUDA error. */
#include "../../gpu_host.h"
#include "wg_mainloop_sm90.cuh"
#include "wg_tmap.h"

#include <cuda_bf16.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

template <int D> using TestCfg = BwdWgCfg<D, 1, 1, 0, 0, 1, 64, 0>;
#define TEST_SMEM(D) bwd_wg_smem_bytes<TestCfg<D>>()

__device__ static void test_wait(uint64_t *bar)
{
    while (!wg_mbar_try_wait(bar, 0)) {
    }
}

/* s_out [128][64] (S^T), dv_out [128][D], dq_out [64 * D] in gpu_tile_pos layout. */
template <int D>
__global__ void __launch_bounds__(BWD_WG_THREADS, 1)
    wg_test_kernel(const __grid_constant__ BwdWgMaps m, float *s_out, float *dv_out, float *dq_out)
{
    WG_SMEM_BASE(smem_raw);
    BwdWgSmem<TestCfg<D>> &sm = *(BwdWgSmem<TestCfg<D>> *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    if (threadIdx.x == 0) {
        wg_mbar_init(&sm.kv_full, 1);
        wg_mbar_init(&sm.q_full[0], 1);
        wg_mbar_fence_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        wg_mbar_expect(&sm.kv_full, BWD_BLOCK_N * D * 2);
        wg_mbar_expect(&sm.q_full[0], 2 * BWD_BLOCK_M * D * 2);
        for (int cb = 0; cb < D / 64; cb++) {
            wg_tma_load(sm.k + cb * BWD_BLOCK_N * 64, &m.k, cb * 64, 0, &sm.kv_full);
            wg_tma_load(sm.q[0] + cb * BWD_BLOCK_M * 64, &m.q, cb * 64, 0, &sm.q_full[0]);
            wg_tma_load(sm.dout[0] + cb * BWD_BLOCK_M * 64, &m.dout, cb * 64, 0, &sm.q_full[0]);
        }
    }
    if (threadIdx.x < BWD_WG_CONSUMER0)
        return;
    const int w = (threadIdx.x - BWD_WG_CONSUMER0) >> 7, lane = threadIdx.x & 31, wi = (threadIdx.x >> 5) & 3;
    test_wait(&sm.kv_full);
    test_wait(&sm.q_full[0]);
    float sc[32], dv[D / 2], dq[D / 4];
    uint32_t pa[4][4];
    wg_fence();
    wg_gemm_rows_qt<D, 64>(sc, sm.k, sm.q[0], w);
    wg_wait<0>();
    wg_keep_all(sc);
    for (int i = 0; i < 32; i++) /* the accumulator layout of wg_pack_a's comment */
        s_out[(w * 64 + wi * 16 + (lane >> 2) + 8 * ((i >> 1) & 1)) * 64 + 8 * (i / 4) + 2 * (lane & 3) + (i & 1)] = sc[i];
    wg_pack_a(pa, sc);
    wg_zero(dv);
    wg_fence();
    wg_gemm_acc<D, 64, 0, 4>(dv, *(const uint32_t(*)[1][4][4])pa, sm.dout[0]);
    wg_commit();
    wg_wait<0>();
    wg_keep_all(dv);
    for (int i = 0; i < D / 2; i++)
        dv_out[(w * 64 + wi * 16 + (lane >> 2) + 8 * ((i >> 1) & 1)) * D + 8 * (i / 4) + 2 * (lane & 3) + (i & 1)] = dv[i];
    wg_store_ds(pa, sm.ds[0], w);
    gpu_fence_proxy_smem();
    gpu_bar_sync(BWD_WG_BAR_DS, BWD_WG_CONSUMERS);
    wg_fence();
    wg_gemm_dq<D, 64>(dq, sm.ds[0], sm.k, w);
    wg_wait<0>();
    wg_keep_all(dq);
    wg_stage_dq<D, 64>(dq, sm.stage[0], w);
    gpu_bar_sync(BWD_WG_BAR_DS, BWD_WG_CONSUMERS);
    for (int i = threadIdx.x - BWD_WG_CONSUMER0; i < BWD_BLOCK_M * D; i += BWD_WG_CONSUMERS)
        dq_out[i] = sm.stage[0][i];
}

static float host_bf16(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}

/* Counts mismatches of got against want (n values) and prints the first few with their (row, col). */
static int compare(const char *what, const float *got, const float *want, int n, int cols)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 4)
            printf("  %s (%d, %d): got %g, want %g\n", what, i / cols, i % cols, got[i], want[i]);
    return bad;
}

/* The CPU's S^T [128][64], dV = S^T dO [128][D] (S^T exact in bf16: |S| <= 128) and dQ = S K [64][D] in
 * gpu_tile_pos layout, from K [128][D], Q and dO [64][D]. */
template <int D>
static void reference(const __nv_bfloat16 *hk, const __nv_bfloat16 *hq, const __nv_bfloat16 *hdo, float *rs, float *rdv,
                      float *rdq)
{
    for (int r = 0; r < BWD_BLOCK_N; r++)
        for (int c = 0; c < 64; c++)
            for (int k = 0; k < D; k++)
                rs[r * 64 + c] += host_bf16(hk[r * D + k]) * host_bf16(hq[c * D + k]);
    for (int r = 0; r < BWD_BLOCK_N; r++)
        for (int c = 0; c < D; c++)
            for (int q = 0; q < 64; q++)
                rdv[r * D + c] += rs[r * 64 + q] * host_bf16(hdo[q * D + c]);
    for (int q = 0; q < 64; q++)
        for (int c = 0; c < D; c++) {
            float acc = 0.0f;
            for (int r = 0; r < BWD_BLOCK_N; r++)
                acc += rs[r * 64 + q] * host_bf16(hk[r * D + c]);
            rdq[gpu_tile_pos(q, c, D)] = acc;
        }
}

template <int D> static int run_test(void)
{
    const int nk = BWD_BLOCK_N * D, nq = BWD_BLOCK_M * D;
    __nv_bfloat16 *hk = (__nv_bfloat16 *)malloc(2 * nk), *hq = (__nv_bfloat16 *)malloc(2 * nq),
                  *hdo = (__nv_bfloat16 *)malloc(2 * nq);
    unsigned x = 12345u + D;
    for (int i = 0; i < nk; i++)
        hk[i] = __float2bfloat16((float)((int)((x = x * 1664525u + 1013904223u) >> 16) % 3 - 1));
    for (int i = 0; i < nq; i++) {
        hq[i] = __float2bfloat16((float)((int)((x = x * 1664525u + 1013904223u) >> 16) % 3 - 1));
        hdo[i] = __float2bfloat16((float)((int)((x = x * 1664525u + 1013904223u) >> 16) % 3 - 1));
    }
    float *rs = (float *)calloc(BWD_BLOCK_N * 64, 4), *rdv = (float *)calloc(nk, 4), *rdq = (float *)calloc(nq, 4);
    reference<D>(hk, hq, hdo, rs, rdv, rdq);
    __nv_bfloat16 *dk, *dq, *ddo;
    float *s_out, *dv_out, *dq_out;
    GPU_CHECK(cudaMalloc(&dk, 2 * nk));
    GPU_CHECK(cudaMalloc(&dq, 2 * nq));
    GPU_CHECK(cudaMalloc(&ddo, 2 * nq));
    GPU_CHECK(cudaMalloc(&s_out, 4 * BWD_BLOCK_N * 64));
    GPU_CHECK(cudaMalloc(&dv_out, 4 * nk));
    GPU_CHECK(cudaMalloc(&dq_out, 4 * nq));
    GPU_CHECK(cudaMemcpy(dk, hk, 2 * nk, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemcpy(dq, hq, 2 * nq, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemcpy(ddo, hdo, 2 * nq, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemset(s_out, 0xFF, 4 * BWD_BLOCK_N * 64)); /* poisoned: NaN where nothing is written */
    GPU_CHECK(cudaMemset(dv_out, 0xFF, 4 * nk));
    GPU_CHECK(cudaMemset(dq_out, 0xFF, 4 * nq));
    BwdWgMaps maps;
    memset(&maps, 0, sizeof maps);
    if (wg_tmap_encode(&maps.k, dk, BWD_BLOCK_N, D, BWD_BLOCK_N) || wg_tmap_encode(&maps.q, dq, BWD_BLOCK_M, D, BWD_BLOCK_M) ||
        wg_tmap_encode(&maps.dout, ddo, BWD_BLOCK_M, D, BWD_BLOCK_M)) {
        printf("d %d: cannot encode the tensor maps\n", D);
        return 1;
    }
    GPU_CHECK(cudaFuncSetAttribute((const void *)wg_test_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)TEST_SMEM(D)));
    wg_test_kernel<D><<<1, BWD_WG_THREADS, TEST_SMEM(D)>>>(maps, s_out, dv_out, dq_out);
    gpu_check_launch("wg_test_kernel", __FILE__, __LINE__);
    float *gs = (float *)malloc(4 * BWD_BLOCK_N * 64), *gdv = (float *)malloc(4 * nk), *gdq = (float *)malloc(4 * nq);
    GPU_CHECK(cudaMemcpy(gs, s_out, 4 * BWD_BLOCK_N * 64, cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(gdv, dv_out, 4 * nk, cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(gdq, dq_out, 4 * nq, cudaMemcpyDeviceToHost));
    const int bs = compare("S^T", gs, rs, BWD_BLOCK_N * 64, 64), bdv = compare("dV", gdv, rdv, nk, D),
              bdq = compare("dQ (staged)", gdq, rdq, nq, D);
    printf("head_dim %d: S^T (TMA, K-major A and B, accumulators) %d of %d wrong; dV (register A, N-major B) %d of %d; "
           "dQ (dS^T store, M-major A, N-major B halves, staging) %d of %d: %s\n",
           D, bs, BWD_BLOCK_N * 64, bdv, nk, bdq, nq, bs + bdv + bdq ? "FAIL" : "ok");
    cudaFree(dk), cudaFree(dq), cudaFree(ddo), cudaFree(s_out), cudaFree(dv_out), cudaFree(dq_out);
    free(hk), free(hq), free(hdo), free(rs), free(rdv), free(rdq), free(gs), free(gdv), free(gdq);
    return bs + bdv + bdq ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "gpu-wg-test: unexpected argument %s (it takes none)\n", argv[1]);
        return 2;
    }
    const int rc = run_test<128>() | run_test<64>();
    return rc;
}

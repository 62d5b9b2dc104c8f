/* The backward's preprocess (both kernels): Delta = rowsum(dO * O) and the LSE in log2 units, read by every
 * task of the main kernel. */
#ifndef GPU_BWD_PREPROCESS_CUH
#define GPU_BWD_PREPROCESS_CUH

#include "bwd_common.cuh"

/* Delta = rowsum(dO * O) and LSE * log2(e), one warp per row. */
template <int D>
__global__ void bwd_pre_kernel(const __nv_bfloat16 *o, const __nv_bfloat16 *dout, const float *lse, float *delta,
                               float *lse2, long long rows)
{
    const long long row = (long long)blockIdx.x * 8 + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows)
        return;
    float sum = 0.0f;
#pragma unroll
    for (int c = lane * 2; c < D; c += 64) {
        const float2 x = __bfloat1622float2(*(const __nv_bfloat162 *)&o[row * D + c]);
        const float2 y = __bfloat1622float2(*(const __nv_bfloat162 *)&dout[row * D + c]);
        sum = fmaf(x.x, y.x, fmaf(x.y, y.y, sum));
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (lane == 0) {
        delta[row] = sum;
        lse2[row] = lse[row] * BWD_LOG2E;
    }
}

#endif

/* The backward's postprocess (both kernels): dQ from the fp32 accumulator (bf16, scaled), and with GQA dK/dV
 * of each KV head summed from its query heads' fp32 parts in a fixed order. */
#ifndef GPU_BWD_POSTPROCESS_CUH
#define GPU_BWD_POSTPROCESS_CUH

#include "bwd_common.cuh"

/* dQ (bf16, [heads][seqlen][D]) = scale * dQaccum, its tiles in gpu_tile_pos_z layout Z; one thread per 8 elements. */
template <int D, int Z>
__global__ void bwd_post_dq_kernel(const float *acc, __nv_bfloat16 *dq, float scale, long long n8)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n8)
        return;
    const long long e = i * 8, row = e / D; /* row of [heads * seqlen] */
    const int col = (int)(e % D), r = (int)(row % BWD_BLOCK_M);
    const float *tile = acc + (row / BWD_BLOCK_M) * (long long)(BWD_BLOCK_M * D);
    const float4 x = *(const float4 *)&tile[gpu_tile_pos_z(r, col, D, Z)];
    const float4 y = *(const float4 *)&tile[gpu_tile_pos_z(r, col + 4, D, Z)];
    uint4 out;
    out.x = bwd_pack(x.x * scale, x.y * scale);
    out.y = bwd_pack(x.z * scale, x.w * scale);
    out.z = bwd_pack(y.x * scale, y.y * scale);
    out.w = bwd_pack(y.z * scale, y.w * scale);
    *(uint4 *)&dq[e] = out;
}

/* GQA: dK/dV of kv head (b, j) = the fp32 per-query-head parts of its group summed in order g = 0..G-1. */
__global__ void bwd_post_dkv_kernel(const float *dk_part, const float *dv_part, __nv_bfloat16 *dk, __nv_bfloat16 *dv,
                                    int group, long long per_head, float scale, long long n4)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4)
        return;
    const long long e = i * 4, kvh = e / per_head, off = e % per_head;
    float4 sk = make_float4(0, 0, 0, 0), sv = sk;
    for (int g = 0; g < group; g++) {
        const long long src = (kvh * group + g) * per_head + off;
        const float4 x = *(const float4 *)&dk_part[src], y = *(const float4 *)&dv_part[src];
        sk.x += x.x, sk.y += x.y, sk.z += x.z, sk.w += x.w;
        sv.x += y.x, sv.y += y.y, sv.z += y.z, sv.w += y.w;
    }
    uint2 ok, ov;
    ok.x = bwd_pack(sk.x * scale, sk.y * scale);
    ok.y = bwd_pack(sk.z * scale, sk.w * scale);
    ov.x = bwd_pack(sv.x, sv.y);
    ov.y = bwd_pack(sv.z, sv.w);
    *(uint2 *)&dk[e] = ok;
    *(uint2 *)&dv[e] = ov;
}

#endif

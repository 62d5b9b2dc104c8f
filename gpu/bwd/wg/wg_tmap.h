/* Host side of the Hopper kernel's TMA loads: a 2D tensor map over a row-major bf16 matrix with boxes of 64
 * columns (128 bytes, the 128-byte swizzle's row) by box_rows rows. cuTensorMapEncodeTiled is reached through
 * the runtime's driver entry point, so nothing links against libcuda. Included by bwd.cu and wg_test.cu. */
#ifndef GPU_BWD_WG_TMAP_H
#define GPU_BWD_WG_TMAP_H

#include <cuda.h>
#include <cuda_runtime.h>

typedef CUresult (*WgTmapEncodeFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                   const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* Encodes map for base[rows][cols] (cols a multiple of 64, base 16-byte aligned). Returns 0, or -1 when the
 * driver has no cuTensorMapEncodeTiled, or the CUresult of the encoding. */
static inline int wg_tmap_encode(CUtensorMap *map, const void *base, long long rows, int cols, int box_rows)
{
    static WgTmapEncodeFn encode;
    if (!encode) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess || !fn)
            return -1;
        encode = (WgTmapEncodeFn)fn;
    }
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)cols * 2};
    const cuuint32_t box[2] = {64, (cuuint32_t)box_rows}, steps[2] = {1, 1};
    return (int)encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)base, dims, strides, box, steps,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

#endif

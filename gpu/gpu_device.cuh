/* Device building blocks shared by gpu-calib and gpu-exec: timers, gpu-scope release/acquire signalling,
 * the seeded tensor-core compute of one partial dQ tile, its staging into shared memory and the three ways
 * of adding a staged tile into dQaccum. Invariant: the partial tile of task (head, kv, q) is a pure function
 * of (head, kv, q, iters), bit for bit, and gpu_partial_value() computes the same value on the host. */
#ifndef GPU_DEVICE_CUH
#define GPU_DEVICE_CUH

#include <stdint.h>
#include <string.h>

/* Tiles: kBlockM = 16*MB rows (MB <= 8) and head_dim = 64*NB columns (NB in 1..2), spread over
 * GPU_COMPUTE_WARPS warps; warp w owns the 8-column n-blocks w*NB .. w*NB+NB-1 of every m-block. */
#define GPU_COMPUTE_WARPS 8
#define GPU_COMPUTE_THREADS (GPU_COMPUTE_WARPS * 32)
#define GPU_STORE_THREADS 32
#define GPU_SMEM_BYTES (200 * 1024) /* dynamic shared memory per CTA: forces one CTA per SM, as FA3 */
#define GPU_MAX_BUFFERS 4

/* How a staged tile is added into global memory. */
enum { GPU_OP_LDST = 0, /* float4 load (L2) + add + store, ordered by the semaphore */
       GPU_OP_RED = 1,  /* red.global.add.v4.f32 (fire and forget) */
       GPU_OP_BULK = 2  /* one thread: cp.reduce.async.bulk ... add.f32 of the whole tile */
};

/* ---- seeded inputs (host and device) ---- */

__host__ __device__ static inline uint32_t gpu_hash3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 0x165667B1u) * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

__host__ __device__ static inline uint32_t gpu_task_seed(int head, int kv, int q)
{
    return gpu_hash3((uint32_t)head, (uint32_t)kv + 0x1000u, (uint32_t)q + 0x2000u);
}

/* A (kBlockM x 16) and B (16 x head_dim) hold small integers in -2..2: bf16-exact, and every partial sum
 * of the GEMM is an exact fp32 integer, so the tensor cores' summation order cannot change the result. */
__host__ __device__ static inline int gpu_a_value(uint32_t seed, int row, int k)
{
    return (int)(gpu_hash3(seed, 0x100u + (uint32_t)k, (uint32_t)row) % 5u) - 2;
}

__host__ __device__ static inline int gpu_b_value(uint32_t seed, int k, int col)
{
    return (int)(gpu_hash3(seed ^ 0xABCD1234u, (uint32_t)k, (uint32_t)col) % 5u) - 2;
}

__host__ __device__ static inline float gpu_bits_float(uint32_t bits)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(bits);
#else
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

/* Per-task scale in [2^-5, 2^3) and bias in +-[2^-4, 2^2) with random mantissas: the rounding of the
 * fp32 sums in dQaccum then depends on the accumulation order. */
__host__ __device__ static inline float gpu_task_scale(uint32_t seed)
{
    uint32_t h = gpu_hash3(seed, 7u, 7u);
    return gpu_bits_float(((uint32_t)(127 - 5 + (int)(h & 7u)) << 23) | ((h >> 8) & 0x7FFFFFu));
}

__host__ __device__ static inline float gpu_task_bias(uint32_t seed)
{
    uint32_t h = gpu_hash3(seed, 9u, 9u);
    return gpu_bits_float((h & 0x80000000u) | ((uint32_t)(127 - 4 + (int)(h % 6u)) << 23) |
                          ((h >> 8) & 0x7FFFFFu));
}

/* Position of element (row, col) in a kBlockM x head_dim fp32 tile, in shared memory and in dQaccum alike
 * (the bulk reduce copies the tile as is): row-major with the 16-byte chunks of each row XOR-swizzled within
 * each aligned 128 bytes (needs head_dim % 32 == 0; FA3 likewise keeps dQaccum in its shared-memory layout).
 * z = 0 (gpu_tile_pos, every kernel but the Hopper variants named ...z, ...y): the XOR is row % 8, so that the
 * eight rows a warp's mma fragment covers land in different banks. z = 1: a warp's 8-byte fragment store is served
 * a half-warp at a time, lanes 0-15 covering 4 rows x 2 adjacent chunks, and row % 8 puts rows 0-3 (and 4-7) in 4
 * of the 8 chunk columns: 4 wavefronts a store instead of 2 (Nsight Compute, gpu/bwd/NOTES.md call 11: 39% of the
 * kernel's shared-store wavefronts). z = 1 XORs by (row % 4) * 2 + (row / 4) % 2: each half-warp's 8 chunks fall
 * in 8 distinct columns. */
__host__ __device__ static inline int gpu_tile_pos_z(int row, int col, int head_dim, int z)
{
    const int x = z ? ((row & 3) << 1) | ((row >> 2) & 1) : (row & 7);
    return row * head_dim + (((col >> 2) ^ x) << 2) + (col & 3);
}

__host__ __device__ static inline int gpu_tile_pos(int row, int col, int head_dim)
{
    return gpu_tile_pos_z(row, col, head_dim, 0);
}

/* ---- device primitives ---- */
#ifdef __CUDACC__

__device__ static inline long long gpu_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
}

__device__ static inline int gpu_smid(void)
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return (int)s;
}

__device__ static inline unsigned gpu_ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ static inline void gpu_st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* fence + release increment, as cutlass' GenericBarrier::arrive_inc. */
__device__ static inline void gpu_release_increment(unsigned *p)
{
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}

/* Spins (ld.acquire.gpu, no back-off, as FA3) until *p == want. Returns 0 and sets *err after deadline. */
__device__ static inline int gpu_wait_equal(const unsigned *p, unsigned want, long long deadline, int *err)
{
    unsigned n = 0;
    while (gpu_ld_acquire(p) != want) {
        if ((++n & 255u) == 0 && gpu_globaltimer() > deadline) {
            atomicExch(err, 1);
            return 0;
        }
    }
    return 1;
}

/* Named barriers: producer/consumer hand-off between warp groups (ids 1..15; 0 is __syncthreads). */
__device__ static inline void gpu_bar_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ static inline void gpu_bar_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ static inline uint32_t gpu_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* ---- compute: one partial dQ tile with mma.sync m16n8k16 bf16 -> fp32 ---- */

__device__ static inline uint32_t gpu_pack_bf16(int lo, int hi)
{
    /* small integers are exact in bf16: the top half of their fp32 pattern */
    return (__float_as_uint((float)lo) >> 16) | (__float_as_uint((float)hi) & 0xFFFF0000u);
}

__device__ static inline void gpu_mma(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Computes this thread's fragments of the task's partial tile into acc (compute warps only: warp < 8).
 * iters mma rounds over the same operands (acc = iters * A.B, exact); with spin_cycles > 0 one round
 * is run, scaled by iters, and the thread then spins until spin_cycles have passed since start_clock. */
template <int MB, int NB>
__device__ static inline void gpu_tile_compute(float (&acc)[MB][NB][4], int head, int kv, int q, int iters,
                                               long long spin_cycles, long long start_clock)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const uint32_t seed = gpu_task_seed(head, kv, q);
    uint32_t a[MB][4], b[NB][2];
#pragma unroll
    for (int mb = 0; mb < MB; mb++) {
        const int r0 = mb * 16 + g, r1 = r0 + 8;
        a[mb][0] = gpu_pack_bf16(gpu_a_value(seed, r0, 2 * t), gpu_a_value(seed, r0, 2 * t + 1));
        a[mb][1] = gpu_pack_bf16(gpu_a_value(seed, r1, 2 * t), gpu_a_value(seed, r1, 2 * t + 1));
        a[mb][2] = gpu_pack_bf16(gpu_a_value(seed, r0, 2 * t + 8), gpu_a_value(seed, r0, 2 * t + 9));
        a[mb][3] = gpu_pack_bf16(gpu_a_value(seed, r1, 2 * t + 8), gpu_a_value(seed, r1, 2 * t + 9));
    }
#pragma unroll
    for (int nb = 0; nb < NB; nb++) {
        const int col = (warp * NB + nb) * 8 + g;
        b[nb][0] = gpu_pack_bf16(gpu_b_value(seed, 2 * t, col), gpu_b_value(seed, 2 * t + 1, col));
        b[nb][1] = gpu_pack_bf16(gpu_b_value(seed, 2 * t + 8, col), gpu_b_value(seed, 2 * t + 9, col));
    }
#pragma unroll
    for (int mb = 0; mb < MB; mb++)
#pragma unroll
        for (int nb = 0; nb < NB; nb++)
#pragma unroll
            for (int i = 0; i < 4; i++)
                acc[mb][nb][i] = 0.0f;
    const int rounds = spin_cycles > 0 ? 1 : iters;
    for (int it = 0; it < rounds; it++) {
#pragma unroll
        for (int mb = 0; mb < MB; mb++)
#pragma unroll
            for (int nb = 0; nb < NB; nb++)
                gpu_mma(acc[mb][nb], a[mb], b[nb]);
    }
    const float scale = gpu_task_scale(seed), bias = gpu_task_bias(seed);
    const float times = spin_cycles > 0 ? (float)iters : 1.0f;
#pragma unroll
    for (int mb = 0; mb < MB; mb++)
#pragma unroll
        for (int nb = 0; nb < NB; nb++)
#pragma unroll
            for (int i = 0; i < 4; i++)
                acc[mb][nb][i] = __fadd_rn(__fmul_rn(__fmul_rn(acc[mb][nb][i], times), scale), bias);
    if (spin_cycles > 0)
        while (clock64() - start_clock < spin_cycles) {
        }
}

/* Writes the thread's fragments into the staging tile, element (row, col) at gpu_tile_pos(row, col). */
template <int MB, int NB>
__device__ static inline void gpu_tile_stage(const float (&acc)[MB][NB][4], float *stage)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int d = NB * 64;
#pragma unroll
    for (int mb = 0; mb < MB; mb++)
#pragma unroll
        for (int nb = 0; nb < NB; nb++) {
            const int col = (warp * NB + nb) * 8 + 2 * t, r0 = mb * 16 + g;
            *(float2 *)&stage[gpu_tile_pos(r0, col, d)] = make_float2(acc[mb][nb][0], acc[mb][nb][1]);
            *(float2 *)&stage[gpu_tile_pos(r0 + 8, col, d)] = make_float2(acc[mb][nb][2], acc[mb][nb][3]);
        }
}

/* Makes generic-proxy writes to shared memory visible to the bulk copy engine (each writing thread). */
__device__ static inline void gpu_fence_proxy_smem(void)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* ---- reduction of a staged tile into dQaccum ---- */

/* Threads lid = 0..nthr-1 add the n_floats of stage into gdst (16-byte aligned, n_floats % 4 == 0).
 * LDST reads dQaccum through L2 (.cg): a CTA may add to the same tile twice, and L1 is not coherent. */
__device__ static inline void gpu_reduce_vec(int op, const float *stage, float *gdst, int n_floats, int lid,
                                             int nthr)
{
    const float4 *s4 = (const float4 *)stage;
    float4 *g4 = (float4 *)gdst;
    const int n4 = n_floats / 4;
    if (op == GPU_OP_RED) {
        for (int i = lid; i < n4; i += nthr) {
            float4 v = s4[i];
            asm volatile("red.global.add.v4.f32 [%0], {%1,%2,%3,%4};" ::"l"(g4 + i), "f"(v.x), "f"(v.y),
                         "f"(v.z), "f"(v.w)
                         : "memory");
        }
        return;
    }
    int i = lid;
    for (; i + 3 * nthr < n4; i += 4 * nthr) { /* four loads in flight per thread */
        float4 d[4], v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            d[u] = __ldcg(g4 + i + u * nthr);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            v[u] = s4[i + u * nthr];
            d[u].x = __fadd_rn(d[u].x, v[u].x);
            d[u].y = __fadd_rn(d[u].y, v[u].y);
            d[u].z = __fadd_rn(d[u].z, v[u].z);
            d[u].w = __fadd_rn(d[u].w, v[u].w);
            __stcg(g4 + i + u * nthr, d[u]);
        }
    }
    for (; i < n4; i += nthr) {
        float4 d = __ldcg(g4 + i), v = s4[i];
        d.x = __fadd_rn(d.x, v.x);
        d.y = __fadd_rn(d.y, v.y);
        d.z = __fadd_rn(d.z, v.z);
        d.w = __fadd_rn(d.w, v.w);
        __stcg(g4 + i, d);
    }
}

/* One thread: bulk reduce-add of the whole staged tile (TMA engine, fp32 add at L2). */
__device__ static inline void gpu_reduce_bulk_issue(const float *stage, float *gdst, int n_floats)
{
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(gdst),
                 "r"(gpu_smem_addr(stage)), "r"(n_floats * 4)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* The bulk engine has finished reading the staging buffer (it may be overwritten). */
__device__ static inline void gpu_bulk_wait_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

/* The bulk reduction is complete; order its global writes before a later generic-proxy release. */
__device__ static inline void gpu_bulk_wait_done(void)
{
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    asm volatile("fence.proxy.async.global;" ::: "memory");
}

/* ---- compute calibration: every CTA computes one tile with iters rounds; thread 0 records cycles,
 * globaltimer ns and the SM. Launch with GPU_COMPUTE_THREADS threads and GPU_SMEM_BYTES. ---- */
template <int MB, int NB>
__global__ void __launch_bounds__(GPU_COMPUTE_THREADS, 1)
    gpu_compute_calib_kernel(int iters, long long spin_cycles, long long *out, float *sink)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float acc[MB][NB][4];
    __syncthreads();
    long long c0 = clock64(), t0 = gpu_globaltimer();
    gpu_tile_compute<MB, NB>(acc, 0, (int)blockIdx.x, 1, iters, spin_cycles, c0);
    long long c1 = clock64(), t1 = gpu_globaltimer();
    gpu_tile_stage<MB, NB>(acc, (float *)smem);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[blockIdx.x * 3 + 0] = c1 - c0;
        out[blockIdx.x * 3 + 1] = t1 - t0;
        out[blockIdx.x * 3 + 2] = gpu_smid();
        sink[blockIdx.x] = ((float *)smem)[blockIdx.x % 64];
    }
}

#endif /* __CUDACC__ */

/* Host reference of element (row, col) of a task's partial tile, identical bit for bit to the device:
 * scale = gpu_task_scale(seed), bias = gpu_task_bias(seed); two separately rounded fp32 operations. */
static inline float gpu_partial_value(const int8_t *a_row /* 16 values */, const int8_t *b_col /* 16 values */,
                                      int iters, float scale, float bias)
{
    int dot = 0;
    for (int k = 0; k < 16; k++)
        dot += a_row[k] * b_col[k];
    volatile float prod = (float)(dot * iters) * scale;
    return prod + bias;
}

#endif

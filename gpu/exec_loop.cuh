/* The executor's task loop (gpu-exec runs plans with it; gpu-calib's task_loop profile times it with every
 * rank already there). Per task: compute a seeded partial dQ tile on the tensor cores, wait until the row
 * semaphore equals the task's rank, add the tile into dQaccum, release-increment the semaphore; five
 * %globaltimer stamps per task (c_start, c_end, r_ready, r_start, r_end) and a per-block record (smid,
 * clock64 and globaltimer at entry and exit). Serial: the compute warps also reduce. Async: a store warp
 * reduces while the compute warps go on (nbuf staging buffers). Included by one .cu of each binary. */
#ifndef GPU_EXEC_LOOP_CUH
#define GPU_EXEC_LOOP_CUH

#include "gpu_device.cuh"

#define EXEC_THREADS_ASYNC (GPU_COMPUTE_THREADS + GPU_STORE_THREADS)
#define BAR_FULL 1                   /* +buffer: staging buffer b holds a tile for the store warp */
#define BAR_EMPTY (1 + GPU_MAX_BUFFERS) /* +buffer: the store warp has read staging buffer b */
#define REC_FIELDS 5                 /* c_start, c_end, r_ready, r_start, r_end */
#define BLK_FIELDS 5                 /* smid, clock64 at entry, at exit, globaltimer at entry, at exit */

typedef struct {
    const int4 *tasks;      /* execution order: head, kv, q, rank */
    const int *block_begin; /* block b runs tasks block_begin[b] .. block_begin[b+1]-1 */
    float *dq;              /* [heads][q_tiles][tile] */
    unsigned *sem;          /* [q_tiles][heads], as FA3's dq_semaphore */
    long long *rec;         /* [task][REC_FIELDS], globaltimer ns */
    long long *blk;         /* [block][BLK_FIELDS] */
    int *err;               /* set to 1 when a wait passed its deadline */
    int heads, q_tiles, iters, op, nbuf;
    int reduce_threads;     /* serial ldst/red: threads 0..reduce_threads-1 add the tile */
    long long spin_cycles, timeout_ns;
} ExecArgs;

/* Task t's partial dQ tile into acc, stamped c_start and c_end (rec[0], rec[1]) by thread 0. */
template <int MB, int NB>
__device__ __forceinline__ static void exec_compute_stamped(const ExecArgs &a, int4 t, long long *rec,
                                                            float (&acc)[MB][NB][4])
{
    long long c0 = clock64();
    if (threadIdx.x == 0)
        rec[0] = gpu_globaltimer();
    gpu_tile_compute<MB, NB>(acc, t.x, t.y, t.z, a.iters, a.spin_cycles, c0);
    if (threadIdx.x == 0)
        rec[1] = gpu_globaltimer();
}

/* serial: the compute warps also wait, reduce and release (no overlap of a task's R with the next C). */
template <int MB, int NB>
__device__ static void exec_serial(const ExecArgs &a, const int4 *tasks, float *stage, int begin, int end,
                                   long long deadline)
{
    const int tile = MB * 16 * NB * 64, tid = threadIdx.x;
    for (int i = begin; i < end; i++) {
        const int4 t = tasks[i - begin];
        long long *rec = a.rec + (long long)i * REC_FIELDS;
        float acc[MB][NB][4];
        exec_compute_stamped<MB, NB>(a, t, rec, acc);
        gpu_tile_stage<MB, NB>(acc, stage);
        if (a.op == GPU_OP_BULK)
            gpu_fence_proxy_smem();
        __syncthreads();
        float *dst = a.dq + ((size_t)t.x * a.q_tiles + t.z) * tile;
        unsigned *sem = a.sem + (size_t)t.z * a.heads + t.x;
        if (tid == 0) {
            rec[2] = gpu_globaltimer();
            gpu_wait_equal(sem, (unsigned)t.w, deadline, a.err);
            rec[3] = gpu_globaltimer();
        }
        if (a.op == GPU_OP_BULK) {
            if (tid == 0) {
                gpu_reduce_bulk_issue(stage, dst, tile);
                gpu_bulk_wait_read();
                gpu_bulk_wait_done();
                gpu_release_increment(sem);
                rec[4] = gpu_globaltimer();
            }
        } else {
            __syncthreads();
            if (tid < a.reduce_threads)
                gpu_reduce_vec(a.op, stage, dst, tile, tid, a.reduce_threads);
            __syncthreads();
            if (tid == 0) {
                gpu_release_increment(sem);
                rec[4] = gpu_globaltimer();
            }
        }
        __syncthreads();
    }
}

/* async, compute warps: compute task n, wait until the store warp has read what buffer n % nbuf held,
 * stage the tile there, signal the store warp, go on with task n+1 (FA3's one-deep dQ buffer). */
template <int MB, int NB>
__device__ static void exec_compute_warps(const ExecArgs &a, const int4 *tasks, float *stage, int begin, int end)
{
    const int tile = MB * 16 * NB * 64;
    for (int i = begin, n = 0; i < end; i++, n++) {
        const int4 t = tasks[i - begin];
        long long *rec = a.rec + (long long)i * REC_FIELDS;
        float acc[MB][NB][4];
        exec_compute_stamped<MB, NB>(a, t, rec, acc);
        const int b = n % a.nbuf;
        if (n >= a.nbuf)
            gpu_bar_sync(BAR_EMPTY + b, EXEC_THREADS_ASYNC);
        gpu_tile_stage<MB, NB>(acc, stage + (size_t)b * tile);
        if (a.op == GPU_OP_BULK)
            gpu_fence_proxy_smem();
        gpu_bar_arrive(BAR_FULL + b, EXEC_THREADS_ASYNC);
    }
}

/* async, store warp: per task in order, wait for the staged tile, spin on the row semaphore, add the tile,
 * free the buffer as soon as it has been read, then complete, fence and release-increment. */
template <int MB, int NB>
__device__ static void exec_store_warp(const ExecArgs &a, const int4 *tasks, float *stage, int begin, int end,
                                       long long deadline)
{
    const int tile = MB * 16 * NB * 64, lane = threadIdx.x & 31, count = end - begin;
    for (int i = begin, n = 0; i < end; i++, n++) {
        const int4 t = tasks[i - begin];
        long long *rec = a.rec + (long long)i * REC_FIELDS;
        const int b = n % a.nbuf;
        const float *src = stage + (size_t)b * tile;
        float *dst = a.dq + ((size_t)t.x * a.q_tiles + t.z) * tile;
        unsigned *sem = a.sem + (size_t)t.z * a.heads + t.x;
        gpu_bar_sync(BAR_FULL + b, EXEC_THREADS_ASYNC);
        if (lane == 0) {
            rec[2] = gpu_globaltimer();
            gpu_wait_equal(sem, (unsigned)t.w, deadline, a.err);
            rec[3] = gpu_globaltimer();
        }
        __syncwarp();
        if (a.op == GPU_OP_BULK) {
            if (lane == 0) {
                gpu_reduce_bulk_issue(src, dst, tile);
                gpu_bulk_wait_read();
            }
        } else {
            gpu_reduce_vec(a.op, src, dst, tile, lane, 32);
        }
        __syncwarp();
        if (n + a.nbuf < count)
            gpu_bar_arrive(BAR_EMPTY + b, EXEC_THREADS_ASYNC);
        if (lane == 0) {
            if (a.op == GPU_OP_BULK)
                gpu_bulk_wait_done();
            gpu_release_increment(sem);
            rec[4] = gpu_globaltimer();
        }
        __syncwarp();
    }
}

template <int MB, int NB, bool ASYNC>
__global__ void __launch_bounds__(EXEC_THREADS_ASYNC, 1) exec_kernel(ExecArgs a)
{
    extern __shared__ __align__(128) unsigned char smem[];
    float *stage = (float *)smem;
    const int begin = a.block_begin[blockIdx.x], end = a.block_begin[blockIdx.x + 1];
    const long long t_entry = gpu_globaltimer(), deadline = t_entry + a.timeout_ns;
    long long *blk = a.blk + (size_t)blockIdx.x * BLK_FIELDS;
    if (threadIdx.x == 0) {
        blk[0] = gpu_smid();
        blk[1] = clock64();
        blk[3] = t_entry;
    }
    /* The block's task list moves to shared memory behind the staging buffers when it fits, so that no
     * global load latency lands inside a task's compute phase. */
    const size_t stage_bytes = (size_t)a.nbuf * (MB * 16 * NB * 64) * sizeof(float);
    const int4 *tasks = a.tasks + begin;
    if ((size_t)(end - begin) * sizeof(int4) <= GPU_SMEM_BYTES - stage_bytes) {
        int4 *copy = (int4 *)(smem + stage_bytes);
        for (int i = threadIdx.x; i < end - begin; i += blockDim.x)
            copy[i] = a.tasks[begin + i];
        tasks = copy;
    }
    __syncthreads();
    if (!ASYNC)
        exec_serial<MB, NB>(a, tasks, stage, begin, end, deadline);
    else if (threadIdx.x < GPU_COMPUTE_THREADS)
        exec_compute_warps<MB, NB>(a, tasks, stage, begin, end);
    else
        exec_store_warp<MB, NB>(a, tasks, stage, begin, end, deadline);
    __syncthreads();
    if (threadIdx.x == 0) {
        blk[2] = clock64();
        blk[4] = gpu_globaltimer();
    }
}

#endif

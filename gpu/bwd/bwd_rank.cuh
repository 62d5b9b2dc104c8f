/* The rank protocol both kernels' store warps run (docs/kernel.md, "The rank protocol"): wait for the staged
 * partial dQ, (deterministic) spin until the row semaphore equals the task's rank, add the tile into dQaccum with
 * one bulk reduce, free the staging buffer, complete, fence and release the row. Invariant: a dQ row's partial
 * tiles are added strictly in rank order (deterministic mode), and every wait ends by the block's deadline. */
#ifndef GPU_BWD_RANK_CUH
#define GPU_BWD_RANK_CUH

#include "bwd_common.cuh"

/* Waits until *sem == rank; past the deadline records who waited for what and gives up (the run fails). */
__device__ static inline void bwd_wait_rank(const BwdArgs &a, const unsigned *sem, int4 t, long long deadline)
{
    unsigned n = 0, v;
    while ((v = gpu_ld_acquire(sem)) != (unsigned)t.w) {
        if ((++n & 255u) == 0 && gpu_globaltimer() > deadline) {
            if (atomicCAS(&a.err->flag, 0, 1) == 0) {
                a.err->block = (int)blockIdx.x;
                a.err->head = t.x;
                a.err->q = t.z;
                a.err->rank = t.w;
                a.err->seen = v;
            }
            return;
        }
    }
}

/* A store warp's tasks (both kernels: the fallback's and the Hopper kernel's, wg/wg_kernel_sm90.cuh): tasks begin + first, then
 * every SW-th, in order; per task wait for the staged tile (named barrier FULL of its staging buffer b,
 * NB buffers: stage0 + b tile, barriers full0 + b bar_step and empty0 + b bar_step, `threads` taking part),
 * (deterministic) spin until the row semaphore equals the task's rank, add the tile with one bulk reduce,
 * free the buffer once read (EMPTY), complete, fence and release the row. Stamps r_ready, r_start, r_read,
 * r_end. With SW = 2 each of two warps owns one buffer (b = first). */
template <int NB, int SW>
__device__ static void bwd_store_tasks(const BwdArgs &a, float *stage0, int tile, int full0, int empty0, int bar_step,
                                       int threads, int begin, int end, int first, long long deadline)
{
    const int lane = threadIdx.x & 31;
    for (int i = begin + first, b = first; i < end; i += SW, b = SW == 1 && NB == 2 ? b ^ 1 : b) {
        const int4 t = a.tasks[i];
        long long *rec = a.rec ? a.rec + (size_t)i * BWD_REC_FIELDS : NULL;
        float *dst = a.dq_accum + ((size_t)t.x * a.q_tiles + t.z) * tile;
        unsigned *sem = a.sem + (size_t)t.z * a.heads + t.x;
        gpu_bar_sync(full0 + b * bar_step, threads);
        if (lane == 0) {
            if (rec)
                rec[2] = gpu_globaltimer();
            if (!a.is_atomic)
                bwd_wait_rank(a, sem, t, deadline);
            if (rec)
                rec[3] = gpu_globaltimer();
            gpu_reduce_bulk_issue(stage0 + b * tile, dst, tile);
            gpu_bulk_wait_read();
            if (rec)
                rec[6] = gpu_globaltimer();
        }
        __syncwarp();
        if (i + NB < end)
            gpu_bar_arrive(empty0 + b * bar_step, threads);
        if (lane == 0) {
            if (!a.is_atomic) {
                gpu_bulk_wait_done();
                gpu_release_increment(sem);
            }
            if (rec)
                rec[4] = gpu_globaltimer();
        }
        __syncwarp();
    }
    if (lane == 0)
        bwd_bulk_wait_all(); /* atomic mode: adds done before exit */
}

#endif

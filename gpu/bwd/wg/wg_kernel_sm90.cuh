/* The Hopper backward kernel (docs/kernel.md, "The Hopper kernel"): one CTA's roles, dispatched by warpgroup with
 * the register split between them: the producer and the store warp(s) (the rank protocol, ../bwd_rank.cuh) in the
 * first, the two consumer warpgroups running the mainloop (wg_mainloop_sm90.cuh) in the others. Invariant: the
 * register split keeps the launch's total (256 REG_C + 128 REG_P = 384 x 168). */
#ifndef GPU_BWD_WG_KERNEL_SM90_CUH
#define GPU_BWD_WG_KERNEL_SM90_CUH

#include "../bwd_rank.cuh"
#include "wg_mainloop_sm90.cuh"

template <class C>
__global__ void __launch_bounds__(BWD_WG_THREADS, 1) bwd_wg_kernel(const BwdArgs a, const __grid_constant__ BwdWgMaps m)
{
    WG_SMEM_BASE(smem_raw);
    BwdWgSmem<C> &sm = *(BwdWgSmem<C> *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    const int begin = a.block_begin[blockIdx.x], end = a.block_begin[blockIdx.x + 1];
    const long long t_entry = gpu_globaltimer(), deadline = t_entry + a.timeout_ns;
    if (a.blk && threadIdx.x == 0) {
        a.blk[blockIdx.x * BWD_BLK_FIELDS + 0] = gpu_smid();
        a.blk[blockIdx.x * BWD_BLK_FIELDS + 1] = t_entry;
    }
    if (begin == end)
        return;
    if (threadIdx.x == 0) {
        for (int s = 0; s < C::ST; s++) {
            wg_mbar_init(&sm.q_full[s], 1);
            wg_mbar_init(&sm.q_empty[s], BWD_WG_CONSUMERS);
        }
        wg_mbar_init(&sm.kv_full, 1);
        wg_mbar_init(&sm.kv_empty, BWD_WG_CONSUMERS);
        wg_mbar_fence_init();
    }
    __syncthreads();
    /* Registers: 384 threads x 168 at entry; the producer warpgroup gives 128 x (168 - REG_P), the consumers
     * take 256 x (REG_C - 168): the same 16,384 (an increase waits for registers that are free). */
    if (threadIdx.x < BWD_WG_CONSUMER0) {
        wg_setmaxnreg_dec<C::REG_P>();
        if (threadIdx.x == 0) {
            wg_prefetch_tmap(&m.q);
            wg_prefetch_tmap(&m.k);
            wg_prefetch_tmap(&m.v);
            wg_prefetch_tmap(&m.dout);
            wg_produce<C>(sm, a, m, begin, end, deadline);
        } else if (threadIdx.x >= 32 && threadIdx.x < 32 + 32 * C::SW) {
            /* the store warp(s): bwd_rank.cuh's protocol, staging buffer b = task % NB */
            bwd_store_tasks<C::NB, C::SW>(a, sm.stage[0], C::BM * C::D, BWD_WG_BAR_FULL(0), BWD_WG_BAR_EMPTY(0),
                                          BWD_WG_BAR_FULL(1) - BWD_WG_BAR_FULL(0), BWD_WG_HANDOFF, begin, end,
                                          C::SW == 1 ? 0 : (threadIdx.x >> 5) - 1, deadline);
        }
    } else {
        wg_setmaxnreg_inc<C::REG_C>();
        wg_consume<C>(sm, a, begin, end, deadline);
    }
    if ((threadIdx.x >= 32 && threadIdx.x < 32 + 32 * C::SW) || threadIdx.x >= BWD_WG_CONSUMER0) {
        gpu_bar_sync(BWD_WG_BAR_END, BWD_WG_CONSUMERS + 32 * C::SW);
        if (a.blk && threadIdx.x == 32)
            a.blk[blockIdx.x * BWD_BLK_FIELDS + 2] = gpu_globaltimer();
    }
}

#endif

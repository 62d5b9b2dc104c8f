/* Host side of the real attention backward (docs/kernel.md): plan upload, work buffers, the launch sequence
 * (preprocess, main kernel, postprocess), the timeout report and the trace writer. Invariant: a handle's
 * task order on the GPU is gpu_order_build's order of the plan it was made from, and every KV tile of the
 * plan is one contiguous run of one GPU block's tasks (checked in bwd_new), so dK/dV are written once. */
#include "../gpu_host.h"
#include "../gpu_plan.h"
#include "bwd.h"
#include "bwd_fallback_sm80.cuh"
#include "bwd_postprocess.cuh"
#include "bwd_preprocess.cuh"
#include "wg/wg_kernel_sm90.cuh"
#include "wg/wg_tmap.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct BwdHandle {
    GpuPlan plan;
    GpuOrder order;
    int4 *d_tasks;
    int *d_begin;
    unsigned *d_sem;
    BwdErr *d_err;
    long long *d_rec, *d_blk;
    float *d_acc, *d_delta, *d_lse2, *d_dk_part, *d_dv_part; /* grown on demand */
    size_t acc_bytes, row_bytes, part_bytes;
    cudaEvent_t ev[5];          /* recorded runs: before the memsets, pre, main, post, after post */
    int is_causal, has_record, has_events, head_dim; /* head_dim: of the last run */
    char kernel[32]; /* "mma" (bwd_fallback_sm80.cuh) or a variant of the Hopper kernel (BWD_WG_VARIANTS) */
    char err[512];
};

static int fail(BwdHandle *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    return 2;
}

/* Every (head, kv) must be one run of consecutive tasks of one block: the accumulators live in registers. */
static int check_kv_runs(const GpuPlan *p, const GpuOrder *o, char *err, int errlen)
{
    size_t n = (size_t)p->heads * p->kv_tiles;
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    int rc = 0;
    for (int b = 0; b < o->block_count && !rc; b++)
        for (int i = o->block_begin[b]; i < o->block_begin[b + 1]; i++) {
            const GpuTask *t = &p->tasks[o->order[i]];
            const GpuTask *prev = i > o->block_begin[b] ? &p->tasks[o->order[i - 1]] : NULL;
            if (prev && prev->head == t->head && prev->kv == t->kv)
                continue;
            size_t k = (size_t)t->head * p->kv_tiles + t->kv;
            if (seen[k]++) {
                snprintf(err, errlen, "KV tile (head %d, kv %d) is split over two task runs; the kernel keeps "
                         "dK/dV in registers and needs one run per KV tile", t->head, t->kv);
                rc = 2;
                break;
            }
        }
    free(seen);
    return rc;
}

BwdHandle *bwd_new(const char *path, char *err, int errlen)
{
    BwdHandle *h = (BwdHandle *)calloc(1, sizeof *h);
    if (gpu_plan_read(path, &h->plan, err, (size_t)errlen)) {
        free(h);
        return NULL;
    }
    GpuPlan *p = &h->plan;
    if (p->tile_ratio != 1 && p->tile_ratio != 2) {
        snprintf(err, errlen, "%s: tile_ratio %d, but the kernels' tiles are 64 or 128 x %d (tile_ratio 2 or 1)", path,
                 p->tile_ratio, BWD_BLOCK_N);
        gpu_plan_clear(p);
        free(h);
        return NULL;
    }
    gpu_order_build(p, &h->order);
    if (check_kv_runs(p, &h->order, err, errlen)) {
        gpu_order_clear(&h->order);
        gpu_plan_clear(p);
        free(h);
        return NULL;
    }
    h->is_causal = !strcmp(p->mask, "causal");
    snprintf(h->kernel, sizeof h->kernel, "wgmma");
    const int n = p->task_count, blocks = h->order.block_count;
    int4 *tasks = (int4 *)malloc(sizeof(int4) * (n + 1));
    for (int i = 0; i < n; i++) {
        const GpuTask *t = &p->tasks[h->order.order[i]];
        tasks[i] = make_int4(t->head, t->kv, t->q, t->rank);
    }
    GPU_CHECK(cudaMalloc((void **)&h->d_tasks, sizeof(int4) * (n + 1)));
    GPU_CHECK(cudaMalloc((void **)&h->d_begin, sizeof(int) * (blocks + 1)));
    GPU_CHECK(cudaMalloc((void **)&h->d_sem, sizeof(unsigned) * p->heads * p->q_tiles));
    GPU_CHECK(cudaMalloc((void **)&h->d_err, sizeof(BwdErr)));
    GPU_CHECK(cudaMalloc((void **)&h->d_rec, sizeof(long long) * BWD_REC_FIELDS * (n + 1)));
    GPU_CHECK(cudaMalloc((void **)&h->d_blk, sizeof(long long) * BWD_BLK_FIELDS * blocks));
    GPU_CHECK(cudaMemcpy(h->d_tasks, tasks, sizeof(int4) * n, cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemcpy(h->d_begin, h->order.block_begin, sizeof(int) * (blocks + 1), cudaMemcpyHostToDevice));
    GPU_CHECK(cudaMemset(h->d_err, 0, sizeof(BwdErr)));
    free(tasks);
    return h;
}

void bwd_free(BwdHandle *h)
{
    if (!h)
        return;
    cudaFree(h->d_tasks);
    cudaFree(h->d_begin);
    cudaFree(h->d_sem);
    cudaFree(h->d_err);
    cudaFree(h->d_rec);
    cudaFree(h->d_blk);
    cudaFree(h->d_acc);
    cudaFree(h->d_delta);
    cudaFree(h->d_lse2);
    cudaFree(h->d_dk_part);
    cudaFree(h->d_dv_part);
    if (h->has_events)
        for (int i = 0; i < 5; i++)
            cudaEventDestroy(h->ev[i]);
    gpu_order_clear(&h->order);
    gpu_plan_clear(&h->plan);
    free(h);
}

void bwd_info(const BwdHandle *h, int out[7])
{
    out[0] = h->plan.heads;
    out[1] = h->plan.kv_tiles;
    out[2] = h->plan.q_tiles;
    out[3] = h->is_causal;
    out[4] = h->plan.is_persistent;
    out[5] = h->plan.cta_count;
    out[6] = h->plan.task_count;
}

const char *bwd_policy(const BwdHandle *h)
{
    return h->plan.policy;
}

const char *bwd_error(const BwdHandle *h)
{
    return h->err;
}

int bwd_set_kernel(BwdHandle *h, const char *name)
{
    int is_known = !strcmp(name, "mma");
#define BWD_KNOWN(n, ...) is_known |= !strcmp(name, n);
    BWD_WG_VARIANTS(BWD_KNOWN)
#undef BWD_KNOWN
    if (!is_known)
        return fail(h, "unknown kernel '%s' (mma, wgmma or a wgmma variant: docs/kernel.md)", name);
    snprintf(h->kernel, sizeof h->kernel, "%s", name);
    return 0;
}

/* The shape of h's kernel at head dim d (BwdWgCfg's enums; mma.sync: 2 stages, 1 staging buffer, 1 store warp,
 * BWD_BLOCK_M rows, gpu_tile_pos's layout). */
typedef struct {
    int stages, buffers, store_warps, block_m, swizzle;
} BwdKernelInfo;

template <class C> static BwdKernelInfo info_of(void)
{
    return BwdKernelInfo{ (int)C::ST, (int)C::NB, (int)C::SW, (int)C::BM, (int)C::SZ };
}

static BwdKernelInfo kernel_info(const BwdHandle *h, int d)
{
    BwdKernelInfo k = { 2, 1, 1, BWD_BLOCK_M, 0 };
#define BWD_INFO(n, ...)                                                                                           \
    if (!strcmp(h->kernel, n))                                                                                     \
        k = d == 64 ? info_of<BwdWgCfg<64, __VA_ARGS__>>() : info_of<BwdWgCfg<128, __VA_ARGS__>>();
    BWD_WG_VARIANTS(BWD_INFO)
#undef BWD_INFO
    return k;
}

const char *bwd_kernel_name(const BwdHandle *h)
{
    return !strcmp(h->kernel, "mma") ? "dashsim-bwd" : !strcmp(h->kernel, "wgmma") ? "dashsim-bwd-wgmma" : h->kernel;
}

static void grow(void **p, size_t *have, size_t want)
{
    if (*have >= want)
        return;
    cudaFree(*p);
    GPU_CHECK(cudaMalloc(p, want));
    *have = want;
}

template <int D> static void launch(BwdHandle *h, BwdArgs a, cudaStream_t st)
{
    static int is_set = 0;
    if (!is_set) {
        GPU_CHECK(cudaFuncSetAttribute((const void *)bwd_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)sizeof(BwdSmem<D>)));
        is_set = 1;
    }
    bwd_kernel<D><<<h->order.block_count, BWD_THREADS, sizeof(BwdSmem<D>), st>>>(a);
}

template <class C> static void launch_wg(BwdHandle *h, const BwdArgs &a, const BwdWgMaps &m, cudaStream_t st)
{
    static int is_set = 0;
    if (!is_set) {
        GPU_CHECK(cudaFuncSetAttribute((const void *)bwd_wg_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)bwd_wg_smem_bytes<C>()));
        is_set = 1;
    }
    bwd_wg_kernel<C><<<h->order.block_count, BWD_WG_THREADS, bwd_wg_smem_bytes<C>(), st>>>(a, m);
}

/* The main kernel of h->kernel on stream st; the Hopper kernel's tensor maps over q, k, v, dout. */
template <int D>
static int launch_kernel(BwdHandle *h, const BwdArgs &a, const void *q, const void *k, const void *v,
                         const void *dout, long long kv_rows, cudaStream_t st)
{
    if (!strcmp(h->kernel, "mma")) {
        launch<D>(h, a, st);
        return 0;
    }
    BwdWgMaps m;
    memset(&m, 0, sizeof m);
    const long long rows = (long long)h->plan.heads * a.seqlen;
    int rc = wg_tmap_encode(&m.q, q, rows, D, BWD_BLOCK_M);
    rc = rc ? rc : wg_tmap_encode(&m.dout, dout, rows, D, BWD_BLOCK_M);
    rc = rc ? rc : wg_tmap_encode(&m.k, k, kv_rows, D, BWD_BLOCK_N);
    rc = rc ? rc : wg_tmap_encode(&m.v, v, kv_rows, D, BWD_BLOCK_N);
    if (rc)
        return fail(h, "cannot encode the tensor maps of the %s kernel (error %d)", h->kernel, rc);
#define BWD_LAUNCH(n, ...)                                                                                         \
    if (!strcmp(h->kernel, n))                                                                                     \
        launch_wg<BwdWgCfg<D, __VA_ARGS__>>(h, a, m, st);
    BWD_WG_VARIANTS(BWD_LAUNCH)
#undef BWD_LAUNCH
    return 0;
}

int bwd_run(BwdHandle *h, const void *q, const void *k, const void *v, const void *o, const void *dout,
            const float *lse, void *dq, void *dk, void *dv, int batch, int heads, int kv_heads, int seqlen,
            int head_dim, float scale, int is_atomic, int is_record, void *stream, long long timeout_ms)
{
    const GpuPlan *p = &h->plan;
    if (batch * heads != p->heads)
        return fail(h, "batch x heads = %d, the plan has %d heads", batch * heads, p->heads);
    if (head_dim != 64 && head_dim != 128)
        return fail(h, "head_dim %d: the kernel has 64 and 128", head_dim);
    const int block_m = kernel_info(h, head_dim).block_m;
    if (seqlen != p->kv_tiles * BWD_BLOCK_N || seqlen != p->q_tiles * block_m)
        return fail(h, "seqlen %d does not match the plan's %d KV tiles of %d and %d Q tiles of %d (kernel %s at head "
                       "dim %d: Q tiles of %d)", seqlen, p->kv_tiles, BWD_BLOCK_N, p->q_tiles, seqlen / p->q_tiles,
                    h->kernel, head_dim, block_m);
    if (kv_heads < 1 || heads % kv_heads)
        return fail(h, "heads %d is not a multiple of kv_heads %d", heads, kv_heads);
    int sm_count = 0;
    GPU_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    if (p->is_persistent && p->n_sm > sm_count)
        return fail(h, "a persistent plan for %d SMs cannot be co-resident on %d SMs", p->n_sm, sm_count);
    cudaStream_t st = (cudaStream_t)stream;
    const int group = heads / kv_heads;
    const long long rows = (long long)p->heads * seqlen;
    grow((void **)&h->d_acc, &h->acc_bytes, sizeof(float) * rows * head_dim);
    if (h->row_bytes < sizeof(float) * rows) {
        cudaFree(h->d_delta);
        cudaFree(h->d_lse2);
        GPU_CHECK(cudaMalloc((void **)&h->d_delta, sizeof(float) * rows));
        GPU_CHECK(cudaMalloc((void **)&h->d_lse2, sizeof(float) * rows));
        h->row_bytes = sizeof(float) * rows;
    }
    if (group > 1 && h->part_bytes < sizeof(float) * rows * head_dim) {
        cudaFree(h->d_dk_part);
        cudaFree(h->d_dv_part);
        GPU_CHECK(cudaMalloc((void **)&h->d_dk_part, sizeof(float) * rows * head_dim));
        GPU_CHECK(cudaMalloc((void **)&h->d_dv_part, sizeof(float) * rows * head_dim));
        h->part_bytes = sizeof(float) * rows * head_dim;
    }
    if (is_record) {
        GPU_CHECK(cudaMemsetAsync(h->d_rec, 0xFF, sizeof(long long) * BWD_REC_FIELDS * p->task_count, st));
        GPU_CHECK(cudaMemsetAsync(h->d_blk, 0xFF, sizeof(long long) * BWD_BLK_FIELDS * h->order.block_count, st));
        if (!h->has_events)
            for (int i = 0; i < 5; i++)
                GPU_CHECK(cudaEventCreate(&h->ev[i]));
        h->has_events = 1;
    }
    /* A recorded run also times its stages (trace metadata pre_ns, memset_ns, main_ns, post_ns) */
#define BWD_STAGE(i) do { if (is_record) GPU_CHECK(cudaEventRecord(h->ev[i], st)); } while (0)
    BWD_STAGE(0);
    GPU_CHECK(cudaMemsetAsync(h->d_acc, 0, sizeof(float) * rows * head_dim, st));
    GPU_CHECK(cudaMemsetAsync(h->d_sem, 0, sizeof(unsigned) * p->heads * p->q_tiles, st));
    h->has_record = is_record;
    h->head_dim = head_dim;
    BWD_STAGE(1);
    const __nv_bfloat16 *bo = (const __nv_bfloat16 *)o, *bdo = (const __nv_bfloat16 *)dout;
    const unsigned pre_blocks = (unsigned)((rows + 7) / 8);
    if (head_dim == 64)
        bwd_pre_kernel<64><<<pre_blocks, 256, 0, st>>>(bo, bdo, lse, h->d_delta, h->d_lse2, rows);
    else
        bwd_pre_kernel<128><<<pre_blocks, 256, 0, st>>>(bo, bdo, lse, h->d_delta, h->d_lse2, rows);
    BWD_STAGE(2);
    BwdArgs a;
    memset(&a, 0, sizeof a);
    a.tasks = h->d_tasks;
    a.block_begin = h->d_begin;
    a.q = (const __nv_bfloat16 *)q;
    a.k = (const __nv_bfloat16 *)k;
    a.v = (const __nv_bfloat16 *)v;
    a.dout = bdo;
    a.lse2 = h->d_lse2;
    a.delta = h->d_delta;
    a.dq_accum = h->d_acc;
    a.sem = h->d_sem;
    a.is_dkv_fp32 = group > 1;
    a.dk = group > 1 ? (void *)h->d_dk_part : dk;
    a.dv = group > 1 ? (void *)h->d_dv_part : dv;
    a.rec = is_record ? h->d_rec : NULL;
    a.blk = is_record ? h->d_blk : NULL;
    a.err = h->d_err;
    a.group = group;
    a.seqlen = seqlen;
    a.q_tiles = p->q_tiles;
    a.heads = p->heads;
    a.is_causal = h->is_causal;
    a.is_atomic = is_atomic;
    a.scale = scale;
    a.scale_log2 = scale * BWD_LOG2E;
    a.timeout_ns = timeout_ms * 1000000LL;
    const long long kv_rows = rows / group;
    if (head_dim == 64 ? launch_kernel<64>(h, a, q, k, v, dout, kv_rows, st)
                       : launch_kernel<128>(h, a, q, k, v, dout, kv_rows, st))
        return 2;
    BWD_STAGE(3);
    const long long n8 = rows * head_dim / 8;
    const unsigned post_blocks = (unsigned)((n8 + 255) / 256);
    const int z = kernel_info(h, head_dim).swizzle;
    __nv_bfloat16 *bdq = (__nv_bfloat16 *)dq;
    if (head_dim == 64 && z)
        bwd_post_dq_kernel<64, 1><<<post_blocks, 256, 0, st>>>(h->d_acc, bdq, scale, n8);
    else if (head_dim == 64)
        bwd_post_dq_kernel<64, 0><<<post_blocks, 256, 0, st>>>(h->d_acc, bdq, scale, n8);
    else if (z)
        bwd_post_dq_kernel<128, 1><<<post_blocks, 256, 0, st>>>(h->d_acc, bdq, scale, n8);
    else
        bwd_post_dq_kernel<128, 0><<<post_blocks, 256, 0, st>>>(h->d_acc, bdq, scale, n8);
    if (group > 1) {
        const long long n4 = rows / group * head_dim / 4;
        bwd_post_dkv_kernel<<<(unsigned)((n4 + 255) / 256), 256, 0, st>>>(
            h->d_dk_part, h->d_dv_part, (__nv_bfloat16 *)dk, (__nv_bfloat16 *)dv, group,
            (long long)seqlen * head_dim, scale, n4);
    }
    BWD_STAGE(4);
#undef BWD_STAGE
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return fail(h, "launch failed: %s", cudaGetErrorString(e));
    return 0;
}

int bwd_check(BwdHandle *h)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fail(h, "CUDA error: %s", cudaGetErrorString(e));
        return 1;
    }
    BwdErr err;
    GPU_CHECK(cudaMemcpy(&err, h->d_err, sizeof err, cudaMemcpyDeviceToHost));
    if (!err.flag)
        return 0;
    static const char *const barrier[] = {"Q-full", "Q-empty", "KV-full", "KV-empty"}; /* wg/wg_mainloop_sm90.cuh, WG_WAIT_* */
    if (err.rank < 0)
        fail(h, "timeout: GPU block %d waited on its %s barrier (parity %u) at task (head %d, q tile %d)", err.block,
             barrier[(-1 - err.rank) & 3], err.seen, err.head, err.q);
    else
        fail(h, "timeout: GPU block %d waited on dQ row (head %d, q tile %d) for rank %d; the semaphore stayed at %u",
             err.block, err.head, err.q, err.rank, err.seen);
    GPU_CHECK(cudaMemset(h->d_err, 0, sizeof(BwdErr)));
    return 1;
}

static void write_rows(FILE *f, const BwdHandle *h, const long long *rec, const long long *blk)
{
    const GpuPlan *p = &h->plan;
    const int n = p->task_count;
    long long t0 = -1;
    long long *by_task = (long long *)malloc(sizeof(long long) * BWD_REC_FIELDS * (n + 1));
    for (int i = 0; i < n; i++) {
        memcpy(by_task + (size_t)h->order.order[i] * BWD_REC_FIELDS, rec + (size_t)i * BWD_REC_FIELDS,
               sizeof(long long) * BWD_REC_FIELDS);
        const long long s = rec[(size_t)i * BWD_REC_FIELDS];
        t0 = (t0 < 0 || s < t0) ? s : t0;
    }
    for (int c = 0; c < p->cta_count; c++)
        for (int k = 0; k < p->ctas[c].task_count; k++) {
            const int i = p->ctas[c].task_begin + k;
            const GpuTask *t = &p->tasks[i];
            const long long *e = by_task + (size_t)i * BWD_REC_FIELDS;
            const long long *b = blk + (size_t)h->order.task_block[i] * BWD_BLK_FIELDS;
            fprintf(f, "%s\n[%d,%d,%d,%d,%d,%d,%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld]", i ? "," : "",
                    c, p->ctas[c].slot, (int)b[0], t->head, t->kv, t->q, t->rank, e[0] - t0, e[1] - t0, e[2] - t0,
                    e[3] - t0, e[4] - t0, e[5] - t0, e[6] - t0, e[7] - t0, b[1] - t0, b[2] - t0, e[9] - e[8]);
        }
    free(by_task);
}

int bwd_write_trace(BwdHandle *h, const char *path, const char *meta)
{
    const GpuPlan *p = &h->plan;
    if (!h->has_record)
        return fail(h, "no recorded run to write"), 1;
    if (bwd_check(h))
        return 1;
    const int n = p->task_count, blocks = h->order.block_count;
    long long *rec = (long long *)malloc(sizeof(long long) * BWD_REC_FIELDS * (n + 1));
    long long *blk = (long long *)malloc(sizeof(long long) * BWD_BLK_FIELDS * blocks);
    GPU_CHECK(cudaMemcpy(rec, h->d_rec, sizeof(long long) * BWD_REC_FIELDS * n, cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(blk, h->d_blk, sizeof(long long) * BWD_BLK_FIELDS * blocks, cudaMemcpyDeviceToHost));
    long long lo = -1, hi = -1;
    int is_complete = 1;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < BWD_REC_FIELDS; k++)
            is_complete &= rec[(size_t)i * BWD_REC_FIELDS + k] != -1;
        lo = (lo < 0 || rec[(size_t)i * BWD_REC_FIELDS] < lo) ? rec[(size_t)i * BWD_REC_FIELDS] : lo;
        hi = rec[(size_t)i * BWD_REC_FIELDS + 4] > hi ? rec[(size_t)i * BWD_REC_FIELDS + 4] : hi;
    }
    GpuMeta m;
    memset(&m, 0, sizeof m);
    gpu_meta_device(&m, 0);
    gpu_meta_str(&m, "policy", p->policy);
    gpu_meta_str(&m, "mask", p->mask);
    gpu_meta_raw(&m, "tile_ratio", "%d", p->tile_ratio);
    gpu_meta_raw(&m, "heads", "%d", p->heads);
    gpu_meta_raw(&m, "kv_tiles", "%d", p->kv_tiles);
    gpu_meta_raw(&m, "q_tiles", "%d", p->q_tiles);
    gpu_meta_raw(&m, "n_sm", "%d", p->n_sm);
    gpu_meta_str(&m, "reduce", p->reduce);
    gpu_meta_raw(&m, "persistent", "%d", p->is_persistent);
    gpu_meta_str(&m, "compute", "attention-backward");
    gpu_meta_raw(&m, "tile_m", "%d", kernel_info(h, h->head_dim).block_m);
    gpu_meta_raw(&m, "tile_n", "%d", BWD_BLOCK_N);
    char hash[40];
    snprintf(hash, sizeof hash, "fnv1a64:%016llx", (unsigned long long)p->hash);
    gpu_meta_str(&m, "plan_hash", hash);
    gpu_meta_raw(&m, "makespan_ns", "%lld", hi - lo);
    gpu_meta_raw(&m, "records_complete", is_complete ? "true" : "false");
    gpu_meta_raw(&m, "threads_per_cta", "%d", BWD_THREADS);
    gpu_meta_raw(&m, "gpu_ctas", "%d", blocks);
    gpu_meta_raw(&m, "plan_c_ns", "%lld", p->c_ns);
    gpu_meta_raw(&m, "plan_r_ns", "%lld", p->r_ns);
    gpu_meta_raw(&m, "plan_latency_ns", "%lld", p->latency_ns);
    gpu_meta_str(&m, "time_unit", "ns from %globaltimer, relative to the earliest c_start");
    static const char *const stage[] = { "memset_ns", "pre_ns", "main_ns", "post_ns" };
    float ms = 0.0f, total = 0.0f;
    for (int i = 0; i < 4; i++) { /* cudaEvent stages of the recorded run (0.5 us resolution) */
        GPU_CHECK(cudaEventElapsedTime(&ms, h->ev[i], h->ev[i + 1]));
        gpu_meta_raw(&m, stage[i], "%lld", (long long)(ms * 1e6f + 0.5f));
        total += ms;
    }
    gpu_meta_raw(&m, "total_ns", "%lld", (long long)(total * 1e6f + 0.5f));
    if (meta) { /* KEY=VALUE;KEY=VALUE */
        char buf[4096];
        snprintf(buf, sizeof buf, "%s", meta);
        for (char *s = strtok(buf, ";"); s; s = strtok(NULL, ";"))
            if (gpu_meta_parse(&m, s))
                fprintf(stderr, "bwd_write_trace: ignoring malformed metadata '%s'\n", s);
    }
    gpu_meta_str(&m, "kernel", bwd_kernel_name(h)); /* the handle's, whatever meta says */
    const BwdKernelInfo k = kernel_info(h, h->head_dim);
    gpu_meta_raw(&m, "dq_buffers", "%d", k.buffers); /* the kernel's, not the plan's (sim's trace reader) */
    gpu_meta_raw(&m, "store_warps", "%d", k.store_warps);
    gpu_meta_raw(&m, "load_stages", "%d", k.stages);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(rec);
        free(blk);
        return fail(h, "cannot write %s", path), 1;
    }
    fprintf(f, "{\"format\":\"dashsim-trace\",\"version\":1,\n\"metadata\":");
    gpu_meta_write(f, &m);
    fprintf(f, ",\n\"columns\":[\"cta\",\"slot\",\"smid\",\"head\",\"kv\",\"q\",\"rank\",\"c_start\",\"c_end\","
               "\"r_ready\",\"r_start\",\"r_end\",\"s_end\",\"r_read\",\"k_end\",\"b_entry\",\"b_exit\",\"c_cycles\"],\n\"tasks\":[");
    write_rows(f, h, rec, blk);
    fprintf(f, "\n]}\n");
    free(rec);
    free(blk);
    return fclose(f) ? 1 : 0;
}

int bwd_device_meta_json(char *buf, int len)
{
    GpuMeta m;
    memset(&m, 0, sizeof m);
    gpu_meta_device(&m, 0);
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    gpu_meta_write(f, &m);
    fclose(f);
    snprintf(buf, (size_t)len, "%s", text);
    free(text);
    return 0;
}

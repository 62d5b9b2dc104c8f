/* Host side of gpu-exec: reading a dashsim plan file (docs/plan-format.md) exactly, the per-GPU-CTA task
 * order it implies, and the host reference dQaccum. Invariant of a plan that gpu_plan_read accepts: every
 * header field present once, CTA positions 0..ctas-1 in order, tasks in range, and the ranks of every dQ
 * row a permutation of 0..len-1 (so the executor cannot deadlock on a missing rank). */
#ifndef GPU_PLAN_H
#define GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int32_t head, kv, q, rank;
} GpuTask;

typedef struct {
    int32_t slot;       /* persistent: pinned slot 0..n_sm-1; else -1 */
    int32_t task_begin; /* first task in GpuPlan.tasks */
    int32_t task_count;
} GpuCta;

typedef struct {
    char policy[64];
    char mask[16];    /* "full" | "causal" */
    char reduce[16];  /* "serial" | "async" */
    int tile_ratio, n_sm, heads, kv_tiles, q_tiles, dq_buffers, is_persistent;
    long long c_ns, r_ns, latency_ns; /* the model's costs (informational here) */
    GpuCta *ctas;     /* launch order; owned */
    int32_t cta_count;
    GpuTask *tasks;   /* file order; owned */
    int32_t task_count;
    uint64_t hash;    /* FNV-1a 64 of the file bytes */
} GpuPlan;

/* GPU execution order: block b runs tasks order[block_begin[b] .. block_begin[b+1]) (indices into
 * plan->tasks); task_cta[i] is the plan CTA of task i. Non-persistent: one block per plan CTA;
 * persistent: n_sm blocks, block g runs the CTAs of slot g in file order. All arrays owned. */
typedef struct {
    int32_t block_count;
    int32_t *block_begin; /* block_count + 1 entries */
    int32_t *order;       /* task_count entries */
    int32_t *task_cta;    /* task_count entries */
    int32_t *task_block;  /* task_count entries: the block that runs task i */
    int32_t max_block_tasks;
} GpuOrder;

/* Reads and checks a plan. Returns 0, or 2 with a message "file:line: sentence" in err. */
int gpu_plan_read(const char *path, GpuPlan *plan, char *err, size_t errlen);
void gpu_plan_clear(GpuPlan *plan);

void gpu_order_build(const GpuPlan *plan, GpuOrder *order);
void gpu_order_clear(GpuOrder *order);

/* Reference dQaccum [heads][q_tiles][tile_m*head_dim], element (i, j) of a tile at gpu_tile_pos: every
 * row's partial tiles added in rank order, starting from 0, with fp32 adds. O(tasks * tile_m * head_dim * 16). Returns a malloc'ed array. */
float *gpu_plan_reference(const GpuPlan *plan, int tile_m, int head_dim, int iters);

/* FNV-1a 64 of a byte range, continuing from h (start with GPU_FNV_OFFSET). */
#define GPU_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t gpu_fnv1a64(uint64_t h, const void *data, size_t n);

#endif

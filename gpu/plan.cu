/* Plan reading, GPU execution order and host reference for gpu-exec (host code only).
 * Plans are read by the simulator's own reader and plan_check (sim/io/plan_read.c, sim/core/plan.c, linked
 * as C objects): a plan that would make the executor wait forever (a missing or repeated rank) or index out
 * of range is refused with file:line and a sentence, before anything is allocated on the GPU. */
#include "gpu_device.cuh"
#include "gpu_plan.h"
#include "plan_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t gpu_fnv1a64(uint64_t h, const void *data, size_t n)
{
    return sim_fnv1a64(h, data, n);
}

/* The simulator's reader, plan_check and plan_check_progress (linked C objects: a plan that deadlocks is
 * refused before anything runs), then a copy into the executor's layout. */
int gpu_plan_read(const char *path, GpuPlan *plan, char *err, size_t errlen)
{
    memset(plan, 0, sizeof *plan);
    Plan *p = NULL;
    AttnCosts costs;
    SimError e = {};
    if (sim_plan_read(path, 4LL << 30, &p, &costs, &plan->hash, &e) != SIM_OK) {
        snprintf(err, errlen, "%s", e.msg);
        return 2;
    }
    char where[300];
    snprintf(where, sizeof where, "%s: ", path);
    if (plan_check_progress(p, where, &e) != SIM_OK) { /* the simulator finds it by running; we run nothing first */
        snprintf(err, errlen, "%s", e.msg);
        plan_free(p);
        return 2;
    }
    if (costs.dq_buffers > GPU_MAX_BUFFERS || p->wl.n_sm > 4096) {
        snprintf(err, errlen, "%s: the executor takes at most %d dQ buffers and 4096 SMs", path, GPU_MAX_BUFFERS);
        plan_free(p);
        return 2;
    }
    snprintf(plan->policy, sizeof plan->policy, "%s", p->policy);
    snprintf(plan->mask, sizeof plan->mask, "%s", plan_mask_name(p->wl.mask));
    snprintf(plan->reduce, sizeof plan->reduce, "%s", costs.reduce == REDUCE_SERIAL ? "serial" : "async");
    plan->tile_ratio = p->wl.tile_ratio, plan->n_sm = p->wl.n_sm, plan->heads = p->wl.heads;
    plan->kv_tiles = p->wl.kv_tiles, plan->q_tiles = p->wl.q_tiles, plan->dq_buffers = costs.dq_buffers;
    plan->is_persistent = p->is_persistent;
    plan->c_ns = costs.c_ns, plan->r_ns = costs.r_ns, plan->latency_ns = costs.latency_ns;
    plan->cta_count = p->cta_count, plan->task_count = (int32_t)p->task_count;
    plan->ctas = (GpuCta *)calloc((size_t)p->cta_count + 1, sizeof *plan->ctas);
    plan->tasks = (GpuTask *)calloc((size_t)p->task_count + 1, sizeof *plan->tasks);
    if (!plan->ctas || !plan->tasks) {
        snprintf(err, errlen, "%s: out of memory for %d CTAs", path, p->cta_count);
        plan_free(p), gpu_plan_clear(plan);
        return 2;
    }
    for (int32_t c = 0; c < p->cta_count; c++)
        plan->ctas[c] = (GpuCta){ p->ctas[c].slot, p->ctas[c].task_begin, p->ctas[c].task_count };
    for (int64_t i = 0; i < p->task_count; i++)
        plan->tasks[i] = (GpuTask){ p->tasks[i].head, p->tasks[i].kv, p->tasks[i].q, p->tasks[i].rank };
    plan_free(p);
    return 0;
}

void gpu_plan_clear(GpuPlan *plan)
{
    free(plan->ctas);
    free(plan->tasks);
    plan->ctas = NULL;
    plan->tasks = NULL;
}

void gpu_order_build(const GpuPlan *p, GpuOrder *o)
{
    o->block_count = p->is_persistent ? p->n_sm : p->cta_count;
    o->block_begin = (int32_t *)calloc((size_t)o->block_count + 1, sizeof *o->block_begin);
    o->order = (int32_t *)malloc(((size_t)p->task_count + 1) * sizeof *o->order);
    o->task_cta = (int32_t *)malloc(((size_t)p->task_count + 1) * sizeof *o->task_cta);
    o->task_block = (int32_t *)malloc(((size_t)p->task_count + 1) * sizeof *o->task_block);
    for (int32_t c = 0; c < p->cta_count; c++) {
        int32_t b = p->is_persistent ? p->ctas[c].slot : c;
        o->block_begin[b + 1] += p->ctas[c].task_count;
        for (int32_t i = 0; i < p->ctas[c].task_count; i++)
            o->task_cta[p->ctas[c].task_begin + i] = c;
    }
    o->max_block_tasks = 0;
    for (int32_t b = 0; b < o->block_count; b++) {
        int32_t n = o->block_begin[b + 1];
        o->max_block_tasks = n > o->max_block_tasks ? n : o->max_block_tasks;
        o->block_begin[b + 1] += o->block_begin[b];
    }
    int32_t *fill = (int32_t *)malloc(((size_t)o->block_count + 1) * sizeof *fill);
    memcpy(fill, o->block_begin, (size_t)o->block_count * sizeof *fill);
    for (int32_t c = 0; c < p->cta_count; c++) { /* file order within a slot */
        int32_t b = p->is_persistent ? p->ctas[c].slot : c;
        for (int32_t i = 0; i < p->ctas[c].task_count; i++) {
            int32_t t = p->ctas[c].task_begin + i;
            o->order[fill[b]++] = t;
            o->task_block[t] = b;
        }
    }
    free(fill);
}

void gpu_order_clear(GpuOrder *o)
{
    free(o->block_begin);
    free(o->order);
    free(o->task_cta);
    free(o->task_block);
    memset(o, 0, sizeof *o);
}

static void add_partial(float *dst, const GpuTask *t, int tile_m, int head_dim, int iters, int8_t *a, int8_t *b)
{
    uint32_t seed = gpu_task_seed(t->head, t->kv, t->q);
    for (int i = 0; i < tile_m; i++)
        for (int k = 0; k < 16; k++)
            a[i * 16 + k] = (int8_t)gpu_a_value(seed, i, k);
    for (int j = 0; j < head_dim; j++)
        for (int k = 0; k < 16; k++)
            b[j * 16 + k] = (int8_t)gpu_b_value(seed, k, j);
    const float scale = gpu_task_scale(seed), bias = gpu_task_bias(seed);
    for (int i = 0; i < tile_m; i++)
        for (int j = 0; j < head_dim; j++) {
            float *e = &dst[gpu_tile_pos(i, j, head_dim)];
            volatile float sum = *e + gpu_partial_value(a + i * 16, b + j * 16, iters, scale, bias);
            *e = sum;
        }
}

float *gpu_plan_reference(const GpuPlan *p, int tile_m, int head_dim, int iters)
{
    size_t tile = (size_t)tile_m * head_dim, rows = (size_t)p->heads * p->q_tiles;
    float *dq = (float *)calloc(rows * tile, sizeof *dq);
    /* by_rank[row * kv_tiles + rank] = task index (ranks are < kv_tiles and unique, checked on read) */
    int32_t *by_rank = (int32_t *)malloc(rows * p->kv_tiles * sizeof *by_rank);
    for (size_t i = 0; i < rows * p->kv_tiles; i++)
        by_rank[i] = -1;
    for (int32_t i = 0; i < p->task_count; i++) {
        const GpuTask *t = &p->tasks[i];
        by_rank[((size_t)t->head * p->q_tiles + t->q) * p->kv_tiles + t->rank] = i;
    }
    int8_t *a = (int8_t *)malloc((size_t)tile_m * 16), *b = (int8_t *)malloc((size_t)head_dim * 16);
    for (size_t row = 0; row < rows; row++)
        for (int k = 0; k < p->kv_tiles && by_rank[row * p->kv_tiles + k] >= 0; k++)
            add_partial(dq + row * tile, &p->tasks[by_rank[row * p->kv_tiles + k]], tile_m, head_dim, iters, a, b);
    free(a);
    free(b);
    free(by_rank);
    return dq;
}

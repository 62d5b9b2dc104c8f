/* gpu-bwd-stages: times the backward's fixed stages alone (docs/profile.md, "The fixed stages at the sizes people
 * run"): the dQaccum and semaphore memsets, the preprocess, the dQ postprocess and, with GQA, the group sums, the
 * same kernels and launches as bwd_run (bwd.cu) with no main kernel between them. Each point is D:ROWS:GROUP (ROWS =
 * batch x heads x seqlen); every round times every point twice, once with an event between stages and once as one
 * chain between two events, each queued behind a sleep kernel as the timed runs are (bench.py). Prints one JSON
 * document: per point the medians over rounds. */
#include "../gpu_host.h"
#include "bwd_postprocess.cuh"
#include "bwd_preprocess.cuh"
extern "C" {
#include "stats.h" /* sim/core: the one median of dashsim */
}

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int d, group;
    long long rows;
} Point;

__global__ void sleep_kernel(long long ns)
{
    const long long t0 = clock64();
    while (clock64() - t0 < ns * 2) /* about ns at 2 GHz or less: a queue, not a clock */
        __nanosleep(1000);
}

typedef struct {
    float *acc, *lse, *delta, *lse2, *dk_part, *dv_part;
    unsigned *sem;
    __nv_bfloat16 *o, *dout, *dq, *dk, *dv;
} Buffers;

/* bwd_run's fixed stages for one point; ev (5 events) or NULL between them */
static void stages(const Buffers *b, const Point *p, int z, cudaEvent_t *ev, cudaStream_t st)
{
    const long long rows = p->rows, d = p->d;
#define STAGE(i) do { if (ev) GPU_CHECK(cudaEventRecord(ev[i], st)); } while (0)
    STAGE(0);
    GPU_CHECK(cudaMemsetAsync(b->acc, 0, sizeof(float) * rows * d, st));
    GPU_CHECK(cudaMemsetAsync(b->sem, 0, sizeof(unsigned) * (rows / 64 + 1), st));
    STAGE(1);
    const unsigned pre_blocks = (unsigned)((rows + 7) / 8);
    if (d == 64)
        bwd_pre_kernel<64><<<pre_blocks, 256, 0, st>>>(b->o, b->dout, b->lse, b->delta, b->lse2, rows);
    else
        bwd_pre_kernel<128><<<pre_blocks, 256, 0, st>>>(b->o, b->dout, b->lse, b->delta, b->lse2, rows);
    STAGE(2);
    const long long n8 = rows * d / 8;
    const unsigned post_blocks = (unsigned)((n8 + 255) / 256);
    if (d == 64 && z)
        bwd_post_dq_kernel<64, 1><<<post_blocks, 256, 0, st>>>(b->acc, b->dq, 0.125f, n8);
    else if (d == 64)
        bwd_post_dq_kernel<64, 0><<<post_blocks, 256, 0, st>>>(b->acc, b->dq, 0.125f, n8);
    else if (z)
        bwd_post_dq_kernel<128, 1><<<post_blocks, 256, 0, st>>>(b->acc, b->dq, 0.125f, n8);
    else
        bwd_post_dq_kernel<128, 0><<<post_blocks, 256, 0, st>>>(b->acc, b->dq, 0.125f, n8);
    STAGE(3);
    if (p->group > 1) {
        const long long n4 = rows / p->group * d / 4;
        bwd_post_dkv_kernel<<<(unsigned)((n4 + 255) / 256), 256, 0, st>>>(b->dk_part, b->dv_part, b->dk, b->dv, p->group,
                                                                           1024 * d, 0.125f, n4);
    }
    STAGE(4);
#undef STAGE
    GPU_CHECK(cudaGetLastError());
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu-bwd-stages [--rounds R] [--sleep-ms S] [--swizzle 0|1] D:ROWS:GROUP ...\n"
               "Times the backward's fixed stages (memsets, preprocess, dQ postprocess, GQA group sums) alone at each\n"
               "point: D 64 or 128, ROWS = batch x heads x seqlen (a multiple of 1024), GROUP = heads / kv_heads.\n"
               "Prints JSON (format dashsim-kernel-stages) on stdout. Exit: 0 ok, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
    int rounds = 7, z = 0, n = 0;
    double sleep_ms = 5;
    Point *pts = (Point *)calloc((size_t)argc, sizeof(Point));
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--help"))
            return usage(stdout), 0;
        if (s[0] == '-' && !v)
            return fprintf(stderr, "gpu-bwd-stages: %s needs a value\n", s), 2;
        if (!strcmp(s, "--rounds"))
            rounds = atoi(v), i++;
        else if (!strcmp(s, "--sleep-ms"))
            sleep_ms = atof(v), i++;
        else if (!strcmp(s, "--swizzle"))
            z = atoi(v), i++;
        else if (s[0] == '-')
            return fprintf(stderr, "gpu-bwd-stages: unknown option %s\n", s), usage(stderr), 2;
        else {
            Point p;
            char tail;
            if (sscanf(s, "%d:%lld:%d%c", &p.d, &p.rows, &p.group, &tail) != 3 || (p.d != 64 && p.d != 128) ||
                p.rows < 1024 || p.rows % 1024 || p.rows > (1LL << 26) || p.group < 1 || p.group > 64 ||
                (p.rows / 1024) % p.group)
                return fprintf(stderr, "gpu-bwd-stages: point '%s': want D:ROWS:GROUP, D 64 or 128, ROWS a multiple "
                                       "of 1024 up to 2^26 whose 1024-row heads divide by GROUP\n", s), 2;
            pts[n++] = p;
        }
    }
    if (!n || rounds < 1 || rounds > 1000 || sleep_ms < 0 || sleep_ms > 1000 || (z != 0 && z != 1))
        return usage(stderr), 2;
    long long big = 0; /* elements of the largest [rows][D] */
    for (int i = 0; i < n; i++)
        big = pts[i].rows * pts[i].d > big ? pts[i].rows * pts[i].d : big;
    long long rows_max = big / 64;
    Buffers b;
    GPU_CHECK(cudaMalloc((void **)&b.acc, sizeof(float) * big));
    GPU_CHECK(cudaMalloc((void **)&b.dk_part, sizeof(float) * big));
    GPU_CHECK(cudaMalloc((void **)&b.dv_part, sizeof(float) * big));
    GPU_CHECK(cudaMalloc((void **)&b.o, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b.dout, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b.dq, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b.dk, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b.dv, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b.lse, sizeof(float) * rows_max));
    GPU_CHECK(cudaMalloc((void **)&b.delta, sizeof(float) * rows_max));
    GPU_CHECK(cudaMalloc((void **)&b.lse2, sizeof(float) * rows_max));
    GPU_CHECK(cudaMalloc((void **)&b.sem, sizeof(unsigned) * (rows_max / 64 + 1)));
    GPU_CHECK(cudaMemset(b.o, 0, 2 * big));
    GPU_CHECK(cudaMemset(b.dout, 0, 2 * big));
    GPU_CHECK(cudaMemset(b.lse, 0, sizeof(float) * rows_max));
    GPU_CHECK(cudaMemset(b.dk_part, 0, sizeof(float) * big));
    GPU_CHECK(cudaMemset(b.dv_part, 0, sizeof(float) * big));
    cudaStream_t st;
    GPU_CHECK(cudaStreamCreate(&st));
    cudaEvent_t ev[5], c0, c1;
    for (int i = 0; i < 5; i++)
        GPU_CHECK(cudaEventCreate(&ev[i]));
    GPU_CHECK(cudaEventCreate(&c0));
    GPU_CHECK(cudaEventCreate(&c1));
    double *ms = (double *)calloc((size_t)n * rounds * 5, sizeof(double)); /* [point][stage 0-3, chain][round] */
    for (int r = -1; r < rounds; r++) /* round -1: warm-up */
        for (int i = 0; i < n; i++) {
            float t;
            sleep_kernel<<<1, 32, 0, st>>>((long long)(sleep_ms * 1e6));
            stages(&b, &pts[i], z, ev, st);
            sleep_kernel<<<1, 32, 0, st>>>((long long)(sleep_ms * 1e6));
            GPU_CHECK(cudaEventRecord(c0, st));
            stages(&b, &pts[i], z, NULL, st);
            GPU_CHECK(cudaEventRecord(c1, st));
            GPU_CHECK(cudaStreamSynchronize(st));
            if (r < 0)
                continue;
            for (int k = 0; k < 4; k++) {
                GPU_CHECK(cudaEventElapsedTime(&t, ev[k], ev[k + 1]));
                ms[((size_t)i * 5 + k) * rounds + r] = t;
            }
            GPU_CHECK(cudaEventElapsedTime(&t, c0, c1));
            ms[((size_t)i * 5 + 4) * rounds + r] = t;
        }
    GpuMeta m;
    memset(&m, 0, sizeof m);
    gpu_meta_device(&m, 0);
    gpu_meta_raw(&m, "rounds", "%d", rounds);
    gpu_meta_raw(&m, "sleep_ms", "%g", sleep_ms);
    gpu_meta_raw(&m, "swizzle", "%d", z);
    gpu_meta_str(&m, "timing", "CUDA events, median over rounds; stages: an event between stages; chain_ns: the "
                               "same launches between two events");
    printf("{\"format\": \"dashsim-kernel-stages\", \"version\": 1,\n\"metadata\": ");
    gpu_meta_write(stdout, &m);
    printf(",\n\"points\": [");
    static const char *const key[] = { "memset_ns", "pre_ns", "post_dq_ns", "sums_ns", "chain_ns" };
    for (int i = 0; i < n; i++) {
        printf("%s\n {\"head_dim\": %d, \"rows\": %lld, \"group\": %d", i ? "," : "", pts[i].d, pts[i].rows,
               pts[i].group);
        for (int k = 0; k < 5; k++)
            printf(", \"%s\": %lld", key[k],
                   (long long)(sim_median_f64(ms + ((size_t)i * 5 + k) * rounds, rounds) * 1e6 + 0.5));
        printf("}");
    }
    printf("\n]}\n");
    return 0;
}

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

typedef struct {
    int rounds, z, n;
    double sleep_ms;
    Point *pts;
} Options;

/* The command line into o (o->pts holds argc entries); 0 ok, else the exit status. */
static int parse(int argc, char **argv, Options *o)
{
    *o = (Options){ 7, 0, 0, 5, (Point *)calloc((size_t)argc, sizeof(Point)) };
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--help"))
            return usage(stdout), -1;
        if (s[0] == '-' && !v)
            return fprintf(stderr, "gpu-bwd-stages: %s needs a value\n", s), 2;
        if (!strcmp(s, "--rounds"))
            o->rounds = atoi(v), i++;
        else if (!strcmp(s, "--sleep-ms"))
            o->sleep_ms = atof(v), i++;
        else if (!strcmp(s, "--swizzle"))
            o->z = atoi(v), i++;
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
            o->pts[o->n++] = p;
        }
    }
    if (!o->n || o->rounds < 1 || o->rounds > 1000 || o->sleep_ms < 0 || o->sleep_ms > 1000 || (o->z != 0 && o->z != 1))
        return usage(stderr), 2;
    return 0;
}

/* Buffers for the largest point: big elements of [rows][D], rows_max rows. */
static void alloc_buffers(Buffers *b, long long big, long long rows_max)
{
    GPU_CHECK(cudaMalloc((void **)&b->acc, sizeof(float) * big));
    GPU_CHECK(cudaMalloc((void **)&b->dk_part, sizeof(float) * big));
    GPU_CHECK(cudaMalloc((void **)&b->dv_part, sizeof(float) * big));
    GPU_CHECK(cudaMalloc((void **)&b->o, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b->dout, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b->dq, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b->dk, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b->dv, 2 * big));
    GPU_CHECK(cudaMalloc((void **)&b->lse, sizeof(float) * rows_max));
    GPU_CHECK(cudaMalloc((void **)&b->delta, sizeof(float) * rows_max));
    GPU_CHECK(cudaMalloc((void **)&b->lse2, sizeof(float) * rows_max));
    GPU_CHECK(cudaMalloc((void **)&b->sem, sizeof(unsigned) * (rows_max / 64 + 1)));
    GPU_CHECK(cudaMemset(b->o, 0, 2 * big));
    GPU_CHECK(cudaMemset(b->dout, 0, 2 * big));
    GPU_CHECK(cudaMemset(b->lse, 0, sizeof(float) * rows_max));
    GPU_CHECK(cudaMemset(b->dk_part, 0, sizeof(float) * big));
    GPU_CHECK(cudaMemset(b->dv_part, 0, sizeof(float) * big));
}

/* Every round times every point with events between its stages and as one chain; ms[(point x 5 + k) x rounds +
 * round], k 0-3 the stages, 4 the chain. Round -1 warms up. */
static double *time_points(const Options *o, const Buffers *b)
{
    cudaStream_t st;
    GPU_CHECK(cudaStreamCreate(&st));
    cudaEvent_t ev[5], c0, c1;
    for (int i = 0; i < 5; i++)
        GPU_CHECK(cudaEventCreate(&ev[i]));
    GPU_CHECK(cudaEventCreate(&c0));
    GPU_CHECK(cudaEventCreate(&c1));
    const int rounds = o->rounds;
    double *ms = (double *)calloc((size_t)o->n * rounds * 5, sizeof(double));
    for (int r = -1; r < rounds; r++)
        for (int i = 0; i < o->n; i++) {
            float t;
            sleep_kernel<<<1, 32, 0, st>>>((long long)(o->sleep_ms * 1e6));
            stages(b, &o->pts[i], o->z, ev, st);
            sleep_kernel<<<1, 32, 0, st>>>((long long)(o->sleep_ms * 1e6));
            GPU_CHECK(cudaEventRecord(c0, st));
            stages(b, &o->pts[i], o->z, NULL, st);
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
    return ms;
}

static void print_json(const Options *o, double *ms)
{
    GpuMeta m;
    memset(&m, 0, sizeof m);
    gpu_meta_device(&m, 0);
    gpu_meta_raw(&m, "rounds", "%d", o->rounds);
    gpu_meta_raw(&m, "sleep_ms", "%g", o->sleep_ms);
    gpu_meta_raw(&m, "swizzle", "%d", o->z);
    gpu_meta_str(&m, "timing", "CUDA events, median over rounds; stages: an event between stages; chain_ns: the "
                               "same launches between two events");
    printf("{\"format\": \"dashsim-kernel-stages\", \"version\": 1,\n\"metadata\": ");
    gpu_meta_write(stdout, &m);
    printf(",\n\"points\": [");
    static const char *const key[] = { "memset_ns", "pre_ns", "post_dq_ns", "sums_ns", "chain_ns" };
    for (int i = 0; i < o->n; i++) {
        const Point *p = &o->pts[i];
        printf("%s\n {\"head_dim\": %d, \"rows\": %lld, \"group\": %d", i ? "," : "", p->d, p->rows, p->group);
        for (int k = 0; k < 5; k++)
            printf(", \"%s\": %lld", key[k],
                   (long long)(sim_median_f64(ms + ((size_t)i * 5 + k) * o->rounds, o->rounds) * 1e6 + 0.5));
        printf("}");
    }
    printf("\n]}\n");
}

int main(int argc, char **argv)
{
    Options o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    long long big = 0; /* elements of the largest [rows][D] */
    for (int i = 0; i < o.n; i++)
        big = o.pts[i].rows * o.pts[i].d > big ? o.pts[i].rows * o.pts[i].d : big;
    Buffers b;
    alloc_buffers(&b, big, big / 64);
    double *ms = time_points(&o, &b);
    print_json(&o, ms);
    free(ms);
    free(o.pts);
    return 0;
}

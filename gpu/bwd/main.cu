/* gpu-bwd: runs one dashsim plan with the real attention backward on synthetic bf16 inputs (docs/kernel.md):
 * R runs after a warm-up, dQ/dK/dV compared bit for bit with the first run, median time and TFLOPS (2.5 x
 * forward FLOPs), optionally a per-task trace. Gradients against a reference are checked by bench.py. */
#include "../gpu_host.h"
#include "bwd.h"
extern "C" {
#include "stats.h" /* sim/core: the one median of dashsim */
}

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void fill_kernel(__nv_bfloat16 *x, long long n, unsigned seed, float amp)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 0x9E3779B1u ^ seed * 0x85EBCA77u;
        h ^= h >> 15, h *= 0x2C1B3C6Du, h ^= h >> 12;
        x[i] = __float2bfloat16(amp * ((float)(h & 0xFFFF) / 32768.0f - 1.0f));
    }
}

__global__ void fill_const(float *x, long long n, float v)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        x[i] = v;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu-bwd PLAN --head-dim 64|128 [--heads H] [--kv-heads K] [--atomic] [--repeats R]\n"
               "               [--out TRACE.json] [--timeout-ms T] [--kernel wgmma|mma|VARIANT]\n"
               "Runs PLAN (tiles 64x128, tile_ratio 2; the ...m128 variants at head dim 64: 128x128, tile_ratio 1)\n"
               "on synthetic inputs; batch = plan heads / H (H default: the plan's heads). Exit: 0 ok, 1 timeout, CUDA\n"
               "error or runs not bit-identical (deterministic mode), 2 bad usage or plan. --kernel: the Hopper kernel\n"
               "(default), a variant of it, or the mma.sync kernel (docs/kernel.md).\n");
}

int main(int argc, char **argv)
{
    const char *plan = NULL, *out = NULL, *kernel = "wgmma";
    int d = 128, heads = 0, kv_heads = 0, is_atomic = 0, repeats = 5;
    long long timeout_ms = 2000;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--help"))
            return usage(stdout), 0;
        if (!strcmp(s, "--atomic")) {
            is_atomic = 1;
            continue;
        }
        if (s[0] != '-') {
            plan = s;
            continue;
        }
        if (!v)
            return fprintf(stderr, "gpu-bwd: %s needs a value\n", s), usage(stderr), 2;
        if (!strcmp(s, "--head-dim"))
            d = atoi(v);
        else if (!strcmp(s, "--heads"))
            heads = atoi(v);
        else if (!strcmp(s, "--kv-heads"))
            kv_heads = atoi(v);
        else if (!strcmp(s, "--repeats"))
            repeats = atoi(v);
        else if (!strcmp(s, "--out"))
            out = v;
        else if (!strcmp(s, "--timeout-ms"))
            timeout_ms = atoll(v);
        else if (!strcmp(s, "--kernel"))
            kernel = v;
        else
            return fprintf(stderr, "gpu-bwd: unknown option %s\n", s), usage(stderr), 2;
        i++;
    }
    if (!plan || repeats < 1)
        return usage(stderr), 2;
    char err[512];
    BwdHandle *h = bwd_new(plan, err, sizeof err);
    if (!h)
        return fprintf(stderr, "gpu-bwd: %s\n", err), 2;
    if (bwd_set_kernel(h, kernel)) {
        fprintf(stderr, "gpu-bwd: %s\n", bwd_error(h));
        bwd_free(h);
        return 2;
    }
    int info[7];
    bwd_info(h, info);
    heads = heads ? heads : info[0];
    kv_heads = kv_heads ? kv_heads : heads;
    if (info[0] % heads)
        return fprintf(stderr, "gpu-bwd: plan heads %d is not a multiple of --heads %d\n", info[0], heads), 2;
    const int batch = info[0] / heads, s = info[1] * BWD_BLOCK_N;
    const long long nq = (long long)info[0] * s * d, nkv = nq / heads * kv_heads, rows = (long long)info[0] * s;
    __nv_bfloat16 *q, *k, *v, *o, *dout, *dq, *dk, *dv;
    float *lse;
    GPU_CHECK(cudaMalloc(&q, 2 * nq));
    GPU_CHECK(cudaMalloc(&o, 2 * nq));
    GPU_CHECK(cudaMalloc(&dout, 2 * nq));
    GPU_CHECK(cudaMalloc(&dq, 2 * nq));
    GPU_CHECK(cudaMalloc(&k, 2 * nkv));
    GPU_CHECK(cudaMalloc(&v, 2 * nkv));
    GPU_CHECK(cudaMalloc(&dk, 2 * nkv));
    GPU_CHECK(cudaMalloc(&dv, 2 * nkv));
    GPU_CHECK(cudaMalloc(&lse, 4 * rows));
    fill_kernel<<<1024, 256>>>(q, nq, 1, 1.0f);
    fill_kernel<<<1024, 256>>>(k, nkv, 2, 1.0f);
    fill_kernel<<<1024, 256>>>(v, nkv, 3, 1.0f);
    fill_kernel<<<1024, 256>>>(o, nq, 4, 0.5f);
    fill_kernel<<<1024, 256>>>(dout, nq, 5, 1.0f);
    fill_const<<<1024, 256>>>(lse, rows, logf((float)s));
    gpu_check_launch("fill", __FILE__, __LINE__);
    const size_t bytes[3] = {(size_t)(2 * nq), (size_t)(2 * nkv), (size_t)(2 * nkv)};
    void *outs[3] = {dq, dk, dv}, *first[3];
    for (int j = 0; j < 3; j++)
        first[j] = malloc(bytes[j]);
    void *cur = malloc(bytes[0]);
    double *ms = (double *)malloc(sizeof(double) * repeats);
    cudaEvent_t e0, e1;
    GPU_CHECK(cudaEventCreate(&e0));
    GPU_CHECK(cudaEventCreate(&e1));
    int rc = 0, is_identical = 1;
    const float scale = 1.0f / sqrtf((float)d);
    for (int r = -1; r < repeats && !rc; r++) {
        GPU_CHECK(cudaEventRecord(e0));
        rc = bwd_run(h, q, k, v, o, dout, lse, dq, dk, dv, batch, heads, kv_heads, s, d, scale, is_atomic,
                     out && r == repeats - 1, NULL, timeout_ms);
        GPU_CHECK(cudaEventRecord(e1));
        if (rc || (rc = bwd_check(h))) {
            fprintf(stderr, "gpu-bwd: %s\n", bwd_error(h));
            break;
        }
        if (r < 0)
            continue;
        float elapsed = 0.0f;
        GPU_CHECK(cudaEventElapsedTime(&elapsed, e0, e1));
        ms[r] = elapsed;
        for (int j = 0; j < 3; j++) {
            GPU_CHECK(cudaMemcpy(r == 0 ? first[j] : cur, outs[j], bytes[j], cudaMemcpyDeviceToHost));
            if (r > 0 && memcmp(cur, first[j], bytes[j]))
                is_identical = 0;
        }
    }
    if (!rc) {
        const double med = sim_median_f64(ms, repeats);
        const double flops = 2.5 * 4.0 * info[0] * (double)s * s * d * (info[3] ? 0.5 : 1.0);
        printf("%s: %s %s %s batch %d heads %d kv_heads %d seqlen %d head_dim %d %s: median %.3f ms, %.1f TFLOPS "
               "(2.5 x fwd), %d runs %s\n",
               plan, bwd_kernel_name(h), bwd_policy(h), info[3] ? "causal" : "full", batch, heads, kv_heads, s, d,
               is_atomic ? "atomic" : "deterministic", med, flops / med / 1e9, repeats,
               is_identical ? "bit-identical" : "DIFFER");
        if (!is_atomic && !is_identical)
            rc = 1;
        if (out && bwd_write_trace(h, out, is_atomic ? "mode=atomic" : "mode=deterministic")) {
            fprintf(stderr, "gpu-bwd: %s\n", bwd_error(h));
            rc = 1;
        }
    }
    bwd_free(h);
    return rc;
}

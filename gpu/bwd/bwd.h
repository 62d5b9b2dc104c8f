/* dashsim's real attention backward (docs/kernel.md): a bf16 FlashAttention backward on the tensor cores
 * whose CTAs run a dashsim plan's task order and add their partial dQ tiles in the plan's rank order; two
 * kernels (the Hopper kernel on TMA and wgmma, the default; the mma.sync kernel, the fallback and reference).
 * C API, also loaded by gpu/bwd/bench.py through ctypes. Invariant: in deterministic mode dQ, dK
 * and dV are a pure function of the inputs and the plan, bit for bit, whatever the timing. */
#ifndef GPU_BWD_H
#define GPU_BWD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Tiles of every plan the kernel runs: kBlockM = 64 query rows, kBlockN = 128 key rows (tile_ratio 2). */
#define BWD_BLOCK_M 64
#define BWD_BLOCK_N 128

typedef struct BwdHandle BwdHandle; /* a plan on the GPU plus its work buffers; opaque */

/* Reads and checks a plan (gpu_plan_read), uploads its task order. Returns NULL with a sentence in err. */
BwdHandle *bwd_new(const char *plan_path, char *err, int errlen);
void bwd_free(BwdHandle *h); /* NULL is a no-op */
/* Plan facts: heads (= batch x query heads), kv_tiles, q_tiles, is_causal, is_persistent, ctas, tasks. */
void bwd_info(const BwdHandle *h, int out[7]);
const char *bwd_policy(const BwdHandle *h);
/* Selects the main kernel: "wgmma" (the Hopper kernel, the default), a variant of it (docs/kernel.md,
 * "Variants"), or "mma" (the mma.sync kernel, the fallback and reference). Returns 0, or 2 with a sentence in
 * bwd_error for an unknown name. */
int bwd_set_kernel(BwdHandle *h, const char *name);
/* The selected kernel's name in traces: "dashsim-bwd" (mma), "dashsim-bwd-wgmma", or the variant's name. */
const char *bwd_kernel_name(const BwdHandle *h);

/* Enqueues the whole backward on stream (a cudaStream_t; NULL: the legacy default stream): preprocess
 * (Delta = rowsum(dO*O), LSE in log2 units, zeroed dQaccum and semaphores), the main kernel, postprocess
 * (dQ to bf16; dK/dV group sums for GQA). Tensors are contiguous [batch][heads][seqlen][head_dim] bf16
 * (k, v, dk, dv with kv_heads), lse [batch][heads][seqlen] fp32 in natural-log units as PyTorch returns
 * it. is_atomic: partial dQ tiles are added in any order (no semaphores), the non-deterministic reference.
 * is_record: per-task timestamps for bwd_write_trace. Does not synchronise. Returns 0, or 2 with a
 * sentence in bwd_error when the shapes do not match the plan. */
int bwd_run(BwdHandle *h, const void *q, const void *k, const void *v, const void *o, const void *dout,
            const float *lse, void *dq, void *dk, void *dv, int batch, int heads, int kv_heads, int seqlen,
            int head_dim, float softmax_scale, int is_atomic, int is_record, void *stream,
            long long timeout_ms);
/* Synchronises and returns 0, or 1 when a semaphore wait ran past its timeout (bwd_error says which CTA
 * waited on which dQ row for which rank) or a CUDA error happened. */
int bwd_check(BwdHandle *h);
const char *bwd_error(const BwdHandle *h);

/* Writes the per-task trace of the last recorded run (docs/gpu.md's format) with the device metadata and
 * meta ("KEY=VALUE;KEY=VALUE", may be NULL). Returns 0, or 1 when the file cannot be written. */
int bwd_write_trace(BwdHandle *h, const char *path, const char *meta);
/* Device metadata (gpu_name, sm_count, clocks, driver, cuda, date) as a JSON object into buf. */
int bwd_device_meta_json(char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif

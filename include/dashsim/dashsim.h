/* dashsim: the public interface of libdashsim, the whole of it: `#include <dashsim/dashsim.h>` with the
 * flags of `pkg-config --cflags --libs dashsim`. Every name starts with dashsim_, Dashsim or DASHSIM_; the
 * shared library exports exactly the functions declared here (DASHSIM_API) and nothing else. Two ways in:
 * a job handle for one attention schedule (the tile-level model of `dashsim --policy P --n N`), and a JSON
 * request for anything a config can say (what `dashsim run CONFIG` runs). Reference: docs/api.md.
 *
 *   DashsimJob *job = dashsim_job_new();              // 132 SMs, 1 head, 132 x 132 tiles, full, fa3
 *   DashsimError err;
 *   DashsimResult r;
 *   if (dashsim_job_set_policy(job, "shift", &err) == DASHSIM_OK &&
 *       dashsim_job_run(job, &r, &err) == DASHSIM_OK)
 *       printf("%lld ns\n", (long long)r.makespan_ns);
 *   else
 *       fprintf(stderr, "%s\n", err.message);
 *   dashsim_job_free(job);
 *
 * Errors: every call that can fail returns a DashsimStatus and, when err is not NULL, fills it with the
 * status and one sentence. Ownership: handles are freed with their _free (NULL is a no-op), strings the
 * library returns with dashsim_free; strings passed in are copied. Memory: the library aborts when an
 * allocation fails (GLib's allocator); inputs whose simulation would need more than the job's memory cap
 * are refused before anything is allocated. Threads: calls on different handles may run at once. */
#ifndef DASHSIM_DASHSIM_H
#define DASHSIM_DASHSIM_H

#include <stdint.h>

#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the exported functions: the library is built with -fvisibility=hidden, so only these are in the
 * shared library's dynamic symbol table. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define DASHSIM_API __attribute__((visibility("default")))
#else
#define DASHSIM_API
#endif

/* ---- version and errors ---- */

/* The library's version, "MAJOR.MINOR.PATCH": compare with DASHSIM_VERSION to catch a program built
 * against other headers than the library it runs with. Static storage. */
DASHSIM_API const char *dashsim_version(void);
/* The same as one number, MAJOR x 10000 + MINOR x 100 + PATCH (DASHSIM_VERSION_NUMBER): a program can check
 * at run time that the library is at least the version it needs (dashsim_version_number() >= 200). */
DASHSIM_API int dashsim_version_number(void);

/* What went wrong. The values are part of the ABI (never renumbered). */
typedef enum {
    DASHSIM_OK = 0,
    DASHSIM_ERR_USAGE = 1,    /* a bad argument: unknown policy, value out of range, NULL where a value is needed */
    DASHSIM_ERR_INPUT = 2,    /* a bad request or file: JSON syntax, unknown key, wrong type (with its location) */
    DASHSIM_ERR_SCHEDULE = 3, /* the policy is not defined for the workload (e.g. odd N for symmetric-shift) */
    DASHSIM_ERR_LIMIT = 4,    /* over a stated size or memory cap (the sentence says which) */
    DASHSIM_ERR_IO = 5,       /* a file could not be read or written */
    DASHSIM_ERR_CHECK = 6     /* a check failed: dashsim_validate_json, which returns the report with it */
} DashsimStatus;

/* A status and its sentence (no trailing newline). A small record the caller owns. */
typedef struct {
    DashsimStatus status;
    char message[512];
} DashsimError;

/* A short name for the status ("bad input", ...). Static storage; "unknown status" outside the enum. */
DASHSIM_API const char *dashsim_strerror(DashsimStatus status);

/* ---- policies (schedules) ---- */

/* The registered attention policies, in the registry's order: i from 0 to count - 1. name and summary
 * return static strings, NULL for i out of range. O(1). */
DASHSIM_API int dashsim_policy_count(void);
DASHSIM_API const char *dashsim_policy_name(int i);
DASHSIM_API const char *dashsim_policy_summary(int i);

/* ---- one attention job ---- */

/* One schedule of the deterministic attention backward on the tile-level model: SMs, heads, tiles, mask,
 * the cost of one tile pair's compute (c) and of one ordered dQ reduction (r), in integer ns. Opaque. */
typedef struct DashsimJob DashsimJob;

/* A job with the defaults of `dashsim`: policy fa3, 132 SMs, 1 head, 132 KV x 132 Q tiles, full mask,
 * c 1000 ns, r 500 ns, latency 0, serial reduction, memory cap 4096 MB. Free with dashsim_job_free. */
DASHSIM_API DashsimJob *dashsim_job_new(void);
DASHSIM_API void dashsim_job_free(DashsimJob *job);

/* Each setter checks its arguments and changes nothing on an error. */
/* A registered policy (dashsim_policy_name); a run refuses one that does not take the job's mask (full and
 * causal: fa3 ...; a block mask: ascending, descending, spt or search). */
DASHSIM_API DashsimStatus dashsim_job_set_policy(DashsimJob *job, const char *policy, DashsimError *err);
/* sm_count 1..100000; heads (heads x batch), kv_tiles and q_tiles 1..1000000. */
DASHSIM_API DashsimStatus dashsim_job_set_shape(DashsimJob *job, int sm_count, int heads, int kv_tiles, int q_tiles,
                                                DashsimError *err);
/* "full", "causal" or a block mask in tile units (docs/masks.md: window:W, window:L:R, document:L1,L2,...,
 * prefix:P, random:DENSITY:SEED). A block mask is made for the tiles the job has when it runs. */
DASHSIM_API DashsimStatus dashsim_job_set_mask(DashsimJob *job, const char *mask, DashsimError *err);
/* c_ns and r_ns 0..10^12; latency_ns (each cross-SM accumulation edge) 0..10^9. */
DASHSIM_API DashsimStatus dashsim_job_set_costs(DashsimJob *job, int64_t c_ns, int64_t r_ns, int64_t latency_ns,
                                                DashsimError *err);
/* "serial" (a reduction blocks the next compute: the DASH paper's model) or "async" (FA3's store warp with
 * a dq_buffers deep staging buffer, 1..64; ignored for serial). */
DASHSIM_API DashsimStatus dashsim_job_set_reduce(DashsimJob *job, const char *mode, int dq_buffers, DashsimError *err);
/* Refuse runs estimated above this many MB (1..this machine's memory). */
DASHSIM_API DashsimStatus dashsim_job_set_max_memory_mb(DashsimJob *job, int64_t max_memory_mb, DashsimError *err);

/* Files a run writes (docs/outputs.md), all or none of them. */
typedef enum {
    DASHSIM_OUTPUT_TRACE = 0, /* Chrome trace JSON for Perfetto */
    DASHSIM_OUTPUT_CSV = 1,   /* one row per phase */
    DASHSIM_OUTPUT_DOT = 2,   /* the schedule's DAG as Graphviz DOT */
    DASHSIM_OUTPUT_PLAN = 3,  /* the plan (docs/plan-format.md) */
    DASHSIM_OUTPUT_GANTT = 4  /* .png or .svg through gnuplot, with its .gp and .dat beside it */
} DashsimOutput;
/* Writes that output to path at the next run; NULL: not written. Paths may not repeat one another. */
DASHSIM_API DashsimStatus dashsim_job_set_output(DashsimJob *job, DashsimOutput output, const char *path,
                                                 DashsimError *err);

/* What a run found. Times in integer ns. A small record the caller owns. */
typedef struct {
    int64_t tasks;              /* tile pairs simulated */
    int64_t makespan_ns;        /* launch to the last reduction's end */
    int64_t critical_path_ns;   /* longest path of the realised DAG (equals the makespan) */
    int64_t busy_ns;            /* summed over SMs: time some engine of the SM is busy */
    int64_t bubble_ns;          /* sm_count x makespan - busy */
    double busy_fraction;
    int64_t lemma1_violations;  /* accumulation edges against the DAG's depth order (the DASH paper's Lemma 1) */
    int has_closed_form;        /* the DASH paper gives a formula for this policy and mask: */
    int is_closed_form_exact;   /* and the simulator reproduces it exactly for this input */
    int64_t closed_form_ns;
} DashsimResult;

/* Builds the policy's plan, simulates it and analyses its DAG; writes the outputs set. The same job gives
 * the same result and the same bytes every time. O(tasks log SMs) time, about 100 bytes per task. */
DASHSIM_API DashsimStatus dashsim_job_run(const DashsimJob *job, DashsimResult *result, DashsimError *err);

/* ---- JSON in, JSON out (for other languages) ---- */

/* Runs a config given as JSON text (docs/configs.md: the document `dashsim run CONFIG` reads; relative file
 * names in it are relative to the working directory) and sets *result_json to a JSON array holding, one per
 * line, the rows `dashsim run CONFIG --format jsonl` prints, byte for byte ("[]" without rows). On an error
 * *result_json is NULL and *error (when error is not NULL) holds the sentences, one per line, each naming its
 * place in the request ("request:LINE:COL" for syntax, the JSON path for meaning); nothing is half done.
 * Free both with dashsim_free. Requests over 1 MiB are refused. One thread. */
DASHSIM_API DashsimStatus dashsim_run_json(const char *request_json, char **result_json, char **error);
/* The commands beyond run, each as JSON text in and the command's own `--json` object out, byte for byte
 * (docs/api.md lists each request's keys: the command's long options, '-' written '_'). A result is a JSON
 * document: a field added to it later is a new key, never a change of the ABI; read fields with
 * dashsim_json_get_* below. Errors, ownership and the 1 MiB limit as for dashsim_run_json; the error
 * sentence names the request's key ("request/mask: ..."). */

/* `dashsim search --json`: a schedule for a block mask with its bounds, baselines and exact step. Keys:
 * mask (required), n, heads, gqa, tiles, kv_tiles, q_tiles, c_ns, r_ns, latency_ns, reduce, iterations,
 * seed, exact_max_nodes, exact_max_ms, max_memory_mb. Time as the command's (about 0.1-1 s at 64 tasks). */
DASHSIM_API DashsimStatus dashsim_search_json(const char *request_json, char **result_json, char **error);
/* `dashsim decode --json`, one run: a split-KV decode step (FA3 forward + combine) on the H100 cost model.
 * Keys: batch, hq, hkv, lq, lk, head_dim, dtype ("bf16", "fp16", "fp8"), paged (true/false), kblock_m,
 * kblock_n, n, split_policy ("fa3", "seq-aware", "best", "fixed:S"), hbm_gbps, sm_tensor_gflops, kernel_ns,
 * cta_fixed_ns, block_ns, combine_ns, combine_split_ns, max_memory_mb. O(KV blocks) (best: O(64 runs)). */
DASHSIM_API DashsimStatus dashsim_decode_json(const char *request_json, char **result_json, char **error);
/* `dashsim pipeline --json`: a Cube/Vector preload pipeline (AMLA appendix B) on one AI core. Keys: policy
 * ("serial", "preload", "amla"), c_ns, v_ns, v_last_ns (arrays of integer ns, one per CV pair), blocks, cube,
 * vector, ring, preload, order (a Cycle, e.g. "C2,C1+1,V1+1,V2+2"), min_preload, explain (booleans),
 * max_memory_mb. A schedule that deadlocks is DASHSIM_ERR_SCHEDULE with its sentence. O(ops). */
DASHSIM_API DashsimStatus dashsim_pipeline_json(const char *request_json, char **result_json, char **error);

/* `dashsim --seqlen S --json`, one shape: "which schedule for my shape?". The shape is costed through the one
 * costing path (a kernel profile's tiles and per-task costs, or FA3's tiles and the FLOPs estimate; the hardware
 * profile's reductions), every policy for its mask (or the one named) is run on it, and the result ranks them:
 * each one's makespan and time, the winner, its margins over FA3's orders, and a tie where the lead is below the
 * validated error. Keys: seqlen (required), seqlen_k, head_dim, heads, batch, kv_heads, mask ("full", "causal"
 * or a mask in tokens: window:W, document:L1,..., prefix:P), hardware (a preset: "h100-sxm", "h800-sxm",
 * "h200-sxm"), profile, kernel (a name or a file, found as the command finds them), model ("profile",
 * "paper"), policy (a name or "all"), reduce, dq_buffers, max_memory_mb. O(policies x one job run). */
DASHSIM_API DashsimStatus dashsim_shape_json(const char *request_json, char **result_json, char **error);
/* `dashsim --plan FILE --json`: a plan file (docs/plan-format.md: a hand-written schedule, another tool's, or
 * --emit-plan's) simulated after the same reader and plan_check as the command's and the GPU executor's. Keys:
 * plan (the file's name, required; relative to the working directory), and overrides of the plan's own costs
 * as the command's flags: c_ns, r_ns, latency_ns, reduce ("serial", "async"), dq_buffers; max_memory_mb. A plan
 * that fails its checks is DASHSIM_ERR_INPUT or DASHSIM_ERR_SCHEDULE with "FILE:LINE: ...". O(tasks log SMs). */
DASHSIM_API DashsimStatus dashsim_replay_json(const char *request_json, char **result_json, char **error);

/* `dashsim validate --json`: the model's error on measured kernel traces and timed runs (gpu/ executor traces,
 * gpu/bwd's traces and kernel-runs files). Keys: traces (required: an array of trace files, kernel-runs files or
 * directories), predict (true: check the profiles' prediction, no per-trace fit), profile, kernel (a name or a
 * file, found as the command finds them), tolerance (a fraction; default 0.03, 0.05 with predict),
 * speedup_tolerance (pp, default 2), latency_matrix, baseline (an earlier report: a regression fails the check),
 * max_memory_mb, jobs (threads; the report does not depend on them). The result is the report. A model beyond
 * its tolerance, a run not predicted or a regression is DASHSIM_ERR_CHECK *with* the report in *result_json and,
 * in *error, the sentences (the verdict, then each regression): a failed check is an answer, not a failed call,
 * and the only status that comes with a result. O(trace tasks x models). */
DASHSIM_API DashsimStatus dashsim_validate_json(const char *request_json, char **result_json, char **error);

/* ---- A time budget and a cancel hook ---- */

/* The caller's cancel hook: returns nonzero to stop the work. It is called on the thread that made the call,
 * between steps: at least every 100 ms in a run's sweep, after each move and every 4096 nodes of a search's
 * exact step. Once it has returned nonzero the call stops, whatever it returns later. */
typedef int (*DashsimCancelFn)(void *ctx);
/* dashsim_run_json and dashsim_search_json within max_seconds of wall time (0: no bound; NaN, negative or
 * infinite: DASHSIM_ERR_USAGE) and while is_cancelled (may be NULL) returns 0. When either stops the work the
 * call returns DASHSIM_ERR_LIMIT with a sentence ("the run was cancelled by its caller", "the search ran past
 * its time budget of S s") and no result: nothing is half done. A run stops starting rows and waits for the
 * rows in progress (each bounded by its config's caps; a search row by its exact step's 10 s), so it may
 * return up to one row's time after the bound. A request's own /options/max_seconds applies as well. */
DASHSIM_API DashsimStatus dashsim_run_json_within(const char *request_json, double max_seconds,
                                                  DashsimCancelFn is_cancelled, void *ctx, char **result_json,
                                                  char **error);
DASHSIM_API DashsimStatus dashsim_search_json_within(const char *request_json, double max_seconds,
                                                     DashsimCancelFn is_cancelled, void *ctx, char **result_json,
                                                     char **error);

/* Reads one field of a JSON text the library returned, by its JSON Pointer (RFC 6901: "/makespan_ns",
 * "/bounds_ns/work", "/0/makespan_ns" for the first row of dashsim_run_json). DASHSIM_ERR_INPUT, with a
 * sentence, when the text is not JSON, the field is missing or null, or not of the type asked (an integer: a
 * number without a fraction). *value is set only on DASHSIM_OK; a string is malloc'ed (dashsim_free).
 * O(size of the text). */
DASHSIM_API DashsimStatus dashsim_json_get_int64(const char *json, const char *pointer, int64_t *value,
                                                 DashsimError *err);
DASHSIM_API DashsimStatus dashsim_json_get_double(const char *json, const char *pointer, double *value,
                                                  DashsimError *err);
DASHSIM_API DashsimStatus dashsim_json_get_string(const char *json, const char *pointer, char **value,
                                                  DashsimError *err);

/* Frees a string the library returned; NULL is a no-op. */
DASHSIM_API void dashsim_free(void *p);

#ifdef __cplusplus
}
#endif

#endif

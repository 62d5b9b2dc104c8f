/* Sweeps: every (point, policy) of a config as one job, run on a GLib thread pool, results handed back in
 * row order. Invariant: rows are emitted in the same order with the same bytes for any number of threads;
 * a point's rows are emitted once all rows of it and of every earlier point are done. */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <signal.h>
#include <stdio.h>

#include "config.h"
#include "job.h"

typedef enum { SWEEP_TABLE, SWEEP_CSV, SWEEP_JSONL } SweepFormat;

/* One job's settings and result. */
typedef struct {
    int64_t point;                /* sweep point it belongs to */
    const SimConfigPoint *cfg;    /* borrowed from the sweep */
    const char *policy;           /* registry name */
    SimCost cost;                 /* tiles, c, r, workload (after options.c_ns / r_ns) */
    bool has_costs;               /* a kernel or hardware profile costed it: costs below, not cost's c and r */
    AttnCosts costs;              /* the costing path's task costs (costs.load borrows the sweep's) */
    int64_t fixed_ns, first_compute_ns; /* the launch's fixed costs (kernel profile) and first CTA prologue */
    bool is_done;                 /* ran, was skipped or was interrupted */
    bool is_skipped;              /* the policy does not suit this workload: note says why */
    bool is_interrupted;          /* never ran (SIGINT) */
    char note[512];
    SimError err;                 /* a job error other than a skip */
    int64_t tasks, makespan_ns, critical_path_ns, bubble_ns;
    double busy_fraction;
    int64_t time_ns;              /* predicted end-to-end time: the makespan plus the kernel's fixed costs
                                   * (sim_cost_time_ns); the makespan without a kernel profile */
    double tflops;                /* cost.bwd_flops / time_ns */
    bool has_speedup;
    double speedup;               /* baseline time / time, same point */
} SimSweepRow;

typedef struct SimSweep SimSweep;

/* Which part of a config a run covers. */
typedef struct {
    int shard_index;    /* K of --shard K/N (1..shard_count); 0: every point */
    int shard_count;    /* N: the points cut into N contiguous ranges of whole points, K-th = points
                         * [P (K-1) / N, P K / N) of P, so the slices in order are the whole output */
    int64_t row;        /* --row: 1-based row of the whole config; only its point runs and the row is
                         * selected (sim_sweep_selected); 0: none. Beyond the last row: a usage error */
} SimSweepPart;

/* Expands a validated config into rows (skipping policies that do not support a point's mask), checks
 * each job's size (and each memory cap against this machine's memory), then reads the latency matrix
 * files that fit under the cap. NULL with every error in diag. */
SimSweep *sim_sweep_new(const SimConfig *cfg, bool is_sweep, SimDiag *diag);
/* The same for a part of the config: every point is still validated and sized (a config fails the same
 * way in every part); only the part's rows are kept and only its latency matrix files are read. */
SimSweep *sim_sweep_new_part(const SimConfig *cfg, bool is_sweep, const SimSweepPart *part, SimDiag *diag);
/* The index among the rows of the row --row selected, or -1. */
int64_t sim_sweep_selected(const SimSweep *s);
/* After a run: runs the selected row's job again (the same AttnJob: costs, latency matrix) with the
 * output paths and trace options of outputs (other fields ignored), so the files show the row's
 * makespan. SIM_ERR_INPUT when that row was skipped; the job's errors otherwise. */
SimStatus sim_sweep_write_outputs(const SimSweep *s, const AttnJob *outputs, SimError *err);
/* The sweep's points (every point of the config, also those another part runs). */
int64_t sim_sweep_point_count(const SimSweep *s);
const SimConfigPoint *sim_sweep_point(const SimSweep *s, int64_t i);
/* The point's mask as configured: full, causal, a block mask's spec or its file. */
const char *sim_sweep_mask_name(const SimConfigPoint *p);
void sim_sweep_free(SimSweep *s);
int64_t sim_sweep_row_count(const SimSweep *s);
const SimSweepRow *sim_sweep_row(const SimSweep *s, int64_t i);

typedef void (*SimSweepEmit)(const SimSweepRow *row, void *ctx);
typedef void (*SimSweepProgress)(int64_t done, int64_t total, void *ctx);
/* Runs every row on `jobs` threads (fewer when that many jobs at once would exceed the smallest
 * options.max_memory_mb of the sweep, matrices held included); emit gets rows in order (see the invariant), progress (may be NULL)
 * is called as jobs finish. When *stop becomes nonzero, queued jobs are dropped, running ones finish,
 * and the complete points are emitted. The first job error is returned in err (after emitting). */
SimStatus sim_sweep_run(SimSweep *s, int jobs, volatile sig_atomic_t *stop, SimSweepEmit emit,
                        SimSweepProgress progress, void *ctx, SimError *err);

void sim_sweep_write_header(FILE *f, SweepFormat format);
/* A part of a config (--shard K/N) opens its output with a line naming it (docs/configs.md): K/N, its
 * rows among the whole config's, and a fingerprint of the whole config's jobs. Nothing for a whole run. */
void sim_sweep_write_slice_line(FILE *f, SweepFormat format, const SimSweep *s);
/* Joins the outputs of sim sweep --shard K/N, in any order, into what one run writes: the header once
 * (CSV, table), then every slice's rows in K order. Each file must be a regular file holding one slice
 * whole (its slice line, header and every row it announces, each a whole line, no NUL); together they
 * must be slices 1..N of one config, each once. Errors: SIM_ERR_IO (unreadable), SIM_ERR_INPUT (one
 * sentence: which file and what). Reads every file through before writing a byte, then again to copy:
 * O(total bytes) time, O(longest line) memory. */
SimStatus sim_sweep_merge(const char *const *paths, int count, FILE *out, SimError *err);
void sim_sweep_write_row(FILE *f, SweepFormat format, const SimSweepRow *row);
/* TFLOPS over seqlen per policy, one panel per (mask, head_dim), through gnuplot: writes png_path and,
 * beside it, the .gp script and .dat data (png_path minus .png, plus .gp/.dat). Uses emitted rows only. */
SimStatus sim_sweep_plot(const SimSweep *s, const char *png_path, SimError *err);

#endif

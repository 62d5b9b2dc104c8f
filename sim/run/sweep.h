/* Sweeps: every (point, policy) of a config as one job, run on a GLib thread pool, results handed back in
 * row order. Invariant: rows are emitted in the same order with the same bytes for any number of threads;
 * a point's rows are emitted once all rows of it and of every earlier point are done. */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <signal.h>
#include <stdio.h>

#include "config.h"
#include "job.h"
#include "sweep_out.h"

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
/* Where c and r came from over the whole config's rows, in words ("c from the FLOPs cost model, r from hardware
 * profile h100-sxm.json"; sources separated by "; "): for the table's first line, the plot's title and a slice's
 * line. */
const char *sim_sweep_costs_from(const SimSweep *s);
/* The hardware (is_kernel false) or kernel profile file point i was costed with, or NULL: none. */
const char *sim_sweep_point_file(const SimSweep *s, int64_t i, bool is_kernel);
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
/* The caller's time budget and cancel hook (status.h; borrowed, NULL: none) for the next sim_sweep_run, checked
 * on the calling thread at least every 100 ms: once spent, no new row starts, running rows finish, the
 * complete points are emitted and the run returns SIM_ERR_LIMIT with its sentence (as max_seconds does). */
void sim_sweep_set_budget(SimSweep *s, const SimBudget *budget);

/* A part of a config (--shard K/N) opens its output with a line naming it (docs/configs.md): K/N, its
 * rows among the whole config's, and a fingerprint of the whole config's jobs. Nothing for a whole run. */
void sim_sweep_write_slice_line(FILE *f, SweepFormat format, const SimSweep *s);
/* Its last line (--shard K/N), after every row: rows_fnv is the digest of the rows written
 * (sim_sweep_write_row_hashed, from SIM_SWEEP_FNV_BASIS). Nothing for a whole run. */
void sim_sweep_write_slice_end_line(FILE *f, SweepFormat format, const SimSweep *s, uint64_t rows_fnv);
/* TFLOPS over seqlen per policy, one panel per (mask, head_dim), through gnuplot: writes png_path and,
 * beside it, the .gp script and .dat data (png_path minus .png, plus .gp/.dat). Uses emitted rows only. */
/* is_speedup: the speedup column (the baseline's time / time) instead of TFLOPS (sim sweep --plot-speedup). */
SimStatus sim_sweep_plot(const SimSweep *s, const char *png_path, bool is_speedup, SimError *err);

#endif

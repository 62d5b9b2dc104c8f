/* Sweep outputs (sim/io/sweep_out.c): a row in each format, the header, a slice's first line, --merge of
 * slices and the TFLOPS plot. A row is what sim/run/sweep.c made of one (point, policy) job. */
#ifndef SIM_SWEEP_OUT_H
#define SIM_SWEEP_OUT_H

#include <stdio.h>

#include "config.h"
#include "costing.h"

typedef enum { SWEEP_TABLE, SWEEP_CSV, SWEEP_JSONL } SweepFormat;

#define SWEEP_COSTS_FROM_MAX 512  /* where c and r came from over a whole config, NUL included */
#define SWEEP_HEADER_MAX 1024     /* a header's lines */

/* One job's settings and result. */
typedef struct {
    int64_t point;                /* sweep point it belongs to */
    const SimConfigPoint *cfg;    /* borrowed from the sweep */
    const char *policy;           /* registry name */
    SimCost cost;                 /* tiles, c, r, workload (after options.c_ns / r_ns) */
    bool has_costs;               /* a kernel or hardware profile costed it: costs below, not cost's c and r */
    AttnCosts costs;              /* the costing path's task costs (costs.load borrows the sweep's) */
    int64_t fixed_ns, first_compute_ns; /* the launch's fixed costs (kernel profile) and first CTA prologue */
    char costs_from[160];         /* where c and r came from, short: "c from kernel profile K, r from hardware
                                   * profile P" (config values, profiles or the cost model) */
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

/* The rows of merged slices as their plot reads them (sim/io/sweep_rows_read.c): each row that ran, with its
 * policy, TFLOPS and speedup, its point's mask, head_dim, seqlen, preset and reduction, and where c and r came
 * from (the slices' lines). Caller-owned: zero-initialise, sim_sweep_merged_clear. Memory: a row and a point
 * per row at most, as the sweep that wrote them held. */
typedef struct {
    SimSweepRow *rows;
    int64_t row_count, row_cap;
    SimConfigPoint *points;       /* rows[i].point indexes these */
    int64_t point_count, point_cap;
    char costs_from[SWEEP_COSTS_FROM_MAX];
} SweepMerged;
/* Reads one row line of format (as sim_sweep_write_row wrote it) into m; a row that did not run is left out.
 * SIM_ERR_INPUT with a sentence when the line is not such a row. O(line). */
SimStatus sim_sweep_row_read(SweepFormat format, const char *line, SweepMerged *m, SimError *err);
/* The plot of the rows read (sim_sweep_plot_rows): the figure one run of the whole config draws. */
SimStatus sim_sweep_merged_plot(SweepMerged *m, const char *png_path, bool is_speedup, SimError *err);
void sim_sweep_merged_clear(SweepMerged *m);
/* A point's mask as rows name it: "full", "causal", or the block mask's spec or file. */
const char *sim_sweep_mask_name(const SimConfigPoint *p);
/* The header line of format, newline included (nothing for JSONL); a table's first line says what the numbers
 * are and where c and r came from (costs_from: sim_sweep_costs_from). */
void sim_sweep_write_header(FILE *f, SweepFormat format, const char *costs_from);
/* Joins the outputs of sim sweep --shard K/N, in any order, into what one run writes: the header once
 * (CSV, table), then every slice's rows in K order. Each file must be a regular file holding one slice
 * whole (its slice line, header and every row it announces, each a whole line, no NUL); together they
 * must be slices 1..N of one config, each once. Errors: SIM_ERR_IO (unreadable), SIM_ERR_INPUT (one
 * sentence: which file and what). Reads every file through before writing a byte, then again to copy:
 * O(total bytes) time, O(longest line) memory. merged (may be NULL): the rows are also read into it, for
 * their plot (sim_sweep_merged_plot; memory then O(rows)). */
SimStatus sim_sweep_merge(const char *const *paths, int count, FILE *out, SweepMerged *merged, SimError *err);
void sim_sweep_write_row(FILE *f, SweepFormat format, const SimSweepRow *row);

/* Which rows of the whole config a slice holds, for its first line (--shard K/N). */
typedef struct {
    int shard_index, shard_count;  /* K and N; shard_count 0: not a slice (no line) */
    int64_t first_row, row_count;  /* its rows among the config's (0-based first) */
    int64_t total_rows;            /* rows of the whole config */
    uint64_t fingerprint;          /* of every job of the whole config */
    const char *costs_from;        /* where c and r came from over the whole config (sim_sweep_costs_from) */
} SweepSlice;

/* The slice's first line in format (nothing when it is not a slice). */
void sim_sweep_write_slice(FILE *f, SweepFormat format, const SweepSlice *s);
/* row as sim_sweep_write_row writes it, its bytes (newline included) folded into *rows_fnv (FNV-1a 64, from
 * SIM_SWEEP_FNV_BASIS): the digest a slice's last line records for --merge. */
/* row as sim_sweep_write_row writes it, as a malloc'ed string (free) of *len bytes, newline included. */
char *sim_sweep_row_text(SweepFormat format, const SimSweepRow *row, size_t *len);
#define SIM_SWEEP_FNV_BASIS UINT64_C(0xcbf29ce484222325)
void sim_sweep_write_row_hashed(FILE *f, SweepFormat format, const SimSweepRow *row, uint64_t *rows_fnv);
/* The slice's last line, after every row (nothing when it is not a slice): the digest of its rows' bytes, so
 * that --merge refuses a slice whose rows were edited. */
void sim_sweep_write_slice_end(FILE *f, SweepFormat format, const SweepSlice *s, uint64_t rows_fnv);
/* The TFLOPS plot of rows (PNG at png_path, its .gp and .dat beside it, all or none) through gnuplot; the title
 * says where c and r came from (costs_from, sources separated by "; ", one a line). */
SimStatus sim_sweep_plot_rows(const SimSweepRow *rows, int64_t row_count, const char *costs_from, const char *png_path,
                              bool is_speedup, SimError *err);

#endif

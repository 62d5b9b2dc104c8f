/* Outputs of `sim decode`: one run, the split sweep (table, summary, JSON, gnuplot PNG) and the 160-config
 * regression (rows, stats, regrets, JSON). Writers only: every number comes from sim/model/decode/decode.h.
 * Invariant: the same inputs give the same bytes; the PNG is renamed into place only if gnuplot succeeded. */
#ifndef SIM_DECODE_OUT_H
#define SIM_DECODE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "decode.h"
#include "status.h"

/* One run chosen by policy_name: the shape, tile and model lines and the run, or one JSON object. O(1). */
void sim_decode_write_run(FILE *f, const char *policy_name, const DecodeShape *w, const DecodeGeometry *g,
                          const DecodeCosts *c, const DecodeRun *r, bool is_json);
/* The sweep: the shape, tile and model as "# " comments, one row per split count and the summary comments,
 * or one JSON object. O(64). */
void sim_decode_write_sweep(FILE *f, const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c,
                            const DecodeSweep *sw, bool is_json);
/* Latency over s as a PNG at path through sim_gnuplot_run. SIM_ERR_IO "cannot write PATH: ..." when the
 * file cannot be created or gnuplot is missing or fails; nothing is left at path then. */
SimStatus sim_decode_plot_sweep(const DecodeShape *w, const DecodeSweep *sw, const char *path, SimError *err);

/* Regression text: the model and header comments, one line per row (as rows stream in), then the stats, regrets and the
 * configurations slower than fa3 (all rows). */
void sim_decode_write_grid_header(FILE *f, const DecodeCosts *c);
void sim_decode_write_grid_row(FILE *f, const DecodeGridRow *r);
void sim_decode_write_grid_summary(FILE *f, const DecodeGridRow *rows, const DecodeGridStats *seq,
                                   const DecodeGridStats *best);
/* The whole regression as one JSON object. */
void sim_decode_write_grid_json(FILE *f, const DecodeGridRow *rows, const DecodeGridStats *seq,
                                const DecodeGridStats *best);

#endif

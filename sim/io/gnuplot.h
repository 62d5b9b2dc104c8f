/* The one way dashsim runs gnuplot: a script file in a directory, with variables set by -e, gnuplot's
 * own complaint reported as one sentence. Every plot (Gantt charts, sweeps, decode U-curves) goes here. */
#ifndef SIM_GNUPLOT_H
#define SIM_GNUPLOT_H

#include <stdio.h>

#include "status.h"

/* Runs `gnuplot -e VARS SCRIPT` in dir (NULL: the current directory); vars may be NULL. program: the
 * gnuplot binary (NULL: "gnuplot" from PATH). what names the output in the error sentence. SIM_ERR_IO
 * with gnuplot's last line of complaint when it cannot be started or fails. */
SimStatus sim_gnuplot_run(const char *program, const char *dir, const char *vars, const char *script,
                          const char *what, SimError *err);
/* A PNG drawn from a script and its data, written as a set (all three or none: output.h): png_path must end
 * in .png; FILE.gp and FILE.dat go beside it. write fills the data and the script (which reads `outfile` and
 * `datafile`, defaulting to png_name and dat_name). SIM_ERR_USAGE for another suffix; SIM_ERR_IO as above. */
typedef void (*SimPlotWriter)(FILE *dat, FILE *gp, const char *dat_name, const char *png_name, void *ctx);
SimStatus sim_gnuplot_png(const char *png_path, SimPlotWriter write, void *ctx, SimError *err);
/* s with every ' doubled, for a gnuplot single-quoted string; caller frees (g_free). */
char *sim_gnuplot_quote(const char *s);

#endif

/* The one way dashsim runs gnuplot: a script file in a directory, with variables set by -e, gnuplot's
 * own complaint reported as one sentence. Every plot (Gantt charts, sweeps, decode U-curves) goes here. */
#ifndef SIM_GNUPLOT_H
#define SIM_GNUPLOT_H

#include "status.h"

/* Runs `gnuplot -e VARS SCRIPT` in dir (NULL: the current directory); vars may be NULL. program: the
 * gnuplot binary (NULL: "gnuplot" from PATH). what names the output in the error sentence. SIM_ERR_IO
 * with gnuplot's last line of complaint when it cannot be started or fails. */
SimStatus sim_gnuplot_run(const char *program, const char *dir, const char *vars, const char *script,
                          const char *what, SimError *err);
/* s with every ' doubled, for a gnuplot single-quoted string; caller frees (g_free). */
char *sim_gnuplot_quote(const char *s);

#endif

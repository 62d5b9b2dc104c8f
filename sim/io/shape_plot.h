/* The shape front end's figure (sim --seqlen S1,S2,... --plot F.png): each schedule's speedup over the two
 * baselines against seqlen, one panel per baseline, through gnuplot (gnuplot.h: F.gp and F.dat beside F). */
#ifndef SIM_SHAPE_PLOT_H
#define SIM_SHAPE_PLOT_H

#include <stdint.h>

#include "status.h"

typedef struct {
    int64_t seqlen;             /* the point's seqlen (x) */
    const char *policy;         /* schedule (borrowed) */
    double over_base[2];        /* speedup over the first and second baseline; 0: the baseline did not run */
} ShapePlotPoint;

/* points in any order (lines follow seqlen order within a policy); base names the two baselines ("fa3",
 * "fa3-spt"); costs_from (a line of the title) says where c and r came from. SIM_ERR_USAGE for a name not
 * ending in .png, SIM_ERR_IO from gnuplot. O(points x policies). */
SimStatus sim_shape_plot(const ShapePlotPoint *points, int count, const char *const base[2], const char *costs_from,
                         const char *png_path, SimError *err);

#endif

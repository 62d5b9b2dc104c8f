/* The calibration fit: a hardware profile (profile.h) built from gpu-calib's measurements once sim/io has read
 * them into plain rows (sim/io/profile_io.c reads the raw file and checks every number; this fits). Least
 * squares of cycles against rounds, the tiles and reduction methods a profile holds, the staged reduction's
 * curve by rounds, the load rule's queues, the clock rules per family, the steady load curve, medians of a
 * latency matrix. */
#ifndef SIM_CALIBRATE_H
#define SIM_CALIBRATE_H

#include "profile.h"

/* Least squares of y = fixed + per_iter * x over n points (the sums taken in point order). False, nothing
 * set, when the x do not differ (or n < 1). O(n). */
bool sim_calib_line_fit(const double *x, const double *y, int n, double *fixed, double *per_iter);
/* p's tile (tile_m, head_dim), added (zeroed) when p has none yet. Amortised O(tiles). */
ProfileTile *sim_calib_tile(HwProfile *p, int tile_m, int head_dim);
/* p's reduction method (tile, op without its -warp/-cta suffix, threads), added when new. O(methods). */
ProfileReduce *sim_calib_reduce(HwProfile *p, int tile_m, int head_dim, const char *op, int threads);
/* Adds (iters, ns) to t's reduction beside compute by rounds, kept ascending; a repeated round count keeps its
 * first row, and a full curve (SIM_PROFILE_MAX_POINTS) takes no more. */
void sim_calib_add_reduce_by_iters(ProfileTile *t, int iters, int64_t ns);
/* The load rule: runs grouped by family (is_bulk[i]: bulk, else ldst, whose queue red shares), each family's
 * queue fitted (sim_profile_fit_queue) and appended to p's queues. Returns the queues added. */
int sim_calib_fit_queues(const StaggerRun *runs, const bool *is_bulk, int n, HwProfile *p);
/* The clock rules: each family (bulk, ldst) with loaded rows gets its share (sim_profile_fit_clock) in p, and
 * p's reference clock is the idle rows' median, rounded. p's clock rules are replaced. Returns their count. */
int sim_calib_fit_clocks(const ClockRow *rows, int n, HwProfile *p);
/* The steady load curve (gpu-calib --steady's reduce_steady: every SM reducing from a random phase) in place of
 * r's burst curve: r's point at k in flight is its alone time scaled by the steady curve's median at k over its
 * median at 1 (linear between the n bins' mean k, ascending; flat beyond them). r->ns[0] stays. */
void sim_calib_apply_steady(ProfileReduce *r, const double *k, const double *ns, int n);
/* The median one-way latency of an sm_count x sm_count matrix, over its measured cells (>= 0). */
int64_t sim_calib_matrix_median(const int32_t *matrix, int sm_count);

#endif

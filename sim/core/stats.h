/* The one median (and small order statistics) of dashsim: every fit, summary and report uses these, so
 * two reports of the same numbers agree. Even counts take the mean of the two middle values. */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <stdint.h>

/* Median of v[0..n-1], reordering v; 0 when n = 0. int64: the mean of the middles rounded toward zero. */
int64_t sim_median_i64(int64_t *v, int64_t n);
double sim_median_f64(double *v, int64_t n);
/* The median of a sample read on a grid of step q (a timer that ticks every q ns), as grouped data: each value
 * stands for the q wide class of true values centred on it, and the median is interpolated inside its class
 * (stats.c has the formula), rounded to the nearest integer. q <= 1: sim_median_i64. Reorders v. */
int64_t sim_median_grouped_i64(int64_t *v, int64_t n, int64_t q);
/* The q-quantile (0 <= q <= 1) of v[0..n-1] by the nearest-rank rule, reordering v; 0 when n = 0. */
int64_t sim_quantile_i64(int64_t *v, int64_t n, double q);
/* Sorts v[0..n-1] ascending (LSD radix on 16-bit digits, 8-bit below 64k values: O(n), for the long
 * arrays of trace times). */
void sim_sort_i64(int64_t *v, int64_t n);

#endif

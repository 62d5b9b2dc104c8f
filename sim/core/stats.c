/* Order statistics by sorting (inputs are per-trace samples: thousands, not millions). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int64_t sim_median_i64(int64_t *v, int64_t n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double sim_median_f64(double *v, int64_t n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_f64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int64_t sim_quantile_i64(int64_t *v, int64_t n, double q)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    int64_t k = (int64_t)ceil(q * (double)n);
    return v[k < 1 ? 0 : k > n ? n - 1 : k - 1];
}

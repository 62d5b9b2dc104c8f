/* Order statistics by selection (Hoare's quickselect with a median-of-three pivot): O(n) expected, and the
 * same values a sort would give (validate takes hundreds of thousands of medians' worth of samples). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* name(v, n, k) moves the k-th smallest of v[0..n-1] to v[k], the smaller ones before it, the larger after;
 * name##_max_below(v, k) is the largest of v[0..k-1] (k >= 1): after a selection, the (k-1)-th smallest. */
#define DEFINE_SELECT(name, T)                                                                                 \
static T name##_max_below(const T *v, int64_t k)                                                               \
{                                                                                                              \
    T m = v[0];                                                                                                \
    for (int64_t i = 1; i < k; i++)                                                                            \
        m = m < v[i] ? v[i] : m;                                                                               \
    return m;                                                                                                  \
}                                                                                                              \
static void name(T *v, int64_t n, int64_t k)                                                                   \
{                                                                                                              \
    int64_t lo = 0, hi = n - 1;                                                                                \
    while (hi - lo > 16) {                                                                                     \
        int64_t mid = lo + (hi - lo) / 2;                                                                      \
        T a = v[lo], b = v[mid], c = v[hi];                                                                    \
        T pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);                           \
        int64_t i = lo, j = hi;                                                                                \
        while (i <= j) {                                                                                       \
            while (v[i] < pivot)                                                                               \
                i++;                                                                                           \
            while (pivot < v[j])                                                                               \
                j--;                                                                                           \
            if (i <= j) {                                                                                      \
                T t = v[i];                                                                                    \
                v[i++] = v[j], v[j--] = t;                                                                     \
            }                                                                                                  \
        }                                                                                                      \
        if (k <= j)                                                                                            \
            hi = j;                                                                                            \
        else if (k >= i)                                                                                       \
            lo = i;                                                                                            \
        else                                                                                                   \
            return;                                                                                            \
    }                                                                                                          \
    for (int64_t i = lo + 1; i <= hi; i++) { /* a short range: insertion sort */                              \
        T t = v[i];                                                                                            \
        int64_t j = i;                                                                                         \
        for (; j > lo && t < v[j - 1]; j--)                                                                    \
            v[j] = v[j - 1];                                                                                   \
        v[j] = t;                                                                                              \
    }                                                                                                          \
}

DEFINE_SELECT(select_i64, int64_t)
DEFINE_SELECT(select_f64, double)

int64_t sim_median_i64(int64_t *v, int64_t n)
{
    if (n <= 0)
        return 0;
    select_i64(v, n, n / 2);
    return n % 2 ? v[n / 2] : (select_i64_max_below(v, n / 2) + v[n / 2]) / 2;
}

/* The textbook median of grouped data with class width q, the classes centred on the grid values g:
 *     median = lo + q * (n/2 - below) / at,   lo = g_m - q/2,
 * g_m the (n/2 + 1)-th smallest value (its class is the median class), lo that class's lower edge, below the
 * count under lo, at the count in [lo, lo + q). Samples on one grid give g_m's class exactly; values off a
 * common grid (a stamp difference minus a fitted median) are counted in the class by their range. With n even
 * and exactly half below lo (the median class's neighbour below is not adjacent), the middle of the empty
 * stretch: (g' + g_m) / 2, g' the n/2-th smallest (the formula's value when the classes touch). The result
 * lies in [lo, lo + q); rounded to the nearest integer, halves away from zero. */
int64_t sim_median_grouped_i64(int64_t *v, int64_t n, int64_t q)
{
    if (q <= 1 || n <= 0)
        return sim_median_i64(v, n);
    select_i64(v, n, n / 2);
    int64_t g = v[n / 2], below = 0, at = 0;
    double lo = (double)g - (double)q / 2, hi = lo + (double)q;
    for (int64_t i = 0; i < n; i++)
        below += (double)v[i] < lo, at += (double)v[i] >= lo && (double)v[i] < hi;
    if (n % 2 == 0 && 2 * below == n)
        return llround(((double)select_i64_max_below(v, n / 2) + (double)g) / 2);
    return llround(lo + (double)q * ((double)n / 2 - (double)below) / (double)at);
}

double sim_median_f64(double *v, int64_t n)
{
    if (n <= 0)
        return 0;
    select_f64(v, n, n / 2);
    return n % 2 ? v[n / 2] : (select_f64_max_below(v, n / 2) + v[n / 2]) / 2;
}

int64_t sim_quantile_i64(int64_t *v, int64_t n, double q)
{
    if (n <= 0)
        return 0;
    int64_t k = (int64_t)ceil(q * (double)n);
    k = k < 1 ? 0 : k > n ? n - 1 : k - 1;
    select_i64(v, n, k);
    return v[k];
}

void sim_sort_i64(int64_t *v, int64_t n)
{
    if (n < 2)
        return;
    /* 16-bit digits pay 64k counts a pass, which outweighs short arrays (validate sorts many): 8 below 64k */
    int bits = n < 65536 ? 8 : 16;
    int64_t digits = (int64_t)1 << bits, mask = digits - 1;
    /* flip the sign bit so that unsigned digit order is signed order */
    uint64_t *u = (uint64_t *)v, *tmp = malloc(sizeof *tmp * (size_t)n), *src = u, *dst = tmp;
    int64_t *count = malloc(sizeof *count * (size_t)(digits + 1));
    if (!tmp || !count)
        abort();
    for (int64_t i = 0; i < n; i++)
        u[i] ^= UINT64_C(1) << 63;
    for (int shift = 0; shift < 64; shift += bits) {
        memset(count, 0, sizeof *count * (size_t)(digits + 1));
        for (int64_t i = 0; i < n; i++)
            count[((src[i] >> shift) & mask) + 1]++;
        if (count[((src[0] >> shift) & mask) + 1] == n)
            continue; /* every value has this digit: the pass would change nothing */
        for (int64_t d = 0; d < digits; d++)
            count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & mask]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != u)
        memcpy(u, src, sizeof *u * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        u[i] ^= UINT64_C(1) << 63;
    free(tmp);
    free(count);
}

/* The calibration fit (calibrate.h): the numbers of a hardware profile from measured rows. No file is read
 * here: sim/io/profile_io.c reads and checks gpu-calib's raw files and hands the rows over. Invariant: the
 * same rows in the same order give the same profile, bit for bit (every sum is taken in row order). */
#include "calibrate.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

bool sim_calib_line_fit(const double *x, const double *y, int n, double *fixed, double *per_iter)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    if (n < 1 || n * sxx - sx * sx == 0)
        return false;
    *per_iter = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *fixed = (sy - *per_iter * sx) / n;
    return true;
}

ProfileTile *sim_calib_tile(HwProfile *p, int tile_m, int head_dim)
{
    for (int i = 0; i < p->tile_count; i++)
        if (p->tiles[i].tile_m == tile_m && p->tiles[i].head_dim == head_dim)
            return &p->tiles[i];
    p->tiles = g_renew(ProfileTile, p->tiles, p->tile_count + 1);
    p->tiles[p->tile_count] = (ProfileTile){ .tile_m = tile_m, .head_dim = head_dim };
    return &p->tiles[p->tile_count++];
}

ProfileReduce *sim_calib_reduce(HwProfile *p, int tile_m, int head_dim, const char *op, int threads)
{
    for (int i = 0; i < p->reduce_count; i++) {
        ProfileReduce *r = &p->reduces[i];
        if (r->tile_m == tile_m && r->head_dim == head_dim && strcmp(r->op, op) == 0 && r->threads == threads)
            return r;
    }
    p->reduces = g_renew(ProfileReduce, p->reduces, p->reduce_count + 1);
    ProfileReduce *r = &p->reduces[p->reduce_count++];
    *r = (ProfileReduce){ .tile_m = tile_m, .head_dim = head_dim, .threads = threads };
    snprintf(r->op, sizeof r->op, "%s", op);
    return r;
}

void sim_calib_add_reduce_by_iters(ProfileTile *t, int iters, int64_t ns)
{
    int i = 0;
    while (i < t->reduce_async_points && t->reduce_async_iters[i] < iters)
        i++;
    int after = t->reduce_async_points - i;
    if ((after > 0 && t->reduce_async_iters[i] == iters) || t->reduce_async_points == SIM_PROFILE_MAX_POINTS)
        return;
    memmove(t->reduce_async_iters + i + 1, t->reduce_async_iters + i, sizeof *t->reduce_async_iters * after);
    memmove(t->reduce_async_by_iters_ns + i + 1, t->reduce_async_by_iters_ns + i,
            sizeof *t->reduce_async_by_iters_ns * after);
    t->reduce_async_iters[i] = iters, t->reduce_async_by_iters_ns[i] = ns;
    t->reduce_async_points++;
}

int sim_calib_fit_queues(const StaggerRun *runs, const bool *is_bulk, int n, HwProfile *p)
{
    int added = 0;
    for (int family = 0; family < 2; family++) {
        StaggerRun *mine = g_new(StaggerRun, MAX(n, 1));
        int m = 0;
        for (int i = 0; i < n; i++)
            if (is_bulk[i] == (family == 0))
                mine[m++] = runs[i];
        if (m > 0) {
            ProfileQueue *q = &p->queues[p->queue_count++];
            *q = (ProfileQueue){ 0 };
            snprintf(q->op, sizeof q->op, "%s", family == 0 ? "bulk" : "ldst");
            sim_profile_fit_queue(mine, m, q);
            added++;
        }
        g_free(mine);
    }
    return added;
}

int sim_calib_fit_clocks(const ClockRow *rows, int n, HwProfile *p)
{
    static const char *families[] = { "bulk", "ldst" };
    p->clock_count = 0;
    for (int f = 0; f < 2; f++) {
        double ref = 0;
        if (sim_profile_fit_clock(rows, n, families[f], &p->clocks[p->clock_count], &ref))
            p->clock_count++, p->clock_ref_mhz = round(ref);
    }
    return p->clock_count;
}

int64_t sim_calib_matrix_median(const int32_t *matrix, int sm_count)
{
    int64_t *cells = g_new(int64_t, (int64_t)sm_count * sm_count), k = 0;
    for (int64_t c = 0; c < (int64_t)sm_count * sm_count; c++)
        if (matrix[c] >= 0)
            cells[k++] = matrix[c];
    int64_t median = sim_median_i64(cells, k);
    g_free(cells);
    return median;
}

/* A steady curve's median at k reductions in flight: linear between its bins' mean k, flat beyond them. */
static double steady_at(const double *k, const double *ns, int n, double at)
{
    if (at <= k[0])
        return ns[0];
    for (int i = 1; i < n; i++)
        if (at <= k[i])
            return ns[i - 1] + (at - k[i - 1]) / (k[i] - k[i - 1]) * (ns[i] - ns[i - 1]);
    return ns[n - 1];
}

void sim_calib_apply_steady(ProfileReduce *r, const double *k, const double *ns, int n)
{
    double alone = steady_at(k, ns, n, 1);
    for (int j = 1; j < r->points; j++)
        r->ns[j] = llround((double)r->ns[0] * steady_at(k, ns, n, r->k[j]) / alone);
}

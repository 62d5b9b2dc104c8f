/* The shape front end's speedup figure (shape_plot.h). Data: one block per policy in order of first
 * appearance, "seqlen over_first over_second" lines sorted by seqlen, blocks two blank lines apart so that
 * gnuplot's `index` picks them; a speedup of 0 (no baseline) is written as NaN, which gnuplot skips. */
#include "shape_plot.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "gnuplot.h"
#include "dashsim/version.h"

typedef struct {
    const ShapePlotPoint *points;
    int count;
    const char *const *base;
    const char *costs_from;
} ShapePlot;

static int by_seqlen(const void *a, const void *b)
{
    const ShapePlotPoint *x = *(const ShapePlotPoint *const *)a, *y = *(const ShapePlotPoint *const *)b;
    return (x->seqlen > y->seqlen) - (x->seqlen < y->seqlen);
}

/* The distinct policies in order of first appearance into names; returns their count. */
static int policies_of(const ShapePlot *p, const char **names)
{
    int n = 0;
    for (int i = 0; i < p->count; i++) {
        bool is_seen = false;
        for (int k = 0; k < n; k++)
            is_seen |= strcmp(names[k], p->points[i].policy) == 0;
        if (!is_seen)
            names[n++] = p->points[i].policy;
    }
    return n;
}

static void write_data(const ShapePlot *p, const char **names, int n, FILE *dat)
{
    const ShapePlotPoint **sorted = g_new(const ShapePlotPoint *, (unsigned)p->count + 1);
    for (int k = 0; k < n; k++) {
        int m = 0;
        for (int i = 0; i < p->count; i++)
            if (strcmp(p->points[i].policy, names[k]) == 0)
                sorted[m++] = &p->points[i];
        qsort(sorted, (size_t)m, sizeof *sorted, by_seqlen);
        fprintf(dat, "%s# %s\n", k ? "\n\n" : "", names[k]);
        for (int i = 0; i < m; i++) {
            fprintf(dat, "%" PRId64, sorted[i]->seqlen);
            for (int b = 0; b < 2; b++)
                fprintf(dat, sorted[i]->over_base[b] > 0 ? " %.6f" : " NaN", sorted[i]->over_base[b]);
            fputc('\n', dat);
        }
    }
    g_free(sorted);
}

/* Whether baseline b ran at some point (its panel has values). */
static bool has_base(const ShapePlot *p, int b)
{
    for (int i = 0; i < p->count; i++)
        if (p->points[i].over_base[b] > 0)
            return true;
    return false;
}

static void write_shape_plot(FILE *dat, FILE *gp, const char *dat_name, const char *png_name, void *ctx)
{
    const ShapePlot *p = ctx;
    const char **names = g_new(const char *, (unsigned)p->count + 1);
    int n = policies_of(p, names);
    write_data(p, names, n, dat);
    int panels = has_base(p, 0) + has_base(p, 1); /* fa3-spt never runs on the full mask: no empty panel */
    fprintf(gp, "# speedup over %s and %s against seqlen per schedule; written by dashsim " DASHSIM_VERSION
                " (sim --seqlen LIST --plot).\n"
                "if (!exists(\"outfile\")) outfile = '%s'\nif (!exists(\"datafile\")) datafile = '%s'\n"
                "set terminal pngcairo noenhanced size %d,480 font ',10'\nset output outfile\n",
            p->base[0], p->base[1], png_name, dat_name, 640 * panels);
    /* one line each: a panel is 640 px wide, about 100 characters at 10 pt */
    fprintf(gp, "set multiplot layout 1,%d title \"model numbers, not measurements: speedup = baseline time / time\\n%s\"\n",
            panels, p->costs_from);
    fputs("set logscale x 2\nset xlabel 'seqlen (tokens)'\nset key left top\nset grid\n", gp);
    for (int b = 0; b < 2; b++) {
        if (!has_base(p, b))
            continue;
        fprintf(gp, "set title 'speedup over %s'\nset ylabel 'speedup over %s (model)'\nplot", p->base[b], p->base[b]);
        for (int k = 0; k < n; k++)
            fprintf(gp, "%s datafile index %d using 1:%d with linespoints lw 2 title '%s'", k ? "," : "", k, b + 2,
                    names[k]);
        fputc('\n', gp);
    }
    fputs("unset multiplot\n", gp);
    g_free(names);
}

SimStatus sim_shape_plot(const ShapePlotPoint *points, int count, const char *const base[2], const char *costs_from,
                         const char *png_path, SimError *err)
{
    ShapePlot p = { points, count, base, costs_from };
    if (!has_base(&p, 0) && !has_base(&p, 1))
        return sim_error_set(err, SIM_ERR_USAGE, "--plot draws speedups over %s and %s, and neither ran (--policy "
                             "all runs them)", base[0], base[1]);
    return sim_gnuplot_png(png_path, write_shape_plot, &p, err);
}

/* Gantt chart through gnuplot: STEM.dat holds one block per box class (idle bands, compute, reductions,
 * critical outlines; empty classes are left out), STEM.gp draws them, and gnuplot is run in the image's
 * directory on the temporary names; all three files are renamed into place only if gnuplot succeeded.
 * Above max_rows units every k-th unit is drawn (k = ceil(units / max_rows)) and the caption says so.
 * Boxes narrower than a pixel on average are drawn as a raster instead: STEM.dat is then an RGB image,
 * each pixel the mean colour of what its time span holds (one image for gnuplot, not an object a box). */
#include "render.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "gnuplot.h"
#include "output.h"
#include "dashsim/version.h"

enum { CLASS_IDLE, CLASS_COMPUTE, CLASS_REDUCE, CLASS_CRITICAL, CLASS_COUNT };
enum { PALETTE_SIZE = 16, LEGEND_GROUPS = 16 };
enum { PLOT_PX = 1100,          /* the plot's width in pixels, about (1400 wide with the key) */
       BAND_LINES = 5 };        /* raster lines per engine band: the middle one holds the critical stripe */
#define IDLE_RGB 0xe8e8e8u

/* Tableau 10, then six dark colours of Vega's category20b (dark, so that their lighter reduction tints
 * do not pass for another group's compute); idle is a lighter grey than its grey. */
static const uint32_t palette[PALETTE_SIZE] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                                0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
                                                0x393b79, 0x637939, 0x8c6d31, 0x843c39, 0x7b4173, 0x5254a3 };

typedef struct {
    const SimRenderSpec *spec;
    int32_t stride, rows;          /* every stride-th unit is drawn; rows of them */
    bool is_us;                    /* x in microseconds (else ns) */
    bool is_svg;
    bool is_dense;                 /* boxes a few pixels wide: no borders, critical ops as a black stripe */
    bool is_raster;                /* boxes below a pixel wide on average: drawn as an image */
    int64_t count[CLASS_COUNT];    /* boxes per class */
    int32_t max_group;             /* largest label group seen; -1 none */
    bool has_kind[SIM_OP_KIND_COUNT];
    int label_arg[2];              /* indices in spec->arg_names of the box labels; -1: no labels */
    int64_t label_count;           /* boxes wide enough for their label */
} Layout;

SimStatus sim_render_gantt_check_path(const char *path, SimError *err)
{
    if (!g_str_has_suffix(path, ".png") && !g_str_has_suffix(path, ".svg"))
        return sim_error_set(err, SIM_ERR_USAGE, "--gantt expects a file name ending in .png or .svg, got '%s'",
                             path);
    if (strpbrk(path, "'\"\n\\"))
        return sim_error_set(err, SIM_ERR_USAGE, "--gantt cannot use '%s': quotes, backslashes and newlines "
                             "in the name would break the gnuplot script", path);
    return SIM_OK;
}

static uint32_t tint(uint32_t rgb)
{
    uint32_t out = 0;
    for (int shift = 0; shift <= 16; shift += 8)
        out |= (((rgb >> shift & 0xff) + 0xff) / 2) << shift;
    return out;
}

static uint32_t colour_of(const SimRenderLabel *l, SimOpKind kind)
{
    uint32_t base = palette[(l->group >= 0 ? (uint32_t)l->group : (uint32_t)kind) % PALETTE_SIZE];
    return kind == SIM_OP_REDUCE ? tint(base) : base;
}

static bool is_drawn(const Layout *g, int64_t op)
{
    const SimProgram *p = g->spec->program;
    return sim_op_duration_ns(p, op) > 0 && g->spec->schedule->cta_unit[sim_op_cta(p, op)] % g->stride == 0;
}

static void print_x(FILE *f, const Layout *g, int64_t ns)
{
    if (g->is_us)
        fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    else
        fprintf(f, "%" PRId64, ns);
}

/* The y extent of an op's box: its engine's band within its unit's row, or a stripe in its middle. */
static void band(const Layout *g, int64_t op, bool is_stripe, double *lo, double *hi)
{
    const SimProgram *p = g->spec->program;
    int32_t row = g->spec->schedule->cta_unit[sim_op_cta(p, op)] / g->stride;
    double h = 0.9 / p->engines_per_unit;
    *lo = row - 0.45 + sim_op_engine(p, op) * h;
    *hi = row - 0.45 + (sim_op_engine(p, op) + 1) * h;
    if (is_stripe) {
        *lo += 0.38 * h;
        *hi -= 0.38 * h;
    }
}

static void write_box(FILE *f, const Layout *g, int64_t op, uint32_t rgb, bool is_stripe)
{
    double lo, hi;
    band(g, op, is_stripe, &lo, &hi);
    const SimSchedule *s = g->spec->schedule;
    print_x(f, g, s->start_ns[op]);
    fputc(' ', f);
    print_x(f, g, sim_schedule_end_ns(g->spec->program, s, op));
    fprintf(f, " %.3f %.3f %" PRIu32 "\n", lo, hi, rgb);
}

/* Box labels "a,b" (opt->box_label_args): counts them (f NULL) or writes "x y text" lines (the raster's
 * script: "set label" commands), for boxes at least about 7 px per character wide (of a 1100 px plot). */
static int64_t scan_labels(const Layout *g, FILE *f)
{
    int64_t count = 0;
    const SimRenderSpec *spec = g->spec;
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    for (int64_t op = 0; g->label_arg[0] >= 0 && op < p->op_count; op++) {
        if (!is_drawn(g, op))
            continue;
        SimRenderLabel l;
        sim_render_label(spec, op, false, &l);
        char text[48];
        snprintf(text, sizeof text, "%" PRId64 ",%" PRId64, l.args[g->label_arg[0]], l.args[g->label_arg[1]]);
        if ((double)PLOT_PX * (double)sim_op_duration_ns(p, op) < (7.0 * (double)strlen(text) + 4) * (double)s->makespan_ns)
            continue;
        count++;
        if (f) {
            double lo, hi;
            band(g, op, false, &lo, &hi);
            if (g->is_raster)
                fprintf(f, "set label \"%s\" at ", text);
            print_x(f, g, (s->start_ns[op] + sim_schedule_end_ns(p, s, op)) / 2);
            if (g->is_raster)
                fprintf(f, ", %.3f center font ',7' tc rgb 'black' front\n", (lo + hi) / 2);
            else
                fprintf(f, " %.3f \"%s\"\n", (lo + hi) / 2, text);
        }
    }
    return count;
}

/* Counts boxes per class (first pass) or writes the block of one class (second pass). */
static void scan_class(Layout *g, int cls, FILE *f)
{
    const SimRenderSpec *spec = g->spec;
    const SimProgram *p = spec->program;
    if (cls == CLASS_IDLE) {
        for (int32_t r = 0; r < g->rows; r++) {
            g->count[cls] += f == NULL;
            if (f) {
                fputs("0 ", f);
                print_x(f, g, spec->schedule->makespan_ns);
                fprintf(f, " %.3f %.3f %" PRIu32 "\n", r - 0.45, r + 0.45, IDLE_RGB);
            }
        }
        return;
    }
    for (int64_t op = 0; op < p->op_count; op++) {
        bool is_reduce = sim_op_kind(p, op) == SIM_OP_REDUCE;
        bool is_critical = spec->analysis && spec->analysis->is_critical[op];
        if (!is_drawn(g, op) || (cls == CLASS_COMPUTE && is_reduce) || (cls == CLASS_REDUCE && !is_reduce) ||
            (cls == CLASS_CRITICAL && !is_critical))
            continue;
        SimRenderLabel l;
        sim_render_label(spec, op, false, &l);
        if (!f) {
            g->count[cls]++;
            g->max_group = MAX(g->max_group, l.group);
            g->has_kind[sim_op_kind(p, op)] = true;
        } else {
            bool is_outline = cls == CLASS_CRITICAL;
            write_box(f, g, op, is_outline ? 0u : colour_of(&l, sim_op_kind(p, op)), is_outline && g->is_dense);
        }
    }
}

/* Raster: per drawn row, engine band and pixel column, the time boxes cover there (ns) and that time
 * times each colour channel; integer sums, so the same bytes on any machine. */
typedef struct {
    int64_t rgb[3], busy_ns, critical_ns;
} Cell;

/* Where pixel column i starts, in ns (columns split the makespan evenly, to the ns). */
static int64_t column_start(int64_t makespan_ns, int64_t i)
{
    return (int64_t)((__int128)makespan_ns * i / PLOT_PX);
}

static Cell *raster_cells(const Layout *g)
{
    const SimRenderSpec *spec = g->spec;
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    int64_t m = s->makespan_ns;
    Cell *cells = g_new0(Cell, (size_t)g->rows * p->engines_per_unit * PLOT_PX);
    for (int64_t op = 0; op < p->op_count; op++) {
        if (!is_drawn(g, op))
            continue;
        SimRenderLabel l;
        sim_render_label(spec, op, false, &l);
        uint32_t rgb = colour_of(&l, sim_op_kind(p, op));
        bool is_critical = spec->analysis && spec->analysis->is_critical[op];
        int32_t row = s->cta_unit[sim_op_cta(p, op)] / g->stride;
        Cell *band_cells = cells + ((int64_t)row * p->engines_per_unit + sim_op_engine(p, op)) * PLOT_PX;
        for (int64_t i = (int64_t)((__int128)s->start_ns[op] * PLOT_PX / m); i < PLOT_PX; i++) {
            int64_t lo = MAX(s->start_ns[op], column_start(m, i)), hi = MIN(sim_schedule_end_ns(p, s, op), column_start(m, i + 1));
            if (lo >= sim_schedule_end_ns(p, s, op))
                break;
            Cell *c = &band_cells[i];
            for (int k = 0; k < 3; k++)
                c->rgb[k] += (hi - lo) * (rgb >> (16 - 8 * k) & 0xff);
            c->busy_ns += hi - lo;
            c->critical_ns += is_critical ? hi - lo : 0;
        }
    }
    return cells;
}

/* A band's pixels over its columns: the boxes' mean colour over idle grey, and (stripe) that blended
 * toward black by the share of critical ops. */
static void band_pixels(const Cell *cells, int64_t makespan_ns, uint8_t *plain, uint8_t *stripe)
{
    for (int64_t i = 0; i < PLOT_PX; i++) {
        const Cell *c = &cells[i];
        int64_t width = column_start(makespan_ns, i + 1) - column_start(makespan_ns, i);
        for (int ch = 0; ch < 3; ch++) {
            int64_t idle = IDLE_RGB >> (16 - 8 * ch) & 0xff;
            int64_t v = (c->rgb[ch] + (width - c->busy_ns) * idle + width / 2) / width;
            plain[3 * i + ch] = (uint8_t)v;
            stripe[3 * i + ch] = (uint8_t)((v * (width - c->critical_ns) + width / 2) / width);
        }
    }
}

/* The image, top line first: BAND_LINES lines per engine band of each drawn row, the bands filling the
 * row; the middle line of each is its stripe. The white gaps between rows are drawn over it (raster_gaps). */
static void write_raster(FILE *f, const Layout *g)
{
    const SimProgram *p = g->spec->program;
    int64_t engines = p->engines_per_unit;
    Cell *cells = raster_cells(g);
    uint8_t *plain = g_new(uint8_t, 3 * PLOT_PX), *stripe = g_new(uint8_t, 3 * PLOT_PX);
    for (int64_t band = 0; band < g->rows * engines; band++) {
        band_pixels(&cells[band * PLOT_PX], g->spec->schedule->makespan_ns, plain, stripe);
        for (int j = 0; j < BAND_LINES; j++)
            fwrite(j == BAND_LINES / 2 ? stripe : plain, 3, PLOT_PX, f);
    }
    g_free(plain), g_free(stripe);
    g_free(cells);
}

/* The raster's plot: white rectangles over the 0.1 between rows (as the boxes leave it), then the
 * image, pixel centres on the columns' and lines' middles. */
static void write_raster_plot(FILE *f, const Layout *g)
{
    double width = (double)g->spec->schedule->makespan_ns / (g->is_us ? 1000.0 : 1.0) / PLOT_PX;
    int64_t lines = (int64_t)BAND_LINES * g->spec->program->engines_per_unit;
    fputs("set border front\n", f); /* over the image's edges */
    for (int32_t r = 0; r <= g->rows; r++) {
        fprintf(f, "set object %d rect from 0,%.2f to ", r + 1, r - 0.55);
        print_x(f, g, g->spec->schedule->makespan_ns);
        fprintf(f, ",%.2f fc rgb 'white' fs solid noborder front\n", r - 0.45);
    }
    fprintf(f, "plot datafile binary array=(%d,%" PRId64 ") format='%%uchar' dx=%.9g dy=%.9g origin=(%.9g,%.9g) "
               "with rgbimage notitle", PLOT_PX, lines * g->rows, width, 1.0 / (double)lines, width / 2,
            -0.5 + 0.5 / (double)lines);
}

/* A gnuplot double-quoted string: the text has no quotes or backslashes of its own after this. */
static void gp_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputs(*s == '"' ? "'" : *s == '\\' ? "/" : (char[2]){ *s, 0 }, f);
    fputc('"', f);
}

static char *caption(const Layout *g)
{
    const SimRenderSpec *spec = g->spec;
    const SimProgram *p = spec->program;
    const char *unit = spec->unit_name ? spec->unit_name : "unit";
    GString *c = g_string_new(NULL);
    g_string_append_printf(c, "colour = %s%s", spec->group_name && g->max_group >= 0 ? spec->group_name : "phase",
                           spec->group_name && g->max_group >= PALETTE_SIZE ? " mod 16" : "");
    if (g->has_kind[SIM_OP_REDUCE])
        g_string_append(c, "; lighter boxes = reductions");
    g_string_append_printf(c, "; grey = idle; black %s = critical path", g->is_dense ? "stripe" : "outline");
    if (p->engines_per_unit > 1) {
        g_string_append_printf(c, "\\neach %s row holds %d bands, top to bottom:", unit, p->engines_per_unit);
        for (int k = 0; k < p->engines_per_unit; k++) {
            const char *name = k < SIM_RENDER_MAX_ENGINES ? spec->engine_names[k] : NULL;
            g_string_append_printf(c, "%s %s", k ? "," : "", name ? name : "engine");
        }
    }
    if (g->label_count)
        g_string_append_printf(c, "; boxes labelled %s,%s", spec->arg_names[g->label_arg[0]],
                               spec->arg_names[g->label_arg[1]]);
    if (g->stride > 1)
        g_string_append_printf(c, "\\nsampled: every %d%s %s drawn (%d of %d)", g->stride,
                               g->stride == 2 ? "nd" : g->stride == 3 ? "rd" : "th", unit, g->rows, p->n_units);
    return g_string_free(c, FALSE);
}

/* Invisible plot entries that make the key, one column outside the plot: one per group (up to
 * LEGEND_GROUPS, each its own colour), reduction, critical. */
static void write_legend(FILE *f, const Layout *g)
{
    const SimRenderSpec *spec = g->spec;
    const char *group = spec->group_name ? spec->group_name : "group";
    for (int32_t k = 0; k <= g->max_group && k < LEGEND_GROUPS; k++) {
        char name[64];
        if (spec->group_label)
            spec->group_label(spec->label_ctx, k, name, sizeof name);
        else
            snprintf(name, sizeof name, "%s %d", group, k);
        fprintf(f, ", \\\n     NaN with boxes fs solid fc rgb '#%06" PRIx32 "' title '%s'", palette[k % PALETTE_SIZE],
                name);
    }
    if (g->max_group >= LEGEND_GROUPS)
        fprintf(f, ", \\\n     NaN with boxes fs empty lc rgb 'white' title '... %d %ss in all (colour = %s mod 16)'",
                g->max_group + 1, group, group);
    for (int k = 0; g->max_group < 0 && k < SIM_OP_KIND_COUNT; k++)
        if (g->has_kind[k])
            fprintf(f, ", \\\n     NaN with boxes fs solid fc rgb '#%06" PRIx32 "' title '%s'",
                    k == SIM_OP_REDUCE ? tint(palette[k]) : palette[k], sim_op_kind_name(k));
    if (g->count[CLASS_CRITICAL])
        fputs(g->is_dense ? ", \\\n     NaN with boxes fs solid fc rgb 'black' title 'critical path'"
                          : ", \\\n     NaN with boxes lc rgb 'black' lw 2 fs empty title 'critical path'", f);
    fputs(", \\\n     NaN with boxes fs solid fc rgb '#e8e8e8' title 'idle'\n", f);
}

static void write_script(FILE *f, const Layout *g, const char *dat_base, const char *img_base)
{
    const SimRenderSpec *spec = g->spec;
    int width = 1400, height = 150 + g->rows * (spec->program->engines_per_unit > 1 ? 26 : 18);
    height = MAX(height, 380);
    fprintf(f, "# Gantt chart of a dashsim " DASHSIM_VERSION " schedule (sim/render_gantt.c). Redraw: gnuplot "
               "%.*s.gp, run in this directory.\nif (!exists(\"datafile\")) datafile = '%s'\n"
               "if (!exists(\"outfile\")) outfile = '%s'\n",
            (int)(strlen(dat_base) - 4), dat_base, dat_base, img_base);
    if (g->is_svg)
        fprintf(f, "set terminal svg size %d,%d font 'sans,11' background rgb 'white'\n", width, height);
    else
        fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n    set terminal pngcairo size %d,%d "
                   "font 'sans,10'\n} else {\n    set terminal png size %d,%d\n}\n", width, height, width, height);
    fputs("set output outfile\nset title ", f);
    gp_string(f, spec->title ? spec->title : "");
    char *cap = caption(g);
    fprintf(f, " noenhanced\nset xlabel \"time (%s)\\n%s\" noenhanced\n", g->is_us ? "us" : "ns", cap);
    g_free(cap);
    fputs("set xrange [0:", f);
    print_x(f, g, MAX(spec->schedule->makespan_ns, 1)); /* gnuplot refuses an empty range */
    fprintf(f, "]\nset yrange [%d.5:-0.5]\nset ytics (", g->rows - 1);
    int32_t every = g->rows > 48 ? (g->rows + 47) / 48 : 1;
    for (int32_t r = 0; r < g->rows; r += every)
        fprintf(f, "%s\"%s %d\" %d", r ? ", " : "", spec->unit_name ? spec->unit_name : "unit", r * g->stride, r);
    fprintf(f, ") noenhanced\nset ytics scale 0\nset key outside right top noenhanced\nset style fill solid 1.0 %s\n",
            g->is_dense ? "noborder" : "border rgb 'white'");
    if (g->is_raster) {
        scan_labels(g, f);
        write_raster_plot(f, g);
        write_legend(f, g);
        return;
    }
    fputs("box = '(($1+$2)/2):(($3+$4)/2):1:2:3:4'\nrgb = '(($1+$2)/2):(($3+$4)/2):1:2:3:4:5'\nplot ", f);
    const char *style[CLASS_COUNT] = { "@rgb with boxxyerror fc rgb variable", "@rgb with boxxyerror fc rgb variable",
                                       "@rgb with boxxyerror fc rgb variable",
                                       g->is_dense ? "@box with boxxyerror fc rgb 'black' fs solid"
                                                   : "@box with boxxyerror lc rgb 'black' lw 2 fs empty" };
    int blocks = 0;
    for (int cls = 0; cls < CLASS_COUNT; cls++)
        if (g->count[cls]) {
            fprintf(f, "%sdatafile index %d using %s notitle", blocks ? ", \\\n     " : "", blocks, style[cls]);
            blocks++;
        }
    if (g->label_count) /* the labels' block follows the boxes' */
        fprintf(f, ", \\\n     datafile index %d using 1:2:3 with labels font ',7' tc rgb 'black' notitle",
                blocks);
    write_legend(f, g);
}

/* Runs gnuplot in dir on the temporary files. */
static SimStatus run_gnuplot(const SimGanttOptions *opt, const char *dir, const char *gp, const char *dat,
                             const char *img, const char *path, SimError *err)
{
    char *dat_q = sim_gnuplot_quote(dat), *img_q = sim_gnuplot_quote(img);
    char *vars = g_strdup_printf("datafile='%s'; outfile='%s'", dat_q, img_q);
    sim_gnuplot_run(opt->gnuplot, dir, vars, gp, path, err);
    g_free(vars), g_free(dat_q), g_free(img_q);
    return err->status;
}

static void layout(Layout *g, const SimRenderSpec *spec, const SimGanttOptions *opt, const char *path)
{
    *g = (Layout){ .spec = spec, .max_group = -1, .is_svg = g_str_has_suffix(path, ".svg"),
                   .is_us = spec->schedule->makespan_ns >= 10000 };
    int32_t n = spec->program->n_units, max_rows = opt->max_rows > 0 ? opt->max_rows : 48;
    g->stride = n > max_rows ? (n + max_rows - 1) / max_rows : 1;
    g->rows = (n + g->stride - 1) / g->stride;
    for (int cls = 0; cls < CLASS_COUNT; cls++)
        scan_class(g, cls, NULL);
    g->label_arg[0] = g->label_arg[1] = -1;
    for (int k = 0; k < 2 && opt->box_label_args[0]; k++)
        for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
            if (opt->box_label_args[k] && strcmp(spec->arg_names[i], opt->box_label_args[k]) == 0)
                g->label_arg[k] = i;
    if (g->label_arg[0] < 0 || g->label_arg[1] < 0)
        g->label_arg[0] = g->label_arg[1] = -1;
    g->label_count = scan_labels(g, NULL);
    /* Mean drawn box about 1100 px * duration / makespan wide; below 6 px outlines would hide colours, below
     * one a pixel shows several boxes: a raster says what they average to, at a cost that does not grow
     * with the boxes. */
    const SimProgram *p = spec->program;
    int64_t drawn = 0, busy = 0;
    for (int64_t op = 0; op < p->op_count; op++)
        if (is_drawn(g, op))
            drawn++, busy += sim_op_duration_ns(p, op);
    g->is_dense = drawn > 0 && (double)PLOT_PX * (double)busy / (double)drawn < 6.0 * (double)spec->schedule->makespan_ns;
    g->is_raster = drawn > 0 && PLOT_PX * (double)busy / (double)drawn < 1.0 * (double)spec->schedule->makespan_ns;
}

/* Writes STEM.dat and STEM.gp, runs gnuplot on them; commits all three (one batch) only if everything worked. */
static SimStatus draw(Layout *g, const SimGanttOptions *opt, const char *path, SimError *err)
{
    char *stem = g_strndup(path, strlen(path) - 4);
    char *dat_path = g_strconcat(stem, ".dat", NULL), *gp_path = g_strconcat(stem, ".gp", NULL);
    char *dir = g_path_get_dirname(path);
    SimOutput dat = { 0 }, gp = { 0 }, img = { 0 };
    if (sim_output_open(&dat, dat_path, err) == SIM_OK && sim_output_open(&gp, gp_path, err) == SIM_OK &&
        sim_output_open(&img, path, err) == SIM_OK) {
        if (g->is_raster)
            write_raster(dat.f, g);
        for (int cls = 0; cls < CLASS_COUNT && !g->is_raster; cls++)
            if (g->count[cls]) {
                fprintf(dat.f, "# %s: x_lo x_hi y_lo y_hi rgb\n", (const char *[]){ "idle", "compute", "reductions",
                                                                                   "critical path" }[cls]);
                scan_class(g, cls, dat.f);
                fputs("\n\n", dat.f);
            }
        if (g->label_count && !g->is_raster) {
            fputs("# box labels: x y text\n", dat.f);
            scan_labels(g, dat.f);
            fputs("\n\n", dat.f);
        }
        char *dat_base = g_path_get_basename(dat_path), *img_base = g_path_get_basename(path);
        write_script(gp.f, g, dat_base, img_base);
        g_free(dat_base), g_free(img_base);
        /* absolute: a symbolic link may put a temporary file in another directory than path's */
        char *gp_tmp = g_canonicalize_filename(gp.tmp_path, NULL), *dat_tmp = g_canonicalize_filename(dat.tmp_path, NULL);
        char *img_tmp = g_canonicalize_filename(img.tmp_path, NULL);
        if (fflush(dat.f) || fflush(gp.f) || ferror(dat.f) || ferror(gp.f))
            sim_error_set(err, SIM_ERR_IO, "cannot write the data of %s", path);
        else if (run_gnuplot(opt, dir, gp_tmp, dat_tmp, img_tmp, path, err) == SIM_OK) {
            int mark = sim_output_batch_begin(); /* the three files as a set */
            (void)(sim_output_commit(&dat, err) || sim_output_commit(&gp, err) || sim_output_commit(&img, err));
            sim_output_batch_end(mark, err->status, err);
        }
        g_free(gp_tmp), g_free(dat_tmp), g_free(img_tmp);
    }
    sim_output_abort(&dat), sim_output_abort(&gp), sim_output_abort(&img);
    g_free(stem), g_free(dat_path), g_free(gp_path), g_free(dir);
    return err->status;
}

SimStatus sim_render_gantt(const SimRenderSpec *spec, const SimGanttOptions *opt, const char *path,
                           SimError *err)
{
    if (sim_render_gantt_check_path(path, err) != SIM_OK)
        return err->status;
    Layout g;
    layout(&g, spec, opt, path);
    int64_t boxes = 0, max_boxes = opt->max_boxes > 0 ? opt->max_boxes : 1000000;
    for (int cls = 0; cls < CLASS_COUNT; cls++)
        boxes += g.count[cls];
    if (boxes > max_boxes)
        return sim_error_set(err, SIM_ERR_LIMIT, "the Gantt chart %s would draw %" PRId64 " boxes, over the cap "
                             "of %" PRId64 "; use --trace for schedules this large", path, boxes, max_boxes);
    return draw(&g, opt, path, err);
}

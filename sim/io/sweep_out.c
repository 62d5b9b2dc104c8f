/* Sweep outputs: the row formats (table, CSV, JSONL) and their header, a slice's first line and --merge of
 * slices, and the TFLOPS plot through gnuplot. Writers only: every number comes from the rows sim/run/sweep.c
 * ran. Invariant: the same rows give the same bytes; --merge of every slice of a config gives the bytes of
 * the whole run. */
#include "sweep_out.h"

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "gnuplot.h"
#include "input.h"
#include "output.h"
#include "plan_io.h"
#include "dashsim/version.h"

/* ---- output ---- */

static const char *const columns =
    "policy,mask,head_dim,seqlen,seqlen_k,batch,heads,dtype,hardware,sm_count,block_m,block_n,kv_tiles,"
    "q_tiles,head_swizzle,c_ns,r_ns,latency_near_ns,latency_far_ns,reduce,tasks,makespan_ns,"
    "critical_path_ns,bubble_ns,busy_fraction,tflops,speedup,kernel,time_ns,status";

/* The header line of format, newline included ("" for JSONL); a table's first line says where c and r came
 * from (costs_from, sim_sweep_costs_from). */
static void header_text(SweepFormat format, const char *costs_from, char *buf, size_t len)
{
    buf[0] = 0;
    if (format == SWEEP_CSV)
        snprintf(buf, len, "%s\n", columns);
    else if (format == SWEEP_TABLE) /* for people: what the numbers are, then the columns */
        snprintf(buf, len, "model numbers, not measurements: %s (docs/configs.md); per row its hardware preset and "
                 "reduction\n%-16s %-6s %4s %7s %9s %-9s %-6s %5s %5s %6s %6s %13s %8s %8s\n", costs_from,
                 "policy", "mask", "d", "seqlen", "b x h", "hardware", "reduce", "N", "M", "c_ns", "r_ns",
                 "makespan_ns", "TFLOPS", "speedup");
}

void sim_sweep_write_header(FILE *f, SweepFormat format, const char *costs_from)
{
    char line[SWEEP_HEADER_MAX];
    header_text(format, costs_from, line, sizeof line);
    fputs(line, f);
}

/* ---- slices and --merge ---- */

/* A slice's first line names it (CSV and table: a '#' comment; JSONL: an object of its own), so that
 * --merge can check it has every slice of one config once: "dashsim slice K/N: rows A-B of R, config
 * fnv1a64:H", rows 1-based and inclusive (B = A - 1: none). */
#define SLICE_FORMAT "dashsim slice %d/%d: rows %" PRId64 "-%" PRId64 " of %" PRId64 ", config fnv1a64:%016" PRIx64 "; %s"

void sim_sweep_write_slice(FILE *f, SweepFormat format, const SweepSlice *s)
{
    if (s->shard_count == 0)
        return;
    fprintf(f, format == SWEEP_JSONL ? "{\"dashsim_slice\":\"" : "# ");
    fprintf(f, SLICE_FORMAT, s->shard_index, s->shard_count, s->first_row + 1, s->first_row + s->row_count,
            s->total_rows, s->fingerprint, s->costs_from);
    fputs(format == SWEEP_JSONL ? "\"}\n" : "\n", f);
}

/* The last line: "dashsim slice end: rows fnv1a64:H", H of the rows' bytes, newlines included. */
#define SLICE_END_FORMAT "dashsim slice end: rows fnv1a64:%016" PRIx64

void sim_sweep_write_slice_end(FILE *f, SweepFormat format, const SweepSlice *s, uint64_t rows_fnv)
{
    if (s->shard_count == 0)
        return;
    fprintf(f, format == SWEEP_JSONL ? "{\"dashsim_slice_end\":\"" : "# ");
    fprintf(f, SLICE_END_FORMAT, rows_fnv);
    fputs(format == SWEEP_JSONL ? "\"}\n" : "\n", f);
}

char *sim_sweep_row_text(SweepFormat format, const SimSweepRow *row, size_t *len)
{
    char *text = NULL;
    FILE *m = open_memstream(&text, len);
    if (!m)
        g_error("out of memory"); /* as GLib's allocator does */
    sim_sweep_write_row(m, format, row);
    fclose(m);
    return text;
}

void sim_sweep_write_row_hashed(FILE *f, SweepFormat format, const SimSweepRow *row, uint64_t *rows_fnv)
{
    size_t len;
    char *text = sim_sweep_row_text(format, row, &len);
    *rows_fnv = sim_fnv1a64(*rows_fnv, text, len);
    fwrite(text, 1, len, f);
    free(text);
}

/* The digest a slice's last line records, or false when line is not that line. */
static bool parse_slice_end(const char *line, uint64_t *digest)
{
    const char *text = g_str_has_prefix(line, "# ") ? line + 2 : g_str_has_prefix(line, "{\"dashsim_slice_end\":\"") ?
                       line + 22 : NULL;
    int used = 0;
    if (!text || sscanf(text, "dashsim slice end: rows fnv1a64:%16" SCNx64 "%n", digest, &used) != 1)
        return false;
    return strcmp(text + used, text == line + 2 ? "" : "\"}") == 0;
}

typedef struct {
    const char *path;
    int format;                /* SweepFormat */
    int k, n;
    int64_t first, last, total;
    uint64_t config;
    int64_t lines;             /* rows: after the slice line and the header, before the last line */
    bool has_end;              /* its last line, with the rows' digest, is there */
    bool is_digest_ok;         /* the rows' bytes match that digest */
    char costs_from[SWEEP_COSTS_FROM_MAX]; /* where c and r came from, as its slice line says */
} Slice;

/* The slice line (and the format it is written in); false if line is none. */
static bool parse_slice_line(const char *line, Slice *sl)
{
    const char *text = g_str_has_prefix(line, "# ") ? line + 2 : g_str_has_prefix(line, "{\"dashsim_slice\":\"") ?
                       line + 18 : NULL;
    int used = 0;
    if (!text || sscanf(text, "dashsim slice %d/%d: rows %" SCNd64 "-%" SCNd64 " of %" SCNd64 ", config fnv1a64:%16"
                        SCNx64 "%n", &sl->k, &sl->n, &sl->first, &sl->last, &sl->total, &sl->config, &used) != 6)
        return false;
    sl->format = text == line + 2 ? -1 : SWEEP_JSONL; /* -1: CSV or table, told by the header */
    const char *from = text + used, *end = from + strlen(from) - (sl->format == SWEEP_JSONL ? 2 : 0);
    if (strncmp(from, "; ", 2) || end < from + 2 || end - from - 2 >= SWEEP_COSTS_FROM_MAX ||
        strcmp(end, sl->format == SWEEP_JSONL ? "\"}" : ""))
        return false;
    snprintf(sl->costs_from, sizeof sl->costs_from, "%.*s", (int)(end - from - 2), from + 2);
    return sl->k >= 1 && sl->k <= sl->n && sl->first >= 1 && sl->last >= sl->first - 1 && sl->last <= sl->total;
}

/* The rows of a slice up to its last line (whose digest they must match: sl->is_digest_ok); nothing may
 * follow that line. */
static SimStatus scan_rows(Slice *sl, SimInput *in, SimError *err)
{
    char *line;
    size_t len;
    uint64_t fnv = SIM_SWEEP_FNV_BASIS, digest = 0;
    bool has_end = false;
    while (!err->status && sim_input_line(in, &line, &len, err) == SIM_OK && line) {
        if (has_end)
            return sim_error_set(err, SIM_ERR_INPUT, "%s:%" PRId64 ": text after the slice's last line", sl->path,
                                 sim_input_line_number(in));
        if (!sim_input_line_was_cut(in) && parse_slice_end(line, &digest)) {
            has_end = true;
            continue;
        }
        if (sim_input_line_was_cut(in) || (sl->format == SWEEP_JSONL && !g_str_has_prefix(line, "{\"policy\":")))
            return sim_error_set(err, SIM_ERR_INPUT, "%s:%" PRId64 ": not a whole row of sim sweep%s", sl->path,
                                 sim_input_line_number(in), sim_input_line_was_cut(in) ? " (the file ends mid-line)" : "");
        fnv = sim_fnv1a64(sim_fnv1a64(fnv, line, len), "\n", 1);
        sl->lines++;
    }
    sl->has_end = has_end, sl->is_digest_ok = fnv == digest;
    return err->status;
}

/* Reads one slice through: its slice line, its header (CSV, table), then rows to the end, each a whole
 * line (a file cut mid-line is refused); counts them. */
static SimStatus scan_slice(Slice *sl, SimError *err)
{
    SimInputLimits limits = { .max_bytes = INT64_MAX, .max_line = 1 << 20 };
    SimInput *in;
    if (sim_input_open(sl->path, &limits, &in, err) != SIM_OK)
        return err->status;
    char *line, header[SWEEP_HEADER_MAX];
    size_t len;
    if (sim_input_line(in, &line, &len, err) == SIM_OK && (!line || !parse_slice_line(line, sl)))
        sim_error_set(err, SIM_ERR_INPUT, "%s: not a slice of sim sweep --shard K/N (its first line names the slice)",
                      sl->path);
    /* CSV or table: the header's first line tells which, and its other lines (a table's) must follow */
    for (int f = SWEEP_TABLE; sl->format < 0 && !err->status && f <= SWEEP_CSV; f++) {
        header_text((SweepFormat)f, sl->costs_from, header, sizeof header);
        if (f == SWEEP_TABLE && sim_input_line(in, &line, &len, err) != SIM_OK)
            break;
        if (line && strncmp(line, header, len) == 0 && header[len] == '\n')
            sl->format = f;
    }
    if (!err->status && sl->format >= 0 && sl->format != SWEEP_JSONL) {
        header_text((SweepFormat)sl->format, sl->costs_from, header, sizeof header);
        for (const char *h = strchr(header, '\n') + 1; *h && !err->status; h = strchr(h, '\n') + 1)
            if (sim_input_line(in, &line, &len, err) == SIM_OK && (!line || strncmp(line, h, len) || h[len] != '\n'))
                sl->format = -1;
    }
    if (!err->status && sl->format < 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s:2: expected the header of a CSV or table of sim sweep", sl->path);
    scan_rows(sl, in, err);
    sim_input_close(in);
    if (!err->status && sl->lines != sl->last - sl->first + 1)
        sim_error_set(err, SIM_ERR_INPUT, "%s: has %" PRId64 " rows, its slice line says %" PRId64 " (an interrupted "
                      "or edited slice?)", sl->path, sl->lines, sl->last - sl->first + 1);
    else if (!err->status && !sl->has_end)
        sim_error_set(err, SIM_ERR_INPUT, "%s: has no last line with its rows' digest (an interrupted slice?)", sl->path);
    else if (!err->status && !sl->is_digest_ok)
        sim_error_set(err, SIM_ERR_INPUT, "%s: its rows do not match the digest of its last line (an edited slice?)",
                      sl->path);
    return err->status;
}

static int by_k(const void *a, const void *b)
{
    return ((const Slice *)a)->k - ((const Slice *)b)->k;
}

/* The slices, in K order, are every slice of one config once, rows following on. */
static SimStatus check_slices(const Slice *sl, int count, SimError *err)
{
    for (int i = 0; i < count && !err->status; i++) {
        const Slice *a = &sl[i], *first = &sl[0];
        if (a->format != first->format)
            sim_error_set(err, SIM_ERR_INPUT, "%s is in another format than %s", a->path, first->path);
        else if (a->n != first->n || a->config != first->config || a->total != first->total ||
                 strcmp(a->costs_from, first->costs_from))
            sim_error_set(err, SIM_ERR_INPUT, "%s is a slice of another run than %s (config or --shard N differ)",
                          a->path, first->path);
        else if (i && a->k == sl[i - 1].k)
            sim_error_set(err, SIM_ERR_INPUT, "%s and %s are both slice %d of %d", sl[i - 1].path, a->path, a->k, a->n);
        else if (a->k != i + 1)
            sim_error_set(err, SIM_ERR_INPUT, "slice %d of %d is missing", i + 1, a->n);
        else if (a->first != (i ? sl[i - 1].last + 1 : 1))
            sim_error_set(err, SIM_ERR_INPUT, "%s: its rows do not follow on from slice %d's", a->path, i);
    }
    if (!err->status && count != sl[0].n)
        sim_error_set(err, SIM_ERR_INPUT, "slice %d of %d is missing", count + 1, sl[0].n);
    return err->status;
}

/* The rows of a checked slice to out (its slice line and header skipped), and read into merged (may be NULL). */
static SimStatus copy_rows(const Slice *sl, FILE *out, SweepMerged *merged, SimError *err)
{
    SimInputLimits limits = { .max_bytes = INT64_MAX, .max_line = 1 << 20 };
    SimInput *in;
    if (sim_input_open(sl->path, &limits, &in, err) != SIM_OK)
        return err->status;
    char *line;
    size_t len;
    char header[SWEEP_HEADER_MAX];
    header_text((SweepFormat)sl->format, sl->costs_from, header, sizeof header);
    int skip = 1; /* the slice line, then the header's lines */
    for (const char *h = header; *h; h++)
        skip += *h == '\n';
    while (sim_input_line(in, &line, &len, err) == SIM_OK && line)
        if (sim_input_line_number(in) > skip && sim_input_line_number(in) <= skip + sl->lines) {
            fwrite(line, 1, len, out), fputc('\n', out);
            if (merged && sim_sweep_row_read((SweepFormat)sl->format, line, merged, err) != SIM_OK)
                break;
        }
    if (!err->status && sim_input_line_number(in) - skip != sl->lines + 1) /* the rows and the last line */
        sim_error_set(err, SIM_ERR_INPUT, "%s changed while it was merged", sl->path);
    sim_input_close(in);
    return err->status;
}

SimStatus sim_sweep_merge(const char *const *paths, int count, FILE *out, SweepMerged *merged, SimError *err)
{
    Slice *sl = g_new0(Slice, count);
    for (int i = 0; i < count && !err->status; i++)
        sl[i] = (Slice){ .path = paths[i], .format = -1 }, scan_slice(&sl[i], err);
    if (!err->status) {
        qsort(sl, (size_t)count, sizeof *sl, by_k);
        check_slices(sl, count, err);
    }
    char header[SWEEP_HEADER_MAX];
    if (!err->status) {
        header_text((SweepFormat)sl[0].format, sl[0].costs_from, header, sizeof header);
        fputs(header, out); /* once; every slice's own copy is skipped */
    }
    if (!err->status && merged)
        snprintf(merged->costs_from, sizeof merged->costs_from, "%s", sl[0].costs_from);
    for (int i = 0; i < count && !err->status; i++)
        copy_rows(&sl[i], out, merged, err);
    g_free(sl);
    return err->status;
}

/* text as a CSV field (quoted when needed) or a JSON string. */
static void put_text(FILE *f, const char *text, bool is_json)
{
    if (is_json)
        sim_write_json_string(f, text);
    else
        sim_write_csv_field(f, text);
}

const char *sim_sweep_mask_name(const SimConfigPoint *p)
{
    if (p->shape.mask != MASK_BLOCK)
        return p->shape.mask == MASK_CAUSAL ? "causal" : "full";
    return p->mask_tokens_name[0] ? p->mask_tokens_name : p->mask_spec[0] ? p->mask_spec : p->mask_file;
}

static void write_table_row(FILE *f, const SimSweepRow *r)
{
    const SimShape *sh = &r->cfg->shape;
    char bh[32], speed[16] = "-";
    snprintf(bh, sizeof bh, "%" PRId64 "x%" PRId64, sh->batch, sh->heads);
    if (r->has_speedup)
        snprintf(speed, sizeof speed, "%.4f", r->speedup);
    fprintf(f, "%-16s %-6s %4" PRId64 " %7" PRId64 " %9s %-9s %-6s %5d %5d %6" PRId64 " %6" PRId64, r->policy,
            sim_sweep_mask_name(r->cfg), sh->head_dim, sh->seqlen_q, bh, r->cfg->hw.preset,
            r->cfg->reduce == REDUCE_ASYNC ? "async" : "serial", r->cost.wl.kv_tiles, r->cost.wl.q_tiles,
            r->cost.c_ns, r->cost.r_ns);
    if (r->is_skipped || r->err.status)
        fprintf(f, " skipped: %s\n", r->is_skipped ? r->note : r->err.msg);
    else
        fprintf(f, " %13" PRId64 " %8.3f %8s\n", r->makespan_ns, r->tflops, speed);
}

void sim_sweep_write_row(FILE *f, SweepFormat format, const SimSweepRow *r)
{
    if (format == SWEEP_TABLE) {
        write_table_row(f, r);
        return;
    }
    const bool j = format == SWEEP_JSONL;
    const SimShape *sh = &r->cfg->shape;
    const SimHardware *hw = &r->cfg->hw;
    bool has_result = !r->is_skipped && !r->err.status;
    char status[600];
    snprintf(status, sizeof status, "%s%s", r->is_skipped ? "skipped: " : r->err.status ? "error: " : "ok",
             r->is_skipped ? r->note : r->err.status ? r->err.msg : "");
    char **names = g_strsplit(columns, ",", -1);
    char vals[30][600];
    int k = 0;
#define V(...) snprintf(vals[k++], sizeof vals[0], __VA_ARGS__)
    V("%s", r->policy), V("%s", sim_sweep_mask_name(r->cfg)), V("%" PRId64, sh->head_dim);
    V("%" PRId64, sh->seqlen_q), V("%" PRId64, sh->seqlen_k), V("%" PRId64, sh->batch), V("%" PRId64, sh->heads);
    V("%s", sh->dtype == DTYPE_FP16 ? "fp16" : "bf16"), V("%s", hw->preset), V("%d", hw->sm_count);
    V("%d", r->cost.block_m), V("%d", r->cost.block_n), V("%d", r->cost.wl.kv_tiles), V("%d", r->cost.wl.q_tiles);
    V("%d", r->cost.wl.head_swizzle), V("%" PRId64, r->cost.c_ns), V("%" PRId64, r->cost.r_ns);
    V("%" PRId64, hw->latency_near_ns), V("%" PRId64, hw->latency_far_ns);
    V("%s", r->cfg->reduce == REDUCE_ASYNC ? "async" : "serial");
    V("%" PRId64, r->tasks), V("%" PRId64, r->makespan_ns), V("%" PRId64, r->critical_path_ns);
    V("%" PRId64, r->bubble_ns), V("%.6f", r->busy_fraction), V("%.3f", r->tflops), V("%.4f", r->speedup);
    V("%s", r->cfg->kernel[0] ? r->cfg->kernel : "-"), V("%" PRId64, r->time_ns);
#undef V
    static const bool is_string[30] = { [0] = 1, [1] = 1, [7] = 1, [8] = 1, [19] = 1, [27] = 1 };
    fputs(j ? "{" : "", f);
    for (int i = 0; i < 30; i++) {
        bool is_empty = ((i >= 20 && i <= 25) || i == 28) && !has_result ? true : i == 26 && !r->has_speedup;
        if (j)
            fprintf(f, "%s\"%s\":", i ? "," : "", names[i]);
        else if (i)
            fputc(',', f);
        if (i == 29)
            put_text(f, status, j);
        else if (is_empty)
            fputs(j ? "null" : "", f);
        else if (is_string[i])
            put_text(f, vals[i], j);
        else
            fputs(vals[i], f);
    }
    fputs(j ? "}\n" : "\n", f);
    g_strfreev(names);
}

/* ---- plot ---- */

static bool has_plot_value(const SimSweepRow *r)
{
    return r->is_done && !r->is_interrupted && !r->is_skipped && !r->err.status;
}

/* A panel of the plot: one mask (by name) and head dim; the point of its first row. */
static int panel_of(GArray *panels, const SimSweepRow *r)
{
    for (guint i = 0; i < panels->len; i++) {
        const SimConfigPoint *p = g_array_index(panels, const SimConfigPoint *, i);
        if (p->shape.head_dim == r->cfg->shape.head_dim &&
            strcmp(sim_sweep_mask_name(p), sim_sweep_mask_name(r->cfg)) == 0)
            return (int)i;
    }
    g_array_append_val(panels, r->cfg);
    return (int)panels->len - 1;
}

/* A policy's place among the styles: registry order, the policies of full or causal masks first, then those
 * of block masks only, so a block-only schedule added leaves every figure of the paper's masks as it was. */
static int style_index(const char *policy)
{
    const Workload paper[] = { policy_kind_workload(MASK_FULL), policy_kind_workload(MASK_CAUSAL) };
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < policy_count(); i++) {
            const PolicyOps *p = policy_at(i);
            if ((policy_supports(p, &paper[0]) || policy_supports(p, &paper[1])) != (pass == 0))
                continue;
            if (strcmp(p->name, policy) == 0)
                return k;
            k++;
        }
    return k;
}

/* A policy's line style, the same in every panel and every plot: by its place (style_index), a Tableau 10 colour,
 * a point type and a dash type, and lines and points narrower down the places, so a policy drawn over an
 * earlier one with the same values (descending over fa3 on the full mask) leaves the earlier one in sight
 * at its edges and in its dashes' gaps. */
static void policy_style(FILE *gp, const char *policy)
{
    static const uint32_t palette[10] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                          0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf };
    int k = style_index(policy);
    fprintf(gp, "lc rgb '#%06x' pt %d dt %d lw %.1f ps %.1f", (unsigned)palette[k % 10], k % 13 + 1, k % 5 + 1,
            MAX(1.0, 5.0 - 1.2 * k), MAX(0.6, 1.8 - 0.3 * k));
}

/* The plot's title: what the numbers are and what made them (where c and r came from, one source a line; the
 * presets and reduction modes of the rows). */
static void write_plot_title(FILE *gp, const SimSweepRow *rows, int64_t row_count, const char *costs_from,
                             bool is_speedup)
{
    GString *presets = g_string_new(""), *modes = g_string_new("");
    for (int64_t i = 0; i < row_count; i++) {
        const SimConfigPoint *p = rows[i].cfg;
        const char *mode = p->reduce == REDUCE_ASYNC ? "async" : "serial";
        if (!has_plot_value(&rows[i]))
            continue;
        if (!strstr(presets->str, p->hw.preset))
            g_string_append_printf(presets, "%s%s", presets->len ? ", " : "", p->hw.preset);
        if (!strstr(modes->str, mode))
            g_string_append_printf(modes, "%s%s", modes->len ? " and " : "", mode);
    }
    gchar **from = g_strsplit(costs_from, "; ", -1);
    gchar *lines = g_strjoinv("\\n", from);
    /* One line each: one panel is 640 px wide, about 100 characters at 10 pt (one line of all was clipped). */
    fprintf(gp, "set multiplot layout rows_,cols_ title \"model numbers, not measurements: %s"
                "\\n%s (docs/configs.md)\\npreset %s, %s reduction\"\n", is_speedup ? "speedup = the baseline's time / "
                "time (/options/baseline)" : "TFLOPS = backward FLOPs / makespan", lines, presets->str, modes->str);
    g_string_free(presets, TRUE), g_string_free(modes, TRUE), g_strfreev(from), g_free(lines);
}

/* .dat: one block per (panel, policy) in order of first appearance ("seqlen tflops" lines, blocks
 * separated by two blank lines so gnuplot's `index` picks them); .gp: one panel each, y from zero, each
 * policy in its one colour and point type (policy_style) in every panel. */
static void write_plot_files(const SimSweepRow *rows_in, int64_t row_count, const char *costs_from, FILE *dat, FILE *gp,
                             const char *dat_name, const char *png_name, bool is_speedup)
{
    GArray *panels = g_array_new(FALSE, FALSE, sizeof(const SimConfigPoint *));
    for (int64_t i = 0; i < row_count; i++)
        if (has_plot_value(&rows_in[i]))
            panel_of(panels, &rows_in[i]);
    int cols = panels->len > 1 ? 2 : 1, rows = ((int)panels->len + cols - 1) / cols, block = 0;
    fprintf(gp, "# %s over seqlen per policy, one panel per (mask, head_dim); written by dashsim " DASHSIM_VERSION
                " (sim sweep --plot%s).\n"
                "if (!exists(\"outfile\")) outfile = '%s'\n"
                "if (!exists(\"datafile\")) datafile = '%s'\n"
                "set terminal pngcairo noenhanced size %d,%d font ',10'\nset output outfile\nrows_ = %d\ncols_ = %d\n",
            is_speedup ? "Speedup" : "TFLOPS", is_speedup ? "-speedup" : "", png_name, dat_name, 640 * cols,
            420 * rows + 40, rows, cols);
    write_plot_title(gp, rows_in, row_count, costs_from, is_speedup);
    fprintf(gp, "set logscale x 2\nset xlabel 'seqlen (tokens)'\nset ylabel '%s (model)'\nset key left bottom\nset grid\n"
            "set yrange [0:*]\n", is_speedup ? "speedup over the baseline" : "TFLOPS");
    for (guint p = 0; p < panels->len; p++) {
        const SimConfigPoint *pp = g_array_index(panels, const SimConfigPoint *, p);
        fprintf(gp, "set title '%s mask, head_dim %" PRId64 "'\nplot", sim_sweep_mask_name(pp), pp->shape.head_dim);
        const char *seen[SIM_CONFIG_MAX_POLICIES * 4];
        int n_seen = 0;
        for (int64_t i = 0; i < row_count; i++) {
            const SimSweepRow *r = &rows_in[i];
            bool is_new = has_plot_value(r) && panel_of(panels, r) == (int)p;
            for (int k = 0; is_new && k < n_seen; k++)
                is_new = seen[k] != r->policy;
            if (!is_new || n_seen == (int)G_N_ELEMENTS(seen))
                continue;
            seen[n_seen++] = r->policy;
            fprintf(dat, "# %s mask, head_dim %" PRId64 ", %s\n", sim_sweep_mask_name(pp), pp->shape.head_dim, r->policy);
            for (int64_t k = i; k < row_count; k++)
                if (has_plot_value(&rows_in[k]) && rows_in[k].policy == r->policy && panel_of(panels, &rows_in[k]) == (int)p)
                    fprintf(dat, !is_speedup ? "%" PRId64 " %.3f\n" : rows_in[k].has_speedup ? "%" PRId64 " %.4f\n"
                            : "%" PRId64 " NaN\n", rows_in[k].cfg->shape.seqlen_q,
                            is_speedup ? rows_in[k].speedup : rows_in[k].tflops);
            fprintf(dat, "\n\n");
            fprintf(gp, "%s datafile index %d using 1:2 with linespoints ", n_seen > 1 ? "," : "", block++);
            policy_style(gp, r->policy);
            fprintf(gp, " title '%s'", r->policy);
        }
        fprintf(gp, "\n");
    }
    fprintf(gp, "unset multiplot\n");
    g_array_free(panels, TRUE);
}

/* gnuplot on the temporary files (absolute names: a symbolic link may put one in another directory). */
typedef struct {
    const SimSweepRow *rows;
    int64_t row_count;
    const char *costs_from;
    bool is_speedup;
} SweepPlot;

static void write_sweep_plot(FILE *dat, FILE *gp, const char *dat_name, const char *png_name, void *ctx)
{
    const SweepPlot *p = ctx;
    write_plot_files(p->rows, p->row_count, p->costs_from, dat, gp, dat_name, png_name, p->is_speedup);
}

SimStatus sim_sweep_plot_rows(const SimSweepRow *rows, int64_t row_count, const char *costs_from, const char *png_path,
                              bool is_speedup, SimError *err)
{
    int64_t values = 0;
    for (int64_t i = 0; i < row_count; i++)
        values += has_plot_value(&rows[i]);
    if (!values)
        return sim_error_set(err, SIM_ERR_INPUT, "no results to plot in %s (every row was skipped)", png_path);
    SweepPlot plot = { rows, row_count, costs_from, is_speedup };
    return sim_gnuplot_png(png_path, write_sweep_plot, &plot, err);
}

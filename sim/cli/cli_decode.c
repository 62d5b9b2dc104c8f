/* `sim decode`: split-KV decode latency for one split policy, a split sweep (the paper's Figure 3, with an
 * optional gnuplot PNG), or the paper's 160-configuration regression of seq-aware and best against fa3.
 * Every flag is checked before anything runs; the only file written (--plot) goes through sim/output.h. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "decode.h"
#include "output.h"

#define SWEEP_MAX 64          /* the paper's Figure 3 sweeps s = 1..64 */
#define PLATEAU_PERCENT 102   /* "low-latency plateau": within 2 % of the best, the paper's margin */

typedef struct {
    DecodeShape w;
    DecodeCosts c;
    DecodeSplit split;
    bool is_json, is_sweep, is_regression, is_grid_flag_set;
    const char *plot_path;
} DecodeOptions;

static const char usage[] =
    "usage: sim decode [--lk L] [--hq H --hkv H] [options]\n"
    "Simulates one split-KV decode step (FA3 forward + combine) on an H100 cost model.\n"
    "  --batch B            sequences (default 1)\n"
    "  --hq H, --hkv H      query and KV heads, H_q a multiple of H_kv (default 8 and 1)\n"
    "  --lq L               query tokens per sequence (default 1)\n"
    "  --lk L               KV length in tokens (default 512)\n"
    "  --head-dim D         head dimension (default 128; FA3 tiles known for 64 and 128)\n"
    "  --dtype bf16|fp16|fp8  element type (default bf16; fp8 needs --kblock-m/--kblock-n)\n"
    "  --paged              paged KV: 128-wide KV blocks (non-paged hdim 128 uses FA3's 128 x 176)\n"
    "  --kblock-m M, --kblock-n N  override FA3's forward tile\n"
    "  --n N                SMs (default 132)\n"
    "  --split-policy P     fa3 | seq-aware | best | fixed:S (default fa3); --list-split-policies\n"
    "  --sweep-splits       latency for s = 1..64 (the paper's Figure 3)\n"
    "  --plot FILE.png      with --sweep-splits: plot the sweep with gnuplot\n"
    "  --regression         the paper's 160 configurations (batch 1,2,4,8 x L_K 128..8192 x H_kv\n"
    "                       1,2,4,8,32, H_q = 8 H_kv): speedup of seq-aware and best over fa3\n"
    "  --json               one JSON object instead of text\n"
    "Costs (H100 defaults; docs/decode.md says where each comes from), integers:\n"
    "  --hbm-gbps G         HBM bandwidth shared by the CTAs of a wave, GB/s (default 3000)\n"
    "  --sm-tensor-gflops F dense bf16 tensor rate of one SM, GFLOP/s (default 6061)\n"
    "  --kernel-ns T        main kernel launch + grid overhead (default 6000)\n"
    "  --cta-fixed-ns T     prologue + epilogue of one CTA, empty splits too (default 1650)\n"
    "  --block-ns T         per-KV-block cost; 0 derives it from bytes and FLOPs (default 0)\n"
    "  --combine-ns T       combine kernel, fixed part, when splits > 1 (default 1800)\n"
    "  --combine-split-ns T combine kernel, per split per wave of m-blocks (default 4)\n"
    "  --help, --version\n"
    "Exit status: 0 ok, 2 bad usage or input.\n";

enum { OPT_BATCH = 256, OPT_HQ, OPT_HKV, OPT_LQ, OPT_LK, OPT_HDIM, OPT_DTYPE, OPT_PAGED, OPT_KBM, OPT_KBN,
       OPT_N, OPT_POLICY, OPT_LIST, OPT_SWEEP, OPT_PLOT, OPT_REGRESSION, OPT_JSON, OPT_HBM, OPT_TENSOR,
       OPT_KERNEL, OPT_CTA, OPT_BLOCK, OPT_COMBINE, OPT_COMBINE_SPLIT, OPT_HELP, OPT_VERSION };

static const struct option long_options[] = {
    { "batch", required_argument, NULL, OPT_BATCH }, { "hq", required_argument, NULL, OPT_HQ },
    { "hkv", required_argument, NULL, OPT_HKV }, { "lq", required_argument, NULL, OPT_LQ },
    { "lk", required_argument, NULL, OPT_LK }, { "head-dim", required_argument, NULL, OPT_HDIM },
    { "dtype", required_argument, NULL, OPT_DTYPE }, { "paged", no_argument, NULL, OPT_PAGED },
    { "kblock-m", required_argument, NULL, OPT_KBM }, { "kblock-n", required_argument, NULL, OPT_KBN },
    { "n", required_argument, NULL, OPT_N }, { "split-policy", required_argument, NULL, OPT_POLICY },
    { "list-split-policies", no_argument, NULL, OPT_LIST }, { "sweep-splits", no_argument, NULL, OPT_SWEEP },
    { "plot", required_argument, NULL, OPT_PLOT }, { "regression", no_argument, NULL, OPT_REGRESSION },
    { "json", no_argument, NULL, OPT_JSON }, { "hbm-gbps", required_argument, NULL, OPT_HBM },
    { "sm-tensor-gflops", required_argument, NULL, OPT_TENSOR }, { "kernel-ns", required_argument, NULL, OPT_KERNEL },
    { "cta-fixed-ns", required_argument, NULL, OPT_CTA }, { "block-ns", required_argument, NULL, OPT_BLOCK },
    { "combine-ns", required_argument, NULL, OPT_COMBINE },
    { "combine-split-ns", required_argument, NULL, OPT_COMBINE_SPLIT },
    { "help", no_argument, NULL, OPT_HELP }, { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
};

#define MAX_COUNT 1000000
#define MAX_NS 1000000000000LL

static SimStatus parse_int(const char *flag, const char *text, int64_t lo, int64_t hi, int *out, SimError *err)
{
    int64_t v;
    if (cli_parse_int64(flag, text, lo, hi, &v, err) == SIM_OK)
        *out = (int)v;
    return err->status;
}

static SimStatus parse_dtype(const char *text, DecodeDtype *out, SimError *err)
{
    static const char *const names[] = { "bf16", "fp16", "fp8" };
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0)
            return *out = (DecodeDtype)i, SIM_OK;
    return sim_error_set(err, SIM_ERR_USAGE, "--dtype expects bf16, fp16 or fp8, got '%s'", text);
}

static SimStatus parse_shape(DecodeOptions *o, int opt, const char *arg, const char *flag, SimError *err)
{
    DecodeShape *w = &o->w;
    o->is_grid_flag_set |= opt == OPT_BATCH || opt == OPT_HQ || opt == OPT_HKV || opt == OPT_LK;
    switch (opt) {
    case OPT_BATCH: return parse_int(flag, arg, 1, MAX_COUNT, &w->batch, err);
    case OPT_HQ: return parse_int(flag, arg, 1, MAX_COUNT, &w->hq, err);
    case OPT_HKV: return parse_int(flag, arg, 1, MAX_COUNT, &w->hkv, err);
    case OPT_LQ: return parse_int(flag, arg, 1, MAX_COUNT, &w->lq, err);
    case OPT_LK: return cli_parse_int64(flag, arg, 1, (int64_t)1 << 40, &w->lk, err);
    case OPT_HDIM: return parse_int(flag, arg, 1, 1024, &w->head_dim, err);
    case OPT_DTYPE: return parse_dtype(arg, &w->dtype, err);
    case OPT_PAGED: w->is_paged = true; return SIM_OK;
    case OPT_KBM: return parse_int(flag, arg, 1, 1024, &w->kblock_m, err);
    case OPT_KBN: return parse_int(flag, arg, 1, 1024, &w->kblock_n, err);
    case OPT_N: return parse_int(flag, arg, 1, 100000, &w->n_sm, err);
    }
    return sim_error_set(err, SIM_ERR_USAGE, "unknown option %s (see sim decode --help)", flag);
}

static SimStatus parse_one(DecodeOptions *o, int opt, const char *arg, const char *flag, SimError *err)
{
    DecodeCosts *c = &o->c;
    switch (opt) {
    case OPT_POLICY: return sim_decode_split_parse(arg, &o->split, err);
    case OPT_SWEEP: o->is_sweep = true; return SIM_OK;
    case OPT_PLOT: o->plot_path = arg; return SIM_OK;
    case OPT_REGRESSION: o->is_regression = true; return SIM_OK;
    case OPT_JSON: o->is_json = true; return SIM_OK;
    case OPT_HBM: return cli_parse_int64(flag, arg, 1, MAX_NS, &c->hbm_gbps, err);
    case OPT_TENSOR: return cli_parse_int64(flag, arg, 1, MAX_NS, &c->sm_tensor_gflops, err);
    case OPT_KERNEL: return cli_parse_int64(flag, arg, 0, MAX_NS, &c->kernel_ns, err);
    case OPT_CTA: return cli_parse_int64(flag, arg, 0, MAX_NS, &c->cta_fixed_ns, err);
    case OPT_BLOCK: return cli_parse_int64(flag, arg, 0, MAX_NS, &c->block_ns, err);
    case OPT_COMBINE: return cli_parse_int64(flag, arg, 0, MAX_NS, &c->combine_ns, err);
    case OPT_COMBINE_SPLIT: return cli_parse_int64(flag, arg, 0, 1000000000, &c->combine_split_ns, err);
    }
    return parse_shape(o, opt, arg, flag, err);
}

static void list_split_policies(void)
{
    for (int i = 0; i < sim_decode_split_count(); i++)
        printf("%-10s %s\n", sim_decode_split_at(i)->name, sim_decode_split_at(i)->summary);
}

/* Mode combinations and the shape itself, before anything runs. */
static SimStatus check_options(const DecodeOptions *o, SimError *err)
{
    DecodeGeometry g;
    if (o->plot_path && !o->is_sweep)
        return sim_error_set(err, SIM_ERR_USAGE, "--plot needs --sweep-splits");
    if (o->is_sweep && o->is_regression)
        return sim_error_set(err, SIM_ERR_USAGE, "--sweep-splits and --regression are separate runs");
    if (o->is_regression && o->is_grid_flag_set)
        return sim_error_set(err, SIM_ERR_USAGE, "--regression sets batch, H_q, H_kv and L_K itself; drop "
                             "--batch, --hq, --hkv and --lk");
    return sim_decode_geometry(&o->w, &g, err);
}

/* Returns -1 to go on, else the exit code (help, version, list, or an error). */
static int parse_args(DecodeOptions *o, int argc, char **argv, SimError *err)
{
    *o = (DecodeOptions){ .w = sim_decode_shape_default(), .c = sim_decode_costs_h100() };
    sim_decode_split_parse("fa3", &o->split, err);
    cli_begin_options();
    int opt;
    char flag[64];
    while ((opt = cli_next_option(argc, argv, long_options, "decode", flag, sizeof flag, err)) != -1) {
        if (opt == OPT_HELP)
            return fputs(usage, stdout), 0;
        else if (opt == OPT_VERSION)
            return printf("sim (dashsim) %s\n", SIM_VERSION), 0;
        else if (opt == OPT_LIST)
            return list_split_policies(), 0;
        else if (opt != '?')
            parse_one(o, opt, optarg, flag, err);
        if (err->status)
            return cli_fail(err);
    }
    if (optind < argc)
        sim_error_set(err, SIM_ERR_USAGE, "unexpected argument '%s' (see sim decode --help)", argv[optind]);
    else
        check_options(o, err);
    return err->status ? cli_fail(err) : -1;
}

static const char *dtype_name(DecodeDtype t)
{
    return t == DECODE_FP8 ? "fp8" : t == DECODE_FP16 ? "fp16" : "bf16";
}

static void add_shape_json(cJSON *j, const DecodeShape *w, const DecodeGeometry *g)
{
    cJSON_AddNumberToObject(j, "batch", w->batch);
    cJSON_AddNumberToObject(j, "hq", w->hq);
    cJSON_AddNumberToObject(j, "hkv", w->hkv);
    cJSON_AddNumberToObject(j, "lq", w->lq);
    cJSON_AddNumberToObject(j, "lk", (double)w->lk);
    cJSON_AddNumberToObject(j, "head_dim", w->head_dim);
    cJSON_AddStringToObject(j, "dtype", dtype_name(w->dtype));
    cJSON_AddBoolToObject(j, "paged", w->is_paged);
    cJSON_AddNumberToObject(j, "n_sm", w->n_sm);
    cJSON_AddNumberToObject(j, "kblock_m", g->kblock_m);
    cJSON_AddNumberToObject(j, "kblock_n", g->kblock_n);
    cJSON_AddNumberToObject(j, "n_blocks", (double)g->n_blocks);
    cJSON_AddNumberToObject(j, "num_m_blocks", (double)g->num_m_blocks);
    cJSON_AddNumberToObject(j, "total_mblocks", (double)g->total_mblocks);
}

static void add_run_json(cJSON *j, const DecodeRun *r)
{
    cJSON_AddNumberToObject(j, "num_splits", r->splits);
    cJSON_AddNumberToObject(j, "latency_ns", (double)r->latency_ns);
    cJSON_AddNumberToObject(j, "ctas", (double)r->ctas);
    cJSON_AddNumberToObject(j, "empty_ctas", (double)r->empty_ctas);
    cJSON_AddNumberToObject(j, "blocks_per_split", (double)r->blocks_per_split);
    cJSON_AddNumberToObject(j, "block_ns", (double)r->block_ns);
    cJSON_AddNumberToObject(j, "main_ns", (double)r->main_ns);
    cJSON_AddNumberToObject(j, "combine_ns", (double)r->combine_total_ns);
    cJSON_AddNumberToObject(j, "sm_occupancy", r->sm_occupancy);
    cJSON_AddNumberToObject(j, "sm_busy_fraction", r->sm_busy_fraction);
}

static void print_json_and_free(cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    puts(s);
    cJSON_free(s);
    cJSON_Delete(j);
}

static void print_shape(const DecodeShape *w, const DecodeGeometry *g)
{
    printf("decode: batch %d, H_q %d, H_kv %d, L_q %d, L_K %" PRId64 ", head dim %d %s, %s KV, %d SMs\n",
           w->batch, w->hq, w->hkv, w->lq, w->lk, w->head_dim, dtype_name(w->dtype),
           w->is_paged ? "paged" : "contiguous", w->n_sm);
    printf("tile %d x %d: n_blocks %" PRId64 ", num_m_blocks %" PRId64 ", total_mblocks %" PRId64 "\n",
           g->kblock_m, g->kblock_n, g->n_blocks, g->num_m_blocks, g->total_mblocks);
}

static int run_single(const DecodeOptions *o, SimError *err)
{
    DecodeGeometry g;
    DecodeRun r;
    int splits;
    sim_decode_geometry(&o->w, &g, err);
    if (sim_decode_split_choose(&o->split, &o->w, &o->c, &splits, err) != SIM_OK ||
        sim_decode_run(&o->w, &o->c, splits, &r, err) != SIM_OK)
        return cli_fail(err);
    if (o->is_json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "policy", o->split.ops->name);
        add_shape_json(j, &o->w, &g);
        add_run_json(j, &r);
        print_json_and_free(j);
        return 0;
    }
    print_shape(&o->w, &g);
    printf("split policy %s -> %d split%s: %" PRId64 " CTAs (%" PRId64 " empty), %" PRId64 " blocks per split "
           "at %" PRId64 " ns each\n", o->split.ops->name, r.splits, r.splits == 1 ? "" : "s", r.ctas,
           r.empty_ctas, r.blocks_per_split, r.block_ns);
    printf("  latency        %10" PRId64 " ns = kernel %" PRId64 " + CTAs %" PRId64 " + combine %" PRId64 "\n",
           r.latency_ns, o->c.kernel_ns, r.main_ns, r.combine_total_ns);
    printf("  SM occupancy   %10.2f %% of SMs hold a CTA; busy %.2f %% while the CTAs run\n",
           100 * r.sm_occupancy, 100 * r.sm_busy_fraction);
    return 0;
}

/* ---- split sweep (Figure 3) ---- */

typedef struct {
    DecodeRun runs[SWEEP_MAX];
    int best, plateau;         /* 1-based split counts */
    int fa3, seq_aware;        /* the heuristics' choices */
} Sweep;

static SimStatus sweep(const DecodeOptions *o, Sweep *sw, SimError *err)
{
    DecodeGeometry g;
    sim_decode_geometry(&o->w, &g, err);
    sw->best = 1;
    for (int s = 1; s <= SWEEP_MAX; s++) {
        if (sim_decode_run(&o->w, &o->c, s, &sw->runs[s - 1], err) != SIM_OK)
            return err->status;
        if (sw->runs[s - 1].latency_ns < sw->runs[sw->best - 1].latency_ns)
            sw->best = s;
    }
    int64_t best_ns = sw->runs[sw->best - 1].latency_ns;
    for (sw->plateau = 1; 100 * sw->runs[sw->plateau - 1].latency_ns > PLATEAU_PERCENT * best_ns;)
        sw->plateau++;
    sw->fa3 = sim_decode_fa3_splits(&g, o->w.n_sm, false, 128);
    sw->seq_aware = sim_decode_seq_aware_splits(&g, o->w.n_sm, false, 128);
    return SIM_OK;
}

static void print_sweep_json(const DecodeOptions *o, const Sweep *sw)
{
    DecodeGeometry g;
    SimError err = { 0 };
    sim_decode_geometry(&o->w, &g, &err);
    cJSON *j = cJSON_CreateObject();
    add_shape_json(j, &o->w, &g);
    cJSON_AddNumberToObject(j, "best_splits", sw->best);
    cJSON_AddNumberToObject(j, "plateau_from_splits", sw->plateau);
    cJSON_AddNumberToObject(j, "fa3_splits", sw->fa3);
    cJSON_AddNumberToObject(j, "seq_aware_splits", sw->seq_aware);
    cJSON *a = cJSON_AddArrayToObject(j, "sweep");
    for (int s = 1; s <= SWEEP_MAX; s++) {
        cJSON *e = cJSON_CreateObject();
        add_run_json(e, &sw->runs[s - 1]);
        cJSON_AddItemToArray(a, e);
    }
    print_json_and_free(j);
}

static void print_sweep_table(FILE *f, const Sweep *sw)
{
    fprintf(f, "# splits latency_ns ctas blocks_per_split block_ns main_ns combine_ns sm_occupancy\n");
    for (int s = 1; s <= SWEEP_MAX; s++) {
        const DecodeRun *r = &sw->runs[s - 1];
        fprintf(f, "%d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %.4f\n", s,
                r->latency_ns, r->ctas, r->blocks_per_split, r->block_ns, r->main_ns, r->combine_total_ns,
                r->sm_occupancy);
    }
}

static void print_sweep_summary(const Sweep *sw)
{
    int64_t best_ns = sw->runs[sw->best - 1].latency_ns;
    printf("# best s = %d (%" PRId64 " ns); plateau (within 2 %% of best) from s = %d; s = 3 is %s the "
           "plateau (%+.2f %% over best)\n", sw->best, best_ns, sw->plateau,
           100 * sw->runs[2].latency_ns <= PLATEAU_PERCENT * best_ns ? "on" : "off",
           100.0 * (double)(sw->runs[2].latency_ns - best_ns) / (double)best_ns);
    printf("# fa3 picks s = %d (%" PRId64 " ns), seq-aware picks s = %d (%" PRId64 " ns)\n", sw->fa3,
           sw->runs[sw->fa3 - 1].latency_ns, sw->seq_aware, sw->runs[sw->seq_aware - 1].latency_ns);
}

/* Writes a gnuplot script with the sweep inline to a temporary file; gnuplot writes the PNG to the
 * output's temporary name, which is renamed into place only if gnuplot succeeded. */
static SimStatus plot_sweep(const Sweep *sw, const char *title, const char *path, SimError *err)
{
    SimOutput out;
    if (sim_output_open(&out, path, err) != SIM_OK)
        return err->status;
    char *script = NULL;
    int fd = g_file_open_tmp("sim-decode-XXXXXX.gp", &script, NULL);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int rc = -1;
    if (f) {
        char **parts = g_strsplit(out.tmp_path, "'", -1);
        char *png = g_strjoinv("''", parts); /* gnuplot's escape for ' inside '...' */
        g_strfreev(parts);
        fprintf(f, "set terminal pngcairo size 900,540\nset output '%s'\nset title '%s'\n"
                "set xlabel 'num splits s'\nset ylabel 'latency (us)'\nset grid\nset key off\n$d << EOD\n",
                png, title);
        for (int s = 1; s <= SWEEP_MAX; s++)
            fprintf(f, "%d %" PRId64 "\n", s, sw->runs[s - 1].latency_ns);
        fprintf(f, "EOD\nplot $d using 1:($2/1000) with linespoints pt 7 ps 0.6\n");
        g_free(png);
        if (fclose(f) == 0) {
            char *cmd = g_strdup_printf("gnuplot '%s' >/dev/null 2>&1", script);
            rc = system(cmd);
            g_free(cmd);
        }
    }
    if (script)
        unlink(script);
    g_free(script);
    if (rc != 0) {
        sim_output_abort(&out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write %s: gnuplot is missing or failed", path);
    }
    return sim_output_commit(&out, err);
}

static int run_sweep(const DecodeOptions *o, SimError *err)
{
    Sweep sw;
    if (sweep(o, &sw, err) != SIM_OK)
        return cli_fail(err);
    if (o->plot_path) {
        char title[160];
        snprintf(title, sizeof title, "batch %d, H_{kv} %d, L_K %" PRId64 ", hdim %d%s", o->w.batch, o->w.hkv,
                 o->w.lk, o->w.head_dim, o->w.is_paged ? ", paged" : "");
        if (plot_sweep(&sw, title, o->plot_path, err) != SIM_OK)
            return cli_fail(err);
    }
    if (o->is_json) {
        print_sweep_json(o, &sw);
        return 0;
    }
    DecodeGeometry g;
    sim_decode_geometry(&o->w, &g, err);
    print_shape(&o->w, &g);
    print_sweep_table(stdout, &sw);
    print_sweep_summary(&sw);
    return 0;
}

/* ---- the 160-configuration regression ---- */

static const int grid_batch[] = { 1, 2, 4, 8 };
static const int64_t grid_lk[] = { 128, 256, 384, 512, 1024, 2048, 4096, 8192 };
static const int grid_hkv[] = { 1, 2, 4, 8, 32 };
#define GRID_GROUP 8 /* H_q / H_kv: Llama-3-70B */
#define GRID_COUNT 160

typedef struct {
    DecodeShape w;
    int64_t n_blocks;
    DecodeRun fa3, seq, best;
} GridRow;

static SimStatus run_grid_row(const DecodeOptions *o, int i, GridRow *row, SimError *err)
{
    row->w = o->w;
    row->w.batch = grid_batch[i / 40];
    row->w.lk = grid_lk[i / 5 % 8];
    row->w.hkv = grid_hkv[i % 5];
    row->w.hq = GRID_GROUP * row->w.hkv;
    DecodeGeometry g;
    int best = 0;
    if (sim_decode_geometry(&row->w, &g, err) != SIM_OK ||
        sim_decode_run(&row->w, &o->c, sim_decode_fa3_splits(&g, row->w.n_sm, false, 128), &row->fa3, err) ||
        sim_decode_run(&row->w, &o->c, sim_decode_seq_aware_splits(&g, row->w.n_sm, false, 128), &row->seq,
                       err) ||
        sim_decode_best_splits(&row->w, &o->c, &best, NULL, err) ||
        sim_decode_run(&row->w, &o->c, best, &row->best, err))
        return err->status;
    row->n_blocks = g.n_blocks;
    return SIM_OK;
}

static double speedup(const DecodeRun *base, const DecodeRun *r)
{
    return (double)base->latency_ns / (double)r->latency_ns;
}

/* Per policy: changed configs, geometric-mean / min / max speedup over fa3, configs slower than fa3. */
typedef struct {
    int changed, slower;
    double log_sum, min, max;
} GridStats;

static void grid_stats_add(GridStats *st, const DecodeRun *fa3, const DecodeRun *r)
{
    double x = speedup(fa3, r);
    st->changed += r->splits != fa3->splits;
    st->slower += r->latency_ns > fa3->latency_ns;
    st->log_sum += log(x);
    st->min = fmin(st->min, x);
    st->max = fmax(st->max, x);
}

static void print_grid_row_text(const GridRow *r)
{
    printf("%5d %5" PRId64 " %3d %4" PRId64 " %3d %8" PRId64 " %3d %8" PRId64 " %3d %8" PRId64 " %7.3f %7.3f\n",
           r->w.batch, r->w.lk, r->w.hkv, r->n_blocks, r->fa3.splits, r->fa3.latency_ns, r->seq.splits,
           r->seq.latency_ns, r->best.splits, r->best.latency_ns, speedup(&r->fa3, &r->seq),
           speedup(&r->fa3, &r->best));
}

static cJSON *grid_row_json(const GridRow *r)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "batch", r->w.batch);
    cJSON_AddNumberToObject(e, "lk", (double)r->w.lk);
    cJSON_AddNumberToObject(e, "hkv", r->w.hkv);
    cJSON_AddNumberToObject(e, "hq", r->w.hq);
    cJSON_AddNumberToObject(e, "n_blocks", (double)r->n_blocks);
    const DecodeRun *runs[] = { &r->fa3, &r->seq, &r->best };
    const char *names[] = { "fa3", "seq_aware", "best" };
    for (int k = 0; k < 3; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s_splits", names[k]);
        cJSON_AddNumberToObject(e, key, runs[k]->splits);
        snprintf(key, sizeof key, "%s_latency_ns", names[k]);
        cJSON_AddNumberToObject(e, key, (double)runs[k]->latency_ns);
    }
    return e;
}

static cJSON *grid_stats_json(const GridStats *st)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "changed", st->changed);
    cJSON_AddNumberToObject(e, "slower_than_fa3", st->slower);
    cJSON_AddNumberToObject(e, "geomean_speedup", exp(st->log_sum / GRID_COUNT));
    cJSON_AddNumberToObject(e, "min_speedup", st->min);
    cJSON_AddNumberToObject(e, "max_speedup", st->max);
    return e;
}

static void print_grid_stats(const char *name, const GridStats *st)
{
    printf("# %-9s vs fa3: different split in %d of %d configs; speedup geomean %.4f, min %.4f, max %.4f; "
           "predicted slower than fa3 in %d\n", name, st->changed, GRID_COUNT, exp(st->log_sum / GRID_COUNT),
           st->min, st->max, st->slower);
}

/* Where best beats both heuristics: the largest regret of each, in percent of best's latency. */
static void print_regret(const GridRow *rows)
{
    int beats_both = 0, worst_fa3 = 0, worst_seq = 0;
    for (int i = 0; i < GRID_COUNT; i++) {
        const GridRow *r = &rows[i];
        beats_both += r->best.latency_ns < r->fa3.latency_ns && r->best.latency_ns < r->seq.latency_ns;
        if (speedup(&r->fa3, &r->best) > speedup(&rows[worst_fa3].fa3, &rows[worst_fa3].best))
            worst_fa3 = i;
        if (speedup(&r->seq, &r->best) > speedup(&rows[worst_seq].seq, &rows[worst_seq].best))
            worst_seq = i;
    }
    printf("# best is faster than both heuristics in %d of %d configs\n", beats_both, GRID_COUNT);
    const GridRow *f = &rows[worst_fa3], *s = &rows[worst_seq];
    printf("# largest regret: fa3 %.1f %% (batch %d, L_K %" PRId64 ", H_kv %d: s = %d vs best %d), seq-aware "
           "%.1f %% (batch %d, L_K %" PRId64 ", H_kv %d: s = %d vs best %d)\n",
           100 * (speedup(&f->fa3, &f->best) - 1), f->w.batch, f->w.lk, f->w.hkv, f->fa3.splits, f->best.splits,
           100 * (speedup(&s->seq, &s->best) - 1), s->w.batch, s->w.lk, s->w.hkv, s->seq.splits, s->best.splits);
}

static void print_slower(const GridRow *rows)
{
    for (int i = 0; i < GRID_COUNT; i++) {
        const GridRow *r = &rows[i];
        const DecodeRun *runs[] = { &r->seq, &r->best };
        for (int k = 0; k < 2; k++)
            if (runs[k]->latency_ns > r->fa3.latency_ns)
                printf("# slower than fa3: %s at batch %d, L_K %" PRId64 ", H_kv %d: %.3fx\n",
                       k ? "best" : "seq-aware", r->w.batch, r->w.lk, r->w.hkv, speedup(&r->fa3, runs[k]));
    }
}

static void print_grid_json(const GridRow *rows, const GridStats *seq, const GridStats *best)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *a = cJSON_AddArrayToObject(j, "configs");
    for (int i = 0; i < GRID_COUNT; i++)
        cJSON_AddItemToArray(a, grid_row_json(&rows[i]));
    cJSON_AddItemToObject(j, "seq_aware", grid_stats_json(seq));
    cJSON_AddItemToObject(j, "best", grid_stats_json(best));
    print_json_and_free(j);
}

static int run_regression(const DecodeOptions *o, SimError *err)
{
    GridRow *rows = g_new0(GridRow, GRID_COUNT);
    GridStats seq = { .min = INFINITY }, best = { .min = INFINITY };
    if (!o->is_json)
        printf("# batch lk hkv n_blocks fa3_s fa3_ns seq_s seq_ns best_s best_ns seq_speedup best_speedup\n");
    for (int i = 0; i < GRID_COUNT && !err->status; i++) {
        if (run_grid_row(o, i, &rows[i], err) != SIM_OK)
            break;
        grid_stats_add(&seq, &rows[i].fa3, &rows[i].seq);
        grid_stats_add(&best, &rows[i].fa3, &rows[i].best);
        if (!o->is_json)
            print_grid_row_text(&rows[i]), fflush(stdout);
    }
    if (!err->status && o->is_json)
        print_grid_json(rows, &seq, &best);
    else if (!err->status) {
        print_grid_stats("seq-aware", &seq);
        print_grid_stats("best", &best);
        print_regret(rows);
        print_slower(rows);
    }
    g_free(rows);
    return err->status ? cli_fail(err) : 0;
}

int sim_cmd_decode(int argc, char **argv)
{
    DecodeOptions o;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    if (rc >= 0)
        return rc;
    if (o.is_regression)
        return run_regression(&o, &err);
    if (o.is_sweep)
        return run_sweep(&o, &err);
    return run_single(&o, &err);
}

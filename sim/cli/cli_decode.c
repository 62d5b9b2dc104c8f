/* `sim decode`: parses options, then runs one split policy, a split sweep (the paper's Figure 3, with an
 * optional gnuplot PNG) or the paper's 160-configuration regression through sim/model/decode/decode.h, and prints
 * through sim/io/decode_out.h. No model logic here; every flag is checked before anything runs. */
#include <getopt.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "decode.h"
#include "decode_out.h"

#define DEFAULT_POLICY "fa3"

typedef struct {
    DecodeShape w;
    DecodeCosts c;
    DecodeSplit split;
    bool is_json, is_sweep, is_regression, is_grid_flag_set;
    const char *plot_path;
} DecodeOptions;

static const char usage_head[] =
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
    "  --n N                SMs (default 132)\n";

static const char usage_rest[] =
    "  --sweep-splits       latency for s = 1..64 (the paper's Figure 3)\n"
    "  --plot FILE.png      with --sweep-splits: plot the sweep with gnuplot\n"
    "  --regression         the paper's 160 configurations (batch 1,2,4,8 x L_K 128..8192 x H_kv\n"
    "                       1,2,4,8,32, H_q = 8 H_kv): speedup of seq-aware and best over fa3\n"
    "  --json               one JSON object instead of text\n"
    "  --max-memory-mb MB   refuse runs whose simulation would need more (default 4096; at most this\n"
    "                       machine's memory; at most 2^22 CTAs a run whatever the cap)\n"
    "Costs (H100 defaults; docs/decode.md says where each comes from), integers:\n"
    "  --hbm-gbps G         HBM bandwidth shared by the CTAs of a wave, GB/s (default 3000)\n"
    "  --sm-tensor-gflops F dense bf16 tensor rate of one SM, GFLOP/s (default 6061)\n"
    "  --kernel-ns T        main kernel launch + grid overhead (default 6000)\n"
    "  --cta-fixed-ns T     prologue + epilogue of one CTA, empty splits too (default 1650)\n"
    "  --block-ns T         per-KV-block cost; 0 derives it from bytes and FLOPs (default 0)\n"
    "  --combine-ns T       combine kernel, fixed part, when splits > 1 (default 1800)\n"
    "  --combine-split-ns T combine kernel, per split per wave of m-blocks (default 4)\n"
    "  --list-policies, --help, --version\n"
    "Exit status: 0 ok, 2 bad usage or input.\n";


/* The split policy names come from the registry. */
static void print_usage(void)
{
    char *names = decode_split_names(" | ", NULL);
    printf("%s  --split-policy P     %s (default %s); --list-split-policies\n%s", usage_head, names,
           DEFAULT_POLICY, usage_rest);
    g_free(names);
}

enum { OPT_BATCH = 256, OPT_HQ, OPT_HKV, OPT_LQ, OPT_LK, OPT_HDIM, OPT_DTYPE, OPT_PAGED, OPT_KBM, OPT_KBN,
       OPT_N, OPT_POLICY, OPT_LIST, OPT_SWEEP, OPT_PLOT, OPT_REGRESSION, OPT_JSON, OPT_HBM, OPT_TENSOR,
       OPT_KERNEL, OPT_CTA, OPT_BLOCK, OPT_COMBINE, OPT_COMBINE_SPLIT, OPT_HELP, OPT_VERSION, OPT_LIST_POLICIES,
       OPT_MEM };

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
    { "max-memory-mb", required_argument, NULL, OPT_MEM },
    { "list-policies", no_argument, NULL, OPT_LIST_POLICIES }, { "help", no_argument, NULL, OPT_HELP }, { "version", no_argument, NULL, OPT_VERSION },
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
    case OPT_POLICY: return decode_split_parse(arg, &o->split, err);
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
    case OPT_MEM: return cli_parse_max_memory_mb(flag, arg, &c->max_memory_mb, err);
    }
    return parse_shape(o, opt, arg, flag, err);
}

static void list_split_policies(void)
{
    for (int i = 0; i < decode_split_count(); i++)
        printf("%-10s %s\n", decode_split_at(i)->name, decode_split_at(i)->summary);
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
    o->c.max_memory_mb = CLI_MAX_MEMORY_MB_DEFAULT;
    decode_split_parse(DEFAULT_POLICY, &o->split, err);
    cli_begin_options();
    int opt;
    char flag[64];
    while ((opt = cli_next_option(argc, argv, long_options, "decode", flag, sizeof flag, err)) != -1) {
        if (opt == OPT_HELP)
            return print_usage(), 0;
        else if (opt == OPT_VERSION)
            return printf("sim (dashsim) %s\n", SIM_VERSION), 0;
        else if (opt == OPT_LIST || opt == OPT_LIST_POLICIES)
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

static int run_single(const DecodeOptions *o, SimError *err)
{
    DecodeGeometry g;
    DecodeRun r;
    int splits;
    if (sim_decode_geometry(&o->w, &g, err) != SIM_OK ||
        sim_decode_split_choose(&o->split, &o->w, &o->c, &splits, err) != SIM_OK ||
        sim_decode_run(&o->w, &o->c, splits, &r, err) != SIM_OK)
        return cli_fail(err);
    sim_decode_write_run(stdout, o->split.ops->name, &o->w, &g, &o->c, &r, o->is_json);
    return 0;
}

static int run_sweep(const DecodeOptions *o, SimError *err)
{
    DecodeSweep sw;
    DecodeGeometry g;
    if (sim_decode_geometry(&o->w, &g, err) != SIM_OK || sim_decode_sweep(&o->w, &o->c, &sw, err) != SIM_OK ||
        (o->plot_path && sim_decode_plot_sweep(&o->w, &sw, o->plot_path, err) != SIM_OK))
        return cli_fail(err);
    sim_decode_write_sweep(stdout, &o->w, &g, &o->c, &sw, o->is_json);
    return 0;
}

/* Rows stream out as they are computed (text); JSON and the summary need them all. */
static int run_regression(const DecodeOptions *o, SimError *err)
{
    DecodeGridRow *rows = g_new0(DecodeGridRow, SIM_DECODE_GRID_COUNT);
    DecodeGridStats seq = sim_decode_grid_stats_init(), best = sim_decode_grid_stats_init();
    if (!o->is_json)
        sim_decode_write_grid_header(stdout, &o->c);
    for (int i = 0; i < SIM_DECODE_GRID_COUNT && !err->status; i++) {
        if (sim_decode_grid_row(&o->w, &o->c, i, &rows[i], err) != SIM_OK)
            break;
        sim_decode_grid_stats_add(&seq, &rows[i].fa3, &rows[i].seq);
        sim_decode_grid_stats_add(&best, &rows[i].fa3, &rows[i].best);
        if (!o->is_json)
            sim_decode_write_grid_row(stdout, &rows[i]), fflush(stdout);
    }
    if (!err->status && o->is_json)
        sim_decode_write_grid_json(stdout, rows, &seq, &best);
    else if (!err->status)
        sim_decode_write_grid_summary(stdout, rows, &seq, &best);
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

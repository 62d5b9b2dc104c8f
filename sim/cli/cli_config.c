/* `sim run FILE` and `sim sweep FILE`: a JSON config (docs/configs.md) through the cost model and every
 * policy; both run every sweep point (run prints a table, sweep CSV, by default). Nothing is written unless the whole config (every sweep point) is valid; results stream in row
 * order, the same bytes for any --jobs; Ctrl-C flushes the finished rows and exits 130. The output files
 * are one batch (all or none), and none may name the config or another output. */
#include <getopt.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "render.h"
#include "sweep.h"

static const char usage_text[] =
    "usage: sim %s FILE [options]\n"
    "%s\n"
    "  --set KEY.PATH=VALUE  override a field of the config, e.g. --set workload.heads=8 (repeatable)\n"
    "  --format table|csv|jsonl  results format (default %s)\n"
    "  -o FILE               write the results to FILE instead of stdout\n"
    "  --out DIR             also write DIR/NAME.csv and DIR/NAME.jsonl (NAME: the config's file name)\n"
    "  --jobs N              threads (default 1; fewer if N jobs at once would exceed options.max_memory_mb);\n"
    "                        the output is the same for any N\n"
    "  --plot FILE.png       TFLOPS over seqlen per policy, a panel per (mask, head_dim); keeps .gp and .dat\n"
    "  --plot-speedup FILE.png  the same with each policy's speedup over /options/baseline instead of TFLOPS\n"
    "  --shard K/N           run the K-th of N slices of the points (contiguous, whole points), 1 <= K <= N\n"
    "  --merge FILE...       join the slices' outputs (any order; each slice 1..N of one config once) into the\n"
    "                        one-machine bytes; with --plot or --plot-speedup, also that run's figure\n"
    "  --max-memory-mb MB    the memory cap of every point (options.max_memory_mb; default 4096): jobs, the\n"
    "                        matrices and masks they read, and --jobs are sized under it\n"
    "  --row K               run only row K's point and print row K (1-based, rows of the whole config)\n"
    "  --dot FILE, --emit-plan FILE, --trace FILE.json [--trace-flows] [--trace-max-mb MB], --csv FILE,\n"
    "  --gantt FILE.png|FILE.svg  the outputs of `sim` for the job of the row --row selects (same costs and\n"
    "                        latencies: the makespan in them is the row's)\n"
    "  --help, --version\n"
    "Outputs are written as a set (all or none) and may not name the config or each other.\n"
    "Exit status: 0 ok, 2 bad usage, bad config or a failed job, 130 interrupted.\n";

typedef struct {
    bool is_sweep;
    const char *file, *out_path, *out_dir, *plot_path;
    bool is_plot_speedup;      /* --plot-speedup: the plot shows the speedup column, not TFLOPS */
    SweepFormat format;
    int jobs;
    GPtrArray *sets;           /* borrowed argv strings */
    char memory_set[64];       /* --max-memory-mb MB as the --set it stands for, applied after the others */
    FILE *sinks[3];            /* where rows go, in this order */
    uint64_t rows_fnv[3];      /* each sink's rows' digest, for a slice's last line (--shard) */
    SweepFormat sink_format[3];
    int sink_count;
    CliProgress progress;      /* jobs done, on a terminal */
    int64_t shard[2];          /* --shard K/N; 0/0: every point */
    int64_t row;               /* --row K; 0: none */
    bool is_merge;
    const char *merge_other;   /* an option --merge does not take, for the error */
    AttnJob outputs;           /* --row's job outputs (paths and trace options only) */
    const SimSweep *sweep;     /* while running: to find the selected row */
} RunOptions;

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) { (void)sig; interrupted = 1; }

enum { OPT_SET = 256, OPT_FORMAT, OPT_OUT, OPT_JOBS, OPT_PLOT, OPT_PLOT_SPEEDUP, OPT_HELP, OPT_VERSION, OPT_SHARD, OPT_MERGE, OPT_ROW,
       OPT_DOT, OPT_PLAN, OPT_TRACE, OPT_FLOWS, OPT_TRACE_MB, OPT_CSV, OPT_GANTT, OPT_MEM };
static const struct option long_options[] = {
    { "set", required_argument, NULL, OPT_SET }, { "format", required_argument, NULL, OPT_FORMAT },
    { "out", required_argument, NULL, OPT_OUT }, { "jobs", required_argument, NULL, OPT_JOBS },
    { "plot", required_argument, NULL, OPT_PLOT },
    { "plot-speedup", required_argument, NULL, OPT_PLOT_SPEEDUP }, { "help", no_argument, NULL, OPT_HELP },
    { "version", no_argument, NULL, OPT_VERSION }, { "shard", required_argument, NULL, OPT_SHARD },
    { "merge", no_argument, NULL, OPT_MERGE }, { "row", required_argument, NULL, OPT_ROW },
    { "dot", required_argument, NULL, OPT_DOT }, { "emit-plan", required_argument, NULL, OPT_PLAN },
    { "trace", required_argument, NULL, OPT_TRACE }, { "trace-flows", no_argument, NULL, OPT_FLOWS },
    { "trace-max-mb", required_argument, NULL, OPT_TRACE_MB }, { "csv", required_argument, NULL, OPT_CSV },
    { "gantt", required_argument, NULL, OPT_GANTT }, { "max-memory-mb", required_argument, NULL, OPT_MEM },
    { NULL, 0, NULL, 0 },
};

/* --shard K/N: 1 <= K <= N <= 100000. */
static SimStatus parse_shard(RunOptions *o, const char *arg, SimError *err)
{
    const char *slash = strchr(arg, '/');
    gchar *k = slash ? g_strndup(arg, (gsize)(slash - arg)) : NULL;
    if (!slash)
        sim_error_set(err, SIM_ERR_USAGE, "--shard expects K/N (e.g. 2/3), got '%s'", arg);
    else if (cli_parse_int64("--shard's N", slash + 1, 1, 100000, &o->shard[1], err) == SIM_OK &&
             cli_parse_int64("--shard's K", k, 1, o->shard[1], &o->shard[0], err) == SIM_OK)
        (void)0;
    g_free(k);
    return err->status;
}

/* The options of the row's job (the attention command's outputs). */
static SimStatus parse_output(RunOptions *o, int opt, const char *arg, SimError *err)
{
    AttnJob *j = &o->outputs;
    switch (opt) {
    case OPT_DOT: j->dot_path = arg; return SIM_OK;
    case OPT_PLAN: j->plan_path = arg; return SIM_OK;
    case OPT_TRACE: j->trace_path = arg; return SIM_OK;
    case OPT_FLOWS: j->has_trace_flows = true; return SIM_OK;
    case OPT_TRACE_MB: return cli_parse_int64("--trace-max-mb", arg, 1, 1 << 20, &j->trace_max_mb, err);
    case OPT_CSV: j->csv_path = arg; return SIM_OK;
    case OPT_GANTT: j->gantt_path = arg; return sim_render_gantt_check_path(arg, err);
    }
    return sim_error_set(err, SIM_ERR_USAGE, "unknown option (see sim %s --help)", o->is_sweep ? "sweep" : "run");
}

static SimStatus parse_one(RunOptions *o, int opt, const char *arg, SimError *err)
{
    int64_t v;
    switch (opt) {
    case OPT_SHARD: return parse_shard(o, arg, err);
    case OPT_MERGE: o->is_merge = true; return SIM_OK;
    case OPT_ROW: return cli_parse_int64("--row", arg, 1, INT64_MAX, &o->row, err);
    case OPT_SET: g_ptr_array_add(o->sets, (gpointer)arg); return SIM_OK;
    case OPT_MEM:
        if (cli_parse_max_memory_mb("--max-memory-mb", arg, &v, err) == SIM_OK)
            snprintf(o->memory_set, sizeof o->memory_set, "options.max_memory_mb=%" G_GINT64_FORMAT, v);
        return err->status;
    case 'o': o->out_path = arg; return SIM_OK;
    case OPT_OUT: o->out_dir = arg; return SIM_OK;
    case OPT_PLOT_SPEEDUP:
        o->is_plot_speedup = true; /* the same file rules */
        __attribute__((fallthrough));
    case OPT_PLOT:
        o->plot_path = arg;
        if (!g_str_has_suffix(arg, ".png"))
            return sim_error_set(err, SIM_ERR_USAGE, "--plot draws a PNG: the file name must end in .png, got '%s'",
                                 arg);
        return SIM_OK;
    case OPT_JOBS:
        if (cli_parse_int64("--jobs", arg, 1, 256, &v, err) == SIM_OK)
            o->jobs = (int)v;
        return err->status;
    case OPT_FORMAT:
        if (strcmp(arg, "table") == 0 || strcmp(arg, "csv") == 0 || strcmp(arg, "jsonl") == 0) {
            o->format = arg[0] == 't' ? SWEEP_TABLE : arg[0] == 'c' ? SWEEP_CSV : SWEEP_JSONL;
            return SIM_OK;
        }
        return sim_error_set(err, SIM_ERR_USAGE, "--format expects table, csv or jsonl, got '%s'", arg);
    }
    return parse_output(o, opt, arg, err);
}

static bool has_job_output(const AttnJob *j)
{
    return j->dot_path || j->plan_path || j->trace_path || j->csv_path || j->gantt_path;
}

/* The combinations: --merge takes only -o; job outputs need --row; --row and --shard exclude each other. */
static SimStatus check_combination(const RunOptions *o, SimError *err)
{
    if (o->is_merge && o->merge_other)
        return sim_error_set(err, SIM_ERR_USAGE, "--merge joins files and takes only -o, --plot and --plot-speedup, not "
                             "%s", o->merge_other);
    if (has_job_output(&o->outputs) && !o->row)
        return sim_error_set(err, SIM_ERR_USAGE, "--dot, --emit-plan, --trace, --csv and --gantt show one job: select "
                             "its row with --row K");
    if (o->outputs.has_trace_flows && !o->outputs.trace_path)
        return sim_error_set(err, SIM_ERR_USAGE, "--trace-flows needs --trace FILE");
    if (o->row && o->shard[1])
        return sim_error_set(err, SIM_ERR_USAGE, "--row and --shard exclude each other (a row is one job)");
    const AttnJob *j = &o->outputs;
    const char *job_paths[] = { j->dot_path, j->plan_path, j->trace_path, j->csv_path };
    bool rows_to_stdout = !o->out_path || strcmp(o->out_path, "-") == 0;
    for (size_t i = 0; i < G_N_ELEMENTS(job_paths); i++)
        if (job_paths[i] && strcmp(job_paths[i], "-") == 0 && rows_to_stdout)
            return sim_error_set(err, SIM_ERR_USAGE, "only one output can go to standard output ('-'), and the rows "
                                 "already do: write the rows with -o FILE");
        else if (job_paths[i] && strcmp(job_paths[i], "-") == 0)
            rows_to_stdout = true;
    return SIM_OK;
}

/* No output may name the config or another output (--out DIR's files, --plot's .gp and .dat included), nor
 * (once it is loaded, s not NULL) an input its points name: latency matrix, mask and profile files. */
static SimStatus check_paths(const RunOptions *o, const SimSweep *s, SimError *err)
{
    gchar *base = g_path_get_basename(o->file);
    if (g_str_has_suffix(base, ".json"))
        base[strlen(base) - 5] = 0;
    gchar *csv = o->out_dir ? g_strdup_printf("%s/%s.csv", o->out_dir, base) : NULL;
    gchar *jsonl = o->out_dir ? g_strdup_printf("%s/%s.jsonl", o->out_dir, base) : NULL;
    gchar *gp = sim_output_sibling(o->plot_path, ".gp"), *dat = sim_output_sibling(o->plot_path, ".dat");
    GArray *in = g_array_new(FALSE, FALSE, sizeof(SimPathRole));
    g_array_append_val(in, ((SimPathRole){ "the config", o->file }));
    for (int64_t i = 0; s && i < sim_sweep_point_count(s); i++) {
        const SimConfigPoint *p = sim_sweep_point(s, i);
        if (p->latency_matrix[0])
            g_array_append_val(in, ((SimPathRole){ "the config's latency_matrix", p->latency_matrix }));
        if (p->mask_file[0])
            g_array_append_val(in, ((SimPathRole){ "the config's mask_file", p->mask_file }));
        for (int k = 0; k < 2; k++) { /* each profile once: the points of a sweep mostly share them */
            const char *f = sim_sweep_point_file(s, i, k == 1);
            bool is_new = f != NULL;
            for (guint m = 0; is_new && m < in->len; m++)
                is_new = strcmp(g_array_index(in, SimPathRole, m).path, f) != 0;
            if (is_new)
                g_array_append_val(in, ((SimPathRole){ k ? "the kernel profile" : "the hardware profile", f }));
        }
    }
    const AttnJob *j = &o->outputs;
    gchar *g_gp = sim_output_sibling(j->gantt_path, ".gp"), *g_dat = sim_output_sibling(j->gantt_path, ".dat");
    SimPathRole out[] = { { "-o", o->out_path }, { "--out's", csv }, { "--out's", jsonl }, { "--plot", o->plot_path },
                          { "--plot's script", gp }, { "--plot's data", dat }, { "--dot", j->dot_path },
                          { "--emit-plan", j->plan_path }, { "--trace", j->trace_path }, { "--csv", j->csv_path },
                          { "--gantt", j->gantt_path }, { "the Gantt chart's script", g_gp },
                          { "the Gantt chart's data", g_dat } };
    sim_output_check_paths((const SimPathRole *)in->data, (int)in->len, out, (int)G_N_ELEMENTS(out), err);
    g_array_free(in, TRUE);
    g_free(base), g_free(csv), g_free(jsonl), g_free(gp), g_free(dat);
    g_free(g_gp), g_free(g_dat);
    return err->status;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(RunOptions *o, int argc, char **argv, SimError *err)
{
    const char *cmd = o->is_sweep ? "sweep" : "run";
    opterr = 0;
    optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "o:", long_options, NULL)) != -1) {
        if (opt == '?')
            sim_error_set(err, SIM_ERR_USAGE, "unknown option or missing value: %s (see sim %s --help)",
                          argv[optind - 1], cmd);
        else if (opt == OPT_HELP)
            return printf(usage_text, cmd, o->is_sweep ? "Runs every point of a config's sweep with every policy "
                          "that supports its mask, as CSV." : "Runs a config (every point of its sweep, if any) "
                          "with every policy that supports its mask, as a table.", o->is_sweep ? "csv" : "table"), 0;
        else if (opt == OPT_VERSION)
            return printf("sim (dashsim) %s\n", SIM_VERSION), 0;
        else
            parse_one(o, opt, optarg, err);
        if (opt != 'o' && opt != OPT_MERGE && opt != OPT_PLOT && opt != OPT_PLOT_SPEEDUP && opt != '?' && !o->merge_other)
            o->merge_other = argv[optind - 1 - (optarg && optarg == argv[optind - 1])];
        if (err->status)
            return cli_fail(err);
    }
    if (check_combination(o, err) != SIM_OK)
        return cli_fail(err);
    if (o->is_merge) {
        if (optind == argc)
            return sim_error_set(err, SIM_ERR_USAGE, "--merge needs the slices' files (see sim %s --help)", cmd),
                   cli_fail(err);
        return -1;
    }
    if (optind != argc - 1)
        return sim_error_set(err, SIM_ERR_USAGE, optind == argc ? "sim %s needs one config FILE (see sim %s --help)"
                             : "sim %s takes one config FILE, got a second one (see sim %s --help)", cmd, cmd),
               cli_fail(err);
    o->file = argv[optind];
    if (check_paths(o, NULL, err) != SIM_OK)
        return cli_fail(err);
    return -1;
}

/* Loads, applies --set, validates, expands. NULL after printing every error. */
static SimSweep *load(const RunOptions *o, int *rc)
{
    SimDiag *diag = sim_diag_new();
    char installed[4096];
    SimConfig *cfg = sim_config_load(cli_find_config(o->file, installed, sizeof installed), diag);
    for (guint i = 0; cfg && i < o->sets->len; i++)
        sim_config_set(cfg, g_ptr_array_index(o->sets, i), diag);
    if (cfg && o->memory_set[0])
        sim_config_set(cfg, o->memory_set, diag);
    SimSweep *s = NULL;
    /* run and sweep both run every point; they differ in the default format */
    SimSweepPart part = { .shard_index = (int)o->shard[0], .shard_count = (int)o->shard[1], .row = o->row };
    if (cfg && !sim_diag_count(diag) && sim_config_validate(cfg, true, diag))
        s = sim_sweep_new_part(cfg, true, &part, diag);
    *rc = sim_diag_count(diag) ? sim_diag_print(diag, stderr) : 0;
    sim_diag_free(diag);
    sim_config_free(cfg);
    return s;
}

static void emit(const SimSweepRow *row, void *ctx)
{
    RunOptions *o = ctx;
    int64_t selected = sim_sweep_selected(o->sweep);
    if (selected >= 0 && row != sim_sweep_row(o->sweep, selected))
        return; /* --row: the point's other rows ran (for the speedup) but are not printed */
    cli_progress_clear(&o->progress); /* rows on the terminal go above the progress line */
    for (int i = 0; i < o->sink_count; i++) {
        sim_sweep_write_row_hashed(o->sinks[i], o->sink_format[i], row, &o->rows_fnv[i]);
        fflush(o->sinks[i]);
    }
}

static void progress(int64_t done, int64_t total, void *ctx)
{
    RunOptions *o = ctx;
    cli_progress_update(&o->progress, done, total, NULL);
}

/* Opens -o and --out DIR files (atomically written). */
static SimStatus open_outputs(RunOptions *o, SimOutput files[3], SimError *err)
{
    if (o->out_path && sim_output_open(&files[0], o->out_path, err) == SIM_OK)
        o->sinks[o->sink_count] = files[0].f, o->sink_format[o->sink_count++] = o->format;
    else if (!o->out_path)
        o->sinks[o->sink_count] = stdout, o->sink_format[o->sink_count++] = o->format;
    if (err->status || !o->out_dir)
        return err->status;
    if (g_mkdir_with_parents(o->out_dir, 0777) != 0)
        return sim_error_set(err, SIM_ERR_IO, "cannot create the directory %s", o->out_dir);
    gchar *base = g_path_get_basename(o->file);
    if (g_str_has_suffix(base, ".json"))
        base[strlen(base) - 5] = 0;
    for (int k = 1; k <= 2 && !err->status; k++) {
        gchar *path = g_strdup_printf("%s/%s.%s", o->out_dir, base, k == 1 ? "csv" : "jsonl");
        if (sim_output_open(&files[k], path, err) == SIM_OK)
            o->sinks[o->sink_count] = files[k].f, o->sink_format[o->sink_count++] = k == 1 ? SWEEP_CSV : SWEEP_JSONL;
        g_free(path);
    }
    g_free(base);
    return err->status;
}

static int run_config(RunOptions *o, SimSweep *s)
{
    SimError err = { 0 };
    SimOutput files[3] = { 0 };
    if (o->plot_path && sim_sweep_row_count(s) == 0)
        sim_error_set(&err, SIM_ERR_INPUT, "no policy of %s supports the mask of any point: nothing to plot", o->file);
    int mark = sim_output_batch_begin(); /* every file of the command, or none */
    if (!err.status && open_outputs(o, files, &err) == SIM_OK) {
        for (int i = 0; i < o->sink_count; i++) {
            sim_sweep_write_slice_line(o->sinks[i], o->sink_format[i], s); /* --shard: for --merge */
            sim_sweep_write_header(o->sinks[i], o->sink_format[i], sim_sweep_costs_from(s));
            o->rows_fnv[i] = SIM_SWEEP_FNV_BASIS;
        }
        cli_progress_begin(&o->progress, o->is_sweep ? "sweep" : "run", "jobs");
        struct sigaction sa = { .sa_handler = on_sigint }, old;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old);
        o->sweep = s;
        sim_sweep_run(s, o->jobs, &interrupted, emit, progress, o, &err);
        sigaction(SIGINT, &old, NULL);
        cli_progress_end(&o->progress);
        for (int i = 0; i < o->sink_count && !err.status && !interrupted; i++) /* a whole slice: its digest */
            sim_sweep_write_slice_end_line(o->sinks[i], o->sink_format[i], s, o->rows_fnv[i]);
    }
    if (!err.status && !interrupted && has_job_output(&o->outputs))
        sim_sweep_write_outputs(s, &o->outputs, &err);
    if (!err.status && !interrupted && o->plot_path)
        sim_sweep_plot(s, o->plot_path, o->is_plot_speedup, &err);
    for (int k = 0; k < 3; k++) {
        if (files[k].f && !err.status)
            sim_output_commit(&files[k], &err);
        sim_output_abort(&files[k]);
    }
    sim_output_batch_end(mark, err.status, &err);
    if (err.status)
        return cli_fail(&err);
    if (interrupted)
        fprintf(stderr, "sim: interrupted; the finished results were written\n");
    return interrupted ? 130 : 0;
}

/* --merge: the slices joined through the library's merge (sim_sweep_merge), to -o or stdout, and with --plot
 * their figure (the one a single run of the whole config draws); the files are one batch, none naming a slice. */
static int merge(const RunOptions *o, int count, const char *const *files)
{
    SimError err = { 0 };
    SimOutput out = { 0 };
    SweepMerged rows = { 0 };
    gchar *gp = sim_output_sibling(o->plot_path, ".gp"), *dat = sim_output_sibling(o->plot_path, ".dat");
    SimPathRole in[] = { { "a merged file", files[0] } };
    SimPathRole outs[] = { { "-o", o->out_path }, { "--plot", o->plot_path }, { "--plot's script", gp },
                           { "--plot's data", dat } };
    for (int i = 0; i < count && !err.status; i++)
        in[0].path = files[i], sim_output_check_paths(in, 1, outs, (int)G_N_ELEMENTS(outs), &err);
    int mark = sim_output_batch_begin(); /* the rows and the figure, or nothing */
    if (!err.status && (!o->out_path || sim_output_open(&out, o->out_path, &err) == SIM_OK) &&
        sim_sweep_merge(files, count, o->out_path ? out.f : stdout, o->plot_path ? &rows : NULL, &err) == SIM_OK &&
        o->plot_path)
        sim_sweep_merged_plot(&rows, o->plot_path, o->is_plot_speedup, &err);
    if (!err.status && o->out_path)
        sim_output_commit(&out, &err);
    sim_output_abort(&out);
    sim_output_batch_end(mark, err.status, &err);
    sim_sweep_merged_clear(&rows);
    g_free(gp), g_free(dat);
    return err.status ? cli_fail(&err) : 0;
}

static int cmd_config(int argc, char **argv, bool is_sweep)
{
    RunOptions o = { .is_sweep = is_sweep, .format = is_sweep ? SWEEP_CSV : SWEEP_TABLE, .jobs = 1,
                     .sets = g_ptr_array_new(), .outputs = sim_job_default() };
    o.outputs.dot_path = o.outputs.plan_path = o.outputs.trace_path = o.outputs.csv_path = o.outputs.gantt_path = NULL;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    if (rc < 0 && o.is_merge) {
        rc = merge(&o, argc - optind, (const char *const *)argv + optind);
    } else if (rc < 0) {
        SimSweep *s = load(&o, &rc);
        if (s && check_paths(&o, s, &err) != SIM_OK)
            rc = cli_fail(&err);
        else if (s)
            rc = run_config(&o, s);
        sim_sweep_free(s);
    }
    g_ptr_array_free(o.sets, TRUE);
    return rc;
}

int sim_cmd_run(int argc, char **argv) { return cmd_config(argc, argv, false); }
int sim_cmd_sweep(int argc, char **argv) { return cmd_config(argc, argv, true); }

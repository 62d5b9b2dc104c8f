/* `sim calibrate RAW.json [-o PROFILE.json]`: a hardware profile (docs/profile.md) from the output of the
 * gpu/ calibration kernels (`gpu-calib --profile`). `sim calibrate --kernel TRACE... [-o KERNEL.json]`: a
 * kernel profile from phase-stamped traces of one attention kernel (gpu/bwd writes them). */
#include <getopt.h>
#include <inttypes.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kernel_fit.h"
#include "kernel_io.h"
#include "kernel_runs_io.h"
#include "output.h"
#include "profile_io.h"
#include "trace_in.h"

static const char usage[] =
    "usage: sim calibrate RAW.json [--latency-matrix FILE] [--load RAW.json] [--clock RAW.json] [-o PROFILE.json]\n"
    "       sim calibrate --kernel TRACE... [--runs RUNS.json] [--name NAME] [--write-rule R] [-o KERNEL.json]\n"
    "       sim calibrate --kernel --baseline TIMES.json --reference KERNEL [-o KERNEL.json]\n"
    "The first form writes a hardware profile (docs/profile.md) from gpu-calib --profile output: compute per\n"
    "tile in cycles, reduction time by reductions in flight, hand-off growth with load, staging, CTA launch\n"
    "costs. The second writes a kernel profile from phase-stamped traces of one kernel on one GPU (gpu/bwd's\n"
    "recorded runs, .json or .json.gz): per-task compute by kind, the overlap penalty, the dQ protocol's\n"
    "costs and the fixed costs of a launch, one tile per head dim found.\n"
    "  --latency-matrix FILE  gpu-calib latency matrix: its median is the idle hand-off when RAW has no\n"
    "                         stamped hand-off measurement\n"
    "  --load RAW.json        fit the load rule (the reductions' queue) to this raw file's staggered runs\n"
    "                         (reduce_staggered) instead of RAW's own; without either, no queue\n"
    "  --clock RAW.json       fit how the reduction scales with the SM clock to this raw file's reduce_clock\n"
    "                         rows (gpu-calib --steady); without it, reductions keep their idle-clock times\n"
    "  --kernel               fit a kernel profile to the traces given\n"
    "  --runs FILE            the timed runs of the same shapes (gpu/bwd/shapes.py): the fixed costs of a\n"
    "                         launch come from their times (else from the traces' cudaEvent stages)\n"
    "  --name NAME            the kernel profile's name (default: the traces' kernel metadata)\n"
    "  --write-rule R         overlap (default): a reduction beside the SM's dK/dV write is slowed whether it\n"
    "                         started inside the write or was running when it began; start: only the first\n"
    "                         (gpu/bwd's Hopper kernel, docs/profile.md)\n"
    "  --baseline FILE        fit to the baseline order's times alone (a kernel that cannot be traced, such as\n"
    "                         a published FA3 table; docs/profile.md): one compute cost per tile, and the\n"
    "                         fixed costs' base when the times span several shapes\n"
    "  --reference KERNEL     with --baseline: the kernel profile (name or file) measured on the same GPU that\n"
    "                         gives what times cannot separate (reduction, hand-off, staging, the fixed rate)\n"
    "  --max-memory-mb MB     refuse inputs whose reading would need more (default 4096; at most this\n"
    "                         machine's memory): RAW, --load and --clock files (48 bytes a byte of JSON, at\n"
    "                         most 64 MB each whatever the cap) and the traces, all held at once (8 bytes a\n"
    "                         byte)\n"
    "  -o FILE                write the profile there (default: standard output)\n"
    "  --help, --version\n"
    "Exit status: 0 ok, 2 bad usage or input.\n";

enum { OPT_HELP = 256, OPT_MATRIX, OPT_KERNEL, OPT_NAME, OPT_RUNS, OPT_BASELINE, OPT_REFERENCE, OPT_LOAD, OPT_CLOCK,
       OPT_MEM, OPT_WRITE_RULE };
static const struct option long_options[] = {
    { "latency-matrix", required_argument, NULL, OPT_MATRIX }, { "output", required_argument, NULL, 'o' },
    { "kernel", no_argument, NULL, OPT_KERNEL }, { "name", required_argument, NULL, OPT_NAME },
    { "runs", required_argument, NULL, OPT_RUNS }, { "baseline", required_argument, NULL, OPT_BASELINE },
    { "reference", required_argument, NULL, OPT_REFERENCE }, { "load", required_argument, NULL, OPT_LOAD },
    { "max-memory-mb", required_argument, NULL, OPT_MEM },
    { "clock", required_argument, NULL, OPT_CLOCK }, { "write-rule", required_argument, NULL, OPT_WRITE_RULE },
    { "help", no_argument, NULL, OPT_HELP }, { NULL, 0, NULL, 0 },
};

typedef bool (*WriteFn)(const void *profile, FILE *f);

static bool write_hw(const void *p, FILE *f)
{
    return sim_profile_write(p, f);
}

static bool write_kernel(const void *p, FILE *f)
{
    return sim_kernel_write(p, f);
}

/* Writes the profile to out_path (atomically) or standard output. */
static void emit(const void *profile, WriteFn write, const char *out_path, SimError *err)
{
    SimOutput out = { 0 };
    if (!out_path) {
        if (!write(profile, stdout))
            sim_error_set(err, SIM_ERR_IO, "cannot write the profile to standard output");
        return;
    }
    if (sim_output_open(&out, out_path, err) == SIM_OK && !write(profile, out.f))
        sim_error_set(err, SIM_ERR_IO, "cannot write %s", out_path);
    if (!err->status)
        sim_output_commit(&out, err);
    sim_output_abort(&out);
}

/* The kernel profile's source: how many traces, from which directories (in the order first given), the
 * runs file; and its date: the newest trace's. */
static void describe_source(KernelProfile *k, Trace **traces, char **paths, int n, const char *runs)
{
    GString *s = g_string_new("");
    g_string_printf(s, "sim calibrate --kernel over %d trace%s in", n, n == 1 ? "" : "s");
    GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
    for (int i = 0; i < n; i++) {
        char *d = g_path_get_dirname(paths[i]);
        bool is_new = true;
        for (guint j = 0; j < dirs->len && is_new; j++)
            is_new = strcmp(dirs->pdata[j], d) != 0;
        if (is_new)
            g_string_append_printf(s, "%s %s", dirs->len ? "," : "", d), g_ptr_array_add(dirs, d);
        else
            g_free(d);
        if (strcmp(traces[i]->kernel.date, k->date) > 0)
            g_strlcpy(k->date, traces[i]->kernel.date, sizeof k->date);
    }
    if (runs)
        g_string_append_printf(s, "; fixed costs from the timed runs of %s", runs);
    g_strlcpy(k->source, s->str, sizeof k->source);
    g_ptr_array_free(dirs, TRUE);
    g_string_free(s, TRUE);
}

/* Each trace's timed run (same shape and policy) from the runs file; a trace without one is an error. */
static SimStatus match_runs(Trace **traces, int n, const char *runs_path, int64_t *timed_ns, SimError *err)
{
    KernelRuns *runs = NULL;
    if (sim_kernel_runs_read(runs_path, &runs, err) != SIM_OK)
        return err->status;
    for (int i = 0; i < n && !err->status; i++) {
        const TraceKernel *k = &traces[i]->kernel;
        KernelRun like = { .seqlen = k->seqlen, .batch = k->batch, .heads = k->heads_per_batch,
                           .kv_heads = k->kv_heads ? k->kv_heads : k->heads_per_batch, .head_dim = k->head_dim,
                           .mask = traces[i]->wl.mask };
        g_strlcpy(like.policy, traces[i]->policy, sizeof like.policy);
        const KernelRun *r = sim_kernel_runs_find(runs, &like);
        if (!r)
            sim_error_set(err, SIM_ERR_INPUT, "%s: %s has no timed deterministic run of this shape and policy",
                          traces[i]->path, runs_path);
        else
            timed_ns[i] = r->time_ns;
    }
    sim_kernel_runs_free(runs);
    return err->status;
}

/* The traces, all held at once: one budget of max_memory_mb for them, as validate's. */
static SimStatus load_traces(char **paths, int n, int64_t max_memory_mb, Trace **traces, SimError *err)
{
    int64_t room = max_memory_mb << 20;
    for (int i = 0; i < n && !err->status; i++) {
        if (cli_check_read_memory(paths[i], SIM_TRACE_PARSE_FACTOR, room, max_memory_mb, err) != SIM_OK)
            break;
        if (sim_trace_load_capped(paths[i], room, &traces[i], err) != SIM_OK) {
            if (room / SIM_TRACE_PARSE_FACTOR < SIM_TRACE_MAX_TEXT_BYTES) /* the cap, not the reader's ceiling */
                cli_name_memory_cap(err, paths[i], SIM_TRACE_PARSE_FACTOR, max_memory_mb);
            break;
        }
        room -= traces[i]->task_count * (int64_t)(sizeof(TraceTask) + 16);
        if (room < 0)
            sim_error_set(err, SIM_ERR_LIMIT, "%s: the traces so far need more than --max-memory-mb %" PRId64 " MB",
                          paths[i], max_memory_mb);
    }
    return err->status;
}

static int calibrate_kernel(char **paths, int n, const char *name, const char *runs_path, bool is_write_rule_start,
                            const char *out_path, int64_t max_memory_mb)
{
    SimError err = { 0 };
    Trace **traces = g_new0(Trace *, n);
    int64_t *timed_ns = g_new0(int64_t, n);
    KernelProfile *k = NULL;
    load_traces(paths, n, max_memory_mb, traces, &err);
    if (!err.status && runs_path)
        match_runs(traces, n, runs_path, timed_ns, &err);
    if (!err.status && sim_kernel_fit_traces(traces, runs_path ? timed_ns : NULL, n, is_write_rule_start, &k, &err) == SIM_OK) {
        g_strlcpy(k->name, name ? name : k->kernel, sizeof k->name);
        describe_source(k, traces, paths, n, runs_path);
        emit(k, write_kernel, out_path, &err);
    }
    for (int i = 0; i < n; i++)
        sim_trace_free(traces[i]);
    g_free(traces);
    g_free(timed_ns);
    sim_kernel_free(k);
    return err.status ? cli_fail(&err) : 0;
}

/* A kernel profile from baseline times and a reference kernel profile. */
static int calibrate_baseline(const char *path, const char *reference, const char *out_path, int64_t max_memory_mb)
{
    SimError err = { 0 };
    KernelBaseline b = { 0 };
    KernelProfile *ref = NULL;
    char found[4096];
    if (cli_find_kernel(reference, found, sizeof found, &err) == SIM_OK && sim_kernel_read(found, &ref, &err) == SIM_OK &&
        sim_kernel_baseline_read(path, &b, &err) == SIM_OK &&
        (b.max_memory_mb = max_memory_mb, sim_kernel_fit_baseline(&b, ref, &err)) == SIM_OK) {
        char note[160];
        snprintf(note, sizeof note, "; fitted by sim calibrate --kernel --baseline %s --reference %s", path, ref->name);
        g_strlcat(b.kernel->source, note, sizeof b.kernel->source);
        emit(b.kernel, write_kernel, out_path, &err);
    }
    sim_kernel_baseline_clear(&b);
    sim_kernel_free(ref);
    return err.status ? cli_fail(&err) : 0;
}

/* A hardware profile from RAW, then --load's and --clock's raw files (each read after the one before is freed:
 * each has the whole cap). */
static int calibrate_raw(const char *raw, const char *matrix, const char *load, const char *clock,
                         const char *out_path, int64_t max_memory_mb)
{
    SimError err = { 0 };
    HwProfile *p = NULL;
    int64_t room = max_memory_mb << 20;
    const char *inputs[] = { raw, load, clock };
    for (int i = 0; i < 3 && !err.status; i++)
        if (inputs[i])
            cli_check_read_memory(inputs[i], SIM_PROFILE_RAW_PARSE_FACTOR, room, max_memory_mb, &err);
    if (!err.status && sim_profile_from_raw(raw, matrix, room, &p, &err) == SIM_OK &&
        (!load || sim_profile_fit_load(p, load, room, &err) == SIM_OK) &&
        (!clock || sim_profile_fit_clock_rule(p, clock, room, &err) == SIM_OK))
        emit(p, write_hw, out_path, &err);
    for (int i = 0; i < 3 && room / SIM_PROFILE_RAW_PARSE_FACTOR < SIM_PROFILE_RAW_MAX_BYTES; i++)
        if (inputs[i]) /* the cap, not the reader's ceiling, and not the latency matrix's */
            cli_name_memory_cap(&err, inputs[i], SIM_PROFILE_RAW_PARSE_FACTOR, max_memory_mb);
    sim_profile_free(p);
    return err.status ? cli_fail(&err) : 0;
}

int sim_cmd_calibrate(int argc, char **argv)
{
    const char *matrix = NULL, *out_path = NULL, *name = NULL, *runs = NULL, *baseline = NULL, *reference = NULL;
    const char *load = NULL, *clock = NULL;
    int64_t max_memory_mb = CLI_MAX_MEMORY_MB_DEFAULT;
    bool is_kernel = false, is_write_rule_start = false, has_write_rule = false;
    SimError err = { 0 };
    int opt;
    cli_begin_options();
    while ((opt = getopt_long(argc, argv, "o:", long_options, NULL)) != -1) {
        if (opt == '?')
            sim_error_set(&err, SIM_ERR_USAGE, "unknown option or missing value: %s (see sim calibrate --help)",
                          argv[optind - 1]);
        else if (opt == OPT_HELP)
            return fputs(usage, stdout), 0;
        if (opt == OPT_MATRIX)
            matrix = optarg;
        else if (opt == 'o')
            out_path = optarg;
        else if (opt == OPT_KERNEL)
            is_kernel = true;
        else if (opt == OPT_NAME)
            name = optarg;
        else if (opt == OPT_RUNS)
            runs = optarg;
        else if (opt == OPT_BASELINE)
            baseline = optarg;
        else if (opt == OPT_REFERENCE)
            reference = optarg;
        else if (opt == OPT_LOAD)
            load = optarg;
        else if (opt == OPT_MEM)
            cli_parse_max_memory_mb("--max-memory-mb", optarg, &max_memory_mb, &err);
        else if (opt == OPT_CLOCK)
            clock = optarg;
        else if (opt == OPT_WRITE_RULE) {
            has_write_rule = true, is_write_rule_start = strcmp(optarg, "start") == 0;
            if (!is_write_rule_start && strcmp(optarg, "overlap") != 0)
                sim_error_set(&err, SIM_ERR_USAGE, "--write-rule takes start or overlap, not '%s'", optarg);
        }
        if (err.status)
            return cli_fail(&err);
    }
    if (baseline || reference) {
        if (!is_kernel || !baseline || !reference || optind != argc || runs || name || matrix || load || clock)
            return sim_error_set(&err, SIM_ERR_USAGE, "--baseline FILE goes with --kernel and --reference KERNEL, and "
                                 "takes no traces, --runs, --name, --latency-matrix, --load or --clock (see sim calibrate --help)"),
                   cli_fail(&err);
        return calibrate_baseline(baseline, reference, out_path, max_memory_mb);
    }
    if ((load || clock) && is_kernel)
        return sim_error_set(&err, SIM_ERR_USAGE, "--load and --clock go with a raw calibration file, not --kernel (see sim "
                             "calibrate --help)"), cli_fail(&err);
    if (is_kernel && (matrix || optind >= argc))
        return sim_error_set(&err, SIM_ERR_USAGE, "sim calibrate --kernel needs one or more traces and takes no "
                             "--latency-matrix (see sim calibrate --help)"), cli_fail(&err);
    if (is_kernel)
        return calibrate_kernel(argv + optind, argc - optind, name, runs, is_write_rule_start, out_path, max_memory_mb);
    if (optind != argc - 1 || name || runs || has_write_rule)
        return sim_error_set(&err, SIM_ERR_USAGE, "sim calibrate needs one raw calibration file (see sim calibrate "
                             "--help)"), cli_fail(&err);
    return calibrate_raw(argv[optind], matrix, load, clock, out_path, max_memory_mb);
}

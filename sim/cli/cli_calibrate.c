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
    "usage: sim calibrate RAW.json [--latency-matrix FILE] [--load RAW.json] [--clock RAW.json] [--steady RAW.json]\n"
    "                     [-o PROFILE.json]\n"
    "       sim calibrate --kernel TRACE... [--runs RUNS.json | --fixed-from KERNEL] [--stages STAGES.json]\n"
    "                     [--name NAME] [--write-rule R] [--grouped-medians] [--cta-gap] [--write-extra-slope]\n"
    "                     [--write-extra-window] [--clock-dip] [--turn-jitter] [--waited-slope]\n"
    "                     [-o KERNEL.json]\n"
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
    "  --steady RAW.json      each method's load curve from this raw file's reduce_steady (every SM reducing\n"
    "                         from a random phase, as in a kernel) where it has the method, scaled to RAW's time\n"
    "                         alone; without it, the burst curve (k reductions started together)\n"
    "  --kernel               fit a kernel profile to the traces given\n"
    "  --runs FILE            the timed runs of the same shapes (gpu/bwd/shapes.py): the fixed costs of a\n"
    "                         launch come from their times (else from the traces' cudaEvent stages)\n"
    "  --fixed-from KERNEL    the fixed costs (the pre- and post-processing kernels and launches that gpu/bwd's\n"
    "                         kernels share) from this kernel profile (name or file) of the same GPU, for\n"
    "                         traces of one size, which cannot separate the base from the rate per MiB\n"
    "  --stages FILE          the fixed stages (memsets, pre- and postprocess, GQA group sums) timed alone at\n"
    "                         many sizes on the traces' GPU (bin/gpu-bwd-stages): each tile gets their tables\n"
    "                         and the fixed costs keep only the launch's rest beyond them (docs/profile.md)\n"
    "  --name NAME            the kernel profile's name (default: the traces' kernel metadata)\n"
    "  --write-rule R         overlap (default): a reduction beside the SM's dK/dV write is slowed whether it\n"
    "                         started inside the write or was running when it began; start: only the first\n"
    "                         (gpu/bwd's Hopper kernel, docs/profile.md)\n"
    "  --grouped-medians      take each median of stamp differences as grouped data on the traces' timer grid\n"
    "                         (the stamps' greatest common divisor: 32 ns on Hopper), interpolated inside its\n"
    "                         step, not the plain median, which lands on the grid (docs/profile.md, \"The\n"
    "                         timer's 32-ns step\": not the default, it predicted the held-out runs worse)\n"
    "  --cta-gap              fit cta_gap_ns: a CTA's last op end to the next CTA's entry on its SM, which the\n"
    "                         engine then adds to the prologue of every CTA that starts on an SM another left\n"
    "                         (docs/profile.md, \"The CTA turnover\": not the default, it predicted the\n"
    "                         held-out runs worse)\n"
    "  --write-extra-slope    with --write-rule start: fit the write extra as write_extra_ns plus\n"
    "                         write_extra_slope_ns per other SM's dK/dV write in flight at the reduction's\n"
    "                         start (docs/profile.md, \"The write extra and the writes in flight\": not the\n"
    "                         default, it predicted the held-out runs worse)\n"
    "  --write-extra-window   with --write-rule start: two write extras, for the reductions that start early in a\n"
    "                         dK/dV write and for those that start late, split at the window that fits best\n"
    "                         (docs/profile.md, \"The write extra by the time into the write\")\n"
    "  --clock-dip            fit the SM clock over a launch from the traces' cycle counts: the settled clock and\n"
    "                         the dip that follows a launch's start, deeper the busier the schedule; predictions\n"
    "                         then scale the compute to each launch's mean clock (docs/profile.md, \"The clock\n"
    "                         dip at launch\")\n"
    "  --turn-jitter          fit the jitter around a reduction's turn from the traces' stamps (the spread of the\n"
    "                         slack from rank to rank); predictions then count a reduction whose turn came within\n"
    "                         it of its staging as waited (docs/profile.md, \"The jitter around a turn\")\n"
    "  --waited-slope         fit how a waited reduction's chain step grows with the reductions in flight at its\n"
    "                         start, from the traces' stamps; predictions then lengthen or shorten a waited\n"
    "                         reduction by it about the traces' mean load (docs/profile.md, \"The waited step\n"
    "                         and the load\")\n"
    "  --sustained FILE       with --clock-dip: the slowdown under sustained load that scripts/fit-sustained.py\n"
    "                         fitted (FILE, \"dashsim-sustained\") for its head dim's tiles: a long busy launch\n"
    "                         timed after others runs slower still (docs/profile.md, \"The clock under\n"
    "                         sustained load\")\n"
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
       OPT_MEM, OPT_WRITE_RULE, OPT_FIXED_FROM, OPT_STEADY, OPT_GROUPED, OPT_CTA_GAP,
       OPT_WRITE_EXTRA_SLOPE, OPT_STAGES, OPT_WRITE_EXTRA_WINDOW, OPT_CLOCK_DIP, OPT_SUSTAINED, OPT_TURN_JITTER,
       OPT_WAITED_SLOPE };
static const struct option long_options[] = {
    { "latency-matrix", required_argument, NULL, OPT_MATRIX }, { "output", required_argument, NULL, 'o' },
    { "kernel", no_argument, NULL, OPT_KERNEL }, { "name", required_argument, NULL, OPT_NAME },
    { "runs", required_argument, NULL, OPT_RUNS }, { "baseline", required_argument, NULL, OPT_BASELINE },
    { "fixed-from", required_argument, NULL, OPT_FIXED_FROM }, { "steady", required_argument, NULL, OPT_STEADY },
    { "reference", required_argument, NULL, OPT_REFERENCE }, { "load", required_argument, NULL, OPT_LOAD },
    { "max-memory-mb", required_argument, NULL, OPT_MEM }, { "grouped-medians", no_argument, NULL, OPT_GROUPED },
    { "clock", required_argument, NULL, OPT_CLOCK }, { "write-rule", required_argument, NULL, OPT_WRITE_RULE },
    { "cta-gap", no_argument, NULL, OPT_CTA_GAP }, { "stages", required_argument, NULL, OPT_STAGES },
    { "write-extra-window", no_argument, NULL, OPT_WRITE_EXTRA_WINDOW }, { "clock-dip", no_argument, NULL, OPT_CLOCK_DIP },
    { "sustained", required_argument, NULL, OPT_SUSTAINED }, { "turn-jitter", no_argument, NULL, OPT_TURN_JITTER },
    { "waited-slope", no_argument, NULL, OPT_WAITED_SLOPE },
    { "write-extra-slope", no_argument, NULL, OPT_WRITE_EXTRA_SLOPE }, { "help", no_argument, NULL, OPT_HELP }, { NULL, 0, NULL, 0 },
};

typedef struct {
    const char *matrix, *out_path, *name, *runs, *baseline, *reference, *load, *clock, *fixed_from, *steady, *stages;
    const char *sustained;
    int64_t max_memory_mb;
    bool is_kernel, is_write_rule_start, has_write_rule, is_grouped, has_cta_gap, has_write_extra_slope, has_write_extra_window;
    bool has_clock_dip, has_turn_jitter, has_waited_slope;
} CalibrateOptions;

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
static void describe_source(KernelProfile *k, Trace **traces, char **paths, int n, const CalibrateOptions *o,
                            int64_t step_ns)
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
    if (o->runs)
        g_string_append_printf(s, "; fixed costs from the timed runs of %s", o->runs);
    if (o->stages)
        g_string_append_printf(s, "; fixed stages timed alone in %s", o->stages);
    if (o->fixed_from)
        g_string_append_printf(s, "; fixed costs from %s (the same GPU's pre- and post-processing and launches)",
                               o->fixed_from);
    for (int i = 0; o->has_clock_dip && i < k->tile_count; i++)
        if (!k->tiles[i].clock.bins)
            g_string_append_printf(s, "; no clock dip at head dim %d (a trace without cycle counts, none busy, or "
                                   "none past 250 us)", k->tiles[i].head_dim);
    if (step_ns) /* --grouped-medians */
        g_string_append_printf(s, "; medians of grouped data on the stamps' %" PRId64 "-ns grid", step_ns);
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

/* --fixed-from: the fixed costs of each head dim from a kernel profile of the same GPU. */
static SimStatus take_fixed(KernelProfile *k, const char *from, SimError *err)
{
    char found[4096];
    KernelProfile *ref = NULL;
    if (cli_find_kernel(from, found, sizeof found, err) != SIM_OK || sim_kernel_read(found, &ref, err) != SIM_OK)
        return err->status;
    if (strcmp(ref->gpu_name, k->gpu_name) != 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /gpu/name: %s is not the traces' GPU (%s): --fixed-from takes a "
                      "profile of the same GPU", found, ref->gpu_name, k->gpu_name);
    for (int i = 0; i < k->tile_count && !err->status; i++) {
        const KernelTile *t = sim_kernel_tile(ref, k->tiles[i].head_dim, (Mask)k->tiles[i].mask);
        if (!t)
            sim_error_set(err, SIM_ERR_INPUT, "%s: no tile of head dim %d for --fixed-from", found, k->tiles[i].head_dim);
        else
            k->tiles[i].fixed = t->fixed, k->tiles[i].fixed_gqa = t->fixed_gqa, k->tiles[i].stages = t->stages,
            k->tiles[i].sums = t->sums;
    }
    sim_kernel_free(ref);
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

/* --sustained FILE: its slowdown into the clock of every tile of its head dim (each must have a clock dip). */
static SimStatus take_sustained(KernelProfile *k, const char *path, SimError *err)
{
    AttnClock fit = { 0 };
    int head_dim = 0, taken = 0;
    char gpu[96];
    if (sim_kernel_sustained_read(path, &head_dim, &fit, gpu, sizeof gpu, err) != SIM_OK)
        return err->status;
    for (int i = 0; i < k->tile_count; i++) {
        if (k->tiles[i].head_dim != head_dim)
            continue;
        if (!k->tiles[i].clock.bins)
            return sim_error_set(err, SIM_ERR_INPUT, "%s: head dim %d has no clock dip to slow (its traces' cycle "
                                 "counts gave none)", path, head_dim);
        k->tiles[i].clock.sustained = fit.sustained, taken++;
    }
    if (!taken)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: head dim %d, which none of the traces has", path, head_dim);
    g_strlcat(k->source, "; the slowdown under sustained load from ", sizeof k->source);
    g_strlcat(k->source, path, sizeof k->source);
    if (gpu[0] && strcmp(gpu, k->gpu_name) != 0) { /* never another GPU's numbers without a word */
        char note[256];
        snprintf(note, sizeof note, ", measured on %s: none measured on %s, another GPU's numbers", gpu, k->gpu_name);
        g_strlcat(k->source, note, sizeof k->source);
    }
    return SIM_OK;
}

static int calibrate_kernel(char **paths, int n, const CalibrateOptions *o)
{
    const char *runs_path = o->runs;
    SimError err = { 0 };
    Trace **traces = g_new0(Trace *, n);
    int64_t *timed_ns = g_new0(int64_t, n);
    KernelProfile *k = NULL;
    load_traces(paths, n, o->max_memory_mb, traces, &err);
    if (!err.status && runs_path)
        match_runs(traces, n, runs_path, timed_ns, &err);
    int64_t step_ns = !err.status && o->is_grouped ? sim_trace_stamp_step(traces, n) : 0;
    KernelStageSweep sweep = { 0 };
    if (!err.status && o->stages)
        sim_kernel_stages_read(o->stages, &sweep, &err);
    KernelFitOptions fit = { .is_write_rule_start = o->is_write_rule_start, .step_ns = step_ns,
                             .has_cta_gap = o->has_cta_gap, .has_write_extra_slope = o->has_write_extra_slope,
                             .has_write_extra_window = o->has_write_extra_window, .has_clock = o->has_clock_dip,
                             .has_turn_jitter = o->has_turn_jitter, .has_waited_slope = o->has_waited_slope,
                             .stages = o->stages ? &sweep : NULL };
    if (!err.status && sim_kernel_fit_traces(traces, runs_path ? timed_ns : NULL, n, &fit, &k, &err) == SIM_OK) {
        g_strlcpy(k->name, o->name ? o->name : k->kernel, sizeof k->name);
        describe_source(k, traces, paths, n, o, step_ns);
        if ((!o->fixed_from || take_fixed(k, o->fixed_from, &err) == SIM_OK) &&
            (!o->sustained || take_sustained(k, o->sustained, &err) == SIM_OK))
            emit(k, write_kernel, o->out_path, &err);
    }
    sim_kernel_stages_clear(&sweep);
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
static int calibrate_raw(const char *raw, const char *matrix, const char *load, const char *clock, const char *steady,
                         const char *out_path, int64_t max_memory_mb)
{
    SimError err = { 0 };
    HwProfile *p = NULL;
    int64_t room = max_memory_mb << 20;
    const char *inputs[] = { raw, load, clock, steady };
    for (int i = 0; i < 4 && !err.status; i++)
        if (inputs[i])
            cli_check_read_memory(inputs[i], SIM_PROFILE_RAW_PARSE_FACTOR, room, max_memory_mb, &err);
    if (!err.status && sim_profile_from_raw(raw, matrix, room, &p, &err) == SIM_OK &&
        (!load || sim_profile_fit_load(p, load, room, &err) == SIM_OK) &&
        (!clock || sim_profile_fit_clock_rule(p, clock, room, &err) == SIM_OK) &&
        (!steady || sim_profile_fit_steady_curve(p, steady, room, &err) == SIM_OK))
        emit(p, write_hw, out_path, &err);
    for (int i = 0; i < 4 && room / SIM_PROFILE_RAW_PARSE_FACTOR < SIM_PROFILE_RAW_MAX_BYTES; i++)
        if (inputs[i]) /* the cap, not the reader's ceiling, and not the latency matrix's */
            cli_name_memory_cap(&err, inputs[i], SIM_PROFILE_RAW_PARSE_FACTOR, max_memory_mb);
    sim_profile_free(p);
    return err.status ? cli_fail(&err) : 0;
}

static void take_option(int opt, CalibrateOptions *o, SimError *err)
{
    switch (opt) {
    case OPT_MATRIX: o->matrix = optarg; break;
    case 'o': o->out_path = optarg; break;
    case OPT_KERNEL: o->is_kernel = true; break;
    case OPT_NAME: o->name = optarg; break;
    case OPT_RUNS: o->runs = optarg; break;
    case OPT_BASELINE: o->baseline = optarg; break;
    case OPT_REFERENCE: o->reference = optarg; break;
    case OPT_LOAD: o->load = optarg; break;
    case OPT_CLOCK: o->clock = optarg; break;
    case OPT_FIXED_FROM: o->fixed_from = optarg; break;
    case OPT_STEADY: o->steady = optarg; break;
    case OPT_STAGES: o->stages = optarg; break;
    case OPT_GROUPED: o->is_grouped = true; break;
    case OPT_CTA_GAP: o->has_cta_gap = true; break;
    case OPT_WRITE_EXTRA_SLOPE: o->has_write_extra_slope = true; break;
    case OPT_WRITE_EXTRA_WINDOW: o->has_write_extra_window = true; break;
    case OPT_CLOCK_DIP: o->has_clock_dip = true; break;
    case OPT_SUSTAINED: o->sustained = optarg; break;
    case OPT_TURN_JITTER: o->has_turn_jitter = true; break;
    case OPT_WAITED_SLOPE: o->has_waited_slope = true; break;
    case OPT_MEM: cli_parse_max_memory_mb("--max-memory-mb", optarg, &o->max_memory_mb, err); break;
    case OPT_WRITE_RULE:
        o->has_write_rule = true, o->is_write_rule_start = strcmp(optarg, "start") == 0;
        if (!o->is_write_rule_start && strcmp(optarg, "overlap") != 0)
            sim_error_set(err, SIM_ERR_USAGE, "--write-rule takes start or overlap, not '%s'", optarg);
        break;
    default: break;
    }
}

/* The options' combinations: one sentence for a wrong one, else the form they select. */
static int run_form(const CalibrateOptions *o, int n, char **args)
{
    SimError err = { 0 };
    if ((o->is_grouped || o->has_cta_gap) && (!o->is_kernel || o->baseline))
        return sim_error_set(&err, SIM_ERR_USAGE, "%s goes with --kernel and traces (see sim calibrate --help)",
                             o->is_grouped ? "--grouped-medians" : "--cta-gap"), cli_fail(&err);
    if (o->has_write_extra_window && (!o->is_kernel || o->baseline || !o->is_write_rule_start))
        return sim_error_set(&err, SIM_ERR_USAGE, "--write-extra-window goes with --kernel, traces and --write-rule start "
                             "(see sim calibrate --help)"), cli_fail(&err);
    if (o->has_clock_dip && (!o->is_kernel || o->baseline))
        return sim_error_set(&err, SIM_ERR_USAGE, "--clock-dip goes with --kernel and traces (see sim calibrate --help)"),
               cli_fail(&err);
    if (o->has_turn_jitter && (!o->is_kernel || o->baseline))
        return sim_error_set(&err, SIM_ERR_USAGE, "--turn-jitter goes with --kernel and traces (see sim calibrate --help)"),
               cli_fail(&err);
    if (o->has_waited_slope && (!o->is_kernel || o->baseline))
        return sim_error_set(&err, SIM_ERR_USAGE, "--waited-slope goes with --kernel and traces (see sim calibrate --help)"),
               cli_fail(&err);
    if (o->sustained && !o->has_clock_dip)
        return sim_error_set(&err, SIM_ERR_USAGE, "--sustained goes with --clock-dip (see sim calibrate --help)"),
               cli_fail(&err);
    if (o->has_write_extra_slope && (!o->is_kernel || o->baseline || !o->is_write_rule_start))
        return sim_error_set(&err, SIM_ERR_USAGE, "--write-extra-slope goes with --kernel, traces and --write-rule start "
                             "(see sim calibrate --help)"), cli_fail(&err);
    if (o->baseline || o->reference) {
        if (!o->is_kernel || !o->baseline || !o->reference || n || o->runs || o->name || o->matrix || o->load ||
            o->clock || o->fixed_from || o->steady || o->stages)
            return sim_error_set(&err, SIM_ERR_USAGE, "--baseline FILE goes with --kernel and --reference KERNEL, and "
                                 "takes no traces, --runs, --fixed-from, --stages, --name, --latency-matrix, --load, --clock or --steady "
                                 "(see sim calibrate --help)"), cli_fail(&err);
        return calibrate_baseline(o->baseline, o->reference, o->out_path, o->max_memory_mb);
    }
    if ((o->load || o->clock || o->steady) && o->is_kernel)
        return sim_error_set(&err, SIM_ERR_USAGE, "--load, --clock and --steady go with a raw calibration file, not --kernel (see sim "
                             "calibrate --help)"), cli_fail(&err);
    if (o->is_kernel && (o->matrix || n == 0))
        return sim_error_set(&err, SIM_ERR_USAGE, "sim calibrate --kernel needs one or more traces and takes no "
                             "--latency-matrix (see sim calibrate --help)"), cli_fail(&err);
    if (o->runs && o->fixed_from)
        return sim_error_set(&err, SIM_ERR_USAGE, "--runs and --fixed-from both give the fixed costs: give one"),
               cli_fail(&err);
    if (o->stages && (!o->is_kernel || o->fixed_from))
        return sim_error_set(&err, SIM_ERR_USAGE, "--stages goes with --kernel and traces, not --fixed-from (see sim "
                             "calibrate --help)"), cli_fail(&err);
    if (o->is_kernel)
        return calibrate_kernel(args, n, o);
    if (n != 1 || o->name || o->runs || o->has_write_rule || o->fixed_from)
        return sim_error_set(&err, SIM_ERR_USAGE, "sim calibrate needs one raw calibration file (see sim calibrate "
                             "--help)"), cli_fail(&err);
    return calibrate_raw(args[0], o->matrix, o->load, o->clock, o->steady, o->out_path, o->max_memory_mb);
}

int sim_cmd_calibrate(int argc, char **argv)
{
    CalibrateOptions o = { .max_memory_mb = CLI_MAX_MEMORY_MB_DEFAULT };
    SimError err = { 0 };
    int opt;
    cli_begin_options();
    while ((opt = getopt_long(argc, argv, "o:", long_options, NULL)) != -1) {
        if (opt == '?')
            sim_error_set(&err, SIM_ERR_USAGE, "unknown option or missing value: %s (see sim calibrate --help)",
                          argv[optind - 1]);
        else if (opt == OPT_HELP)
            return fputs(usage, stdout), 0;
        else
            take_option(opt, &o, &err);
        if (err.status)
            return cli_fail(&err);
    }
    return run_form(&o, argc - optind, argv + optind);
}

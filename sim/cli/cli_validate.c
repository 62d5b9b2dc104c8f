/* `sim validate TRACE|DIR... [--json] [--tolerance X] [--speedup-tolerance PP] [--latency-matrix FILE]
 * [--baseline FILE]`: the model's error on measured kernel traces. Exit 1 when an error is beyond the
 * tolerance, or (with --baseline) worse than the committed baseline: a regression. */
#include <getopt.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "validate_run.h"

typedef struct {
    bool is_json, has_tolerance, is_predict;
    bool is_profile_default;    /* --predict without --profile: each trace's GPU's installed profile */
    int64_t max_memory_mb;   /* every trace held at once, and each plan read, within this */
    int64_t jobs;            /* traces checked at once (threads); the output does not depend on it */
    double tolerance, speedup_tolerance_pp;
    const char *matrix_path, *baseline_path, *profile_path, *kernel_path;
    char **paths;            /* trace and runs files, sorted (sim/run/validate_run.h) */
    int path_count;
    char installed_profile[4096]; /* where the hardware profile was found */
    char installed_kernel[4096];  /* where the kernel profile was found */
} ValidateOptions;

static const char usage[] =
    "usage: sim validate TRACE|DIR... [options]\n"
    "Compares each measured trace with the model and reports the makespan error, the start-time error, the\n"
    "speedup error over fa3 on the same shape, and Kendall's tau of the policy ranking per shape (counting\n"
    "the pairs whose measured gap exceeds the noise floor of repeated runs). Two ways to get the model:\n"
    "fitted (default): parameters from the trace's own phase medians and the latency matrix: a fit, not a\n"
    "prediction; --predict: from the hardware profile alone (docs/profile.md), no per-trace fit.\n"
    "  --predict                check the profile's prediction (tolerance default 0.05); implies --profile\n"
    "                           configs/profiles/h100-sxm.json unless --profile is given\n"
    "  --profile FILE           also predict every trace from this hardware profile\n"
    "  --kernel FILE            predict real kernels' traces (gpu/bwd) from this kernel profile\n"
    "  --json                   one JSON object\n"
    "  --tolerance X            largest |makespan error| allowed, a fraction (default 0.03; --predict 0.05)\n"
    "  --speedup-tolerance PP   largest |speedup error| allowed, percentage points (default 2)\n"
    "  --latency-matrix FILE    per-SM-pair signal latency (gpu-calib output); its median is the model's\n"
    "  --baseline FILE          compare with an earlier --json output instead: exit 1 on any regression\n"
    "  --max-memory-mb MB       refuse traces that would need more in all (default 4096; at most this\n"
    "                           machine's memory)\n"
    "  --jobs N                 check N traces at once (threads; default: the processors, at most 8); the\n"
    "                           output is the same for any N\n"
    "Exit status: 0 within tolerance, 1 beyond it (or a regression), 2 bad usage or input.\n";

/* The hardware and kernel profiles named, found from any directory; --predict alone takes the installed default
 * hardware profile (and, in sim_validate_run, each trace's own GPU's beside it). */
static SimStatus find_profiles(ValidateOptions *o, SimError *err)
{
    o->is_profile_default = o->is_predict && !o->profile_path;
    if ((o->is_profile_default || o->profile_path) &&
        cli_find_profile(o->profile_path, o->installed_profile, sizeof o->installed_profile, err) != SIM_OK)
        return err->status;
    if (o->is_profile_default || o->profile_path)
        o->profile_path = o->installed_profile;
    if (o->kernel_path && cli_find_kernel(o->kernel_path, o->installed_kernel, sizeof o->installed_kernel, err) != SIM_OK)
        return err->status;
    if (o->kernel_path)
        o->kernel_path = o->installed_kernel;
    return SIM_OK;
}

static int parse_args(ValidateOptions *o, int argc, char **argv, SimError *err)
{
    static const struct option opts[] = {
        { "json", no_argument, NULL, 'j' }, { "tolerance", required_argument, NULL, 't' },
        { "speedup-tolerance", required_argument, NULL, 's' }, { "latency-matrix", required_argument, NULL, 'l' },
        { "baseline", required_argument, NULL, 'b' }, { "help", no_argument, NULL, 'h' },
        { "profile", required_argument, NULL, 'p' }, { "predict", no_argument, NULL, 'P' },
        { "max-memory-mb", required_argument, NULL, 'm' }, { "kernel", required_argument, NULL, 'k' },
        { "jobs", required_argument, NULL, 'J' },
        { NULL, 0, NULL, 0 },
    };
    *o = (ValidateOptions){ .max_memory_mb = CLI_MAX_MEMORY_MB_DEFAULT, .jobs = MIN(8, (int64_t)g_get_num_processors()), .tolerance = 0.03, .speedup_tolerance_pp = 2.0 };
    opterr = 0, optind = 1;
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *end = NULL;
        double *target = opt == 't' ? &o->tolerance : &o->speedup_tolerance_pp;
        if (opt == 'h')
            return fputs(usage, stdout), 0;
        if (opt == 'j')
            o->is_json = true;
        else if (opt == 'l')
            o->matrix_path = optarg;
        else if (opt == 'b')
            o->baseline_path = optarg;
        else if (opt == 'p')
            o->profile_path = optarg;
        else if (opt == 'P')
            o->is_predict = true;
        else if (opt == 'k')
            o->kernel_path = optarg;
        else if (opt == 'm')
            cli_parse_max_memory_mb("--max-memory-mb", optarg, &o->max_memory_mb, err);
        else if (opt == 'J')
            cli_parse_int64("--jobs", optarg, 1, 256, &o->jobs, err);
        else if (opt == 't' || opt == 's') {
            *target = g_ascii_strtod(optarg, &end);
            o->has_tolerance |= opt == 't';
            if (*end || end == optarg || !(*target >= 0))
                sim_error_set(err, SIM_ERR_USAGE, "%s expects a non-negative number, got '%s'",
                              opt == 't' ? "--tolerance" : "--speedup-tolerance", optarg);
        } else
            sim_error_set(err, SIM_ERR_USAGE, "unknown option or missing value: %s (see sim validate --help)", argv[optind - 1]);
        if (err->status)
            return cli_fail(err);
    }
    if (optind == argc)
        return sim_error_set(err, SIM_ERR_USAGE, "sim validate needs a trace file or directory (see --help)"), cli_fail(err);
    if (find_profiles(o, err) != SIM_OK)
        return cli_fail(err);
    if (o->is_predict && !o->has_tolerance)
        o->tolerance = 0.05;
    sim_validate_find((const char *const *)argv + optind, argc - optind, &o->paths, &o->path_count, err);
    return err->status ? cli_fail(err) : -1;
}

static void print_model_line(const ValidateReport *r, int m, const char *label, double tolerance)
{
    printf("%-8s %s:", sim_validate_model_names[m], label);
    for (int k = 0; k < VMODE_COUNT; k++) {
        const ErrorStats *st = &r->makespan[m][k];
        printf("  %s %d traces, median |error| %.2f%%, max %.2f%%, %d within %.2f%%;", sim_validate_mode_names[k], st->n,
               100 * st->median_abs, 100 * st->max_abs, st->within, 100 * tolerance);
    }
    printf("\n");
}

/* The prediction's source: the hardware profile for the executor's traces, each real kernel's own kernel
 * profile for its traces. */
static void print_summary(const ValidateReport *r, const ValidateOptions *o, const ValidateOutcome *v)
{
    const char *profile_path = o->profile_path;
    Trace **traces = v->traces;
    int count = v->count;
    char *used = v->profiles_used && v->profiles_used[0] ? g_strjoinv(", ", v->profiles_used) : NULL;
    if (used) /* the profiles that predicted executor traces: with several GPUs' traces, each GPU's own */
        profile_path = used;
    char floor[96];
    if (r->repeat_sets > 0)
        snprintf(floor, sizeof floor, "the noise floor %.2f%% of %d repeat sets", 100 * r->noise_floor, r->repeat_sets);
    else
        snprintf(floor, sizeof floor, "zero: no repeated runs to measure a noise floor on");
    print_model_line(r, VMODEL_PLACED, "fitted to each trace", o->tolerance);
    print_model_line(r, VMODEL_UNIFORM, "fitted to each trace", o->tolerance);
    print_model_line(r, VMODEL_PAPER, "fitted to each trace", o->tolerance);
    if (profile_path) {
        char label[400];
        int real = 0;
        for (int i = 0; i < count; i++)
            real += traces[i]->kernel.name[0] != 0;
        if (real == 0)
            snprintf(label, sizeof label, "from %s alone", profile_path);
        else if (real == count)
            snprintf(label, sizeof label, "from each kernel's kernel profile alone");
        else
            snprintf(label, sizeof label, "from %s (executor traces) and each kernel's kernel profile (%d real "
                     "kernels' traces) alone", profile_path, real);
        print_model_line(r, VMODEL_PROFILE, label, o->tolerance);
    }
    const ErrorStats *sp = &r->speedup_pp[0], *psp = &r->speedup_pp[1];
    printf("speedup over fa3: %d pairs, median |error| %.2f pp, max %.2f pp, %d within %.2f pp; ranking (pairs whose "
           "measured gap exceeds %s): tau 1 in %d of %d shapes, mean %.2f; "
           "start MAPE median %.2f%%\n", sp->n, sp->median_abs, sp->max_abs, sp->within, o->speedup_tolerance_pp, floor,
           r->tau_one[0], r->group_count, r->mean_tau[0], 100 * r->start_mape[0].median_abs);
    if (profile_path)
        printf("predicted: speedup over fa3: %d pairs, median |error| %.2f pp, max %.2f pp, %d within %.2f pp; ranking: tau 1 "
               "in %d shapes, mean %.2f; start MAPE median %.2f%%\n", psp->n, psp->median_abs, psp->max_abs,
               psp->within, o->speedup_tolerance_pp, r->tau_one[1], r->mean_tau[1], 100 * r->start_mape[1].median_abs);
    for (int b = 0; b < r->handoff_bucket_count; b++) {
        const HandoffBucket *h = &r->handoffs[b];
        char range[32];
        snprintf(range, sizeof range, h->in_flight_max < 0 ? "%d+" : "%d-%d", h->in_flight_min, h->in_flight_max);
        printf("hand-off with %7s reductions in flight: %6d samples, median %4" G_GINT64_FORMAT " ns (p10 %4"
               G_GINT64_FORMAT ", p90 %4" G_GINT64_FORMAT ")\n", range, h->n, h->median_ns, h->p10_ns, h->p90_ns);
    }
    g_free(used);
}

static void print_table(Trace **traces, const TraceCheck *checks, int count, const ValidateReport *r)
{
    printf("%-44s %-16s %12s %12s %8s %8s %8s %7s %8s %9s\n", "trace", "policy", "measured_ns", "fitted_ns",
           "error", "uniform", "paper", "start", "speedup", "predicted");
    for (int i = 0; i < count; i++) {
        const TraceCheck *c = &checks[i];
        char speed[32] = "-", prof[32] = "-";
        if (c->has_speedup)
            snprintf(speed, sizeof speed, "%+.1fpp", c->speedup_error_pp);
        if (c->has_profile)
            snprintf(prof, sizeof prof, "%+.2f%%", 100 * c->profile_makespan_error);
        printf("%-44s %-16s %12" G_GINT64_FORMAT " %12" G_GINT64_FORMAT " %+7.2f%% %+7.1f%% %+7.1f%% %6.1f%% %8s "
               "%9s\n", traces[i]->path, traces[i]->policy, c->measured_ns, c->predicted_ns, 100 * c->makespan_error,
               100 * c->uniform_makespan_error, 100 * c->paper_makespan_error, 100 * c->start_mape, speed, prof);
    }
    for (int i = 0; i < r->group_count; i++)
        printf("ranking %-60s tau %+.2f over %d policies (%d of %d pairs above the noise floor)\n",
               r->groups[i].group, r->groups[i].tau[0], r->groups[i].policies, r->groups[i].pairs_counted,
               r->groups[i].pairs);
}

/* A runs file's timed runs, one line each, and its summary line (a file that failed its check prints nothing). */
static void print_runs_file(const ValidateOptions *o, const ValidateRunsFile *f)
{
    const RunsReport *rep = &f->rep;
    for (int i = 0; f->is_checked && i < f->runs->count; i++) {
        const KernelRun *r = &f->runs->runs[i];
        const RunCheck *c = &f->checks[i];
        char pred[24] = "-", error[16] = "-", speed[16] = "-";
        if (c->has_prediction)
            snprintf(pred, sizeof pred, "%" G_GINT64_FORMAT, c->predicted_ns),
                snprintf(error, sizeof error, "%+.2f%%", 100 * c->error);
        if (c->has_speedup)
            snprintf(speed, sizeof speed, "%+.1fpp", c->speedup_error_pp);
        printf("%-7s s%-6d b%-2d h%-3d kv%-3d d%-4d %-16s %-13s %12" G_GINT64_FORMAT " %12s %8s %9s\n",
               r->mask == MASK_CAUSAL ? "causal" : "full", r->seqlen, r->batch, r->heads, r->kv_heads, r->head_dim,
               r->policy, r->is_atomic ? "atomic" : "deterministic", r->time_ns, pred, error, speed);
    }
    if (f->is_checked && rep->predicted == 0)
        printf("%s: %d timed deterministic runs, none predicted: timed runs are checked against a kernel profile "
               "(give --predict for the installed ones, or --kernel FILE)\n", f->path, rep->runs);
    else if (f->is_checked)
        printf("%s: %d timed deterministic runs, %d predicted from %s; |time error| median %.2f%%, max %.2f%%, %d "
               "within %.0f%%; speedup over fa3: %d, |error| median %.2f pp, max %.2f pp; best schedule picked right "
               "in %d of %d shapes where the measured gap exceeds 2%%%s\n", f->path, rep->runs, rep->predicted,
               o->kernel_path ? o->kernel_path : "the installed kernel profiles", 100 * rep->time.median_abs,
               100 * rep->time.max_abs, rep->time.within, 100 * o->tolerance, rep->speedup_pp.n,
               rep->speedup_pp.median_abs, rep->speedup_pp.max_abs, rep->picked_right, rep->decisive,
               f->is_pass ? ", within tolerance" : ", BEYOND TOLERANCE (or not predicted)");
}

/* The traces' table, the summary by model and the verdict line. */
static void print_text(const ValidateOptions *o, const ValidateOutcome *v)
{
    const ValidateVerdict *w = &v->verdict;
    print_table(v->traces, v->checks, v->count, &v->report);
    print_summary(&v->report, o, v);
    char miss[64] = "";
    if (w->missed)
        snprintf(miss, sizeof miss, ", %d not predicted (misses)", w->missed);
    printf("%d traces, %s model: max |makespan error| %.2f%%, max |speedup error| %.2f pp%s%s%s\n", v->count,
           o->is_predict ? "predicted" : "fitted", 100 * w->worst, w->worst_speedup_pp, miss,
           v->is_checked ? (v->is_within ? ", within tolerance" : ", BEYOND TOLERANCE") : "",
           o->baseline_path ? (v->regressions ? ", REGRESSED against the baseline" : ", no regression") : "");
}

/* The shared progress line (cli.h), on a terminal: the traces read so far (each is checked as soon as read). */
static void show_progress(void *ctx, int done, int total)
{
    cli_progress_update(ctx, done, total, NULL);
}

int sim_cmd_validate(int argc, char **argv)
{
    ValidateOptions o;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    if (rc >= 0) {
        g_strfreev(o.paths);
        return rc;
    }
    ValidateSettings s = { .is_predict = o.is_predict, .has_tolerance = o.has_tolerance, .want_phases = o.is_json,
                           .max_memory_mb = o.max_memory_mb, .jobs = o.jobs, .tolerance = o.tolerance,
                           .speedup_tolerance_pp = o.speedup_tolerance_pp, .matrix_path = o.matrix_path,
                           .baseline_path = o.baseline_path, .profile_path = o.profile_path, .kernel_path = o.kernel_path,
                           .is_profile_default = o.is_profile_default };
    ValidateOutcome out;
    CliProgress progress;
    cli_progress_begin(&progress, "validate", "traces");
    sim_validate_run(&s, o.paths, o.path_count, &out, show_progress, &progress, &err);
    cli_progress_end(&progress);
    for (int i = 0; i < out.note_count; i++)
        fprintf(stderr, "sim: %s\n", out.notes[i]);
    for (int i = 0; !o.is_json && i < out.file_count; i++)
        print_runs_file(&o, &out.files[i]);
    if (err.status)
        rc = cli_fail(&err);
    else if (o.is_json)
        sim_validate_outcome_write_json(stdout, &out);
    else if (out.count > 0)
        print_text(&o, &out);
    rc = err.status ? rc : out.exit_code;
    sim_validate_outcome_clear(&out);
    g_strfreev(o.paths);
    return rc;
}

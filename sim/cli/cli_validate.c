/* `sim validate TRACE|DIR... [--json] [--tolerance X] [--speedup-tolerance PP] [--latency-matrix FILE]
 * [--baseline FILE]`: the model's error on measured kernel traces. Exit 1 when an error is beyond the
 * tolerance, or (with --baseline) worse than the committed baseline: a regression. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "trace_view.h"
#include "json_file.h"
#include "datadir.h"
#include "kernel_io.h"
#include "kernel_runs_io.h"
#include "validate_runs.h"
#include "latency_matrix.h"
#include "plan_io.h"
#include "profile_io.h"
#include "trace_in.h"
#include "validate_report.h"

typedef struct {
    bool is_json, has_tolerance, is_predict;
    int64_t max_memory_mb;   /* every trace held at once, and each plan read, within this */
    int64_t jobs;            /* traces checked at once (threads); the output does not depend on it */
    double tolerance, speedup_tolerance_pp;
    const char *matrix_path, *baseline_path, *profile_path, *kernel_path;
    GPtrArray *paths;   /* trace files, sorted */
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

static int cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds path, or every *.json and *.json.gz below it except calibration files. */
static SimStatus add_path(GPtrArray *paths, const char *path, SimError *err)
{
    if (!g_file_test(path, G_FILE_TEST_IS_DIR)) {
        if (strcmp(path, "-") != 0 && !g_file_test(path, G_FILE_TEST_EXISTS)) /* "-": standard input */
            return sim_error_set(err, SIM_ERR_IO, "cannot read %s: no such file or directory", path);
        g_ptr_array_add(paths, g_strdup(path));
        return SIM_OK;
    }
    GDir *dir = g_dir_open(path, 0, NULL);
    if (!dir)
        return sim_error_set(err, SIM_ERR_IO, "cannot read directory %s", path);
    const char *name;
    while ((name = g_dir_read_name(dir)) && !err->status) {
        char *full = g_build_filename(path, name, NULL);
        if (g_file_test(full, G_FILE_TEST_IS_DIR))
            add_path(paths, full, err);
        else if ((g_str_has_suffix(name, ".json") || g_str_has_suffix(name, ".json.gz")) &&
                 !g_str_has_prefix(name, "calib-"))
            g_ptr_array_add(paths, g_strdup(full));
        g_free(full);
    }
    g_dir_close(dir);
    return err->status;
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
    *o = (ValidateOptions){ .max_memory_mb = CLI_MAX_MEMORY_MB_DEFAULT, .jobs = MIN(8, (int64_t)g_get_num_processors()), .tolerance = 0.03, .speedup_tolerance_pp = 2.0, .paths = g_ptr_array_new_with_free_func(g_free) };
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
    if ((o->is_predict && !o->profile_path) || o->profile_path) { /* found from any directory */
        if (cli_find_profile(o->profile_path, o->installed_profile, sizeof o->installed_profile, err) != SIM_OK)
            return cli_fail(err);
        o->profile_path = o->installed_profile;
    }
    if (o->kernel_path) {
        if (cli_find_kernel(o->kernel_path, o->installed_kernel, sizeof o->installed_kernel, err) != SIM_OK)
            return cli_fail(err);
        o->kernel_path = o->installed_kernel;
    }
    if (o->is_predict && !o->has_tolerance)
        o->tolerance = 0.05;
    for (int i = optind; i < argc && !err->status; i++)
        add_path(o->paths, argv[i], err);
    if (!err->status && o->paths->len == 0)
        sim_error_set(err, SIM_ERR_INPUT, "no trace files (*.json) under %s", argv[optind]);
    g_ptr_array_sort(o->paths, cmp_str);
    return err->status ? cli_fail(err) : -1;
}

static cJSON *check_json(const Trace *t, const TraceCheck *c)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "trace", t->path);
    cJSON_AddStringToObject(j, "policy", t->policy);
    cJSON_AddStringToObject(j, "group", t->group);
    cJSON_AddNumberToObject(j, "measured_ns", (double)c->measured_ns);
    cJSON_AddNumberToObject(j, "fitted_ns", (double)c->predicted_ns);
    cJSON_AddNumberToObject(j, "uniform_model_ns", (double)c->uniform_ns);
    cJSON_AddNumberToObject(j, "paper_model_ns", (double)c->paper_ns);
    cJSON_AddNumberToObject(j, "makespan_error", c->makespan_error);
    cJSON_AddNumberToObject(j, "uniform_makespan_error", c->uniform_makespan_error);
    cJSON_AddNumberToObject(j, "paper_makespan_error", c->paper_makespan_error);
    cJSON_AddNumberToObject(j, "start_mape", c->start_mape);
    if (c->has_speedup) {
        cJSON_AddNumberToObject(j, "speedup_measured", c->speedup_measured);
        cJSON_AddNumberToObject(j, "speedup_predicted", c->speedup_predicted);
        cJSON_AddNumberToObject(j, "speedup_error_pp", c->speedup_error_pp);
    }
    if (c->has_profile) {
        cJSON *p = cJSON_AddObjectToObject(j, "predicted");
        cJSON_AddNumberToObject(p, "predicted_ns", (double)c->profile_ns);
        cJSON_AddNumberToObject(p, "makespan_error", c->profile_makespan_error);
        cJSON_AddNumberToObject(p, "start_mape", c->profile_start_mape);
        if (c->profile_phases.is_set) { /* the model's timeline beside the trace's (fitted.phase_medians_ns) */
            cJSON *ph = cJSON_AddObjectToObject(p, "phase_medians_ns");
            cJSON_AddNumberToObject(ph, "compute", (double)c->profile_phases.compute_ns);
            cJSON_AddNumberToObject(ph, "deposit", (double)c->profile_phases.deposit_ns);
            cJSON_AddNumberToObject(ph, "reduce", (double)c->profile_phases.reduce_ns);
            cJSON_AddNumberToObject(p, "reductions_in_flight", (double)c->profile_phases.in_flight);
            cJSON_AddNumberToObject(p, "measured_reductions_in_flight", (double)c->measured_in_flight);
        }
        if (c->has_profile_speedup) {
            cJSON_AddNumberToObject(p, "speedup_predicted", c->profile_speedup_predicted);
            cJSON_AddNumberToObject(p, "speedup_error_pp", c->profile_speedup_error_pp);
        }
    } else if (c->profile_skip[0])
        cJSON_AddStringToObject(j, "not_predicted", c->profile_skip);
    cJSON *fit = cJSON_AddObjectToObject(j, "fitted");
    cJSON_AddNumberToObject(fit, "c_ns", (double)c->fit.c_ns);
    cJSON_AddNumberToObject(fit, "r_ns", (double)c->fit.r_ns);
    cJSON_AddNumberToObject(fit, "latency_ns", (double)c->fit.latency_ns);
    cJSON_AddNumberToObject(fit, "prologue_ns", (double)c->fit.prologue_ns);
    cJSON *ph = cJSON_AddObjectToObject(fit, "phase_medians_ns");
    cJSON_AddNumberToObject(ph, "compute", (double)c->fit.compute_ns);
    cJSON_AddNumberToObject(ph, "stage", (double)c->fit.stage_ns);
    cJSON_AddNumberToObject(ph, "acquire", (double)c->fit.acquire_ns);
    cJSON_AddNumberToObject(ph, "add", (double)c->fit.add_ns);
    cJSON_AddNumberToObject(ph, "gap", (double)c->fit.gap_ns);
    cJSON_AddNumberToObject(ph, "handoff", (double)c->fit.handoff_ns);
    cJSON_AddNumberToObject(ph, "matrix_median", (double)c->fit.matrix_median_ns);
    cJSON_AddStringToObject(fit, "handoff_source", c->fit.is_handoff_from_trace ? "trace hand-offs" : "latency matrix");
    return j;
}

static cJSON *stats_json(const ErrorStats *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", st->n);
    cJSON_AddNumberToObject(o, "median_abs", st->median_abs);
    cJSON_AddNumberToObject(o, "max_abs", st->max_abs);
    cJSON_AddNumberToObject(o, "within_tolerance", st->within);
    return o;
}

static const char *const model_names[VMODEL_COUNT] = { "placed", "uniform", "paper", "predicted" };
static const char *const mode_names[VMODE_COUNT] = { "serial", "async", "all" };

/* The report as JSON: "groups" (rankings), "summary" (errors by model and mode), "handoff_by_load". */
static void add_report_json(cJSON *out, const ValidateReport *r)
{
    cJSON *groups = cJSON_AddArrayToObject(out, "groups");
    for (int i = 0; i < r->group_count; i++) {
        const GroupRank *g = &r->groups[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "group", g->group);
        cJSON_AddNumberToObject(o, "policies", g->policies);
        cJSON_AddNumberToObject(o, "pairs", g->pairs);
        cJSON_AddNumberToObject(o, "pairs_above_noise", g->pairs_counted);
        cJSON_AddNumberToObject(o, "kendall_tau", g->tau[0]);
        if (g->has_profile)
            cJSON_AddNumberToObject(o, "predicted_kendall_tau", g->tau[1]);
        cJSON_AddItemToArray(groups, o);
    }
    cJSON *sum = cJSON_AddObjectToObject(out, "summary");
    for (int m = 0; m < VMODEL_COUNT; m++) {
        cJSON *model = cJSON_AddObjectToObject(sum, model_names[m]);
        for (int k = 0; k < VMODE_COUNT; k++)
            cJSON_AddItemToObject(model, mode_names[k], stats_json(&r->makespan[m][k]));
    }
    cJSON_AddItemToObject(sum, "speedup_error_pp", stats_json(&r->speedup_pp[0]));
    cJSON_AddItemToObject(sum, "predicted_speedup_error_pp", stats_json(&r->speedup_pp[1]));
    cJSON_AddItemToObject(sum, "start_mape", stats_json(&r->start_mape[0]));
    cJSON_AddItemToObject(sum, "predicted_start_mape", stats_json(&r->start_mape[1]));
    cJSON *rank = cJSON_AddObjectToObject(sum, "ranking");
    cJSON_AddNumberToObject(rank, "shapes", r->group_count);
    cJSON_AddNumberToObject(rank, "noise_floor", r->noise_floor);
    cJSON_AddNumberToObject(rank, "repeat_sets", r->repeat_sets);
    cJSON_AddNumberToObject(rank, "tau_one", r->tau_one[0]);
    cJSON_AddNumberToObject(rank, "mean_tau", r->mean_tau[0]);
    cJSON_AddNumberToObject(rank, "predicted_tau_one", r->tau_one[1]);
    cJSON_AddNumberToObject(rank, "predicted_mean_tau", r->mean_tau[1]);
    cJSON *list = cJSON_AddArrayToObject(out, "handoff_by_load");
    for (int b = 0; b < r->handoff_bucket_count; b++) {
        const HandoffBucket *h = &r->handoffs[b];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "in_flight_min", h->in_flight_min);
        cJSON_AddNumberToObject(o, "in_flight_max", h->in_flight_max);
        cJSON_AddNumberToObject(o, "n", h->n);
        cJSON_AddNumberToObject(o, "median_ns", (double)h->median_ns);
        cJSON_AddNumberToObject(o, "p10_ns", (double)h->p10_ns);
        cJSON_AddNumberToObject(o, "p90_ns", (double)h->p90_ns);
        cJSON_AddItemToArray(list, o);
    }
}

static void print_model_line(const ValidateReport *r, int m, const char *label, double tolerance)
{
    printf("%-8s %s:", model_names[m], label);
    for (int k = 0; k < VMODE_COUNT; k++) {
        const ErrorStats *st = &r->makespan[m][k];
        printf("  %s %d traces, median |error| %.2f%%, max %.2f%%, %d within %.2f%%;", mode_names[k], st->n,
               100 * st->median_abs, 100 * st->max_abs, st->within, 100 * tolerance);
    }
    printf("\n");
}

/* The prediction's source: the hardware profile for the executor's traces, each real kernel's own kernel
 * profile for its traces. */
static void print_summary(const ValidateReport *r, const ValidateOptions *o, Trace **traces, int count)
{
    const char *profile_path = o->profile_path;
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

/* An entry's regression: |error| beyond the baseline's by 0.5 points of makespan or 0.5 pp of speedup. */
static bool is_worse(double now, const cJSON *base, double slack)
{
    return cJSON_IsNumber(base) && fabs(now) > fabs(base->valuedouble) + slack;
}

/* Whether base has the shape of sim validate --json's output: anything else (`[]`, `{}`, "hello") would
 * compare with nothing and report "no regression". */
static bool is_report(const cJSON *base)
{
    const cJSON *traces = cJSON_GetObjectItemCaseSensitive(base, "traces"), *entry;
    if (!cJSON_IsObject(base) || !cJSON_IsArray(traces) || cJSON_GetArraySize(traces) == 0 ||
        !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(base, "pass")))
        return false;
    cJSON_ArrayForEach(entry, traces)
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(entry, "trace")) ||
            !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(entry, "makespan_error")))
            return false;
    return true;
}

/* Entries of the baseline (an earlier --json output) that the current checks are worse than, in the
 * fitted model and, where the baseline has one, the profile's prediction. */
static int count_regressions(const char *path, Trace **traces, const TraceCheck *checks, int count, SimError *err)
{
    cJSON *base;
    if (sim_json_parse_file(path, 64L << 20, &base, err))
        return -1;
    if (!is_report(base)) {
        cJSON_Delete(base);
        sim_error_set(err, SIM_ERR_INPUT, "%s: not a validate report (the output of sim validate --json): it needs "
                      "/traces, a non-empty array of entries with \"trace\" and \"makespan_error\", and /pass", path);
        return -1;
    }
    int regressions = 0;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(base, "traces")) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "trace");
        const cJSON *prof = cJSON_GetObjectItemCaseSensitive(entry, "predicted");
        int i = 0;
        while (cJSON_IsString(name) && i < count && strcmp(traces[i]->path, name->valuestring) != 0)
            i++;
        if (!cJSON_IsString(name) || i == count) {
            fprintf(stderr, "sim: regression: %s is in the baseline but was not validated\n",
                    cJSON_IsString(name) ? name->valuestring : "(unnamed entry)");
            regressions++;
            continue;
        }
        const TraceCheck *c = &checks[i];
        bool is_fit_worse = is_worse(c->makespan_error, cJSON_GetObjectItem(entry, "makespan_error"), 0.005) ||
                            (c->has_speedup && is_worse(c->speedup_error_pp, cJSON_GetObjectItem(entry, "speedup_error_pp"), 0.5));
        bool is_prof_worse = prof && (!c->has_profile ||
            is_worse(c->profile_makespan_error, cJSON_GetObjectItem(prof, "makespan_error"), 0.005) ||
            (c->has_profile_speedup && is_worse(c->profile_speedup_error_pp, cJSON_GetObjectItem(prof, "speedup_error_pp"), 0.5)));
        if (is_fit_worse || is_prof_worse) {
            fprintf(stderr, "sim: regression: %s: %s makespan error %+.2f%%, speedup error %+.2f pp\n", traces[i]->path,
                    is_fit_worse ? "fitted" : "predicted", 100 * (is_fit_worse ? c->makespan_error : c->profile_makespan_error),
                    is_fit_worse ? c->speedup_error_pp : c->profile_speedup_error_pp);
            regressions++;
        }
    }
    cJSON_Delete(base);
    return regressions;
}

/* The tolerance applies to the model under test: the profile's prediction with --predict, else the fit. */
static int verdict(const ValidateOptions *o, Trace **traces, const TraceCheck *checks, int count,
                   const ValidateReport *r, cJSON *out, SimError *err)
{
    int m = o->is_predict ? VMODEL_PROFILE : VMODEL_PLACED;
    double worst = r->makespan[m][VMODE_ALL].max_abs, worst_speedup = r->speedup_pp[o->is_predict].max_abs;
    bool is_checked = !o->baseline_path || o->has_tolerance;
    int missed = 0; /* --predict: a trace nothing predicts is a miss, never a pass */
    for (int i = 0; o->is_predict && i < count; i++)
        missed += !checks[i].has_profile;
    bool is_pass = !is_checked || (worst <= o->tolerance && worst_speedup <= o->speedup_tolerance_pp && missed == 0 &&
                                   (!o->is_predict || count > 0));
    int regressions = o->baseline_path ? count_regressions(o->baseline_path, traces, checks, count, err) : 0;
    if (regressions < 0)
        return cli_fail(err);
    cJSON_AddStringToObject(out, "checked_model", o->is_predict ? "predicted (from the profiles, no per-trace fit)"
                                                                : "placed (fitted to each trace)");
    cJSON_AddNumberToObject(out, "max_abs_makespan_error", worst);
    cJSON_AddNumberToObject(out, "max_abs_speedup_error_pp", worst_speedup);
    if (o->is_predict)
        cJSON_AddNumberToObject(out, "not_predicted", missed);
    cJSON_AddBoolToObject(out, "pass", is_pass && regressions == 0);
    if (o->is_json) {
        char *s = cJSON_PrintUnformatted(out);
        puts(s);
        cJSON_free(s);
    } else {
        print_table(traces, checks, count, r);
        print_summary(r, o, traces, count);
        char miss[64] = "";
        if (missed)
            snprintf(miss, sizeof miss, ", %d not predicted (misses)", missed);
        printf("%d traces, %s model: max |makespan error| %.2f%%, max |speedup error| %.2f pp%s%s%s\n", count,
               o->is_predict ? "predicted" : "fitted", 100 * worst, worst_speedup, miss,
               is_checked ? (is_pass ? ", within tolerance" : ", BEYOND TOLERANCE") : "",
               o->baseline_path ? (regressions ? ", REGRESSED against the baseline" : ", no regression") : "");
    }
    return is_pass && regressions == 0 ? 0 : 1;
}

/* The plan a trace ran, when no registered policy builds it (a block mask, a searched or hand-written
 * schedule; sim_trace_plan). NULL with nothing to do. */
static Plan *given_plan(const Trace *t, int64_t max_memory_mb, SimError *err)
{
    if (sim_trace_policy(t))
        return NULL;
    Plan *plan = NULL;
    sim_trace_plan(t, max_memory_mb << 20, &plan, err);
    return plan;
}

/* Timed runs of a real kernel (gpu/bwd/shapes.py's files): each predicted from the kernel profile through the
 * one costing path and compared with its measured time; per shape, the speedup over fa3 and the pick of the
 * best schedule. Exit 1 when a prediction is beyond the tolerance, a speedup beyond its tolerance, a decisive
 * pick is wrong, or nothing was predicted. */
static int validate_runs_file(const ValidateOptions *o, const char *path, const ValidateModels *models,
                              cJSON *out, SimError *err)
{
    KernelRuns *runs = NULL;
    if (sim_kernel_runs_read(path, &runs, err) != SIM_OK)
        return cli_fail(err);
    RunCheck *c = g_new0(RunCheck, MAX(runs->count, 1));
    RunsReport rep;
    int rc = 0;
    if (sim_validate_runs(runs, models, o->tolerance, o->speedup_tolerance_pp, 0.02, c, &rep, err) != SIM_OK)
        rc = cli_fail(err);
    bool is_pass = rep.predicted > 0 && rep.predicted == rep.runs && rep.time.max_abs <= o->tolerance &&
                   rep.speedup_pp.max_abs <= o->speedup_tolerance_pp && rep.picked_right == rep.decisive;
    cJSON *f = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(f, "runs");
    cJSON_AddStringToObject(f, "file", path);
    for (int i = 0; rc == 0 && i < runs->count; i++) {
        const KernelRun *r = &runs->runs[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "policy", r->policy);
        cJSON_AddStringToObject(j, "mask", r->mask == MASK_CAUSAL ? "causal" : "full");
        cJSON_AddNumberToObject(j, "seqlen", r->seqlen), cJSON_AddNumberToObject(j, "batch", r->batch);
        cJSON_AddNumberToObject(j, "heads", r->heads), cJSON_AddNumberToObject(j, "kv_heads", r->kv_heads);
        cJSON_AddNumberToObject(j, "head_dim", r->head_dim);
        cJSON_AddStringToObject(j, "mode", r->is_atomic ? "atomic" : "deterministic");
        cJSON_AddNumberToObject(j, "measured_ns", (double)r->time_ns);
        if (c[i].has_prediction) {
            cJSON_AddNumberToObject(j, "predicted_ns", (double)c[i].predicted_ns);
            cJSON_AddNumberToObject(j, "error", c[i].error);
        } else
            cJSON_AddStringToObject(j, "not_predicted", c[i].skip);
        if (c[i].has_speedup) {
            cJSON_AddNumberToObject(j, "speedup_measured", c[i].speedup_measured);
            cJSON_AddNumberToObject(j, "speedup_predicted", c[i].speedup_predicted);
            cJSON_AddNumberToObject(j, "speedup_error_pp", c[i].speedup_error_pp);
        }
        cJSON_AddItemToArray(list, j);
        char pred[24] = "-", error[16] = "-", speed[16] = "-";
        if (c[i].has_prediction)
            snprintf(pred, sizeof pred, "%" G_GINT64_FORMAT, c[i].predicted_ns),
                snprintf(error, sizeof error, "%+.2f%%", 100 * c[i].error);
        if (c[i].has_speedup)
            snprintf(speed, sizeof speed, "%+.1fpp", c[i].speedup_error_pp);
        if (!o->is_json)
            printf("%-7s s%-6d b%-2d h%-3d kv%-3d d%-4d %-16s %-13s %12" G_GINT64_FORMAT " %12s %8s %9s\n",
                   r->mask == MASK_CAUSAL ? "causal" : "full", r->seqlen, r->batch, r->heads, r->kv_heads, r->head_dim,
                   r->policy, r->is_atomic ? "atomic" : "deterministic", r->time_ns, pred, error, speed);
    }
    cJSON *sum = cJSON_AddObjectToObject(f, "summary");
    cJSON_AddNumberToObject(sum, "runs", rep.runs), cJSON_AddNumberToObject(sum, "predicted", rep.predicted);
    cJSON_AddItemToObject(sum, "time_error", stats_json(&rep.time));
    cJSON_AddItemToObject(sum, "speedup_error_pp", stats_json(&rep.speedup_pp));
    cJSON_AddNumberToObject(sum, "shapes", rep.shapes), cJSON_AddNumberToObject(sum, "decisive_shapes", rep.decisive);
    cJSON_AddNumberToObject(sum, "best_picked_right", rep.picked_right);
    cJSON_AddBoolToObject(sum, "pass", is_pass);
    cJSON_AddItemToArray(cJSON_GetObjectItem(out, "kernel_runs"), f);
    if (rc == 0 && !o->is_json && rep.predicted == 0)
        printf("%s: %d timed deterministic runs, none predicted: timed runs are checked against a kernel profile "
               "(give --predict for the installed ones, or --kernel FILE)\n", path, rep.runs);
    else if (rc == 0 && !o->is_json)
        printf("%s: %d timed deterministic runs, %d predicted from %s; |time error| median %.2f%%, max %.2f%%, %d "
               "within %.0f%%; speedup over fa3: %d, |error| median %.2f pp, max %.2f pp; best schedule picked right "
               "in %d of %d shapes where the measured gap exceeds 2%%%s\n", path, rep.runs, rep.predicted,
               o->kernel_path ? o->kernel_path : "the installed kernel profiles", 100 * rep.time.median_abs, 100 * rep.time.max_abs,
               rep.time.within, 100 * o->tolerance, rep.speedup_pp.n, rep.speedup_pp.median_abs, rep.speedup_pp.max_abs,
               rep.picked_right, rep.decisive, is_pass ? ", within tolerance" : ", BEYOND TOLERANCE (or not predicted)");
    g_free(c);
    sim_kernel_runs_free(runs);
    return rc ? rc : is_pass ? 0 : 1;
}

/* Loads every trace (and the matrix and profile), checks each, then reports. */
/* The kernel profiles that predict real kernels: --kernel's, else (when predicting) every installed one
 * (configs/kernels, found from any directory), each picked by the kernel its trace or run names. */
static SimStatus load_kernels(const ValidateOptions *o, KernelProfile ***kernels, int *count, SimError *err)
{
    if (o->kernel_path) {
        *kernels = g_new0(KernelProfile *, 1);
        if (sim_kernel_read(o->kernel_path, &(*kernels)[0], err) == SIM_OK)
            *count = 1;
        return err->status;
    }
    char dir[4096];
    SimError quiet = { 0 };
    if (!o->is_predict && !o->profile_path)
        return SIM_OK;
    if (sim_data_find("kernels", dir, sizeof dir, &quiet) != SIM_OK) /* none installed: nothing predicts */
        return SIM_OK;
    return sim_kernel_read_dir(dir, kernels, count, err);
}

/* Moves the kernel-runs files of o->paths into runs (their own check), leaving the traces. */
static GPtrArray *take_runs_files(ValidateOptions *o)
{
    GPtrArray *runs = g_ptr_array_new_with_free_func(g_free), *traces = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < o->paths->len; i++)
        g_ptr_array_add(sim_kernel_runs_is(o->paths->pdata[i]) ? runs : traces, g_strdup(o->paths->pdata[i]));
    g_ptr_array_free(o->paths, TRUE);
    o->paths = traces;
    return runs;
}

/* The checks run on a thread pool (o->jobs at a time) while the main thread goes on loading traces in order:
 * a trace is checked as soon as it is loaded. The error reported is what a sequential run reports: a load
 * error first (loading comes first there), else the check error of the first trace in order. */
typedef struct {
    const ValidateOptions *o;
    Trace **traces;
    int32_t *const *matrix;      /* set while trace 0 loads, before any check starts */
    const ValidateModels *models;
    TraceCheck *checks;
    SimError *errs;
    GThreadPool *pool;           /* NULL: check in the calling thread */
    bool has_failed;             /* without a pool: a check failed, the rest are skipped */
} CheckWork;

static void check_one(gpointer index, gpointer work)
{
    const CheckWork *w = work;
    int i = GPOINTER_TO_INT(index) - 1;
    Plan *plan = given_plan(w->traces[i], w->o->max_memory_mb, &w->errs[i]);
    if (!w->errs[i].status)
        sim_validate_trace(w->traces[i], plan, w->traces[i]->wl.n_sm == w->traces[0]->wl.n_sm ? *w->matrix : NULL,
                           w->models, &w->checks[i], &w->errs[i]);
    plan_free(plan);
}

static void check_start(CheckWork *w, int i)
{
    if (w->pool)
        g_thread_pool_push(w->pool, GINT_TO_POINTER(i + 1), NULL);
    else if (!w->has_failed)
        check_one(GINT_TO_POINTER(i + 1), w), w->has_failed = w->errs[i].status != SIM_OK;
}

/* Waits for the checks; the first failed one's error into err unless err already holds a load error. */
static void check_finish(CheckWork *w, int count, SimError *err)
{
    if (w->pool)
        g_thread_pool_free(w->pool, FALSE, TRUE);
    for (int i = 0; i < count && !err->status; i++)
        if (w->errs[i].status)
            *err = w->errs[i];
    g_free(w->errs);
}

int sim_cmd_validate(int argc, char **argv)
{
    ValidateOptions o;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    GPtrArray *runs_files = rc < 0 ? take_runs_files(&o) : NULL;
    int count = rc < 0 ? (int)o.paths->len : 0;
    Trace **traces = g_new0(Trace *, MAX(count, 1));
    TraceCheck *checks = g_new0(TraceCheck, MAX(count, 1));
    int32_t *matrix = NULL;
    bool is_legacy = false;
    HwProfile *profile = NULL;
    KernelProfile **kernels = NULL;
    int kernel_count = 0;
    if (rc < 0 && o.profile_path)
        sim_profile_read(o.profile_path, &profile, &err);
    if (rc < 0 && !err.status)
        load_kernels(&o, &kernels, &kernel_count, &err);
    ValidateModels models = { profile, kernels, kernel_count, o.is_json };
    int64_t room = o.max_memory_mb << 20; /* the traces are all held at once: one budget for them */
    CheckWork work = { &o, traces, &matrix, &models, checks, g_new0(SimError, MAX(count, 1)),
                       o.jobs > 1 && count > 1 ? g_thread_pool_new(check_one, &work, (int)MIN(o.jobs, count), TRUE, NULL)
                                               : NULL, false };
    CliProgress progress; /* on a terminal: the traces read so far (each is checked as soon as it is read) */
    cli_progress_begin(&progress, "validate", "traces");
    for (int i = 0; rc < 0 && i < count && !err.status; i++) {
        cli_progress_update(&progress, i, count, NULL);
        if (sim_trace_load_capped(o.paths->pdata[i], room, &traces[i], &err) != SIM_OK)
            break;
        room -= traces[i]->task_count * (int64_t)(sizeof(TraceTask) + 16);
        if (room < 0)
            sim_error_set(&err, SIM_ERR_LIMIT, "%s: the traces so far need more than --max-memory-mb %" PRId64 " MB",
                          traces[i]->path, o.max_memory_mb);
        else if (o.matrix_path && !matrix &&
                 sim_latency_matrix_load(o.matrix_path, traces[0]->wl.n_sm, &matrix, &is_legacy, &err) == SIM_OK &&
                 is_legacy)
            fprintf(stderr, "sim: note: %s is in the older plain latency-matrix format; gpu-calib's JSON "
                    "(docs/gpu.md) is the one format written now\n", o.matrix_path);
        if (!err.status)
            check_start(&work, i);
    }
    check_finish(&work, count, &err);
    cli_progress_update(&progress, count, count, NULL);
    cli_progress_end(&progress);
    if (rc < 0 && err.status)
        rc = cli_fail(&err);
    int runs_rc = 0;
    cJSON *runs_out = cJSON_CreateObject();
    cJSON_AddStringToObject(runs_out, "dashsim_version", SIM_VERSION);
    cJSON_AddArrayToObject(runs_out, "kernel_runs");
    for (guint i = 0; rc < 0 && runs_files && i < runs_files->len && runs_rc != 2; i++) {
        int file_rc = validate_runs_file(&o, runs_files->pdata[i], &models, runs_out, &err);
        runs_rc = MAX(runs_rc, file_rc);
    }
    if (runs_rc == 2)
        rc = 2;
    if (rc < 0 && count == 0) { /* runs files only */
        if (o.is_json) {
            char *text = cJSON_PrintUnformatted(runs_out);
            puts(text);
            cJSON_free(text);
        }
        rc = runs_rc;
    }
    if (rc < 0) {
        sim_validate_speedups((const Trace *const *)traces, checks, count);
        ValidateReport report;
        sim_validate_report((const Trace *const *)traces, checks, count, o.tolerance, o.speedup_tolerance_pp, &report);
        cJSON *out = cJSON_CreateObject();
        cJSON_AddStringToObject(out, "dashsim_version", SIM_VERSION);
        cJSON *list = cJSON_AddArrayToObject(out, "traces");
        if (runs_files->len)
            cJSON_AddItemToObject(out, "kernel_runs", cJSON_DetachItemFromObject(runs_out, "kernel_runs"));
        if (o.profile_path)
            cJSON_AddStringToObject(out, "profile", o.profile_path);
        for (int i = 0; i < count; i++)
            cJSON_AddItemToArray(list, check_json(traces[i], &checks[i]));
        add_report_json(out, &report);
        rc = verdict(&o, traces, checks, count, &report, out, &err); /* not inside MAX: it evaluates twice */
        rc = MAX(rc, runs_rc);
        cJSON_Delete(out);
        sim_validate_report_clear(&report);
    }
    for (int i = 0; i < count; i++)
        sim_trace_free(traces[i]);
    g_free(traces), g_free(checks), free(matrix);
    sim_profile_free(profile);
    for (int i = 0; i < kernel_count; i++)
        sim_kernel_free(kernels[i]);
    g_free(kernels);
    if (o.paths)
        g_ptr_array_free(o.paths, TRUE);
    if (runs_files)
        g_ptr_array_free(runs_files, TRUE);
    cJSON_Delete(runs_out);
    return rc;
}

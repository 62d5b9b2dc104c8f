/* `sim validate TRACE|DIR... [--json] [--tolerance X] [--speedup-tolerance PP] [--latency-matrix FILE]
 * [--baseline FILE]`: the model's error on measured kernel traces. Exit 1 when an error is beyond the
 * tolerance, or (with --baseline) worse than the committed baseline: a regression. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json_file.h"
#include "latency_matrix.h"
#include "trace_in.h"
#include "validate.h"

typedef struct {
    bool is_json, has_tolerance;
    double tolerance, speedup_tolerance_pp;
    const char *matrix_path, *baseline_path;
    GPtrArray *paths;   /* trace files, sorted */
} ValidateOptions;

static const char usage[] =
    "usage: sim validate TRACE|DIR... [options]\n"
    "Predicts each measured trace with the model (parameters fitted from the trace's own phase medians and\n"
    "the latency matrix) and reports the makespan error, the start-time error, the speedup error over fa3\n"
    "on the same shape, and Kendall's tau of the policy ranking per shape.\n"
    "  --json                   one JSON object\n"
    "  --tolerance X            largest |makespan error| allowed, a fraction (default 0.03)\n"
    "  --speedup-tolerance PP   largest |speedup error| allowed, percentage points (default 2)\n"
    "  --latency-matrix FILE    per-SM-pair signal latency (gpu-calib output); its median is the model's\n"
    "  --baseline FILE          compare with an earlier --json output instead: exit 1 on any regression\n"
    "Exit status: 0 within tolerance, 1 beyond it (or a regression), 2 bad usage or input.\n";

static int cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds path, or every *.json below it except calibration files. */
static SimStatus add_path(GPtrArray *paths, const char *path, SimError *err)
{
    if (!g_file_test(path, G_FILE_TEST_IS_DIR)) {
        if (!g_file_test(path, G_FILE_TEST_EXISTS))
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
        else if (g_str_has_suffix(name, ".json") && !g_str_has_prefix(name, "calib-"))
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
        { "baseline", required_argument, NULL, 'b' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    *o = (ValidateOptions){ .tolerance = 0.03, .speedup_tolerance_pp = 2.0, .paths = g_ptr_array_new_with_free_func(g_free) };
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
    cJSON_AddNumberToObject(j, "predicted_ns", (double)c->predicted_ns);
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

/* Groups (shapes) with their Kendall tau, in order of first appearance. */
static cJSON *groups_json(Trace **traces, TraceCheck *checks, int count)
{
    cJSON *groups = cJSON_CreateArray();
    for (int i = 0; i < count; i++) {
        bool is_first = true;
        for (int k = 0; k < i; k++)
            is_first &= strcmp(traces[k]->group, traces[i]->group) != 0;
        if (!is_first)
            continue;
        const TraceCheck *members[64];
        int n = 0;
        for (int k = i; k < count && n < 64; k++)
            if (strcmp(traces[k]->group, traces[i]->group) == 0)
                members[n++] = &checks[k];
        cJSON *g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "group", traces[i]->group);
        cJSON_AddNumberToObject(g, "policies", n);
        cJSON_AddNumberToObject(g, "kendall_tau", sim_validate_kendall_tau(members, n));
        cJSON_AddItemToArray(groups, g);
    }
    return groups;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Adds {n, median_abs, max_abs, within} of v[0..n-1] (absolute values) to parent under name. */
static void add_stats(cJSON *parent, const char *name, double *v, int n, double limit)
{
    int within = 0;
    for (int i = 0; i < n; i++)
        v[i] = fabs(v[i]), within += v[i] <= limit;
    qsort(v, n, sizeof *v, cmp_double);
    cJSON *o = cJSON_AddObjectToObject(parent, name);
    cJSON_AddNumberToObject(o, "n", n);
    cJSON_AddNumberToObject(o, "median_abs", n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0);
    cJSON_AddNumberToObject(o, "max_abs", n ? v[n - 1] : 0);
    cJSON_AddNumberToObject(o, "within_tolerance", within);
}

/* Makespan errors of the three models by reduction mode, speedup errors, rankings, start errors. */
static cJSON *summary_json(Trace **traces, const TraceCheck *checks, int count, const cJSON *groups,
                           const ValidateOptions *o)
{
    cJSON *sum = cJSON_CreateObject();
    double *v = g_new(double, MAX(count, 1));
    static const char *const modes[] = { "serial", "async", "all" }, *const models[] = { "placed", "uniform", "paper" };
    for (int k = 0; k < 3; k++) {
        cJSON *model = cJSON_AddObjectToObject(sum, models[k]);
        for (int m = 0; m < 3; m++) {
            int n = 0;
            for (int i = 0; i < count; i++)
                if (m == 2 || (traces[i]->model.reduce == REDUCE_ASYNC) == (m == 1))
                    v[n++] = k == 0 ? checks[i].makespan_error : k == 1 ? checks[i].uniform_makespan_error
                                                                       : checks[i].paper_makespan_error;
            add_stats(model, modes[m], v, n, o->tolerance);
        }
    }
    int n = 0;
    for (int i = 0; i < count; i++)
        if (checks[i].has_speedup)
            v[n++] = checks[i].speedup_error_pp;
    add_stats(sum, "speedup_error_pp", v, n, o->speedup_tolerance_pp);
    for (int i = 0; i < count; i++)
        v[i] = checks[i].start_mape;
    add_stats(sum, "start_mape", v, count, INFINITY);
    int shapes = 0, exact = 0;
    double tau_sum = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, groups) {
        double tau = cJSON_GetObjectItem(g, "kendall_tau")->valuedouble;
        shapes++, exact += tau == 1.0, tau_sum += tau;
    }
    cJSON *rank = cJSON_AddObjectToObject(sum, "ranking");
    cJSON_AddNumberToObject(rank, "shapes", shapes);
    cJSON_AddNumberToObject(rank, "tau_one", exact);
    cJSON_AddNumberToObject(rank, "mean_tau", shapes ? tau_sum / shapes : 1.0);
    g_free(v);
    return sum;
}

/* Hand-off latency by the number of reductions in flight at the release (buckets of 16), all traces. */
static cJSON *handoff_json(Trace **traces, int count)
{
    GArray *load = g_array_new(FALSE, FALSE, sizeof(int64_t)), *lat = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (int i = 0; i < count; i++)
        sim_validate_handoffs_by_load(traces[i], load, lat);
    cJSON *list = cJSON_CreateArray();
    for (int b = 0; b < 9; b++) {
        GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
        for (guint k = 0; k < load->len; k++) {
            int64_t l = g_array_index(load, int64_t, k);
            if (l / 16 == b || (b == 8 && l >= 128)) {
                double x = (double)g_array_index(lat, int64_t, k);
                g_array_append_val(v, x);
            }
        }
        if (v->len) {
            double *x = (double *)v->data;
            qsort(x, v->len, sizeof *x, cmp_double);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "in_flight_min", 16 * b);
            cJSON_AddNumberToObject(o, "in_flight_max", b == 8 ? -1 : 16 * b + 15);
            cJSON_AddNumberToObject(o, "n", v->len);
            cJSON_AddNumberToObject(o, "median_ns", x[v->len / 2]);
            cJSON_AddNumberToObject(o, "p10_ns", x[v->len / 10]);
            cJSON_AddNumberToObject(o, "p90_ns", x[9 * v->len / 10]);
            cJSON_AddItemToArray(list, o);
        }
        g_array_free(v, TRUE);
    }
    g_array_free(load, TRUE), g_array_free(lat, TRUE);
    return list;
}

static void print_summary(const cJSON *sum, const cJSON *handoffs)
{
    static const char *const models[] = { "placed", "uniform", "paper" }, *const modes[] = { "serial", "async", "all" };
    for (int k = 0; k < 3; k++) {
        printf("%-8s model:", models[k]);
        for (int m = 0; m < 3; m++) {
            const cJSON *st = cJSON_GetObjectItem(cJSON_GetObjectItem(sum, models[k]), modes[m]);
            printf("  %s %d traces, median |error| %.2f%%, max %.2f%%, %d within;", modes[m],
                   cJSON_GetObjectItem(st, "n")->valueint, 100 * cJSON_GetObjectItem(st, "median_abs")->valuedouble,
                   100 * cJSON_GetObjectItem(st, "max_abs")->valuedouble, cJSON_GetObjectItem(st, "within_tolerance")->valueint);
        }
        printf("\n");
    }
    const cJSON *sp = cJSON_GetObjectItem(sum, "speedup_error_pp"), *rk = cJSON_GetObjectItem(sum, "ranking");
    printf("speedup over fa3: %d pairs, median |error| %.2f pp, max %.2f pp, %d within; ranking: tau 1 in %d of %d "
           "shapes, mean %.2f; start MAPE median %.2f%%\n", cJSON_GetObjectItem(sp, "n")->valueint,
           cJSON_GetObjectItem(sp, "median_abs")->valuedouble, cJSON_GetObjectItem(sp, "max_abs")->valuedouble,
           cJSON_GetObjectItem(sp, "within_tolerance")->valueint, cJSON_GetObjectItem(rk, "tau_one")->valueint,
           cJSON_GetObjectItem(rk, "shapes")->valueint, cJSON_GetObjectItem(rk, "mean_tau")->valuedouble,
           100 * cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "start_mape"), "median_abs")->valuedouble);
    const cJSON *h;
    cJSON_ArrayForEach(h, handoffs) {
        char range[32];
        int lo = cJSON_GetObjectItem(h, "in_flight_min")->valueint, hi = cJSON_GetObjectItem(h, "in_flight_max")->valueint;
        snprintf(range, sizeof range, hi < 0 ? "%d+" : "%d-%d", lo, hi);
        printf("hand-off with %7s reductions in flight: %6d samples, median %4.0f ns (p10 %4.0f, p90 %4.0f)\n", range,
               cJSON_GetObjectItem(h, "n")->valueint, cJSON_GetObjectItem(h, "median_ns")->valuedouble,
               cJSON_GetObjectItem(h, "p10_ns")->valuedouble, cJSON_GetObjectItem(h, "p90_ns")->valuedouble);
    }
}

static void print_table(Trace **traces, const TraceCheck *checks, int count, const cJSON *groups)
{
    printf("%-44s %-16s %12s %12s %8s %8s %8s %7s %8s\n", "trace", "policy", "measured_ns", "predicted_ns", "error",
           "uniform", "paper", "start", "speedup");
    for (int i = 0; i < count; i++) {
        const TraceCheck *c = &checks[i];
        char speed[32] = "-";
        if (c->has_speedup)
            snprintf(speed, sizeof speed, "%+.1fpp", c->speedup_error_pp);
        printf("%-44s %-16s %12" G_GINT64_FORMAT " %12" G_GINT64_FORMAT " %+7.2f%% %+7.1f%% %+7.1f%% %6.1f%% %8s\n",
               traces[i]->path, traces[i]->policy, c->measured_ns, c->predicted_ns, 100 * c->makespan_error,
               100 * c->uniform_makespan_error, 100 * c->paper_makespan_error, 100 * c->start_mape, speed);
    }
    const cJSON *g;
    cJSON_ArrayForEach(g, groups)
        printf("ranking %-60s tau %+.2f over %d policies\n", cJSON_GetObjectItem(g, "group")->valuestring,
               cJSON_GetObjectItem(g, "kendall_tau")->valuedouble, cJSON_GetObjectItem(g, "policies")->valueint);
}

/* Entries of the baseline (an earlier --json output) that the current checks are worse than. */
static int count_regressions(const char *path, Trace **traces, const TraceCheck *checks, int count, SimError *err)
{
    cJSON *base;
    if (sim_json_parse_file(path, 64L << 20, &base, err))
        return -1;
    int regressions = 0;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(base, "traces")) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "trace");
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(entry, "makespan_error");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry, "speedup_error_pp");
        int i = 0;
        while (cJSON_IsString(name) && i < count && strcmp(traces[i]->path, name->valuestring) != 0)
            i++;
        if (!cJSON_IsString(name) || !cJSON_IsNumber(e) || i == count) {
            fprintf(stderr, "sim: regression: %s is in the baseline but was not validated\n",
                    cJSON_IsString(name) ? name->valuestring : "(unnamed entry)");
            regressions++;
            continue;
        }
        bool is_worse = fabs(checks[i].makespan_error) > fabs(e->valuedouble) + 0.005 ||
                        (cJSON_IsNumber(s) && fabs(checks[i].speedup_error_pp) > fabs(s->valuedouble) + 0.5);
        if (is_worse) {
            fprintf(stderr, "sim: regression: %s: makespan error %+.2f%% (baseline %+.2f%%)\n", traces[i]->path,
                    100 * checks[i].makespan_error, 100 * e->valuedouble);
            regressions++;
        }
    }
    cJSON_Delete(base);
    return regressions;
}

static int verdict(const ValidateOptions *o, Trace **traces, const TraceCheck *checks, int count, cJSON *out,
                   SimError *err)
{
    double worst = 0, worst_speedup = 0;
    for (int i = 0; i < count; i++) {
        worst = MAX(worst, fabs(checks[i].makespan_error));
        if (checks[i].has_speedup)
            worst_speedup = MAX(worst_speedup, fabs(checks[i].speedup_error_pp));
    }
    bool is_checked = !o->baseline_path || o->has_tolerance;
    bool is_pass = !is_checked || (worst <= o->tolerance && worst_speedup <= o->speedup_tolerance_pp);
    int regressions = o->baseline_path ? count_regressions(o->baseline_path, traces, checks, count, err) : 0;
    if (regressions < 0)
        return cli_fail(err);
    cJSON_AddNumberToObject(out, "max_abs_makespan_error", worst);
    cJSON_AddNumberToObject(out, "max_abs_speedup_error_pp", worst_speedup);
    cJSON_AddBoolToObject(out, "pass", is_pass && regressions == 0);
    if (o->is_json) {
        char *s = cJSON_PrintUnformatted(out);
        puts(s);
        cJSON_free(s);
    } else {
        print_table(traces, checks, count, cJSON_GetObjectItem(out, "groups"));
        print_summary(cJSON_GetObjectItem(out, "summary"), cJSON_GetObjectItem(out, "handoff_by_load"));
        printf("%d traces: max |makespan error| %.2f%%, max |speedup error| %.2f pp%s%s\n", count, 100 * worst,
               worst_speedup, is_checked ? (is_pass ? ", within tolerance" : ", BEYOND TOLERANCE") : "",
               o->baseline_path ? (regressions ? ", REGRESSED against the baseline" : ", no regression") : "");
    }
    return is_pass && regressions == 0 ? 0 : 1;
}

int sim_cmd_validate(int argc, char **argv)
{
    ValidateOptions o;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    int count = (int)o.paths->len;
    Trace **traces = g_new0(Trace *, count);
    TraceCheck *checks = g_new0(TraceCheck, count);
    int32_t *matrix = NULL;
    bool is_legacy = false;
    for (int i = 0; rc < 0 && i < count && !err.status; i++)
        if (sim_trace_load(o.paths->pdata[i], &traces[i], &err) == SIM_OK && o.matrix_path && !matrix &&
            sim_latency_matrix_load(o.matrix_path, traces[0]->wl.n_sm, &matrix, &is_legacy, &err) == SIM_OK &&
            is_legacy)
            fprintf(stderr, "sim: note: %s is in the older plain latency-matrix format; gpu-calib's JSON "
                    "(docs/gpu.md) is the one format written now\n", o.matrix_path);
    for (int i = 0; rc < 0 && i < count && !err.status; i++)
        sim_validate_trace(traces[i], traces[i]->wl.n_sm == traces[0]->wl.n_sm ? matrix : NULL, &checks[i], &err);
    if (rc < 0 && err.status)
        rc = cli_fail(&err);
    if (rc < 0) {
        sim_validate_speedups((const Trace *const *)traces, checks, count);
        cJSON *out = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(out, "traces");
        for (int i = 0; i < count; i++)
            cJSON_AddItemToArray(list, check_json(traces[i], &checks[i]));
        cJSON *groups = groups_json(traces, checks, count);
        cJSON_AddItemToObject(out, "groups", groups);
        cJSON_AddItemToObject(out, "summary", summary_json(traces, checks, count, groups, &o));
        cJSON_AddItemToObject(out, "handoff_by_load", handoff_json(traces, count));
        rc = verdict(&o, traces, checks, count, out, &err);
        cJSON_Delete(out);
    }
    for (int i = 0; i < count; i++)
        sim_trace_free(traces[i]);
    g_free(traces), g_free(checks), free(matrix);
    g_ptr_array_free(o.paths, TRUE);
    return rc;
}

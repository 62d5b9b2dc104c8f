/* `sim validate`'s work (validate_run.h): find the files, read every trace (one memory budget for all of them)
 * and check each on a thread pool as soon as it is read, predict the kernel-runs files, then the report, the
 * baseline's regressions and the verdict. Invariant: the outcome does not depend on the number of threads; the
 * error reported is the one a sequential run meets first. */
#include "validate_run.h"

#include <cjson/cJSON.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "json_file.h"
#include "kernel_io.h"
#include "kernel_runs_io.h"
#include "latency_matrix.h"
#include "plan_io.h"
#include "profile_io.h"
#include "trace_in.h"
#include "trace_view.h"

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

SimStatus sim_validate_find(const char *const *args, int n, char ***paths, int *count, SimError *err)
{
    GPtrArray *list = g_ptr_array_new();
    for (int i = 0; i < n && !err->status; i++)
        add_path(list, args[i], err);
    if (!err->status && list->len == 0)
        sim_error_set(err, SIM_ERR_INPUT, "no trace files (*.json) under %s", n > 0 ? args[0] : "(nothing)");
    g_ptr_array_sort(list, cmp_str);
    *count = (int)list->len;
    g_ptr_array_add(list, NULL);
    *paths = (char **)g_ptr_array_free(list, FALSE);
    return err->status;
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

/* The kernel profiles that predict real kernels: kernel_path's, else (when predicting) every installed one
 * (configs/kernels, found from any directory), each picked by the kernel its trace or run names. */
static SimStatus load_kernels(const ValidateSettings *s, KernelProfile ***kernels, int *count, SimError *err)
{
    if (s->kernel_path) {
        *kernels = g_new0(KernelProfile *, 1);
        if (sim_kernel_read(s->kernel_path, &(*kernels)[0], err) == SIM_OK)
            *count = 1;
        return err->status;
    }
    char dir[4096];
    SimError quiet = { 0 };
    if (!s->is_predict && !s->profile_path)
        return SIM_OK;
    if (sim_data_find("kernels", dir, sizeof dir, &quiet) != SIM_OK) /* none installed: nothing predicts */
        return SIM_OK;
    return sim_kernel_read_dir(dir, kernels, count, err);
}

/* The hardware profiles that predict executor traces: the one given (or the installed default) first, then, with
 * the default, every other profile installed beside it, each picked by the GPU a trace was measured on. */
typedef struct {
    HwProfile **profiles;
    char **paths;
    int count;
} HwSet;

static SimStatus hw_set_load(const ValidateSettings *s, HwSet *set, SimError *err)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    if (s->profile_path)
        g_ptr_array_add(paths, g_strdup(s->profile_path));
    char *dir = s->profile_path && s->is_profile_default ? g_path_get_dirname(s->profile_path) : NULL;
    GDir *d = dir ? g_dir_open(dir, 0, NULL) : NULL;
    GPtrArray *others = g_ptr_array_new_with_free_func(g_free);
    for (const char *name; d && (name = g_dir_read_name(d));) {
        char *full = g_build_filename(dir, name, NULL);
        if (g_str_has_suffix(name, ".json") && strcmp(full, s->profile_path) != 0)
            g_ptr_array_add(others, full);
        else
            g_free(full);
    }
    g_ptr_array_sort(others, cmp_str);
    for (guint i = 0; i < others->len; i++)
        g_ptr_array_add(paths, g_strdup(others->pdata[i]));
    if (d)
        g_dir_close(d);
    g_free(dir), g_ptr_array_free(others, TRUE);
    set->count = (int)paths->len;
    set->profiles = g_new0(HwProfile *, MAX(set->count, 1));
    for (int i = 0; i < set->count && !err->status; i++)
        sim_profile_read(paths->pdata[i], &set->profiles[i], err);
    g_ptr_array_add(paths, NULL);
    set->paths = (char **)g_ptr_array_free(paths, FALSE);
    return err->status;
}

static void hw_set_clear(HwSet *set)
{
    for (int i = 0; i < set->count; i++)
        sim_profile_free(set->profiles[i]);
    g_free(set->profiles), g_strfreev(set->paths);
}

/* The index of the profile measured on gpu_name, else 0 (the one given: another GPU's numbers, said in a note). */
static int hw_set_pick(const HwSet *set, const char *gpu_name)
{
    for (int i = 0; gpu_name && i < set->count; i++)
        if (set->profiles[i] && strcmp(set->profiles[i]->gpu_name, gpu_name) == 0)
            return i;
    return 0;
}

/* The checks run on a thread pool (s->jobs at a time) while the calling thread goes on reading traces in
 * order: a trace is checked as soon as it is read. The error reported is what a sequential run reports: a read
 * error first (reading comes first there), else the check error of the first trace in order. */
typedef struct {
    const ValidateSettings *s;
    Trace **traces;
    int32_t *const *matrix;      /* set while trace 0 is read, before any check starts */
    const ValidateModels *models;
    const HwSet *hw;             /* models->hw is hw's pick for each trace */
    TraceCheck *checks;
    SimError *errs;
    GThreadPool *pool;           /* NULL: check in the calling thread */
    bool has_failed;             /* without a pool: a check failed, the rest are skipped */
} CheckWork;

static void check_one(gpointer index, gpointer work)
{
    const CheckWork *w = work;
    int i = GPOINTER_TO_INT(index) - 1;
    Plan *plan = given_plan(w->traces[i], w->s->max_memory_mb, &w->errs[i]);
    ValidateModels mine = *w->models;
    int hw = hw_set_pick(w->hw, w->traces[i]->gpu_name);
    mine.hw = w->hw->count ? w->hw->profiles[hw] : NULL;
    if (!w->errs[i].status)
        sim_validate_trace(w->traces[i], plan, w->traces[i]->wl.n_sm == w->traces[0]->wl.n_sm ? *w->matrix : NULL,
                           &mine, &w->checks[i], &w->errs[i]);
    w->checks[i].profile_path = mine.hw ? w->hw->paths[hw] : NULL;
    plan_free(plan);
}

static void check_start(CheckWork *w, int i)
{
    if (w->pool)
        g_thread_pool_push(w->pool, GINT_TO_POINTER(i + 1), NULL);
    else if (!w->has_failed)
        check_one(GINT_TO_POINTER(i + 1), w), w->has_failed = w->errs[i].status != SIM_OK;
}

/* Waits for the checks; the first failed one's error into err unless err already holds a read error. */
static void check_finish(CheckWork *w, int count, SimError *err)
{
    if (w->pool)
        g_thread_pool_free(w->pool, FALSE, TRUE);
    for (int i = 0; i < count && !err->status; i++)
        if (w->errs[i].status)
            *err = w->errs[i];
    g_free(w->errs);
}

/* Reads every trace of paths (one memory budget for all of them; the latency matrix with the first) and checks
 * each as soon as it is read. */
static SimStatus check_traces(const ValidateSettings *s, char *const *paths, const ValidateModels *models,
                              const HwSet *hw, ValidateOutcome *out, GPtrArray *notes, SimValidateProgress progress,
                              void *ctx, SimError *err)
{
    int count = out->count;
    int32_t *matrix = NULL;
    bool is_legacy = false;
    int64_t room = s->max_memory_mb << 20; /* the traces are all held at once: one budget for them */
    CheckWork work = { s, out->traces, &matrix, models, hw, out->checks, g_new0(SimError, MAX(count, 1)),
                       s->jobs > 1 && count > 1 ? g_thread_pool_new(check_one, &work, (int)MIN(s->jobs, count), TRUE, NULL)
                                                : NULL, false };
    for (int i = 0; i < count && !err->status; i++) {
        if (progress)
            progress(ctx, i, count);
        if (sim_trace_load_capped(paths[i], room, &out->traces[i], err) != SIM_OK)
            break;
        room -= out->traces[i]->task_count * (int64_t)(sizeof(TraceTask) + 16);
        if (room < 0)
            sim_error_set(err, SIM_ERR_LIMIT, "%s: the traces so far need more than --max-memory-mb %" PRId64 " MB",
                          out->traces[i]->path, s->max_memory_mb);
        else if (s->matrix_path && !matrix &&
                 sim_latency_matrix_load(s->matrix_path, out->traces[0]->wl.n_sm, &matrix, &is_legacy, err) == SIM_OK &&
                 is_legacy)
            g_ptr_array_add(notes, g_strdup_printf("note: %s is in the older plain latency-matrix format; gpu-calib's "
                                                   "JSON (docs/gpu.md) is the one format written now", s->matrix_path));
        if (!err->status)
            check_start(&work, i);
    }
    check_finish(&work, count, err);
    if (progress)
        progress(ctx, count, count);
    free(matrix);
    return err->status;
}

/* One runs file read and predicted into f; its exit code (0 pass, 1 not, 2 an error in err). */
static int check_runs_file(const ValidateSettings *s, const char *path, const ValidateModels *models,
                           const HwSet *hw, ValidateRunsFile *f, SimError *err)
{
    f->path = g_strdup(path);
    if (sim_kernel_runs_read(path, &f->runs, err) != SIM_OK)
        return 2;
    f->checks = g_new0(RunCheck, MAX(f->runs->count, 1));
    ValidateModels mine = *models;
    mine.hw = hw->count ? hw->profiles[hw_set_pick(hw, f->runs->gpu_name)] : NULL;
    if (sim_validate_runs(f->runs, &mine, s->tolerance, s->speedup_tolerance_pp, 0.02, f->checks, &f->rep, err) !=
        SIM_OK)
        return 2;
    const RunsReport *rep = &f->rep;
    f->is_checked = true;
    f->is_pass = rep->predicted > 0 && rep->predicted == rep->runs && rep->time.max_abs <= s->tolerance &&
                 rep->speedup_pp.max_abs <= s->speedup_tolerance_pp && rep->picked_right == rep->decisive;
    return f->is_pass ? 0 : 1;
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

/* One baseline entry against the current checks: a regression sentence into notes, and whether it is one. */
static bool is_regression(const cJSON *entry, const ValidateOutcome *out, GPtrArray *notes)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(entry, "trace");
    const cJSON *prof = cJSON_GetObjectItemCaseSensitive(entry, "predicted");
    int i = 0;
    while (cJSON_IsString(name) && i < out->count && strcmp(out->traces[i]->path, name->valuestring) != 0)
        i++;
    if (!cJSON_IsString(name) || i == out->count) {
        g_ptr_array_add(notes, g_strdup_printf("regression: %s is in the baseline but was not validated",
                                               cJSON_IsString(name) ? name->valuestring : "(unnamed entry)"));
        return true;
    }
    const TraceCheck *c = &out->checks[i];
    bool is_fit_worse = is_worse(c->makespan_error, cJSON_GetObjectItem(entry, "makespan_error"), 0.005) ||
                        (c->has_speedup && is_worse(c->speedup_error_pp, cJSON_GetObjectItem(entry, "speedup_error_pp"), 0.5));
    bool is_prof_worse = prof && (!c->has_profile ||
        is_worse(c->profile_makespan_error, cJSON_GetObjectItem(prof, "makespan_error"), 0.005) ||
        (c->has_profile_speedup && is_worse(c->profile_speedup_error_pp, cJSON_GetObjectItem(prof, "speedup_error_pp"), 0.5)));
    if (is_fit_worse || is_prof_worse)
        g_ptr_array_add(notes, g_strdup_printf("regression: %s: %s makespan error %+.2f%%, speedup error %+.2f pp",
                                               out->traces[i]->path, is_fit_worse ? "fitted" : "predicted",
                                               100 * (is_fit_worse ? c->makespan_error : c->profile_makespan_error),
                                               is_fit_worse ? c->speedup_error_pp : c->profile_speedup_error_pp));
    return is_fit_worse || is_prof_worse;
}

/* Entries of the baseline (an earlier --json output) that the current checks are worse than, in the fitted
 * model and, where the baseline has one, the profile's prediction; -1 with err when it is not a report. */
static int count_regressions(const char *path, const ValidateOutcome *out, GPtrArray *notes, SimError *err)
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
    cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(base, "traces"))
        regressions += is_regression(entry, out, notes);
    cJSON_Delete(base);
    return regressions;
}

/* The report of the traces and the verdict on the model under test (the profile's prediction with
 * --predict, else the fit): its tolerance, and the baseline's regressions. */
static SimStatus conclude(const ValidateSettings *s, ValidateOutcome *out, GPtrArray *notes, SimError *err)
{
    const Trace *const *traces = (const Trace *const *)out->traces;
    sim_validate_speedups(traces, out->checks, out->count);
    sim_validate_report(traces, out->checks, out->count, s->tolerance, s->speedup_tolerance_pp, &out->report);
    const ValidateReport *r = &out->report;
    ValidateVerdict *v = &out->verdict;
    int m = s->is_predict ? VMODEL_PROFILE : VMODEL_PLACED;
    char *const *used = out->profiles_used;
    bool is_one = used && used[0] && !used[1], is_several = used && used[0] && used[1];
    *v = (ValidateVerdict){ .profile_path = is_one ? used[0] : s->profile_path, .profiles = is_several ? used : NULL,
                            .is_predict = s->is_predict,
                            .worst = r->makespan[m][VMODE_ALL].max_abs, .worst_speedup_pp = r->speedup_pp[s->is_predict].max_abs };
    out->is_checked = !s->baseline_path || s->has_tolerance;
    for (int i = 0; s->is_predict && i < out->count; i++) /* --predict: a trace nothing predicts is a miss */
        v->missed += !out->checks[i].has_profile;
    out->is_within = !out->is_checked || (v->worst <= s->tolerance && v->worst_speedup_pp <= s->speedup_tolerance_pp &&
                                          v->missed == 0 && (!s->is_predict || out->count > 0));
    out->regressions = s->baseline_path ? count_regressions(s->baseline_path, out, notes, err) : 0;
    v->is_pass = out->is_within && out->regressions == 0;
    return err->status;
}

/* Splits paths into the kernel-runs files (their own check) and the traces. */
static void split_paths(char *const *paths, int count, GPtrArray *runs, GPtrArray *traces)
{
    for (int i = 0; i < count; i++)
        g_ptr_array_add(sim_kernel_runs_is(paths[i]) ? runs : traces, paths[i]);
}

/* The runs files in order, each predicted; the exit code so far (2: an error in err, and the rest skipped). */
static int check_runs_files(const ValidateSettings *s, const GPtrArray *runs, const ValidateModels *models,
                            const HwSet *hw, ValidateOutcome *out, SimError *err)
{
    int rc = 0;
    out->files = g_new0(ValidateRunsFile, MAX(runs->len, 1));
    for (guint i = 0; i < runs->len && rc != 2; i++) {
        int file_rc = check_runs_file(s, runs->pdata[i], models, hw, &out->files[out->file_count++], err);
        rc = MAX(rc, file_rc); /* not inside MAX: it evaluates twice */
    }
    return rc;
}

/* A hardware profile measured on another GPU than executor traces it predicts is said, never used silently; the
 * profiles that did predict them, in the set's order, into out->profiles_used. */
static void note_profiles(const HwSet *set, bool is_default, ValidateOutcome *out, GPtrArray *notes)
{
    int other = 0;
    const char *gpu = NULL;
    bool *used = g_new0(bool, MAX(set->count, 1));
    for (int i = 0; set->count && i < out->count; i++) {
        const Trace *t = out->traces[i];
        if (!t || t->kernel.name[0] || !out->checks[i].has_profile)
            continue;
        int k = hw_set_pick(set, t->gpu_name);
        used[k] = true;
        if (t->gpu_name && strcmp(t->gpu_name, set->profiles[k]->gpu_name) != 0)
            other++, gpu = gpu ? gpu : t->gpu_name;
    }
    if (other)
        g_ptr_array_add(notes, g_strdup_printf("note: %d executor trace%s measured on %s, predicted from %s, measured on "
                                               "%s: another GPU's numbers (%s)", other, other == 1 ? " was" : "s were", gpu,
                                               set->paths[0], set->profiles[0]->gpu_name, is_default ?
                                               "no installed profile is of that GPU" : "--profile names the one to use"));
    GPtrArray *list = g_ptr_array_new();
    for (int k = 0; k < set->count; k++)
        if (used[k])
            g_ptr_array_add(list, g_strdup(set->paths[k]));
    g_ptr_array_add(list, NULL);
    out->profiles_used = (char **)g_ptr_array_free(list, FALSE);
    g_free(used);
}

SimStatus sim_validate_run(const ValidateSettings *s, char *const *paths, int path_count, ValidateOutcome *out,
                           SimValidateProgress progress, void *progress_ctx, SimError *err)
{
    memset(out, 0, sizeof *out);
    GPtrArray *runs = g_ptr_array_new(), *traces = g_ptr_array_new(), *notes = g_ptr_array_new();
    split_paths(paths, path_count, runs, traces);
    out->count = (int)traces->len;
    out->traces = g_new0(Trace *, MAX(out->count, 1));
    out->checks = g_new0(TraceCheck, MAX(out->count, 1));
    HwSet hw = { 0 };
    KernelProfile **kernels = NULL;
    int kernel_count = 0, runs_rc = 0;
    hw_set_load(s, &hw, err);
    if (!err->status)
        load_kernels(s, &kernels, &kernel_count, err);
    ValidateModels models = { hw.count ? hw.profiles[0] : NULL, kernels, kernel_count, s->want_phases };
    if (!err->status)
        check_traces(s, (char *const *)traces->pdata, &models, &hw, out, notes, progress, progress_ctx, err);
    if (!err->status)
        note_profiles(&hw, s->is_profile_default, out, notes);
    if (!err->status)
        runs_rc = check_runs_files(s, runs, &models, &hw, out, err);
    if (!err->status && out->count > 0)
        conclude(s, out, notes, err);
    out->exit_code = MAX(out->count > 0 && !out->verdict.is_pass, runs_rc);
    out->profile_paths = hw.paths, hw.paths = NULL; /* the checks' profile_path point into them */
    hw_set_clear(&hw);
    for (int i = 0; i < kernel_count; i++)
        sim_kernel_free(kernels[i]);
    g_free(kernels);
    g_ptr_array_free(runs, TRUE), g_ptr_array_free(traces, TRUE);
    out->note_count = (int)notes->len;
    g_ptr_array_add(notes, NULL);
    out->notes = (char **)g_ptr_array_free(notes, FALSE);
    return err->status;
}

void sim_validate_outcome_write_json(FILE *f, const ValidateOutcome *out)
{
    sim_validate_write_json(f, (const Trace *const *)out->traces, out->checks, out->count, out->files, out->file_count,
                            &out->report, &out->verdict);
}

void sim_validate_outcome_clear(ValidateOutcome *out)
{
    for (int i = 0; i < out->count; i++)
        sim_trace_free(out->traces[i]);
    for (int i = 0; i < out->file_count; i++) {
        g_free(out->files[i].path);
        g_free(out->files[i].checks);
        sim_kernel_runs_free(out->files[i].runs);
    }
    g_free(out->traces), g_free(out->checks), g_free(out->files);
    sim_validate_report_clear(&out->report);
    g_strfreev(out->notes), g_strfreev(out->profiles_used), g_strfreev(out->profile_paths);
    memset(out, 0, sizeof *out);
}

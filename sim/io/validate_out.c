/* `sim validate --json` and dashsim_validate_json's report: each trace's fit and prediction, each kernel-runs
 * file's runs, the rankings, the summary, the hand-offs by load and the verdict, in one key order. A writer
 * only: every number comes from sim/model/validate. Invariant: the same checks give the same bytes. */
#include "validate_out.h"

#include <cjson/cJSON.h>
#include <dashsim/version.h>

const char *const sim_validate_model_names[VMODEL_COUNT] = { "placed", "uniform", "paper", "predicted" };
const char *const sim_validate_mode_names[VMODE_COUNT] = { "serial", "async", "all" };

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
        if (c->profile_path && !t->kernel.name[0])
            cJSON_AddStringToObject(p, "profile", c->profile_path);
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
        cJSON *model = cJSON_AddObjectToObject(sum, sim_validate_model_names[m]);
        for (int k = 0; k < VMODE_COUNT; k++)
            cJSON_AddItemToObject(model, sim_validate_mode_names[k], stats_json(&r->makespan[m][k]));
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

/* One timed run of a kernel-runs file and its check. */
static cJSON *run_json(const KernelRun *r, const RunCheck *c)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "policy", r->policy);
    cJSON_AddStringToObject(j, "mask", r->mask == MASK_CAUSAL ? "causal" : "full");
    cJSON_AddNumberToObject(j, "seqlen", r->seqlen), cJSON_AddNumberToObject(j, "batch", r->batch);
    cJSON_AddNumberToObject(j, "heads", r->heads), cJSON_AddNumberToObject(j, "kv_heads", r->kv_heads);
    cJSON_AddNumberToObject(j, "head_dim", r->head_dim);
    cJSON_AddStringToObject(j, "mode", r->is_atomic ? "atomic" : "deterministic");
    cJSON_AddNumberToObject(j, "measured_ns", (double)r->time_ns);
    if (c->has_prediction) {
        cJSON_AddNumberToObject(j, "predicted_ns", (double)c->predicted_ns);
        cJSON_AddNumberToObject(j, "error", c->error);
    } else
        cJSON_AddStringToObject(j, "not_predicted", c->skip);
    if (c->has_speedup) {
        cJSON_AddNumberToObject(j, "speedup_measured", c->speedup_measured);
        cJSON_AddNumberToObject(j, "speedup_predicted", c->speedup_predicted);
        cJSON_AddNumberToObject(j, "speedup_error_pp", c->speedup_error_pp);
    }
    return j;
}

/* One kernel-runs file: its runs and their summary. */
static cJSON *runs_file_json(const ValidateRunsFile *file)
{
    const RunsReport *rep = &file->rep;
    cJSON *f = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(f, "runs");
    cJSON_AddStringToObject(f, "file", file->path);
    for (int i = 0; i < file->runs->count; i++)
        cJSON_AddItemToArray(list, run_json(&file->runs->runs[i], &file->checks[i]));
    cJSON *sum = cJSON_AddObjectToObject(f, "summary");
    cJSON_AddNumberToObject(sum, "runs", rep->runs), cJSON_AddNumberToObject(sum, "predicted", rep->predicted);
    cJSON_AddItemToObject(sum, "time_error", stats_json(&rep->time));
    cJSON_AddItemToObject(sum, "speedup_error_pp", stats_json(&rep->speedup_pp));
    cJSON_AddNumberToObject(sum, "shapes", rep->shapes), cJSON_AddNumberToObject(sum, "decisive_shapes", rep->decisive);
    cJSON_AddNumberToObject(sum, "best_picked_right", rep->picked_right);
    cJSON_AddBoolToObject(sum, "pass", file->is_pass);
    return f;
}

/* The verdict's keys, after the report. */
static void add_verdict_json(cJSON *out, const ValidateVerdict *v)
{
    cJSON_AddStringToObject(out, "checked_model", v->is_predict ? "predicted (from the profiles, no per-trace fit)"
                                                                : "placed (fitted to each trace)");
    cJSON_AddNumberToObject(out, "max_abs_makespan_error", v->worst);
    cJSON_AddNumberToObject(out, "max_abs_speedup_error_pp", v->worst_speedup_pp);
    if (v->is_predict)
        cJSON_AddNumberToObject(out, "not_predicted", v->missed);
    cJSON_AddBoolToObject(out, "pass", v->is_pass);
}

void sim_validate_write_json(FILE *f, const Trace *const *traces, const TraceCheck *checks, int count,
                             const ValidateRunsFile *files, int file_count, const ValidateReport *r,
                             const ValidateVerdict *v)
{
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "dashsim_version", DASHSIM_VERSION);
    cJSON *list = count > 0 ? cJSON_AddArrayToObject(out, "traces") : NULL;
    if (file_count > 0 || count == 0) {
        cJSON *runs = cJSON_AddArrayToObject(out, "kernel_runs");
        for (int i = 0; i < file_count; i++)
            cJSON_AddItemToArray(runs, runs_file_json(&files[i]));
    }
    if (count > 0) {
        if (v->profile_path)
            cJSON_AddStringToObject(out, "profile", v->profile_path);
        if (v->profiles) {
            int n = 0;
            while (v->profiles[n])
                n++;
            cJSON_AddItemToObject(out, "profiles", cJSON_CreateStringArray((const char *const *)v->profiles, n));
        }
        for (int i = 0; i < count; i++)
            cJSON_AddItemToArray(list, check_json(traces[i], &checks[i]));
        add_report_json(out, r);
        add_verdict_json(out, v);
    }
    char *s = cJSON_PrintUnformatted(out);
    fprintf(f, "%s\n", s);
    cJSON_free(s);
    cJSON_Delete(out);
}

/* Predicting timed kernel runs (validate_runs.h). */
#include "validate_runs.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "costing.h"
#include "engine.h"
#include "stats.h"

/* The predicted end-to-end time of one run (sim_cost_time_ns). */
static SimStatus predict_run(const KernelRun *run, const ValidateModels *m, const KernelProfile *kernel, RunCheck *c,
                             SimError *err)
{
    const PolicyOps *ops = policy_find(run->policy);
    if (!ops) {
        snprintf(c->skip, sizeof c->skip, "no registered policy '%.40s'", run->policy);
        return SIM_OK;
    }
    CostQuery q = { .shape = { .batch = run->batch, .heads = run->heads, .kv_heads = run->kv_heads,
                               .seqlen_q = run->seqlen, .seqlen_k = run->seqlen, .head_dim = run->head_dim,
                               .mask = run->mask, .dtype = DTYPE_BF16 },
                    .preset = "h100-sxm", .hw = m->hw, .kernel = kernel, .reduce = REDUCE_ASYNC };
    Workload wl;
    AttnCosts costs;
    CostReport rep;
    SimLoadModel load;
    SimError why = { 0 };
    if (sim_cost_attention(&q, &wl, &costs, &rep, &load, &why) != SIM_OK) {
        snprintf(c->skip, sizeof c->skip, "%.127s", why.msg);
        return SIM_OK;
    }
    Plan *plan = policy_build(ops, &wl, &why);
    if (!plan) {
        snprintf(c->skip, sizeof c->skip, "%.127s", why.msg);
        sim_profile_load_clear(&load);
        return SIM_OK;
    }
    int64_t makespan_ns;
    if (sim_attention_clocked_makespan(plan, &costs, &makespan_ns, err) == SIM_OK) {
        c->has_prediction = true;
        c->predicted_ns = sim_cost_time_ns(&rep, makespan_ns);
        c->error = (double)(c->predicted_ns - run->time_ns) / (double)run->time_ns;
    }
    plan_free(plan);
    sim_profile_load_clear(&load);
    return err->status;
}

static bool same_shape(const KernelRun *a, const KernelRun *b)
{
    return a->seqlen == b->seqlen && a->batch == b->batch && a->heads == b->heads && a->kv_heads == b->kv_heads &&
           a->head_dim == b->head_dim && a->mask == b->mask;
}

static void add_stat(double *v, int n, double tol, ErrorStats *st)
{
    *st = (ErrorStats){ .n = n };
    for (int i = 0; i < n; i++) {
        v[i] = fabs(v[i]);
        st->max_abs = MAX(st->max_abs, v[i]);
        st->within += v[i] <= tol + 1e-12;
    }
    st->median_abs = n ? sim_median_f64(v, n) : 0;
}

/* Per shape: speedups over fa3, and whether the predicted best is the measured best where it matters. */
static void judge_shapes(const KernelRuns *runs, RunCheck *c, double pick_gap, RunsReport *rep)
{
    bool *seen = g_new0(bool, runs->count);
    for (int i = 0; i < runs->count; i++) {
        if (seen[i] || !c[i].has_prediction)
            continue;
        int fa3 = -1, best_m = -1, best_p = -1, members = 0;
        int64_t second = INT64_MAX;
        for (int j = i; j < runs->count; j++)
            if (c[j].has_prediction && same_shape(&runs->runs[i], &runs->runs[j])) {
                seen[j] = true, members++;
                fa3 = strcmp(runs->runs[j].policy, "fa3") == 0 ? j : fa3;
                if (best_p < 0 || c[j].predicted_ns < c[best_p].predicted_ns)
                    best_p = j;
                if (best_m < 0 || runs->runs[j].time_ns < runs->runs[best_m].time_ns) {
                    second = best_m >= 0 ? runs->runs[best_m].time_ns : second;
                    best_m = j;
                } else
                    second = MIN(second, runs->runs[j].time_ns);
            }
        if (members < 2)
            continue;
        rep->shapes++;
        if ((double)(second - runs->runs[best_m].time_ns) / (double)runs->runs[best_m].time_ns > pick_gap) {
            rep->decisive++;
            rep->picked_right += best_p == best_m;
        }
        for (int j = i; fa3 >= 0 && j < runs->count; j++)
            if (j != fa3 && c[j].has_prediction && same_shape(&runs->runs[i], &runs->runs[j])) {
                c[j].has_speedup = true;
                c[j].speedup_measured = (double)runs->runs[fa3].time_ns / (double)runs->runs[j].time_ns;
                c[j].speedup_predicted = (double)c[fa3].predicted_ns / (double)c[j].predicted_ns;
                c[j].speedup_error_pp = 100.0 * (c[j].speedup_predicted - c[j].speedup_measured);
            }
    }
    g_free(seen);
}

SimStatus sim_validate_runs(const KernelRuns *runs, const ValidateModels *m, double tolerance,
                            double speedup_tolerance_pp, double pick_gap, RunCheck *checks, RunsReport *rep,
                            SimError *err)
{
    *rep = (RunsReport){ 0 };
    const KernelProfile *kernel = sim_validate_kernel_for(m, runs->kernel, runs->gpu_name);
    for (int i = 0; i < runs->count && !err->status; i++) {
        const KernelRun *r = &runs->runs[i];
        checks[i] = (RunCheck){ .run = r };
        if (r->is_atomic)
            snprintf(checks[i].skip, sizeof checks[i].skip, "atomic mode: no schedule to predict");
        else if (!r->is_ok)
            snprintf(checks[i].skip, sizeof checks[i].skip, "the run failed (error, wrong gradients or not "
                     "repeatable)");
        else if (!kernel)
            snprintf(checks[i].skip, sizeof checks[i].skip, "no kernel profile of kernel %.40s was given or found",
                     runs->kernel);
        else
            predict_run(r, m, kernel, &checks[i], err);
        rep->runs += !r->is_atomic && r->is_ok;
        rep->predicted += checks[i].has_prediction;
    }
    if (err->status)
        return err->status;
    judge_shapes(runs, checks, pick_gap, rep);
    double *v = g_new(double, runs->count + 1), *sp = g_new(double, runs->count + 1);
    int n = 0, ns = 0;
    for (int i = 0; i < runs->count; i++) {
        if (checks[i].has_prediction)
            v[n++] = checks[i].error;
        if (checks[i].has_speedup)
            sp[ns++] = checks[i].speedup_error_pp;
    }
    add_stat(v, n, tolerance, &rep->time);
    add_stat(sp, ns, speedup_tolerance_pp, &rep->speedup_pp);
    g_free(v), g_free(sp);
    return SIM_OK;
}

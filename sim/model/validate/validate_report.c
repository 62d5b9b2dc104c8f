/* Validation summaries. Groups are shapes (Trace.group); traces of one group with the same policy are
 * repeated runs of one configuration, and their spread is the noise floor below which a measured gap
 * between two policies does not count for the ranking. */
#include "validate_report.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "stats.h"

static ErrorStats stats_of(double *v, int n, double limit)
{
    ErrorStats s = { .n = n };
    for (int i = 0; i < n; i++) {
        v[i] = fabs(v[i]);
        s.within += v[i] <= limit;
        s.max_abs = MAX(s.max_abs, v[i]);
    }
    s.median_abs = sim_median_f64(v, n);
    return s;
}

static double model_error(const TraceCheck *c, int model)
{
    return model == VMODEL_PLACED ? c->makespan_error : model == VMODEL_UNIFORM ? c->uniform_makespan_error
         : model == VMODEL_PAPER ? c->paper_makespan_error : c->profile_makespan_error;
}

static void error_stats(const Trace *const *traces, const TraceCheck *checks, int count, double tol, double sp_tol,
                        ValidateReport *r)
{
    double *v = g_new(double, MAX(count, 1));
    for (int model = 0; model < VMODEL_COUNT; model++)
        for (int mode = 0; mode < VMODE_COUNT; mode++) {
            int n = 0;
            for (int i = 0; i < count; i++)
                if ((mode == VMODE_ALL || (traces[i]->model.reduce == REDUCE_ASYNC) == (mode == VMODE_ASYNC)) &&
                    (model != VMODEL_PROFILE || checks[i].has_profile))
                    v[n++] = model_error(&checks[i], model);
            r->makespan[model][mode] = stats_of(v, n, tol);
        }
    for (int k = 0; k < 2; k++) {
        int n = 0, m = 0;
        for (int i = 0; i < count; i++)
            if (k == 0 ? checks[i].has_speedup : checks[i].has_profile_speedup)
                v[n++] = k == 0 ? checks[i].speedup_error_pp : checks[i].profile_speedup_error_pp;
        r->speedup_pp[k] = stats_of(v, n, sp_tol);
        for (int i = 0; i < count; i++)
            if (k == 0 || checks[i].has_profile)
                v[m++] = k == 0 ? checks[i].start_mape : checks[i].profile_start_mape;
        r->start_mape[k] = stats_of(v, m, INFINITY);
    }
    for (int i = 0; i < count; i++)
        r->profile_traces += checks[i].has_profile;
    g_free(v);
}

/* Repeated runs: same group and policy. The floor is the largest (max - min) / min among them. */
static void noise_floor(const Trace *const *traces, const TraceCheck *checks, int count, ValidateReport *r)
{
    for (int i = 0; i < count; i++) {
        int64_t lo = checks[i].measured_ns, hi = lo;
        bool is_first = true, has_repeat = false;
        for (int j = 0; j < count; j++) {
            if (j == i || strcmp(traces[i]->group, traces[j]->group) || strcmp(traces[i]->policy, traces[j]->policy))
                continue;
            is_first &= j > i, has_repeat = true;
            lo = MIN(lo, checks[j].measured_ns), hi = MAX(hi, checks[j].measured_ns);
        }
        if (has_repeat && is_first) {
            r->repeat_sets++;
            r->noise_floor = MAX(r->noise_floor, (double)(hi - lo) / (double)lo);
        }
    }
}

static int sign(int64_t x)
{
    return (x > 0) - (x < 0);
}

/* Kendall tau of one group over the pairs of different policies whose measured gap exceeds the floor. */
static void rank_group(const Trace *const *traces, const TraceCheck *checks, const int *members, int n, double floor,
                       GroupRank *g)
{
    int64_t score[2] = { 0, 0 };
    g->has_profile = true;
    for (int a = 0; a < n; a++) {
        const TraceCheck *x = &checks[members[a]];
        g->has_profile &= x->has_profile;
        for (int b = a + 1; b < n; b++) {
            const TraceCheck *y = &checks[members[b]];
            if (strcmp(traces[members[a]]->policy, traces[members[b]]->policy) == 0)
                continue;
            g->pairs++;
            int64_t dm = x->measured_ns - y->measured_ns;
            if ((double)llabs(dm) <= floor * (double)MIN(x->measured_ns, y->measured_ns))
                continue;
            g->pairs_counted++;
            score[0] += sign(dm) * sign(x->predicted_ns - y->predicted_ns);
            score[1] += sign(dm) * sign(x->profile_ns - y->profile_ns);
        }
    }
    for (int k = 0; k < 2; k++)
        g->tau[k] = g->pairs_counted ? (double)score[k] / g->pairs_counted : 1.0;
}

static void rankings(const Trace *const *traces, const TraceCheck *checks, int count, ValidateReport *r)
{
    int *members = g_new(int, MAX(count, 1));
    r->groups = g_new0(GroupRank, MAX(count, 1));
    int tau_groups[2] = { 0, 0 };
    for (int i = 0; i < count; i++) {
        bool is_first = true;
        for (int k = 0; k < i && is_first; k++)
            is_first = strcmp(traces[k]->group, traces[i]->group) != 0;
        if (!is_first)
            continue;
        int n = 0;
        for (int k = i; k < count; k++)
            if (strcmp(traces[k]->group, traces[i]->group) == 0)
                members[n++] = k;
        GroupRank *g = &r->groups[r->group_count++];
        *g = (GroupRank){ .group = traces[i]->group, .policies = n };
        rank_group(traces, checks, members, n, r->noise_floor, g);
        for (int k = 0; k < 2; k++)
            if (k == 0 || g->has_profile) {
                tau_groups[k]++;
                r->tau_one[k] += g->tau[k] == 1.0;
                r->mean_tau[k] += g->tau[k];
            }
    }
    for (int k = 0; k < 2; k++)
        r->mean_tau[k] = tau_groups[k] ? r->mean_tau[k] / tau_groups[k] : 1.0;
    g_free(members);
}

/* Hand-off latency by reductions in flight at the release, buckets of 16, over every trace. */
static void handoffs(const Trace *const *traces, int count, ValidateReport *r)
{
    int64_t total = 0;
    for (int i = 0; i < count; i++)
        total += traces[i]->task_count;
    int64_t *load = g_new(int64_t, MAX(total, 1)), *lat = g_new(int64_t, MAX(total, 1)), *v = g_new(int64_t, MAX(total, 1)), n = 0;
    for (int i = 0; i < count; i++)
        n += sim_validate_handoffs_by_load(traces[i], load + n, lat + n);
    for (int b = 0; b < 9; b++) {
        int64_t k = 0;
        for (int64_t i = 0; i < n; i++)
            if (load[i] / 16 == b || (b == 8 && load[i] >= 128))
                v[k++] = lat[i];
        if (k == 0)
            continue;
        r->handoffs[r->handoff_bucket_count++] = (HandoffBucket){
            .in_flight_min = 16 * b, .in_flight_max = b == 8 ? -1 : 16 * b + 15, .n = (int)k,
            .p10_ns = sim_quantile_i64(v, k, 0.1), .p90_ns = sim_quantile_i64(v, k, 0.9),
            .median_ns = sim_median_i64(v, k) };
    }
    g_free(load), g_free(lat), g_free(v);
}

void sim_validate_report(const Trace *const *traces, const TraceCheck *checks, int count, double tolerance,
                         double speedup_tolerance_pp, ValidateReport *out)
{
    *out = (ValidateReport){ 0 };
    error_stats(traces, checks, count, tolerance, speedup_tolerance_pp, out);
    noise_floor(traces, checks, count, out);
    rankings(traces, checks, count, out);
    handoffs(traces, count, out);
}

void sim_validate_report_clear(ValidateReport *r)
{
    g_free(r->groups);
    *r = (ValidateReport){ 0 };
}

/* Validation: plan check, parameter fit, prediction. Times of a trace are shifted so that its first
 * compute starts at 0; the model's are shifted by its prologue, so both spans start at a first compute. */
#include "validate.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "json_file.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] (reorders v); 0 when n = 0. */
static int64_t median(int64_t *v, int64_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const Trace *sort_ctx;

/* Trace tasks by (cta, compute start): a CTA's tasks in execution order. */
static int cmp_task(const void *a, const void *b)
{
    const TraceTask *x = &sort_ctx->tasks[*(const int64_t *)a], *y = &sort_ctx->tasks[*(const int64_t *)b];
    if (x->cta != y->cta)
        return x->cta < y->cta ? -1 : 1;
    return (x->c_start > y->c_start) - (x->c_start < y->c_start);
}

/* order[i] = trace row of plan task i, after checking the trace ran exactly this plan. */
static SimStatus match_plan(const Trace *t, const Plan *plan, int64_t *order, SimError *err)
{
    if (t->task_count != plan->task_count)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: has %" G_GINT64_FORMAT " tasks, but policy %s plans %"
                             G_GINT64_FORMAT " for this shape", t->path, t->task_count, t->policy, plan->task_count);
    int64_t *rows = g_new(int64_t, t->task_count);
    for (int64_t i = 0; i < t->task_count; i++)
        rows[i] = i;
    sort_ctx = t; /* validation runs on one thread */
    qsort(rows, t->task_count, sizeof *rows, cmp_task);
    int64_t k = 0;
    for (int32_t c = 0; c < plan->cta_count && !err->status; c++)
        for (int32_t j = 0; j < plan->ctas[c].task_count && !err->status; j++, k++) {
            const PlanTask *p = &plan->tasks[plan->ctas[c].task_begin + j];
            const TraceTask *m = &t->tasks[rows[k]];
            if (m->cta != c || m->head != p->head || m->kv != p->kv || m->q != p->q || m->rank != p->rank)
                sim_error_set(err, SIM_ERR_INPUT, "%s: task %d of CTA %d ran (head %d, kv %d, q %d, rank %d), but "
                              "policy %s plans (head %d, kv %d, q %d, rank %d): not this policy's plan", t->path,
                              j, c, m->head, m->kv, m->q, m->rank, t->policy, p->head, p->kv, p->q, p->rank);
            order[plan->ctas[c].task_begin + j] = rows[k];
        }
    g_free(rows);
    return err->status;
}

/* Medians of the trace's phases; see FittedCosts. order maps plan tasks to trace rows. */
static FittedCosts fit_costs(const Trace *t, const Plan *plan, const int64_t *order, const int32_t *matrix)
{
    int64_t n = t->task_count, *compute = g_new(int64_t, n), *reduce = g_new(int64_t, n);
    int64_t *gap = g_new(int64_t, n), *handoff = g_new(int64_t, n), *prologue = g_new(int64_t, plan->cta_count);
    int64_t n_gap = 0, n_handoff = 0, origin = INT64_MAX;
    bool is_async = t->model.reduce == REDUCE_ASYNC;
    for (int64_t i = 0; i < n; i++) {
        compute[i] = t->tasks[i].c_end - t->tasks[i].c_start;
        reduce[i] = t->tasks[i].r_end - t->tasks[i].r_start;
        origin = MIN(origin, t->tasks[i].c_start);
    }
    for (int32_t c = 0; c < plan->cta_count; c++) {
        const PlanCta *cta = &plan->ctas[c];
        prologue[c] = t->tasks[order[cta->task_begin]].c_start - origin;
        for (int32_t j = 1; j < cta->task_count; j++) {
            const TraceTask *prev = &t->tasks[order[cta->task_begin + j - 1]], *cur = &t->tasks[order[cta->task_begin + j]];
            gap[n_gap++] = MAX(0, cur->c_start - (is_async ? prev->c_end : prev->r_end));
        }
    }
    /* Hand-off: the next reduction of a row was already waiting when the previous one ended. */
    int64_t rows = (int64_t)t->wl.heads * t->wl.q_tiles, *by_rank = g_new(int64_t, rows * t->wl.kv_tiles);
    for (int64_t i = 0; i < n; i++)
        by_rank[((int64_t)t->tasks[i].head * t->wl.q_tiles + t->tasks[i].q) * t->wl.kv_tiles + t->tasks[i].rank] = i;
    for (int64_t i = 0; i < n; i++) {
        const TraceTask *cur = &t->tasks[i];
        if (cur->rank == 0)
            continue;
        const TraceTask *prev = &t->tasks[by_rank[((int64_t)cur->head * t->wl.q_tiles + cur->q) * t->wl.kv_tiles + cur->rank - 1]];
        if (cur->r_ready <= prev->r_end && prev->smid != cur->smid)
            handoff[n_handoff++] = MAX(0, cur->r_start - prev->r_end);
    }
    FittedCosts fit = { .c_ns = median(compute, n) + median(gap, n_gap), .r_ns = median(reduce, n),
                        .latency_ns = median(handoff, n_handoff), .prologue_ns = median(prologue, plan->cta_count) };
    if (matrix) {
        int64_t m = t->wl.n_sm, *offdiag = g_new(int64_t, m * m), k = 0;
        for (int64_t a = 0; a < m; a++)
            for (int64_t b = 0; b < m; b++)
                if (a != b && matrix[a * m + b] >= 0)
                    offdiag[k++] = matrix[a * m + b];
        fit.latency_ns = median(offdiag, k);
        fit.is_latency_from_matrix = true;
        g_free(offdiag);
    }
    g_free(compute), g_free(reduce), g_free(gap), g_free(handoff), g_free(prologue), g_free(by_rank);
    return fit;
}

/* Runs the model; pred_start[i] = compute start of plan task i relative to the first compute start. */
static SimStatus predict(const Plan *plan, const AttnCosts *costs, int64_t *span, int64_t *pred_start, SimError *err)
{
    SimProgram *prog = sim_attention_program(plan, costs);
    SimSchedule s = { 0 };
    if (sim_engine_run(prog, &s, err) == SIM_OK) {
        *span = s.makespan_ns - costs->cta_prologue_ns;
        for (int64_t op = 0; pred_start && op < prog->op_count; op++)
            if (prog->ops[op].kind == SIM_OP_COMPUTE)
                pred_start[prog->ops[op].task] = s.start_ns[op] - costs->cta_prologue_ns;
    }
    sim_schedule_clear(&s);
    sim_program_free(prog);
    return err->status;
}

static double start_mape(const Trace *t, const int64_t *order, const int64_t *pred, int64_t n, int64_t origin,
                         int64_t c_ns)
{
    double sum = 0;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t meas = t->tasks[order[i]].c_start - origin;
        if (meas >= c_ns && meas > 0) {
            sum += fabs((double)(pred[i] - meas)) / (double)meas;
            count++;
        }
    }
    return count ? sum / (double)count : 0.0;
}

SimStatus sim_validate_trace(const Trace *t, const int32_t *latency_matrix, TraceCheck *out, SimError *err)
{
    *out = (TraceCheck){ 0 };
    const PolicyOps *ops = policy_find(t->policy);
    if (!ops)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/policy: unknown policy '%s'", t->path, t->policy);
    char msg[256];
    Plan *plan = policy_build(ops, &t->wl, msg, sizeof msg);
    if (!plan)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: %s", t->path, msg);
    int64_t *order = g_new(int64_t, plan->task_count), *pred = g_new(int64_t, plan->task_count);
    if (match_plan(t, plan, order, err) == SIM_OK) {
        out->fit = fit_costs(t, plan, order, latency_matrix);
        int64_t origin = INT64_MAX, end = 0;
        for (int64_t i = 0; i < t->task_count; i++)
            origin = MIN(origin, t->tasks[i].c_start), end = MAX(end, t->tasks[i].r_end);
        out->measured_ns = end - origin;
        AttnCosts model = t->model, paper = t->model;
        model.c_ns = paper.c_ns = out->fit.c_ns;
        model.r_ns = paper.r_ns = out->fit.r_ns;
        model.latency_ns = out->fit.latency_ns;
        model.cta_prologue_ns = out->fit.prologue_ns;
        if (predict(plan, &model, &out->predicted_ns, pred, err) == SIM_OK &&
            predict(plan, &paper, &out->paper_ns, NULL, err) == SIM_OK) {
            out->makespan_error = (double)(out->predicted_ns - out->measured_ns) / (double)out->measured_ns;
            out->paper_makespan_error = (double)(out->paper_ns - out->measured_ns) / (double)out->measured_ns;
            out->start_mape = start_mape(t, order, pred, plan->task_count, origin, out->fit.c_ns);
        }
    }
    g_free(order), g_free(pred);
    plan_free(plan);
    return err->status;
}

void sim_validate_speedups(const Trace *const *traces, TraceCheck *checks, int count)
{
    for (int i = 0; i < count; i++)
        for (int j = 0; j < count; j++)
            if (i != j && strcmp(traces[j]->policy, "fa3") == 0 && strcmp(traces[i]->policy, "fa3") != 0 &&
                strcmp(traces[i]->group, traces[j]->group) == 0) {
                TraceCheck *c = &checks[i];
                c->has_speedup = true;
                c->speedup_measured = (double)checks[j].measured_ns / (double)c->measured_ns;
                c->speedup_predicted = (double)checks[j].predicted_ns / (double)c->predicted_ns;
                c->speedup_error_pp = 100.0 * (c->speedup_predicted - c->speedup_measured);
            }
}

double sim_validate_kendall_tau(const TraceCheck *const *checks, int count)
{
    int64_t score = 0, pairs = 0;
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++, pairs++) {
            int64_t dm = checks[i]->measured_ns - checks[j]->measured_ns;
            int64_t dp = checks[i]->predicted_ns - checks[j]->predicted_ns;
            score += ((dm > 0) - (dm < 0)) * ((dp > 0) - (dp < 0));
        }
    return pairs ? (double)score / (double)pairs : 1.0;
}

SimStatus sim_validate_load_latency(const char *path, int n_sm, int32_t **matrix, SimError *err)
{
    *matrix = NULL;
    cJSON *root;
    if (sim_json_parse_file(path, 64L << 20, &root, err))
        return err->status;
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "latency_ns");
    if (!cJSON_IsArray(rows) || cJSON_GetArraySize(rows) != n_sm)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns: must be a %d x %d array of numbers", path, n_sm, n_sm);
    int32_t *m = g_new(int32_t, (int64_t)n_sm * n_sm);
    int a = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !err->status; row = row->next, a++) {
        if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != n_sm) {
            sim_error_set(err, SIM_ERR_INPUT, "%s: /latency_ns/%d: must hold %d numbers", path, a, n_sm);
            break;
        }
        int b = 0;
        for (const cJSON *x = row->child; x; x = x->next, b++)
            m[(int64_t)a * n_sm + b] = cJSON_IsNumber(x) ? (int32_t)x->valuedouble : -1;
    }
    cJSON_Delete(root);
    if (err->status) {
        g_free(m);
        return err->status;
    }
    *matrix = m;
    return SIM_OK;
}

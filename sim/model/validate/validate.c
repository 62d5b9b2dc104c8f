/* Validation: plan check, parameter fit, prediction. Times of a trace are shifted so that its first
 * compute starts at 0; the model's are shifted by its prologue, so both spans start at a first compute. */
#include "validate.h"

#include "costing.h"

#include "stats.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

typedef struct {
    int64_t cta, c_start, row;
} TaskKey;

/* Trace tasks by (cta, compute start): a CTA's tasks in execution order. */
static int cmp_task(const void *a, const void *b)
{
    const TaskKey *x = a, *y = b;
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
    TaskKey *keys = g_new(TaskKey, t->task_count);
    for (int64_t i = 0; i < t->task_count; i++)
        keys[i] = (TaskKey){ t->tasks[i].cta, t->tasks[i].c_start, i };
    bool is_sorted = true; /* the executors write each CTA's tasks in order: then no sort */
    for (int64_t i = 1; i < t->task_count && is_sorted; i++)
        is_sorted = cmp_task(&keys[i - 1], &keys[i]) <= 0;
    if (!is_sorted)
        qsort(keys, t->task_count, sizeof *keys, cmp_task);
    int64_t k = 0;
    for (int32_t c = 0; c < plan->cta_count && !err->status; c++)
        for (int32_t j = 0; j < plan->ctas[c].task_count && !err->status; j++, k++) {
            const PlanTask *p = &plan->tasks[plan->ctas[c].task_begin + j];
            const TraceTask *m = &t->tasks[keys[k].row];
            if (m->cta != c || m->head != p->head || m->kv != p->kv || m->q != p->q || m->rank != p->rank)
                sim_error_set(err, SIM_ERR_INPUT, "%s: task %d of CTA %d ran (head %d, kv %d, q %d, rank %d), but "
                              "policy %s plans (head %d, kv %d, q %d, rank %d): not this policy's plan", t->path,
                              j, c, m->head, m->kv, m->q, m->rank, t->policy, p->head, p->kv, p->q, p->rank);
            order[plan->ctas[c].task_begin + j] = keys[k].row;
        }
    g_free(keys);
    return err->status;
}

/* Every measured hand-off: the next reduction of a row was already waiting when the previous one ended,
 * on another SM; hand-off = its semaphore turn - the previous release. Appends the release time and the
 * hand-off of each to the two arrays. */
static void waited_handoffs(const Trace *t, GArray *release_ns, GArray *handoff_ns)
{
    int64_t n = t->task_count, rows = (int64_t)t->wl.heads * t->wl.q_tiles;
    int64_t *by_rank = g_new(int64_t, rows * t->wl.kv_tiles);
    for (int64_t i = 0; i < n; i++)
        by_rank[((int64_t)t->tasks[i].head * t->wl.q_tiles + t->tasks[i].q) * t->wl.kv_tiles + t->tasks[i].rank] = i;
    for (int64_t i = 0; i < n; i++) {
        const TraceTask *cur = &t->tasks[i];
        if (cur->rank == 0)
            continue;
        const TraceTask *prev = &t->tasks[by_rank[((int64_t)cur->head * t->wl.q_tiles + cur->q) * t->wl.kv_tiles + cur->rank - 1]];
        if (cur->r_ready > prev->r_end || prev->smid == cur->smid)
            continue;
        int64_t h = MAX(0, cur->r_start - prev->r_end);
        g_array_append_val(release_ns, prev->r_end);
        g_array_append_val(handoff_ns, h);
    }
    g_free(by_rank);
}

/* Median of the measured hand-offs; *samples = how many there were. */
static int64_t median_handoff(const Trace *t, int64_t *samples)
{
    GArray *release = g_array_new(FALSE, FALSE, sizeof(int64_t)), *handoff = g_array_new(FALSE, FALSE, sizeof(int64_t));
    waited_handoffs(t, release, handoff);
    *samples = handoff->len;
    int64_t m = sim_median_i64((int64_t *)handoff->data, handoff->len);
    g_array_free(release, TRUE), g_array_free(handoff, TRUE);
    return m;
}

/* Number of entries <= x in the sorted v[0..n-1]. */
static int64_t count_le(const int64_t *v, int64_t n, int64_t x)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t sim_validate_handoffs_by_load(const Trace *t, int64_t *in_flight, int64_t *handoff_ns)
{
    int64_t n = t->task_count, *starts = g_new(int64_t, n), *ends = g_new(int64_t, n);
    for (int64_t i = 0; i < n; i++)
        starts[i] = t->tasks[i].r_start, ends[i] = t->tasks[i].r_end;
    sim_sort_i64(starts, n);
    sim_sort_i64(ends, n);
    GArray *release = g_array_new(FALSE, FALSE, sizeof(int64_t)), *handoff = g_array_new(FALSE, FALSE, sizeof(int64_t));
    waited_handoffs(t, release, handoff);
    for (guint k = 0; k < release->len; k++) { /* reductions started and not yet ended at the release */
        int64_t at = g_array_index(release, int64_t, k);
        in_flight[k] = count_le(starts, n, at) - count_le(ends, n, at);
        handoff_ns[k] = g_array_index(handoff, int64_t, k);
    }
    int64_t count = release->len;
    g_array_free(release, TRUE), g_array_free(handoff, TRUE);
    g_free(starts), g_free(ends);
    return count;
}

static int64_t median_matrix(const int32_t *matrix, int64_t n)
{
    int64_t *offdiag = g_new(int64_t, n * n), k = 0;
    for (int64_t a = 0; a < n; a++)
        for (int64_t b = 0; b < n; b++)
            if (a != b && matrix[a * n + b] >= 0)
                offdiag[k++] = matrix[a * n + b];
    int64_t m = sim_median_i64(offdiag, k);
    g_free(offdiag);
    return m;
}

/* CTA launch costs, per FittedCosts.prologue_ns: the first CTA of each SM starts its first compute
 * first[] after the kernel's first compute; a later CTA on an SM (a later wave, or the next plan CTA of a
 * persistent slot) starts later[] after the previous CTA there ended. Returns how many later CTAs. */
static int64_t cta_starts(const Trace *t, const Plan *plan, const int64_t *order, int64_t origin, int64_t *first,
                          int64_t *n_first, int64_t *later)
{
    int64_t *last_end = g_new(int64_t, t->wl.n_sm), n_later = 0;
    for (int32_t sm = 0; sm < t->wl.n_sm; sm++)
        last_end[sm] = -1;
    typedef struct { int64_t start; int32_t cta; } Start; /* CTAs in start order */
    Start *by_start = g_new(Start, plan->cta_count);
    for (int32_t c = 0; c < plan->cta_count; c++)
        by_start[c] = (Start){ t->tasks[order[plan->ctas[c].task_begin]].c_start, c };
    for (int32_t i = 1; i < plan->cta_count; i++) /* insertion sort: CTAs arrive nearly in start order */
        for (int32_t j = i; j > 0 && by_start[j - 1].start > by_start[j].start; j--) {
            Start x = by_start[j];
            by_start[j] = by_start[j - 1], by_start[j - 1] = x;
        }
    *n_first = 0;
    for (int32_t i = 0; i < plan->cta_count; i++) {
        const PlanCta *cta = &plan->ctas[by_start[i].cta];
        int32_t sm = t->tasks[order[cta->task_begin]].smid;
        if (last_end[sm] < 0)
            first[(*n_first)++] = by_start[i].start - origin;
        else
            later[n_later++] = MAX(0, by_start[i].start - last_end[sm]);
        for (int32_t j = 0; j < cta->task_count; j++)
            last_end[sm] = MAX(last_end[sm], t->tasks[order[cta->task_begin + j]].r_end);
    }
    g_free(by_start), g_free(last_end);
    return n_later;
}

/* Medians of the trace's phases; see FittedCosts. order maps plan tasks to trace rows. */
static FittedCosts fit_costs(const Trace *t, const Plan *plan, const int64_t *order, const int32_t *matrix)
{
    int64_t n = t->task_count, *compute = g_new(int64_t, n), *stage = g_new(int64_t, n), *add = g_new(int64_t, n);
    int64_t *acquire = g_new(int64_t, n), *gap = g_new(int64_t, n), *prologue = g_new(int64_t, plan->cta_count);
    int64_t n_gap = 0, n_acquire = 0, origin = INT64_MAX;
    bool is_async = t->model.reduce == REDUCE_ASYNC;
    for (int64_t i = 0; i < n; i++) {
        const TraceTask *k = &t->tasks[i];
        compute[i] = k->c_end - k->c_start, stage[i] = k->r_ready - k->c_end, add[i] = k->r_end - k->r_start;
        if (k->rank == 0)
            acquire[n_acquire++] = k->r_start - k->r_ready;
        origin = MIN(origin, k->c_start);
    }
    for (int32_t c = 0; c < plan->cta_count; c++) {
        const PlanCta *cta = &plan->ctas[c];
        for (int32_t j = 1; j < cta->task_count; j++) {
            const TraceTask *prev = &t->tasks[order[cta->task_begin + j - 1]], *cur = &t->tasks[order[cta->task_begin + j]];
            gap[n_gap++] = MAX(0, cur->c_start - (is_async ? prev->c_end : prev->r_end));
        }
    }
    int64_t *later = g_new(int64_t, plan->cta_count), n_first;
    int64_t n_later = cta_starts(t, plan, order, origin, prologue, &n_first, later);
    FittedCosts f = { .compute_ns = sim_median_i64(compute, n), .stage_ns = sim_median_i64(stage, n),
                      .acquire_ns = sim_median_i64(acquire, n_acquire), .add_ns = sim_median_i64(add, n),
                      .gap_ns = sim_median_i64(gap, n_gap), .first_wave_ns = sim_median_i64(prologue, n_first),
                      .cta_gap_ns = sim_median_i64(later, n_later) };
    /* Every model CTA opens with one prologue; a later CTA's is the one that matters (the first wave only
     * shifts the origin), so it is the CTA gap when there are later CTAs. */
    f.prologue_ns = n_later ? f.cta_gap_ns : f.first_wave_ns;
    g_free(later);
    int64_t samples;
    f.matrix_median_ns = matrix ? median_matrix(matrix, t->wl.n_sm) : 0;
    f.handoff_ns = median_handoff(t, &samples);
    f.is_handoff_from_trace = samples > 0 || !matrix;
    if (!f.is_handoff_from_trace)
        f.handoff_ns = f.matrix_median_ns;
    f.c_ns = f.compute_ns + f.gap_ns + (is_async ? 0 : f.stage_ns);
    f.r_ns = f.acquire_ns + f.add_ns;
    f.latency_ns = MAX(0, f.handoff_ns - f.acquire_ns);
    g_free(compute), g_free(stage), g_free(add), g_free(acquire), g_free(gap), g_free(prologue);
    return f;
}

/* Median over n reductions [start[i], end[i]) of the number in progress at the midpoint of each. */
static int64_t median_in_flight(const int64_t *start, const int64_t *end, int64_t n)
{
    int64_t *s = g_memdup2(start, sizeof *s * MAX(n, 1)), *e = g_memdup2(end, sizeof *e * MAX(n, 1));
    int64_t *count = g_new(int64_t, MAX(n, 1));
    sim_sort_i64(s, n);
    sim_sort_i64(e, n);
    for (int64_t i = 0; i < n; i++) {
        int64_t mid = start[i] + (end[i] - start[i]) / 2;
        count[i] = count_le(s, n, mid) - count_le(e, n, mid);
    }
    int64_t m = sim_median_i64(count, n);
    g_free(s), g_free(e), g_free(count);
    return m;
}

/* The model's phase medians (ModelPhases) from its schedule s of prog. */
static ModelPhases model_phases(const SimProgram *prog, const SimSchedule *s)
{
    int64_t n = prog->op_count, *dur[3] = { g_new(int64_t, n), g_new(int64_t, n), g_new(int64_t, n) }, count[3] = { 0 };
    int64_t *r_start = g_new(int64_t, n), *r_end = g_new(int64_t, n);
    for (int64_t op = 0; op < n; op++) {
        SimOpKind kind = sim_op_kind(prog, op);
        int64_t end = sim_schedule_end_ns(prog, s, op), d = end - s->start_ns[op];
        if (kind == SIM_OP_COMPUTE)
            dur[0][count[0]++] = d;
        else if (kind == SIM_OP_SYNC && op > 0 && sim_op_kind(prog, op - 1) == SIM_OP_COMPUTE)
            dur[1][count[1]++] = d; /* the async deposit follows its compute */
        else if (kind == SIM_OP_REDUCE) {
            r_start[count[2]] = s->start_ns[op], r_end[count[2]] = end;
            dur[2][count[2]++] = d;
        }
    }
    ModelPhases m = { .is_set = true, .compute_ns = sim_median_i64(dur[0], count[0]),
                      .deposit_ns = sim_median_i64(dur[1], count[1]), .reduce_ns = sim_median_i64(dur[2], count[2]),
                      .in_flight = median_in_flight(r_start, r_end, count[2]) };
    for (int k = 0; k < 3; k++)
        g_free(dur[k]);
    g_free(r_start), g_free(r_end);
    return m;
}

/* The trace's reductions in flight (TraceCheck.measured_in_flight). */
static int64_t trace_in_flight(const Trace *t)
{
    int64_t n = t->task_count, *start = g_new(int64_t, MAX(n, 1)), *end = g_new(int64_t, MAX(n, 1));
    for (int64_t i = 0; i < n; i++)
        start[i] = t->tasks[i].r_start, end[i] = t->tasks[i].r_end;
    int64_t m = median_in_flight(start, end, n);
    g_free(start), g_free(end);
    return m;
}

/* Runs prog and keeps it; pred_start[i] = compute start of plan task i relative to the first compute start;
 * the model's phase medians into *phases when not NULL. */
static SimStatus run_kept(const SimProgram *prog, int64_t prologue_ns, int64_t *span, int64_t *pred_start,
                          ModelPhases *phases, SimError *err)
{
    SimSchedule s = { 0 };
    if (sim_engine_run(prog, &s, err) == SIM_OK) {
        *span = s.makespan_ns - prologue_ns;
        for (int64_t op = 0; pred_start && op < prog->op_count; op++)
            if (sim_op_kind(prog, op) == SIM_OP_COMPUTE)
                pred_start[sim_op_task(prog, op)] = s.start_ns[op] - prologue_ns;
        if (phases)
            *phases = model_phases(prog, &s);
    }
    sim_schedule_clear(&s);
    return err->status;
}

/* run_kept, then frees prog. */
static SimStatus run_model_phases(SimProgram *prog, int64_t prologue_ns, int64_t *span, int64_t *pred_start,
                                  ModelPhases *phases, SimError *err)
{
    run_kept(prog, prologue_ns, span, pred_start, phases, err);
    sim_program_free(prog);
    return err->status;
}

/* run_model_phases without the phases. */
static SimStatus run_model(SimProgram *prog, int64_t prologue_ns, int64_t *span, int64_t *pred_start, SimError *err)
{
    return run_model_phases(prog, prologue_ns, span, pred_start, NULL, err);
}

/* Per-SM phase medians: the model's c and r for each SM (serial or async as in fit_costs). */
static void per_sm_costs(const Trace *t, const FittedCosts *f, int64_t *c_of_sm, int64_t *r_of_sm)
{
    int32_t n_sm = t->wl.n_sm;
    bool is_async = t->model.reduce == REDUCE_ASYNC;
    /* the tasks bucketed by SM in one pass (counting sort), each SM's phases in trace order */
    int64_t n = t->task_count, *first = g_new0(int64_t, n_sm + 1);
    int64_t *compute = g_new(int64_t, n), *add = g_new(int64_t, n);
    for (int64_t i = 0; i < n; i++)
        if (t->tasks[i].smid >= 0 && t->tasks[i].smid < n_sm)
            first[t->tasks[i].smid + 1]++;
    for (int32_t sm = 0; sm < n_sm; sm++)
        first[sm + 1] += first[sm];
    int64_t *next = g_memdup2(first, sizeof *first * n_sm);
    for (int64_t i = 0; i < n; i++)
        if (t->tasks[i].smid >= 0 && t->tasks[i].smid < n_sm) {
            int64_t at = next[t->tasks[i].smid]++;
            compute[at] = t->tasks[i].c_end - t->tasks[i].c_start;
            add[at] = t->tasks[i].r_end - t->tasks[i].r_start;
        }
    for (int32_t sm = 0; sm < n_sm; sm++) {
        int64_t k = first[sm + 1] - first[sm];
        int64_t comp = k ? sim_median_i64(compute + first[sm], k) : f->compute_ns;
        int64_t sum = k ? sim_median_i64(add + first[sm], k) : f->add_ns;
        c_of_sm[sm] = comp + f->gap_ns + (is_async ? 0 : f->stage_ns);
        r_of_sm[sm] = sum + f->acquire_ns;
    }
    g_free(compute), g_free(add), g_free(first), g_free(next);
}

/* What place changes in a program: its durations and pins (the uniform model is the same program unplaced,
 * so validate builds it once). */
typedef struct {
    int64_t *duration_ns;
    int32_t *pinned_unit;
} Unplaced;

static Unplaced unplaced_of(const SimProgram *prog)
{
    Unplaced u = { g_new(int64_t, MAX(prog->op_count, 1)), g_new(int32_t, MAX(prog->cta_count, 1)) };
    for (int64_t op = 0; op < prog->op_count; op++)
        u.duration_ns[op] = sim_op_duration_ns(prog, op);
    for (int32_t c = 0; c < prog->cta_count; c++)
        u.pinned_unit[c] = prog->ctas[c].pinned_unit;
    return u;
}

/* Undoes place (and frees u). */
static void unplace(SimProgram *prog, Unplaced *u)
{
    for (int64_t op = 0; op < prog->op_count; op++)
        sim_program_set_duration(prog, op, u->duration_ns[op]);
    for (int32_t c = 0; c < prog->cta_count; c++)
        prog->ctas[c].pinned_unit = u->pinned_unit[c];
    g_free(prog->unit_latency_ns);
    prog->unit_latency_ns = NULL;
    g_free(u->duration_ns), g_free(u->pinned_unit);
}

/* The placed model from the uniform one's program: CTAs pinned where they ran, per-SM durations, per-pair
 * latency. */
static void place(SimProgram *prog, const Trace *t, const Plan *plan, const int64_t *order, const FittedCosts *f,
                  const int32_t *matrix)
{
    int32_t n_sm = t->wl.n_sm;
    int64_t *c_of_sm = g_new(int64_t, n_sm), *r_of_sm = g_new(int64_t, n_sm);
    per_sm_costs(t, f, c_of_sm, r_of_sm);
    for (int32_t c = 0; c < prog->cta_count; c++)
        prog->ctas[c].pinned_unit = t->tasks[order[plan->ctas[c].task_begin]].smid;
    for (int64_t op = 0; op < prog->op_count; op++) {
        int32_t sm = prog->ctas[sim_op_cta(prog, op)].pinned_unit;
        if (sim_op_kind(prog, op) == SIM_OP_COMPUTE)
            sim_program_set_duration(prog, op, c_of_sm[sm]);
        else if (sim_op_kind(prog, op) == SIM_OP_REDUCE)
            sim_program_set_duration(prog, op, r_of_sm[sm]);
    }
    if (matrix) {
        int64_t cells = (int64_t)n_sm * n_sm, subtract = f->acquire_ns;
        prog->unit_latency_ns = g_new(int32_t, cells);
        for (int64_t i = 0; i < cells; i++)
            prog->unit_latency_ns[i] =
                (int32_t)MAX(0, f->handoff_ns + (matrix[i] >= 0 ? matrix[i] - f->matrix_median_ns : 0) - subtract);
    }
    g_free(c_of_sm), g_free(r_of_sm);
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

/* Smids must name units of the model (0..n_sm-1) for the placed model. */
static SimStatus check_smids(const Trace *t, SimError *err)
{
    for (int64_t i = 0; i < t->task_count; i++)
        if (t->tasks[i].smid >= t->wl.n_sm)
            return sim_error_set(err, SIM_ERR_INPUT, "%s: /tasks/%" G_GINT64_FORMAT ": smid %d is not below n_sm %d",
                                 t->path, i, t->tasks[i].smid, t->wl.n_sm);
    return SIM_OK;
}

/* The executor as the profile sees it: a persistent GPU CTA copies its whole task list once, so only the
 * first plan CTA of each slot pays the CTA prologue. */
static SimProgram *executor_program(const Plan *plan, const AttnCosts *costs)
{
    SimProgram *prog = sim_attention_program(plan, costs);
    if (plan->is_persistent && costs->cta_prologue_ns > 0) {
        bool *seen = g_new0(bool, plan->wl.n_sm);
        for (int32_t c = 0; c < prog->cta_count; c++) {
            int32_t slot = prog->ctas[c].pinned_unit;
            if (seen[slot])
                sim_program_set_duration(prog, prog->ctas[c].op_begin, 0); /* its SYNC prologue op */
            seen[slot] = true;
        }
        g_free(seen);
    }
    return prog;
}

/* The profile's prediction of t (TraceCheck.profile_*); t's kernel must be one the profile measured. */
static SimStatus predict_from_profile(const Trace *t, const Plan *plan, const int64_t *order, const ValidateModels *m,
                                      int64_t origin, TraceCheck *out, SimError *err)
{
    const HwProfile *p = m->hw;
    const TraceKernel *k = &t->kernel;
    if (strcmp(k->compute, "mma") != 0 || !k->tile_m || !k->head_dim || !k->reduce_op[0]) {
        snprintf(out->profile_skip, sizeof out->profile_skip, "the profile models mma compute with a known tile "
                 "and reduction method");
        return SIM_OK;
    }
    ProfileQuery q = { .tile_m = k->tile_m, .head_dim = k->head_dim, .compute_iters = k->compute_iters,
                       .reduce = t->model.reduce, .reduce_op = k->reduce_op, .reduce_threads = k->reduce_threads,
                       .dq_buffers = t->model.dq_buffers, .clock_mhz = k->sm_clock_mhz, .n_sm = t->wl.n_sm,
                       .tasks_per_cta = (int)(plan->task_count / MAX(1, plan->is_persistent ? t->wl.n_sm : plan->cta_count)) };
    AttnCosts costs;
    SimLoadModel load;
    SimError why = { 0 };
    if (sim_profile_costs(p, &q, &costs, &load, &why) != SIM_OK) {
        snprintf(out->profile_skip, sizeof out->profile_skip, "%.95s", why.msg);
        return SIM_OK;
    }
    costs.load = &load;
    int64_t *pred = g_new(int64_t, plan->task_count);
    if (run_model_phases(executor_program(plan, &costs), costs.cta_prologue_ns, &out->profile_ns, pred,
                         m->want_phases ? &out->profile_phases : NULL, err) == SIM_OK) {
        out->has_profile = true;
        out->measured_in_flight = m->want_phases ? trace_in_flight(t) : 0;
        out->profile_makespan_error = (double)(out->profile_ns - out->measured_ns) / (double)out->measured_ns;
        out->profile_start_mape = start_mape(t, order, pred, plan->task_count, origin, costs.c_ns);
    }
    g_free(pred);
    sim_profile_load_clear(&load);
    return err->status;
}

const KernelProfile *sim_validate_kernel_for(const ValidateModels *m, const char *name, const char *gpu_name)
{
    const KernelProfile *any = NULL;
    for (int i = 0; i < m->kernel_count; i++)
        if (strcmp(m->kernels[i]->kernel, name) == 0) {
            if (gpu_name && strcmp(m->kernels[i]->gpu_name, gpu_name) == 0)
                return m->kernels[i];
            any = any ? any : m->kernels[i];
        }
    return any;
}

/* The kernel profile's prediction of a real kernel's trace (gpu/bwd): the one costing path from the trace's
 * shape, the plan it ran, the model's own dispatch; nothing from the trace but its shape and plan. */
static SimStatus predict_from_kernel(const Trace *t, const Plan *plan, const ValidateModels *m, TraceCheck *out,
                                     SimError *err)
{
    const TraceKernel *k = &t->kernel;
    if (!k->name[0] || !k->seqlen || !k->batch || !k->heads_per_batch) {
        snprintf(out->profile_skip, sizeof out->profile_skip, "not a real kernel's trace (no kernel, seqlen, batch "
                 "metadata)");
        return SIM_OK;
    }
    const KernelProfile *kernel = sim_validate_kernel_for(m, k->name, t->gpu_name);
    if (!kernel) {
        snprintf(out->profile_skip, sizeof out->profile_skip, "no kernel profile of kernel %.40s was given or found",
                 k->name);
        return SIM_OK;
    }
    CostQuery q = { .shape = { .batch = k->batch, .heads = k->heads_per_batch, .kv_heads = k->kv_heads,
                               .seqlen_q = k->seqlen, .seqlen_k = k->seqlen, .head_dim = k->head_dim,
                               .mask = t->wl.mask, .dtype = DTYPE_BF16 },
                    .preset = "h100-sxm", .hw = m->hw, .kernel = kernel, .reduce = t->model.reduce,
                    .dq_buffers = t->model.dq_buffers };
    Workload wl;
    AttnCosts costs;
    CostReport rep;
    SimLoadModel load;
    SimError why = { 0 };
    if (sim_cost_attention(&q, &wl, &costs, &rep, &load, &why) != SIM_OK || wl.kv_tiles != t->wl.kv_tiles ||
        wl.q_tiles != t->wl.q_tiles || wl.tile_ratio != t->wl.tile_ratio) {
        snprintf(out->profile_skip, sizeof out->profile_skip, "%.95s", why.status ? why.msg :
                 "the kernel profile's tiles are not the trace's");
        sim_profile_load_clear(&load);
        return SIM_OK;
    }
    int64_t makespan_ns;
    if (sim_attention_clocked_makespan(plan, &costs, &makespan_ns, err) == SIM_OK) {
        out->profile_ns = makespan_ns - rep.first_compute_ns;
        out->has_profile = true;
        out->profile_makespan_error = (double)(out->profile_ns - out->measured_ns) / (double)out->measured_ns;
    }
    sim_profile_load_clear(&load);
    return err->status;
}

/* The fit, refused when its hand-off is over what an edge latency can be (the model's are 32-bit). */
static SimStatus fit_checked(const Trace *t, const Plan *plan, const int64_t *order, const int32_t *matrix,
                             FittedCosts *f, SimError *err)
{
    *f = fit_costs(t, plan, order, matrix);
    if (f->handoff_ns > SIM_LATENCY_MAX_NS)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: the median hand-off of %" G_GINT64_FORMAT " ns is over the "
                             "model's limit of %d ns", t->path, f->handoff_ns, SIM_LATENCY_MAX_NS);
    return SIM_OK;
}

/* The plan of the trace's registered policy for its workload. */
static Plan *rebuild_plan(const Trace *t, SimError *err)
{
    const PolicyOps *ops = policy_find(t->policy);
    if (!ops) {
        sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/policy: unknown policy '%s' (and no plan file given)",
                      t->path, t->policy);
        return NULL;
    }
    SimError build = { 0 };
    Plan *plan = policy_build(ops, &t->wl, &build);
    if (!plan)
        sim_error_set(err, SIM_ERR_INPUT, "%s: %s", t->path, build.msg);
    return plan;
}

SimStatus sim_validate_trace(const Trace *t, const Plan *given, const int32_t *latency_matrix,
                             const ValidateModels *models, TraceCheck *out, SimError *err)
{
    *out = (TraceCheck){ 0 };
    Plan *owned = given ? NULL : rebuild_plan(t, err);
    const Plan *plan = given ? given : owned;
    if (!plan)
        return err->status;
    int64_t *order = g_new(int64_t, plan->task_count), *pred = g_new(int64_t, plan->task_count);
    if (check_smids(t, err) == SIM_OK && match_plan(t, plan, order, err) == SIM_OK &&
        fit_checked(t, plan, order, latency_matrix, &out->fit, err) == SIM_OK) {
        FittedCosts *f = &out->fit;
        int64_t origin = INT64_MAX, end = 0;
        for (int64_t i = 0; i < t->task_count; i++)
            origin = MIN(origin, t->tasks[i].c_start), end = MAX(end, t->tasks[i].r_end);
        out->measured_ns = end - origin;
        AttnCosts model = t->model, paper = t->model;
        model.c_ns = f->c_ns, model.r_ns = f->r_ns, model.latency_ns = f->latency_ns;
        model.cta_prologue_ns = f->prologue_ns;
        paper.c_ns = f->compute_ns + f->gap_ns, paper.r_ns = f->add_ns;
        SimProgram *prog = sim_attention_program(plan, &model);
        Unplaced uniform = unplaced_of(prog);
        place(prog, t, plan, order, f, latency_matrix);
        run_kept(prog, f->prologue_ns, &out->predicted_ns, pred, NULL, err);
        unplace(prog, &uniform);
        if (err->status)
            sim_program_free(prog);
        else if (run_model(prog, f->prologue_ns, &out->uniform_ns, NULL, err) == SIM_OK &&
            run_model(sim_attention_program(plan, &paper), 0, &out->paper_ns, NULL, err) == SIM_OK) {
            double m = (double)out->measured_ns;
            out->makespan_error = (double)(out->predicted_ns - out->measured_ns) / m;
            out->uniform_makespan_error = (double)(out->uniform_ns - out->measured_ns) / m;
            out->paper_makespan_error = (double)(out->paper_ns - out->measured_ns) / m;
            out->start_mape = start_mape(t, order, pred, plan->task_count, origin, f->c_ns);
        }
        if (!models) /* fits only */
            ;
        else if (!err->status && t->kernel.name[0] && (models->kernel_count || models->hw))
            predict_from_kernel(t, plan, models, out, err);
        else if (models->hw && !err->status)
            predict_from_profile(t, plan, order, models, origin, out, err);
    }
    g_free(order), g_free(pred);
    plan_free(owned);
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
                c->has_profile_speedup = c->has_profile && checks[j].has_profile;
                if (c->has_profile_speedup) {
                    c->profile_speedup_predicted = (double)checks[j].profile_ns / (double)c->profile_ns;
                    c->profile_speedup_error_pp = 100.0 * (c->profile_speedup_predicted - c->speedup_measured);
                }
            }
}

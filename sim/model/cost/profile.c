/* From a hardware profile to model costs. Curves are linear between measured points and flat beyond the
 * last one; compute scales with the clock (it is stored in cycles), everything else is in ns. */
#include "profile.h"

#include "engine.h"
#include "program.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Linear interpolation of (x[i], y[i]), x ascending; flat outside. */
static double interp(const int32_t *x, const int64_t *y, int n, double at)
{
    if (at <= x[0] || n == 1)
        return (double)y[0];
    for (int i = 1; i < n; i++)
        if (at <= x[i])
            return (double)y[i - 1] + (double)(y[i] - y[i - 1]) * (at - x[i - 1]) / (double)(x[i] - x[i - 1]);
    return (double)y[n - 1];
}

static const ProfileTile *find_tile(const HwProfile *p, int tile_m, int head_dim)
{
    for (int i = 0; i < p->tile_count; i++)
        if (p->tiles[i].tile_m == tile_m && p->tiles[i].head_dim == head_dim)
            return &p->tiles[i];
    return NULL;
}

static const ProfileReduce *find_reduce(const HwProfile *p, int tile_m, int head_dim, const char *op, int threads)
{
    for (int i = 0; i < p->reduce_count; i++) {
        const ProfileReduce *r = &p->reduces[i];
        if (r->tile_m == tile_m && r->head_dim == head_dim && strcmp(r->op, op) == 0 && r->threads == threads)
            return r;
    }
    return NULL;
}

/* The usual adders of ldst/red: the store warp (async) or the whole CTA (serial). Bulk: one thread. */
static int default_threads(const ProfileQuery *q)
{
    return q->reduce == REDUCE_ASYNC ? 32 : 256;
}

void sim_profile_load(const ProfileReduce *r, const ProfileQueue *queue, int64_t d_ns, int64_t alone_ns, int n_sm,
                      SimLoadModel *load)
{
    sim_profile_load_at(r, queue, d_ns, d_ns, alone_ns, n_sm, load);
}

void sim_profile_load_at(const ProfileReduce *r, const ProfileQueue *queue, int64_t d_ns, int64_t d_l2_ns,
                         int64_t alone_ns, int n_sm, SimLoadModel *load)
{
    *load = (SimLoadModel){ .extra_len = n_sm, .extra_ns = g_new0(int32_t, n_sm + 1) };
    double base = (double)r->ns[0], share = queue ? queue->issue_share : 1.0;
    load->issue_ppm = (int32_t)CLAMP(llround(share * 1e6), 1, 1000000);
    int64_t issue = d_ns * load->issue_ppm / 1000000;
    int k_max = r->k[r->points - 1];
    double service = (double)(r->ns[r->points - 1] - r->ns[0]) / k_max + share * base / k_max;
    if (queue && k_max > 1 && service > 0)
        load->capacity_milli = (int32_t)CLAMP(llround(1000.0 * (double)issue / service), 1, INT32_MAX);
    for (int k = 1; k <= n_sm; k++) {
        /* k starting together: the engine's wait is the backlog at their issue end over the capacity */
        int64_t cap = load->capacity_milli, backlog = MAX(0, ((int64_t)k * 1000 - cap) * issue);
        int64_t wait = cap > 0 ? (backlog + cap - 1) / cap : 0;
        double target = MAX((double)d_ns, (double)d_l2_ns * interp(r->k, r->ns, r->points, k) / (double)alone_ns);
        load->extra_ns[k] = (int32_t)MAX(0, llround(target - (double)d_ns - (double)wait));
    }
}

static const char *family_of(const char *op)
{
    return strcmp(op, "bulk") == 0 ? "bulk" : "ldst";
}

const ProfileClock *sim_profile_clock(const HwProfile *p, const char *op)
{
    for (int i = 0; i < p->clock_count; i++)
        if (strcmp(p->clocks[i].op, family_of(op)) == 0)
            return &p->clocks[i];
    return NULL;
}

/* The idle row (n_compute 0) of row r's method. */
static const ClockRow *idle_row(const ClockRow *rows, int n, const ClockRow *r)
{
    for (int i = 0; i < n; i++)
        if (rows[i].n_compute == 0 && rows[i].tile_m == r->tile_m && rows[i].head_dim == r->head_dim &&
            rows[i].threads == r->threads && strcmp(rows[i].op, r->op) == 0)
            return &rows[i];
    return NULL;
}

static int cmp_double(const void *a, const void *b);

bool sim_profile_fit_clock(const ClockRow *rows, int n, const char *family, ProfileClock *c, double *ref_mhz)
{
    double *share = g_new(double, MAX(n, 1)), *idle = g_new(double, MAX(n, 1));
    int m = 0, ni = 0;
    for (int i = 0; i < n; i++) {
        const ClockRow *r = &rows[i], *z = idle_row(rows, n, r);
        if (r->n_compute == 0)
            idle[ni++] = r->mhz;
        if (r->n_compute == 0 || !z || strcmp(family_of(r->op), family) != 0 || fabs(z->mhz / r->mhz - 1) < 0.01)
            continue;
        /* t = cycles / f; t / t0 = (1 - s) + s f0 / f */
        share[m++] = ((r->cycles / r->mhz) / (z->cycles / z->mhz) - 1) / (z->mhz / r->mhz - 1);
    }
    if (m > 0) {
        qsort(share, m, sizeof *share, cmp_double);
        qsort(idle, ni, sizeof *idle, cmp_double);
        double s = m % 2 ? share[m / 2] : (share[m / 2 - 1] + share[m / 2]) / 2;
        *c = (ProfileClock){ .clock_share = round(CLAMP(s, 0.0, 1.0) * 100) / 100, .fit_rows = m };
        snprintf(c->op, sizeof c->op, "%s", family);
        *ref_mhz = ni % 2 ? idle[ni / 2] : (idle[ni / 2 - 1] + idle[ni / 2]) / 2;
        for (int i = 0; i < n; i++) {
            const ClockRow *r = &rows[i], *z = idle_row(rows, n, r);
            if (r->n_compute == 0 || !z || strcmp(family_of(r->op), family) != 0)
                continue;
            double t0 = z->cycles / z->mhz, t = r->cycles / r->mhz;
            double model = t0 * ((1 - c->clock_share) + c->clock_share * z->mhz / r->mhz);
            c->fit_max_error = MAX(c->fit_max_error, fabs(model / t - 1));
        }
    }
    g_free(share);
    g_free(idle);
    return m > 0;
}

const ProfileQueue *sim_profile_queue(const HwProfile *p, const char *op)
{
    for (int i = 0; i < p->queue_count; i++)
        if (strcmp(p->queues[i].op, family_of(op)) == 0)
            return &p->queues[i];
    return NULL;
}

/* The engine's times of one staggered run under queue q: the early and the late half's reduction. */
static void staggered_engine(const StaggerRun *run, const ProfileQueue *q, double *early, double *late)
{
    const ProfileReduce *r = run->reduce;
    int64_t d = r->ns[0];
    SimProgram *prog = sim_program_new(run->k, 1);
    for (int u = 0; u < run->k; u++) {
        sim_program_add_cta(prog, u);
        if (u % 2 && run->stagger_ns > 0)
            sim_program_add_op(prog, 0, SIM_OP_SYNC, run->stagger_ns, -1);
        sim_program_add_op(prog, 0, SIM_OP_REDUCE, d, -1);
    }
    sim_program_seal(prog);
    SimLoadModel load;
    sim_profile_load(r, q, d, d, run->k, &load);
    sim_program_set_load(prog, &load);
    sim_profile_load_clear(&load);
    SimSchedule sched = { 0 };
    SimError err = { 0 };
    SimStatus st = sim_engine_run(prog, &sched, &err);
    g_assert(st == SIM_OK);
    int64_t last_early = prog->ctas[0].op_count - 1, last_late = prog->ctas[1].op_begin + prog->ctas[1].op_count - 1;
    *early = (double)(sim_schedule_end_ns(prog, &sched, last_early) - sched.start_ns[last_early]);
    *late = (double)(sim_schedule_end_ns(prog, &sched, last_late) - sched.start_ns[last_late]);
    sim_schedule_clear(&sched);
    sim_program_free(prog);
}

/* The same run under processor sharing (the rule before the queue): with n running, each progresses at
 * 1 / max(1, curve(n) / alone) of its rate alone. A fluid simulation of the two halves. */
static void staggered_ps(const StaggerRun *run, double *early, double *late)
{
    const ProfileReduce *r = run->reduce;
    double alone = (double)r->ns[0], left[2] = { alone, alone }, start[2] = { 0, (double)run->stagger_ns }, t = 0;
    double *done[2] = { early, late };
    int count[2] = { run->k - run->k / 2, run->k / 2 };
    bool is_done[2] = { false, false };
    while (!is_done[0] || !is_done[1]) {
        int n = 0;
        for (int h = 0; h < 2; h++)
            n += !is_done[h] && start[h] <= t ? count[h] : 0;
        if (n == 0) {
            t = start[1];
            continue;
        }
        double rate = 1.0 / MAX(1.0, interp(r->k, r->ns, r->points, n) / alone), dt = INFINITY;
        for (int h = 0; h < 2; h++)
            if (!is_done[h] && start[h] <= t)
                dt = MIN(dt, left[h] / rate);
        if (start[1] > t && start[1] < t + dt)
            dt = start[1] - t;
        for (int h = 0; h < 2; h++)
            if (!is_done[h] && start[h] <= t && (left[h] -= rate * dt) <= 1e-9)
                is_done[h] = true, *done[h] = t + dt - start[h];
        t += dt;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The largest and the median |error| of a rule's early and late times over the runs. */
static void staggered_errors(const StaggerRun *runs, int n, const ProfileQueue *q, bool is_ps, double *max, double *median)
{
    double *e = g_new(double, 2 * n);
    for (int i = 0; i < n; i++) {
        double early, late;
        if (is_ps)
            staggered_ps(&runs[i], &early, &late);
        else
            staggered_engine(&runs[i], q, &early, &late);
        e[2 * i] = fabs(early / (double)runs[i].early_ns - 1), e[2 * i + 1] = fabs(late / (double)runs[i].late_ns - 1);
    }
    qsort(e, 2 * n, sizeof *e, cmp_double);
    *max = e[2 * n - 1];
    *median = n ? (e[n - 1] + e[n]) / 2 : 0;
    g_free(e);
}

void sim_profile_fit_queue(const StaggerRun *runs, int n, ProfileQueue *q)
{
    double best_max = INFINITY, best_median = INFINITY;
    ProfileQueue c = *q;
    for (int issue = 1; issue <= 100; issue++) {
        c.issue_share = issue / 100.0;
        double max, median;
        staggered_errors(runs, n, &c, false, &max, &median);
        if (max < best_max - 1e-12 || (max < best_max + 1e-12 && median < best_median)) {
            best_max = max, best_median = median;
            q->issue_share = c.issue_share;
        }
    }
    q->fit_max_error = best_max, q->fit_median_error = best_median, q->fit_runs = 2 * n;
    double ps_median;
    staggered_errors(runs, n, NULL, true, &q->ps_max_error, &ps_median);
}

SimStatus sim_profile_costs(const HwProfile *p, const ProfileQuery *q, AttnCosts *costs, SimLoadModel *load,
                            SimError *err)
{
    const ProfileTile *tile = find_tile(p, q->tile_m, q->head_dim);
    int threads = strcmp(q->reduce_op, "bulk") == 0 ? 1 : q->reduce_threads > 0 ? q->reduce_threads : default_threads(q);
    const ProfileReduce *r = find_reduce(p, q->tile_m, q->head_dim, q->reduce_op, threads);
    if (!tile || !r)
        return sim_error_set(err, SIM_ERR_INPUT, "the profile (%s) has no %s for a %dx%d tile%s%s reduced by %d "
                             "thread(s)", p->source, !tile ? "compute measurement" : "reduction measurement",
                             q->tile_m, q->head_dim, tile ? " with " : "", tile ? q->reduce_op : "", threads);
    bool is_async = q->reduce == REDUCE_ASYNC;
    double clock = q->clock_mhz > 0 ? q->clock_mhz : p->clock_mhz;
    double cycles = is_async ? tile->fixed_cycles_store + tile->per_iter_cycles_store * q->compute_iters
                             : tile->fixed_cycles + tile->per_iter_cycles * q->compute_iters;
    int64_t compute_ns = llround(cycles * 1000.0 / clock);
    int64_t prologue = p->prologue_points ? llround(interp(p->prologue_tasks, p->prologue_ns, p->prologue_points,
                                                          q->tasks_per_cta)) : 0;
    int64_t stage = tile->stage_points ? llround(interp(tile->stage_iters, tile->stage_by_iters_ns, tile->stage_points,
                                                      q->compute_iters)) : tile->stage_serial_ns;
    /* async bulk: the reduction alone is the one measured beside the SM's own compute, at the task's rounds
     * where it was measured by rounds (short tasks slow it: docs/profile.md); the load curve (the slowdown
     * with k in flight) keeps its shape. A query without rounds (a real kernel) takes the long-task value. */
    bool is_beside = is_async && strcmp(q->reduce_op, "bulk") == 0 && tile->reduce_async_ns > 0;
    int64_t alone = !is_beside ? r->ns[0] : tile->reduce_async_points && q->compute_iters > 0 ?
        llround(interp(tile->reduce_async_iters, tile->reduce_async_by_iters_ns, tile->reduce_async_points,
                       q->compute_iters)) : tile->reduce_async_ns;
    /* A reduction measured on an idle SM at the idle clock runs, in a kernel, at the clock the other SMs'
     * compute leaves: its SM side scales with the clock (reduce_clock), the L2's curve does not. The async
     * bulk reduction measured beside the SM's own compute does not move with the computing SMs (calib4:
     * 1781 -> 1797 ns from 1 to 66), so it is taken as measured. */
    const ProfileClock *rule = is_beside ? NULL : sim_profile_clock(p, r->op);
    int64_t at_clock = rule && p->clock_ref_mhz > 0 ?
        llround((double)alone * ((1 - rule->clock_share) + rule->clock_share * p->clock_ref_mhz / clock)) : alone;
    *costs = (AttnCosts){ .c_ns = compute_ns + (is_async ? 0 : stage + p->loop_gap_ns),
                          .r_ns = at_clock + p->acquire_ns, .latency_ns = p->handoff_ns, .reduce = q->reduce,
                          .dq_buffers = q->dq_buffers > 0 ? q->dq_buffers : 1,
                          .cta_prologue_ns = p->cta_gap_ns + prologue, .deposit_ns = is_async ? tile->deposit_ns : 0 };
    int n_sm = q->n_sm > 0 ? q->n_sm : p->sm_count;
    sim_profile_load_at(r, sim_profile_queue(p, r->op), costs->r_ns, alone + p->acquire_ns, alone, n_sm, load);
    load->handoff_len = n_sm;
    load->handoff_extra_ns = g_new0(int32_t, n_sm + 1);
    for (int k = 0; k <= n_sm; k++)
        load->handoff_extra_ns[k] = p->handoff_points ?
            (int32_t)MAX(0, llround(interp(p->handoff_k, p->handoff_extra_ns, p->handoff_points, k))) : 0;
    return SIM_OK;
}

void sim_profile_load_clear(SimLoadModel *load)
{
    g_free(load->extra_ns);
    g_free(load->handoff_extra_ns);
    *load = (SimLoadModel){ 0 };
}

void sim_profile_free(HwProfile *p)
{
    if (!p)
        return;
    g_free(p->tiles);
    g_free(p->reduces);
    g_free(p);
}

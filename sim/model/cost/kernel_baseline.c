/* Fitting a kernel profile to baseline times (kernel_baseline.h). For one tile the model's fa3 time is
 * fixed + (engine makespan - prologue); the makespan grows with the compute cost c per task and with the
 * cost w of each KV-tile run (K/V load and dK/dV write), which weigh differently at different sequence
 * lengths (tasks per run = seqlen / kBlockM): so with two or more shapes both are fitted, by least squares on
 * the relative errors; with one shape, c alone. */
#include "kernel_baseline.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "costing.h"
#include "engine.h"
#include "stats.h"

/* The reference tile whose dQ tile moves the same bytes (block_m x head_dim fp32), or NULL. */
static const KernelTile *same_bytes(const KernelProfile *ref, const KernelTile *t)
{
    for (int i = 0; i < ref->tile_count; i++)
        if (ref->tiles[i].block_m * ref->tiles[i].head_dim == t->block_m * t->head_dim)
            return &ref->tiles[i];
    return NULL;
}

/* The cost query of run r with kernel k. */
static CostQuery run_query(const KernelProfile *k, const KernelRun *r)
{
    return (CostQuery){ .shape = { .batch = r->batch, .heads = r->heads, .kv_heads = r->kv_heads, .seqlen_q = r->seqlen,
                                   .seqlen_k = r->seqlen, .head_dim = r->head_dim, .mask = r->mask, .dtype = DTYPE_BF16 },
                        .preset = "h100-sxm", .kernel = k, .reduce = REDUCE_ASYNC };
}

/* SIM_ERR_LIMIT when run r's job is over the cap or the engine's ids, said of the record (before anything
 * is built: a baseline file comes from outside the project). */
static SimStatus check_run(const KernelProfile *k, const KernelRun *r, const char *path, int64_t max_memory_mb,
                           SimError *err)
{
    CostQuery q = run_query(k, r);
    Workload wl;
    AttnCosts costs;
    CostReport rep;
    SimLoadModel load = { 0 };
    SimError e = { 0 };
    if (sim_cost_attention(&q, &wl, &costs, &rep, &load, &e) == SIM_OK)
        sim_attention_check_size(&wl, &costs, 0, max_memory_mb, &e);
    sim_profile_load_clear(&load);
    if (e.status)
        sim_error_set(err, e.status, "%s: the record of seqlen %d, batch %d, heads %d: %s", path, r->seqlen, r->batch, r->heads, e.msg);
    return err->status;
}

/* The model's time of run r with kernel k (its tile at compute c); -1 on an error (reported in err). */
static int64_t model_time(const KernelProfile *k, const KernelRun *r, SimError *err)
{
    const PolicyOps *ops = policy_find(r->policy);
    CostQuery q = run_query(k, r);
    Workload wl;
    AttnCosts costs;
    CostReport rep;
    SimLoadModel load = { 0 };
    if (!ops || sim_cost_attention(&q, &wl, &costs, &rep, &load, err) != SIM_OK)
        return -1;
    Plan *plan = policy_build(ops, &wl, err);
    int64_t t = -1;
    if (plan) {
        SimProgram *prog = sim_attention_program(plan, &costs);
        SimSchedule s = { 0 };
        if (sim_engine_run(prog, &s, err) == SIM_OK)
            t = sim_cost_time_ns(&rep, s.makespan_ns);
        sim_schedule_clear(&s);
        sim_program_free(prog);
        plan_free(plan);
    }
    sim_profile_load_clear(&load);
    return t;
}

/* The model's relative errors (model - measured) / measured over the tile's runs, with compute c and a
 * per-run cost w (each KV-tile run's K/V load and dK/dV write, as kv_write_ns); false on an error. */
static bool errors_at(KernelProfile *k, KernelTile *t, const KernelRun *const *runs, int n, double c, double w,
                      double *e, const SimBudget *budget, SimError *err)
{
    t->compute_ns = MAX(1, llround(c)), t->kv_write_ns = MAX(0, llround(w));
    for (int i = 0; i < n; i++) {
        if (sim_budget_check(budget, "the baseline fit", err) != SIM_OK)
            return false;
        int64_t m = model_time(k, runs[i], err);
        if (m < 0)
            return false;
        e[i] = (double)(m - runs[i]->time_ns) / (double)runs[i]->time_ns;
    }
    return true;
}

/* Least squares of the relative errors over (c, w) by Gauss-Newton with finite differences (the model is
 * close to linear in both: tasks x c + runs x w over the SMs, plus waits); w stays at the reference's when
 * the runs cannot tell it apart (one shape). A few steps settle to the ns. */
static SimStatus fit_tile(KernelProfile *k, KernelTile *t, const KernelTile *r, const KernelRun *const *runs, int n,
                          const SimBudget *budget, SimError *err)
{
    /* what times cannot separate: the reference kernel's, for the same dQ bytes on the same GPU */
    t->reduce_read_ns = r->reduce_read_ns, t->reduce_tail_ns = r->reduce_tail_ns;
    t->reduce_read_waited_ns = r->reduce_read_waited_ns, t->reduce_tail_waited_ns = r->reduce_tail_waited_ns;
    t->reduce_turn_jitter_ns = r->reduce_turn_jitter_ns;
    t->reduce_waited_slope_milli = r->reduce_waited_slope_milli, t->reduce_waited_k_ref = r->reduce_waited_k_ref;
    t->handoff_ns = r->handoff_ns, t->deposit_ns = r->deposit_ns, t->cta_prologue_ns = r->cta_prologue_ns;
    t->fixed = r->fixed, t->fixed_gqa = r->fixed_gqa, t->stages = r->stages, t->sums = r->sums, t->traces = 0;
    bool has_w = n >= 2;
    double c = (double)r->compute_ns, w = (double)r->kv_write_ns, e[64], ec[64], ew[64];
    for (int step = 0; step < 6 && !err->status; step++) {
        const double dc = 50, dw = 200;
        if (!errors_at(k, t, runs, n, c, w, e, budget, err) || !errors_at(k, t, runs, n, c + dc, w, ec, budget, err) ||
            (has_w && !errors_at(k, t, runs, n, c, w + dw, ew, budget, err)))
            return err->status;
        double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0; /* normal equations of J d = -e */
        for (int i = 0; i < n; i++) {
            double jc = (ec[i] - e[i]) / dc, jw = has_w ? (ew[i] - e[i]) / dw : 0;
            a11 += jc * jc, a12 += jc * jw, a22 += jw * jw, b1 -= jc * e[i], b2 -= jw * e[i];
        }
        double det = a11 * a22 - a12 * a12, step_c, step_w = 0;
        if (has_w && fabs(det) > 1e-30)
            step_c = (b1 * a22 - b2 * a12) / det, step_w = (a11 * b2 - a12 * b1) / det;
        else
            step_c = a11 > 0 ? b1 / a11 : 0;
        c = MAX(1, c + step_c), w = MAX(0, w + step_w);
        if (fabs(step_c) < 0.5 && fabs(step_w) < 0.5)
            break;
    }
    t->compute_ns = MAX(1, llround(c)), t->kv_write_ns = has_w ? MAX(0, llround(w)) : r->kv_write_ns;
    return err->status;
}

/* The fa3 runs (at most 64) of b's times that fit tile t; their count. */
static int tile_runs(const KernelBaseline *b, const KernelTile *t, const KernelRun **runs)
{
    int n = 0;
    for (int j = 0; j < b->times->count && n < 64; j++) {
        const KernelRun *x = &b->times->runs[j];
        if (x->is_ok && !x->is_atomic && strcmp(x->policy, "fa3") == 0 && x->head_dim == t->head_dim &&
            (t->mask < 0 || (int)x->mask == t->mask))
            runs[n++] = x;
    }
    return n;
}

SimStatus sim_kernel_fit_baseline(KernelBaseline *b, const KernelProfile *ref, SimError *err)
{
    KernelProfile *k = b->kernel;
    const KernelRun *runs[64];
    for (int i = 0; i < k->tile_count && !err->status; i++) /* every record's size before any simulation */
        for (int j = 0, n = tile_runs(b, &k->tiles[i], runs); j < n && !err->status; j++)
            check_run(k, runs[j], b->times->path, b->max_memory_mb, err);
    for (int i = 0; i < k->tile_count && !err->status; i++) {
        KernelTile *t = &k->tiles[i];
        const KernelTile *r = same_bytes(ref, t);
        if (!r)
            return sim_error_set(err, SIM_ERR_INPUT, "the reference kernel %s has no tile whose dQ tile moves the "
                                 "bytes of %d x %d (block_m x head_dim)", ref->name, t->block_m, t->head_dim);
        int n = tile_runs(b, t, runs);
        if (n == 0)
            return sim_error_set(err, SIM_ERR_INPUT, "%s: no time of the fa3 order for the tile of head_dim %d",
                                 b->times->path, t->head_dim);
        fit_tile(k, t, r, runs, n, b->budget, err);
    }
    return err->status;
}

void sim_kernel_baseline_clear(KernelBaseline *b)
{
    sim_kernel_free(b->kernel);
    sim_kernel_runs_free(b->times);
    *b = (KernelBaseline){ 0 };
}

/* Sweep runner: rows are built and size-checked up front, run on a GLib thread pool, and emitted by the
 * calling thread in row order, one complete point at a time. Invariant: nothing a worker does depends on
 * which thread runs it or when, so the emitted bytes are the same for any --jobs. */
#include "sweep.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "format.h"
#include "gnuplot.h"
#include "latency_matrix.h"
#include "mask_io.h"
#include "input.h"
#include "output.h"
#include "dashsim/version.h"
#include "costing.h"
#include "datadir.h"
#include "kernel_io.h"
#include "profile_io.h"

struct SimSweep {
    SimConfigPoint *points;   /* owned, point_count */
    int32_t **matrices;       /* per point: latency matrix read from a file, or NULL; owned */
    BlockMask *masks;         /* per point: its block mask (keep NULL: full or causal); owned */
    HwProfile **profiles;     /* per point: its hardware profile, or NULL; owned */
    KernelProfile **kernels;  /* per point: its kernel profile, or NULL; owned */
    SimLoadModel *loads;      /* per point: the load model its rows' costs borrow; owned */
    int64_t point_count;
    SimSweepRow *rows;        /* owned, grouped by point in order */
    int64_t row_count;
    double held_bytes;        /* the matrices read from files, held for the whole run */
    double max_job_bytes;     /* the largest job's estimate (sim_job_estimate_bytes) */
    double cap_bytes;         /* the smallest max_memory_mb of the points: all jobs together stay below */
    int64_t selected;         /* --row: index of the selected row in rows, or -1 */
    GMutex lock;              /* guards rows[].is_done and done_count while running */
    GCond cond;
    int64_t done_count;
    volatile sig_atomic_t *stop;
    volatile sig_atomic_t is_over_budget; /* /options/max_seconds passed: no new row starts */
    SimSweepPart part;        /* which part of the config this sweep runs */
    uint64_t fingerprint;     /* of every job of the whole config (row_identity), for --merge */
    int64_t total_rows;       /* rows of the whole config */
    int64_t first_row;        /* index of this part's first row among them */
};

int64_t sim_sweep_row_count(const SimSweep *s) { return s->row_count; }
int64_t sim_sweep_point_count(const SimSweep *s) { return s->point_count; }
const SimConfigPoint *sim_sweep_point(const SimSweep *s, int64_t i) { return &s->points[i]; }
const SimSweepRow *sim_sweep_row(const SimSweep *s, int64_t i) { return &s->rows[i]; }

void sim_sweep_free(SimSweep *s)
{
    if (!s)
        return;
    for (int64_t i = 0; i < s->point_count; i++) {
        free(s->matrices[i]), sim_mask_clear(&s->masks[i]);
        sim_profile_free(s->profiles[i]), sim_kernel_free(s->kernels[i]), sim_profile_load_clear(&s->loads[i]);
    }
    g_free(s->matrices);
    g_free(s->masks);
    g_free(s->profiles);
    g_free(s->kernels);
    g_free(s->loads);
    g_free(s->points);
    g_free(s->rows);
    g_mutex_clear(&s->lock);
    g_cond_clear(&s->cond);
    g_free(s);
}

/* The hardware's latency matrix file (sim/io/latency_matrix.h): every off-diagonal cell must be measured,
 * since the engine reads every pair. Owned by the caller (free). */
static int32_t *read_matrix(const char *cfg_name, const char *path, int n, SimDiag *diag)
{
    int32_t *m = NULL;
    bool is_legacy;
    SimError err = { 0 };
    if (sim_latency_matrix_load(path, n, &m, &is_legacy, &err) != SIM_OK) {
        sim_diag_add(diag, err.status, "%s: /hardware/latency_matrix: %s", cfg_name, err.msg);
        return NULL;
    }
    for (int64_t i = 0; i < (int64_t)n * n; i++)
        if (m[i] < 0 && i / n != i % n) {
            sim_diag_add(diag, SIM_ERR_INPUT, "%s: /hardware/latency_matrix: %s has no latency from SM %" PRId64
                         " to SM %" PRId64, cfg_name, path, i / n, i % n);
            free(m);
            return NULL;
        }
    return m;
}

/* The job of one row; *matrix receives a near/far matrix to free when the point needs one. */
static AttnJob row_job(const SimSweep *s, const SimSweepRow *r, int32_t **matrix)
{
    const SimConfigPoint *p = r->cfg;
    AttnJob job = sim_job_default();
    job.policy = r->policy;
    job.wl = r->cost.wl;
    job.max_memory_mb = p->max_memory_mb;
    job.costs = (AttnCosts){ .c_ns = r->cost.c_ns, .r_ns = r->cost.r_ns, .reduce = p->reduce,
                             .dq_buffers = p->dq_buffers, .cta_prologue_ns = p->has_prologue ? r->cost.prologue_ns : 0,
                             .latency_ns = p->hw.latency_near_ns };
    if (r->has_costs) /* the one costing path (sim/model/costing.h), as the shape front end */
        job.costs = r->costs;
    if (matrix)
        *matrix = NULL;
    job.analysis = SIM_ANALYSIS_SUMMARY; /* a row needs the critical path and busy time, no per-op marks */
    job.has_unit_latency = p->latency_matrix[0] || p->hw.latency_near_ns != p->hw.latency_far_ns;
    if (r->has_costs) /* the profiles' measured hand-off is the latency, as in the shape front end */
        job.has_unit_latency = false;
    else if (s->matrices[r->point])
        job.unit_latency_ns = s->matrices[r->point];
    else if (p->hw.latency_near_ns != p->hw.latency_far_ns && matrix != NULL)
        job.unit_latency_ns = *matrix = sim_cost_latency_matrix(&p->hw, p->hw.sm_count);
    return job;
}

/* A block mask's point: its mask for the derived tiles (the config checked that it can be made), kept
 * by the sweep for the point's jobs, and the FLOPs of the pairs it keeps. */
static void add_block_mask(SimSweep *s, int64_t pi, SimCost *cost, SimDiag *diag, const char *name)
{
    const SimConfigPoint *p = &s->points[pi];
    BlockMask *m = &s->masks[pi];
    SimError err = { 0 };
    if (p->mask_file[0] ? sim_mask_read_capped(p->mask_file, p->max_memory_mb << 20, m, &err)
                        : sim_mask_make_capped(p->mask_spec, cost->wl.kv_tiles, cost->wl.q_tiles, p->max_memory_mb << 20,
                                               m, &err)) {
        sim_diag_add(diag, err.status, "%s: sweep point %" PRId64 ": %s", name, pi, err.msg);
        return;
    }
    sim_mask_apply(m, &cost->wl);
    cost->bwd_flops *= (double)sim_mask_count(m) / ((double)m->kv_tiles * m->q_tiles);
}

/* Whether the point runs this policy: the listed policies that support its mask; others are skipped. */
static bool point_runs(const SimConfigPoint *p, const char *policy)
{
    Workload wl = policy_kind_workload(p->shape.mask); /* the pairs are made later */
    const PolicyOps *ops = policy_find(policy);
    return ops && policy_supports(ops, &wl);
}

/* A point with a kernel or hardware profile: its costs through the one costing path (the shape front end's),
 * into *cost and *costs. False with a sentence in diag when a profile cannot be read or does not cover it. */
static bool profile_costs(SimSweep *s, int64_t pi, SimCost *cost, AttnCosts *costs, CostReport *rep, SimDiag *diag,
                          const char *name)
{
    const SimConfigPoint *p = &s->points[pi];
    SimError err = { 0 };
    char found[4096];
    if (p->profile[0] && (sim_data_find_profile(p->profile, found, sizeof found, &err) != SIM_OK ||
                          sim_profile_read(found, &s->profiles[pi], &err) != SIM_OK))
        return sim_diag_add(diag, err.status, "%s: /hardware/profile: %s", name, err.msg), false;
    if (p->kernel[0] && (sim_data_find_kernel(p->kernel, found, sizeof found, &err) != SIM_OK ||
                         sim_kernel_read(found, &s->kernels[pi], &err) != SIM_OK))
        return sim_diag_add(diag, err.status, "%s: /options/kernel: %s", name, err.msg), false;
    CostQuery q = { .shape = p->shape, .hardware = &p->hw, .hw = s->profiles[pi], .kernel = s->kernels[pi],
                    .reduce = p->reduce, .dq_buffers = p->dq_buffers };
    Workload wl;
    if (sim_cost_attention(&q, &wl, costs, rep, &s->loads[pi], &err) != SIM_OK)
        return sim_diag_add(diag, err.status, "%s: sweep point %" PRId64 ": %s", name, pi, err.msg), false;
    *cost = rep->cost;
    cost->wl = wl, cost->c_ns = costs->c_ns, cost->r_ns = costs->r_ns;
    if (p->c_ns >= 0)
        cost->c_ns = costs->c_ns = p->c_ns;
    if (p->r_ns >= 0)
        cost->r_ns = costs->r_ns = p->r_ns;
    costs->load = s->loads[pi].extra_ns ? &s->loads[pi] : NULL;
    return true;
}

static void add_rows(SimSweep *s, int64_t pi, GArray *rows, SimDiag *diag, const char *name)
{
    const SimConfigPoint *p = &s->points[pi];
    SimCost cost;
    AttnCosts costs = { 0 };
    CostReport rep = { 0 };
    bool has_costs = p->kernel[0] || p->profile[0];
    if (has_costs && p->latency_matrix[0]) {
        sim_diag_add(diag, SIM_ERR_USAGE, "%s: sweep point %" PRId64 ": /hardware/latency_matrix goes with the cost "
                     "model; with /options/kernel or /hardware/profile the profiles' measured hand-off is the latency",
                     name, pi);
        return;
    }
    if (has_costs && p->shape.mask == MASK_BLOCK) {
        sim_diag_add(diag, SIM_ERR_USAGE, "%s: sweep point %" PRId64 ": /options/kernel and /hardware/profile cost "
                     "full and causal masks (a block mask takes the cost model)", name, pi);
        return;
    }
    if (has_costs && !profile_costs(s, pi, &cost, &costs, &rep, diag, name))
        return;
    if (!has_costs) {
        sim_cost_derive(&p->shape, &p->hw, &cost);
        if (p->c_ns >= 0)
            cost.c_ns = p->c_ns;
        if (p->r_ns >= 0)
            cost.r_ns = p->r_ns;
    }
    if (p->shape.mask == MASK_BLOCK)
        add_block_mask(s, pi, &cost, diag, name);
    for (int k = 0; k < p->policy_count; k++) {
        if (!point_runs(p, p->policies[k]))
            continue;
        SimSweepRow r = { .point = pi, .policy = p->policies[k], .cost = cost, .has_costs = has_costs, .costs = costs,
                          .fixed_ns = rep.fixed_ns, .first_compute_ns = rep.first_compute_ns };
        SimSweepRow sized = r;
        sized.cfg = p;
        AttnJob job = row_job(s, &sized, NULL);
        SimError err = { 0 }; /* the size does not depend on the policy: the same sentence is kept once */
        if (sim_job_check_size(&job, &err) != SIM_OK)
            sim_diag_add(diag, err.status, "%s: sweep point %" PRId64 ": %s", name, pi, err.msg);
        /* a matrix read from a file is held by the sweep, not the job */
        double bytes = sim_job_estimate_bytes(&job) - (p->latency_matrix[0] ? 2.0 * p->hw.sm_count *
                                                        p->hw.sm_count * sizeof(int32_t) : 0);
        s->max_job_bytes = MAX(s->max_job_bytes, bytes);
        g_array_append_val(rows, r);
    }
}

/* options.max_memory_mb cannot exceed this machine's memory (the cap would mean nothing). */
static bool check_memory_cap(const SimConfigPoint *p, int64_t pi, const char *name, SimDiag *diag)
{
    int64_t physical = sim_job_physical_memory_mb();
    if (p->max_memory_mb <= physical)
        return true;
    sim_diag_add(diag, SIM_ERR_LIMIT, "%s: sweep point %" PRId64 ": /options/max_memory_mb: %" PRId64 " MB is over "
                 "this machine's %" PRId64 " MB of memory", name, pi, p->max_memory_mb, physical);
    return false;
}

/* Reads point pi's matrix file, once the matrices held so far plus it stay under the point's cap. */
static void add_matrix(SimSweep *s, int64_t pi, const char *name, SimDiag *diag)
{
    const SimConfigPoint *p = &s->points[pi];
    double bytes = (double)p->hw.sm_count * p->hw.sm_count * sizeof(int32_t);
    if ((s->held_bytes + bytes + s->max_job_bytes) / (1 << 20) > (double)p->max_memory_mb) {
        sim_diag_add(diag, SIM_ERR_LIMIT, "%s: sweep point %" PRId64 ": the latency matrices of the sweep and one "
                     "job would need about %.0f MB, over the cap of %" PRId64 " MB (options.max_memory_mb)", name, pi,
                     (s->held_bytes + bytes + s->max_job_bytes) / (1 << 20), p->max_memory_mb);
        return;
    }
    s->matrices[pi] = read_matrix(name, p->latency_matrix, p->hw.sm_count, diag);
    s->held_bytes += s->matrices[pi] ? bytes : 0;
}

/* The points [*first, *end) of shard K of N: contiguous ranges of whole points, so that each point's
 * speedups are computed in the slice that holds it and the slices in order are the whole output. */
static void shard_range(const SimSweepPart *part, int64_t point_count, int64_t *first, int64_t *end)
{
    *first = 0, *end = point_count;
    if (part->shard_count > 0) {
        *first = point_count * (part->shard_index - 1) / part->shard_count;
        *end = point_count * part->shard_index / part->shard_count;
    }
}

/* What makes a row the job it is (its point's parameters as the CSV shows them, and its policy): the
 * slices of one config have the same rows, those of another config almost surely not. */
static uint64_t row_identity(const SimSweep *s, const SimSweepRow *r, uint64_t h)
{
    const SimConfigPoint *p = &s->points[r->point];
    const SimShape *sh = &p->shape;
    char text[1024];
    int n = snprintf(text, sizeof text, "%" PRId64 ",%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                     ",%d,%s,%d,%d,%d,%d,%d,%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%" PRId64 ",%d\n",
                     r->point, r->policy, sim_sweep_mask_name(p), sh->head_dim, sh->seqlen_q, sh->seqlen_k, sh->batch,
                     sh->heads, (int)sh->dtype, p->hw.preset, p->hw.sm_count, r->cost.block_m, r->cost.block_n,
                     r->cost.wl.kv_tiles, r->cost.wl.q_tiles, r->cost.wl.head_swizzle, r->cost.c_ns, r->cost.r_ns,
                     p->hw.latency_near_ns, p->hw.latency_far_ns, (int)p->reduce, p->max_memory_mb, p->dq_buffers);
    for (int i = 0; i < n && i < (int)sizeof text; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    return h;
}

/* Keeps the rows of points [first, end) only (rows stay in order; their point numbers stay global). */
static void keep_points(GArray *rows, int64_t first, int64_t end)
{
    guint k = 0;
    for (guint i = 0; i < rows->len; i++) {
        SimSweepRow r = g_array_index(rows, SimSweepRow, i);
        if (r.point >= first && r.point < end)
            g_array_index(rows, SimSweepRow, k++) = r;
    }
    g_array_set_size(rows, k);
}

/* --row K: keeps the point of row K only and selects the row; reads that point's matrix file. */
static void select_row(SimSweep *s, GArray *rows, int64_t row, const char *name, SimDiag *diag)
{
    if (row > (int64_t)rows->len) {
        sim_diag_add(diag, SIM_ERR_USAGE, "%s: --row %" PRId64 ": the config has %u rows", name, row, rows->len);
        return;
    }
    int64_t point = g_array_index(rows, SimSweepRow, row - 1).point, first = row - 1;
    while (first > 0 && g_array_index(rows, SimSweepRow, first - 1).point == point)
        first--;
    s->selected = row - 1 - first;
    keep_points(rows, point, point + 1);
    if (s->points[point].latency_matrix[0])
        add_matrix(s, point, name, diag);
}

SimSweep *sim_sweep_new(const SimConfig *cfg, bool is_sweep, SimDiag *diag)
{
    return sim_sweep_new_part(cfg, is_sweep, &(SimSweepPart){ 0 }, diag);
}

SimSweep *sim_sweep_new_part(const SimConfig *cfg, bool is_sweep, const SimSweepPart *part, SimDiag *diag)
{
    int before = sim_diag_count(diag);
    SimSweep *s = g_new0(SimSweep, 1);
    s->selected = -1;
    g_mutex_init(&s->lock);
    g_cond_init(&s->cond);
    s->point_count = sim_config_point_count(cfg, is_sweep);
    s->points = g_new0(SimConfigPoint, s->point_count);
    s->matrices = g_new0(int32_t *, s->point_count);
    s->masks = g_new0(BlockMask, s->point_count);
    s->profiles = g_new0(HwProfile *, s->point_count);
    s->kernels = g_new0(KernelProfile *, s->point_count);
    s->loads = g_new0(SimLoadModel, s->point_count);
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(SimSweepRow));
    s->cap_bytes = INFINITY;
    int64_t first, end;
    shard_range(part, s->point_count, &first, &end);
    for (int64_t i = 0; i < s->point_count; i++) {
        if (!sim_config_point(cfg, is_sweep, i, &s->points[i], diag))
            continue;
        const SimConfigPoint *p = &s->points[i];
        int n_diag = sim_diag_count(diag);
        if (check_memory_cap(p, i, sim_config_name(cfg), diag))
            add_rows(s, i, rows, diag, sim_config_name(cfg));
        s->cap_bytes = MIN(s->cap_bytes, (double)p->max_memory_mb * (1 << 20));
        /* sized first: read only if it fits, and only where this part runs the point */
        if (p->latency_matrix[0] && sim_diag_count(diag) == n_diag && !part->row && i >= first && i < end)
            add_matrix(s, i, sim_config_name(cfg), diag);
    }
    s->part = *part;
    s->fingerprint = 0xcbf29ce484222325ull;
    s->total_rows = rows->len;
    for (guint i = 0; i < rows->len && sim_diag_count(diag) == before; i++) {
        const SimSweepRow *r = &g_array_index(rows, SimSweepRow, i);
        s->fingerprint = row_identity(s, r, s->fingerprint);
        s->first_row += r->point < first;
    }
    if (part->row && sim_diag_count(diag) == before)
        select_row(s, rows, part->row, sim_config_name(cfg), diag);
    else if (!part->row)
        keep_points(rows, first, end);
    s->row_count = rows->len;
    s->rows = (SimSweepRow *)g_array_free(rows, FALSE);
    for (int64_t i = 0; i < s->row_count; i++)
        s->rows[i].cfg = &s->points[s->rows[i].point];
    if (sim_diag_count(diag) != before) {
        sim_sweep_free(s);
        return NULL;
    }
    return s;
}

static void run_row(SimSweep *s, SimSweepRow *r)
{
    int32_t *matrix;
    AttnJob job = row_job(s, r, &matrix);
    AttnResult res = { 0 };
    if (job.has_unit_latency && !job.unit_latency_ns)
        sim_error_set(&r->err, SIM_ERR_LIMIT, "cannot allocate the %d x %d latency matrix", job.wl.n_sm, job.wl.n_sm);
    else if (sim_job_run(&job, &res, &r->err) == SIM_OK) {
        r->tasks = res.tasks;
        r->makespan_ns = res.a.makespan_ns;
        r->critical_path_ns = res.a.critical_path_ns;
        r->bubble_ns = res.a.bubble_ns;
        r->busy_fraction = res.a.busy_fraction;
        CostReport rep = { .fixed_ns = r->fixed_ns, .first_compute_ns = r->first_compute_ns };
        r->time_ns = sim_cost_time_ns(&rep, r->makespan_ns);
        r->tflops = r->time_ns > 0 ? r->cost.bwd_flops / (double)r->time_ns / 1e3 : 0;
    } else if (r->err.status == SIM_ERR_SCHEDULE) {
        /* the policy does not suit this workload (e.g. odd N for symmetric-shift): a skipped row */
        r->is_skipped = true;
        snprintf(r->note, sizeof r->note, "%s", r->err.msg);
        r->err = (SimError){ 0 };
    }
    sim_job_result_clear(&res);
    free(matrix);
}

int64_t sim_sweep_selected(const SimSweep *s) { return s->selected; }

SimStatus sim_sweep_write_outputs(const SimSweep *s, const AttnJob *outputs, SimError *err)
{
    const SimSweepRow *r = &s->rows[s->selected];
    g_assert(s->selected >= 0 && r->is_done);
    if (r->is_skipped || r->err.status)
        return sim_error_set(err, SIM_ERR_INPUT, "the selected row (%s) was skipped, nothing to write: %s", r->policy,
                             r->is_skipped ? r->note : r->err.msg);
    int32_t *matrix;
    AttnJob job = row_job(s, r, &matrix);
    job.analysis = SIM_ANALYSIS_FULL;
    job.dot_path = outputs->dot_path, job.plan_path = outputs->plan_path, job.trace_path = outputs->trace_path;
    job.has_trace_flows = outputs->has_trace_flows, job.trace_max_mb = outputs->trace_max_mb;
    job.csv_path = outputs->csv_path, job.gantt_path = outputs->gantt_path;
    AttnResult res = { 0 };
    if (job.has_unit_latency && !job.unit_latency_ns)
        sim_error_set(err, SIM_ERR_LIMIT, "cannot allocate the %d x %d latency matrix", job.wl.n_sm, job.wl.n_sm);
    else if (sim_job_run(&job, &res, err) == SIM_OK)
        g_assert(res.a.makespan_ns == r->makespan_ns); /* the engine is deterministic: the same job, the same run */
    sim_job_result_clear(&res);
    free(matrix);
    return err->status;
}

static void worker(gpointer data, gpointer user)
{
    SimSweep *s = user;
    SimSweepRow *r = &s->rows[GPOINTER_TO_SIZE(data) - 1];
    if (*s->stop || s->is_over_budget)
        r->is_interrupted = true;
    else
        run_row(s, r);
    g_mutex_lock(&s->lock);
    r->is_done = true;
    s->done_count++;
    g_cond_signal(&s->cond);
    g_mutex_unlock(&s->lock);
}

/* Rows [*next, end of the first incomplete point): complete with speedups; returns the new *next. */
static int64_t complete_points(SimSweep *s, int64_t next)
{
    int64_t end = next;
    while (end < s->row_count) {
        int64_t p = s->rows[end].point, k = end;
        bool is_complete = true;
        for (; k < s->row_count && s->rows[k].point == p; k++)
            is_complete &= s->rows[k].is_done && !s->rows[k].is_interrupted;
        if (!is_complete)
            break;
        end = k;
    }
    for (int64_t i = next; i < end; i++) {
        SimSweepRow *r = &s->rows[i];
        for (int64_t j = next; j < end; j++) {
            const SimSweepRow *b = &s->rows[j];
            if (b->point == r->point && strcmp(b->policy, r->cfg->baseline) == 0 && !b->is_skipped && !b->err.status &&
                !r->is_skipped && !r->err.status && r->makespan_ns > 0) {
                r->has_speedup = true;
                r->speedup = (double)b->time_ns / (double)r->time_ns;
            }
        }
    }
    return end;
}

static int by_size_desc(const void *a, const void *b, void *ctx)
{
    const SimSweep *s = ctx;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    double sx = (double)s->rows[x].cost.wl.heads * s->rows[x].cost.wl.kv_tiles * s->rows[x].cost.wl.q_tiles;
    double sy = (double)s->rows[y].cost.wl.heads * s->rows[y].cost.wl.kv_tiles * s->rows[y].cost.wl.q_tiles;
    return sx != sy ? (sx < sy) - (sx > sy) : (x > y) - (x < y);
}

/* Rows by their size (tile pairs, the engine's work), largest first, so that no long job starts last and
 * leaves the other workers idle; rows are still emitted in row order. Owned by the caller. */
static int64_t *longest_first(const SimSweep *s)
{
    int64_t *order = g_new(int64_t, MAX(s->row_count, 1));
    for (int64_t i = 0; i < s->row_count; i++)
        order[i] = i;
    g_qsort_with_data(order, (gint)s->row_count, sizeof *order, by_size_desc, (gpointer)s);
    return order;
}

SimStatus sim_sweep_run(SimSweep *s, int jobs, volatile sig_atomic_t *stop, SimSweepEmit emit,
                        SimSweepProgress progress, void *ctx, SimError *err)
{
    static volatile sig_atomic_t never;
    s->stop = stop ? stop : &never;
    /* all jobs together stay under the cap: fewer threads (the output does not depend on their number) */
    double room = s->cap_bytes - s->held_bytes;
    if (s->max_job_bytes > 0 && room / s->max_job_bytes < jobs)
        jobs = MAX(1, (int)(room / s->max_job_bytes));
    GThreadPool *pool = g_thread_pool_new(worker, s, jobs, TRUE, NULL);
    int64_t *order = longest_first(s);
    for (int64_t i = 0; i < s->row_count; i++)
        g_thread_pool_push(pool, GSIZE_TO_POINTER((gsize)order[i] + 1), NULL);
    g_free(order);
    int64_t emitted = 0, budget_s = s->point_count ? s->points[0].max_seconds : 0;
    int64_t deadline = budget_s ? g_get_monotonic_time() + budget_s * G_TIME_SPAN_SECOND : 0;
    bool is_pool_done = false;
    for (;;) {
        if (deadline && !s->is_over_budget && g_get_monotonic_time() > deadline) {
            s->is_over_budget = true;
            sim_error_set(err, SIM_ERR_LIMIT, "the run passed its time budget of %" PRId64 " s (/options/max_seconds) "
                          "and stopped: the rows done so far are kept", budget_s);
        }
        g_mutex_lock(&s->lock);
        int64_t end = complete_points(s, emitted), done = s->done_count;
        bool is_all = done == s->row_count;
        if (end == emitted && !is_all && !*s->stop && !s->is_over_budget)
            g_cond_wait_until(&s->cond, &s->lock, g_get_monotonic_time() + 100 * G_TIME_SPAN_MILLISECOND);
        g_mutex_unlock(&s->lock);
        for (; emitted < end; emitted++) {
            if (s->rows[emitted].err.status)
                sim_error_set(err, s->rows[emitted].err.status, "%s", s->rows[emitted].err.msg);
            emit(&s->rows[emitted], ctx);
        }
        if (progress)
            progress(done, s->row_count, ctx);
        if (emitted == s->row_count || is_pool_done)
            break;
        if (*s->stop || s->is_over_budget || is_all) {
            g_thread_pool_free(pool, TRUE, TRUE); /* drops queued jobs, waits for running ones */
            pool = NULL;
            is_pool_done = true;
        }
    }
    if (pool)
        g_thread_pool_free(pool, FALSE, TRUE);
    return err->status;
}

/* ---- output ---- */

static const char *const columns =
    "policy,mask,head_dim,seqlen,seqlen_k,batch,heads,dtype,hardware,sm_count,block_m,block_n,kv_tiles,"
    "q_tiles,head_swizzle,c_ns,r_ns,latency_near_ns,latency_far_ns,reduce,tasks,makespan_ns,"
    "critical_path_ns,bubble_ns,busy_fraction,tflops,speedup,kernel,time_ns,status";

/* The header line of format, newline included ("" for JSONL). */
static void header_text(SweepFormat format, char *buf, size_t len)
{
    buf[0] = 0;
    if (format == SWEEP_CSV)
        snprintf(buf, len, "%s\n", columns);
    else if (format == SWEEP_TABLE) /* for people: what the numbers are, then the columns */
        snprintf(buf, len, "model numbers, not measurements: c and r from the cost model (docs/configs.md), per row "
                 "its hardware preset and reduction\n%-16s %-6s %4s %7s %9s %-9s %-6s %5s %5s %6s %6s %13s %8s %8s\n",
                 "policy", "mask", "d", "seqlen", "b x h", "hardware", "reduce", "N", "M", "c_ns", "r_ns",
                 "makespan_ns", "TFLOPS", "speedup");
}

void sim_sweep_write_header(FILE *f, SweepFormat format)
{
    char line[512];
    header_text(format, line, sizeof line);
    fputs(line, f);
}

/* ---- slices and --merge ---- */

/* A slice's first line names it (CSV and table: a '#' comment; JSONL: an object of its own), so that
 * --merge can check it has every slice of one config once: "dashsim slice K/N: rows A-B of R, config
 * fnv1a64:H", rows 1-based and inclusive (B = A - 1: none). */
#define SLICE_FORMAT "dashsim slice %d/%d: rows %" PRId64 "-%" PRId64 " of %" PRId64 ", config fnv1a64:%016" PRIx64

void sim_sweep_write_slice_line(FILE *f, SweepFormat format, const SimSweep *s)
{
    if (s->part.shard_count == 0)
        return;
    fprintf(f, format == SWEEP_JSONL ? "{\"dashsim_slice\":\"" : "# ");
    fprintf(f, SLICE_FORMAT, s->part.shard_index, s->part.shard_count, s->first_row + 1, s->first_row + s->row_count,
            s->total_rows, s->fingerprint);
    fputs(format == SWEEP_JSONL ? "\"}\n" : "\n", f);
}

typedef struct {
    const char *path;
    int format;                /* SweepFormat */
    int k, n;
    int64_t first, last, total;
    uint64_t config;
    int64_t lines;             /* after the slice line and the header */
} Slice;

/* The slice line (and the format it is written in); false if line is none. */
static bool parse_slice_line(const char *line, Slice *sl)
{
    const char *text = g_str_has_prefix(line, "# ") ? line + 2 : g_str_has_prefix(line, "{\"dashsim_slice\":\"") ?
                       line + 18 : NULL;
    int used = 0;
    if (!text || sscanf(text, "dashsim slice %d/%d: rows %" SCNd64 "-%" SCNd64 " of %" SCNd64 ", config fnv1a64:%16"
                        SCNx64 "%n", &sl->k, &sl->n, &sl->first, &sl->last, &sl->total, &sl->config, &used) != 6)
        return false;
    sl->format = text == line + 2 ? -1 : SWEEP_JSONL; /* -1: CSV or table, told by the header */
    return strcmp(text + used, sl->format == SWEEP_JSONL ? "\"}" : "") == 0 && sl->k >= 1 && sl->k <= sl->n &&
           sl->first >= 1 && sl->last >= sl->first - 1 && sl->last <= sl->total;
}

/* Reads one slice through: its slice line, its header (CSV, table), then rows to the end, each a whole
 * line (a file cut mid-line is refused); counts them. */
static SimStatus scan_slice(Slice *sl, SimError *err)
{
    SimInputLimits limits = { .max_bytes = INT64_MAX, .max_line = 1 << 20 };
    SimInput *in;
    if (sim_input_open(sl->path, &limits, &in, err) != SIM_OK)
        return err->status;
    char *line, header[512];
    size_t len;
    if (sim_input_line(in, &line, &len, err) == SIM_OK && (!line || !parse_slice_line(line, sl)))
        sim_error_set(err, SIM_ERR_INPUT, "%s: not a slice of sim sweep --shard K/N (its first line names the slice)",
                      sl->path);
    /* CSV or table: the header's first line tells which, and its other lines (a table's) must follow */
    for (int f = SWEEP_TABLE; sl->format < 0 && !err->status && f <= SWEEP_CSV; f++) {
        header_text((SweepFormat)f, header, sizeof header);
        if (f == SWEEP_TABLE && sim_input_line(in, &line, &len, err) != SIM_OK)
            break;
        if (line && strncmp(line, header, len) == 0 && header[len] == '\n')
            sl->format = f;
    }
    if (!err->status && sl->format >= 0 && sl->format != SWEEP_JSONL) {
        header_text((SweepFormat)sl->format, header, sizeof header);
        for (const char *h = strchr(header, '\n') + 1; *h && !err->status; h = strchr(h, '\n') + 1)
            if (sim_input_line(in, &line, &len, err) == SIM_OK && (!line || strncmp(line, h, len) || h[len] != '\n'))
                sl->format = -1;
    }
    if (!err->status && sl->format < 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s:2: expected the header of a CSV or table of sim sweep", sl->path);
    while (!err->status && sim_input_line(in, &line, &len, err) == SIM_OK && line) {
        if (sim_input_line_was_cut(in) || (sl->format == SWEEP_JSONL && !g_str_has_prefix(line, "{\"policy\":")))
            sim_error_set(err, SIM_ERR_INPUT, "%s:%" PRId64 ": not a whole row of sim sweep%s", sl->path,
                          sim_input_line_number(in), sim_input_line_was_cut(in) ? " (the file ends mid-line)" : "");
        sl->lines++;
    }
    sim_input_close(in);
    if (!err->status && sl->lines != sl->last - sl->first + 1)
        sim_error_set(err, SIM_ERR_INPUT, "%s: has %" PRId64 " rows, its slice line says %" PRId64 " (an interrupted "
                      "or edited slice?)", sl->path, sl->lines, sl->last - sl->first + 1);
    return err->status;
}

static int by_k(const void *a, const void *b)
{
    return ((const Slice *)a)->k - ((const Slice *)b)->k;
}

/* The slices, in K order, are every slice of one config once, rows following on. */
static SimStatus check_slices(const Slice *sl, int count, SimError *err)
{
    for (int i = 0; i < count && !err->status; i++) {
        const Slice *a = &sl[i], *first = &sl[0];
        if (a->format != first->format)
            sim_error_set(err, SIM_ERR_INPUT, "%s is in another format than %s", a->path, first->path);
        else if (a->n != first->n || a->config != first->config || a->total != first->total)
            sim_error_set(err, SIM_ERR_INPUT, "%s is a slice of another run than %s (config or --shard N differ)",
                          a->path, first->path);
        else if (i && a->k == sl[i - 1].k)
            sim_error_set(err, SIM_ERR_INPUT, "%s and %s are both slice %d of %d", sl[i - 1].path, a->path, a->k, a->n);
        else if (a->k != i + 1)
            sim_error_set(err, SIM_ERR_INPUT, "slice %d of %d is missing", i + 1, a->n);
        else if (a->first != (i ? sl[i - 1].last + 1 : 1))
            sim_error_set(err, SIM_ERR_INPUT, "%s: its rows do not follow on from slice %d's", a->path, i);
    }
    if (!err->status && count != sl[0].n)
        sim_error_set(err, SIM_ERR_INPUT, "slice %d of %d is missing", count + 1, sl[0].n);
    return err->status;
}

/* The rows of a checked slice to out (its slice line and header skipped). */
static SimStatus copy_rows(const Slice *sl, FILE *out, SimError *err)
{
    SimInputLimits limits = { .max_bytes = INT64_MAX, .max_line = 1 << 20 };
    SimInput *in;
    if (sim_input_open(sl->path, &limits, &in, err) != SIM_OK)
        return err->status;
    char *line;
    size_t len;
    char header[512];
    header_text((SweepFormat)sl->format, header, sizeof header);
    int skip = 1; /* the slice line, then the header's lines */
    for (const char *h = header; *h; h++)
        skip += *h == '\n';
    while (sim_input_line(in, &line, &len, err) == SIM_OK && line)
        if (sim_input_line_number(in) > skip)
            fwrite(line, 1, len, out), fputc('\n', out);
    if (!err->status && sim_input_line_number(in) - skip != sl->lines)
        sim_error_set(err, SIM_ERR_INPUT, "%s changed while it was merged", sl->path);
    sim_input_close(in);
    return err->status;
}

SimStatus sim_sweep_merge(const char *const *paths, int count, FILE *out, SimError *err)
{
    Slice *sl = g_new0(Slice, count);
    for (int i = 0; i < count && !err->status; i++)
        sl[i] = (Slice){ .path = paths[i], .format = -1 }, scan_slice(&sl[i], err);
    if (!err->status) {
        qsort(sl, (size_t)count, sizeof *sl, by_k);
        check_slices(sl, count, err);
    }
    char header[512];
    if (!err->status) {
        header_text((SweepFormat)sl[0].format, header, sizeof header);
        fputs(header, out); /* once; every slice's own copy is skipped */
    }
    for (int i = 0; i < count && !err->status; i++)
        copy_rows(&sl[i], out, err);
    g_free(sl);
    return err->status;
}

/* text as a CSV field (quoted when needed) or a JSON string. */
static void put_text(FILE *f, const char *text, bool is_json)
{
    if (is_json)
        sim_write_json_string(f, text);
    else
        sim_write_csv_field(f, text);
}

const char *sim_sweep_mask_name(const SimConfigPoint *p)
{
    if (p->shape.mask != MASK_BLOCK)
        return p->shape.mask == MASK_CAUSAL ? "causal" : "full";
    return p->mask_spec[0] ? p->mask_spec : p->mask_file;
}

static void write_table_row(FILE *f, const SimSweepRow *r)
{
    const SimShape *sh = &r->cfg->shape;
    char bh[32], speed[16] = "-";
    snprintf(bh, sizeof bh, "%" PRId64 "x%" PRId64, sh->batch, sh->heads);
    if (r->has_speedup)
        snprintf(speed, sizeof speed, "%.4f", r->speedup);
    fprintf(f, "%-16s %-6s %4" PRId64 " %7" PRId64 " %9s %-9s %-6s %5d %5d %6" PRId64 " %6" PRId64, r->policy,
            sim_sweep_mask_name(r->cfg), sh->head_dim, sh->seqlen_q, bh, r->cfg->hw.preset,
            r->cfg->reduce == REDUCE_ASYNC ? "async" : "serial", r->cost.wl.kv_tiles, r->cost.wl.q_tiles,
            r->cost.c_ns, r->cost.r_ns);
    if (r->is_skipped || r->err.status)
        fprintf(f, " skipped: %s\n", r->is_skipped ? r->note : r->err.msg);
    else
        fprintf(f, " %13" PRId64 " %8.3f %8s\n", r->makespan_ns, r->tflops, speed);
}

void sim_sweep_write_row(FILE *f, SweepFormat format, const SimSweepRow *r)
{
    if (format == SWEEP_TABLE) {
        write_table_row(f, r);
        return;
    }
    const bool j = format == SWEEP_JSONL;
    const SimShape *sh = &r->cfg->shape;
    const SimHardware *hw = &r->cfg->hw;
    bool has_result = !r->is_skipped && !r->err.status;
    char status[600];
    snprintf(status, sizeof status, "%s%s", r->is_skipped ? "skipped: " : r->err.status ? "error: " : "ok",
             r->is_skipped ? r->note : r->err.status ? r->err.msg : "");
    char **names = g_strsplit(columns, ",", -1);
    char vals[30][600];
    int k = 0;
#define V(...) snprintf(vals[k++], sizeof vals[0], __VA_ARGS__)
    V("%s", r->policy), V("%s", sim_sweep_mask_name(r->cfg)), V("%" PRId64, sh->head_dim);
    V("%" PRId64, sh->seqlen_q), V("%" PRId64, sh->seqlen_k), V("%" PRId64, sh->batch), V("%" PRId64, sh->heads);
    V("%s", sh->dtype == DTYPE_FP16 ? "fp16" : "bf16"), V("%s", hw->preset), V("%d", hw->sm_count);
    V("%d", r->cost.block_m), V("%d", r->cost.block_n), V("%d", r->cost.wl.kv_tiles), V("%d", r->cost.wl.q_tiles);
    V("%d", r->cost.wl.head_swizzle), V("%" PRId64, r->cost.c_ns), V("%" PRId64, r->cost.r_ns);
    V("%" PRId64, hw->latency_near_ns), V("%" PRId64, hw->latency_far_ns);
    V("%s", r->cfg->reduce == REDUCE_ASYNC ? "async" : "serial");
    V("%" PRId64, r->tasks), V("%" PRId64, r->makespan_ns), V("%" PRId64, r->critical_path_ns);
    V("%" PRId64, r->bubble_ns), V("%.6f", r->busy_fraction), V("%.3f", r->tflops), V("%.4f", r->speedup);
    V("%s", r->cfg->kernel[0] ? r->cfg->kernel : "-"), V("%" PRId64, r->time_ns);
#undef V
    static const bool is_string[30] = { [0] = 1, [1] = 1, [7] = 1, [8] = 1, [19] = 1, [27] = 1 };
    fputs(j ? "{" : "", f);
    for (int i = 0; i < 30; i++) {
        bool is_empty = ((i >= 20 && i <= 25) || i == 28) && !has_result ? true : i == 26 && !r->has_speedup;
        if (j)
            fprintf(f, "%s\"%s\":", i ? "," : "", names[i]);
        else if (i)
            fputc(',', f);
        if (i == 29)
            put_text(f, status, j);
        else if (is_empty)
            fputs(j ? "null" : "", f);
        else if (is_string[i])
            put_text(f, vals[i], j);
        else
            fputs(vals[i], f);
    }
    fputs(j ? "}\n" : "\n", f);
    g_strfreev(names);
}

/* ---- plot ---- */

static bool has_plot_value(const SimSweepRow *r)
{
    return r->is_done && !r->is_interrupted && !r->is_skipped && !r->err.status;
}

/* A panel of the plot: one mask (by name) and head dim; the point of its first row. */
static int panel_of(GArray *panels, const SimSweepRow *r)
{
    for (guint i = 0; i < panels->len; i++) {
        const SimConfigPoint *p = g_array_index(panels, const SimConfigPoint *, i);
        if (p->shape.head_dim == r->cfg->shape.head_dim &&
            strcmp(sim_sweep_mask_name(p), sim_sweep_mask_name(r->cfg)) == 0)
            return (int)i;
    }
    g_array_append_val(panels, r->cfg);
    return (int)panels->len - 1;
}

/* A policy's place among the styles: registry order, the policies of full or causal masks first, then those
 * of block masks only, so a block-only schedule added leaves every figure of the paper's masks as it was. */
static int style_index(const char *policy)
{
    const Workload paper[] = { policy_kind_workload(MASK_FULL), policy_kind_workload(MASK_CAUSAL) };
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < policy_count(); i++) {
            const PolicyOps *p = policy_at(i);
            if ((policy_supports(p, &paper[0]) || policy_supports(p, &paper[1])) != (pass == 0))
                continue;
            if (strcmp(p->name, policy) == 0)
                return k;
            k++;
        }
    return k;
}

/* A policy's line style, the same in every panel and every plot: by its place (style_index), a Tableau 10 colour,
 * a point type and a dash type, and lines and points narrower down the places, so a policy drawn over an
 * earlier one with the same values (descending over fa3 on the full mask) leaves the earlier one in sight
 * at its edges and in its dashes' gaps. */
static void policy_style(FILE *gp, const char *policy)
{
    static const uint32_t palette[10] = { 0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                          0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf };
    int k = style_index(policy);
    fprintf(gp, "lc rgb '#%06x' pt %d dt %d lw %.1f ps %.1f", (unsigned)palette[k % 10], k % 13 + 1, k % 5 + 1,
            MAX(1.0, 5.0 - 1.2 * k), MAX(0.6, 1.8 - 0.3 * k));
}

/* The plot's title: what the numbers are and what made them (the presets and reduction modes of the rows). */
static void write_plot_title(FILE *gp, const SimSweep *s)
{
    GString *presets = g_string_new(""), *modes = g_string_new("");
    for (int64_t i = 0; i < s->row_count; i++) {
        const SimConfigPoint *p = s->rows[i].cfg;
        const char *mode = p->reduce == REDUCE_ASYNC ? "async" : "serial";
        if (!has_plot_value(&s->rows[i]))
            continue;
        if (!strstr(presets->str, p->hw.preset))
            g_string_append_printf(presets, "%s%s", presets->len ? ", " : "", p->hw.preset);
        if (!strstr(modes->str, mode))
            g_string_append_printf(modes, "%s%s", modes->len ? " and " : "", mode);
    }
    fprintf(gp, "set multiplot layout rows_,cols_ title 'model numbers, not measurements: TFLOPS = backward FLOPs / "
                "makespan, c and r from the cost model (docs/configs.md); preset %s, %s reduction'\n",
            presets->str, modes->str);
    g_string_free(presets, TRUE), g_string_free(modes, TRUE);
}

/* .dat: one block per (panel, policy) in order of first appearance ("seqlen tflops" lines, blocks
 * separated by two blank lines so gnuplot's `index` picks them); .gp: one panel each, y from zero, each
 * policy in its one colour and point type (policy_style) in every panel. */
static void write_plot_files(const SimSweep *s, FILE *dat, FILE *gp, const char *dat_name, const char *png_name)
{
    GArray *panels = g_array_new(FALSE, FALSE, sizeof(const SimConfigPoint *));
    for (int64_t i = 0; i < s->row_count; i++)
        if (has_plot_value(&s->rows[i]))
            panel_of(panels, &s->rows[i]);
    int cols = panels->len > 1 ? 2 : 1, rows = ((int)panels->len + cols - 1) / cols, block = 0;
    fprintf(gp, "# TFLOPS over seqlen per policy, one panel per (mask, head_dim); written by dashsim " DASHSIM_VERSION
                " (sim sweep --plot).\n"
                "if (!exists(\"outfile\")) outfile = '%s'\n"
                "if (!exists(\"datafile\")) datafile = '%s'\n"
                "set terminal pngcairo noenhanced size %d,%d font ',10'\nset output outfile\nrows_ = %d\ncols_ = %d\n",
            png_name, dat_name, 640 * cols, 420 * rows + 40, rows, cols);
    write_plot_title(gp, s);
    fputs("set logscale x 2\nset xlabel 'seqlen (tokens)'\nset ylabel 'TFLOPS (model)'\nset key left bottom\nset grid\n"
          "set yrange [0:*]\n", gp);
    for (guint p = 0; p < panels->len; p++) {
        const SimConfigPoint *pp = g_array_index(panels, const SimConfigPoint *, p);
        fprintf(gp, "set title '%s mask, head_dim %" PRId64 "'\nplot", sim_sweep_mask_name(pp), pp->shape.head_dim);
        const char *seen[SIM_CONFIG_MAX_POLICIES * 4];
        int n_seen = 0;
        for (int64_t i = 0; i < s->row_count; i++) {
            const SimSweepRow *r = &s->rows[i];
            bool is_new = has_plot_value(r) && panel_of(panels, r) == (int)p;
            for (int k = 0; is_new && k < n_seen; k++)
                is_new = seen[k] != r->policy;
            if (!is_new || n_seen == (int)G_N_ELEMENTS(seen))
                continue;
            seen[n_seen++] = r->policy;
            fprintf(dat, "# %s mask, head_dim %" PRId64 ", %s\n", sim_sweep_mask_name(pp), pp->shape.head_dim, r->policy);
            for (int64_t k = i; k < s->row_count; k++)
                if (has_plot_value(&s->rows[k]) && s->rows[k].policy == r->policy && panel_of(panels, &s->rows[k]) == (int)p)
                    fprintf(dat, "%" PRId64 " %.3f\n", s->rows[k].cfg->shape.seqlen_q, s->rows[k].tflops);
            fprintf(dat, "\n\n");
            fprintf(gp, "%s datafile index %d using 1:2 with linespoints ", n_seen > 1 ? "," : "", block++);
            policy_style(gp, r->policy);
            fprintf(gp, " title '%s'", r->policy);
        }
        fprintf(gp, "\n");
    }
    fprintf(gp, "unset multiplot\n");
    g_array_free(panels, TRUE);
}

/* gnuplot on the temporary files (absolute names: a symbolic link may put one in another directory). */
static SimStatus run_plot(const SimOutput *dat, const SimOutput *gp, const SimOutput *png, const char *png_path,
                          SimError *err)
{
    gchar *dat_abs = g_canonicalize_filename(dat->tmp_path, NULL), *png_abs = g_canonicalize_filename(png->tmp_path, NULL);
    gchar *gp_abs = g_canonicalize_filename(gp->tmp_path, NULL);
    gchar *dat_q = sim_gnuplot_quote(dat_abs), *png_q = sim_gnuplot_quote(png_abs);
    gchar *set = g_strdup_printf("outfile='%s'; datafile='%s'", png_q, dat_q);
    sim_gnuplot_run(NULL, NULL, set, gp_abs, png_path, err);
    g_free(dat_abs), g_free(png_abs), g_free(gp_abs), g_free(dat_q), g_free(png_q), g_free(set);
    return err->status;
}

SimStatus sim_sweep_plot(const SimSweep *s, const char *png_path, SimError *err)
{
    int64_t values = 0;
    for (int64_t i = 0; i < s->row_count; i++)
        values += has_plot_value(&s->rows[i]);
    if (!values)
        return sim_error_set(err, SIM_ERR_INPUT, "no results to plot in %s (every row was skipped)", png_path);
    if (!g_str_has_suffix(png_path, ".png"))
        return sim_error_set(err, SIM_ERR_USAGE, "--plot draws a PNG: the file name must end in .png, got '%s'",
                             png_path);
    gchar *base = g_strndup(png_path, strlen(png_path) - 4);
    gchar *gp_path = g_strconcat(base, ".gp", NULL), *dat_path = g_strconcat(base, ".dat", NULL);
    gchar *dat_name = g_path_get_basename(dat_path);
    SimOutput dat = { 0 }, gp = { 0 }, png = { 0 };
    int mark = sim_output_batch_begin(); /* the three files as a set */
    if (sim_output_open(&dat, dat_path, err) == SIM_OK && sim_output_open(&gp, gp_path, err) == SIM_OK &&
        sim_output_open(&png, png_path, err) == SIM_OK) {
        gchar *png_name = g_path_get_basename(png_path);
        write_plot_files(s, dat.f, gp.f, dat_name, png_name);
        g_free(png_name);
        if (fflush(dat.f) || fflush(gp.f) || ferror(dat.f) || ferror(gp.f))
            sim_error_set(err, SIM_ERR_IO, "cannot write the data of %s", png_path);
        else if (run_plot(&dat, &gp, &png, png_path, err) == SIM_OK)
            (void)(sim_output_commit(&dat, err) || sim_output_commit(&gp, err) || sim_output_commit(&png, err));
    }
    sim_output_abort(&dat), sim_output_abort(&gp), sim_output_abort(&png);
    sim_output_batch_end(mark, err->status, err);
    g_free(base), g_free(gp_path), g_free(dat_path), g_free(dat_name);
    return err->status;
}

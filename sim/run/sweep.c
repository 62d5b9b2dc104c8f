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
#include "latency_matrix.h"
#include "mask_io.h"
#include "costing.h"
#include "datadir.h"
#include "kernel_io.h"
#include "profile_io.h"
#include "shape.h"

struct SimSweep {
    SimConfigPoint *points;   /* owned, point_count */
    int32_t **matrices;       /* per point: latency matrix read from a file, or NULL; owned */
    BlockMask *masks;         /* per point: its block mask (keep NULL: full or causal); owned */
    HwProfile **profiles;     /* per point: its hardware profile, or NULL; owned */
    KernelProfile **kernels;  /* per point: its kernel profile, or NULL; owned */
    SimLoadModel *loads;      /* per point: the load model its rows' costs borrow; owned */
    gchar **files;            /* per point: its hardware and kernel profiles' files (2 each, NULL: none); owned */
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
    const SimBudget *budget;  /* the caller's (sim_sweep_set_budget); NULL: none */
    SimSweepPart part;        /* which part of the config this sweep runs */
    uint64_t fingerprint;     /* of every job of the whole config (row_identity), for --merge */
    int64_t total_rows;       /* rows of the whole config */
    int64_t first_row;        /* index of this part's first row among them */
    char costs_from[SWEEP_COSTS_FROM_MAX]; /* where c and r came from over the whole config's rows */
};

int64_t sim_sweep_row_count(const SimSweep *s) { return s->row_count; }
void sim_sweep_set_budget(SimSweep *s, const SimBudget *budget) { s->budget = budget; }
int64_t sim_sweep_point_count(const SimSweep *s) { return s->point_count; }
const SimConfigPoint *sim_sweep_point(const SimSweep *s, int64_t i) { return &s->points[i]; }
const SimSweepRow *sim_sweep_row(const SimSweep *s, int64_t i) { return &s->rows[i]; }
const char *sim_sweep_costs_from(const SimSweep *s) { return s->costs_from; }
const char *sim_sweep_point_file(const SimSweep *s, int64_t i, bool is_kernel) { return s->files[2 * i + is_kernel]; }

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
    for (int64_t i = 0; i < 2 * s->point_count; i++)
        g_free(s->files[i]);
    g_free(s->files);
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
                             .dq_buffers = p->dq_buffers ? p->dq_buffers : 1, .cta_prologue_ns = p->has_prologue ? r->cost.prologue_ns : 0,
                             .latency_ns = p->hw.latency_near_ns };
    if (r->has_costs) /* the one costing path (sim/model/cost/costing.h), as the shape front end */
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

/* A point costed as the shape front end costs it (sim_shape_cost): the hardware profile named, or by default the
 * preset's own (none with /options/model paper), the kernel profile named (the preset GPU's own measurement where
 * one is installed), a mask in tokens over the costed tiles; into *cost and *costs, the files' names into
 * files[2] (hardware, kernel; "" for none). False with a sentence in diag when a profile cannot be read or does
 * not cover the point. */
static bool profile_costs(SimSweep *s, int64_t pi, SimCost *cost, AttnCosts *costs, CostReport *rep,
                          char files[2][4096], SimDiag *diag, const char *name)
{
    const SimConfigPoint *p = &s->points[pi];
    SimError err = { 0 };
    files[0][0] = files[1][0] = 0;
    if (!p->is_paper && (sim_data_find_profile_for(p->profile[0] ? p->profile : NULL, p->hw.preset, files[0], 4096,
                                                   &err) != SIM_OK ||
                         sim_profile_read(files[0], &s->profiles[pi], &err) != SIM_OK))
        return sim_diag_add(diag, err.status, "%s: /hardware/profile: %s", name, err.msg), false;
    if (p->kernel[0] && (sim_data_find_kernel_for(p->kernel, p->hw.preset, files[1], 4096, &err) != SIM_OK ||
                         sim_kernel_read(files[1], &s->kernels[pi], &err) != SIM_OK))
        return sim_diag_add(diag, err.status, "%s: /options/kernel: %s", name, err.msg), false;
    CostQuery q = { .shape = p->shape, .preset = p->hw.preset, .hardware = &p->hw, .hw = s->profiles[pi],
                    .kernel = s->kernels[pi], .reduce = p->reduce, .dq_buffers = p->dq_buffers };
    Workload wl;
    int kept;
    if (sim_shape_cost(&q, p->mask_tokens[0] ? p->mask_tokens : NULL, &wl, costs, rep, &s->loads[pi], &s->masks[pi],
                       &kept, &err) != SIM_OK)
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

/* A profile's name or path as a title shows it: the file name alone (titles hold about 100 characters). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Where the point's c and r came from, in a few words for titles: the config's own value, the profile the
 * costing path took it from (rep->*_from names it; files[] the hardware and kernel profiles' files), or the
 * cost model. */
static void costs_from(const SimConfigPoint *p, const CostReport *rep, char files[2][4096], char *buf, size_t len)
{
    char c[64], r[64];
    if (p->c_ns >= 0)
        snprintf(c, sizeof c, "the config's c_ns");
    else if (files[1][0])
        snprintf(c, sizeof c, "kernel profile %.40s", base_name(files[1]));
    else
        snprintf(c, sizeof c, "the FLOPs cost model");
    bool is_hw = strncmp(rep->reduce_from, "hardware profile", 16) == 0;
    bool is_kernel = strncmp(rep->reduce_from, "kernel profile", 14) == 0;
    if (p->r_ns >= 0)
        snprintf(r, sizeof r, "the config's r_ns");
    else
        snprintf(r, sizeof r, "%s%.40s", is_hw ? "hardware profile " : is_kernel ? "kernel profile " : "the cost model",
                 base_name(is_hw ? files[0] : is_kernel ? files[1] : ""));
    snprintf(buf, len, "c from %s, r from %s", c, r);
    for (char *t = buf; *t; t++) /* a file name's quotes or backslashes would break a title or a JSON line */
        *t = *t == '"' || *t == '\\' || (unsigned char)*t < ' ' ? '?' : *t;
}

static void add_rows(SimSweep *s, int64_t pi, GArray *rows, SimDiag *diag, const char *name)
{
    const SimConfigPoint *p = &s->points[pi];
    SimCost cost;
    AttnCosts costs = { 0 };
    CostReport rep = { 0 };
    char files[2][4096] = { "", "" };
    bool is_tile_mask = p->shape.mask == MASK_BLOCK && !p->mask_tokens[0]; /* the tile-level model's, in tile units */
    bool has_costs = p->kernel[0] || p->profile[0] || p->mask_tokens[0] || (!p->is_paper && !is_tile_mask);
    if (has_costs && p->latency_matrix[0] && !p->is_paper) {
        sim_diag_add(diag, SIM_ERR_USAGE, "%s: sweep point %" PRId64 ": /hardware/latency_matrix goes with the cost "
                     "model (/options/model paper): a hardware profile's measured hand-off is the latency", name, pi);
        return;
    }
    if (has_costs && (is_tile_mask || p->latency_matrix[0])) {
        sim_diag_add(diag, SIM_ERR_USAGE, "%s: sweep point %" PRId64 ": %s", name, pi, is_tile_mask ?
                     "/options/kernel and /hardware/profile cost full, causal and token masks (a block mask in tile "
                     "units takes the cost model)" : "/hardware/latency_matrix goes with the cost model's costs, not "
                     "with /options/kernel or /workload/mask_tokens");
        return;
    }
    if (has_costs && !profile_costs(s, pi, &cost, &costs, &rep, files, diag, name))
        return;
    for (int k = 0; k < 2; k++) /* inputs the command read: no output may name them */
        s->files[2 * pi + k] = files[k][0] ? g_strdup(files[k]) : NULL;
    if (!has_costs) {
        sim_cost_derive(&p->shape, &p->hw, &cost);
        if (p->c_ns >= 0)
            cost.c_ns = p->c_ns;
        if (p->r_ns >= 0)
            cost.r_ns = p->r_ns;
    }
    if (is_tile_mask)
        add_block_mask(s, pi, &cost, diag, name);
    for (int k = 0; k < p->policy_count; k++) {
        if (!point_runs(p, p->policies[k]))
            continue;
        SimSweepRow r = { .point = pi, .policy = p->policies[k], .cost = cost, .has_costs = has_costs, .costs = costs,
                          .fixed_ns = rep.fixed_ns, .first_compute_ns = rep.first_compute_ns };
        costs_from(p, &rep, files, r.costs_from, sizeof r.costs_from);
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
                     p->hw.latency_near_ns, p->hw.latency_far_ns, (int)p->reduce, p->max_memory_mb, p->dq_buffers ? p->dq_buffers : 1);
    for (int i = 0; i < n && i < (int)sizeof text; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    return h;
}

/* Where c and r came from over every row of the whole config (the table's first line, a slice's line, the plot's
 * title): the rows' sources, each once, or how many there are when over three. */
static void summarize_costs(GArray *rows, char *buf, size_t len)
{
    GPtrArray *seen = g_ptr_array_new();
    for (guint i = 0; i < rows->len; i++) {
        const char *from = g_array_index(rows, SimSweepRow, i).costs_from;
        bool is_new = true;
        for (guint k = 0; k < seen->len && is_new; k++)
            is_new = strcmp(g_ptr_array_index(seen, k), from) != 0;
        if (is_new)
            g_ptr_array_add(seen, (gpointer)from);
    }
    snprintf(buf, len, seen->len ? "" : "c and r from nothing: no policy runs at any point");
    for (guint k = 0; k < seen->len && seen->len <= 3; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? "; " : "", (const char *)g_ptr_array_index(seen, k));
    if (seen->len > 3)
        snprintf(buf, len, "c and r from %u combinations of profiles and the cost model, one per point", seen->len);
    g_ptr_array_free(seen, TRUE);
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
    s->files = g_new0(gchar *, 2 * s->point_count);
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
    summarize_costs(rows, s->costs_from, sizeof s->costs_from);
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
        if (!s->is_over_budget && sim_budget_check(s->budget, "the run", err) != SIM_OK)
            s->is_over_budget = true; /* the caller's budget or cancel: the same stop as max_seconds */
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

static SweepSlice slice_of(const SimSweep *s)
{
    return (SweepSlice){ s->part.shard_index, s->part.shard_count, s->first_row, s->row_count, s->total_rows,
                         s->fingerprint, s->costs_from };
}

void sim_sweep_write_slice_line(FILE *f, SweepFormat format, const SimSweep *s)
{
    SweepSlice slice = slice_of(s);
    sim_sweep_write_slice(f, format, &slice);
}

void sim_sweep_write_slice_end_line(FILE *f, SweepFormat format, const SimSweep *s, uint64_t rows_fnv)
{
    SweepSlice slice = slice_of(s);
    sim_sweep_write_slice_end(f, format, &slice, rows_fnv);
}

SimStatus sim_sweep_plot(const SimSweep *s, const char *png_path, bool is_speedup, SimError *err)
{
    return sim_sweep_plot_rows(s->rows, s->row_count, s->costs_from, png_path, is_speedup, err);
}

/* Hardware profiles: gpu-calib's raw files read into rows for the calibration fit (sim/model/cost/calibrate.c,
 * which does the fitting), and profile files written and read back. Every number read is checked for type and
 * range, with its JSON path in the error; nothing is cast before it is checked. */
#include "profile_io.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "format.h"
#include "json_file.h"
#include "json_read.h"
#include "latency_matrix.h"
#include "plan_io.h"
#include "stats.h"

#define PROFILE_MAX_BYTES (64L << 20)

/* Entry i of an array of numbers, in [lo, hi] (raw calibration arrays: nothing is read unchecked). */
static double cell(JsonIn *in, const cJSON *arr, const char *path, const char *key, int i, double lo, double hi)
{
    const cJSON *v = cJSON_GetArrayItem(arr, i);
    if (!in->err->status && (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi)))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s/%d: must be a number from %g to %g", in->file, path, key, i,
                      lo, hi);
    return in->err->status ? lo : v->valuedouble;
}

/* A measurement the profile needs that no row of the raw file gave. */
static void none_found(JsonIn *in, const char *path, const char *what)
{
    sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s: %s", in->file, path, what);
}

static SimStatus load_json(const char *path, int64_t max_bytes, cJSON **root, uint64_t *hash, SimError *err)
{
    if (sim_json_parse_file(path, max_bytes, root, err) != SIM_OK)
        return err->status;
    char *s = cJSON_PrintUnformatted(*root); /* the hash names the content, whatever its layout */
    *hash = sim_fnv1a64(SIM_FNV_OFFSET, s, strlen(s));
    cJSON_free(s);
    return SIM_OK;
}

/* ---- from gpu-calib --profile (format dashsim-calib-profile-raw) ---- */

/* cycles = a + b * iters over a row's points (cycles = ns * clock / 1000 at each point), fitted by
 * sim_calib_line_fit; the row's staging, the median of its points. */
static void fit_cycles(JsonIn *in, const cJSON *row, const char *path, double *fixed, double *per_iter, int64_t *stage)
{
    const cJSON *iters = sim_json_array(in, row, path, "iters", 64), *ns = sim_json_array(in, row, path, "median_ns", 64);
    const cJSON *mhz = sim_json_array(in, row, path, "sm_clock_mhz", 64), *st = sim_json_array(in, row, path, "stage_serial_median_ns", 64);
    int n = iters ? cJSON_GetArraySize(iters) : 0;
    if (in->err->status || cJSON_GetArraySize(ns) != n || cJSON_GetArraySize(mhz) != n || cJSON_GetArraySize(st) != n || n < 2) {
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s: iters, median_ns, sm_clock_mhz and stage_serial_median_ns must "
                      "have the same length, at least 2", in->file, path);
        return;
    }
    double x[64], y[64], stage_v[64];
    for (int i = 0; i < n && !in->err->status; i++) {
        x[i] = cell(in, iters, path, "iters", i, 0, 1 << 20);
        y[i] = cell(in, ns, path, "median_ns", i, 0, 1e9) * cell(in, mhz, path, "sm_clock_mhz", i, 100, 10000) / 1000.0;
        stage_v[i] = cell(in, st, path, "stage_serial_median_ns", i, 0, 1e9);
    }
    if (!in->err->status && !sim_calib_line_fit(x, y, n, fixed, per_iter))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/iters: needs two different iteration counts for a fit", in->file,
                      path);
    if (in->err->status)
        return;
    *stage = llround(sim_median_f64(stage_v, n));
}

/* compute: the all-SM rows (a kernel's condition); clock = median of their measured clocks. */
static void raw_compute(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, sim_json_get(in, root, "", "compute"), "/compute", "rows", 256);
    double clocks[4096];
    int n_clock = 0, i = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !in->err->status; row = row->next, i++) {
        char path[64], warp[16];
        snprintf(path, sizeof path, "/compute/rows/%d", i);
        if (sim_json_int(in, row, path, "sms", 1, 1 << 16) != p->sm_count)
            continue;
        ProfileTile *t = sim_calib_tile(p, (int)sim_json_int(in, row, path, "tile_m", 1, 1024),
                                 (int)sim_json_int(in, row, path, "head_dim", 1, 1024));
        sim_json_text(in, row, path, "store_warp", warp, sizeof warp);
        bool is_store = strcmp(warp, "spinning") == 0;
        fit_cycles(in, row, path, is_store ? &t->fixed_cycles_store : &t->fixed_cycles,
                   is_store ? &t->per_iter_cycles_store : &t->per_iter_cycles, &t->stage_serial_ns);
        const cJSON *mhz = cJSON_GetObjectItemCaseSensitive(row, "sm_clock_mhz");
        for (const cJSON *m = mhz ? mhz->child : NULL; m && n_clock < 4096; m = m->next)
            clocks[n_clock++] = m->valuedouble; /* checked by fit_cycles */
    }
    if (!in->err->status && n_clock == 0)
        none_found(in, "/compute/rows", "no row runs on every SM (sms = /metadata/sm_count)");
    p->clock_mhz = (int)llround(sim_median_f64(clocks, n_clock));
}

/* staging: the async deposit with every SM computing a long task (32 rounds), so that no reduction of
 * another SM overlaps it (the short-task rows measure that contention, which the load model does not
 * carry into the deposit), and the bulk reduction beside the compute on one SM: at 32 rounds
 * (reduce_async_ns), and at every round count measured (reduce_async_by_iters_ns). Rows of other store-warp
 * methods (\"op\", from 2026-11-23 on) are measurements the model does not use (docs/profile.md). The
 * reduction is counted from the later of the store warp's wake and the tile's staging (reduce + min(wake,
 * 0)): on a long task the store warp's stamp can read before the compute warps' staging stamp, and no part
 * of the reduction precedes its tile. Older files name the column reduce_bulk_median_ns. */
static void raw_staging(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, sim_json_get(in, root, "", "staging"), "/staging", "async", 1024);
    int i = 0, used = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !in->err->status; row = row->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "/staging/async/%d", i);
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(row, "op");
        int sms = (int)sim_json_int(in, row, path, "sms", 1, 1 << 16);
        int iters = (int)sim_json_int(in, row, path, "compute_iters", 0, 1 << 20);
        if ((iters != 32 && sms != 1) || (sms != p->sm_count && sms != 1) ||
            (op && (!cJSON_IsString(op) || strcmp(op->valuestring, "bulk") != 0)))
            continue;
        ProfileTile *t = sim_calib_tile(p, (int)sim_json_int(in, row, path, "tile_m", 1, 1024), (int)sim_json_int(in, row, path, "head_dim", 1, 1024));
        if (sms == 1) {
            const char *key = cJSON_HasObjectItem(row, "reduce_median_ns") ? "reduce_median_ns" : "reduce_bulk_median_ns";
            double wake = sim_json_num(in, row, path, "store_wake_median_ns", -1e9, 1e9);
            int64_t ns = llround(sim_json_num(in, row, path, key, 0, 1e9) + MIN(wake, 0.0));
            if (iters >= 1)
                sim_calib_add_reduce_by_iters(t, iters, ns);
            if (iters != 32)
                continue;
            t->reduce_async_ns = ns;
        } else {
            t->deposit_ns = llround(sim_json_num(in, row, path, "deposit_median_ns", 0, 1e9));
        }
        used++;
    }
    if (!in->err->status && !used)
        none_found(in, "/staging/async", "no bulk row with compute_iters 32 on one SM or on every SM");
}

/* reduce_inflight: rows per (tile, method, k); the method's name loses its -warp/-cta suffix (threads say it). */
static void raw_reduce(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, sim_json_get(in, root, "", "reduce_inflight"), "/reduce_inflight", "rows", 4096);
    int i = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !in->err->status; row = row->next, i++) {
        char path[64], op[16];
        snprintf(path, sizeof path, "/reduce_inflight/rows/%d", i);
        sim_json_text(in, row, path, "op", op, sizeof op);
        op[strcspn(op, "-")] = 0;
        int tm = (int)sim_json_int(in, row, path, "tile_m", 1, 1024), hd = (int)sim_json_int(in, row, path, "head_dim", 1, 1024);
        int threads = (int)sim_json_int(in, row, path, "threads", 1, 1024), k = (int)sim_json_int(in, row, path, "k", 1, 1 << 16);
        int64_t ns = llround(sim_json_num(in, row, path, "median_ns", 1, 1e9));
        if (in->err->status)
            return;
        ProfileReduce *r = sim_calib_reduce(p, tm, hd, op, threads);
        if (r->points == SIM_PROFILE_MAX_POINTS || (r->points && k <= r->k[r->points - 1]) || (!r->points && k != 1)) {
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s: k must start at 1 and ascend, at most %d points per "
                          "method", in->file, path, SIM_PROFILE_MAX_POINTS);
            return;
        }
        r->k[r->points] = k, r->ns[r->points++] = ns;
    }
}

/* handoff_load (bulk loaders): the growth of the one-way hand-off over its idle value, by load. */
static void raw_handoff(JsonIn *in, const cJSON *root, HwProfile *p, int64_t *idle_one_way)
{
    const cJSON *rows = sim_json_array(in, sim_json_get(in, root, "", "handoff_load"), "/handoff_load", "rows", 256);
    int i = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !in->err->status; row = row->next, i++) {
        char path[64], op[32];
        snprintf(path, sizeof path, "/handoff_load/rows/%d", i);
        sim_json_text(in, row, path, "load_op", op, sizeof op);
        int k = (int)sim_json_int(in, row, path, "k", 0, 1 << 16);
        int64_t ns = llround(sim_json_num(in, row, path, "one_way_median_ns", 0, 1e9));
        if (in->err->status || strcmp(op, "bulk") != 0)
            continue;
        if (p->handoff_points == 0)
            *idle_one_way = ns;
        if (p->handoff_points == SIM_PROFILE_MAX_POINTS || (p->handoff_points == 0 && k != 0) ||
            (p->handoff_points && k <= p->handoff_k[p->handoff_points - 1])) {
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s: the bulk rows' k must start at 0 and ascend", in->file, path);
            return;
        }
        p->handoff_k[p->handoff_points] = k;
        p->handoff_extra_ns[p->handoff_points++] = ns - *idle_one_way;
    }
    if (!in->err->status && !p->handoff_points)
        none_found(in, "/handoff_load/rows", "no row with load_op \"bulk\"");
}

/* launch: kernel -> first CTA (full first wave), the CTA gap of later waves, the prologue by task count. */
static void raw_launch(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *launch = sim_json_get(in, root, "", "launch");
    const cJSON *first = sim_json_array(in, launch, "/launch", "kernel_to_first_cta", 64);
    const cJSON *gaps = sim_json_array(in, launch, "/launch", "cta_gap", 64), *pro = sim_json_array(in, launch, "/launch", "prologue", 64);
    double v[64];
    int n = 0, i = 0;
    for (const cJSON *row = first ? first->child : NULL; row && !in->err->status; row = row->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "/launch/kernel_to_first_cta/%d", i);
        if (sim_json_int(in, row, path, "grid_ctas", 1, 1 << 24) == p->sm_count)
            v[n++] = sim_json_num(in, sim_json_get(in, row, path, "kernel_to_first_cta_ns"), path, "median", 0, 1e9);
    }
    if (!in->err->status && !n)
        none_found(in, "/launch/kernel_to_first_cta", "no row with grid_ctas = /metadata/sm_count (a full first wave)");
    p->kernel_to_first_cta_ns = llround(sim_median_f64(v, n));
    n = i = 0;
    for (const cJSON *row = gaps ? gaps->child : NULL; row && !in->err->status && n < 64; row = row->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "/launch/cta_gap/%d", i);
        v[n++] = sim_json_num(in, sim_json_get(in, row, path, "cta_gap_ns"), path, "median", 0, 1e9);
    }
    p->cta_gap_ns = llround(sim_median_f64(v, n));
    i = 0;
    for (const cJSON *row = pro ? pro->child : NULL; row && !in->err->status; row = row->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "/launch/prologue/%d", i);
        int tasks = (int)sim_json_int(in, row, path, "tasks", 0, 1 << 24);
        int64_t ns = llround(sim_json_num(in, sim_json_get(in, row, path, "prologue_ns"), path, "median", 0, 1e9));
        if (!in->err->status && (p->prologue_points == SIM_PROFILE_MAX_POINTS ||
                                 (p->prologue_points && tasks <= p->prologue_tasks[p->prologue_points - 1])))
            none_found(in, path, "tasks must ascend, at most " G_STRINGIFY(SIM_PROFILE_MAX_POINTS) " rows");
        else if (!in->err->status)
            p->prologue_tasks[p->prologue_points] = tasks, p->prologue_ns[p->prologue_points++] = ns;
    }
}

/* task_loop (the executor's own loop, every rank free; absent from older raw files): compute refitted in
 * cycles over the bulk rows of each mode (the async rows with the store warp reducing), serial staging by
 * rounds, the serial loop gap, the async deposit (its loop gap at 64 rounds, where the store warp keeps
 * up) and the free-rank acquire. Means, since stamps come in 32 ns steps. */
static void raw_task_loop(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, sim_json_get(in, root, "", "task_loop"), "/task_loop", "rows", 256);
    double gaps[256], acq[256], x[2][16][4], y[2][16][4];
    int n_gap = 0, n_acq = 0, pts[2][16] = { { 0 } }, i = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !in->err->status; row = row->next, i++) {
        char path[64], mode[16], op[16];
        snprintf(path, sizeof path, "/task_loop/rows/%d", i);
        sim_json_text(in, row, path, "mode", mode, sizeof mode), sim_json_text(in, row, path, "op", op, sizeof op);
        ProfileTile *t = sim_calib_tile(p, (int)sim_json_int(in, row, path, "tile_m", 1, 1024), (int)sim_json_int(in, row, path, "head_dim", 1, 1024));
        int iters = (int)sim_json_int(in, row, path, "iters", 0, 1 << 20), is_async = strcmp(mode, "async") == 0, k = (int)(t - p->tiles);
        double mhz = sim_json_num(in, row, path, "sm_clock_mhz", 100, 10000), comp = sim_json_num(in, row, path, "compute_mean_ns", 0, 1e9);
        double gap = sim_json_num(in, row, path, "loop_gap_mean_ns", 0, 1e9), stage = sim_json_num(in, row, path, "stage_mean_ns", 0, 1e9);
        acq[n_acq++] = sim_json_num(in, row, path, "acquire_ready_mean_ns", 0, 1e9);
        if (in->err->status || strcmp(op, "bulk") != 0 || k >= 16 || pts[is_async][k] == 4)
            continue;
        x[is_async][k][pts[is_async][k]] = iters, y[is_async][k][pts[is_async][k]++] = comp * mhz / 1000.0;
        if (!is_async && t->stage_points < 4) {
            t->stage_iters[t->stage_points] = iters, t->stage_by_iters_ns[t->stage_points++] = llround(stage);
            gaps[n_gap++] = gap;
        } else if (is_async && iters >= 64)
            t->deposit_ns = llround(gap);
    }
    for (int k = 0; k < p->tile_count && k < 16 && !in->err->status; k++)
        for (int a = 0; a < 2; a++) {
            double per, fixed;
            if (pts[a][k] < 2)
                continue;
            if (!sim_calib_line_fit(x[a][k], y[a][k], pts[a][k], &fixed, &per)) {
                none_found(in, "/task_loop/rows", "the bulk rows of a tile and mode need two different iters for a fit");
                return;
            }
            *(a ? &p->tiles[k].fixed_cycles_store : &p->tiles[k].fixed_cycles) = fixed;
            *(a ? &p->tiles[k].per_iter_cycles_store : &p->tiles[k].per_iter_cycles) = per;
        }
    p->loop_gap_ns = llround(sim_median_f64(gaps, n_gap));
    p->acquire_ns = llround(sim_median_f64(acq, n_acq));
}

/* The idle hand-off (release issued -> seen by the waiter): the raw file's stamped measurement when it has
 * one (its growth with load then replaces handoff_load's), else the median one-way latency of the latency
 * matrix, else the raw one-way at no load. */
static void raw_idle_handoff(JsonIn *in, const cJSON *root, const char *matrix_path, int64_t one_way, HwProfile *p)
{
    const cJSON *stamped = cJSON_GetObjectItemCaseSensitive(root, "handoff_stamped");
    if (stamped) {
        const cJSON *rows = sim_json_array(in, stamped, "/handoff_stamped", "rows", SIM_PROFILE_MAX_POINTS);
        p->handoff_ns = llround(sim_json_num(in, stamped, "/handoff_stamped", "mean_ns", 0, 1e9));
        p->handoff_points = 0;
        int i = 0;
        for (const cJSON *row = rows ? rows->child : NULL; row && !in->err->status; row = row->next, i++) {
            char path[64];
            snprintf(path, sizeof path, "/handoff_stamped/rows/%d", i);
            p->handoff_k[p->handoff_points] = (int32_t)sim_json_int(in, row, path, "k", 0, 1 << 16);
            if (!in->err->status && p->handoff_points && p->handoff_k[p->handoff_points] <= p->handoff_k[p->handoff_points - 1])
                none_found(in, path, "k must ascend");
            p->handoff_extra_ns[p->handoff_points++] = llround(sim_json_num(in, row, path, "mean_ns", 0, 1e9)) - p->handoff_ns;
        }
        snprintf(p->handoff_source, sizeof p->handoff_source, "handoff_stamped: the executor's release stamped -> "
                 "its waiter's stamp, mean");
        return;
    }
    if (matrix_path) {
        int32_t *m = NULL;
        bool is_legacy;
        if (sim_latency_matrix_load(matrix_path, p->sm_count, &m, &is_legacy, in->err) != SIM_OK)
            return;
        p->handoff_ns = sim_calib_matrix_median(m, p->sm_count);
        free(m);
        snprintf(p->handoff_source, sizeof p->handoff_source, "median one-way of %s (st.release / ld.acquire "
                 "ping-pong)", matrix_path);
        return;
    }
    p->handoff_ns = one_way;
    snprintf(p->handoff_source, sizeof p->handoff_source, "handoff_load one-way at no load (includes the "
             "releaser's fence)");
}

static SimStatus check_written(const HwProfile *p, const char *raw_path, SimError *err);

/* reduce_staggered: each row's two halves, against the curve (reduce_inflight) of the same method and
 * tile in the same file; rows grouped by family (bulk; ldst, red: ldst) and each family's queue fitted. */
static void raw_staggered(JsonIn *in, const cJSON *root, const HwProfile *curves, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, sim_json_get(in, root, "", "reduce_staggered"), "/reduce_staggered", "rows", 1024);
    int n = rows ? cJSON_GetArraySize(rows) : 0;
    StaggerRun *runs = g_new0(StaggerRun, MAX(n, 1));
    bool *is_bulk = g_new0(bool, MAX(n, 1));
    for (int i = 0; i < n && !in->err->status; i++) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        char path[64], op[16];
        snprintf(path, sizeof path, "/reduce_staggered/rows/%d", i);
        sim_json_text(in, row, path, "op", op, sizeof op);
        op[strcspn(op, "-")] = 0;
        int tm = (int)sim_json_int(in, row, path, "tile_m", 1, 1024), hd = (int)sim_json_int(in, row, path, "head_dim", 1, 1024);
        int threads = (int)sim_json_int(in, row, path, "threads", 1, 1024);
        runs[i].k = (int)sim_json_int(in, row, path, "k", 2, 1 << 16);
        runs[i].stagger_ns = sim_json_int(in, row, path, "stagger_ns", 0, 1000000000);
        runs[i].early_ns = llround(sim_json_num(in, row, path, "early_median_ns", 1, 1e9));
        runs[i].late_ns = llround(sim_json_num(in, row, path, "late_median_ns", 1, 1e9));
        is_bulk[i] = strcmp(op, "bulk") == 0;
        for (int j = 0; j < curves->reduce_count && !in->err->status; j++) {
            const ProfileReduce *r = &curves->reduces[j];
            if (r->tile_m == tm && r->head_dim == hd && r->threads == threads && strcmp(r->op, op) == 0)
                runs[i].reduce = r;
        }
        if (!in->err->status && !runs[i].reduce)
            none_found(in, path, "no reduce_inflight curve for this method and tile in the same file");
    }
    if (!in->err->status)
        sim_calib_fit_queues(runs, is_bulk, n, p);
    if (!in->err->status && p->queue_count == 0)
        none_found(in, "/reduce_staggered/rows", "no staggered runs to fit the load rule's queue to");
    g_free(runs);
    g_free(is_bulk);
}

/* A raw file's text cap under max_memory_bytes. */
static int64_t raw_max_bytes(int64_t max_memory_bytes)
{
    return MIN(SIM_PROFILE_RAW_MAX_BYTES, max_memory_bytes / SIM_PROFILE_RAW_PARSE_FACTOR);
}

SimStatus sim_profile_fit_load(HwProfile *p, const char *raw_path, int64_t max_memory_bytes, SimError *err)
{
    cJSON *root;
    uint64_t hash;
    if (load_json(raw_path, raw_max_bytes(max_memory_bytes), &root, &hash, err) != SIM_OK)
        return err->status;
    JsonIn in = { raw_path, err };
    HwProfile *curves = g_new0(HwProfile, 1);
    p->queue_count = 0;
    raw_reduce(&in, root, curves);
    if (!err->status)
        raw_staggered(&in, root, curves, p);
    snprintf(p->queue_source, sizeof p->queue_source, "%s", raw_path);
    p->queue_source_hash = hash;
    sim_profile_free(curves);
    cJSON_Delete(root);
    if (err->status)
        p->queue_count = 0;
    return err->status;
}

/* reduce_clock (gpu-calib --steady): each method's reduction alone at the clock the computing SMs left;
 * the clock rule of each family that has loaded rows. */
static void raw_clock(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, sim_json_get(in, root, "", "reduce_clock"), "/reduce_clock", "rows", 4096);
    int n = rows ? cJSON_GetArraySize(rows) : 0;
    ClockRow *cr = g_new0(ClockRow, MAX(n, 1));
    for (int i = 0; i < n && !in->err->status; i++) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        char path[64];
        snprintf(path, sizeof path, "/reduce_clock/rows/%d", i);
        sim_json_text(in, row, path, "op", cr[i].op, sizeof cr[i].op);
        cr[i].op[strcspn(cr[i].op, "-")] = 0;
        cr[i].tile_m = (int)sim_json_int(in, row, path, "tile_m", 1, 1024);
        cr[i].head_dim = (int)sim_json_int(in, row, path, "head_dim", 1, 1024);
        cr[i].threads = (int)sim_json_int(in, row, path, "threads", 1, 1024);
        cr[i].n_compute = (int)sim_json_int(in, row, path, "n_compute", 0, 1 << 16);
        cr[i].cycles = sim_json_num(in, row, path, "median_cycles", 1, 1e9);
        cr[i].mhz = sim_json_num(in, row, path, "measured_mhz", 100, 10000);
    }
    p->clock_count = 0;
    if (!in->err->status)
        sim_calib_fit_clocks(cr, n, p);
    if (!in->err->status && p->clock_count == 0)
        none_found(in, "/reduce_clock/rows", "no method measured at both the idle clock (n_compute 0) and a lower one");
    g_free(cr);
}

SimStatus sim_profile_fit_clock_rule(HwProfile *p, const char *raw_path, int64_t max_memory_bytes, SimError *err)
{
    cJSON *root;
    uint64_t hash;
    if (load_json(raw_path, raw_max_bytes(max_memory_bytes), &root, &hash, err) != SIM_OK)
        return err->status;
    JsonIn in = { raw_path, err };
    raw_clock(&in, root, p);
    snprintf(p->clock_source, sizeof p->clock_source, "%s", raw_path);
    p->clock_source_hash = hash;
    cJSON_Delete(root);
    if (!err->status)
        check_written(p, raw_path, err);
    if (err->status)
        p->clock_count = 0;
    return err->status;
}

/* One reduce_steady row onto the profile's method of the same tile, op and threads (if it has one). */
static void steady_row(JsonIn *in, const cJSON *row, const char *path, HwProfile *p)
{
    char op[16] = "", cpath[96];
    sim_json_text(in, row, path, "op", op, sizeof op);
    op[strcspn(op, "-")] = 0;
    int tm = (int)sim_json_int(in, row, path, "tile_m", 1, 1024), hd = (int)sim_json_int(in, row, path, "head_dim", 1, 1024);
    int threads = (int)sim_json_int(in, row, path, "threads", 1, 1024);
    snprintf(cpath, sizeof cpath, "%s/curve", path);
    const cJSON *curve = sim_json_array(in, row, path, "curve", 64);
    double k[64], ns[64];
    int n = 0;
    for (const cJSON *b = curve ? curve->child : NULL; b && !in->err->status; b = b->next, n++) {
        char bpath[128];
        snprintf(bpath, sizeof bpath, "%s/%d", cpath, n);
        k[n] = sim_json_num(in, b, bpath, "k", 1, 1 << 16), ns[n] = sim_json_num(in, b, bpath, "median_ns", 1, 1e9);
        if (!in->err->status && n && k[n] <= k[n - 1])
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/k: the bins' k must ascend", in->file, bpath);
    }
    for (int i = 0; i < p->reduce_count && !in->err->status && n > 0; i++) {
        ProfileReduce *r = &p->reduces[i];
        if (r->tile_m != tm || r->head_dim != hd || r->threads != threads || strcmp(r->op, op) != 0)
            continue;
        sim_calib_apply_steady(r, k, ns, n);
        p->steady_rows++;
    }
}

SimStatus sim_profile_fit_steady_curve(HwProfile *p, const char *raw_path, int64_t max_memory_bytes, SimError *err)
{
    cJSON *root;
    uint64_t hash;
    if (load_json(raw_path, raw_max_bytes(max_memory_bytes), &root, &hash, err) != SIM_OK)
        return err->status;
    JsonIn in = { raw_path, err };
    const cJSON *rows = sim_json_array(&in, sim_json_get(&in, root, "", "reduce_steady"), "/reduce_steady", "rows", 256);
    p->steady_rows = 0;
    int i = 0;
    for (const cJSON *row = rows ? rows->child : NULL; row && !err->status; row = row->next, i++) {
        char path[48];
        snprintf(path, sizeof path, "/reduce_steady/rows/%d", i);
        steady_row(&in, row, path, p);
    }
    if (!err->status && p->steady_rows == 0)
        none_found(&in, "/reduce_steady/rows", "no row matches a reduction method of the profile");
    snprintf(p->steady_source, sizeof p->steady_source, "%s", raw_path);
    p->steady_source_hash = hash;
    cJSON_Delete(root);
    if (!err->status)
        check_written(p, raw_path, err);
    return err->status;
}

SimStatus sim_profile_from_raw(const char *raw_path, const char *latency_matrix, int64_t max_memory_bytes,
                               HwProfile **out, SimError *err)
{
    *out = NULL;
    cJSON *root;
    uint64_t hash = 0;
    if (load_json(raw_path, raw_max_bytes(max_memory_bytes), &root, &hash, err) != SIM_OK)
        return err->status;
    JsonIn in = { raw_path, err };
    HwProfile *p = g_new0(HwProfile, 1);
    char format[64] = "";
    sim_json_text(&in, root, "", "format", format, sizeof format);
    if (!err->status && strcmp(format, "dashsim-calib-profile-raw") != 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"dashsim-calib-profile-raw\" (gpu-calib --profile)",
                      raw_path);
    const cJSON *meta = sim_json_get(&in, root, "", "metadata");
    sim_json_text(&in, meta, "/metadata", "gpu_name", p->gpu_name, sizeof p->gpu_name);
    sim_json_text(&in, meta, "/metadata", "driver", p->driver, sizeof p->driver);
    sim_json_text(&in, meta, "/metadata", "cuda", p->cuda, sizeof p->cuda);
    sim_json_text(&in, meta, "/metadata", "date", p->date, sizeof p->date);
    p->sm_count = (int)sim_json_int(&in, meta, "/metadata", "sm_count", 1, 4096);
    p->version = 1, p->source_hash = hash;
    snprintf(p->source, sizeof p->source, "%s", raw_path);
    int64_t one_way = 0;
    if (!err->status)
        raw_compute(&in, root, p), raw_staging(&in, root, p), raw_reduce(&in, root, p);
    if (!err->status)
        raw_handoff(&in, root, p, &one_way), raw_launch(&in, root, p);
    if (!err->status && cJSON_GetObjectItemCaseSensitive(root, "task_loop"))
        raw_task_loop(&in, root, p);
    if (!err->status)
        raw_idle_handoff(&in, root, latency_matrix, one_way, p);
    if (!err->status)
        check_written(p, raw_path, err);
    cJSON_Delete(root);
    if (err->status) {
        sim_profile_free(p);
        return err->status;
    }
    *out = p;
    return SIM_OK;
}

/* ---- the profile file ---- */

static void write_curve(FILE *f, const char *name, const int32_t *x, int n)
{
    fprintf(f, "\"%s\": [", name);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%" PRId32, i ? ", " : "", x[i]);
    fputc(']', f);
}

static void write_values(FILE *f, const char *name, const int64_t *y, int n)
{
    fprintf(f, "\"%s\": [", name);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", y[i]);
    fputc(']', f);
}

/* The "compute" and "reduce" arrays: per tile, per reduction method. */
static void write_tiles_and_reduces(const HwProfile *p, FILE *f)
{
    fputs("  \"compute\": [", f);
    for (int i = 0; i < p->tile_count; i++) {
        const ProfileTile *t = &p->tiles[i];
        fprintf(f, "%s\n    {\"tile_m\": %d, \"head_dim\": %d, \"fixed_cycles\": %.1f, \"per_iter_cycles\": %.3f, "
                "\"fixed_cycles_store\": %.1f, \"per_iter_cycles_store\": %.3f, \"stage_serial_ns\": %" PRId64
                ", \"deposit_ns\": %" PRId64 ", \"reduce_async_ns\": %" PRId64 ", ", i ? "," : "", t->tile_m, t->head_dim,
                t->fixed_cycles, t->per_iter_cycles, t->fixed_cycles_store, t->per_iter_cycles_store, t->stage_serial_ns,
                t->deposit_ns, t->reduce_async_ns);
        write_curve(f, "reduce_async_iters", t->reduce_async_iters, t->reduce_async_points), fputs(", ", f);
        write_values(f, "reduce_async_by_iters_ns", t->reduce_async_by_iters_ns, t->reduce_async_points), fputs(", ", f);
        write_curve(f, "stage_iters", t->stage_iters, t->stage_points), fputs(", ", f);
        write_values(f, "stage_by_iters_ns", t->stage_by_iters_ns, t->stage_points), fputc('}', f);
    }
    fputs("\n  ],\n  \"reduce\": [", f);
    for (int i = 0; i < p->reduce_count; i++) {
        const ProfileReduce *r = &p->reduces[i];
        fprintf(f, "%s\n    {\"tile_m\": %d, \"head_dim\": %d, \"op\": \"%s\", \"threads\": %d, ", i ? "," : "",
                r->tile_m, r->head_dim, r->op, r->threads);
        write_curve(f, "k", r->k, r->points), fputs(", ", f), write_values(f, "ns", r->ns, r->points), fputc('}', f);
    }
    fputs("\n  ]", f);
}

/* "source": {"file": ..., "fnv1a64": ...}: the raw calibration file a part of the profile was made from. */
static void write_source(FILE *f, const char *file, uint64_t hash)
{
    fputs("\"source\": {\"file\": ", f);
    sim_write_json_string(f, file);
    fprintf(f, ", \"fnv1a64\": \"%016" PRIx64 "\"}", hash);
}

/* The "load", "reduce_clock" and "reduce_curve" rules, each when p has one. */
static void write_rules(const HwProfile *p, FILE *f)
{
    if (p->queue_count > 0) {
        fputs(",\n  \"load\": {\"rule\": \"queue\", ", f), write_source(f, p->queue_source, p->queue_source_hash);
        fputs(", \"families\": [", f);
        for (int i = 0; i < p->queue_count; i++) {
            const ProfileQueue *q = &p->queues[i];
            fprintf(f, "%s\n    {\"op\": \"%s\", \"issue_share\": %.2f, \"fit_runs\": %d, "
                    "\"fit_max_error\": %.4f, \"fit_median_error\": %.4f, \"ps_max_error\": %.4f}", i ? "," : "", q->op,
                    q->issue_share, q->fit_runs, q->fit_max_error, q->fit_median_error, q->ps_max_error);
        }
        fputs("\n  ]}", f);
    }
    if (p->clock_count > 0) {
        fputs(",\n  \"reduce_clock\": {", f), write_source(f, p->clock_source, p->clock_source_hash);
        fprintf(f, ", \"ref_mhz\": %.0f, \"families\": [", p->clock_ref_mhz);
        for (int i = 0; i < p->clock_count; i++) {
            const ProfileClock *c = &p->clocks[i];
            fprintf(f, "%s\n    {\"op\": \"%s\", \"clock_share\": %.2f, \"fit_rows\": %d, \"fit_max_error\": %.4f}",
                    i ? "," : "", c->op, c->clock_share, c->fit_rows, c->fit_max_error);
        }
        fputs("\n  ]}", f);
    }
    if (p->steady_rows > 0) {
        fputs(",\n  \"reduce_curve\": {\"rule\": \"steady\", ", f), write_source(f, p->steady_source, p->steady_source_hash);
        fprintf(f, ", \"methods\": %d}", p->steady_rows);
    }
}

bool sim_profile_write(const HwProfile *p, FILE *f)
{
    fprintf(f, "{\n  \"format\": \"dashsim-profile\",\n  \"version\": %d,\n  \"gpu\": {\"name\": ", p->version);
    sim_write_json_string(f, p->gpu_name);
    fprintf(f, ", \"sm_count\": %d, \"clock_mhz\": %d, \"driver\": ", p->sm_count, p->clock_mhz);
    sim_write_json_string(f, p->driver);
    fputs(", \"cuda\": ", f), sim_write_json_string(f, p->cuda);
    fputs(", \"date\": ", f), sim_write_json_string(f, p->date);
    fputs("},\n  ", f), write_source(f, p->source, p->source_hash), fputs(",\n", f);
    write_tiles_and_reduces(p, f);
    fprintf(f, ",\n  \"handoff\": {\"idle_ns\": %" PRId64 ", \"source\": ", p->handoff_ns);
    sim_write_json_string(f, p->handoff_source);
    fputs(", ", f), write_curve(f, "k", p->handoff_k, p->handoff_points), fputs(", ", f);
    write_values(f, "extra_ns", p->handoff_extra_ns, p->handoff_points);
    fprintf(f, "},\n  \"acquire_ns\": %" PRId64 ",\n  \"loop_gap_ns\": %" PRId64 ",\n  \"launch\": {\"kernel_to_first_cta_ns\": %" PRId64
            ", \"cta_gap_ns\": %" PRId64 ", ", p->acquire_ns, p->loop_gap_ns, p->kernel_to_first_cta_ns, p->cta_gap_ns);
    write_curve(f, "prologue_tasks", p->prologue_tasks, p->prologue_points), fputs(", ", f);
    write_values(f, "prologue_ns", p->prologue_ns, p->prologue_points);
    fputc('}', f);
    write_rules(p, f);
    fputs("\n}\n", f);
    return !ferror(f);
}

/* A curve: x ascending integers in [x_lo, 2^24], y integers in [0, 1e9], same length. */
static int read_curve(JsonIn *in, const cJSON *obj, const char *path, const char *xk, const char *yk, int32_t *x,
                      int64_t *y, int x_lo, int max)
{
    const cJSON *xs = sim_json_array(in, obj, path, xk, max), *ys = sim_json_array(in, obj, path, yk, max);
    if (in->err->status)
        return 0;
    int n = cJSON_GetArraySize(xs);
    if (cJSON_GetArraySize(ys) != n)
        return sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s: %s and %s must have the same length", in->file, path,
                             xk, yk), 0;
    for (int i = 0; i < n && !in->err->status; i++) {
        const cJSON *a = cJSON_GetArrayItem(xs, i), *b = cJSON_GetArrayItem(ys, i);
        if (!cJSON_IsNumber(a) || a->valuedouble != floor(a->valuedouble) || a->valuedouble < x_lo ||
            a->valuedouble > (1 << 24) || (i && a->valuedouble <= x[i - 1]) || !cJSON_IsNumber(b) ||
            b->valuedouble != floor(b->valuedouble) || fabs(b->valuedouble) > 1e9)
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s/%d: points must be ascending integers from %d, values "
                          "integers of at most 1e9 ns", in->file, path, xk, i, x_lo);
        else
            x[i] = (int32_t)a->valuedouble, y[i] = (int64_t)b->valuedouble;
    }
    return n;
}

static void read_tiles(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, root, "", "compute", 256);
    p->tile_count = rows ? cJSON_GetArraySize(rows) : 0;
    p->tiles = g_new0(ProfileTile, MAX(p->tile_count, 1));
    for (int i = 0; i < p->tile_count && !in->err->status; i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i);
        char path[48];
        snprintf(path, sizeof path, "/compute/%d", i);
        p->tiles[i] = (ProfileTile){
            .tile_m = (int)sim_json_int(in, r, path, "tile_m", 1, 1024), .head_dim = (int)sim_json_int(in, r, path, "head_dim", 1, 1024),
            .fixed_cycles = sim_json_num(in, r, path, "fixed_cycles", 0, 1e9), .per_iter_cycles = sim_json_num(in, r, path, "per_iter_cycles", 0, 1e9),
            .fixed_cycles_store = sim_json_num(in, r, path, "fixed_cycles_store", 0, 1e9),
            .per_iter_cycles_store = sim_json_num(in, r, path, "per_iter_cycles_store", 0, 1e9),
            .stage_serial_ns = sim_json_int(in, r, path, "stage_serial_ns", 0, 1000000000),
            .deposit_ns = sim_json_int(in, r, path, "deposit_ns", 0, 1000000000),
            .reduce_async_ns = sim_json_int(in, r, path, "reduce_async_ns", 0, 1000000000) };
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "reduce_async_iters")) > 0)
            p->tiles[i].reduce_async_points = read_curve(in, r, path, "reduce_async_iters", "reduce_async_by_iters_ns",
                                                         p->tiles[i].reduce_async_iters,
                                                         p->tiles[i].reduce_async_by_iters_ns, 1,
                                                         G_N_ELEMENTS(p->tiles[i].reduce_async_iters));
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "stage_iters")) > 0)
            p->tiles[i].stage_points = read_curve(in, r, path, "stage_iters", "stage_by_iters_ns", p->tiles[i].stage_iters,
                                                  p->tiles[i].stage_by_iters_ns, 0, G_N_ELEMENTS(p->tiles[i].stage_iters));
    }
}

static void read_reduces(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rows = sim_json_array(in, root, "", "reduce", 1024);
    p->reduce_count = rows ? cJSON_GetArraySize(rows) : 0;
    p->reduces = g_new0(ProfileReduce, MAX(p->reduce_count, 1));
    for (int i = 0; i < p->reduce_count && !in->err->status; i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i);
        ProfileReduce *x = &p->reduces[i];
        char path[48];
        snprintf(path, sizeof path, "/reduce/%d", i);
        x->tile_m = (int)sim_json_int(in, r, path, "tile_m", 1, 1024), x->head_dim = (int)sim_json_int(in, r, path, "head_dim", 1, 1024);
        x->threads = (int)sim_json_int(in, r, path, "threads", 1, 1024);
        sim_json_text(in, r, path, "op", x->op, sizeof x->op);
        if (!in->err->status && strcmp(x->op, "bulk") != 0 && strcmp(x->op, "ldst") != 0 && strcmp(x->op, "red") != 0)
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/op: must be \"bulk\", \"ldst\" or \"red\"", in->file, path);
        x->points = read_curve(in, r, path, "k", "ns", x->k, x->ns, 1, SIM_PROFILE_MAX_POINTS);
        if (!in->err->status && (x->k[0] != 1 || x->ns[0] <= 0))
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/k: must start at 1 with a positive time", in->file, path);
    }
}

/* obj's "source" (the raw file and its hash) and, when rule is given, its "rule", which must be that word. */
static void read_source(JsonIn *in, const cJSON *obj, const char *path, const char *rule, char *file, size_t len,
                        uint64_t *hash)
{
    char text[32] = "", src_path[48];
    if (rule) {
        sim_json_text(in, obj, path, "rule", text, sizeof text);
        if (!in->err->status && strcmp(text, rule) != 0)
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/rule: must be \"%s\"", in->file, path, rule);
    }
    snprintf(src_path, sizeof src_path, "%s/source", path);
    const cJSON *src = sim_json_get(in, obj, path, "source");
    sim_json_text(in, src, src_path, "file", file, len);
    sim_json_text(in, src, src_path, "fnv1a64", text, sizeof text);
    *hash = strtoull(text, NULL, 16);
}

/* The optional load rule: the queue of each family of methods. */
static void read_load(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *load = sim_json_get(in, root, "", "load");
    read_source(in, load, "/load", "queue", p->queue_source, sizeof p->queue_source, &p->queue_source_hash);
    const cJSON *rows = sim_json_array(in, load, "/load", "families", SIM_PROFILE_MAX_QUEUES);
    for (const cJSON *r = rows ? rows->child : NULL; r && !in->err->status; r = r->next) {
        ProfileQueue *q = &p->queues[p->queue_count];
        char path[48];
        snprintf(path, sizeof path, "/load/families/%d", p->queue_count++);
        sim_json_text(in, r, path, "op", q->op, sizeof q->op);
        if (!in->err->status && strcmp(q->op, "bulk") != 0 && strcmp(q->op, "ldst") != 0)
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/op: must be \"bulk\" or \"ldst\"", in->file, path);
        q->issue_share = sim_json_num(in, r, path, "issue_share", 0.01, 1);
        q->fit_runs = (int)sim_json_int(in, r, path, "fit_runs", 0, 1 << 20);
        q->fit_max_error = sim_json_num(in, r, path, "fit_max_error", 0, 1e6);
        q->fit_median_error = sim_json_num(in, r, path, "fit_median_error", 0, 1e6);
        q->ps_max_error = sim_json_num(in, r, path, "ps_max_error", 0, 1e6);
    }
}

/* The optional clock rule: the share of each family's reduction that scales with the SM clock. */
static void read_clock(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rc = sim_json_get(in, root, "", "reduce_clock");
    read_source(in, rc, "/reduce_clock", NULL, p->clock_source, sizeof p->clock_source, &p->clock_source_hash);
    p->clock_ref_mhz = sim_json_num(in, rc, "/reduce_clock", "ref_mhz", 100, 10000);
    const cJSON *rows = sim_json_array(in, rc, "/reduce_clock", "families", SIM_PROFILE_MAX_QUEUES);
    for (const cJSON *r = rows ? rows->child : NULL; r && !in->err->status; r = r->next) {
        ProfileClock *c = &p->clocks[p->clock_count];
        char path[48];
        snprintf(path, sizeof path, "/reduce_clock/families/%d", p->clock_count++);
        sim_json_text(in, r, path, "op", c->op, sizeof c->op);
        if (!in->err->status && strcmp(c->op, "bulk") != 0 && strcmp(c->op, "ldst") != 0)
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/op: must be \"bulk\" or \"ldst\"", in->file, path);
        c->clock_share = sim_json_num(in, r, path, "clock_share", 0, 1);
        c->fit_rows = (int)sim_json_int(in, r, path, "fit_rows", 0, 1 << 20);
        c->fit_max_error = sim_json_num(in, r, path, "fit_max_error", 0, 1e6);
    }
}

/* The optional record of the steady load curves: their source and how many methods use them. */
static void read_steady(JsonIn *in, const cJSON *root, HwProfile *p)
{
    const cJSON *rc = sim_json_get(in, root, "", "reduce_curve");
    read_source(in, rc, "/reduce_curve", "steady", p->steady_source, sizeof p->steady_source, &p->steady_source_hash);
    p->steady_rows = (int)sim_json_int(in, rc, "/reduce_curve", "methods", 1, 1 << 16);
}

static SimStatus read_root(const char *path, const cJSON *root, HwProfile **out, SimError *err)
{
    JsonIn in = { path, err };
    HwProfile *p = g_new0(HwProfile, 1);
    char format[64] = "";
    sim_json_text(&in, root, "", "format", format, sizeof format);
    p->version = (int)sim_json_int(&in, root, "", "version", 1, 1);
    if (!err->status && strcmp(format, "dashsim-profile") != 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"dashsim-profile\" (sim calibrate writes one)", path);
    const cJSON *gpu = sim_json_get(&in, root, "", "gpu");
    const cJSON *handoff = sim_json_get(&in, root, "", "handoff"), *launch = sim_json_get(&in, root, "", "launch");
    sim_json_text(&in, gpu, "/gpu", "name", p->gpu_name, sizeof p->gpu_name);
    sim_json_text(&in, gpu, "/gpu", "driver", p->driver, sizeof p->driver);
    sim_json_text(&in, gpu, "/gpu", "cuda", p->cuda, sizeof p->cuda);
    sim_json_text(&in, gpu, "/gpu", "date", p->date, sizeof p->date);
    p->sm_count = (int)sim_json_int(&in, gpu, "/gpu", "sm_count", 1, 4096);
    p->clock_mhz = (int)sim_json_int(&in, gpu, "/gpu", "clock_mhz", 100, 10000);
    read_source(&in, root, "", NULL, p->source, sizeof p->source, &p->source_hash);
    read_tiles(&in, root, p);
    read_reduces(&in, root, p);
    p->handoff_ns = sim_json_int(&in, handoff, "/handoff", "idle_ns", 0, 1000000000);
    sim_json_text(&in, handoff, "/handoff", "source", p->handoff_source, sizeof p->handoff_source);
    p->handoff_points = read_curve(&in, handoff, "/handoff", "k", "extra_ns", p->handoff_k, p->handoff_extra_ns, 0, SIM_PROFILE_MAX_POINTS);
    p->acquire_ns = sim_json_int(&in, root, "", "acquire_ns", 0, 1000000000);
    p->loop_gap_ns = sim_json_int(&in, root, "", "loop_gap_ns", 0, 1000000000);
    p->kernel_to_first_cta_ns = sim_json_int(&in, launch, "/launch", "kernel_to_first_cta_ns", 0, 1000000000);
    p->cta_gap_ns = sim_json_int(&in, launch, "/launch", "cta_gap_ns", 0, 1000000000);
    p->prologue_points = read_curve(&in, launch, "/launch", "prologue_tasks", "prologue_ns", p->prologue_tasks,
                                    p->prologue_ns, 0, SIM_PROFILE_MAX_POINTS);
    if (!err->status && cJSON_GetObjectItemCaseSensitive(root, "load"))
        read_load(&in, root, p);
    if (!err->status && cJSON_GetObjectItemCaseSensitive(root, "reduce_clock"))
        read_clock(&in, root, p);
    if (!err->status && cJSON_GetObjectItemCaseSensitive(root, "reduce_curve"))
        read_steady(&in, root, p);
    if (err->status) {
        sim_profile_free(p);
        return err->status;
    }
    *out = p;
    return SIM_OK;
}

SimStatus sim_profile_read(const char *path, HwProfile **out, SimError *err)
{
    *out = NULL;
    cJSON *root;
    uint64_t hash;
    if (load_json(path, PROFILE_MAX_BYTES, &root, &hash, err) != SIM_OK)
        return err->status;
    read_root(path, root, out, err);
    cJSON_Delete(root);
    return err->status;
}

/* Whether p, as sim_profile_write writes it, is a profile sim_profile_read accepts: what calibrate makes
 * from a raw file is refused here, with the reader's sentence, rather than written and refused later. */
static SimStatus check_written(const HwProfile *p, const char *raw_path, SimError *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return sim_error_set(err, SIM_ERR_IO, "cannot make the profile of %s: out of memory", raw_path);
    sim_profile_write(p, f);
    fclose(f);
    cJSON *root = cJSON_ParseWithLength(text, len);
    HwProfile *again = NULL;
    SimError why = { 0 };
    if (!root)
        sim_error_set(&why, SIM_ERR_INPUT, "a value is not a finite number");
    else
        read_root("the profile", root, &again, &why);
    if (why.status)
        sim_error_set(err, SIM_ERR_INPUT, "%s: the profile made from it would be refused: %s", raw_path, why.msg);
    cJSON_Delete(root);
    sim_profile_free(again);
    free(text);
    return err->status;
}

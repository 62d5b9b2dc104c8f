/* Outputs of `sim decode`: text, JSON (cJSON stays inside this file) and the sweep's gnuplot PNG.
 * Invariant: every report names its model (the H100 cost model: model numbers), the text above a data
 * block is "# " comments, and every JSON object records the dashsim version; tests/cli_decode.sh and
 * tests/cli_report_text.sh hold the formats. */
#include "decode_out.h"

#include <cjson/cJSON.h>
#include <glib.h>
#include <inttypes.h>
#include <unistd.h>

#include "gnuplot.h"
#include "output.h"
#include "dashsim/version.h"

static const char *dtype_name(DecodeDtype t)
{
    return t == DECODE_FP8 ? "fp8" : t == DECODE_FP16 ? "fp16" : "bf16";
}

static void add_shape_json(cJSON *j, const DecodeShape *w, const DecodeGeometry *g)
{
    cJSON_AddNumberToObject(j, "batch", w->batch);
    cJSON_AddNumberToObject(j, "hq", w->hq);
    cJSON_AddNumberToObject(j, "hkv", w->hkv);
    cJSON_AddNumberToObject(j, "lq", w->lq);
    cJSON_AddNumberToObject(j, "lk", (double)w->lk);
    cJSON_AddNumberToObject(j, "head_dim", w->head_dim);
    cJSON_AddStringToObject(j, "dtype", dtype_name(w->dtype));
    cJSON_AddBoolToObject(j, "paged", w->is_paged);
    cJSON_AddNumberToObject(j, "n_sm", w->n_sm);
    cJSON_AddNumberToObject(j, "kblock_m", g->kblock_m);
    cJSON_AddNumberToObject(j, "kblock_n", g->kblock_n);
    cJSON_AddNumberToObject(j, "n_blocks", (double)g->n_blocks);
    cJSON_AddNumberToObject(j, "num_m_blocks", (double)g->num_m_blocks);
    cJSON_AddNumberToObject(j, "total_mblocks", (double)g->total_mblocks);
}

static void add_run_json(cJSON *j, const DecodeRun *r)
{
    cJSON_AddNumberToObject(j, "num_splits", r->splits);
    cJSON_AddNumberToObject(j, "latency_ns", (double)r->latency_ns);
    cJSON_AddNumberToObject(j, "ctas", (double)r->ctas);
    cJSON_AddNumberToObject(j, "empty_ctas", (double)r->empty_ctas);
    cJSON_AddNumberToObject(j, "blocks_per_split", (double)r->blocks_per_split);
    cJSON_AddNumberToObject(j, "block_ns", (double)r->block_ns);
    cJSON_AddNumberToObject(j, "main_ns", (double)r->main_ns);
    cJSON_AddNumberToObject(j, "combine_ns", (double)r->combine_total_ns);
    cJSON_AddNumberToObject(j, "sm_occupancy", r->sm_occupancy);
    cJSON_AddNumberToObject(j, "sm_busy_fraction", r->sm_busy_fraction);
}

/* A top-level object, closed by the dashsim version that wrote it. */
static void write_json_and_free(FILE *f, cJSON *j)
{
    cJSON_AddStringToObject(j, "dashsim_version", DASHSIM_VERSION);
    char *s = cJSON_PrintUnformatted(j);
    fprintf(f, "%s\n", s);
    cJSON_free(s);
    cJSON_Delete(j);
}

/* What the numbers are: the cost model and its two rates (docs/decode.md), never a measurement. */
static void write_model(FILE *f, const DecodeCosts *c, const char *prefix)
{
    fprintf(f, "%smodel  FA3 split-KV decode on the H100 cost model (HBM %" PRId64 " GB/s, %" PRId64 " GFLOP/s "
            "per SM; docs/decode.md); model numbers, not measurements\n", prefix, c->hbm_gbps, c->sm_tensor_gflops);
}

/* The shape, FA3's tile and the model, each line starting with prefix ("# " above a data block). */
static void write_shape(FILE *f, const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c,
                        const char *prefix)
{
    fprintf(f, "%sdecode: batch %d, H_q %d, H_kv %d, L_q %d, L_K %" PRId64 ", head dim %d %s, %s KV, %d SMs\n",
            prefix, w->batch, w->hq, w->hkv, w->lq, w->lk, w->head_dim, dtype_name(w->dtype),
            w->is_paged ? "paged" : "contiguous", w->n_sm);
    fprintf(f, "%stile %d x %d: n_blocks %" PRId64 ", num_m_blocks %" PRId64 ", total_mblocks %" PRId64 "\n",
            prefix, g->kblock_m, g->kblock_n, g->n_blocks, g->num_m_blocks, g->total_mblocks);
    write_model(f, c, prefix);
}

void sim_decode_write_run(FILE *f, const char *policy_name, const DecodeShape *w, const DecodeGeometry *g,
                          const DecodeCosts *c, const DecodeRun *r, bool is_json)
{
    if (is_json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "policy", policy_name);
        add_shape_json(j, w, g);
        add_run_json(j, r);
        write_json_and_free(f, j);
        return;
    }
    write_shape(f, w, g, c, "");
    fprintf(f, "split policy %s -> %d split%s: %" PRId64 " CTAs (%" PRId64 " empty), %" PRId64 " blocks per split "
            "at %" PRId64 " ns each\n", policy_name, r->splits, r->splits == 1 ? "" : "s", r->ctas, r->empty_ctas,
            r->blocks_per_split, r->block_ns);
    fprintf(f, "  latency        %10" PRId64 " ns = kernel %" PRId64 " + CTAs %" PRId64 " + combine %" PRId64 "\n",
            r->latency_ns, c->kernel_ns, r->main_ns, r->combine_total_ns);
    fprintf(f, "  SM occupancy   %10.2f %% of SMs hold a CTA; busy %.2f %% while the CTAs run\n",
            100 * r->sm_occupancy, 100 * r->sm_busy_fraction);
}

static void write_sweep_json(FILE *f, const DecodeShape *w, const DecodeGeometry *g, const DecodeSweep *sw)
{
    cJSON *j = cJSON_CreateObject();
    add_shape_json(j, w, g);
    cJSON_AddNumberToObject(j, "best_splits", sw->best);
    cJSON_AddNumberToObject(j, "plateau_from_splits", sw->plateau);
    cJSON_AddNumberToObject(j, "fa3_splits", sw->fa3);
    cJSON_AddNumberToObject(j, "seq_aware_splits", sw->seq_aware);
    cJSON *a = cJSON_AddArrayToObject(j, "sweep");
    for (int s = 1; s <= SIM_DECODE_SWEEP_MAX; s++) {
        cJSON *e = cJSON_CreateObject();
        add_run_json(e, &sw->runs[s - 1]);
        cJSON_AddItemToArray(a, e);
    }
    write_json_and_free(f, j);
}

void sim_decode_write_sweep(FILE *f, const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c,
                            const DecodeSweep *sw, bool is_json)
{
    if (is_json) {
        write_sweep_json(f, w, g, sw);
        return;
    }
    write_shape(f, w, g, c, "# ");
    fprintf(f, "# splits latency_ns ctas blocks_per_split block_ns main_ns combine_ns sm_occupancy\n");
    for (int s = 1; s <= SIM_DECODE_SWEEP_MAX; s++) {
        const DecodeRun *r = &sw->runs[s - 1];
        fprintf(f, "%d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %.4f\n", s,
                r->latency_ns, r->ctas, r->blocks_per_split, r->block_ns, r->main_ns, r->combine_total_ns,
                r->sm_occupancy);
    }
    int64_t best_ns = sw->runs[sw->best - 1].latency_ns;
    fprintf(f, "# best s = %d (%" PRId64 " ns); plateau (within 2 %% of best) from s = %d; s = 3 is %s the "
            "plateau (%+.2f %% over best)\n", sw->best, best_ns, sw->plateau,
            100 * sw->runs[2].latency_ns <= SIM_DECODE_PLATEAU_PERCENT * best_ns ? "on" : "off",
            100.0 * (double)(sw->runs[2].latency_ns - best_ns) / (double)best_ns);
    fprintf(f, "# fa3 picks s = %d (%" PRId64 " ns), seq-aware picks s = %d (%" PRId64 " ns)\n", sw->fa3,
            sw->runs[sw->fa3 - 1].latency_ns, sw->seq_aware, sw->runs[sw->seq_aware - 1].latency_ns);
}

/* The gnuplot script with the sweep inline, drawing to png (already quoted for '...'). */
static bool write_plot_script(FILE *f, const DecodeSweep *sw, const char *title, const char *png)
{
    fprintf(f, "set terminal pngcairo size 900,540\nset output '%s'\nset title '%s'\n"
            "set xlabel 'num splits s'\nset ylabel 'latency (us)'\nset grid\nset key off\n$d << EOD\n", png, title);
    for (int s = 1; s <= SIM_DECODE_SWEEP_MAX; s++)
        fprintf(f, "%d %" PRId64 "\n", s, sw->runs[s - 1].latency_ns);
    fprintf(f, "EOD\nplot $d using 1:($2/1000) with linespoints pt 7 ps 0.6\n");
    return fclose(f) == 0;
}

/* gnuplot writes the PNG to the output's temporary name, renamed into place only if gnuplot succeeded. */
SimStatus sim_decode_plot_sweep(const DecodeShape *w, const DecodeSweep *sw, const char *path, SimError *err)
{
    SimOutput out;
    if (sim_output_open(&out, path, err) != SIM_OK)
        return err->status;
    char title[160], *script = NULL;
    snprintf(title, sizeof title, "batch %d, H_{kv} %d, L_K %" PRId64 ", hdim %d%s", w->batch, w->hkv, w->lk,
             w->head_dim, w->is_paged ? ", paged" : "");
    int fd = g_file_open_tmp("sim-decode-XXXXXX.gp", &script, NULL);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    char *png = sim_gnuplot_quote(out.tmp_path);
    SimError local = { 0 };
    bool is_ok = f && write_plot_script(f, sw, title, png) &&
                 sim_gnuplot_run(NULL, NULL, NULL, script, path, &local) == SIM_OK;
    g_free(png);
    if (script)
        unlink(script);
    g_free(script);
    if (!is_ok) {
        sim_output_abort(&out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write %s: gnuplot is missing or failed", path);
    }
    return sim_output_commit(&out, err);
}

void sim_decode_write_grid_header(FILE *f, const DecodeCosts *c)
{
    write_model(f, c, "# ");
    fprintf(f, "# batch lk hkv n_blocks fa3_s fa3_ns seq_s seq_ns best_s best_ns seq_speedup best_speedup\n");
}

void sim_decode_write_grid_row(FILE *f, const DecodeGridRow *r)
{
    fprintf(f, "%5d %5" PRId64 " %3d %4" PRId64 " %3d %8" PRId64 " %3d %8" PRId64 " %3d %8" PRId64 " %7.3f %7.3f\n",
            r->w.batch, r->w.lk, r->w.hkv, r->n_blocks, r->fa3.splits, r->fa3.latency_ns, r->seq.splits,
            r->seq.latency_ns, r->best.splits, r->best.latency_ns, sim_decode_speedup(&r->fa3, &r->seq),
            sim_decode_speedup(&r->fa3, &r->best));
}

static void write_grid_stats(FILE *f, const char *name, const DecodeGridStats *st)
{
    fprintf(f, "# %-9s vs fa3: different split in %d of %d configs; speedup geomean %.4f, min %.4f, max %.4f; "
            "predicted slower than fa3 in %d\n", name, st->changed, SIM_DECODE_GRID_COUNT,
            sim_decode_grid_geomean(st), st->min, st->max, st->slower);
}

static void write_slower(FILE *f, const DecodeGridRow *rows)
{
    for (int i = 0; i < SIM_DECODE_GRID_COUNT; i++) {
        const DecodeGridRow *r = &rows[i];
        const DecodeRun *runs[] = { &r->seq, &r->best };
        for (int k = 0; k < 2; k++)
            if (runs[k]->latency_ns > r->fa3.latency_ns)
                fprintf(f, "# slower than fa3: %s at batch %d, L_K %" PRId64 ", H_kv %d: %.3fx\n",
                        k ? "best" : "seq-aware", r->w.batch, r->w.lk, r->w.hkv, sim_decode_speedup(&r->fa3, runs[k]));
    }
}

void sim_decode_write_grid_summary(FILE *f, const DecodeGridRow *rows, const DecodeGridStats *seq,
                                   const DecodeGridStats *best)
{
    write_grid_stats(f, "seq-aware", seq);
    write_grid_stats(f, "best", best);
    DecodeGridRegret g = sim_decode_grid_regret(rows);
    fprintf(f, "# best is faster than both heuristics in %d of %d configs\n", g.beats_both, SIM_DECODE_GRID_COUNT);
    const DecodeGridRow *a = &rows[g.worst_fa3], *s = &rows[g.worst_seq];
    fprintf(f, "# largest regret: fa3 %.1f %% (batch %d, L_K %" PRId64 ", H_kv %d: s = %d vs best %d), seq-aware "
            "%.1f %% (batch %d, L_K %" PRId64 ", H_kv %d: s = %d vs best %d)\n",
            100 * (sim_decode_speedup(&a->fa3, &a->best) - 1), a->w.batch, a->w.lk, a->w.hkv, a->fa3.splits,
            a->best.splits, 100 * (sim_decode_speedup(&s->seq, &s->best) - 1), s->w.batch, s->w.lk, s->w.hkv,
            s->seq.splits, s->best.splits);
    write_slower(f, rows);
}

static cJSON *grid_row_json(const DecodeGridRow *r)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "batch", r->w.batch);
    cJSON_AddNumberToObject(e, "lk", (double)r->w.lk);
    cJSON_AddNumberToObject(e, "hkv", r->w.hkv);
    cJSON_AddNumberToObject(e, "hq", r->w.hq);
    cJSON_AddNumberToObject(e, "n_blocks", (double)r->n_blocks);
    const DecodeRun *runs[] = { &r->fa3, &r->seq, &r->best };
    const char *names[] = { "fa3", "seq_aware", "best" };
    for (int k = 0; k < 3; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s_splits", names[k]);
        cJSON_AddNumberToObject(e, key, runs[k]->splits);
        snprintf(key, sizeof key, "%s_latency_ns", names[k]);
        cJSON_AddNumberToObject(e, key, (double)runs[k]->latency_ns);
    }
    return e;
}

static cJSON *grid_stats_json(const DecodeGridStats *st)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "changed", st->changed);
    cJSON_AddNumberToObject(e, "slower_than_fa3", st->slower);
    cJSON_AddNumberToObject(e, "geomean_speedup", sim_decode_grid_geomean(st));
    cJSON_AddNumberToObject(e, "min_speedup", st->min);
    cJSON_AddNumberToObject(e, "max_speedup", st->max);
    return e;
}

void sim_decode_write_grid_json(FILE *f, const DecodeGridRow *rows, const DecodeGridStats *seq,
                                const DecodeGridStats *best)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *a = cJSON_AddArrayToObject(j, "configs");
    for (int i = 0; i < SIM_DECODE_GRID_COUNT; i++)
        cJSON_AddItemToArray(a, grid_row_json(&rows[i]));
    cJSON_AddItemToObject(j, "seq_aware", grid_stats_json(seq));
    cJSON_AddItemToObject(j, "best", grid_stats_json(best));
    write_json_and_free(f, j);
}

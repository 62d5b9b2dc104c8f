/* `sim --seqlen S --head-dim D --heads H --mask M [--kernel K]`: the shape front end. Costs the shape through
 * the one costing path (sim/model/cost/costing.h: the kernel profile's tiles and per-task costs, or FA3's tiles
 * and the FLOPs estimate; the hardware profile's reductions), runs every policy for the mask (or the one
 * named), and reports each policy's makespan, predicted time with the launch's fixed costs, TFLOPS, and the
 * winner's margin over fa3 and fa3-spt, naming the kernel and hardware profiles it used (model numbers).
 * Outputs (--trace, --csv, ...) show the named policy or the winner. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "shape.h"
#include "shape_out.h"
#include "shape_plot.h"

typedef struct {
    FILE *f;                        /* where the report goes: stdout, or stderr when an output is "-" */
    const ShapeOptions *so;
    ShapeQuery q;                   /* so as the library's query, resolved (shape.h) */
    const ShapeRanking *r;          /* the ranking (sim/run/shape.h) */
    const AttnJob *job;             /* r's costed job */
    const CostReport *rep;
    const char *profile, *kernel;   /* the files used; NULL: none */
} ShapeReport;

/* The options as the library's shape query (shape.h), resolved. */
static ShapeQuery query_of(const ShapeOptions *so)
{
    ShapeQuery q = { .seqlen = so->seqlen, .seqlen_k = so->seqlen_k, .head_dim = so->head_dim, .batch = so->batch,
                     .kv_heads = so->kv_heads, .token_mask = so->token_mask, .preset = so->preset,
                     .profile_name = so->profile_path, .kernel_name = so->kernel_path, .is_paper = so->is_paper };
    sim_shape_query_resolve(&q);
    return q;
}

static const char *mask_name(const ShapeReport *s)
{
    return sim_shape_mask_name(&s->q, s->r);
}

/* The baselines margins are taken over: FA3's orders (on a block mask, ascending and spt are FA3's). */
static const char *base_name(const ShapeReport *s, bool is_spt)
{
    return s->so->token_mask ? (is_spt ? "spt" : "ascending") : (is_spt ? "fa3-spt" : "fa3");
}

static void print_tie(const ShapeReport *s)
{
    fprintf(s->f, "tie    ");
    for (int t = 0; t < s->r->tie_count; t++)
        fprintf(s->f, "%s%s", t == 0 ? "" : t + 1 == s->r->tie_count ? " and " : ", ", s->r->rows[s->r->tied[t]].policy);
    fprintf(s->f, ": the lead %.2f%% of %s over %s is below the validated error %.2f%% (%s), so the model cannot "
            "order them\n", 100 * ((double)s->r->rows[s->r->tied[1]].total_ns / s->r->rows[s->r->win].total_ns - 1),
            s->r->rows[s->r->win].policy, s->r->rows[s->r->tied[1]].policy, 100 * s->r->error, s->r->error_from);
}

static void print_text(const ShapeReport *s)
{
    const ShapeOptions *so = s->so;
    const Workload *wl = &s->job->wl;
    const SimCost *c = &s->rep->cost;
    const AttnCosts *k = &s->job->costs;
    fprintf(s->f, "shape  batch %" PRId64 " x %" PRId64 " head%s, seqlen %" PRId64 ", head_dim %" PRId64 ", %s mask, bf16, "
           "%s (%d SMs)\n", so->batch, wl->heads / so->batch, cli_plural(wl->heads / so->batch), so->seqlen,
           so->head_dim, mask_name(s), so->preset, wl->n_sm);
    if (so->seqlen_k != so->seqlen)
        fprintf(s->f, "keys   seqlen_k %" PRId64 ": the queries are the last %" PRId64 " positions of the keys "
                "(bottom-right, as FlashAttention aligns masks)\n", so->seqlen_k, so->seqlen);
    if (so->token_mask)
        fprintf(s->f, "mask   %s in tokens over the kernel's tiles: %d of %d (KV, Q) tile pairs kept per head\n",
                so->token_mask, s->r->kept_tiles, wl->kv_tiles * wl->q_tiles);
    fprintf(s->f, "kernel %s\n", s->kernel ? s->kernel : "none: FA3's sm90 backward tiles, compute from FLOPs (an estimate)");
    fprintf(s->f, "tiles  kBlockM x kBlockN = %d x %d: %d KV x %d Q tiles per head, tile ratio %d, head swizzle %d\n",
           c->block_m, c->block_n, wl->kv_tiles, wl->q_tiles, wl->tile_ratio, wl->head_swizzle);
    fprintf(s->f, "costs  c = %" PRId64 " ns per task (%s), r = %" PRId64 " ns, hand-off %" PRId64 " ns, deposit %" PRId64
           " ns; r from the %s\n", k->c_ns, s->rep->compute_from, k->r_ns, k->latency_ns, k->deposit_ns,
           s->rep->reduce_from);
    char warps[32] = ""; /* named only above one: one store warp's report stays as it was */
    if (k->reduce == REDUCE_ASYNC && k->store_warps > 1)
        snprintf(warps, sizeof warps, ", %d store warps", k->store_warps);
    fprintf(s->f, "model  %s reduction, %d dQ buffer(s)%s, hardware profile %s; launch fixed costs %" PRId64
           " ns; model numbers, not measurements\n", k->reduce == REDUCE_ASYNC ? "async" : "serial", k->dq_buffers,
           warps, s->profile ? s->profile : "none: r and latency from the cost model (--model paper)",
           s->rep->fixed_ns);
    char gqa[256];
    int64_t kv_heads;
    sim_shape_gqa_note(&s->q, s->r, s->kernel != NULL, &kv_heads, gqa, sizeof gqa);
    fprintf(s->f, "gqa    %s\n", gqa);
    fprintf(s->f, "TFLOPS = backward FLOPs / time, FLOPs = 2.5 x forward (FA3's convention: 2.5 x 4 x b x h x S x S_k x d,"
           " causal with the average S_k) = %.4g\n", c->bwd_flops);
    fprintf(s->f, "%-16s %14s %14s %9s %8s\n", "policy", "makespan_ns", "time_ns", "TFLOPS", s->so->token_mask ? "vs asc" : "vs fa3");
    for (int i = 0; i < s->r->n; i++)
        fprintf(s->f, "%-16s %14" PRId64 " %14" PRId64 " %9.1f %8.4f\n", s->r->rows[i].policy, s->r->rows[i].makespan_ns,
               s->r->rows[i].total_ns, s->r->rows[i].tflops,
               s->r->fa3 >= 0 ? (double)s->r->rows[s->r->fa3].total_ns / s->r->rows[i].total_ns : 0);
    for (int i = 0; i < s->r->absent_count; i++)
        fprintf(s->f, "%-16s %s\n", "not ranked", s->r->absent[i].reason);
    if (s->r->n == 1) {
        fprintf(s->f, "one policy named: nothing ranked (--policy all ranks every policy for the mask)\n");
        return;
    }
    if (s->r->tie_count > 1)
        print_tie(s);
    fprintf(s->f, "%s %s", s->r->tie_count > 1 ? "fastest modelled" : "winner", s->r->rows[s->r->win].policy);
    if (s->r->fa3 >= 0 && s->r->fa3 != s->r->win)
        fprintf(s->f, ", %.4fx over %s", sim_shape_margin(s->r, s->r->fa3), base_name(s, false));
    if (s->r->spt >= 0 && s->r->spt != s->r->win)
        fprintf(s->f, s->so->token_mask ? ", %.4fx over %s (FA3's shortest-first launch)" : ", %.4fx over %s (FA3's causal "
                "default)", sim_shape_margin(s->r, s->r->spt), base_name(s, true));
    fprintf(s->f, " (%" PRId64 " ns)\n", s->r->rows[s->r->win].total_ns);
}

static void print_json(const ShapeReport *s)
{
    sim_shape_write_json(s->f, &s->q, s->r, s->profile, s->kernel);
    fputc('\n', s->f);
}

/* No output may be a profile the shape is costed with (found from any directory, the default one included):
 * refused before anything is printed, as every input is (sim/io/output.h). */
static SimStatus check_profile_outputs(const ShapeOptions *so, const AttnJob *j, const ShapeProfiles *pf, SimError *err)
{
    char *gp = sim_output_sibling(j->gantt_path, ".gp"), *dat = sim_output_sibling(j->gantt_path, ".dat");
    char *plot_gp = sim_output_sibling(so->plot_path, ".gp"), *plot_dat = sim_output_sibling(so->plot_path, ".dat");
    SimPathRole in[] = { { "the hardware profile", pf->hw ? pf->hw_path : NULL },
                         { "the kernel profile", pf->kernel ? pf->kernel_path : NULL } };
    SimPathRole out[] = { { "--dot", j->dot_path }, { "--emit-plan", j->plan_path }, { "--trace", j->trace_path },
                          { "--csv", j->csv_path }, { "--gantt", j->gantt_path }, { "the Gantt chart's script", gp },
                          { "the Gantt chart's data", dat }, { "--plot", so->plot_path }, { "--plot's script", plot_gp },
                          { "--plot's data", plot_dat } };
    sim_output_check_paths(in, 2, out, (int)G_N_ELEMENTS(out), err);
    g_free(gp), g_free(dat), g_free(plot_gp), g_free(plot_dat);
    return err->status;
}

/* The shared progress line (cli.h; on a terminal, after a second): policies ranked, the one running. */
static void show_progress(void *ctx, int done, int total, const char *policy)
{
    char note[96];
    snprintf(note, sizeof note, "running %s", policy ? policy : "-");
    cli_progress_update(ctx, done, total, policy ? note : NULL);
}

/* One point's ranking with the profiles loaded: the shape of q, heads from given; progress on a terminal. */
static SimStatus rank_point(const ShapeQuery *q, const AttnJob *given, const ShapeProfiles *pf, ShapeRanking *rank,
                            SimError *err)
{
    CliProgress progress;
    cli_progress_begin(&progress, "rank", "policies");
    sim_shape_rank_query(q, pf, given, rank, show_progress, &progress, err);
    cli_progress_end(&progress);
    return err->status;
}

/* A list point's rows in the one table: per policy its time, TFLOPS and speedups over the baselines. */
static void print_list_rows(FILE *f, const ShapeOptions *so, const ShapeRanking *r, int64_t heads)
{
    for (int i = 0; i < r->n; i++) {
        const ShapeRow *w = &r->rows[i];
        fprintf(f, "%7" PRId64 " %5" PRId64 " %5" PRId64 " %-16s %14" PRId64 " %8.1f", so->seqlen, so->batch, heads,
                w->policy, w->total_ns, w->tflops);
        for (int b = 0; b < 2; b++) {
            int base = b ? r->spt : r->fa3;
            if (base >= 0)
                fprintf(f, " %8.4f", (double)r->rows[base].total_ns / (double)w->total_ns);
            else
                fprintf(f, " %8s", "-");
        }
        fprintf(f, "%s\n", r->tie_count > 1 && i == r->win ? " fastest (tie)" : i == r->win ? " winner" : "");
    }
}

/* The length of a costs sentence before its parenthesis (a title has room for about 100 characters). */
static int words(const char *from)
{
    const char *paren = strstr(from, " (");
    return paren ? (int)(paren - from) : (int)strlen(from);
}

/* A list point ranked: its plot points, the costs sentence of the first, and its rows in the table (or its
 * object in the JSON array, json). */
static void report_point(const ShapeReport *s, int index, GArray *points, char *costs_from, size_t len, FILE *json)
{
    const ShapeRanking *rank = s->r;
    const ShapeOptions *so = s->so;
    for (int i = 0; i < rank->n; i++) {
        ShapePlotPoint pt = { so->seqlen, rank->rows[i].policy, { 0, 0 } };
        for (int k = 0; k < 2; k++) {
            int base = k ? rank->spt : rank->fa3;
            pt.over_base[k] = base >= 0 ? (double)rank->rows[base].total_ns / rank->rows[i].total_ns : 0;
        }
        g_array_append_val(points, pt);
    }
    if (!costs_from[0])
        snprintf(costs_from, len, "c from the %.*s; r from the %.*s", words(rank->rep.compute_from),
                 rank->rep.compute_from, words(rank->rep.reduce_from), rank->rep.reduce_from);
    if (json) {
        fputs(index ? "," : "[", json);
        sim_shape_write_json(json, &s->q, rank, s->profile, s->kernel);
        return;
    }
    if (index == 0)
        printf("model numbers, not measurements: c from the %s; r from the %s; %s reduction, %s mask, head_dim %" PRId64
               "\n%7s %5s %5s %-16s %14s %8s %8s %8s\n", rank->rep.compute_from, rank->rep.reduce_from,
               rank->job.costs.reduce == REDUCE_ASYNC ? "async" : "serial", mask_name(s), so->head_dim, "seqlen",
               "batch", "heads", "policy", "time_ns", "TFLOPS", so->token_mask ? "vs_asc" : "vs_fa3", "vs_spt");
    print_list_rows(stdout, so, rank, rank->job.wl.heads);
}

/* --seqlen/--heads/--batch lists: every combination ranked, one table (or one JSON array) in list order,
 * seqlen outermost. The header names where c and r came from at the first point (same profiles throughout). */
static SimStatus run_list(const ShapeOptions *opts, const AttnJob *given, bool is_json, const ShapeProfiles *pf,
                          SimError *err)
{
    int ns = MAX(opts->seqlen_count, 1), nh = MAX(opts->heads_count, 1), nb = MAX(opts->batch_count, 1), index = 0;
    struct { FILE *f; char *text; size_t len; } json = { 0 };
    if (is_json)
        json.f = open_memstream(&json.text, &json.len);
    GArray *points = g_array_new(FALSE, FALSE, sizeof(ShapePlotPoint));
    char costs_from[600] = "";
    for (int a = 0; a < ns && !err->status; a++)
        for (int h = 0; h < nh && !err->status; h++)
            for (int b = 0; b < nb && !err->status; b++) {
                ShapeOptions so = *opts;
                AttnJob g = *given;
                so.seqlen = opts->seqlen_count ? opts->seqlens[a] : opts->seqlen;
                so.seqlen_k = opts->seqlen_k ? opts->seqlen_k : so.seqlen;
                so.batch = opts->batch_count ? opts->batches[b] : opts->batch;
                g.wl.heads = opts->heads_count ? (int)opts->heads[h] : given->wl.heads;
                ShapeRanking rank = { 0 };
                ShapeReport s = { .f = stdout, .so = &so, .q = query_of(&so), .r = &rank, .job = &rank.job,
                                  .rep = &rank.rep, .profile = pf->hw ? pf->hw_path : NULL,
                                  .kernel = pf->kernel ? pf->kernel_path : NULL };
                if (rank_point(&s.q, &g, pf, &rank, err) == SIM_OK)
                    report_point(&s, index++, points, costs_from, sizeof costs_from, json.f);
                sim_shape_ranking_clear(&rank);
            }
    const char *base[2] = { opts->token_mask ? "ascending" : "fa3", opts->token_mask ? "spt" : "fa3-spt" };
    if (!err->status && opts->plot_path)
        sim_shape_plot((const ShapePlotPoint *)(void *)points->data, (int)points->len, base, costs_from, opts->plot_path,
                       err);
    if (json.f) {
        fclose(json.f);
        if (!err->status)
            printf("%s]\n", json.text);
        free(json.text);
    }
    g_array_free(points, TRUE);
    return err->status;
}

int cli_shape_run(const ShapeOptions *opts, const AttnJob *given, bool is_json)
{
    ShapeOptions so = *opts;
    SimError err = { 0 };
    so.seqlen_k = so.seqlen_k ? so.seqlen_k : so.seqlen;
    if (so.kv_heads && (so.kv_heads > given->wl.heads || given->wl.heads % so.kv_heads != 0))
        return sim_error_set(&err, SIM_ERR_USAGE, "--kv-heads %" PRId64 " must divide --heads %d", so.kv_heads,
                             given->wl.heads), cli_fail(&err);
    bool is_list = so.seqlen_count > 1 || so.heads_count > 1 || so.batch_count > 1;
    if (is_list && (given->dot_path || given->plan_path || given->trace_path || given->csv_path || given->gantt_path))
        return sim_error_set(&err, SIM_ERR_USAGE, "--trace, --csv, --gantt, --dot and --emit-plan show one shape: give "
                             "--seqlen, --heads and --batch one value each"), cli_fail(&err);
    const char *base0 = so.token_mask ? "ascending" : "fa3", *base1 = so.token_mask ? "spt" : "fa3-spt";
    if (so.plot_path && strcmp(given->policy, "all") && strcmp(given->policy, base0) && strcmp(given->policy, base1))
        return sim_error_set(&err, SIM_ERR_USAGE, "--plot draws speedups over %s and %s: --policy %s runs neither "
                             "(--policy all runs every schedule)", base0, base1, given->policy), cli_fail(&err);
    so.head_dim = so.head_dim ? so.head_dim : 128, so.batch = so.batch ? so.batch : 1;
    so.preset = so.preset ? so.preset : "h100-sxm";
    ShapeProfiles pf;
    ShapeQuery q = query_of(&so);
    if (is_list) {
        if (sim_shape_profiles_load(&q, &pf, &err) == SIM_OK && check_profile_outputs(&so, given, &pf, &err) == SIM_OK)
            run_list(opts->seqlen_k ? &so : (so.seqlen_k = 0, &so), given, is_json, &pf, &err);
        sim_shape_profiles_clear(&pf);
        return err.status ? cli_fail(&err) : 0;
    }
    ShapeRanking rank = { 0 }; /* about 40 KB: the absent reasons */
    if (sim_shape_profiles_load(&q, &pf, &err) == SIM_OK && check_profile_outputs(&so, given, &pf, &err) == SIM_OK)
        rank_point(&q, given, &pf, &rank, &err);
    const AttnJob *job = &rank.job;
    AttnJob out = *job; /* the outputs asked for, of the ranked winner (or the one policy named) */
    AttnResult r;
    if (rank.n > 0 && (job->dot_path || job->plan_path || job->trace_path || job->csv_path || job->gantt_path)) {
        out.policy = rank.rows[rank.win].policy;
        if (sim_job_run(&out, &r, &err) == SIM_OK)
            sim_job_result_clear(&r);
    }
    ShapeReport s = { .so = &so, .q = q, .r = &rank, .job = job, .rep = &rank.rep,
                      .profile = pf.hw ? pf.hw_path : NULL, .kernel = pf.kernel ? pf.kernel_path : NULL };
    s.f = cli_report_file((const char *[]){ job->dot_path, job->plan_path, job->trace_path, job->csv_path }, 4);
    if (!err.status)
        (is_json ? print_json : print_text)(&s);
    sim_shape_ranking_clear(&rank);
    sim_shape_profiles_clear(&pf);
    return err.status ? cli_fail(&err) : 0;
}

/* `sim search --mask SPEC --n N ...`: a schedule for any block mask (docs/masks.md), against the lower
 * bound and the hand-made orders; the found plan and its rank table as files. */
#include <getopt.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "costing.h"
#include "job.h"
#include "mask.h"
#include "mask_io.h"
#include "output.h"
#include "plan_io.h"
#include "profile_io.h"
#include "search.h"
#include "search_out.h"

typedef struct {
    Workload wl;
    AttnCosts costs;
    SearchOptions search;
    const char *mask_spec, *mask_file, *plan_path, *ranks_path, *baselines_dir, *profile_path;
    int tile_m, head_dim;       /* --tile, for --profile; with --seqlen, the shape's tiles and --head-dim */
    int64_t seqlen, seqlen_k;   /* --seqlen, --seqlen-k: the mask in tokens over FA3's tiles; 0: tile units */
    unsigned given;             /* bit per option given (1u << (opt - OPT_HELP)) */
    int64_t max_memory_mb;      /* refuse searches estimated above this */
    bool is_json;
} SearchArgs;

static const char usage[] =
    "usage: sim search (--mask SPEC | --mask-file FILE) [options]\n"
    "Searches a deterministic schedule for a block mask and compares it with the lower bounds and the\n"
    "hand-made orders (ascending, descending, spt, and the registered policies on full/causal).\n"
    "  --mask SPEC        a mask in tile units (docs/masks.md, sim --list-masks):\n"
    "                     @MASKS@\n"
    "  --mask-file FILE   a mask file (docs/masks.md: dense rows or a list of pairs)\n"
    "  --seqlen S         the mask in tokens (window:W, window:L:R, document:L1,..., prefix:P) over FA3's\n"
    "                     tiles for --head-dim D (default 128; --seqlen-k SK keys); c, r, latency from the\n"
    "                     cost model unless given\n"
    "  --n N              SMs (default 132)\n"
    "  --heads M          query heads x batch (default 1)\n"
    "  --gqa G            G query heads share a KV head: one CTA per KV tile serves all G (default 1)\n"
    "  --kv-tiles T       KV tiles per head for --mask (default n)\n"
    "  --q-tiles T        Q tiles per head for --mask (default n)\n"
    "  --tiles T          both --kv-tiles and --q-tiles\n"
    "  --c NS, --r NS     compute and reduction cost of a task (default 1000, 500)\n"
    "  --latency NS       on each cross-SM accumulation edge (default 0)\n"
    "  --reduce serial|async (default serial)\n"
    "  --profile FILE     reductions from a hardware profile (docs/profile.md): r, the hand-off latency, the\n"
    "                     async deposit and the load model (reductions slowing each other) for --tile (default\n"
    "                     64x128, bulk); --c stays yours\n"
    "  --tile MxD         the dQ tile for --profile: kBlockM x head_dim\n"
    "  --iterations K     local-search moves (default 100); --seed S (default 1)\n"
    "  --exact-max NODES  instances of at most 64 tasks above the space bound: the exact step (5000 more moves,\n"
    "                     then branch and bound) gives up after NODES partial schedules (default 2000000; 0: no\n"
    "                     exact step)\n"
    "  --exact-max-ms MS  and after MS milliseconds (default 10000; 0: no time bound); JSON exact_stop says why\n"
    "                     it ended: bound, complete (both proved optimal), nodes, time, size (over 64 tasks), off\n"
    "  --max-memory-mb MB refuse searches estimated above this (default 4096; at most this machine's memory)\n"
    "  --json             one JSON object: makespan_ns, lower_bound_ns, space_bound_ns, gap, baselines, ...\n"
    "  --emit-plan FILE   the found schedule as a plan (docs/plan-format.md) for gpu/ and sim --plan\n"
    "  --emit-baselines DIR  also the hand-made orders' plans: DIR/ascending.plan, descending.plan, spt.plan\n"
    "  --ranks FILE       its accumulation order for an external kernel: \"DSRANKS1\", then little-endian int32\n"
    "                     heads, q_tiles, kv_tiles, 0, int64 entries, int32 row offsets [heads x q_tiles + 1]\n"
    "                     and each row's KV tiles in rank order [entries] (docs/masks.md)\n"
    "  --help, --version\n"
    "Time: about (2 x iterations + 300) visits of every task, refused above 2^34 visits (about 4 minutes).\n"
    "Progress on standard error when it is a terminal.\n"
    "Exit status: 0 ok, 2 bad usage or input.\n";

enum { OPT_HELP = 256, OPT_MASK, OPT_MASK_FILE, OPT_N, OPT_HEADS, OPT_TILES, OPT_KV_TILES, OPT_Q_TILES, OPT_C, OPT_R, OPT_LAT, OPT_REDUCE,
       OPT_ITER, OPT_SEED, OPT_EXACT, OPT_JSON, OPT_PLAN, OPT_RANKS, OPT_BASELINES, OPT_PROFILE, OPT_TILE, OPT_GQA,
       OPT_MEM, OPT_EXACT_MS, OPT_SEQLEN, OPT_SEQLEN_K, OPT_HDIM };
static const struct option long_options[] = {
    { "mask", required_argument, NULL, OPT_MASK }, { "mask-file", required_argument, NULL, OPT_MASK_FILE },
    { "n", required_argument, NULL, OPT_N }, { "heads", required_argument, NULL, OPT_HEADS },
    { "tiles", required_argument, NULL, OPT_TILES }, { "kv-tiles", required_argument, NULL, OPT_KV_TILES },
    { "q-tiles", required_argument, NULL, OPT_Q_TILES }, { "c", required_argument, NULL, OPT_C },
    { "r", required_argument, NULL, OPT_R }, { "latency", required_argument, NULL, OPT_LAT },
    { "reduce", required_argument, NULL, OPT_REDUCE }, { "iterations", required_argument, NULL, OPT_ITER },
    { "seed", required_argument, NULL, OPT_SEED }, { "exact-max", required_argument, NULL, OPT_EXACT },
    { "exact-max-ms", required_argument, NULL, OPT_EXACT_MS },
    { "json", no_argument, NULL, OPT_JSON }, { "emit-plan", required_argument, NULL, OPT_PLAN },
    { "ranks", required_argument, NULL, OPT_RANKS }, { "emit-baselines", required_argument, NULL, OPT_BASELINES },
    { "profile", required_argument, NULL, OPT_PROFILE }, { "tile", required_argument, NULL, OPT_TILE },
    { "gqa", required_argument, NULL, OPT_GQA }, { "max-memory-mb", required_argument, NULL, OPT_MEM },
    { "seqlen", required_argument, NULL, OPT_SEQLEN }, { "seqlen-k", required_argument, NULL, OPT_SEQLEN_K },
    { "head-dim", required_argument, NULL, OPT_HDIM },
    { "help", no_argument, NULL, OPT_HELP }, { NULL, 0, NULL, 0 },
};

static SimStatus parse_one(SearchArgs *a, int opt, const char *arg, const char *flag, SimError *err)
{
    int64_t v = 0;
    switch (opt) {
    case OPT_MASK: a->mask_spec = arg; return SIM_OK;
    case OPT_MASK_FILE: a->mask_file = arg; return SIM_OK;
    case OPT_JSON: a->is_json = true; return SIM_OK;
    case OPT_PLAN: a->plan_path = arg; return SIM_OK;
    case OPT_RANKS: a->ranks_path = arg; return SIM_OK;
    case OPT_BASELINES: a->baselines_dir = arg; return SIM_OK;
    case OPT_PROFILE: a->profile_path = arg; return SIM_OK;
    case OPT_TILE: {
        int used = 0;
        if (sscanf(arg, "%dx%d%n", &a->tile_m, &a->head_dim, &used) != 2 || arg[used] || a->tile_m < 1 ||
            a->head_dim < 1 || a->tile_m > 1024 || a->head_dim > 1024)
            return sim_error_set(err, SIM_ERR_USAGE, "--tile expects MxD (e.g. 64x128), got '%s'", arg);
        return SIM_OK;
    }
    case OPT_MEM: return cli_parse_max_memory_mb(flag, arg, &a->max_memory_mb, err);
    case OPT_SEQLEN: return cli_parse_int64(flag, arg, 1, 1 << 24, &a->seqlen, err);
    case OPT_SEQLEN_K: return cli_parse_int64(flag, arg, 1, 1 << 24, &a->seqlen_k, err);
    case OPT_HDIM: return cli_parse_int64(flag, arg, 1, 1024, &v, err) ? err->status : (a->head_dim = (int)v, SIM_OK);
    case OPT_REDUCE:
        if (strcmp(arg, "serial") && strcmp(arg, "async"))
            return sim_error_set(err, SIM_ERR_USAGE, "--reduce expects serial or async, got '%s'", arg);
        a->costs.reduce = strcmp(arg, "serial") ? REDUCE_ASYNC : REDUCE_SERIAL;
        return SIM_OK;
    }
    static const int64_t hi[] = { [OPT_N] = 4096, [OPT_HEADS] = 4096, [OPT_TILES] = 4096, [OPT_KV_TILES] = 4096, [OPT_Q_TILES] = 4096, [OPT_C] = 1000000000,
                                  [OPT_R] = 1000000000, [OPT_LAT] = 1000000000, [OPT_ITER] = 100000000,
                                  [OPT_SEED] = UINT32_MAX, [OPT_EXACT] = 100000000, [OPT_GQA] = 4096,
                                  [OPT_EXACT_MS] = 86400000 };
    if (cli_parse_int64(flag, arg, opt == OPT_N || opt == OPT_HEADS || opt == OPT_TILES || opt == OPT_KV_TILES || opt == OPT_Q_TILES || opt == OPT_GQA,
                        hi[opt], &v, err))
        return err->status;
    switch (opt) {
    case OPT_N: a->wl.n_sm = (int)v; break;
    case OPT_HEADS: a->wl.heads = (int)v; break;
    case OPT_TILES: a->wl.kv_tiles = a->wl.q_tiles = (int)v; break;
    case OPT_KV_TILES: a->wl.kv_tiles = (int)v; break;
    case OPT_Q_TILES: a->wl.q_tiles = (int)v; break;
    case OPT_C: a->costs.c_ns = v; break;
    case OPT_R: a->costs.r_ns = v; break;
    case OPT_LAT: a->costs.latency_ns = v; break;
    case OPT_ITER: a->search.iterations = (int)v; break;
    case OPT_SEED: a->search.seed = (uint32_t)v; break;
    case OPT_EXACT: a->search.exact_max_nodes = v; break;
    case OPT_EXACT_MS: a->search.exact_max_ms = v; break;
    case OPT_GQA: a->search.gqa_group = (int32_t)v; break;
    }
    return SIM_OK;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(SearchArgs *a, int argc, char **argv, SimError *err)
{
    *a = (SearchArgs){ .wl = { .n_sm = 132, .heads = 1, .tile_ratio = 1, .head_swizzle = 1 }, .tile_m = 64, .head_dim = 128,
                       .max_memory_mb = MIN(CLI_MAX_MEMORY_MB_DEFAULT, sim_job_physical_memory_mb()),
                       .costs = { .c_ns = 1000, .r_ns = 500, .dq_buffers = 1 },
                       .search = sim_search_options_default() };
    char flag[64];
    int opt;
    bool has_kv = false, has_q = false;
    cli_begin_options();
    while ((opt = cli_next_option(argc, argv, long_options, "search", flag, sizeof flag, err)) != -1) {
        if (opt == OPT_HELP)
            return cli_print_help(usage);
        has_kv |= opt == OPT_TILES || opt == OPT_KV_TILES, has_q |= opt == OPT_TILES || opt == OPT_Q_TILES;
        a->given |= opt >= OPT_HELP && opt - OPT_HELP < 32 ? 1u << (opt - OPT_HELP) : 0;
        if (opt != '?')
            parse_one(a, opt, optarg, flag, err);
        if (err->status)
            return cli_fail(err);
    }
    if (optind < argc)
        sim_error_set(err, SIM_ERR_USAGE, "unexpected argument '%s' (see sim search --help)", argv[optind]);
    else if (!a->mask_spec == !a->mask_file)
        sim_error_set(err, SIM_ERR_USAGE, "sim search needs one of --mask SPEC or --mask-file FILE");
    if (!err->status && a->seqlen && (has_kv || has_q || a->mask_file || (a->given & 1u << (OPT_TILE - OPT_HELP))))
        sim_error_set(err, SIM_ERR_USAGE, "--seqlen takes the tiles from the shape and the mask in tokens: drop %s",
                      a->mask_file ? "--mask-file" : has_kv || has_q ? "--tiles, --kv-tiles and --q-tiles" : "--tile");
    if (!err->status && !a->seqlen && (a->seqlen_k || (a->given & 1u << (OPT_HDIM - OPT_HELP))))
        sim_error_set(err, SIM_ERR_USAGE, "--seqlen-k and --head-dim describe a shape: give --seqlen too");
    if (!has_kv)
        a->wl.kv_tiles = a->wl.n_sm;
    if (!has_q)
        a->wl.q_tiles = a->wl.n_sm;
    return err->status ? cli_fail(err) : -1;
}

static void print_summary(FILE *f, const SearchArgs *a, const BlockMask *m, const SearchResult *r)
{
    const SearchBounds *bd = &r->bounds;
    fprintf(f, "mask %s, %d SMs, %d head%s x %d KV x %d Q tiles = %" PRId64 " tasks, c %" PRId64 " ns, r %" PRId64
           " ns, %s reduction%s (model numbers)\n", m->spec, a->wl.n_sm, a->wl.heads, a->wl.heads == 1 ? "" : "s",
           m->kv_tiles, m->q_tiles,
           r->plan->task_count, a->costs.c_ns, a->costs.r_ns, a->costs.reduce == REDUCE_SERIAL ? "serial" : "async",
           a->profile_path ? ", reductions from the profile" : "");
    fprintf(f, "  lower bound        %12" PRId64 " ns for any plan (work %" PRId64 ", row %" PRId64 ")\n",
           bd->lower_bound_ns, bd->work_ns, bd->row_ns);
    fprintf(f, "  space bound        %12" PRId64 " ns for one CTA per KV tile, the searched space (KV chain %" PRId64
           ", packing %" PRId64 ")\n", bd->space_bound_ns, bd->chain_ns, bd->packing_ns);
    fprintf(f, "  found              %12" PRId64 " ns, %.2f%% over the space bound, %.2f%% over any plan's (by %s)\n",
           r->makespan_ns, 100 * ((double)r->makespan_ns / (double)bd->space_bound_ns - 1),
           100 * ((double)r->makespan_ns / (double)bd->lower_bound_ns - 1), r->origin);
    for (int i = 0; i < r->baseline_count; i++)
        if (r->baselines[i].makespan_ns == INT64_MAX)
            fprintf(f, "  %-18s deadlocks under in-order dispatch\n", r->baselines[i].name);
        else
            fprintf(f, "  %-18s %12" PRId64 " ns, found is %.3fx faster\n", r->baselines[i].name,
                   r->baselines[i].makespan_ns, (double)r->baselines[i].makespan_ns / (double)r->makespan_ns);
    static const char *const why[] = {
        [SEARCH_EXACT_BOUND] = "optimal in the space: it meets the bound",
        [SEARCH_EXACT_COMPLETE] = "optimal in the space: the exact search found none faster",
        [SEARCH_EXACT_NODES] = "not proved optimal: the exact step stopped at its node bound (--exact-max)",
        [SEARCH_EXACT_TIME] = "not proved optimal: the exact step stopped at its time bound (--exact-max-ms)",
        [SEARCH_EXACT_SIZE] = "not proved optimal: no exact step over 64 tasks",
        [SEARCH_EXACT_OFF] = "not proved optimal: no exact step (--exact-max 0)" };
    fprintf(f, "  %s\n", why[r->exact_stop]);
}

/* The rank file (--ranks; docs/masks.md): a header, the row offsets, the rows' KV tiles; little-endian (the
 * x86-64 and arm64 hosts this runs on). */
static bool write_ranks(const Plan *plan, FILE *f)
{
    SearchRanks k;
    sim_search_ranks(plan, &k);
    int32_t head[4] = { k.heads, k.q_tiles, k.kv_tiles, 0 };
    size_t rows = (size_t)k.heads * (size_t)k.q_tiles + 1;
    bool is_ok = fwrite(SIM_SEARCH_RANKS_MAGIC, 1, 8, f) == 8 && fwrite(head, sizeof *head, 4, f) == 4 &&
                 fwrite(&k.entries, sizeof k.entries, 1, f) == 1 && fwrite(k.row_first, sizeof *k.row_first, rows, f) == rows &&
                 fwrite(k.kv, sizeof *k.kv, (size_t)k.entries, f) == (size_t)k.entries;
    sim_search_ranks_clear(&k);
    return is_ok;
}

/* The plan, the rank table and the baselines' plans as one output set: all of them or none (a failed one
 * leaves every file as it was). */
static SimStatus write_outputs(const SearchArgs *a, const SearchResult *r, SimError *err)
{
    SimOutput out = { 0 };
    int mark = sim_output_batch_begin();
    if (a->plan_path && sim_output_open(&out, a->plan_path, err) == SIM_OK) {
        if (!sim_plan_write(r->plan, &a->costs, out.f))
            sim_error_set(err, SIM_ERR_IO, "cannot write %s", a->plan_path);
        if (!err->status)
            sim_output_commit(&out, err);
        sim_output_abort(&out);
    }
    if (!err->status && a->ranks_path && sim_output_open(&out, a->ranks_path, err) == SIM_OK) {
        if (!write_ranks(r->plan, out.f))
            sim_error_set(err, SIM_ERR_IO, "cannot write %s", a->ranks_path);
        if (!err->status)
            sim_output_commit(&out, err);
        sim_output_abort(&out);
    }
    for (PlanTileOrder k = PLAN_TILES_ASCENDING; !err->status && a->baselines_dir && k <= PLAN_TILES_SPT; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.plan", a->baselines_dir, plan_tile_order_name(k));
        Plan *plan = sim_search_handmade(&r->plan->wl, k, a->search.gqa_group);
        if (plan && sim_output_open(&out, path, err) == SIM_OK) {
            if (!sim_plan_write(plan, &a->costs, out.f))
                sim_error_set(err, SIM_ERR_IO, "cannot write %s", path);
            if (!err->status)
                sim_output_commit(&out, err);
            sim_output_abort(&out);
        }
        plan_free(plan);
    }
    return sim_output_batch_end(mark, err->status, err);
}

/* The shared progress line (cli.h): moves, then the exact search's nodes, with the best makespan so far. */
static void show_progress(void *ctx, const char *phase, int64_t done, int64_t total, int64_t best_ns)
{
    CliProgress *p = ctx;
    char note[48];
    snprintf(note, sizeof note, "best %" PRId64 " ns", best_ns);
    p->unit = phase; /* "moves", then "exact nodes" */
    cli_progress_update(p, done, total, note);
}

/* The search's size against --max-memory-mb, before it allocates. */
static SimStatus check_size(const SearchArgs *a, SimError *err)
{
    SearchSize z;
    if (sim_search_size(&a->wl, &a->costs, &a->search, SIM_BYTES_PER_OP, &z, err) != SIM_OK)
        return err->status;
    double mb = (z.bytes + (a->ranks_path ? 4.0 * ((double)a->wl.heads * a->wl.q_tiles + (double)z.tasks) : 0)) / (1 << 20);
    if (mb > (double)a->max_memory_mb)
        return sim_error_set(err, SIM_ERR_LIMIT, "a search of %d heads x %" G_GINT64_FORMAT " kept pairs (%" G_GINT64_FORMAT
                             " tasks) would need about %.0f MB, over the cap of %" PRId64 " MB (--max-memory-mb)",
                             a->wl.heads, z.tasks / a->wl.heads, z.tasks, mb, a->max_memory_mb);
    return SIM_OK;
}

/* --seqlen: the shape's tiles (FA3's causal tiles for the head dim, which it takes for local masks too) and
 * the cost model's c, r and hand-off where --c, --r, --latency were not given; then the mask in tokens. */
static SimStatus apply_shape(SearchArgs *a, BlockMask *m, SimError *err)
{
    CostQuery q = { .shape = { .batch = 1, .heads = a->wl.heads, .seqlen_q = a->seqlen,
                               .seqlen_k = a->seqlen_k ? a->seqlen_k : a->seqlen, .head_dim = a->head_dim,
                               .mask = MASK_CAUSAL, .dtype = DTYPE_BF16 }, .preset = "h100-sxm",
                    .reduce = a->costs.reduce, .dq_buffers = 1 };
    Workload wl;
    AttnCosts c;
    CostReport rep = { 0 };
    SimLoadModel load = { 0 };
    if (sim_cost_attention(&q, &wl, &c, &rep, &load, err) != SIM_OK)
        return err->status;
    sim_profile_load_clear(&load);
    a->costs.c_ns = a->given & 1u << (OPT_C - OPT_HELP) ? a->costs.c_ns : c.c_ns;
    a->costs.r_ns = a->given & 1u << (OPT_R - OPT_HELP) ? a->costs.r_ns : c.r_ns;
    a->costs.latency_ns = a->given & 1u << (OPT_LAT - OPT_HELP) ? a->costs.latency_ns : c.latency_ns;
    a->tile_m = rep.cost.block_m;
    MaskTokens mt = { a->seqlen, q.shape.seqlen_k, rep.cost.block_m, rep.cost.block_n };
    int64_t kept;
    return sim_mask_from_tokens(a->mask_spec, &mt, m, &kept, err);
}

/* --profile: the profile's reduction costs and load model for the tile (c stays the user's). */
static SimStatus apply_profile(SearchArgs *a, SimLoadModel *load, SimError *err)
{
    HwProfile *p = NULL;
    if (sim_profile_read(a->profile_path, &p, err) != SIM_OK)
        return err->status;
    ProfileQuery q = { .tile_m = a->tile_m, .head_dim = a->head_dim, .reduce = a->costs.reduce, .reduce_op = "bulk",
                       .dq_buffers = 1, .n_sm = a->wl.n_sm, .tasks_per_cta = 1 };
    AttnCosts c;
    if (sim_profile_costs(p, &q, &c, load, err) == SIM_OK) {
        a->costs.r_ns = c.r_ns, a->costs.latency_ns = c.latency_ns, a->costs.deposit_ns = c.deposit_ns;
        a->costs.load = load;
    }
    sim_profile_free(p);
    return err->status;
}

int sim_cmd_search(int argc, char **argv)
{
    SearchArgs a;
    SimError err = { 0 };
    int rc = parse_args(&a, argc, argv, &err);
    if (rc >= 0)
        return rc;
    BlockMask m = { 0 };
    SearchResult r = { 0 };
    SimLoadModel load = { 0 };
    if (a.seqlen)
        apply_shape(&a, &m, &err);
    if (a.profile_path && !err.status)
        apply_profile(&a, &load, &err);
    if (err.status || a.seqlen)
        ;
    else if (a.mask_file)
        sim_mask_read_capped(a.mask_file, a.max_memory_mb << 20, &m, &err);
    else
        sim_mask_make_capped(a.mask_spec, a.wl.kv_tiles, a.wl.q_tiles, a.max_memory_mb << 20, &m, &err);
    if (!err.status) {
        sim_mask_apply(&m, &a.wl);
        CliProgress progress; /* on a terminal only */
        cli_progress_begin(&progress, "search", "moves");
        a.search.progress = show_progress, a.search.progress_ctx = &progress;
        if (check_size(&a, &err) == SIM_OK)
            sim_search(&a.wl, &a.costs, &a.search, &r, &err);
        cli_progress_end(&progress);
        if (!err.status && write_outputs(&a, &r, &err) == SIM_OK) {
            FILE *f = cli_report_file((const char *[]){ a.plan_path, a.ranks_path }, 2);
            if (a.is_json)
                sim_search_write_json(f, &m, &a.wl, &a.costs, a.search.gqa_group, &r);
            else
                print_summary(f, &a, &m, &r);
        }
    }
    sim_search_result_clear(&r);
    sim_mask_clear(&m);
    sim_profile_load_clear(&load);
    return err.status ? cli_fail(&err) : 0;
}

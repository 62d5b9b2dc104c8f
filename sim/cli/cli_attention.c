/* `sim [--policy NAME] --n N [options]`: one attention schedule through policy -> engine -> DAG, printed
 * as a readable summary or one JSON object. Every input is checked (and the size estimated against the
 * memory cap) before anything is allocated or written. */
#include <getopt.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "attention_out.h"
#include "cli.h"
#include "job.h"
#include "mask_io.h"
#include "output.h"
#include "plan_io.h"
#include "render.h"
#include "costing.h"
#include "kernel_io.h"

typedef struct {
    AttnJob job;
    bool is_json, is_q_set, is_kv_set;
    const char *plan_in;         /* --plan FILE: simulate this plan instead of a policy's */
    char workload_flag[64];      /* the last workload flag given (refused with --plan), "" none */
    unsigned costs_set;          /* bit per cost flag given (they override the plan file's costs) */
    ShapeOptions shape;          /* --seqlen etc.: the shape front end (cli_shape.c) */
    char tile_flag[64];          /* the last tile-level flag given (refused with --seqlen), "" none */
    bool is_policy_set;
    const char *mask_spec;       /* --mask with a block mask's spec (not full or causal), or NULL */
    const char *mask_file;       /* --mask-file FILE, or NULL */
    BlockMask block;             /* the block mask the workload borrows (MASK_BLOCK); keep NULL: none */
} AttnOptions;

enum { SET_C = 1, SET_R = 2, SET_LAT = 4, SET_REDUCE = 8, SET_BUFS = 16 };

static const char usage[] =
    "usage: sim [--policy NAME] [--n N] [options]\n"
    "       sim --seqlen S [--head-dim D] [--heads H] [--mask full|causal] [options]\n"
    "       sim run|sweep CONFIG.json, sim pipeline, sim decode, sim validate TRACE|DIR, sim search --mask SPEC,\n"
    "       sim calibrate RAW.json, sim perfetto TRACE.json (each has --help)\n"
    "Simulates the deterministic attention backward of one schedule and analyses its DAG.\n"
    "  --policy NAME       schedule (default fa3); --list-policies shows them\n"
    "  --plan FILE         simulate the plan in FILE (docs/plan-format.md: a hand-written schedule, another\n"
    "                      tool's, or --emit-plan's) after the same checks; its workload and costs come from\n"
    "                      the file, and --c, --r, --latency, --reduce, --dq-buffers override the costs\n"
    "  --n N               SMs (default 132)\n"
    "  --heads M           heads x batch (default 1)\n"
    "  --kv-tiles N        KV tiles per head (default n)\n"
    "  --q-tiles M         Q tiles per head (default n)\n"
    "  --mask SPEC         full | causal (default full), or a block mask in tile units (docs/masks.md):\n"
    "                      @BLOCK_MASKS@;\n"
    "                      a block mask takes the policies @BLOCK_POLICIES@ (default search);\n"
    "                      with --seqlen, window:W, window:L:R, document:L1,L2,... and prefix:P are in tokens\n"
    "  --mask-file FILE    a block mask from a file (docs/masks.md); it sets the tiles\n"
    "  --tile-ratio S      kBlockN / kBlockM for the causal diagonal (default 1)\n"
    "  --head-swizzle W    heads interleaved by FA3's causal launch order (default 1)\n"
    "  --c NS              compute cost of one tile pair, integer ns (default 1000)\n"
    "  --r NS              reduction cost of one partial dQ tile, integer ns (default 500)\n"
    "  --latency NS        signal latency on each cross-SM accumulation edge (default 0)\n"
    "  --reduce serial|async  serial: a reduction blocks the next compute (the paper's model);\n"
    "                      async: FA3's store warp with a --dq-buffers deep staging buffer (default serial)\n"
    "  --dq-buffers D      staging buffer depth for --reduce async (default 1)\n"
    "  --json              print one JSON object instead of the summary\n"
    "  --dot FILE          write the schedule's DAG as Graphviz DOT\n"
    "  --emit-plan FILE    write the plan for gpu/ (docs/plan-format.md)\n"
    "  --trace FILE.json   write a Chrome trace for Perfetto / chrome://tracing (docs/outputs.md)\n"
    "  --trace-flows       add arrows for the dQ accumulation order to the trace\n"
    "  --trace-max-mb MB   refuse traces estimated above this size (default 512)\n"
    "  --csv FILE          write one row per phase: SM, head, kv, q, start, end, wait, critical\n"
    "  --gantt FILE.png|FILE.svg  draw a Gantt chart with gnuplot (keeps FILE.gp and FILE.dat beside it)\n"
    "  --gantt-labels      write \"kv,q\" in each Gantt box wide enough to hold it\n"
    "  --analysis LEVEL    full (default), summary (no per-op critical marks) or none (the engine only:\n"
    "                      makespan; no critical path, busy time or Lemma 1)\n"
    "  --engine ENGINE     auto (default: the fast path where it applies, else the event engine) or event\n"
    "                      (the event engine always; same schedule and outputs, for benchmarks)\n"
    "  --max-memory-mb MB  refuse inputs whose simulation would need more (default 4096; at most this\n"
    "                      machine's memory)\n"
    "  --list-policies     each policy with the masks it takes; --list-masks: the masks\n"
    "  --help, --version\n"
    "Shape front end (the schedule for a real shape; docs/shape.md):\n"
    "  --seqlen S          tokens per sequence (Q and K); turns the shape front end on; a list S1,S2,...\n"
    "                      (and --heads, --batch lists) ranks every combination in one table (--json: an array)\n"
    "  --plot F.png        with a --seqlen list: each schedule's speedup over fa3 and fa3-spt against seqlen\n"
    "  --seqlen-k SK       keys per sequence when they differ from --seqlen (default --seqlen)\n"
    "  --head-dim D        64, 96, 128 or 192 (default 128); --batch B (default 1); --heads H per sample\n"
    "  --kv-heads K        KV heads per sample (GQA; default --heads; must divide it)\n"
    "  --hardware NAME     preset h100-sxm (default), h800-sxm, h200-sxm: SMs, tensor rate, latencies\n"
    "  --profile FILE      measured profile for r, hand-off, deposit, load (default: the preset's own,\n"
    "                      configs/profiles/PRESET.json, where one exists, else h100-sxm's, and the costs say so)\n"
    "  --model profile|paper  profile (default): FA3's async reduction with the profile's costs;\n"
    "                      paper: the cost model's c and r alone; --reduce serial|async overrides the mode\n"
    "  --kernel NAME|FILE  the kernel to cost (docs/profile.md): a kernel profile's tiles, per-task compute,\n"
    "                      dQ protocol and fixed launch costs (default: FA3's tiles, compute from FLOPs)\n"
    "  --policy NAME|all   one policy, or every policy for the mask ranked (default all)\n"
    "  Without --seqlen the command is the tile-level model of the DASH paper: c, r and latency as given,\n"
    "  or, with --kernel FILE --head-dim D, the kernel profile's per-task costs on the tiles given.\n"
    "Times are integer ns: tasks x (c + r + latency) x SMs must stay below 2^62 ns (else exit 2).\n"
    "Outputs are written as a set (all or none) and may not name the plan or each other.\n"
    "Exit status: 0 ok, 2 bad usage or input.\n";

static SimStatus parse_enum(const char *flag, const char *text, const char *a, const char *b, int *out,
                            SimError *err)
{
    if (strcmp(text, a) == 0 || strcmp(text, b) == 0) {
        *out = strcmp(text, b) == 0;
        return SIM_OK;
    }
    return sim_error_set(err, SIM_ERR_USAGE, "%s expects %s or %s, got '%s'", flag, a, b, text);
}

static SimStatus parse_int(const char *flag, const char *text, int64_t lo, int64_t hi, int *out, SimError *err)
{
    int64_t v;
    if (cli_parse_int64(flag, text, lo, hi, &v, err) == SIM_OK)
        *out = (int)v;
    return err->status;
}

enum { OPT_LIST = 256, OPT_LIST_MASKS, OPT_HELP, OPT_VERSION, OPT_KV, OPT_Q, OPT_MASK, OPT_RATIO, OPT_SWIZZLE, OPT_LAT,
       OPT_REDUCE, OPT_BUFS, OPT_JSON, OPT_DOT, OPT_PLAN, OPT_MEM, OPT_TRACE, OPT_FLOWS, OPT_TRACE_MB, OPT_CSV,
       OPT_GANTT, OPT_PLAN_IN, OPT_ANALYSIS, OPT_SEQLEN, OPT_HDIM, OPT_BATCH, OPT_HW, OPT_PROFILE, OPT_MODEL,
       OPT_GANTT_LABELS, OPT_MASK_FILE, OPT_KERNEL, OPT_KV_HEADS, OPT_ENGINE, OPT_SEQLEN_K, OPT_PLOT };

static const struct option long_options[] = {
    { "policy", required_argument, NULL, 'p' }, { "n", required_argument, NULL, 'n' },
    { "heads", required_argument, NULL, 'm' }, { "kv-tiles", required_argument, NULL, OPT_KV },
    { "q-tiles", required_argument, NULL, OPT_Q }, { "mask", required_argument, NULL, OPT_MASK },
    { "mask-file", required_argument, NULL, OPT_MASK_FILE },
    { "tile-ratio", required_argument, NULL, OPT_RATIO }, { "head-swizzle", required_argument, NULL, OPT_SWIZZLE },
    { "c", required_argument, NULL, 'c' }, { "r", required_argument, NULL, 'r' },
    { "latency", required_argument, NULL, OPT_LAT }, { "reduce", required_argument, NULL, OPT_REDUCE },
    { "dq-buffers", required_argument, NULL, OPT_BUFS }, { "json", no_argument, NULL, OPT_JSON },
    { "dot", required_argument, NULL, OPT_DOT }, { "emit-plan", required_argument, NULL, OPT_PLAN },
    { "max-memory-mb", required_argument, NULL, OPT_MEM }, { "list-policies", no_argument, NULL, OPT_LIST },
    { "list-masks", no_argument, NULL, OPT_LIST_MASKS },
    { "trace", required_argument, NULL, OPT_TRACE }, { "trace-flows", no_argument, NULL, OPT_FLOWS },
    { "trace-max-mb", required_argument, NULL, OPT_TRACE_MB }, { "csv", required_argument, NULL, OPT_CSV },
    { "gantt", required_argument, NULL, OPT_GANTT }, { "gantt-labels", no_argument, NULL, OPT_GANTT_LABELS }, { "plan", required_argument, NULL, OPT_PLAN_IN },
    { "engine", required_argument, NULL, OPT_ENGINE },
    { "analysis", required_argument, NULL, OPT_ANALYSIS }, { "seqlen", required_argument, NULL, OPT_SEQLEN },
    { "head-dim", required_argument, NULL, OPT_HDIM }, { "batch", required_argument, NULL, OPT_BATCH },
    { "hardware", required_argument, NULL, OPT_HW }, { "profile", required_argument, NULL, OPT_PROFILE },
    { "model", required_argument, NULL, OPT_MODEL }, { "kernel", required_argument, NULL, OPT_KERNEL },
    { "kv-heads", required_argument, NULL, OPT_KV_HEADS }, { "seqlen-k", required_argument, NULL, OPT_SEQLEN_K },
    { "plot", required_argument, NULL, OPT_PLOT },
    { "help", no_argument, NULL, OPT_HELP }, { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
};

#define MAX_SIZE SIM_JOB_MAX_COUNT      /* the job's ranges (job.h), which the library's setters share */
#define MAX_COST_NS SIM_JOB_MAX_COST_NS

/* Workload flags (the plan file's business under --plan) and cost flags (which override the file). */
static void note_flag(AttnOptions *o, int opt, const char *flag)
{
    static const char workload_opts[] = { 'p', 'n', 'm' };
    if (memchr(workload_opts, opt, sizeof workload_opts) || opt == OPT_KV || opt == OPT_Q || opt == OPT_MASK ||
        opt == OPT_MASK_FILE || opt == OPT_RATIO || opt == OPT_SWIZZLE)
        snprintf(o->workload_flag, sizeof o->workload_flag, "%s", flag);
    if (opt == 'n' || opt == OPT_KV || opt == OPT_Q || opt == OPT_RATIO || opt == OPT_SWIZZLE || opt == 'c' ||
        opt == 'r' || opt == OPT_LAT)
        snprintf(o->tile_flag, sizeof o->tile_flag, "%s", flag);
    o->costs_set |= opt == 'c' ? SET_C : opt == 'r' ? SET_R : opt == OPT_LAT ? SET_LAT : opt == OPT_REDUCE ?
                    SET_REDUCE : opt == OPT_BUFS ? SET_BUFS : 0;
}

/* --seqlen, --batch or --heads with one value or a list (the shape front end ranks every combination): the
 * first value is the single one the rest of the command sees. */
static SimStatus parse_list(AttnOptions *o, int opt, const char *flag, const char *arg, SimError *err)
{
    ShapeOptions *so = &o->shape;
    int64_t *vals = opt == OPT_SEQLEN ? so->seqlens : opt == OPT_BATCH ? so->batches : so->heads;
    int *count = opt == OPT_SEQLEN ? &so->seqlen_count : opt == OPT_BATCH ? &so->batch_count : &so->heads_count;
    if (cli_parse_int64_list(flag, arg, 1, opt == OPT_SEQLEN ? 1 << 24 : MAX_SIZE, vals, count, err) != SIM_OK)
        return err->status;
    if (opt == OPT_SEQLEN)
        so->seqlen = vals[0];
    else if (opt == OPT_BATCH)
        so->batch = vals[0];
    else
        o->job.wl.heads = (int)vals[0];
    return SIM_OK;
}

static SimStatus parse_one(AttnOptions *o, int opt, const char *arg, const char *flag, SimError *err)
{
    int v = 0;
    note_flag(o, opt, flag);
    switch (opt) {
    case 'p': o->job.policy = arg, o->is_policy_set = true; return SIM_OK;
    case OPT_SEQLEN: o->shape.is_on = true; return parse_list(o, opt, flag, arg, err);
    case OPT_HDIM: return cli_parse_int64(flag, arg, 1, 1024, &o->shape.head_dim, err);
    case OPT_BATCH: return parse_list(o, opt, flag, arg, err);
    case OPT_PLOT: o->shape.plot_path = arg; return SIM_OK;
    case OPT_SEQLEN_K: return cli_parse_int64(flag, arg, 1, 1 << 24, &o->shape.seqlen_k, err);
    case OPT_KV_HEADS: return cli_parse_int64(flag, arg, 1, MAX_SIZE, &o->shape.kv_heads, err);
    case OPT_HW: o->shape.preset = arg; return SIM_OK;
    case OPT_PROFILE: o->shape.profile_path = arg; return SIM_OK;
    case OPT_KERNEL: o->shape.kernel_path = arg; return SIM_OK;
    case OPT_MODEL:
        parse_enum(flag, arg, "profile", "paper", &v, err);
        o->shape.is_paper = v;
        return err->status;
    case 'n': return parse_int(flag, arg, 1, SIM_JOB_MAX_SMS, &o->job.wl.n_sm, err);
    case 'm': /* one value is the tile-level command's too */
        return strchr(arg, ',') ? parse_list(o, opt, flag, arg, err) : parse_int(flag, arg, 1, MAX_SIZE, &o->job.wl.heads, err);
    case OPT_KV: o->is_kv_set = true; return parse_int(flag, arg, 1, MAX_SIZE, &o->job.wl.kv_tiles, err);
    case OPT_Q: o->is_q_set = true; return parse_int(flag, arg, 1, MAX_SIZE, &o->job.wl.q_tiles, err);
    case OPT_MASK:
        o->mask_spec = strcmp(arg, "full") && strcmp(arg, "causal") ? arg : NULL;
        o->job.wl.mask = strcmp(arg, "causal") == 0 ? MASK_CAUSAL : MASK_FULL;
        return SIM_OK;
    case OPT_MASK_FILE: o->mask_file = arg; return SIM_OK;
    case OPT_RATIO: return parse_int(flag, arg, 1, 64, &o->job.wl.tile_ratio, err);
    case OPT_SWIZZLE: return parse_int(flag, arg, 1, MAX_SIZE, &o->job.wl.head_swizzle, err);
    case 'c': return cli_parse_int64(flag, arg, 0, MAX_COST_NS, &o->job.costs.c_ns, err);
    case 'r': return cli_parse_int64(flag, arg, 0, MAX_COST_NS, &o->job.costs.r_ns, err);
    case OPT_LAT: return cli_parse_int64(flag, arg, 0, SIM_JOB_MAX_LATENCY_NS, &o->job.costs.latency_ns, err);
    case OPT_REDUCE:
        parse_enum(flag, arg, "serial", "async", &v, err);
        o->job.costs.reduce = v ? REDUCE_ASYNC : REDUCE_SERIAL;
        return err->status;
    case OPT_BUFS: return parse_int(flag, arg, 1, 64, &o->job.costs.dq_buffers, err);
    case OPT_JSON: o->is_json = true; return SIM_OK;
    case OPT_DOT: o->job.dot_path = arg; return SIM_OK;
    case OPT_PLAN: o->job.plan_path = arg; return SIM_OK;
    case OPT_PLAN_IN: o->plan_in = arg; return SIM_OK;
    case OPT_ANALYSIS:
        for (int k = 0; k < 3; k++)
            if (!strcmp(arg, (const char *[]){ "full", "summary", "none" }[k]))
                return o->job.analysis = (SimAnalysisLevel)k, SIM_OK;
        return sim_error_set(err, SIM_ERR_USAGE, "%s: expected none, summary or full, got '%s'", flag, arg);
    case OPT_ENGINE:
        if (strcmp(arg, "auto") && strcmp(arg, "event"))
            return sim_error_set(err, SIM_ERR_USAGE, "%s: expected auto or event, got '%s'", flag, arg);
        return o->job.is_event_engine = !strcmp(arg, "event"), SIM_OK;
    case OPT_MEM: return cli_parse_max_memory_mb(flag, arg, &o->job.max_memory_mb, err);
    case OPT_TRACE: o->job.trace_path = arg; return SIM_OK;
    case OPT_FLOWS: o->job.has_trace_flows = true; return SIM_OK;
    case OPT_TRACE_MB: return cli_parse_int64(flag, arg, 1, 1 << 20, &o->job.trace_max_mb, err);
    case OPT_CSV: o->job.csv_path = arg; return SIM_OK;
    case OPT_GANTT: o->job.gantt_path = arg; return sim_render_gantt_check_path(arg, err);
    case OPT_GANTT_LABELS: o->job.has_gantt_labels = true; return SIM_OK;
    }
    return sim_error_set(err, SIM_ERR_USAGE, "unknown option %s (see sim --help)", flag);
}

static void list_policies(void)
{
    for (int i = 0; i < policy_count(); i++) {
        const PolicyOps *p = policy_at(i);
        char masks[32];
        policy_mask_names(p, masks, sizeof masks);
        printf("%-16s %-18s %s\n", p->name, masks, p->summary);
    }
}

/* No output may name the plan read or another output (the Gantt chart's .gp and .dat included). */
static SimStatus check_paths(const AttnOptions *o, SimError *err)
{
    const AttnJob *j = &o->job;
    char *gp = sim_output_sibling(j->gantt_path, ".gp"), *dat = sim_output_sibling(j->gantt_path, ".dat");
    SimPathRole in[] = { { "the plan", o->plan_in } };
    SimPathRole out[] = { { "--dot", j->dot_path }, { "--emit-plan", j->plan_path }, { "--trace", j->trace_path },
                          { "--csv", j->csv_path }, { "--gantt", j->gantt_path },
                          { "the Gantt chart's script", gp }, { "the Gantt chart's data", dat } };
    sim_output_check_paths(in, 1, out, (int)G_N_ELEMENTS(out), err);
    g_free(gp), g_free(dat);
    return err->status;
}

/* --mask SPEC (a block mask) or --mask-file: the mask, applied to the workload (square tiles, tile ratio
 * 1); the default order of a block mask is the search. */
static SimStatus make_block_mask(AttnOptions *o, SimError *err)
{
    Workload *wl = &o->job.wl;
    if (o->mask_spec && o->mask_file)
        return sim_error_set(err, SIM_ERR_USAGE, "give --mask or --mask-file, not both");
    if (o->shape.is_on && o->mask_file)
        return sim_error_set(err, SIM_ERR_USAGE, "a mask file is in tile units: the shape front end (--seqlen) takes "
                             "--mask window:W, document:L1,L2,... or prefix:P in tokens");
    if (o->shape.is_on) /* in tokens: cli_shape.c makes the tile mask over the kernel's tiles */
        return o->shape.token_mask = o->mask_spec, SIM_OK;
    if (wl->tile_ratio != 1)
        return sim_error_set(err, SIM_ERR_USAGE, "a block mask has square tiles: drop --tile-ratio");
    if (o->mask_file ? sim_mask_read_capped(o->mask_file, o->job.max_memory_mb << 20, &o->block, err)
                     : sim_mask_make_capped(o->mask_spec, wl->kv_tiles, wl->q_tiles, o->job.max_memory_mb << 20,
                                            &o->block, err))
        return err->status;
    if (o->mask_file && ((o->is_kv_set && wl->kv_tiles != o->block.kv_tiles) ||
                         (o->is_q_set && wl->q_tiles != o->block.q_tiles)))
        return sim_error_set(err, SIM_ERR_USAGE, "%s has %d KV x %d Q tiles, not the --kv-tiles/--q-tiles given",
                             o->mask_file, o->block.kv_tiles, o->block.q_tiles);
    sim_mask_apply(&o->block, wl);
    if (wl->mask == MASK_BLOCK && !o->is_policy_set)
        o->job.policy = "search";
    return SIM_OK;
}

/* Returns -1 to go on, else the exit code (help, version, list, or an error). */
static int parse_args(AttnOptions *o, int argc, char **argv, SimError *err)
{
    *o = (AttnOptions){ .job = sim_job_default() };
    cli_begin_options();
    int opt;
    char flag[64];
    while ((opt = cli_next_option(argc, argv, long_options, "", flag, sizeof flag, err)) != -1) {
        if (opt == OPT_HELP)
            return cli_print_help(usage);
        else if (opt == OPT_VERSION)
            return printf("sim (dashsim) %s\n", SIM_VERSION), 0;
        else if (opt == OPT_LIST)
            return list_policies(), 0;
        else if (opt == OPT_LIST_MASKS)
            return cli_list_masks();
        else if (opt != '?')
            parse_one(o, opt, optarg, flag, err);
        if (err->status)
            return cli_fail(err);
    }
    if (optind < argc)
        return sim_error_set(err, SIM_ERR_USAGE, "unexpected argument '%s' (see sim --help)", argv[optind]),
               cli_fail(err);
    if (o->plan_in && o->workload_flag[0])
        return sim_error_set(err, SIM_ERR_USAGE, "--plan takes the workload and policy from the plan file; drop %s",
                             o->workload_flag), cli_fail(err);
    if (o->job.has_trace_flows && !o->job.trace_path)
        return sim_error_set(err, SIM_ERR_USAGE, "--trace-flows needs --trace FILE"), cli_fail(err);
    if (o->job.has_gantt_labels && !o->job.gantt_path)
        return sim_error_set(err, SIM_ERR_USAGE, "--gantt-labels needs --gantt FILE"), cli_fail(err);
    if (check_paths(o, err) != SIM_OK)
        return cli_fail(err);
    if ((o->shape.batch || o->shape.preset || o->shape.profile_path || o->shape.is_paper || o->shape.kv_heads ||
         o->shape.seqlen_k ||
         (o->shape.head_dim && !o->shape.kernel_path)) && !o->shape.is_on)
        return sim_error_set(err, SIM_ERR_USAGE, "--head-dim, --batch, --seqlen-k, --hardware, --profile and --model belong to "
                             "the shape front end: give --seqlen too (or --kernel FILE with --head-dim)"), cli_fail(err);
    if (o->shape.plot_path && (o->shape.seqlen_count < 2 || o->shape.heads_count > 1 || o->shape.batch_count > 1))
        return sim_error_set(err, SIM_ERR_USAGE, "--plot draws speedup against seqlen: give --seqlen a list of two or "
                             "more and --heads and --batch one value each"), cli_fail(err);
    if (o->shape.heads_count > 1 && !o->shape.is_on)
        return sim_error_set(err, SIM_ERR_USAGE, "--heads takes a list only with --seqlen (the shape front end)"),
               cli_fail(err);
    if (o->shape.kernel_path && !o->shape.is_on && (!o->shape.head_dim || (o->costs_set & (SET_C | SET_R | SET_LAT))))
        return sim_error_set(err, SIM_ERR_USAGE, "--kernel at the tile level takes its costs from the kernel profile: "
                             "give --head-dim and no --c, --r or --latency"), cli_fail(err);
    if (o->shape.is_on && (o->tile_flag[0] || o->plan_in))
        return sim_error_set(err, SIM_ERR_USAGE, "--seqlen derives SMs, tiles and costs from the shape; drop %s",
                             o->plan_in ? "--plan" : o->tile_flag), cli_fail(err);
    if (o->shape.is_on && !o->is_policy_set)
        o->job.policy = "all";
    if (!o->is_kv_set)
        o->job.wl.kv_tiles = o->job.wl.n_sm;
    if (!o->is_q_set)
        o->job.wl.q_tiles = o->job.wl.n_sm;
    if ((o->mask_spec || o->mask_file) && make_block_mask(o, err) != SIM_OK)
        return cli_fail(err);
    return -1;
}

/* The mask as the user gave it: full, causal, or a block mask's spec ("window:8", "file:m.txt"); a block
 * plan read with --plan has no spec: "block". */
static const char *mask_name(const AttnOptions *o)
{
    if (o->job.wl.mask == MASK_BLOCK)
        return o->block.spec[0] ? o->block.spec : "block";
    return o->job.wl.mask == MASK_FULL ? "full" : "causal";
}

/* The job's report for the JSON writer (sim/io/attention_out.h). */
static AttnReport report_of(const AttnOptions *o, const AttnResult *r)
{
    return (AttnReport){ .policy = o->job.policy, .mask = mask_name(o), .wl = &o->job.wl, .costs = &o->job.costs,
                         .analysis = o->job.analysis, .tasks = r->tasks, .a = &r->a, .has_closed_form = r->has_closed_form,
                         .is_closed_form_exact = r->is_closed_form_exact, .closed_form_ns = r->closed_form_ns };
}

static void print_json(FILE *f, const AttnOptions *o, const AttnResult *r)
{
    AttnReport rep = report_of(o, r);
    sim_attention_write_json(f, &rep);
}

static void print_summary(FILE *f, const AttnOptions *o, const AttnResult *r)
{
    const SimAnalysis *a = &r->a;
    fprintf(f, "policy %s, %s mask, %d SMs, %d head%s x %d KV x %d Q tiles = %" PRId64 " tasks\n", o->job.policy,
            mask_name(o), o->job.wl.n_sm, o->job.wl.heads, cli_plural(o->job.wl.heads), o->job.wl.kv_tiles,
            o->job.wl.q_tiles, r->tasks);
    fprintf(f, "costs c = %" PRId64 " ns, r = %" PRId64 " ns, latency %" PRId64 " ns, %s reduction\n",
            o->job.costs.c_ns, o->job.costs.r_ns, o->job.costs.latency_ns,
            o->job.costs.reduce == REDUCE_SERIAL ? "serial" : "async");
    fputs("model  the DASH paper's tile-level model, costs as given (no profile); model numbers, not "
          "measurements\n", f);
    fprintf(f, "  makespan            %15" PRId64 " ns\n", a->makespan_ns);
    if (o->job.analysis == SIM_ANALYSIS_NONE) {
        fprintf(f, "  analysis            %15s (--analysis none)\n", "none");
        return;
    }
    fprintf(f, "  critical path       %15" PRId64 " ns%s\n", a->critical_path_ns,
            a->critical_path_ns == a->makespan_ns ? " (= makespan)" : "");
    if (r->has_closed_form)
        fprintf(f, "  paper closed form   %15" PRId64 " ns (%s for this input)\n", r->closed_form_ns,
                r->is_closed_form_exact ? "exact" : "approximate");
    else
        fprintf(f, "  paper closed form   %15s\n", "none");
    fprintf(f, "  busy                %14.2f %% of SM time, bubbles %" PRId64 " ns\n", 100 * a->busy_fraction,
            a->bubble_ns);
    fprintf(f, "  Lemma 1 violations  %15" PRId64 " accumulation edges against chain depth\n", a->lemma1_violations);
    fprintf(f, "  critical path split compute %" PRId64 ", reduce %" PRId64 ", wait %" PRId64 ", latency %"
            PRId64 " ns\n", a->breakdown_ns[BREAK_COMPUTE], a->breakdown_ns[BREAK_REDUCE],
            a->breakdown_ns[BREAK_WAIT], a->breakdown_ns[BREAK_LATENCY]);
}

/* --plan: the plan, its workload and its costs (those not given on the command line) into the job. */
static SimStatus load_plan(AttnOptions *o, Plan **plan, SimError *err)
{
    AttnCosts file_costs;
    uint64_t hash;
    if (sim_plan_read(o->plan_in, o->job.max_memory_mb << 20, plan, &file_costs, &hash, err) != SIM_OK)
        return err->status;
    AttnCosts *c = &o->job.costs;
    c->c_ns = o->costs_set & SET_C ? c->c_ns : file_costs.c_ns;
    c->r_ns = o->costs_set & SET_R ? c->r_ns : file_costs.r_ns;
    c->latency_ns = o->costs_set & SET_LAT ? c->latency_ns : file_costs.latency_ns;
    c->reduce = o->costs_set & SET_REDUCE ? c->reduce : file_costs.reduce;
    c->dq_buffers = o->costs_set & SET_BUFS ? c->dq_buffers : file_costs.dq_buffers;
    o->job.plan = *plan;
    o->job.wl = (*plan)->wl;
    o->job.policy = (*plan)->policy;
    return SIM_OK;
}

/* --kernel at the tile level: the kernel profile's per-task costs (the one costing path) on the tiles given;
 * the reduction mode stays as given (the kernels are async: --reduce async). */
static SimStatus kernel_costs(AttnOptions *o, KernelProfile **kernel, SimLoadModel *load, SimError *err)
{
    char found[4096];
    if (cli_find_kernel(o->shape.kernel_path, found, sizeof found, err) != SIM_OK ||
        sim_kernel_read(found, kernel, err) != SIM_OK)
        return err->status;
    if (o->job.wl.mask == MASK_BLOCK)
        return sim_error_set(err, SIM_ERR_USAGE, "--kernel costs full and causal masks (a kernel profile has no "
                             "block-mask tiles yet)");
    CostQuery q = { .shape = { .head_dim = o->shape.head_dim, .mask = o->job.wl.mask }, .preset = "h100-sxm",
                    .kernel = *kernel, .reduce = o->job.costs.reduce,
                    .dq_buffers = o->costs_set & SET_BUFS ? o->job.costs.dq_buffers : 0 };
    CostReport rep;
    return sim_cost_tasks(&q, &o->job.costs, &rep, load, err);
}

int sim_cmd_attention(int argc, char **argv)
{
    AttnOptions o;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    if (rc >= 0) {
        sim_mask_clear(&o.block); /* a mask file read before a later check failed */
        return rc;
    }
    if (o.shape.is_on) { /* FA3's kernels reduce asynchronously: the default unless --reduce was given */
        o.job.costs.reduce = o.costs_set & SET_REDUCE ? o.job.costs.reduce : REDUCE_ASYNC;
        /* the kernel profile's staging buffers unless --dq-buffers was given (0: the costing path's default) */
        o.job.costs.dq_buffers = o.costs_set & SET_BUFS ? o.job.costs.dq_buffers : 0;
        return cli_shape_run(&o.shape, &o.job, o.is_json);
    }
    AttnResult r = { 0 };
    Plan *plan = NULL;
    KernelProfile *kernel = NULL;
    SimLoadModel load = { 0 };
    if ((!o.plan_in || load_plan(&o, &plan, &err) == SIM_OK) &&
        (!o.shape.kernel_path || kernel_costs(&o, &kernel, &load, &err) == SIM_OK) &&
        sim_job_run(&o.job, &r, &err) == SIM_OK) {
        FILE *f = cli_report_file((const char *[]){ o.job.dot_path, o.job.plan_path, o.job.trace_path,
                                                     o.job.csv_path }, 4);
        (o.is_json ? print_json : print_summary)(f, &o, &r);
    }
    sim_job_result_clear(&r);
    plan_free(plan);
    sim_kernel_free(kernel);
    sim_profile_load_clear(&load);
    sim_mask_clear(&o.block);
    return err.status ? cli_fail(&err) : 0;
}

/* `sim pipeline`: Cube/Vector preload pipelines (serial, preload, amla) on one AI core, the Preload
 * theorem for one instance (--min-preload, --explain), and the AMLA and VFA reports. Every input is
 * checked before anything runs; a deadlocking plan is reported (JSON "deadlock": true and one sentence on
 * stderr, exit 2: an inconsistent schedule), never hung on. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pipeline.h"
#include "render.h"

typedef enum { POL_SERIAL, POL_PRELOAD, POL_AMLA } Policy;

typedef struct {
    PipeWorkload wl;
    Policy policy;
    int preload;                 /* -1: the rotation's n */
    const char *order_text, *trace_path, *csv_path, *gantt_path;
    bool is_json, is_explain, has_min_preload, is_amla_report, is_vfa_report, is_theorem_report, has_v_last, has_v;
    int64_t seed;                /* --theorem-report */
    int n_v, n_v_last;
    int gm_gbps;                 /* --amla-report: GM bandwidth of one core pair, GB/s; 0: the model's */
} PipeOptions;

static const char usage[] =
    "usage: sim pipeline [--policy serial|preload|amla] [--c LIST --v LIST] [options]\n"
    "Simulates a Cube/Vector preload pipeline (AMLA appendix B) on one AI core and checks its Cycle.\n"
    "  --policy NAME       serial (no overlap), preload (default), amla (n = 2, V2 only on the last block)\n"
    "  --c LIST            Cube stage durations of one block, ns, comma-separated (default 1000,800)\n"
    "  --v LIST            Vector stage durations, one per Cube stage (default 600,400)\n"
    "  --v-last LIST       Vector durations of the last block (amla: default the --v values)\n"
    "  --blocks B          blocks (default 8)\n"
    "  --cube N            Cube engines (default 1); a stage is split evenly over them\n"
    "  --vector N          Vector engines (default 1; Ascend 910 has 2 per Cube)\n"
    "  --ring R            workspace ring slots per chain edge (default 0: unbounded)\n"
    "  --preload K         Preload count (preload policy; default n, Theorem B.1's rotation)\n"
    "  --order LIST        the Cycle, e.g. C2,C1+1,V1+1,V2+2: issue order, +K = block offset\n"
    "  --min-preload       brute force the minimum stall-free Preload count (n <= 6)\n"
    "  --explain           print the rotation, its prefix sums and the Cycle chosen\n"
    "  --json              one JSON object instead of the summary\n"
    "  --trace FILE        Chrome trace (CUBE and VECTOR tracks); --csv FILE; --gantt FILE.png|svg\n"
    "  --amla-report       base FlashAttention vs AMLA on MLA decode shapes (Ascend 910 model)\n"
    "  --gm-gbps G         --amla-report: GM bandwidth (GB/s) of one core pair for workspaces (default 67)\n"
    "  --theorem-report    Theorem B.1 / Lemma B.2 on seeded random instances, n = 1..6 (--seed S, default 1)\n"
    "  --vfa-report        FA vs VFA per-block vector work under C16V32, C8V32, C4V32, C4V16\n"
    "  --help, --version\n"
    "Exit status: 0 ok, 2 bad usage or input, or a plan that deadlocks.\n";

enum { OPT_HELP = 256, OPT_VERSION, OPT_C, OPT_V, OPT_VLAST, OPT_BLOCKS, OPT_CUBE, OPT_VECTOR, OPT_RING,
       OPT_PRELOAD, OPT_ORDER, OPT_MIN, OPT_EXPLAIN, OPT_JSON, OPT_TRACE, OPT_CSV, OPT_GANTT, OPT_AMLA,
       OPT_VFA, OPT_POLICY, OPT_GM, OPT_THEOREM, OPT_SEED };

static const struct option long_options[] = {
    { "policy", required_argument, NULL, OPT_POLICY }, { "c", required_argument, NULL, OPT_C },
    { "v", required_argument, NULL, OPT_V }, { "v-last", required_argument, NULL, OPT_VLAST },
    { "blocks", required_argument, NULL, OPT_BLOCKS }, { "cube", required_argument, NULL, OPT_CUBE },
    { "vector", required_argument, NULL, OPT_VECTOR }, { "ring", required_argument, NULL, OPT_RING },
    { "preload", required_argument, NULL, OPT_PRELOAD }, { "order", required_argument, NULL, OPT_ORDER },
    { "min-preload", no_argument, NULL, OPT_MIN }, { "explain", no_argument, NULL, OPT_EXPLAIN },
    { "json", no_argument, NULL, OPT_JSON }, { "trace", required_argument, NULL, OPT_TRACE },
    { "csv", required_argument, NULL, OPT_CSV }, { "gantt", required_argument, NULL, OPT_GANTT },
    { "amla-report", no_argument, NULL, OPT_AMLA }, { "vfa-report", no_argument, NULL, OPT_VFA },
    { "gm-gbps", required_argument, NULL, OPT_GM }, { "theorem-report", no_argument, NULL, OPT_THEOREM },
    { "seed", required_argument, NULL, OPT_SEED },
    { "help", no_argument, NULL, OPT_HELP }, { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
};

#define MAX_STAGE_NS 1000000000000LL
#define PIPE_MAX_OPS 4000000   /* about 1 GB at SIM_BYTES_PER_OP */

/* "1000,800": 1..PIPE_MAX_PAIRS integers in [0, MAX_STAGE_NS]. */
static SimStatus parse_list(const char *flag, const char *text, int64_t *out, int *count, SimError *err)
{
    gchar **toks = g_strsplit(text, ",", -1);
    int n = 0;
    for (; toks[n] && !err->status; n++) {
        char *end;
        long long x = g_ascii_strtoll(toks[n], &end, 10);
        if (n == PIPE_MAX_PAIRS)
            sim_error_set(err, SIM_ERR_USAGE, "%s has more than %d entries (at most %d CV pairs)", flag,
                          PIPE_MAX_PAIRS, PIPE_MAX_PAIRS);
        else if (!g_ascii_isdigit(toks[n][0]) || *end || x > MAX_STAGE_NS)
            sim_error_set(err, SIM_ERR_USAGE, "%s expects a comma-separated list of integer nanoseconds "
                          "from 0 to %lld, got '%s'", flag, MAX_STAGE_NS, text);
        else
            out[n] = x;
    }
    g_strfreev(toks);
    *count = n;
    return err->status;
}

static SimStatus parse_small(const char *flag, const char *text, int64_t lo, int64_t hi, int *out, SimError *err)
{
    int64_t x;
    if (cli_parse_int64(flag, text, lo, hi, &x, err) == SIM_OK)
        *out = (int)x;
    return err->status;
}

static SimStatus parse_one(PipeOptions *o, int opt, const char *arg, const char *flag, SimError *err)
{
    switch (opt) {
    case OPT_POLICY:
        o->policy = !strcmp(arg, "serial") ? POL_SERIAL : !strcmp(arg, "amla") ? POL_AMLA : POL_PRELOAD;
        if (o->policy == POL_PRELOAD && strcmp(arg, "preload"))
            sim_error_set(err, SIM_ERR_USAGE, "unknown pipeline policy '%s' (serial, preload or amla)", arg);
        return err->status;
    case OPT_C: return parse_list(flag, arg, o->wl.c_ns, &o->wl.n_pairs, err);
    case OPT_V: o->has_v = true; return parse_list(flag, arg, o->wl.v_ns, &o->n_v, err);
    case OPT_VLAST: o->has_v_last = true; return parse_list(flag, arg, o->wl.v_last_ns, &o->n_v_last, err);
    case OPT_BLOCKS: return cli_parse_int64(flag, arg, 1, PIPE_MAX_BLOCKS, &o->wl.blocks, err);
    case OPT_CUBE: return parse_small(flag, arg, 1, PIPE_MAX_ENGINES, &o->wl.n_cube, err);
    case OPT_VECTOR: return parse_small(flag, arg, 1, PIPE_MAX_ENGINES, &o->wl.n_vector, err);
    case OPT_RING: return parse_small(flag, arg, 0, 1024, &o->wl.ring_slots, err);
    case OPT_PRELOAD: return parse_small(flag, arg, 0, 1024, &o->preload, err);
    case OPT_ORDER: o->order_text = arg; return SIM_OK;
    case OPT_MIN: o->has_min_preload = true; return SIM_OK;
    case OPT_EXPLAIN: o->is_explain = true; return SIM_OK;
    case OPT_JSON: o->is_json = true; return SIM_OK;
    case OPT_TRACE: o->trace_path = arg; return SIM_OK;
    case OPT_CSV: o->csv_path = arg; return SIM_OK;
    case OPT_GANTT: o->gantt_path = arg; return sim_render_gantt_check_path(arg, err);
    case OPT_AMLA: o->is_amla_report = true; return SIM_OK;
    case OPT_VFA: o->is_vfa_report = true; return SIM_OK;
    case OPT_GM: return parse_small(flag, arg, 1, 100000, &o->gm_gbps, err);
    case OPT_THEOREM: o->is_theorem_report = true; return SIM_OK;
    case OPT_SEED: return cli_parse_int64(flag, arg, 0, UINT32_MAX, &o->seed, err);
    }
    return sim_error_set(err, SIM_ERR_USAGE, "unknown option %s (see sim pipeline --help)", flag);
}

/* Cross-flag checks after parsing. */
static SimStatus check_options(PipeOptions *o, SimError *err)
{
    PipeWorkload *wl = &o->wl;
    if (o->has_v && o->n_v != wl->n_pairs)
        return sim_error_set(err, SIM_ERR_USAGE, "--v has %d entries but --c has %d; give one Vector stage per "
                             "Cube stage", o->n_v, wl->n_pairs);
    if (o->has_v_last && o->n_v_last != wl->n_pairs)
        return sim_error_set(err, SIM_ERR_USAGE, "--v-last has %d entries but --c has %d", o->n_v_last,
                             wl->n_pairs);
    if (!o->has_v && wl->n_pairs != 2)
        return sim_error_set(err, SIM_ERR_USAGE, "--c has %d entries; give --v with as many", wl->n_pairs);
    if (o->policy == POL_AMLA && wl->n_pairs != 2)
        return sim_error_set(err, SIM_ERR_USAGE, "--policy amla needs n = 2 CV pairs, --c has %d", wl->n_pairs);
    if (o->policy != POL_PRELOAD && (o->order_text || o->preload >= 0))
        return sim_error_set(err, SIM_ERR_USAGE, "--order and --preload apply to --policy preload only");
    if (o->order_text && o->preload >= 0)
        return sim_error_set(err, SIM_ERR_USAGE, "--order fixes the Preload count; drop --preload");
    if (o->has_min_preload && wl->n_pairs > PIPE_MAX_BRUTE_PAIRS)
        return sim_error_set(err, SIM_ERR_USAGE, "--min-preload enumerates n! orders and takes at most %d CV "
                             "pairs, --c has %d", PIPE_MAX_BRUTE_PAIRS, wl->n_pairs);
    int64_t ops = wl->blocks * wl->n_pairs * (wl->n_cube + wl->n_vector);
    if (ops > PIPE_MAX_OPS)
        return sim_error_set(err, SIM_ERR_LIMIT, "the pipeline would have %" PRId64 " ops, more than the %d this "
                             "command simulates; use fewer --blocks", ops, PIPE_MAX_OPS);
    if (o->policy == POL_AMLA) {
        wl->has_v_last = true;
        if (!o->has_v_last)
            memcpy(wl->v_last_ns, wl->v_ns, sizeof wl->v_ns);
        wl->v_ns[1] = 0;
    } else
        wl->has_v_last = o->has_v_last;
    return SIM_OK;
}

/* Returns -1 to go on, else the exit code (help, version, or an error). */
static int parse_args(PipeOptions *o, int argc, char **argv, SimError *err)
{
    *o = (PipeOptions){ .wl = { .n_pairs = 2, .c_ns = { 1000, 800 }, .v_ns = { 600, 400 }, .blocks = 8,
                                .n_cube = 1, .n_vector = 1 }, .policy = POL_PRELOAD, .preload = -1, .seed = 1 };
    cli_begin_options();
    int opt;
    char flag[64];
    while ((opt = cli_next_option(argc, argv, long_options, "pipeline", flag, sizeof flag, err)) != -1) {
        if (opt == OPT_HELP)
            return fputs(usage, stdout), 0;
        else if (opt == OPT_VERSION)
            return printf("sim (dashsim) %s\n", SIM_VERSION), 0;
        else if (opt != '?')
            parse_one(o, opt, optarg, flag, err);
        if (err->status)
            return cli_fail(err);
    }
    if (optind < argc)
        sim_error_set(err, SIM_ERR_USAGE, "unexpected argument '%s' (see sim pipeline --help)", argv[optind]);
    else
        check_options(o, err);
    return err->status ? cli_fail(err) : -1;
}


/* The Cycle of the chosen policy; rot is always the rotation of the steady durations (for --explain). */
static SimStatus build_cycle(const PipeOptions *o, PipeCycle *cy, PipeRotation *rot, SimError *err)
{
    int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
    int n = o->wl.n_pairs;
    pipe_effective_durations(&o->wl, false, c, v);
    pipe_rotation(n, c, v, rot, cy);
    if (o->policy == POL_SERIAL)
        pipe_cycle_serial(n, cy);
    else if (o->policy == POL_AMLA)
        pipe_cycle_amla(cy);
    else if (o->order_text)
        return pipe_cycle_parse(o->order_text, n, cy, err);
    else if (o->preload >= 0 && o->preload < n) {
        /* The brute force's stall-free Cycle when there is one (then externalise edges up to K); else the
         * chain order with its last K chain edges crossing Cycles, which never deadlocks. */
        PipeCycle witness;
        if (n <= PIPE_MAX_BRUTE_PAIRS && pipe_min_preload(n, c, v, &witness) <= o->preload) {
            *cy = witness;
            pipe_cycle_set_preload(cy, o->preload);
        } else {
            pipe_cycle_serial(n, cy);
            cy->is_serial = false;
            for (int j = 0; j < 2 * n; j++)
                cy->offset[j] = MAX(0, j - (2 * n - 1 - o->preload));
        }
    } else if (o->preload >= 0)
        pipe_cycle_set_preload(cy, o->preload);
    return SIM_OK;
}

static const char *policy_name(Policy p)
{
    return p == POL_SERIAL ? "serial" : p == POL_AMLA ? "amla" : "preload";
}

static cJSON *int_array(const int64_t *x, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)x[i]));
    return a;
}

static void add_explain(cJSON *j, const PipeRotation *rot, int n)
{
    cJSON *e = cJSON_AddObjectToObject(j, "explain");
    cJSON_AddStringToObject(e, "case", rot->is_cube_dominated ? "cube-dominated" : "vector-dominated");
    cJSON_AddItemToObject(e, "a_ns", int_array(rot->a_ns, n));
    cJSON_AddItemToObject(e, "prefix_sums_ns", int_array(rot->prefix_ns, n + 1));
    cJSON_AddNumberToObject(e, "k", rot->k);
}

static void print_json(const PipeOptions *o, const PipeCycle *cy, const PipeRotation *rot, const PipeResult *r,
                       int min_preload)
{
    char cycle[256];
    pipe_cycle_format(cy, cycle, sizeof cycle);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "policy", policy_name(o->policy));
    cJSON_AddNumberToObject(j, "n_pairs", o->wl.n_pairs);
    cJSON_AddNumberToObject(j, "blocks", (double)o->wl.blocks);
    cJSON_AddNumberToObject(j, "cube_engines", o->wl.n_cube);
    cJSON_AddNumberToObject(j, "vector_engines", o->wl.n_vector);
    cJSON_AddNumberToObject(j, "ring_slots", o->wl.ring_slots);
    cJSON_AddItemToObject(j, "c_ns", int_array(o->wl.c_ns, o->wl.n_pairs));
    cJSON_AddItemToObject(j, "v_ns", int_array(o->wl.v_ns, o->wl.n_pairs));
    if (o->wl.has_v_last)
        cJSON_AddItemToObject(j, "v_last_ns", int_array(o->wl.v_last_ns, o->wl.n_pairs));
    cJSON_AddStringToObject(j, "cycle", cycle + 1);
    cJSON_AddNumberToObject(j, "preload_count", r->preload_count);
    if (min_preload >= 0)
        cJSON_AddNumberToObject(j, "min_preload_count", min_preload);
    cJSON_AddNumberToObject(j, "bound_ns", (double)r->bound_ns);
    cJSON_AddBoolToObject(j, "deadlock", r->is_deadlock);
    if (r->is_deadlock) {
        cJSON_AddStringToObject(j, "deadlock_reason", r->deadlock_msg);
        cJSON_AddNullToObject(j, "makespan_ns");
    } else {
        if (r->steady_cycle_ns >= 0)
            cJSON_AddNumberToObject(j, "steady_cycle_ns", (double)r->steady_cycle_ns);
        else
            cJSON_AddNullToObject(j, "steady_cycle_ns"), cJSON_AddStringToObject(j, "cycle_reason", r->cycle_msg);
        cJSON_AddBoolToObject(j, "stall_free", r->is_stall_free);
        cJSON_AddNumberToObject(j, "makespan_ns", (double)r->makespan_ns);
        cJSON_AddNumberToObject(j, "critical_path_ns", (double)r->critical_path_ns);
        cJSON_AddNumberToObject(j, "cube_busy_fraction", r->cube_busy_fraction);
        cJSON_AddNumberToObject(j, "vector_busy_fraction", r->vector_busy_fraction);
    }
    if (o->is_explain)
        add_explain(j, rot, o->wl.n_pairs);
    char *s = cJSON_PrintUnformatted(j);
    puts(s);
    cJSON_free(s);
    cJSON_Delete(j);
}

static void print_explain(const PipeRotation *rot, int n, const PipeCycle *witness, int min_preload)
{
    printf("Theorem B.1 (%s): a_i = V_i - C_i+1 =", rot->is_cube_dominated ? "sum V <= sum C" : "sum V > sum C");
    for (int i = 0; i < n; i++)
        printf(" %" PRId64, rot->a_ns[i]);
    printf("\n  prefix sums F(0..%d) =", n);
    for (int i = 0; i <= n; i++)
        printf(" %" PRId64, rot->prefix_ns[i]);
    printf("\n  k = argmin F = %d: Cube starts at C%d, Vector at V%d; C%d -> V%d crosses Cycles\n", rot->k,
           (rot->k + 1) % n + 1, rot->k % n + 1, rot->k % n + 1, rot->k % n + 1);
    if (min_preload >= 0) {
        char buf[256];
        pipe_cycle_format(witness, buf, sizeof buf);
        printf("  brute force: minimum stall-free Preload count %d, e.g. Cycle%s\n", min_preload, buf);
    }
}

static void print_summary(const PipeOptions *o, const PipeCycle *cy, const PipeResult *r, int min_preload)
{
    char cycle[256];
    pipe_cycle_format(cy, cycle, sizeof cycle);
    printf("pipeline %s, n = %d CV pairs, %" PRId64 " blocks, %d Cube : %d Vector, ring %d\n",
           policy_name(o->policy), o->wl.n_pairs, o->wl.blocks, o->wl.n_cube, o->wl.n_vector, o->wl.ring_slots);
    printf("  %-18s %s (Preload count %d)\n", "Cycle", cycle + 1, r->preload_count);
    if (min_preload >= 0)
        printf("  %-18s %d (brute force over every Cycle)\n", "min Preload count", min_preload);
    if (r->is_deadlock) {
        printf("  %-18s %s\n", "deadlock", r->deadlock_msg);
        return;
    }
    if (r->steady_cycle_ns < 0)
        printf("  %-18s cannot run alone: %s\n", "steady Cycle", r->cycle_msg);
    else
        printf("  %-18s %" PRId64 " ns (bound max(sum C, sum V) = %" PRId64 " ns): %s\n", "steady Cycle",
               r->steady_cycle_ns, r->bound_ns, r->is_stall_free ? "stall-free" : "stalls");
    printf("  %-18s %" PRId64 " ns (critical path %" PRId64 " ns)\n", "makespan", r->makespan_ns,
           r->critical_path_ns);
    printf("  %-18s Cube %.2f %%, Vector %.2f %%\n", "busy", 100 * r->cube_busy_fraction,
           100 * r->vector_busy_fraction);
}

typedef struct {
    const PipeResult *r;
} LabelCtx;

static void label_op(void *ctx, int64_t op, SimRenderLabel *out)
{
    const PipeResult *r = ((const LabelCtx *)ctx)->r;
    int j = r->op_stage[op];
    int64_t block = r->program->ops[op].task;
    snprintf(out->name, sizeof out->name, "%c%d b%" PRId64, "CV"[j % 2], j / 2 + 1, block);
    out->phase = j % 2 ? "vector" : "cube";
    out->group = j;
    out->args[0] = block;
    out->args[1] = j;
}

static SimStatus render(const PipeOptions *o, const PipeResult *r, SimError *err)
{
    static const char *const cube[] = { "CUBE", "CUBE1", "CUBE2", "CUBE3" };
    static const char *const vec[] = { "VECTOR", "VECTOR1", "VECTOR2", "VECTOR3" };
    char title[256];
    snprintf(title, sizeof title, "pipeline %s, n = %d, %" PRId64 " blocks, %d Cube : %d Vector: makespan %"
             PRId64 " ns", policy_name(o->policy), o->wl.n_pairs, o->wl.blocks, o->wl.n_cube, o->wl.n_vector,
             r->makespan_ns);
    LabelCtx ctx = { r };
    SimRenderSpec spec = { .program = r->program, .schedule = &r->schedule, .analysis = &r->analysis,
                           .device = "AI core", .unit_name = "AI core", .unit_column = "core",
                           .arg_names = { "block", "stage" }, .group_name = "stage", .title = title,
                           .flow_edge_kinds = 1u << SIM_EDGE_DATA, .label = label_op, .label_ctx = &ctx };
    for (int k = 0; k < o->wl.n_cube; k++)
        spec.engine_names[k] = o->wl.n_cube == 1 ? "CUBE" : cube[k];
    for (int k = 0; k < o->wl.n_vector; k++)
        spec.engine_names[o->wl.n_cube + k] = o->wl.n_vector == 1 ? "VECTOR" : vec[k];
    SimTraceOptions topt = { .has_flows = true, .max_bytes = (int64_t)1 << 30 };
    SimGanttOptions gopt = { 0 };
    bool is_trace_done = false, is_csv_done = false;
    if (o->trace_path && sim_render_trace(&spec, &topt, o->trace_path, err) == SIM_OK)
        is_trace_done = true;
    if (!err->status && o->csv_path && sim_render_csv(&spec, o->csv_path, err) == SIM_OK)
        is_csv_done = true;
    if (!err->status && o->gantt_path)
        sim_render_gantt(&spec, &gopt, o->gantt_path, err);
    if (err->status && is_trace_done)
        unlink(o->trace_path);
    if (err->status && is_csv_done)
        unlink(o->csv_path);
    return err->status;
}

/* Runs one workload under its Cycle; on error nothing is printed. */
static int run_pipeline(const PipeOptions *o, SimError *err)
{
    PipeCycle cy, witness;
    PipeRotation rot;
    if (build_cycle(o, &cy, &rot, err))
        return cli_fail(err);
    int min_preload = -1;
    if (o->has_min_preload) {
        int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
        pipe_effective_durations(&o->wl, false, c, v);
        min_preload = pipe_min_preload(o->wl.n_pairs, c, v, &witness);
    }
    PipeResult r;
    if (pipe_run(&o->wl, &cy, &r, err) == SIM_OK && !r.is_deadlock)
        render(o, &r, err);
    if (!err->status) {
        if (o->is_json)
            print_json(o, &cy, &rot, &r, min_preload);
        else {
            if (o->is_explain)
                print_explain(&rot, o->wl.n_pairs, &witness, min_preload);
            print_summary(o, &cy, &r, min_preload);
        }
        if (r.is_deadlock)
            sim_error_set(err, SIM_ERR_SCHEDULE, "%s", r.deadlock_msg);
    }
    pipe_result_clear(&r);
    return err->status ? cli_fail(err) : 0;
}

/* Seed 004 Table 5: FLOPS utilisation of AMLA on Ascend 910 and of FlashMLA on the GPU, per (Sq, Sk). */
static const int report_sk[6] = { 1024, 2048, 3072, 4096, 6144, 16384 };
static const double paper_910_fu[2][6] = { { 40.9, 55.1, 62.4, 64.1, 70.2, 74.5 },
                                           { 57.3, 70.7, 75.8, 79.7, 82.2, 86.8 } };
static const double paper_gpu_fu[2][6] = { { 32.6, 43.3, 48.0, 51.5, 52.6, 57.8 },
                                           { 48.1, 56.5, 59.8, 59.2, 63.0, 67.4 } };

/* One pipeline run for a report: durations c, v of one block; v_last for the last block if not NULL. */
static SimStatus report_run(const int64_t *c, const int64_t *v, const int64_t *v_last, int64_t blocks,
                            int n_vector, const PipeCycle *fixed, PipeResult *r, SimError *err)
{
    PipeWorkload wl = { .n_pairs = 2, .blocks = blocks, .n_cube = 1, .n_vector = n_vector };
    memcpy(wl.c_ns, c, 2 * sizeof *c);
    memcpy(wl.v_ns, v, 2 * sizeof *v);
    if (v_last) {
        wl.has_v_last = true;
        memcpy(wl.v_last_ns, v_last, 2 * sizeof *v_last);
    }
    PipeCycle cy;
    PipeRotation rot;
    int64_t ce[PIPE_MAX_PAIRS], ve[PIPE_MAX_PAIRS];
    pipe_effective_durations(&wl, false, ce, ve);
    pipe_rotation(2, ce, ve, &rot, &cy);
    return pipe_run(&wl, fixed ? fixed : &cy, r, err);
}

static int report_amla(int gm_gbps, SimError *err)
{
    PipeAscendModel m = pipe_ascend_910();
    if (gm_gbps > 0)
        m.gm_bytes_per_ns = gm_gbps;
    PipeCycle amla;
    pipe_cycle_amla(&amla);
    printf("# MLA decode, one AI core pair of Ascend 910 (1 Cube : 2 Vector), 2 sequences x 128 heads x Sq rows,\n"
           "# KV blocks of 512. Stage ns per engine. Cube %% = Cube busy / makespan (model); paper: FLOPS utilisation.\n");
    printf("# GM (workspaces) %.1f GB/s, HBM %.1f GB/s, Cube %.0f GFLOP/s, Vector %.1f Gop/s per core.\n",
           m.gm_bytes_per_ns, m.hbm_bytes_per_ns, m.cube_flops_per_ns, m.vector_ops_per_ns);
    printf("%-3s %6s %6s | %6s %6s %6s %6s %5s %7s | %6s %7s | %7s %7s\n", "Sq", "Sk", "blocks", "C1", "C2",
           "V1", "V2", "sfree", "base%", "V1amla", "amla%", "paper%", "gpu%");
    for (int sq = 1; sq <= 2 && !err->status; sq++)
        for (int i = 0; i < 6 && !err->status; i++) {
            int64_t cb[2], vb[2], ca[2], va[2], blocks = report_sk[i] / 512;
            pipe_mla_costs(&m, 128 * sq, false, cb, vb);
            pipe_mla_costs(&m, 128 * sq, true, ca, va);
            int64_t last[2] = { va[0], vb[1] };   /* the last block normalises O: one rescale pass */
            PipeResult base, am;
            report_run(cb, vb, NULL, blocks, 2, NULL, &base, err);
            report_run(ca, va, last, blocks, 2, &amla, &am, err);
            if (!err->status)
                printf("%-3d %6d %6" PRId64 " | %6" PRId64 " %6" PRId64 " %6" PRId64 " %6" PRId64 " %5s %6.1f%% | "
                       "%6" PRId64 " %6.1f%% | %6.1f%% %6.1f%%\n", sq, report_sk[i], blocks, cb[0], cb[1],
                       (vb[0] + 1) / 2, (vb[1] + 1) / 2, base.is_stall_free ? "yes" : "no",
                       100 * base.cube_busy_fraction, (va[0] + 1) / 2, 100 * am.cube_busy_fraction,
                       paper_910_fu[sq - 1][i], paper_gpu_fu[sq - 1][i]);
            pipe_result_clear(&base);
            pipe_result_clear(&am);
        }
    return err->status ? cli_fail(err) : 0;
}

static int report_vfa(SimError *err)
{
    static const int config[4][2] = { { 16, 32 }, { 8, 32 }, { 4, 32 }, { 4, 16 } };
    const int64_t blocks = 32;   /* KV tiles of one Q tile at 4k context */
    int64_t baseline = 0;
    printf("# VFA (seed 003 Table 1): per 128x128 tile, d 128; 1 tensor : 1 vector engine, %" PRId64 " KV tiles, "
           "Preload 2.\n# sumC / sumV per tile (ns), critical engine, vector share = sumV / (sumC + sumV).\n",
           blocks);
    printf("%-7s %-4s %6s %6s %-7s %7s %9s %8s %8s\n", "config", "alg", "sumC", "sumV", "crit", "vshare",
           "makespan", "vs FA", "vs base");
    for (int i = 0; i < 4 && !err->status; i++) {
        int64_t fa_makespan = 0;
        for (int is_vfa = 0; is_vfa <= 1 && !err->status; is_vfa++) {
            int64_t c[2], v[2], fa_c[2], fa_v[2];
            pipe_vfa_costs(config[i][0], config[i][1], is_vfa, c, v);
            pipe_vfa_costs(config[i][0], config[i][1], false, fa_c, fa_v);
            PipeResult r;
            /* VFA still rescales on its local (last) block */
            if (report_run(c, v, is_vfa ? fa_v : NULL, blocks, 1, NULL, &r, err) == SIM_OK) {
                int64_t sc = c[0] + c[1], sv = v[0] + v[1];
                if (!is_vfa)
                    fa_makespan = r.makespan_ns;
                if (i == 0 && !is_vfa)
                    baseline = r.makespan_ns;
                printf("C%dV%-4d %-4s %6" PRId64 " %6" PRId64 " %-7s %6.1f%% %9" PRId64 " %7.2fx %7.2fx\n",
                       config[i][0], config[i][1], is_vfa ? "VFA" : "FA", sc, sv, sc >= sv ? "tensor" : "vector",
                       100.0 * (double)sv / (double)(sc + sv), r.makespan_ns,
                       (double)fa_makespan / (double)r.makespan_ns, (double)baseline / (double)r.makespan_ns);
            }
            pipe_result_clear(&r);
        }
    }
    return err->status ? cli_fail(err) : 0;
}

static int64_t sum_of(const int64_t *x, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* Durations uniform in [1, 1000]; every other instance made Vector-dominated (one V stage raised). */
static void theorem_instance(GRand *g, int n, int t, int64_t *c, int64_t *v)
{
    for (int p = 0; p < n; p++)
        c[p] = g_rand_int_range(g, 1, 1001), v[p] = g_rand_int_range(g, 1, 1001);
    int64_t *big = t % 2 ? v : c, *small = t % 2 ? c : v;
    if (sum_of(big, n) <= sum_of(small, n))
        big[g_rand_int_range(g, 0, n)] += sum_of(small, n) - sum_of(big, n) + 1;
}

static int report_theorem(uint32_t seed)
{
    static const int count[7] = { 0, 2000, 2000, 1500, 600, 200, 40 };
    GRand *g = g_rand_new_with_seed(seed);
    printf("# seed %u. rotation: Preload n by Theorem B.1, stall-free = isolated Cycle takes max(sum C, sum V).\n"
           "# min: brute force over every Cycle; Lemma B.2: same C, V_k + C_j > sum C for all j, other V small.\n", seed);
    printf("%-2s %9s %6s %6s %10s %8s %8s %8s %12s\n", "n", "instances", "cube", "vector", "rot-sfree",
           "min<n-1", "min=n-1", "min=n", "lemma:min=n");
    for (int n = 1; n <= PIPE_MAX_BRUTE_PAIRS; n++) {
        int cube = 0, stall_free = 0, below[3] = { 0, 0, 0 }, lemma = 0, lemma_n = 0;
        for (int t = 0; t < count[n]; t++) {
            int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
            theorem_instance(g, n, t, c, v);
            PipeRotation rot;
            PipeCycle cy;
            pipe_rotation(n, c, v, &rot, &cy);
            cube += rot.is_cube_dominated;
            stall_free += pipe_cycle_period_fast(&cy, c, v) == MAX(sum_of(c, n), sum_of(v, n));
            int m = pipe_min_preload(n, c, v, NULL);
            below[m < n - 1 ? 0 : m == n - 1 ? 1 : 2]++;
            if (t % 5 == 0) {   /* Lemma B.2's construction on the same Cube stages */
                int k = g_rand_int_range(g, 0, n);
                int64_t lo = c[0], small[PIPE_MAX_PAIRS];
                for (int p = 1; p < n; p++)
                    lo = MIN(lo, c[p]);
                for (int p = 0; p < n; p++)
                    small[p] = p == k ? sum_of(c, n) - lo + 1 : (lo - 1) / n;
                lemma++;
                lemma_n += pipe_min_preload(n, c, small, NULL) == n;
            }
        }
        printf("%-2d %9d %6d %6d %10d %8d %8d %8d %6d of %-4d\n", n, count[n], cube, count[n] - cube, stall_free,
               below[0], below[1], below[2], lemma_n, lemma);
    }
    g_rand_free(g);
    return 0;
}

int sim_cmd_pipeline(int argc, char **argv)
{
    PipeOptions o;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    if (rc >= 0)
        return rc;
    if (o.is_amla_report)
        return report_amla(o.gm_gbps, &err);
    if (o.is_vfa_report)
        return report_vfa(&err);
    if (o.is_theorem_report)
        return report_theorem((uint32_t)o.seed);
    return run_pipeline(&o, &err);
}

/* `sim pipeline`: parses options into a PipeRequest (sim/model/pipeline/pipeline.h), runs it or one of the reports,
 * and prints through sim/io/pipeline_out.h. No model logic here. A deadlocking plan is reported (JSON
 * "deadlock": true and one sentence on stderr, exit 2: an inconsistent schedule), never hung on. */
#include <getopt.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "pipeline.h"
#include "pipeline_out.h"
#include "render.h"

typedef struct {
    PipeRequest rq;
    const char *trace_path, *csv_path, *gantt_path;
    bool is_json, is_explain, is_amla_report, is_vfa_report, is_theorem_report, has_v;
    int64_t seed;                /* --theorem-report */
    int n_v, n_v_last;
    int gm_gbps;                 /* --amla-report: GM bandwidth of one core pair, GB/s; 0: the model's */
} PipeOptions;

#define DEFAULT_POLICY "preload"

static const char usage_rest[] =
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
    "  --max-memory-mb MB  refuse runs whose simulation would need more (default 4096; at most this\n"
    "                      machine's memory; at most 4000000 ops whatever the cap)\n"
    "  --trace FILE        Chrome trace (CUBE and VECTOR tracks); --csv FILE; --gantt FILE.png|svg\n"
    "  --amla-report       base FlashAttention vs AMLA on MLA decode shapes (Ascend 910 model)\n"
    "  --gm-gbps G         --amla-report: GM bandwidth (GB/s) of one core pair for workspaces (default 67)\n"
    "  --theorem-report    Theorem B.1 / Lemma B.2 on seeded random instances, n = 1..6 (--seed S, default 1)\n"
    "  --vfa-report        FA vs VFA per-block vector work under C16V32, C8V32, C4V32, C4V16\n"
    "  --list-policies, --help, --version\n"
    "Exit status: 0 ok, 2 bad usage or input, or a plan that deadlocks.\n";

/* The policy names and their briefs come from the registry. */
static void print_usage(void)
{
    char *names = pipe_policy_names("|", NULL, false);
    printf("usage: sim pipeline [--policy %s] [--c LIST --v LIST] [options]\n"
           "Simulates a Cube/Vector preload pipeline (AMLA appendix B) on one AI core and checks its Cycle.\n"
           "  --policy NAME      ", names);
    for (int i = 0; i < pipe_policy_count(); i++) {
        const PipePolicyOps *p = pipe_policy_at(i);
        const char *note = strcmp(p->name, DEFAULT_POLICY) == 0 ? "default" : p->brief;
        printf("%s %s%s%s%s", i ? "," : "", p->name, note ? " (" : "", note ? note : "", note ? ")" : "");
    }
    printf("\n%s", usage_rest);
    g_free(names);
}

static void list_policies(void)
{
    for (int i = 0; i < pipe_policy_count(); i++)
        printf("%-10s %s\n", pipe_policy_at(i)->name, pipe_policy_at(i)->summary);
}

enum { OPT_HELP = 256, OPT_VERSION, OPT_C, OPT_V, OPT_VLAST, OPT_BLOCKS, OPT_CUBE, OPT_VECTOR, OPT_RING,
       OPT_PRELOAD, OPT_ORDER, OPT_MIN, OPT_EXPLAIN, OPT_JSON, OPT_TRACE, OPT_CSV, OPT_GANTT, OPT_AMLA,
       OPT_VFA, OPT_POLICY, OPT_GM, OPT_THEOREM, OPT_SEED, OPT_LIST, OPT_MEM };

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
    { "seed", required_argument, NULL, OPT_SEED }, { "list-policies", no_argument, NULL, OPT_LIST },
    { "max-memory-mb", required_argument, NULL, OPT_MEM },
    { "help", no_argument, NULL, OPT_HELP }, { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
};

#define MAX_STAGE_NS 1000000000000LL

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

static SimStatus parse_policy(PipeOptions *o, const char *arg, SimError *err)
{
    if ((o->rq.policy = pipe_policy_find(arg)))
        return SIM_OK;
    char *names = pipe_policy_names(", ", " or ", false);
    sim_error_set(err, SIM_ERR_USAGE, "unknown pipeline policy '%s' (%s)", arg, names);
    g_free(names);
    return err->status;
}

static SimStatus parse_one(PipeOptions *o, int opt, const char *arg, const char *flag, SimError *err)
{
    PipeWorkload *wl = &o->rq.wl;
    switch (opt) {
    case OPT_POLICY: return parse_policy(o, arg, err);
    case OPT_C: return parse_list(flag, arg, wl->c_ns, &wl->n_pairs, err);
    case OPT_V: o->has_v = true; return parse_list(flag, arg, wl->v_ns, &o->n_v, err);
    case OPT_VLAST: wl->has_v_last = true; return parse_list(flag, arg, wl->v_last_ns, &o->n_v_last, err);
    case OPT_BLOCKS: return cli_parse_int64(flag, arg, 1, PIPE_MAX_BLOCKS, &wl->blocks, err);
    case OPT_CUBE: return parse_small(flag, arg, 1, PIPE_MAX_ENGINES, &wl->n_cube, err);
    case OPT_VECTOR: return parse_small(flag, arg, 1, PIPE_MAX_ENGINES, &wl->n_vector, err);
    case OPT_RING: return parse_small(flag, arg, 0, 1024, &wl->ring_slots, err);
    case OPT_PRELOAD: return parse_small(flag, arg, 0, 1024, &o->rq.cycle.preload, err);
    case OPT_ORDER: o->rq.cycle.order_text = arg; return SIM_OK;
    case OPT_MIN: o->rq.has_min_preload = true; return SIM_OK;
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
    case OPT_MEM: return cli_parse_max_memory_mb(flag, arg, &o->rq.max_memory_mb, err);
    }
    return sim_error_set(err, SIM_ERR_USAGE, "unknown option %s (see sim pipeline --help)", flag);
}

/* List lengths here; the rules that need the whole request are pipe_request_check's. */
static SimStatus check_options(PipeOptions *o, SimError *err)
{
    int n = o->rq.wl.n_pairs;
    if (o->has_v && o->n_v != n)
        return sim_error_set(err, SIM_ERR_USAGE, "--v has %d entries but --c has %d; give one Vector stage per "
                             "Cube stage", o->n_v, n);
    if (o->rq.wl.has_v_last && o->n_v_last != n)
        return sim_error_set(err, SIM_ERR_USAGE, "--v-last has %d entries but --c has %d", o->n_v_last, n);
    if (!o->has_v && n != 2)
        return sim_error_set(err, SIM_ERR_USAGE, "--c has %d entries; give --v with as many", n);
    return pipe_request_check(&o->rq, err);
}

/* No two outputs may be one file (the Gantt chart's .gp and .dat included). */
static SimStatus check_paths(const PipeOptions *o, SimError *err)
{
    char *gp = sim_output_sibling(o->gantt_path, ".gp"), *dat = sim_output_sibling(o->gantt_path, ".dat");
    SimPathRole out[] = { { "--trace", o->trace_path }, { "--csv", o->csv_path }, { "--gantt", o->gantt_path },
                          { "the Gantt chart's script", gp }, { "the Gantt chart's data", dat } };
    sim_output_check_paths(NULL, 0, out, (int)G_N_ELEMENTS(out), err);
    g_free(gp), g_free(dat);
    return err->status;
}

/* Returns -1 to go on, else the exit code (help, version, list, or an error). */
static int parse_args(PipeOptions *o, int argc, char **argv, SimError *err)
{
    *o = (PipeOptions){ .rq = { .policy = pipe_policy_find(DEFAULT_POLICY), .cycle = { .preload = -1 },
                                .wl = { .n_pairs = 2, .c_ns = { 1000, 800 }, .v_ns = { 600, 400 }, .blocks = 8,
                                        .n_cube = 1, .n_vector = 1 }, .max_memory_mb = CLI_MAX_MEMORY_MB_DEFAULT },
                        .seed = 1 };
    cli_begin_options();
    int opt;
    char flag[64];
    while ((opt = cli_next_option(argc, argv, long_options, "pipeline", flag, sizeof flag, err)) != -1) {
        if (opt == OPT_HELP)
            return print_usage(), 0;
        else if (opt == OPT_VERSION)
            return printf("sim (dashsim) %s\n", SIM_VERSION), 0;
        else if (opt == OPT_LIST)
            return list_policies(), 0;
        else if (opt != '?')
            parse_one(o, opt, optarg, flag, err);
        if (err->status)
            return cli_fail(err);
    }
    if (optind < argc)
        sim_error_set(err, SIM_ERR_USAGE, "unexpected argument '%s' (see sim pipeline --help)", argv[optind]);
    else if (check_options(o, err) == SIM_OK)
        check_paths(o, err);
    return err->status ? cli_fail(err) : -1;
}

/* Runs the request; prints only when everything (outputs included) succeeded. */
static int run_pipeline(const PipeOptions *o, SimError *err)
{
    PipeJob job;
    if (pipe_job_run(&o->rq, &job, err) != SIM_OK)
        return cli_fail(err);
    if (!job.result.is_deadlock)
        sim_pipeline_render(&o->rq, &job, o->trace_path, o->csv_path, o->gantt_path, err);
    FILE *f = cli_report_file((const char *[]){ o->trace_path, o->csv_path }, 2);
    if (!err->status && o->is_json)
        sim_pipeline_write_json(f, &o->rq, &job, o->is_explain);
    else if (!err->status) {
        if (o->is_explain)
            sim_pipeline_write_explain(f, &o->rq, &job);
        sim_pipeline_write_summary(f, &o->rq, &job);
    }
    if (!err->status && job.result.is_deadlock)
        sim_error_set(err, SIM_ERR_SCHEDULE, "%s", job.result.deadlock_msg);
    pipe_job_clear(&job);
    return err->status ? cli_fail(err) : 0;
}

/* One report; --amla-report wins over --vfa-report over --theorem-report. */
static int run_report(const PipeOptions *o, SimError *err)
{
    if (o->is_amla_report) {
        PipeAscendModel m = pipe_ascend_910();
        PipeAmlaRow rows[PIPE_AMLA_REPORT_ROWS];
        if (o->gm_gbps > 0)
            m.gm_bytes_per_ns = o->gm_gbps;
        if (pipe_amla_report(&m, rows, err) != SIM_OK)
            return cli_fail(err);
        sim_pipeline_write_amla_report(stdout, &m, rows);
    } else if (o->is_vfa_report) {
        PipeVfaRow rows[PIPE_VFA_REPORT_ROWS];
        if (pipe_vfa_report(rows, err) != SIM_OK)
            return cli_fail(err);
        sim_pipeline_write_vfa_report(stdout, rows);
    } else {
        PipeTheoremRow rows[PIPE_MAX_BRUTE_PAIRS];
        pipe_theorem_report((uint32_t)o->seed, rows);
        sim_pipeline_write_theorem_report(stdout, (uint32_t)o->seed, rows);
    }
    return 0;
}

int sim_cmd_pipeline(int argc, char **argv)
{
    PipeOptions o;
    SimError err = { 0 };
    int rc = parse_args(&o, argc, argv, &err);
    if (rc >= 0)
        return rc;
    if ((o.is_amla_report || o.is_vfa_report || o.is_theorem_report) && o.is_json)
        return sim_error_set(&err, SIM_ERR_USAGE, "--%s-report prints a text table only; it takes no --json",
                             o.is_amla_report ? "amla" : o.is_vfa_report ? "vfa" : "theorem"), cli_fail(&err);
    if (o.is_amla_report || o.is_vfa_report || o.is_theorem_report)
        return run_report(&o, &err);
    return run_pipeline(&o, &err);
}

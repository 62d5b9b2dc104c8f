/* `sim perfetto TRACE.json [-o VIEW.json]`: a measured dashsim-trace (docs/gpu.md) and the model's schedule
 * of the same plan as one Chrome trace for Perfetto (ui.perfetto.dev, chrome://tracing): process 1 the run
 * as measured, process 2 the model fitted to it (sim/run/trace_view.h). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "output.h"
#include "trace_in.h"
#include "trace_view.h"

static const char usage[] =
    "usage: sim perfetto TRACE.json [-o VIEW.json] [--max-memory-mb MB]\n"
    "Converts a measured trace (dashsim-trace, docs/gpu.md) to a Chrome trace for Perfetto, with the model's\n"
    "schedule of the same plan beside it: process 1 is the run as measured, process 2 the model fitted to the\n"
    "trace's phase medians (as sim validate fits it), on the same tracks (one per SM and engine) with the same\n"
    "slice names (phase and head, e.g. \"C h0\"; kv, q and rank in the arguments). Open it in ui.perfetto.dev.\n"
    "  -o FILE              write the view there (default: standard output)\n"
    "  --max-memory-mb MB   refuse traces that would need more (default 4096; at most this machine's\n"
    "                       memory)\n"
    "  --help, --version\n"
    "Exit status: 0 ok, 2 bad usage or input (a trace whose plan is not the one its policy or plan file\n"
    "gives).\n";

enum { OPT_HELP = 256, OPT_MEM };
static const struct option long_options[] = {
    { "output", required_argument, NULL, 'o' }, { "max-memory-mb", required_argument, NULL, OPT_MEM },
    { "help", no_argument, NULL, OPT_HELP }, { NULL, 0, NULL, 0 },
};

/* Returns -1 to go on, else the exit code; *trace and *out_path as given. */
static int parse_args(int argc, char **argv, const char **trace, const char **out_path, int64_t *max_mb,
                      SimError *err)
{
    int opt;
    cli_begin_options();
    while ((opt = getopt_long(argc, argv, "o:", long_options, NULL)) != -1) {
        if (opt == '?')
            sim_error_set(err, SIM_ERR_USAGE, "unknown option or missing value: %s (see sim perfetto --help)",
                          argv[optind - 1]);
        else if (opt == OPT_HELP)
            return fputs(usage, stdout), 0;
        else if (opt == 'o')
            *out_path = optarg;
        else if (opt == OPT_MEM)
            cli_parse_max_memory_mb("--max-memory-mb", optarg, max_mb, err);
        if (err->status)
            return cli_fail(err);
    }
    if (optind != argc - 1)
        return sim_error_set(err, SIM_ERR_USAGE, "sim perfetto needs one trace file (see sim perfetto --help)"),
               cli_fail(err);
    *trace = argv[optind];
    SimPathRole in[] = { { "the trace", *trace } }, out[] = { { "-o", *out_path } };
    return sim_output_check_paths(in, 1, out, 1, err) == SIM_OK ? -1 : cli_fail(err);
}

int sim_cmd_perfetto(int argc, char **argv)
{
    const char *trace_path = NULL, *out_path = "-";
    int64_t max_mb = CLI_MAX_MEMORY_MB_DEFAULT;
    SimError err = { 0 };
    int rc = parse_args(argc, argv, &trace_path, &out_path, &max_mb, &err);
    if (rc >= 0)
        return rc;
    Trace *t = NULL;
    Plan *plan = NULL;
    SimTraceView v;
    if (sim_trace_load_capped(trace_path, max_mb << 20, &t, &err) == SIM_OK &&
        sim_trace_plan(t, max_mb << 20, &plan, &err) == SIM_OK &&
        sim_trace_view_write(t, plan, out_path, &v, &err) == SIM_OK)
        fprintf(cli_report_file(&out_path, 1), "%s: measured %" PRId64 " ns, model fitted to it %" PRId64 " ns "
                "(%+.2f%%); process 1 measured, process 2 the model, in %s\n", trace_path, v.measured_ns, v.model_ns,
                100.0 * (double)(v.model_ns - v.measured_ns) / (double)(v.measured_ns ? v.measured_ns : 1),
                out_path);
    plan_free(plan);
    sim_trace_free(t);
    return err.status ? cli_fail(&err) : 0;
}

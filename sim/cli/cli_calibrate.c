/* `sim calibrate RAW.json [-o PROFILE.json]`: a hardware profile (docs/profile.md) from the output of the
 * gpu/ calibration kernels (`gpu-calib --profile`, run on the GPU by gpu/scripts/run-prediction-grid.sh). */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "output.h"
#include "profile_io.h"

static const char usage[] =
    "usage: sim calibrate RAW.json [--latency-matrix FILE] [-o PROFILE.json]\n"
    "Writes a hardware profile (docs/profile.md) from gpu-calib --profile output: compute per tile in\n"
    "cycles, reduction time by reductions in flight, hand-off growth with load, staging, CTA launch costs.\n"
    "  --latency-matrix FILE  gpu-calib latency matrix: its median is the idle hand-off when RAW has no\n"
    "                         stamped hand-off measurement\n"
    "  -o FILE                write the profile there (default: standard output)\n"
    "  --help, --version\n"
    "Exit status: 0 ok, 2 bad usage or input.\n";

enum { OPT_HELP = 256, OPT_MATRIX };
static const struct option long_options[] = {
    { "latency-matrix", required_argument, NULL, OPT_MATRIX }, { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, OPT_HELP }, { NULL, 0, NULL, 0 },
};

int sim_cmd_calibrate(int argc, char **argv)
{
    const char *matrix = NULL, *out_path = NULL;
    SimError err = { 0 };
    int opt;
    cli_begin_options();
    while ((opt = getopt_long(argc, argv, "o:", long_options, NULL)) != -1) {
        if (opt == '?')
            sim_error_set(&err, SIM_ERR_USAGE, "unknown option or missing value: %s (see sim calibrate --help)",
                          argv[optind - 1]);
        else if (opt == OPT_HELP)
            return fputs(usage, stdout), 0;
        if (opt == OPT_MATRIX)
            matrix = optarg;
        else if (opt == 'o')
            out_path = optarg;
        if (err.status)
            return cli_fail(&err);
    }
    if (optind != argc - 1)
        return sim_error_set(&err, SIM_ERR_USAGE, "sim calibrate needs one raw calibration file (see sim calibrate "
                             "--help)"), cli_fail(&err);
    HwProfile *p = NULL;
    SimOutput out = { 0 };
    if (sim_profile_from_raw(argv[optind], matrix, &p, &err) == SIM_OK) {
        if (!out_path)
            sim_profile_write(p, stdout);
        else if (sim_output_open(&out, out_path, &err) == SIM_OK && !sim_profile_write(p, out.f))
            sim_error_set(&err, SIM_ERR_IO, "cannot write %s", out_path);
        if (out_path && !err.status)
            sim_output_commit(&out, &err);
        sim_output_abort(&out);
    }
    sim_profile_free(p);
    return err.status ? cli_fail(&err) : 0;
}

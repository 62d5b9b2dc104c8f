/* Helpers shared by the subcommands: strict number parsing, error printing, finding installed configs. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "datadir.h"

SimStatus cli_parse_int64(const char *flag, const char *text, int64_t lo, int64_t hi, int64_t *out,
                          SimError *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return sim_error_set(err, SIM_ERR_USAGE, "%s expects an integer from %" G_GINT64_FORMAT " to %"
                             G_GINT64_FORMAT ", got '%s'", flag, lo, hi, text);
    *out = v;
    return SIM_OK;
}

void cli_begin_options(void)
{
    opterr = 0;
    optind = 1;
}

int cli_next_option(int argc, char **argv, const struct option *options, const char *command, char *flag,
                    size_t flag_len, SimError *err)
{
    int index = -1, opt = getopt_long(argc, argv, "", options, &index);
    snprintf(flag, flag_len, "--%s", index >= 0 ? options[index].name : "?");
    if (opt == '?')
        sim_error_set(err, SIM_ERR_USAGE, "unknown option or missing value: %s (see sim%s%s --help)",
                      argv[optind - 1], *command ? " " : "", command);
    return opt;
}

int cli_fail(const SimError *err)
{
    fprintf(stderr, "sim: %s\n", err->msg);
    return sim_status_exit_code(err->status);
}

/* A config named without a path is looked for where data files are (sim/io/datadir.h); a missing file is
 * left for the reader to report, with its own sentence. */
const char *cli_find_config(const char *name, char *buf, size_t len)
{
    SimError err = { 0 };
    return sim_data_find(name, buf, len, &err) == SIM_OK ? buf : name;
}

SimStatus cli_find_profile(const char *name, char *buf, size_t len, SimError *err)
{
    return sim_data_find_profile(name ? name : CLI_DEFAULT_PROFILE, buf, len, err);
}

SimStatus cli_find_kernel(const char *name, char *buf, size_t len, SimError *err)
{
    return sim_data_find_kernel(name, buf, len, err);
}

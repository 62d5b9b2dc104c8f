/* Helpers shared by the subcommands: strict number parsing, error printing, finding installed configs, where
 * a report goes. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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

FILE *cli_report_file(const char *const *outputs, int count)
{
    for (int i = 0; i < count; i++)
        if (outputs[i] && strcmp(outputs[i], "-") == 0)
            return stderr;
    return stdout;
}

const char *cli_plural(int64_t count)
{
    return count == 1 ? "" : "s";
}

int cli_fail(const SimError *err)
{
    fprintf(stderr, "sim: %s\n", err->msg);
    return sim_status_exit_code(err->status);
}

/* An installed dashsim keeps its configs in PREFIX/share/dashsim/configs, beside PREFIX/bin/dashsim;
 * found from the executable's own path, so a relocated install works too. */
const char *cli_find_config(const char *name, char *buf, size_t len)
{
    if (name[0] == '/' || access(name, F_OK) == 0)
        return name;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return name;
    exe[n] = '\0';
    gchar *bin_dir = g_path_get_dirname(exe), *prefix = g_path_get_dirname(bin_dir);
    snprintf(buf, len, "%s/share/dashsim/configs/%s", prefix, name);
    g_free(bin_dir), g_free(prefix);
    return access(buf, R_OK) == 0 ? buf : name;
}

const char *cli_default_profile(char *buf, size_t len)
{
    if (access("configs/" CLI_DEFAULT_PROFILE, R_OK) == 0)
        return "configs/" CLI_DEFAULT_PROFILE;
    return cli_find_config(CLI_DEFAULT_PROFILE, buf, len);
}

/* Helpers shared by the subcommands: strict number parsing and error printing. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

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

int cli_fail(const SimError *err)
{
    fprintf(stderr, "sim: %s\n", err->msg);
    return sim_status_exit_code(err->status);
}

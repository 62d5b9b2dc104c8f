/* Helpers shared by the subcommands: strict number parsing, error printing, finding installed configs, where
 * a report goes, progress on a terminal. */
#include <errno.h>
#include <inttypes.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "datadir.h"
#include "mask.h"

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

SimStatus cli_parse_max_memory_mb(const char *flag, const char *text, int64_t *mb, SimError *err)
{
    return cli_parse_int64(flag, text, 1, sim_job_physical_memory_mb(), mb, err);
}

SimStatus cli_check_read_memory(const char *path, int64_t bytes_per_byte, int64_t room_bytes, int64_t cap_mb,
                                SimError *err)
{
    struct stat st;
    if (strcmp(path, "-") == 0 || g_str_has_suffix(path, ".gz") || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return SIM_OK;
    double need = (double)st.st_size * bytes_per_byte;
    if (need <= (double)room_bytes)
        return SIM_OK;
    if (room_bytes < cap_mb << 20)
        return sim_error_set(err, SIM_ERR_LIMIT, "%s is %lld bytes, which would need about %.0f MB to read, over the "
                             "%.0f MB left of the cap of %" PRId64 " MB (--max-memory-mb)", path,
                             (long long)st.st_size, need / (1 << 20), MAX(room_bytes, 0) / (double)(1 << 20), cap_mb);
    return sim_error_set(err, SIM_ERR_LIMIT, "%s is %lld bytes, which would need about %.0f MB to read, over the cap "
                         "of %" PRId64 " MB (--max-memory-mb)", path, (long long)st.st_size, need / (1 << 20), cap_mb);
}

void cli_name_memory_cap(SimError *err, const char *path, int64_t bytes_per_byte, int64_t cap_mb)
{
    size_t n = strlen(err->msg);
    bool is_about = strcmp(path, "-") == 0 ? g_str_has_prefix(err->msg, "standard input") : g_str_has_prefix(err->msg, path);
    if (err->status != SIM_ERR_LIMIT || !is_about || strstr(err->msg, "--max-memory-mb"))
        return;
    if (strstr(err->msg, "over the cap of"))
        snprintf(err->msg + n, sizeof err->msg - n, " (--max-memory-mb %" PRId64 " MB, less the inputs already held)", cap_mb);
    else
        snprintf(err->msg + n, sizeof err->msg - n, ", the most that fits --max-memory-mb %" PRId64 " MB at %" PRId64
                 " bytes held a byte read", cap_mb, bytes_per_byte);
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

/* The delay before a first progress line: DASHSIM_PROGRESS_DELAY_MS when it is an integer from 0 to 3600000 (tests
 * set 0 to see a quick run's line), else one second. */
static int64_t progress_delay_us(void)
{
    const char *text = getenv("DASHSIM_PROGRESS_DELAY_MS");
    char *end;
    long long ms = text && *text ? strtoll(text, &end, 10) : -1;
    return ms >= 0 && ms <= 3600000 && !*end ? ms * 1000 : G_TIME_SPAN_SECOND;
}

void cli_progress_begin(CliProgress *p, const char *what, const char *unit)
{
    *p = (CliProgress){ .what = what, .unit = unit, .is_on = isatty(STDERR_FILENO) == 1,
                        .start_us = g_get_monotonic_time() };
    p->delay_us = p->is_on ? progress_delay_us() : 0;
}

/* A duration for people: "4.2 s", "3 min 05 s". */
static void format_seconds(double s, char *buf, size_t len)
{
    if (s < 60)
        snprintf(buf, len, "%.1f s", s);
    else
        snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
}

void cli_progress_update(CliProgress *p, int64_t done, int64_t total, const char *note)
{
    int64_t now = g_get_monotonic_time();
    if (!p->is_on || (p->is_shown && done < total && now - p->shown_us < 100 * G_TIME_SPAN_MILLISECOND) ||
        (!p->has_shown && now - p->start_us < p->delay_us)) /* a quick command shows none */
        return;
    double elapsed = (double)(now - p->start_us) / G_TIME_SPAN_SECOND;
    char spent[32], left[48] = "";
    format_seconds(elapsed, spent, sizeof spent);
    if (done > 0 && done < total) {
        char eta[32];
        format_seconds(elapsed * (double)(total - done) / (double)done, eta, sizeof eta);
        snprintf(left, sizeof left, ", about %s left", eta);
    }
    fprintf(stderr, "\r\033[Ksim %s: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " %s, %s elapsed%s%s%s", p->what, done,
            total, p->unit, spent, left, note ? ", " : "", note ? note : "");
    fflush(stderr);
    p->is_shown = p->has_shown = true, p->shown_us = now;
}

void cli_progress_clear(CliProgress *p)
{
    if (p->is_shown)
        fputs("\r\033[K", stderr);
    p->is_shown = false;
}

void cli_progress_end(CliProgress *p)
{
    cli_progress_clear(p);
    p->is_on = false;
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

/* A config named without a path is looked for where data files are (sim/io/datadir.h); a missing file is
 * left for the reader to report, with its own sentence. */
const char *cli_find_config(const char *name, char *buf, size_t len)
{
    SimError err = { 0 };
    return sim_data_find(name, buf, len, &err) == SIM_OK ? buf : name;
}

SimStatus cli_find_profile(const char *name, char *buf, size_t len, SimError *err)
{
    return sim_data_find_profile(name ? name : SIM_DATA_DEFAULT_PROFILE, buf, len, err);
}

SimStatus cli_find_kernel(const char *name, char *buf, size_t len, SimError *err)
{
    return sim_data_find_kernel(name, buf, len, err);
}

int cli_print_help(const char *text)
{
    const Workload block = policy_kind_workload(MASK_BLOCK);
    char policies[256];
    policy_names_for(&block, policies, sizeof policies);
    char *masks = sim_mask_syntax(" | ", false), *block_masks = sim_mask_syntax(" | ", true);
    const char *const from[] = { "@MASKS@", "@BLOCK_MASKS@", "@BLOCK_POLICIES@" }, *to[] = { masks, block_masks, policies };
    GString *s = g_string_new(text);
    for (size_t i = 0; i < G_N_ELEMENTS(from); i++)
        g_string_replace(s, from[i], to[i], 0);
    fputs(s->str, stdout);
    g_string_free(s, TRUE), g_free(masks), g_free(block_masks);
    return 0;
}

int cli_list_masks(void)
{
    const char *syntax, *keeps;
    for (int i = 0; sim_mask_kind_at(i, &syntax, &keeps); i++)
        printf("%-20s %s\n", syntax, keeps);
    return 0;
}

SimStatus cli_parse_int64_list(const char *flag, const char *text, int64_t lo, int64_t hi, int64_t *vals, int *count,
                               SimError *err)
{
    char **parts = g_strsplit(text, ",", -1);
    int n = (int)g_strv_length(parts);
    *count = 0;
    if (n > CLI_SHAPE_LIST_MAX)
        sim_error_set(err, SIM_ERR_USAGE, "%s takes at most %d comma-separated values, not %d", flag, CLI_SHAPE_LIST_MAX, n);
    for (int i = 0; i < n && !err->status; i++)
        if (cli_parse_int64(flag, parts[i], lo, hi, &vals[(*count)++], err) != SIM_OK)
            break;
    g_strfreev(parts);
    return err->status;
}

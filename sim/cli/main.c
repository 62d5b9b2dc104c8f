/* bin/sim: dispatches to a subcommand; with none, runs an attention schedule (`sim --policy shift`).
 * The conventions every subcommand shares are applied here, once: --version (and -V) prints the version,
 * -h means --help, and exit codes come from sim_status_exit_code through cli_fail. Every command's files
 * are one output set (sim/io/output.h), committed after its standard output was flushed without error:
 * a full disk or a closed stdout is exit 2 and leaves the files as they were. A signal (SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE) removes every temporary output file before the process dies of it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"
#include "output.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
} Subcommand;

static const Subcommand subcommands[] = {
    { "attention", sim_cmd_attention },
    { "validate", sim_cmd_validate },
    { "pipeline", sim_cmd_pipeline },
    { "run", sim_cmd_run },
    { "sweep", sim_cmd_sweep },
    { "decode", sim_cmd_decode },
    { "calibrate", sim_cmd_calibrate },
    { "search", sim_cmd_search },
    { "perfetto", sim_cmd_perfetto },
};

/* --version anywhere among the options (before a "--") wins; -h becomes --help. */
static int shared_options(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0)
            return printf("sim (dashsim) %s\n", SIM_VERSION), 0;
        if (strcmp(argv[i], "-h") == 0)
            argv[i] = "--help";
    }
    return -1;
}

/* A job allocates its per-task and per-op arrays phase after phase (plan, program, schedule, analysis)
 * and frees the temporaries between them. glibc maps each large block afresh and unmaps it on free, so
 * every phase faulted its pages in again (a third of the faults of a large run). Served from the heap
 * and kept there, the next phase reuses them; with one arena for all threads, so does the next sweep job
 * on the other thread (a job makes few, large allocations: the arena's lock is not contended). */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, INT32_MAX);
    mallopt(M_ARENA_MAX, 1);
#endif
}

/* Standard output checked, then the command's files committed (exit 0, 1: a check failed, 130: an
 * interrupted sweep with its finished rows) or dropped (an error, reported by the command already). */
static int finish(int mark, int rc)
{
    SimError err = { 0 };
    bool is_done = rc == 0 || rc == 1 || rc == 130;
    if (is_done && sim_output_end_stdout(&err) != SIM_OK) {
        sim_output_batch_end(mark, err.status, &err);
        return cli_fail(&err);
    }
    if (sim_output_batch_end(mark, is_done ? SIM_OK : SIM_ERR_IO, &err) != SIM_OK && is_done)
        return cli_fail(&err);
    return rc;
}

int main(int argc, char **argv)
{
    keep_freed_memory();
    sim_output_begin_process();
    sim_output_handle_signals();
    const Subcommand *cmd = NULL;
    for (size_t i = 0; argc > 1 && argv[1][0] != '-' && i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            cmd = &subcommands[i];
    int shift = cmd ? 1 : 0, rc = shared_options(argc - shift, argv + shift);
    if (rc >= 0)
        return finish(sim_output_batch_begin(), rc);
    int mark = sim_output_batch_begin();
    return finish(mark, cmd ? cmd->run(argc - 1, argv + 1) : sim_cmd_attention(argc, argv));
}

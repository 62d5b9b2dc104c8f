/* Command-line front ends. Each subcommand is one function taking its own argv (argv[0] = its name)
 * and returning the process exit code (0 ok, 1 a check failed, 2 bad usage or input). */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

#include "dashsim/version.h"
#include "job.h"

#define SIM_VERSION DASHSIM_VERSION

int sim_cmd_attention(int argc, char **argv);
#define CLI_SHAPE_LIST_MAX 16
/* The attention command's shape front end (--seqlen): options as parsed. */
typedef struct {
    bool is_on;                 /* --seqlen given */
    int64_t seqlen, head_dim, batch; /* 0: default (head_dim 128, batch 1) */
    int64_t seqlen_k;           /* --seqlen-k: keys per sequence; 0: seqlen */
    const char *token_mask;     /* --mask window:W, document:L1,..., prefix:P in tokens; NULL: full or causal */
    int64_t kv_heads;           /* --kv-heads (GQA: fewer KV heads than query heads); 0: as many as heads */
    const char *preset;         /* --hardware; NULL: h100-sxm */
    const char *profile_path;   /* --profile; NULL: the default profile */
    const char *kernel_path;    /* --kernel NAME|FILE; NULL: none (FA3's tiles, FLOPs compute) */
    bool is_paper;              /* --model paper */
    /* --seqlen, --heads, --batch with comma-separated lists (docs/shape.md): every combination is ranked
     * and printed as one table (one JSON array); count 0: the single value above (heads: the job's) */
    int64_t seqlens[CLI_SHAPE_LIST_MAX], heads[CLI_SHAPE_LIST_MAX], batches[CLI_SHAPE_LIST_MAX];
    int seqlen_count, heads_count, batch_count;
    const char *plot_path;      /* --plot F.png with a --seqlen list: speedups against seqlen; NULL: none */
} ShapeOptions;
/* Runs job->policy ("all": every policy for the mask) on the shape; job carries heads, mask, reduce (when
 * --reduce was given, job->costs.reduce is used as is) and the outputs (written for the named policy, or for the
 * winner). Prints the report; returns the exit code. */
int cli_shape_run(const ShapeOptions *so, const AttnJob *job, bool is_json);
int sim_cmd_validate(int argc, char **argv);
int sim_cmd_pipeline(int argc, char **argv);
int sim_cmd_run(int argc, char **argv);   /* sim run FILE: one JSON config */
int sim_cmd_sweep(int argc, char **argv); /* sim sweep FILE: its sweep */
int sim_cmd_decode(int argc, char **argv);
int sim_cmd_calibrate(int argc, char **argv); /* sim calibrate RAW: a hardware profile from gpu-calib output */
int sim_cmd_search(int argc, char **argv);    /* sim search --mask SPEC: a schedule for any block mask */
int sim_cmd_perfetto(int argc, char **argv);  /* sim perfetto TRACE: measured and model side by side */

/* Strict decimal parse of a flag's value into [lo, hi]; a sentence naming the flag otherwise. */
SimStatus cli_parse_int64(const char *flag, const char *text, int64_t lo, int64_t hi, int64_t *out,
                          SimError *err);
/* --max-memory-mb MB, the one memory cap of every command that allocates by its input's size: the default,
 * and its parse (1 to this machine's memory, sim_job_physical_memory_mb; a larger cap would mean nothing). */
#define CLI_MAX_MEMORY_MB_DEFAULT 4096
/* A comma-separated list of up to CLI_SHAPE_LIST_MAX values, each as cli_parse_int64, into vals (*count set;
 * one value: count 1). A sentence naming the flag otherwise. */
SimStatus cli_parse_int64_list(const char *flag, const char *text, int64_t lo, int64_t hi, int64_t *vals, int *count,
                               SimError *err);
SimStatus cli_parse_max_memory_mb(const char *flag, const char *text, int64_t *mb, SimError *err);
/* Before a file is read whole into memory: SIM_ERR_LIMIT if path, a regular file, holds more bytes than
 * fit room_bytes at bytes_per_byte held per byte read, in one sentence with the estimate and cap_mb
 * (--max-memory-mb; room_bytes may be what is left of it). Standard input and .gz files are left to the
 * reader's own cap, checked while reading. O(1). */
SimStatus cli_check_read_memory(const char *path, int64_t bytes_per_byte, int64_t room_bytes, int64_t cap_mb,
                                SimError *err);
/* After a reader refused path (SIM_ERR_LIMIT, a sentence about path) under a byte cap derived from
 * --max-memory-mb cap_mb at bytes_per_byte held per byte read: names the option in the sentence, unless it
 * does already. Any other error is left as it is. */
void cli_name_memory_cap(SimError *err, const char *path, int64_t bytes_per_byte, int64_t cap_mb);
/* getopt_long with the house conventions. Call cli_begin_options once, then cli_next_option until it
 * returns -1: it names the option in flag ("--name"), and reports an unknown option or a missing value
 * in err (returning '?'), mentioning `sim COMMAND --help` (command may be "" for the bare `sim`). */
void cli_begin_options(void);
int cli_next_option(int argc, char **argv, const struct option *options, const char *command, char *flag,
                    size_t flag_len, SimError *err);
/* A config (or profiles/NAME) given by a relative name that is not there from the current directory: the
 * installed copy in PREFIX/share/dashsim/configs (PREFIX = the executable's ../), written into buf, when it
 * exists; otherwise name. */
const char *cli_find_config(const char *name, char *buf, size_t len);
/* Where a command's report (its summary or --json object) goes: standard output, unless one of the count
 * outputs (NULL entries skipped) was written there ("-"): then standard error, so that a pipe gets the data
 * alone (`sim --emit-plan - | sim --plan -`). */
FILE *cli_report_file(const char *const *outputs, int count);
/* Progress of a long command on standard error, shown only when that is a terminal (nothing when piped or
 * redirected) and only once the command has run a second (DASHSIM_PROGRESS_DELAY_MS sets that delay, in ms,
 * 0 to 3600000): one line, redrawn in place at most every 100 ms, "sim sweep: 12 of 84 jobs, 3.1 s elapsed,
 * about 19 s left[, note]". Every long command (shape ranking, sweep, search, validate) shows it so. Call cli_progress_clear before printing anything else to the terminal (the next
 * update redraws it) and cli_progress_end when done (it erases the line). */
typedef struct {
    const char *what, *unit;    /* "sweep", "jobs" */
    bool is_on;                 /* standard error is a terminal */
    bool is_shown;              /* a progress line is on the terminal now */
    bool has_shown;             /* one was drawn since begin (the delay has passed) */
    int64_t start_us, shown_us; /* monotonic clock: at begin, at the last redraw */
    int64_t delay_us;           /* no line before start_us + delay_us */
} CliProgress;
void cli_progress_begin(CliProgress *p, const char *what, const char *unit);
/* done of total units; note (may be NULL) is appended, e.g. "best 120000 ns". */
void cli_progress_update(CliProgress *p, int64_t done, int64_t total, const char *note);
void cli_progress_clear(CliProgress *p);
void cli_progress_end(CliProgress *p);
/* "s" unless count is 1: "1 head", "2 heads". */
const char *cli_plural(int64_t count);
/* Prints a --help text to stdout with its lists from their one source: @MASKS@ every mask kind's syntax,
 * @BLOCK_MASKS@ the block masks' (sim_mask_syntax, " | "), @BLOCK_POLICIES@ the registered policies for a
 * block mask (policy_names_for). Returns 0, the exit code of --help. */
int cli_print_help(const char *text);
/* --list-masks: each mask kind's syntax and the pairs it keeps, one a line. Returns 0. */
int cli_list_masks(void);
/* Prints "sim: <sentence>" on stderr and returns the exit code for err. */
int cli_fail(const SimError *err);
/* A hardware profile (name: "h100-sxm", or a file; NULL: the default) or a kernel profile ("gpu-bwd", or a
 * file), found from any directory (sim/io/datadir.h) into buf. SIM_ERR_IO naming every place looked. */
SimStatus cli_find_profile(const char *name, char *buf, size_t len, SimError *err);
SimStatus cli_find_kernel(const char *name, char *buf, size_t len, SimError *err);
/* For the hardware preset asked for (its own profile when one is installed): sim_data_find_profile_for and
 * sim_data_find_kernel_for (sim/io/datadir.h), which configs use too. */

#endif

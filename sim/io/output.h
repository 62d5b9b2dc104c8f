/* Output files are written to a temporary file beside the target and renamed into place, so a failed
 * or interrupted run never leaves a partial file under the requested name. A path that names something
 * other than a regular file (a device such as /dev/null, a FIFO) is written in place and never replaced;
 * a symbolic link is followed (the file it points to is replaced, the link kept); a directory is refused.
 * Inside a batch, commits are deferred and the whole batch is renamed into place at its end: all or none.
 * Temporary files are removed on SIGINT, SIGTERM and SIGPIPE once sim_output_handle_signals ran. */
#ifndef SIM_OUTPUT_H
#define SIM_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "status.h"

typedef struct {
    FILE *f;          /* write here */
    char *path;       /* final name, as given */
    char *tmp_path;   /* where it is written until committed (equal to path when written in place) */
    char *target;     /* the file the rename replaces: path, or the file its symbolic link points to */
    bool is_in_place; /* path is not a regular file (a device, a FIFO): written directly, never renamed */
    int live_slot;    /* index + 1 of tmp_path in the signal handler's table; 0 none (a zeroed output) */
} SimOutput;

/* Opens path's temporary file (created exclusively, never through an existing link); path "-" writes
 * standard output in place (stdout is flushed first and stays open). SIM_ERR_IO with a
 * sentence naming path if path is a directory, a dangling link, or the file cannot be created. */
SimStatus sim_output_open(SimOutput *out, const char *path, SimError *err);
/* Closes and renames into place (inside a batch: at the batch's end); on a write error removes the
 * temporary file and reports it. */
SimStatus sim_output_commit(SimOutput *out, SimError *err);
/* Closes and removes the temporary file (after an error elsewhere). Safe on a never-opened output. */
void sim_output_abort(SimOutput *out);

/* Batches nest; begin returns a mark for the matching end. end with status SIM_OK keeps the batch's
 * committed outputs pending for the enclosing batch or, outermost, renames them all into place; if one
 * rename fails, those already renamed are taken back (a replaced file is restored from a hard link made
 * before) and SIM_ERR_IO is reported. end with an error status removes the batch's pending outputs and
 * returns status unchanged. Batches belong to the calling thread (outputs committed by another thread
 * are not part of it). */
int sim_output_batch_begin(void);
SimStatus sim_output_batch_end(int mark, SimStatus status, SimError *err);

/* Installs handlers for SIGINT, SIGTERM, SIGPIPE (and SIGABRT) that remove every temporary file of this process and
 * then die of the same signal (exit 130, 143, 141 in a shell). A handler installed later by the caller
 * (a sweep's graceful SIGINT) takes precedence while installed. */
void sim_output_handle_signals(void);

/* The file beside a figure that gnuplot keeps: path with its 4-character extension (".png", ".svg")
 * replaced by ext (".gp", ".dat"); NULL when path is NULL. g_free it. */
char *sim_output_sibling(const char *path, const char *ext);

/* A file a command reads or writes, for sim_output_check_paths. */
typedef struct {
    const char *what;  /* how the user named it, e.g. "--csv" (an output) or "the config" (an input) */
    const char *path;  /* NULL: not given, skipped */
} SimPathRole;

/* Refuses (SIM_ERR_USAGE, one sentence naming both) an output that is the same file as an input or as
 * another output (two outputs "-", standard output, included): by device and inode where the file exists, else by canonical path. Files that are not
 * regular (devices, FIFOs) are not compared. O(n^2) in the number of paths. */
SimStatus sim_output_check_paths(const SimPathRole *inputs, int input_count, const SimPathRole *outputs,
                                 int output_count, SimError *err);

#endif

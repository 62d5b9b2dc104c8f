/* The one output layer: every file a command writes, and its standard output, go through here.
 * Output files are written to a temporary file beside the target and renamed into place, so a failed or
 * interrupted run never leaves a partial file under the requested name. A path that names something other
 * than a regular file (a device such as /dev/null, a FIFO) is written in place and never replaced; a
 * symbolic link is followed (the file it points to is replaced, the link kept); a directory is refused.
 * No output may replace a file this process read (sim/io/input.h remembers them), nor, inside a batch,
 * another output of the batch. A replaced file keeps its permissions; one with other hard links is
 * replaced by a new file, and a note on standard error says so. Every write is checked: the first error
 * is reported with its errno. Inside a batch, commits are deferred and the whole batch is renamed into
 * place at its end: all or none, signals held off while it is. Temporary files are removed on SIGINT,
 * SIGTERM, SIGHUP and SIGPIPE once sim_output_handle_signals ran. */
#ifndef SIM_OUTPUT_H
#define SIM_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "status.h"

typedef struct SimOutputSink SimOutputSink;

typedef struct {
    FILE *f;          /* write here */
    char *path;       /* final name, as given */
    char *tmp_path;   /* where it is written until committed (equal to path when written in place) */
    char *target;     /* the file the rename replaces: path, or the file its symbolic link points to */
    bool is_in_place; /* path is not a regular file (a device, a FIFO): written directly, never renamed */
    int live_slot;    /* index + 1 of tmp_path in the signal handler's table; 0 none (a zeroed output) */
    SimOutputSink *sink; /* f's end: its first write error; owned */
} SimOutput;

/* Opens path's temporary file (created exclusively, never through an existing link); path "-" writes
 * standard output in place (stdout is flushed first and stays open). SIM_ERR_IO with a sentence naming
 * path if path is a directory, a dangling link, or the file cannot be created; SIM_ERR_USAGE if it is a
 * file this process read, or (in a batch) another output of the batch. */
SimStatus sim_output_open(SimOutput *out, const char *path, SimError *err);
/* Reserves about bytes of disk for a large output before it is written (fallocate, keeping the size): the
 * file system then skips allocating block by block (ext4: about a quarter of the kernel's time writing a
 * 200 MB trace). What is not written is freed at the close; nothing for an output written in place, or where
 * the file system cannot (the output is written as before). */
void sim_output_reserve(SimOutput *out, int64_t bytes);
/* A writer (format.h) to out's file, after what out->f holds: its blocks go straight to the file, each in one
 * write(2) where the system takes it whole. Through the stream a block of 1 MB went out as 8 KB (the stream's
 * buffer, filled first) and the rest, at offsets on no page boundary, which cost the kernel about a sixth
 * more. Nothing may go through out->f until sim_writer_done; a failed write is kept as the stream's
 * (sim_output_commit reports it). */
void sim_output_writer_init(SimWriter *w, SimOutput *out);
/* Writes what out->f holds; returns the bytes written to out's file so far. */
int64_t sim_output_tell(SimOutput *out);
/* Closes and renames into place (inside a batch: at the batch's end); on a write error (its errno in the
 * sentence) removes the temporary file and reports it. */
SimStatus sim_output_commit(SimOutput *out, SimError *err);
/* Closes and removes the temporary file (after an error elsewhere). Safe on a never-opened output. */
void sim_output_abort(SimOutput *out);

/* Batches nest; begin returns a mark for the matching end. end with status SIM_OK keeps the batch's
 * committed outputs pending for the enclosing batch or, outermost, renames them all into place, each
 * replaced file kept as a backup (a hard link, or the file itself moved aside) until all are in place;
 * if one rename fails, those already renamed are taken back from their backups and SIM_ERR_IO is
 * reported. A signal arriving meanwhile waits until the set is in place or taken back. end with an error
 * status removes the batch's pending outputs and returns status unchanged. Batches belong to the calling
 * thread (outputs committed by another thread are not part of it). */
int sim_output_batch_begin(void);
SimStatus sim_output_batch_end(int mark, SimStatus status, SimError *err);

/* Installs handlers for SIGINT, SIGTERM, SIGHUP, SIGPIPE (and SIGABRT) that remove every temporary file
 * of this process and then die of the same signal (exit 130, 143, 129, 141 in a shell). A handler
 * installed later by the caller (a sweep's graceful SIGINT) takes precedence while installed. */
void sim_output_handle_signals(void);

/* For a program's start (bin/sim's main): a closed standard descriptor (0, 1, 2) gets a read-only
 * /dev/null in its place, so that no file opened later takes its number and writing there fails; on
 * glibc, stdout becomes a checked stream (its first write error kept, writes to a file this process
 * read refused). */
void sim_output_begin_process(void);
/* Flushes stdout: SIM_ERR_IO "cannot write standard output: <errno's sentence>" if any write to it
 * failed (a full disk, a closed descriptor), SIM_ERR_USAGE if it is a file this process read. Called
 * before the command's outputs are committed, so that they are not committed when it fails. */
SimStatus sim_output_end_stdout(SimError *err);

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

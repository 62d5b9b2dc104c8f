/* The one bounded reader every parser reads its file through (configs, plans, traces, masks, profiles,
 * raw calibration, latency matrices, merged sweep slices): regular files only (a FIFO would block, a
 * device never end), a cap on the bytes read and on a .gz file's decompressed bytes, chunks or lines of
 * bounded length. Every file opened is remembered, so the output layer can refuse to replace an input.
 * Plain C and zlib, no GLib: gpu/ links it with the plan reader. */
#ifndef SIM_INPUT_H
#define SIM_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "status.h"

typedef struct SimInput SimInput;

typedef struct {
    int64_t max_bytes;        /* bytes of the file (or of standard input) read, at most; checked before reading */
    int64_t max_decompressed; /* bytes a .gz file decompresses to, at most; 0: max_bytes */
    int64_t max_line;         /* longest line sim_input_line returns, newline excluded; 0: 1 MiB */
    bool is_hashed;           /* keep the FNV-1a 64 of the (decompressed) bytes read: sim_input_fnv1a64 */
} SimInputLimits;

/* Opens path ("-": standard input, read to its end; a name ending in .gz: gzip, decompressed while read,
 * several members allowed). SIM_ERR_IO with a sentence (missing, unreadable, a directory, not a regular
 * file) or SIM_ERR_LIMIT (a regular file over max_bytes, refused unread). *out: sim_input_close. */
SimStatus sim_input_open(const char *path, const SimInputLimits *limits, SimInput **out, SimError *err);
/* Up to cap bytes into buf; *got 0 at the end. SIM_ERR_IO (read error), SIM_ERR_LIMIT (over a cap while
 * read: standard input, a file that grew, a .gz bomb), SIM_ERR_INPUT (a corrupt or truncated .gz, data
 * after its last member). An error is sticky: later calls return it again. */
SimStatus sim_input_read(SimInput *in, char *buf, size_t cap, size_t *got, SimError *err);
/* The next line without its newline (nor a '\r' before it), NUL-terminated, valid until the next call;
 * *line NULL at the end. SIM_ERR_INPUT "path:N: ..." for a NUL byte in the text, SIM_ERR_LIMIT for a
 * line over max_line. O(line) memory whatever the file's size. */
SimStatus sim_input_line(SimInput *in, char **line, size_t *len, SimError *err);
/* Whether the line sim_input_line returned last ended at the end of the input without a newline. */
bool sim_input_line_was_cut(const SimInput *in);
/* 1-based number of the line sim_input_line returned last (0 before the first). */
int64_t sim_input_line_number(const SimInput *in);
const char *sim_input_path(const SimInput *in);
/* FNV-1a 64 of every byte read so far (limits.is_hashed; else the offset basis). */
uint64_t sim_input_fnv1a64(const SimInput *in);
/* Closes (standard input stays open) and frees; NULL is a no-op. */
void sim_input_close(SimInput *in);

/* The whole of path, NUL-terminated (a NUL inside is left for the parser to refuse), *len bytes without
 * that NUL; *text is free()d by the caller. Errors as sim_input_open and sim_input_read. */
SimStatus sim_input_read_all(const char *path, const SimInputLimits *limits, char **text, size_t *len,
                             SimError *err);

/* Whether this process opened the file (device, inode) as an input; its name as given into path_out.
 * For the output layer (sim/io/output.h). Thread-safe. */
bool sim_input_was_read(dev_t dev, ino_t ino, char *path_out, size_t len);
/* The overwrite rule is per call: a library entry point brackets its work with these, and once no call is
 * in progress the list of inputs read is emptied (a later, unrelated call may write a file an earlier one
 * read; while calls overlap, none may write what any of them read). The CLI never calls them: one
 * process, one command. Thread-safe. */
void sim_input_call_begin(void);
void sim_input_call_end(void);

#endif

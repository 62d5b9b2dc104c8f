/* Atomic output files: write to "<target>.tmp.<pid>" (created O_EXCL) through a stream that keeps its
 * first write error, rename on success, unlink on failure; deferred renames in batches, committed as a
 * set with a backup of every replaced file until the whole set is in place; a signal handler that
 * unlinks every live temporary file, and waits while a set is being renamed. Invariants: every temporary
 * file this process created and has not yet renamed or removed has its name in live[], so a signal never
 * leaves one behind; a signal never interrupts a set's renames (it is raised again once they are done or
 * undone), so a set is all old or all new; no output replaces a file this process read. */
#define _GNU_SOURCE /* fopencookie: a stream whose writes report their own errno */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"

#define MAX_LIVE 256          /* temporary files and backups alive at once; a command has fewer than 20 */
#define IS_AN_INPUT (-1)      /* Sink.error: standard output is a file this process read */

typedef struct {
    char *tmp_path, *target, *path, *backup; /* backup: the replaced file, kept until the set is in place */
    int live_slot, backup_slot;              /* of tmp_path and backup: index + 1 in live[]; 0 none */
    bool is_backup_linked;                   /* backup is a hard link (else the target was renamed to it) */
} Pending;

/* The end of an output stream: a file descriptor and the first error a write or the close met. */
struct SimOutputSink {
    int fd;
    int error;           /* errno of the first failure, IS_AN_INPUT, or 0 */
    bool is_checked;     /* standard output: compared with the inputs before the first write */
    bool is_reserved;    /* blocks were reserved past what is written: cut back to it at the close */
    int64_t written;     /* bytes written to fd through the sink */
};

static GMutex lock;                       /* guards the writers of live[] and the set's targets */
static char *volatile live[MAX_LIVE];     /* read by the signal handler: names to unlink */
static volatile sig_atomic_t is_committing, deferred_signal;
/* A batch belongs to its thread (sweep workers run jobs, each with its own batch). */
static _Thread_local GPtrArray *pending;  /* Pending *, committed inside a batch, in commit order */
static _Thread_local GPtrArray *opened;   /* char *: canonical targets opened in the outermost batch */
static _Thread_local int batch_depth;

/* ---- signals ---- */

static int live_add(char *name)
{
    g_mutex_lock(&lock);
    int slot = 0;
    for (int i = 0; i < MAX_LIVE && !slot; i++)
        if (!live[i])
            live[i] = name, slot = i + 1;
    g_mutex_unlock(&lock);
    return slot;
}

static void live_remove(int slot)
{
    if (slot > 0)
        live[slot - 1] = NULL;
}

static void on_signal(int sig)
{
    if (is_committing) { /* a set is being renamed: finished (or undone) first, then raised again */
        deferred_signal = sig;
        return;
    }
    for (int i = 0; i < MAX_LIVE; i++) {
        char *name = live[i];
        if (name)
            unlink(name);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void sim_output_handle_signals(void)
{
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL); /* a failed assertion leaves no temporary file either */
}

/* ---- checked streams ---- */

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    SimOutputSink *s = cookie;
    struct stat st;
    if (!s->is_checked && (s->is_checked = true) && fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode) &&
        sim_input_was_read(st.st_dev, st.st_ino, NULL, 0))
        s->error = IS_AN_INPUT;
    size_t done = 0;
    while (!s->error && done < n) {
        ssize_t k = write(s->fd, buf + done, n - done);
        if (k < 0 && errno != EINTR)
            s->error = errno;
        else if (k > 0)
            done += (size_t)k;
    }
    s->written += (int64_t)done;
    return (ssize_t)done; /* short: the stream's error flag is set */
}

/* Closes the descriptor (not 0..2); the sink itself outlives the stream, for its error (its owner frees it). */
static int sink_close(void *cookie)
{
    SimOutputSink *s = cookie;
    off_t end = s->is_reserved ? lseek(s->fd, 0, SEEK_CUR) : -1;
    if (end >= 0 && ftruncate(s->fd, end) != 0 && !s->error) /* frees the reserved blocks past the end */
        s->error = errno;
    int rc = s->fd > STDERR_FILENO ? close(s->fd) : 0;
    if (rc != 0 && !s->error)
        s->error = errno;
    return rc;
}

/* A stream on fd (owned, unless 0..2) keeping its first write error in *sink (g_free it after fclose). */
static FILE *sink_open(int fd, bool is_checked, SimOutputSink **sink)
{
    SimOutputSink *s = g_new0(SimOutputSink, 1);
    *s = (SimOutputSink){ .fd = fd, .is_checked = is_checked };
    FILE *f = fopencookie(s, "w", (cookie_io_functions_t){ .write = sink_write, .close = sink_close });
    if (!f)
        abort();
    *sink = s;
    return f;
}

/* The sentence for a stream's failure: its first write error, else e. */
static const char *why_failed(const SimOutputSink *s, int e)
{
    int code = s && s->error ? s->error : e ? e : EIO;
    return code == IS_AN_INPUT ? "it is a file this command reads (refusing to overwrite an input)" : strerror(code);
}

/* ---- where an output goes ---- */

/* What the rename must replace: path, or the file a symbolic link at path points to. NULL and a sentence
 * for a directory or a dangling link. *is_in_place: path exists and is not a regular file. */
static char *resolve_target(const char *path, bool *is_in_place, SimError *err)
{
    struct stat st;
    *is_in_place = false;
    if (lstat(path, &st) != 0)
        return g_strdup(path);
    char *target = NULL;
    if (S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real || stat(real, &st) != 0) {
            free(real);
            sim_error_set(err, SIM_ERR_IO, "cannot write %s: it is a symbolic link to a missing file", path);
            return NULL;
        }
        target = g_strdup(real);
        free(real);
    }
    if (S_ISDIR(st.st_mode)) {
        g_free(target);
        sim_error_set(err, SIM_ERR_IO, "cannot write %s: it is a directory", path);
        return NULL;
    }
    *is_in_place = !S_ISREG(st.st_mode);
    return target ? target : g_strdup(path);
}

/* Absolute, with the directory's links resolved (the file itself need not exist). */
static char *canonical(const char *path)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path), *real = realpath(dir, NULL);
    char *name = real ? g_build_filename(real, base, NULL) : g_canonicalize_filename(path, NULL);
    free(real), g_free(dir), g_free(base);
    return name;
}

/* SIM_ERR_USAGE if target is a file this process read (a config, a plan, a trace, a mask, a profile, a
 * raw calibration or latency matrix file, or one they name): by device and inode, so a link is caught. */
static SimStatus check_not_input(const char *path, const char *target, SimError *err)
{
    struct stat st;
    char input[PATH_MAX];
    if (stat(target, &st) == 0 && S_ISREG(st.st_mode) && sim_input_was_read(st.st_dev, st.st_ino, input, sizeof input))
        return sim_error_set(err, SIM_ERR_USAGE, "cannot write %s: it is the same file as the input %s (refusing to "
                             "overwrite an input)", path, input);
    return SIM_OK;
}

/* Inside a batch, no two outputs of the set may have one target (a sidecar, a plot's .gp and .dat, a
 * --out directory's files and -o): the second is refused before anything is written. */
static SimStatus claim_target(const char *path, const char *target, SimError *err)
{
    if (batch_depth == 0)
        return SIM_OK;
    char *name = canonical(target);
    for (guint i = 0; i < opened->len; i++)
        if (strcmp(g_ptr_array_index(opened, i), name) == 0) {
            g_free(name);
            return sim_error_set(err, SIM_ERR_USAGE, "cannot write %s: another output of this command is written "
                                 "there (give each output its own path)", path);
        }
    g_ptr_array_add(opened, name);
    return SIM_OK;
}

/* A FIFO is opened without blocking (nobody reading: an error, not a hang), then made blocking. */
static int open_in_place(const char *path)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* The temporary file beside target, created exclusively: a name that exists (a link planted there, a
 * leftover) is never opened; the next suffix is tried. It takes the replaced file's permissions (and,
 * for root, its owner). */
static int open_temporary(SimOutput *out)
{
    struct stat old;
    bool has_old = stat(out->target, &old) == 0;
    for (int k = 0; k < 100; k++) {
        char *name = k ? g_strdup_printf("%s.tmp.%d.%d", out->target, (int)getpid(), k)
                       : g_strdup_printf("%s.tmp.%d", out->target, (int)getpid());
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
        if (fd >= 0) {
            out->tmp_path = name;
            out->live_slot = live_add(name);
            if (has_old) {
                if (fchown(fd, old.st_uid, old.st_gid) != 0) /* only root may give a file away: keep ours */
                    (void)0;
                fchmod(fd, old.st_mode & 07777);
            }
            return fd;
        }
        g_free(name);
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

static void free_output(SimOutput *out)
{
    g_free(out->path), g_free(out->tmp_path), g_free(out->target), g_free(out->sink);
    *out = (SimOutput){ 0 };
}

/* "-": standard output, written in place through a duplicate of fd 1 (closing it leaves stdout open). */
static SimStatus open_stdout(SimOutput *out, SimError *err)
{
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    if (fd < 0) {
        sim_output_abort(out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write standard output: %s", strerror(errno));
    }
    out->f = sink_open(fd, false, &out->sink);
    out->is_in_place = true;
    out->tmp_path = g_strdup("-");
    out->target = g_strdup("-");
    return SIM_OK;
}

SimStatus sim_output_open(SimOutput *out, const char *path, SimError *err)
{
    *out = (SimOutput){ .path = g_strdup(path) };
    if (!path[0]) {
        sim_output_abort(out);
        return sim_error_set(err, SIM_ERR_USAGE, "an output path is empty");
    }
    if (strcmp(path, "-") == 0)
        return open_stdout(out, err);
    bool is_in_place;
    out->target = resolve_target(path, &is_in_place, err);
    if (!out->target || (!is_in_place && (check_not_input(path, out->target, err) ||
                                          claim_target(path, out->target, err)))) {
        sim_output_abort(out);
        return err->status;
    }
    out->is_in_place = is_in_place;
    if (is_in_place)
        out->tmp_path = g_strdup(path);
    int fd = is_in_place ? open_in_place(path) : open_temporary(out);
    if (fd < 0 || (!is_in_place && !out->live_slot)) {
        int e = fd >= 0 ? EMFILE : errno;
        if (fd >= 0)
            close(fd);
        sim_output_abort(out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", path,
                             e == ENXIO ? "no process is reading the FIFO" : strerror(e));
    }
    out->f = sink_open(fd, true, &out->sink);
    return SIM_OK;
}

/* Flushes and closes the stream; SIM_ERR_IO with the first write's (or the close's) error. */
static SimStatus close_stream(SimOutput *out, SimError *err)
{
    errno = 0;
    bool ok = fflush(out->f) == 0 && !ferror(out->f);
    int e = errno;
    ok = fclose(out->f) == 0 && ok;
    out->f = NULL;
    if (ok && !out->sink->error)
        return SIM_OK;
    return sim_error_set(err, out->sink->error == IS_AN_INPUT ? SIM_ERR_USAGE : SIM_ERR_IO, "cannot write %s: %s",
                         strcmp(out->path, "-") ? out->path : "standard output", why_failed(out->sink, e));
}

/* The rename of one output into place, or (a regular file already there) its replacement with a backup
 * kept: a hard link, or the old file renamed aside where links are not possible. A replaced file with
 * other names (hard links) loses them: said on standard error. */
static SimStatus put_in_place(Pending *p, SimError *err)
{
    struct stat st;
    if (check_not_input(p->path, p->target, err) != SIM_OK)
        return err->status;
    if (lstat(p->target, &st) == 0 && S_ISREG(st.st_mode)) {
        if (st.st_nlink > 1)
            fprintf(stderr, "sim: note: %s had %ju names (hard links); it is replaced by a new file, and its other "
                    "names keep the old content\n", p->path, (uintmax_t)st.st_nlink);
        p->backup = g_strdup_printf("%s.bak.%d", p->target, (int)getpid());
        p->backup_slot = live_add(p->backup); /* a signal between link and unlink must not leave it */
        p->is_backup_linked = link(p->target, p->backup) == 0;
        if (!p->is_backup_linked && rename(p->target, p->backup) != 0) {
            live_remove(p->backup_slot), p->backup_slot = 0;
            g_free(p->backup), p->backup = NULL;
            return sim_error_set(err, SIM_ERR_IO, "cannot write %s: cannot keep its old content aside: %s", p->path,
                                 strerror(errno));
        }
    }
    if (rename(p->tmp_path, p->target) != 0) {
        int e = errno;
        if (p->backup && !p->is_backup_linked) /* the old file was moved aside: back it goes */
            rename(p->backup, p->target), g_free(p->backup), p->backup = NULL;
        return sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", p->path, strerror(e));
    }
    live_remove(p->live_slot), p->live_slot = 0;
    return SIM_OK;
}

static void pending_free(Pending *p)
{
    live_remove(p->live_slot), live_remove(p->backup_slot);
    g_free(p->tmp_path), g_free(p->target), g_free(p->path), g_free(p->backup);
    g_free(p);
}

/* Renames pending[mark..] into place in order, signals held off meanwhile; on a failure puts back those
 * done (the old file from its backup, or none where there was none) and removes the rest's temporary
 * files. The backups are removed only once the whole set is in place (or undone). */
static SimStatus rename_all(int mark, SimError *err)
{
    is_committing = 1;
    guint done = (guint)mark;
    for (; done < pending->len && !err->status; done++)
        if (put_in_place(g_ptr_array_index(pending, done), err) != SIM_OK)
            break;
    for (guint i = (guint)mark; i < pending->len; i++) {
        Pending *p = g_ptr_array_index(pending, i);
        if (i >= done)
            unlink(p->tmp_path);
        if (i < done && err->status && p->backup)
            rename(p->backup, p->target);
        else if (i < done && err->status)
            unlink(p->target);
        else if (p->backup)
            unlink(p->backup);
    }
    is_committing = 0;
    if (deferred_signal)
        raise(deferred_signal); /* the handler now removes what is left and the process dies of it */
    return err->status;
}

void sim_output_reserve(SimOutput *out, int64_t bytes)
{
    if (out->is_in_place || bytes <= 0)
        return;
    out->sink->is_reserved = fallocate(out->sink->fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) == 0;
}

int64_t sim_output_tell(SimOutput *out)
{
    fflush(out->f); /* a failure is the stream's error, reported at the commit */
    return out->sink->written;
}

/* A writer's sink: the block straight to the descriptor (the stream holds nothing then). */
static bool sink_block(void *ctx, const char *bytes, size_t n)
{
    return sink_write(ctx, bytes, n) == (ssize_t)n;
}

void sim_output_writer_init(SimWriter *w, SimOutput *out)
{
    sim_writer_init_sink(w, sink_block, out->sink, sim_output_tell(out));
}

SimStatus sim_output_commit(SimOutput *out, SimError *err)
{
    if (close_stream(out, err) != SIM_OK) {
        sim_output_abort(out);
        return err->status;
    }
    if (out->is_in_place) {
        free_output(out);
        return SIM_OK;
    }
    Pending *p = g_new(Pending, 1);
    *p = (Pending){ out->tmp_path, out->target, out->path, NULL, out->live_slot, 0, false };
    g_free(out->sink);
    *out = (SimOutput){ 0 };
    if (batch_depth > 0) {
        g_ptr_array_add(pending, p);
        return SIM_OK;
    }
    int mark = sim_output_batch_begin(); /* one output alone is a set of one */
    g_ptr_array_add(pending, p);
    return sim_output_batch_end(mark, SIM_OK, err);
}

void sim_output_abort(SimOutput *out)
{
    if (out->f)
        fclose(out->f);
    if (out->tmp_path && !out->is_in_place)
        unlink(out->tmp_path);
    live_remove(out->live_slot);
    free_output(out);
}

/* ---- batches ---- */

int sim_output_batch_begin(void)
{
    if (!pending)
        pending = g_ptr_array_new(), opened = g_ptr_array_new_with_free_func(g_free);
    batch_depth++;
    return (int)pending->len;
}

SimStatus sim_output_batch_end(int mark, SimStatus status, SimError *err)
{
    g_assert(batch_depth > 0 && mark >= 0 && (guint)mark <= pending->len);
    batch_depth--;
    if (status != SIM_OK)
        for (guint i = (guint)mark; i < pending->len; i++)
            unlink(((Pending *)g_ptr_array_index(pending, i))->tmp_path);
    else if (batch_depth == 0)
        status = rename_all(mark, err);
    if (status != SIM_OK || batch_depth == 0) {
        for (guint i = (guint)mark; i < pending->len; i++)
            pending_free(g_ptr_array_index(pending, i));
        g_ptr_array_set_size(pending, (guint)mark);
    }
    if (batch_depth == 0) {
        g_ptr_array_free(pending, TRUE), g_ptr_array_free(opened, TRUE);
        pending = opened = NULL;
    }
    return status;
}

/* ---- standard output ---- */

static SimOutputSink stdout_sink = { .fd = STDOUT_FILENO };

void sim_output_begin_process(void)
{
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) /* closed (>&-): a read-only /dev/null in its */
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)     /* place, so that no output file lands on it and */
            open("/dev/null", O_RDONLY);                 /* writing there fails, as it must */
#ifdef __GLIBC__
    /* stdout through a checked stream (its variable is assignable in glibc): the first write error is
     * kept with its errno, and a write to a file this process read is refused */
    FILE *f = fopencookie(&stdout_sink, "w", (cookie_io_functions_t){ .write = sink_write });
    if (f) {
        fflush(stdout);
        setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
        stdout = f;
    }
#endif
}

SimStatus sim_output_end_stdout(SimError *err)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout) && !stdout_sink.error)
        return SIM_OK;
    int e = errno;
    clearerr(stdout);
    return sim_error_set(err, stdout_sink.error == IS_AN_INPUT ? SIM_ERR_USAGE : SIM_ERR_IO,
                         "cannot write standard output: %s", why_failed(&stdout_sink, e));
}

/* ---- distinct paths ---- */

typedef struct {
    bool is_skipped;  /* not given, or not a regular file (a device may be named twice) */
    bool exists;
    dev_t dev;
    ino_t ino;
    char *canonical;  /* absolute, with the directory's links resolved; when it does not exist */
} PathId;

static PathId path_id(const char *path)
{
    PathId id = { .is_skipped = !path || strcmp(path, "-") == 0 }; /* "-": standard input or output */
    struct stat st;
    if (id.is_skipped)
        return id;
    if (stat(path, &st) == 0) {
        id.exists = true, id.dev = st.st_dev, id.ino = st.st_ino;
        id.is_skipped = !S_ISREG(st.st_mode);
        return id;
    }
    id.canonical = canonical(path);
    return id;
}

static bool is_same(const PathId *a, const PathId *b)
{
    if (a->is_skipped || b->is_skipped || a->exists != b->exists)
        return false;
    return a->exists ? a->dev == b->dev && a->ino == b->ino : strcmp(a->canonical, b->canonical) == 0;
}

SimStatus sim_output_check_paths(const SimPathRole *inputs, int input_count, const SimPathRole *outputs,
                                 int output_count, SimError *err)
{
    int n = input_count + output_count;
    PathId *ids = g_new0(PathId, n);
    for (int i = 0; i < n; i++)
        ids[i] = path_id(i < input_count ? inputs[i].path : outputs[i - input_count].path);
    for (int o = input_count; o < n && !err->status; o++)
        for (int i = 0; i < o && !err->status; i++) {
            if (!is_same(&ids[o], &ids[i]))
                continue;
            const SimPathRole *out = &outputs[o - input_count];
            const SimPathRole *other = i < input_count ? &inputs[i] : &outputs[i - input_count];
            sim_error_set(err, SIM_ERR_USAGE, "%s %s is the same file as %s %s: %s", out->what, out->path,
                          other->what, other->path, i < input_count ? "refusing to overwrite an input"
                                                                    : "give each output its own path");
        }
    for (int o = 0, first = -1; o < output_count && !err->status; o++) {
        if (!outputs[o].path || strcmp(outputs[o].path, "-") != 0)
            continue;
        if (first >= 0)
            sim_error_set(err, SIM_ERR_USAGE, "%s - and %s - both write standard output: give one a file",
                          outputs[first].what, outputs[o].what);
        first = o;
    }
    for (int i = 0; i < n; i++)
        g_free(ids[i].canonical);
    g_free(ids);
    return err->status;
}

char *sim_output_sibling(const char *path, const char *ext)
{
    size_t len = path ? strlen(path) : 0;
    return path ? g_strdup_printf("%.*s%s", (int)(len >= 4 ? len - 4 : 0), path, ext) : NULL;
}

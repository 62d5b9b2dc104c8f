/* Atomic output files: write to "<target>.tmp.<pid>" (created O_EXCL), rename on success, unlink on
 * failure; deferred renames in batches; a signal handler that unlinks every live temporary file.
 * Invariant: every temporary file this process created and has not yet renamed or removed has its name
 * in live[], so a signal never leaves one behind. */
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

#define MAX_LIVE 256  /* temporary files and backups alive at once; a command has fewer than 20 */

typedef struct {
    char *tmp_path, *target, *path, *backup; /* backup: a hard link to the replaced file, or NULL */
    int live_slot, backup_slot;              /* of tmp_path and backup: index + 1 in live[]; 0 none */
} Pending;

static GMutex lock;                       /* guards the writers of live[] */
static char *volatile live[MAX_LIVE];     /* read by the signal handler: names to unlink */
/* A batch belongs to its thread (sweep workers run jobs, each with its own batch). */
static _Thread_local GPtrArray *pending;  /* Pending *, committed inside a batch, in commit order */
static _Thread_local int batch_depth;

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
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL); /* a failed assertion leaves no temporary file either */
}

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

/* A FIFO is opened without blocking (nobody reading: an error, not a hang), then made blocking. */
static FILE *open_in_place(const char *path)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return NULL;
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "w");
    if (!f)
        close(fd);
    return f;
}

/* The temporary file beside target, created exclusively: a name that exists (a link planted there, a
 * leftover) is never opened; the next suffix is tried. */
static FILE *open_temporary(SimOutput *out)
{
    for (int k = 0; k < 100; k++) {
        char *name = k ? g_strdup_printf("%s.tmp.%d.%d", out->target, (int)getpid(), k)
                       : g_strdup_printf("%s.tmp.%d", out->target, (int)getpid());
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, 0666);
        if (fd >= 0) {
            out->tmp_path = name;
            out->live_slot = live_add(name);
            FILE *f = fdopen(fd, "w");
            if (!f)
                close(fd);
            return f;
        }
        g_free(name);
        if (errno != EEXIST)
            return NULL;
    }
    return NULL;
}

/* "-": standard output, written in place through a duplicate of fd 1 (closing it leaves stdout open). */
static SimStatus open_stdout(SimOutput *out, SimError *err)
{
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    out->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out->f) {
        if (fd >= 0)
            close(fd);
        sim_output_abort(out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write standard output: %s", strerror(errno));
    }
    out->is_in_place = true;
    out->tmp_path = g_strdup("-");
    out->target = g_strdup("-");
    return SIM_OK;
}

SimStatus sim_output_open(SimOutput *out, const char *path, SimError *err)
{
    *out = (SimOutput){ .path = g_strdup(path) };
    if (strcmp(path, "-") == 0)
        return open_stdout(out, err);
    bool is_in_place;
    out->target = resolve_target(path, &is_in_place, err);
    if (!out->target) {
        sim_output_abort(out);
        return err->status;
    }
    out->is_in_place = is_in_place;
    if (is_in_place)
        out->tmp_path = g_strdup(path);
    out->f = is_in_place ? open_in_place(path) : open_temporary(out);
    if (!out->f || (!is_in_place && !out->live_slot)) {
        int e = out->f ? EMFILE : errno;
        sim_output_abort(out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", path,
                             e == ENXIO ? "no process is reading the FIFO" : strerror(e));
    }
    return SIM_OK;
}

static void free_output(SimOutput *out)
{
    g_free(out->path), g_free(out->tmp_path), g_free(out->target);
    *out = (SimOutput){ 0 };
}

SimStatus sim_output_commit(SimOutput *out, SimError *err)
{
    errno = 0;
    bool ok = fflush(out->f) == 0 && !ferror(out->f);
    int e = errno;
    ok = fclose(out->f) == 0 && ok;
    e = e ? e : errno;
    out->f = NULL;
    if (!ok) {
        sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", out->path, strerror(e ? e : EIO));
        sim_output_abort(out);
        return err->status;
    }
    if (out->is_in_place) {
        free_output(out);
        return SIM_OK;
    }
    if (batch_depth > 0) {
        Pending *p = g_new(Pending, 1);
        *p = (Pending){ out->tmp_path, out->target, out->path, NULL, out->live_slot, 0 };
        g_ptr_array_add(pending, p);
        *out = (SimOutput){ 0 };
        return SIM_OK;
    }
    if (rename(out->tmp_path, out->target) != 0) {
        sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", out->path, strerror(errno));
        sim_output_abort(out);
        return err->status;
    }
    live_remove(out->live_slot);
    free_output(out);
    return SIM_OK;
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

int sim_output_batch_begin(void)
{
    if (!pending)
        pending = g_ptr_array_new();
    batch_depth++;
    return (int)pending->len;
}

static void pending_free(Pending *p)
{
    live_remove(p->live_slot), live_remove(p->backup_slot);
    g_free(p->tmp_path), g_free(p->target), g_free(p->path), g_free(p->backup);
    g_free(p);
}

/* Renames pending[mark..] into place in order; on a failure takes back those done (restoring a replaced
 * file from the hard link made before its rename) and removes the rest's temporary files. */
static SimStatus rename_all(int mark, SimError *err)
{
    guint done = (guint)mark;
    for (; done < pending->len; done++) {
        Pending *p = g_ptr_array_index(pending, done);
        char *backup = g_strdup_printf("%s.bak.%d", p->target, (int)getpid());
        int slot = live_add(backup); /* a signal between link and unlink must not leave it */
        if (slot && link(p->target, backup) == 0)
            p->backup = backup, p->backup_slot = slot;
        else
            live_remove(slot), g_free(backup);
        if (rename(p->tmp_path, p->target) != 0) {
            sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", p->path, strerror(errno));
            break;
        }
    }
    for (guint i = (guint)mark; i < pending->len; i++) {
        Pending *p = g_ptr_array_index(pending, i);
        if (i >= done)
            unlink(p->tmp_path);
        if (i < done && err->status && p->backup && rename(p->backup, p->target) == 0)
            continue;
        if (i < done && err->status && !p->backup)
            unlink(p->target);
        if (p->backup)
            unlink(p->backup);
    }
    return err->status;
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
        g_ptr_array_free(pending, TRUE);
        pending = NULL;
    }
    return status;
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
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path), *real = realpath(dir, NULL);
    id.canonical = real ? g_build_filename(real, base, NULL) : g_canonicalize_filename(path, NULL);
    free(real), g_free(dir), g_free(base);
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

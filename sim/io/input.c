/* Bounded input: open checks (regular file, size before reading), reads counted against the caps while
 * they happen (standard input and a growing file have no size to check first), gzip inflated here with
 * zlib's stream interface so that truncation, corruption and trailing data are all errors, and lines
 * cut from a fixed-size buffer. Invariant: no call allocates more than max_line, a 64 KiB buffer, or
 * (sim_input_read_all) the capped size of the text. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK (64 * 1024)
/* A .gz file decompresses to at most GZ_RATIO times its size once past GZ_FLOOR bytes: the readers' work is
 * linear in the text, and a 1 MB file of 1 GB of newlines cost 41-81 s of CPU before its refusal (issue 34).
 * Real traces, plans and masks compress 3-30x; a file above the ratio is refused, with how to read it. */
#define GZ_RATIO 64
#define GZ_FLOOR (64L << 20)
#define DEFAULT_MAX_LINE (1 << 20)

struct SimInput {
    char *path;
    int fd;
    bool is_stdin, is_gzip;
    int64_t max_bytes, max_out, max_line;
    bool is_ratio_capped; /* max_out is GZ_RATIO x the file's size (GZ_FLOOR at least) */
    int64_t raw_bytes, out_bytes;   /* read from the file; delivered to the caller (decompressed) */
    bool is_raw_eof;
    z_stream z;
    bool has_member;                /* a gzip member was started (inflate is mid-stream or just ended one) */
    bool is_member_done;            /* inflate returned Z_STREAM_END for the current member */
    unsigned char *raw;             /* compressed bytes not yet inflated: raw[raw_pos..raw_len) */
    size_t raw_len, raw_pos;
    char *buf;                      /* decoded bytes for lines: buf[start..end) */
    size_t start, end;
    char *line;                     /* the line returned last */
    size_t line_cap;
    int64_t line_no;
    bool is_line_cut;               /* the last line had no newline after it */
    bool is_hashed;
    uint64_t fnv;                   /* FNV-1a 64 of the bytes delivered, when is_hashed */
    SimError error;                 /* sticky: the first error, returned again by later calls */
};

/* ---- the inputs this process opened (for the output layer) ---- */

typedef struct {
    dev_t dev;
    ino_t ino;
    char *path;
} Seen;

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static Seen *seen;
static size_t seen_count, seen_cap;
static int64_t calls_in_progress; /* library calls inside sim_input_call_begin/end; the list empties at 0 */

void sim_input_call_begin(void)
{
    pthread_mutex_lock(&seen_lock);
    calls_in_progress++;
    pthread_mutex_unlock(&seen_lock);
}

void sim_input_call_end(void)
{
    pthread_mutex_lock(&seen_lock);
    if (--calls_in_progress == 0) {
        for (size_t i = 0; i < seen_count; i++)
            free(seen[i].path);
        free(seen);
        seen = NULL, seen_count = seen_cap = 0;
    }
    pthread_mutex_unlock(&seen_lock);
}

static void remember(const struct stat *st, const char *path)
{
    pthread_mutex_lock(&seen_lock);
    size_t i = 0;
    while (i < seen_count && !(seen[i].dev == st->st_dev && seen[i].ino == st->st_ino))
        i++;
    if (i == seen_count) {
        if (seen_count == seen_cap) {
            seen_cap = seen_cap ? 2 * seen_cap : 16;
            Seen *grown = realloc(seen, seen_cap * sizeof *seen);
            if (!grown)
                abort();
            seen = grown;
        }
        char *copy = strdup(path);
        if (!copy)
            abort();
        seen[seen_count++] = (Seen){ st->st_dev, st->st_ino, copy };
    }
    pthread_mutex_unlock(&seen_lock);
}

bool sim_input_was_read(dev_t dev, ino_t ino, char *path_out, size_t len)
{
    pthread_mutex_lock(&seen_lock);
    bool found = false;
    for (size_t i = 0; i < seen_count && !found; i++)
        if (seen[i].dev == dev && seen[i].ino == ino) {
            found = true;
            if (len)
                snprintf(path_out, len, "%s", seen[i].path);
        }
    pthread_mutex_unlock(&seen_lock);
    return found;
}

/* ---- opening ---- */

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The file behind path, opened without blocking (a FIFO opened for reading waits for a writer) and
 * checked to be a regular file of at most max_bytes. */
static SimStatus open_file(SimInput *in, SimError *err)
{
    struct stat st;
    in->fd = open(in->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (in->fd < 0)
        return sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", in->path, strerror(errno));
    if (fstat(in->fd, &st) != 0)
        return sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", in->path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sim_error_set(err, SIM_ERR_IO, "cannot read %s: %s", in->path,
                             S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
    if (st.st_size > in->max_bytes)
        return sim_error_set(err, SIM_ERR_LIMIT, "%s is %lld bytes, over the limit of %lld", in->path,
                             (long long)st.st_size, (long long)in->max_bytes);
    fcntl(in->fd, F_SETFL, fcntl(in->fd, F_GETFL) & ~O_NONBLOCK);
    remember(&st, in->path);
    return SIM_OK;
}

SimStatus sim_input_open(const char *path, const SimInputLimits *limits, SimInput **out, SimError *err)
{
    *out = NULL;
    SimInput *in = calloc(1, sizeof *in);
    if (!in || !(in->path = strdup(path)) || !(in->buf = malloc(CHUNK)))
        abort();
    in->fd = -1;
    in->max_bytes = limits->max_bytes;
    in->max_out = limits->max_decompressed > 0 ? limits->max_decompressed : limits->max_bytes;
    in->max_line = limits->max_line > 0 ? limits->max_line : DEFAULT_MAX_LINE;
    in->is_hashed = limits->is_hashed;
    in->fnv = 0xcbf29ce484222325ull;
    in->is_stdin = strcmp(path, "-") == 0;
    in->is_gzip = !in->is_stdin && has_suffix(path, ".gz");
    struct stat st;
    if (in->is_stdin) {
        in->fd = STDIN_FILENO;
        if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode))
            remember(&st, path);
    } else if (open_file(in, err) != SIM_OK) {
        sim_input_close(in);
        return err->status;
    }
    if (in->is_gzip && (!(in->raw = malloc(CHUNK)) || inflateInit2(&in->z, 15 + 16) != Z_OK))
        abort(); /* out of memory: zlib's only failure here */
    int64_t ratio_cap = in->is_gzip && fstat(in->fd, &st) == 0 ? GZ_RATIO * (int64_t)st.st_size : INT64_MAX;
    if (ratio_cap < GZ_FLOOR)
        ratio_cap = GZ_FLOOR;
    if (ratio_cap < in->max_out)
        in->max_out = ratio_cap, in->is_ratio_capped = true;
    *out = in;
    return SIM_OK;
}

void sim_input_close(SimInput *in)
{
    if (!in)
        return;
    if (in->fd >= 0 && !in->is_stdin)
        close(in->fd);
    if (in->is_gzip && in->raw)
        inflateEnd(&in->z);
    free(in->raw), free(in->buf), free(in->line), free(in->path);
    free(in);
}

const char *sim_input_path(const SimInput *in) { return in->path; }
uint64_t sim_input_fnv1a64(const SimInput *in) { return in->fnv; }

static void hash(SimInput *in, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        in->fnv = (in->fnv ^ (unsigned char)buf[i]) * 0x100000001b3ull;
}
int64_t sim_input_line_number(const SimInput *in) { return in->line_no; }
bool sim_input_line_was_cut(const SimInput *in) { return in->is_line_cut; }

/* ---- reading ---- */

/* Records the sentence (first error only) and reports it. */
static SimStatus fail(SimInput *in, SimError *err, SimStatus status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static SimStatus fail(SimInput *in, SimError *err, SimStatus status, const char *fmt, ...)
{
    if (!in->error.status) {
        va_list ap;
        va_start(ap, fmt);
        in->error.status = status;
        vsnprintf(in->error.msg, sizeof in->error.msg, fmt, ap);
        va_end(ap);
    }
    return sim_error_set(err, in->error.status, "%s", in->error.msg);
}

/* Up to cap bytes of the file itself; *got 0 at its end. */
static SimStatus read_raw(SimInput *in, unsigned char *buf, size_t cap, size_t *got, SimError *err)
{
    ssize_t n;
    do
        n = read(in->fd, buf, cap);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return fail(in, err, SIM_ERR_IO, "cannot read %s: %s", in->is_stdin ? "standard input" : in->path,
                    strerror(errno));
    in->raw_bytes += n;
    if (in->raw_bytes > in->max_bytes)
        return in->is_stdin ? fail(in, err, SIM_ERR_LIMIT, "standard input is over the limit of %lld bytes",
                                   (long long)in->max_bytes)
                            : fail(in, err, SIM_ERR_LIMIT, "%s is over the limit of %lld bytes (it grew while read)",
                                   in->path, (long long)in->max_bytes);
    in->is_raw_eof = n == 0;
    *got = (size_t)n;
    return SIM_OK;
}

/* The next member after one ended: another gzip header (several members are one stream), or the end;
 * anything else after the data is refused, as is a file that ends inside a member. */
static SimStatus gzip_boundary(SimInput *in, bool *is_end, SimError *err)
{
    *is_end = false;
    if (in->raw_pos == in->raw_len && !in->is_raw_eof) {
        size_t got;
        if (read_raw(in, in->raw, CHUNK, &got, err) != SIM_OK)
            return err->status;
        in->raw_len = got, in->raw_pos = 0;
    }
    if (in->raw_pos == in->raw_len) {
        *is_end = true;
        if (!in->has_member || !in->is_member_done)
            return fail(in, err, SIM_ERR_INPUT, "%s: not a readable gzip file (%s)", in->path,
                        in->has_member ? "it ends early: truncated?" : "it is empty");
        return SIM_OK;
    }
    if (in->is_member_done) {
        if (in->raw[in->raw_pos] != 0x1f)
            return fail(in, err, SIM_ERR_INPUT, "%s: not a readable gzip file (data after its end)", in->path);
        inflateReset(&in->z);
        in->is_member_done = false;
    }
    in->has_member = true;
    return SIM_OK;
}

/* Up to cap decompressed bytes. */
static SimStatus read_gzip(SimInput *in, char *buf, size_t cap, size_t *got, SimError *err)
{
    *got = 0;
    while (*got == 0) {
        bool is_end;
        if (gzip_boundary(in, &is_end, err) != SIM_OK || is_end)
            return err->status;
        in->z.next_in = in->raw + in->raw_pos;
        in->z.avail_in = (uInt)(in->raw_len - in->raw_pos);
        in->z.next_out = (Bytef *)buf;
        in->z.avail_out = (uInt)cap;
        int rc = inflate(&in->z, Z_NO_FLUSH);
        in->raw_pos = in->raw_len - in->z.avail_in;
        *got = cap - in->z.avail_out;
        if (rc == Z_STREAM_END)
            in->is_member_done = true;
        else if (rc != Z_OK && !(rc == Z_BUF_ERROR && in->raw_pos == in->raw_len))
            return fail(in, err, SIM_ERR_INPUT, "%s: not a readable gzip file (%s)", in->path,
                        in->z.msg ? in->z.msg : zError(rc));
    }
    return SIM_OK;
}

SimStatus sim_input_read(SimInput *in, char *buf, size_t cap, size_t *got, SimError *err)
{
    *got = 0;
    if (in->error.status)
        return sim_error_set(err, in->error.status, "%s", in->error.msg);
    if (cap > CHUNK)
        cap = CHUNK; /* keeps zlib's 32-bit counts and each read's share of the cap small */
    if (!in->is_gzip) {
        if (read_raw(in, (unsigned char *)buf, cap, got, err) == SIM_OK && in->is_hashed)
            hash(in, buf, *got);
        return err->status;
    }
    if (read_gzip(in, buf, cap, got, err) != SIM_OK)
        return err->status;
    if (in->is_hashed)
        hash(in, buf, *got);
    in->out_bytes += (int64_t)*got;
    if (in->out_bytes > in->max_out) {
        *got = 0;
        return fail(in, err, SIM_ERR_LIMIT, "%s decompresses to over the limit of %lld bytes%s", in->path,
                    (long long)in->max_out, in->is_ratio_capped ? " (64 times its size: so compressible a file "
                    "would cost more CPU than its size says; gunzip it to read it)" : "");
    }
    return SIM_OK;
}

/* Appends buf[start..start+n) to the line being built, within max_line. */
static SimStatus line_append(SimInput *in, size_t *len, size_t n, SimError *err)
{
    if ((int64_t)(*len + n) > in->max_line)
        return fail(in, err, SIM_ERR_LIMIT, "%s:%lld: a line is over the limit of %lld bytes", in->path,
                    (long long)in->line_no, (long long)in->max_line);
    if (*len + n + 1 > in->line_cap) {
        size_t cap = in->line_cap ? in->line_cap : 256;
        while (cap < *len + n + 1)
            cap *= 2;
        char *grown = realloc(in->line, cap);
        if (!grown)
            abort();
        in->line = grown, in->line_cap = cap;
    }
    memcpy(in->line + *len, in->buf + in->start, n);
    *len += n;
    in->start += n;
    return SIM_OK;
}

SimStatus sim_input_line(SimInput *in, char **line, size_t *len, SimError *err)
{
    *line = NULL, *len = 0;
    if (in->error.status) /* sticky: the lines after a bad one are not read (the buffer may hold them) */
        return sim_error_set(err, in->error.status, "%s", in->error.msg);
    size_t n = 0;
    bool has_text = false;
    in->line_no++;
    in->is_line_cut = true;
    for (;;) {
        if (in->start == in->end) {
            size_t got;
            if (sim_input_read(in, in->buf, CHUNK, &got, err) != SIM_OK)
                return err->status;
            if (got == 0)
                break;
            in->start = 0, in->end = got;
        }
        has_text = true;
        char *nl = memchr(in->buf + in->start, '\n', in->end - in->start);
        size_t take = nl ? (size_t)(nl - (in->buf + in->start)) : in->end - in->start;
        if (line_append(in, &n, take, err) != SIM_OK)
            return err->status;
        if (nl) {
            in->start++;
            in->is_line_cut = false;
            break;
        }
    }
    if (!has_text) {
        in->line_no--;
        return SIM_OK;
    }
    if (n == 0 && !in->line && line_append(in, &n, 0, err) != SIM_OK)
        return err->status;
    in->line[n] = 0;
    if (memchr(in->line, 0, n))
        return fail(in, err, SIM_ERR_INPUT, "%s:%lld: binary data (a NUL byte) in a text file", in->path,
                    (long long)in->line_no);
    if (n && in->line[n - 1] == '\r')
        in->line[--n] = 0;
    *line = in->line, *len = n;
    return SIM_OK;
}

SimStatus sim_input_read_all(const char *path, const SimInputLimits *limits, char **text, size_t *len,
                             SimError *err)
{
    *text = NULL, *len = 0;
    SimInput *in;
    if (sim_input_open(path, limits, &in, err) != SIM_OK)
        return err->status;
    struct stat st;
    size_t cap = !in->is_stdin && !in->is_gzip && fstat(in->fd, &st) == 0 ? (size_t)st.st_size + 1 : CHUNK;
    char *buf = malloc(cap + 1);
    size_t n = 0, got;
    while (buf && sim_input_read(in, buf + n, cap - n, &got, err) == SIM_OK && got > 0) {
        n += got;
        if (n == cap) {
            char *grown = realloc(buf, (cap *= 2) + 1);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    sim_input_close(in);
    if (!buf)
        abort();
    if (err->status) {
        free(buf);
        return err->status;
    }
    buf[n] = 0;
    *text = buf, *len = n;
    return SIM_OK;
}

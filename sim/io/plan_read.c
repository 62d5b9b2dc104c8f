/* The strict plan reader (format: docs/plan-format.md). Plain C, no GLib: gpu/ links this object. A plan
 * that would make the executor wait forever (a missing or repeated rank) or index out of range is refused
 * with file:line and a sentence, before anything proportional to its claimed size is allocated. */
#include "plan_io.h"

#include "input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_BYTES_PER_TASK 32 /* task record + its share of CTAs and plan_check's bitmaps, rounded up */

uint64_t sim_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

typedef struct {
    const char *path;
    SimInput *in;   /* lines streamed: memory is one line, whatever the plan's size */
    int line;       /* number of the line last returned */
    SimError *err;
} Reader;

static SimStatus fail(Reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static SimStatus fail(Reader *r, const char *fmt, ...)
{
    if (r->err->status) /* a read error (a NUL byte, a line over the limit) ended the lines */
        return r->err->status;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sim_error_set(r->err, SIM_ERR_INPUT, "%s:%d: %s", r->path, r->line, msg);
}

/* Next line with its comment removed and at least one token; tok[0..max-1] point into it (valid until
 * the next call). Returns the token count (which may exceed max: callers reject it), 0 at end of file or
 * on a read error (in r->err). */
static int next_tokens(Reader *r, char **tok, int max)
{
    char *line;
    size_t len;
    while (sim_input_line(r->in, &line, &len, r->err) == SIM_OK && line) {
        r->line = (int)sim_input_line_number(r->in);
        if (len == 0) /* no token: a file of blank lines (a gzip bomb's) is read at memchr's pace */
            continue;
        char *hash = strchr(line, '#'), *save = NULL;
        if (hash)
            *hash = 0;
        int n = 0;
        for (char *s = strtok_r(line, " \t\r", &save); s; s = strtok_r(NULL, " \t\r", &save), n++)
            if (n < max)
                tok[n] = s;
        if (n > 0)
            return n;
    }
    return 0;
}

static SimStatus parse_i64(Reader *r, const char *what, const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi)
        return fail(r, "%s '%s' is not an integer in %" PRId64 "..%" PRId64, what, s, lo, hi);
    *out = v;
    return SIM_OK;
}

enum { K_POLICY, K_MASK, K_RATIO, K_NSM, K_HEADS, K_KV, K_Q, K_C, K_R, K_LAT, K_REDUCE, K_BUF, K_PERS, K_CTAS,
       K_TASKS, K_COUNT };
static const char *const header_keys[K_COUNT] = { "policy", "mask", "tile_ratio", "n_sm", "heads", "kv_tiles",
                                                  "q_tiles", "c_ns", "r_ns", "latency_ns", "reduce",
                                                  "dq_buffers", "persistent", "ctas", "tasks" };
/* Integer fields: where they go and their range (the CLI's own limits). */
typedef struct {
    int64_t lo, hi;
} Range;
static const Range ranges[K_COUNT] = {
    [K_RATIO] = { 1, 64 }, [K_NSM] = { 1, 1 << 16 }, [K_HEADS] = { 1, 1 << 20 }, [K_KV] = { 1, 1 << 20 },
    [K_Q] = { 1, 1 << 20 }, [K_C] = { 0, 1LL << 40 }, [K_R] = { 0, 1LL << 40 }, [K_LAT] = { 0, SIM_LATENCY_MAX_NS },
    [K_BUF] = { 1, 64 }, [K_PERS] = { 0, 1 }, [K_CTAS] = { 0, INT32_MAX }, [K_TASKS] = { 0, INT32_MAX },
};

typedef struct {
    char policy[64];
    Workload wl;
    AttnCosts costs;
    int64_t value[K_COUNT];
} Header;

static SimStatus read_word(Reader *r, Header *h, int k, const char *v)
{
    if (k == K_POLICY) {
        if (strlen(v) >= sizeof h->policy)
            return fail(r, "policy name longer than %zu bytes", sizeof h->policy - 1);
        strcpy(h->policy, v);
    } else if (k == K_MASK) {
        if (strcmp(v, "full") && strcmp(v, "causal") && strcmp(v, "block"))
            return fail(r, "mask must be full, causal or block, not '%s'", v);
        h->wl.mask = strcmp(v, "full") == 0 ? MASK_FULL : strcmp(v, "causal") == 0 ? MASK_CAUSAL : MASK_BLOCK;
    } else if (k == K_REDUCE) {
        if (strcmp(v, "serial") && strcmp(v, "async"))
            return fail(r, "reduce must be serial or async, not '%s'", v);
        h->costs.reduce = strcmp(v, "serial") ? REDUCE_ASYNC : REDUCE_SERIAL;
    } else {
        return parse_i64(r, header_keys[k], v, ranges[k].lo, ranges[k].hi, &h->value[k]);
    }
    return SIM_OK;
}

/* The header ended (a body record came) before every field was given: name the ones missing. */
static SimStatus missing_fields(Reader *r, const bool *seen)
{
    char names[256] = "";
    for (int k = 0, n = 0; k < K_COUNT; k++)
        if (!seen[k])
            n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? ", " : "", header_keys[k]);
    return fail(r, "the header lacks %s (every header field is required: docs/plan-format.md)", names);
}

static SimStatus read_header(Reader *r, Header *h)
{
    char *tok[3];
    int n = next_tokens(r, tok, 3);
    if (n != 2 || strcmp(tok[0], "dashsim-plan") || strcmp(tok[1], "1"))
        return fail(r, "not a dashsim plan: the first line must be 'dashsim-plan 1'");
    bool seen[K_COUNT] = { false };
    for (int got = 0; got < K_COUNT; got++) {
        if ((n = next_tokens(r, tok, 3)) == 0)
            return fail(r, "the header ends early (before 'tasks')");
        int k = 0;
        while (k < K_COUNT && strcmp(tok[0], header_keys[k]))
            k++;
        if (k == K_COUNT && (!strcmp(tok[0], "cta") || !strcmp(tok[0], "t") || !strcmp(tok[0], "end")))
            return missing_fields(r, seen);
        if (k == K_COUNT)
            return fail(r, "unknown header field '%s'", tok[0]);
        if (seen[k])
            return fail(r, "header field '%s' given twice", tok[0]);
        seen[k] = true;
        if (n != 2)
            return fail(r, "header field '%s' takes exactly one value", tok[0]);
        if (read_word(r, h, k, tok[1]) != SIM_OK)
            return r->err->status;
    }
    const int64_t *v = h->value;
    h->wl = (Workload){ .n_sm = (int)v[K_NSM], .heads = (int)v[K_HEADS], .kv_tiles = (int)v[K_KV],
                        .q_tiles = (int)v[K_Q], .mask = h->wl.mask, .tile_ratio = (int)v[K_RATIO], .head_swizzle = 1 };
    h->costs = (AttnCosts){ .c_ns = v[K_C], .r_ns = v[K_R], .latency_ns = v[K_LAT], .reduce = h->costs.reduce,
                            .dq_buffers = (int)v[K_BUF] };
    return SIM_OK;
}

/* cta records in launch order, each followed by its tasks, then 'end' and nothing else. */
static SimStatus read_body(Reader *r, Plan *p, int64_t ctas, int64_t tasks)
{
    char *tok[6];
    int64_t pos, slot, count, head, kv, q, rank;
    for (int64_t c = 0; c < ctas; c++) {
        int n = next_tokens(r, tok, 5);
        if (n != 4 || strcmp(tok[0], "cta"))
            return fail(r, "expected 'cta <position> <slot> <task count>' (CTA %" PRId64 " of %" PRId64 ")", c, ctas);
        if (parse_i64(r, "the CTA position", tok[1], c, c, &pos) ||
            parse_i64(r, "the slot", tok[2], p->is_persistent ? 0 : -1, p->is_persistent ? p->wl.n_sm - 1 : -1,
                      &slot) ||
            parse_i64(r, "the task count", tok[3], 1, tasks - p->task_count, &count)) /* an empty CTA: no engine op */
            return r->err->status;
        plan_add_cta(p, (int32_t)slot);
        for (int64_t i = 0; i < count; i++) {
            n = next_tokens(r, tok, 5);
            if (n != 5 || strcmp(tok[0], "t"))
                return fail(r, "expected 't <head> <kv> <q> <rank>'");
            if (parse_i64(r, "head", tok[1], 0, p->wl.heads - 1, &head) ||
                parse_i64(r, "kv", tok[2], 0, p->wl.kv_tiles - 1, &kv) ||
                parse_i64(r, "q", tok[3], 0, p->wl.q_tiles - 1, &q) ||
                parse_i64(r, "rank", tok[4], 0, p->wl.kv_tiles - 1, &rank))
                return r->err->status;
            if (p->keep)
                p->keep[kv * p->wl.q_tiles + q] = 1;
            plan_add_task(p, (int32_t)head, (int32_t)kv, (int32_t)q);
            p->tasks[p->task_count - 1].rank = (int32_t)rank;
        }
    }
    if (p->task_count != tasks)
        return fail(r, "the CTAs hold %" PRId64 " tasks, the header says %" PRId64, p->task_count, tasks);
    if (next_tokens(r, tok, 5) != 1 || strcmp(tok[0], "end"))
        return fail(r, "expected 'end' after the last task");
    if (next_tokens(r, tok, 5) != 0)
        return fail(r, "text after 'end'");
    return SIM_OK;
}

static int64_t pairs_per_head(const Workload *wl)
{
    return (int64_t)wl->kv_tiles * wl->q_tiles;
}

SimStatus sim_plan_read(const char *path, int64_t max_bytes, Plan **plan, AttnCosts *costs, uint64_t *hash,
                        SimError *err)
{
    *plan = NULL;
    SimInputLimits limits = { .max_bytes = max_bytes, .max_line = 4096, .is_hashed = true };
    Reader r = { .path = path, .err = err };
    if (sim_input_open(path, &limits, &r.in, err) != SIM_OK)
        return err->status;
    Header h = { .wl.mask = MASK_FULL };
    Plan *p = NULL;
    if (read_header(&r, &h) == SIM_OK) {
        double pairs = (double)h.wl.heads * h.wl.kv_tiles * h.wl.q_tiles;
        double bytes = (double)h.value[K_TASKS] * PLAN_BYTES_PER_TASK + pairs / 8 +
                       (h.wl.mask == MASK_BLOCK ? (double)pairs_per_head(&h.wl) : 0);
        if (bytes > (double)max_bytes)
            sim_error_set(err, SIM_ERR_LIMIT, "%s: a plan of %" PRId64 " tasks over %d heads x %d KV x %d Q tiles "
                          "would need about %.0f MB, over the cap of %" PRId64 " MB", path, h.value[K_TASKS],
                          h.wl.heads, h.wl.kv_tiles, h.wl.q_tiles, bytes / (1 << 20), max_bytes >> 20);
        else {
            p = plan_new(h.policy, &h.wl, h.value[K_TASKS]);
            p->is_persistent = h.value[K_PERS] == 1;
            if (h.wl.mask == MASK_BLOCK) /* the mask is the set of pairs the tasks name; filled while reading */
                if (!(p->wl.keep = p->keep = calloc((size_t)pairs_per_head(&h.wl), 1)))
                    abort();
            if (read_body(&r, p, h.value[K_CTAS], h.value[K_TASKS]) == SIM_OK) {
                char where[300];
                snprintf(where, sizeof where, "%s: ", path);
                plan_check(p, where, err);
            }
        }
    }
    *hash = sim_input_fnv1a64(r.in); /* of the whole file: read to its end when the plan is good */
    sim_input_close(r.in);
    if (err->status) {
        plan_free(p);
        return err->status;
    }
    *plan = p, *costs = h.costs;
    return SIM_OK;
}

/* Plan reader, GPU execution order and host reference for gpu-exec (host code only).
 * The reader is strict: a plan that would make the executor wait forever (a missing or repeated rank) or
 * index out of range is refused with file:line and a sentence, before anything is allocated on the GPU. */
#include "gpu_device.cuh"
#include "gpu_plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t gpu_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

typedef struct {
    const char *path;
    char *text;   /* whole file, NUL-terminated; lines are cut in place */
    char *next;   /* start of the next line */
    int line;     /* number of the line last returned */
    char *err;
    size_t errlen;
} Reader;

static int fail(Reader *r, const char *fmt, ...)
{
    int n = snprintf(r->err, r->errlen, "%s:%d: ", r->path, r->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errlen)
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return 2;
}

/* Next line with its comment removed and at least one token; tok[0..max-1] point into it. Returns the
 * token count (which may exceed max), 0 at end of file. */
static int next_tokens(Reader *r, char **tok, int max)
{
    while (*r->next) {
        char *line = r->next, *end = strchr(line, '\n');
        if (end) {
            *end = 0;
            r->next = end + 1;
        } else {
            r->next = line + strlen(line);
        }
        r->line++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        int n = 0;
        for (char *s = strtok(line, " \t\r"); s; s = strtok(NULL, " \t\r"), n++)
            if (n < max)
                tok[n] = s; /* a count above max is returned as is: callers reject it */
        if (n > 0)
            return n;
    }
    return 0;
}

static int parse_ll(Reader *r, const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi)
        return fail(r, "'%s' is not an integer in %lld..%lld", s, lo, hi);
    *out = v;
    return 0;
}

static int read_file(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return 2;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = (char *)malloc(cap + 1);
    for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = (char *)realloc(buf, cap + 1);
        }
    }
    fclose(f);
    buf[n] = 0;
    *text = buf;
    *len = n;
    return 0;
}

enum { K_POLICY, K_MASK, K_RATIO, K_NSM, K_HEADS, K_KV, K_Q, K_C, K_R, K_LAT, K_REDUCE, K_BUF, K_PERS,
       K_CTAS, K_TASKS, K_COUNT };
static const char *const header_keys[K_COUNT] = {"policy",    "mask",       "tile_ratio", "n_sm",    "heads",
                                                 "kv_tiles",  "q_tiles",    "c_ns",       "r_ns",    "latency_ns",
                                                 "reduce",    "dq_buffers", "persistent", "ctas",    "tasks"};

static int read_header_value(Reader *r, GpuPlan *p, int k, const char *v, long long *ctas, long long *tasks)
{
    const long long big = 1LL << 40;
    long long x = 0;
    int rc = 0;
    switch (k) {
    case K_POLICY:
        if (strlen(v) >= sizeof p->policy)
            return fail(r, "policy name too long");
        strcpy(p->policy, v);
        return 0;
    case K_MASK:
        if (strcmp(v, "full") && strcmp(v, "causal"))
            return fail(r, "mask must be full or causal, not '%s'", v);
        strcpy(p->mask, v);
        return 0;
    case K_REDUCE:
        if (strcmp(v, "serial") && strcmp(v, "async"))
            return fail(r, "reduce must be serial or async, not '%s'", v);
        strcpy(p->reduce, v);
        return 0;
    case K_RATIO: rc = parse_ll(r, v, 1, 64, &x); p->tile_ratio = (int)x; break;
    case K_NSM: rc = parse_ll(r, v, 1, 4096, &x); p->n_sm = (int)x; break;
    case K_HEADS: rc = parse_ll(r, v, 1, 1 << 16, &x); p->heads = (int)x; break;
    case K_KV: rc = parse_ll(r, v, 1, 1 << 16, &x); p->kv_tiles = (int)x; break;
    case K_Q: rc = parse_ll(r, v, 1, 1 << 16, &x); p->q_tiles = (int)x; break;
    case K_C: rc = parse_ll(r, v, 0, big, &p->c_ns); break;
    case K_R: rc = parse_ll(r, v, 0, big, &p->r_ns); break;
    case K_LAT: rc = parse_ll(r, v, 0, big, &p->latency_ns); break;
    case K_BUF: rc = parse_ll(r, v, 1, GPU_MAX_BUFFERS, &x); p->dq_buffers = (int)x; break;
    case K_PERS: rc = parse_ll(r, v, 0, 1, &x); p->is_persistent = (int)x; break;
    case K_CTAS: rc = parse_ll(r, v, 0, 1 << 24, ctas); break;
    case K_TASKS: rc = parse_ll(r, v, 0, 1 << 28, tasks); break;
    }
    return rc;
}

static int read_header(Reader *r, GpuPlan *p, long long *ctas, long long *tasks)
{
    char *tok[4];
    int n = next_tokens(r, tok, 3);
    if (n != 2 || strcmp(tok[0], "dashsim-plan") || strcmp(tok[1], "1"))
        return fail(r, "not a dashsim plan: the first line must be 'dashsim-plan 1'");
    int seen[K_COUNT] = {0};
    for (int got = 0; got < K_COUNT; got++) {
        n = next_tokens(r, tok, 3);
        if (n == 0)
            return fail(r, "the header ends early (before 'tasks')");
        int k = 0;
        while (k < K_COUNT && strcmp(tok[0], header_keys[k]))
            k++;
        if (k == K_COUNT)
            return fail(r, "unknown header field '%s'", tok[0]);
        if (seen[k]++)
            return fail(r, "header field '%s' given twice", tok[0]);
        if (n != 2)
            return fail(r, "header field '%s' takes exactly one value", tok[0]);
        int rc = read_header_value(r, p, k, tok[1], ctas, tasks);
        if (rc)
            return rc;
    }
    return 0;
}

static int read_body(Reader *r, GpuPlan *p, long long ctas, long long tasks)
{
    char *tok[6];
    long long v[5] = {0, 0, 0, 0, 0};
    p->ctas = (GpuCta *)calloc((size_t)ctas + 1, sizeof *p->ctas);
    p->tasks = (GpuTask *)calloc((size_t)tasks + 1, sizeof *p->tasks);
    int32_t nt = 0;
    for (int32_t c = 0; c < ctas; c++) {
        int n = next_tokens(r, tok, 5);
        if (n != 4 || strcmp(tok[0], "cta"))
            return fail(r, "expected 'cta <position> <slot> <task count>' (CTA %d of %lld)", c, ctas);
        int rc = parse_ll(r, tok[1], c, c, &v[0]);
        if (!rc)
            rc = parse_ll(r, tok[2], p->is_persistent ? 0 : -1, p->is_persistent ? p->n_sm - 1 : -1, &v[1]);
        if (!rc)
            rc = parse_ll(r, tok[3], 0, tasks - nt, &v[2]);
        if (rc)
            return rc;
        p->ctas[c] = (GpuCta){(int32_t)v[1], nt, (int32_t)v[2]};
        for (long long i = 0; i < v[2]; i++, nt++) {
            n = next_tokens(r, tok, 5);
            if (n != 5 || strcmp(tok[0], "t"))
                return fail(r, "expected 't <head> <kv> <q> <rank>'");
            rc = parse_ll(r, tok[1], 0, p->heads - 1, &v[0]);
            if (!rc)
                rc = parse_ll(r, tok[2], 0, p->kv_tiles - 1, &v[1]);
            if (!rc)
                rc = parse_ll(r, tok[3], 0, p->q_tiles - 1, &v[3]);
            if (!rc)
                rc = parse_ll(r, tok[4], 0, p->kv_tiles - 1, &v[4]);
            if (rc)
                return rc;
            p->tasks[nt] = (GpuTask){(int32_t)v[0], (int32_t)v[1], (int32_t)v[3], (int32_t)v[4]};
        }
    }
    if (nt != tasks)
        return fail(r, "the CTAs hold %d tasks, the header says %lld", nt, tasks);
    if (next_tokens(r, tok, 5) != 1 || strcmp(tok[0], "end"))
        return fail(r, "expected 'end' after the last task");
    if (next_tokens(r, tok, 5) != 0)
        return fail(r, "text after 'end'");
    p->cta_count = (int32_t)ctas;
    p->task_count = nt;
    return 0;
}

/* Ranks of each row must be exactly 0..len-1 and each (head, kv, q) pair appear at most once. */
static int check_ranks(const GpuPlan *p, char *err, size_t errlen, const char *path)
{
    size_t rows = (size_t)p->heads * p->q_tiles, pairs = rows * p->kv_tiles;
    int32_t *len = (int32_t *)calloc(rows, sizeof *len);
    uint8_t *pair_seen = (uint8_t *)calloc(pairs, 1), *rank_seen = (uint8_t *)calloc(pairs, 1);
    int rc = 0;
    for (int32_t i = 0; i < p->task_count && !rc; i++) {
        const GpuTask *t = &p->tasks[i];
        size_t row = (size_t)t->head * p->q_tiles + t->q;
        size_t pair = row * p->kv_tiles + t->kv;
        if (pair_seen[pair]++ || rank_seen[row * p->kv_tiles + t->rank]++) {
            snprintf(err, errlen, "%s: task %d (head %d kv %d q %d rank %d) repeats a tile pair or a rank", path,
                     i, t->head, t->kv, t->q, t->rank);
            rc = 2;
        }
        len[row]++;
    }
    for (int32_t i = 0; i < p->task_count && !rc; i++) {
        const GpuTask *t = &p->tasks[i];
        if (t->rank >= len[(size_t)t->head * p->q_tiles + t->q]) {
            snprintf(err, errlen, "%s: row (head %d, q %d) has %d tasks but a rank %d", path, t->head, t->q,
                     len[(size_t)t->head * p->q_tiles + t->q], t->rank);
            rc = 2;
        }
    }
    free(len);
    free(pair_seen);
    free(rank_seen);
    return rc;
}

int gpu_plan_read(const char *path, GpuPlan *plan, char *err, size_t errlen)
{
    memset(plan, 0, sizeof *plan);
    char *text;
    size_t len;
    int rc = read_file(path, &text, &len, err, errlen);
    if (rc)
        return rc;
    plan->hash = gpu_fnv1a64(GPU_FNV_OFFSET, text, len);
    if (memchr(text, 0, len)) {
        snprintf(err, errlen, "%s: binary data in a plan file", path);
        free(text);
        return 2;
    }
    Reader r = {path, text, text, 0, err, errlen};
    long long ctas = 0, tasks = 0;
    rc = read_header(&r, plan, &ctas, &tasks);
    if (!rc)
        rc = read_body(&r, plan, ctas, tasks);
    if (!rc)
        rc = check_ranks(plan, err, errlen, path);
    free(text);
    if (rc)
        gpu_plan_clear(plan);
    return rc;
}

void gpu_plan_clear(GpuPlan *plan)
{
    free(plan->ctas);
    free(plan->tasks);
    plan->ctas = NULL;
    plan->tasks = NULL;
}

void gpu_order_build(const GpuPlan *p, GpuOrder *o)
{
    o->block_count = p->is_persistent ? p->n_sm : p->cta_count;
    o->block_begin = (int32_t *)calloc((size_t)o->block_count + 1, sizeof *o->block_begin);
    o->order = (int32_t *)malloc(((size_t)p->task_count + 1) * sizeof *o->order);
    o->task_cta = (int32_t *)malloc(((size_t)p->task_count + 1) * sizeof *o->task_cta);
    o->task_block = (int32_t *)malloc(((size_t)p->task_count + 1) * sizeof *o->task_block);
    for (int32_t c = 0; c < p->cta_count; c++) {
        int32_t b = p->is_persistent ? p->ctas[c].slot : c;
        o->block_begin[b + 1] += p->ctas[c].task_count;
        for (int32_t i = 0; i < p->ctas[c].task_count; i++)
            o->task_cta[p->ctas[c].task_begin + i] = c;
    }
    o->max_block_tasks = 0;
    for (int32_t b = 0; b < o->block_count; b++) {
        int32_t n = o->block_begin[b + 1];
        o->max_block_tasks = n > o->max_block_tasks ? n : o->max_block_tasks;
        o->block_begin[b + 1] += o->block_begin[b];
    }
    int32_t *fill = (int32_t *)malloc(((size_t)o->block_count + 1) * sizeof *fill);
    memcpy(fill, o->block_begin, (size_t)o->block_count * sizeof *fill);
    for (int32_t c = 0; c < p->cta_count; c++) { /* file order within a slot */
        int32_t b = p->is_persistent ? p->ctas[c].slot : c;
        for (int32_t i = 0; i < p->ctas[c].task_count; i++) {
            int32_t t = p->ctas[c].task_begin + i;
            o->order[fill[b]++] = t;
            o->task_block[t] = b;
        }
    }
    free(fill);
}

void gpu_order_clear(GpuOrder *o)
{
    free(o->block_begin);
    free(o->order);
    free(o->task_cta);
    free(o->task_block);
    memset(o, 0, sizeof *o);
}

static void add_partial(float *dst, const GpuTask *t, int tile_m, int head_dim, int iters, int8_t *a, int8_t *b)
{
    uint32_t seed = gpu_task_seed(t->head, t->kv, t->q);
    for (int i = 0; i < tile_m; i++)
        for (int k = 0; k < 16; k++)
            a[i * 16 + k] = (int8_t)gpu_a_value(seed, i, k);
    for (int j = 0; j < head_dim; j++)
        for (int k = 0; k < 16; k++)
            b[j * 16 + k] = (int8_t)gpu_b_value(seed, k, j);
    const float scale = gpu_task_scale(seed), bias = gpu_task_bias(seed);
    for (int i = 0; i < tile_m; i++)
        for (int j = 0; j < head_dim; j++) {
            float *e = &dst[gpu_tile_pos(i, j, head_dim)];
            volatile float sum = *e + gpu_partial_value(a + i * 16, b + j * 16, iters, scale, bias);
            *e = sum;
        }
}

float *gpu_plan_reference(const GpuPlan *p, int tile_m, int head_dim, int iters)
{
    size_t tile = (size_t)tile_m * head_dim, rows = (size_t)p->heads * p->q_tiles;
    float *dq = (float *)calloc(rows * tile, sizeof *dq);
    /* by_rank[row * kv_tiles + rank] = task index (ranks are < kv_tiles and unique, checked on read) */
    int32_t *by_rank = (int32_t *)malloc(rows * p->kv_tiles * sizeof *by_rank);
    for (size_t i = 0; i < rows * p->kv_tiles; i++)
        by_rank[i] = -1;
    for (int32_t i = 0; i < p->task_count; i++) {
        const GpuTask *t = &p->tasks[i];
        by_rank[((size_t)t->head * p->q_tiles + t->q) * p->kv_tiles + t->rank] = i;
    }
    int8_t *a = (int8_t *)malloc((size_t)tile_m * 16), *b = (int8_t *)malloc((size_t)head_dim * 16);
    for (size_t row = 0; row < rows; row++)
        for (int k = 0; k < p->kv_tiles && by_rank[row * p->kv_tiles + k] >= 0; k++)
            add_partial(dq + row * tile, &p->tasks[by_rank[row * p->kv_tiles + k]], tile_m, head_dim, iters, a, b);
    free(a);
    free(b);
    free(by_rank);
    return dq;
}

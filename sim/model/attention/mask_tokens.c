/* Block masks given in tokens (the shape front end's --mask window:W, document:L1,..., prefix:P): each query
 * row keeps one interval of keys, and a (KV tile, Q tile) pair is kept when any of its rows' intervals meets
 * the tile. Tile sizes are the kernel's (kBlockM query rows, kBlockN keys), so the tile mask is what that
 * kernel computes. With more keys than queries the rows sit at the end of the keys (bottom-right, as
 * FlashAttention aligns causal masks since 2.1). Time O(seqlen_q + kv_tiles x q_tiles). */
#include "mask.h"

#include <errno.h>
#include <inttypes.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int kind;                  /* 'w' window, 'd' document, 'p' prefix */
    int64_t left, right;       /* window: keys p-left+1..p (right < 0), or p-left..p+right; prefix: left = P */
    int64_t *doc_start;        /* document: the first row of row i's segment; owned */
} TokenMask;

static bool read_count(const char **p, int64_t lo, int64_t *out)
{
    char *e;
    errno = 0;
    long long v = strtoll(*p, &e, 10);
    if (!g_ascii_isdigit(**p) || errno || v < lo || v > (1 << 24))
        return false;
    *out = v, *p = e;
    return true;
}

static SimStatus bad(SimError *err, const char *spec, const char *why)
{
    return sim_error_set(err, SIM_ERR_USAGE, "--mask %s: %s (with --seqlen: full, causal, window:W, window:L:R, "
                         "document:L1,L2,..., prefix:P, in tokens)", spec, why);
}

static SimStatus parse_document(const char *p, const char *spec, int64_t seqlen_q, int64_t seqlen_k, TokenMask *t,
                                SimError *err)
{
    t->doc_start = g_new(int64_t, seqlen_q);
    int64_t at = 0, len;
    while (at < seqlen_q && read_count(&p, 1, &len)) {
        for (int64_t i = at; i < at + len && i < seqlen_q; i++)
            t->doc_start[i] = at;
        at += len;
        if (*p != ',' || !p[1])
            break;
        p++;
    }
    if (*p || at != seqlen_q || seqlen_q != seqlen_k)
        return bad(err, spec, "document lengths are positive token counts summing to --seqlen (and --seqlen-k)");
    return SIM_OK;
}

static SimStatus parse_token_mask(const char *spec, int64_t seqlen_q, int64_t seqlen_k, TokenMask *t, SimError *err)
{
    const char *p = strchr(spec, ':') ? strchr(spec, ':') + 1 : spec + strlen(spec);
    *t = (TokenMask){ .right = -1 };
    if (strncmp(spec, "window:", 7) == 0) {
        t->kind = 'w';
        if (!read_count(&p, 1, &t->left) || (*p == ':' && (p++, !read_count(&p, 0, &t->right))) || *p)
            return bad(err, spec, "a window is W (causal) or L:R, positive token counts");
        return SIM_OK;
    }
    if (strncmp(spec, "prefix:", 7) == 0) {
        t->kind = 'p';
        return read_count(&p, 0, &t->left) && !*p ? SIM_OK : bad(err, spec, "prefix takes a token count");
    }
    if (strncmp(spec, "document:", 9) == 0) {
        t->kind = 'd';
        return parse_document(p, spec, seqlen_q, seqlen_k, t, err);
    }
    return bad(err, spec, "not a mask in tokens (random:DENSITY:SEED and mask files are in tile units: sim search)");
}

/* Row i's keys [*lo, *hi] (empty when lo > hi); pos: its position among the keys. */
static void row_keys(const TokenMask *t, int64_t i, int64_t pos, int64_t seqlen_k, int64_t *lo, int64_t *hi)
{
    if (t->kind == 'w')
        *lo = t->right < 0 ? pos - t->left + 1 : pos - t->left, *hi = t->right < 0 ? pos : pos + t->right;
    else if (t->kind == 'p')
        *lo = 0, *hi = MAX(t->left - 1, pos);
    else
        *lo = t->doc_start[i], *hi = pos;
    *lo = MAX(*lo, 0), *hi = MIN(*hi, seqlen_k - 1);
}

SimStatus sim_mask_from_tokens(const char *spec, const MaskTokens *shape, BlockMask *out, int64_t *kept_pairs,
                               SimError *err)
{
    *out = (BlockMask){ 0 };
    *kept_pairs = 0;
    TokenMask t;
    int64_t sq = shape->seqlen_q, sk = shape->seqlen_k;
    int64_t q_tiles = (sq + shape->block_m - 1) / shape->block_m, kv_tiles = (sk + shape->block_n - 1) / shape->block_n;
    if (parse_token_mask(spec, sq, sk, &t, err) != SIM_OK) {
        g_free(t.doc_start);
        return err->status;
    }
    if (kv_tiles * q_tiles > SIM_MASK_MAX_PAIRS) {
        g_free(t.doc_start);
        return sim_error_set(err, SIM_ERR_LIMIT, "--mask %s: %" PRId64 " KV x %" PRId64 " Q tiles is above the "
                             "%d pairs a block mask may hold", spec, kv_tiles, q_tiles, SIM_MASK_MAX_PAIRS);
    }
    out->kv_tiles = (int)kv_tiles, out->q_tiles = (int)q_tiles;
    out->keep = g_new0(uint8_t, kv_tiles * q_tiles);
    g_snprintf(out->spec, sizeof out->spec, "%s", spec);
    int64_t *diff = g_new(int64_t, kv_tiles + 1);
    for (int64_t q = 0; q < q_tiles; q++) {
        memset(diff, 0, sizeof *diff * (kv_tiles + 1));
        for (int64_t i = q * shape->block_m; i < MIN(sq, (q + 1) * shape->block_m); i++) {
            int64_t lo, hi;
            row_keys(&t, i, i + sk - sq, sk, &lo, &hi);
            if (lo > hi)
                continue;
            *kept_pairs += hi - lo + 1;
            diff[lo / shape->block_n]++, diff[hi / shape->block_n + 1]--;
        }
        for (int64_t kv = 0, on = 0; kv < kv_tiles; kv++)
            on += diff[kv], out->keep[kv * q_tiles + q] = on > 0;
    }
    g_free(diff);
    g_free(t.doc_start);
    if (*kept_pairs == 0) {
        sim_mask_clear(out);
        return sim_error_set(err, SIM_ERR_USAGE, "--mask %s keeps no (query, key) pair at this shape", spec);
    }
    return SIM_OK;
}

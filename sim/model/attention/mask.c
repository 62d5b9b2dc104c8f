/* Block mask generators and the table of mask kinds: each kind's spec syntax, what it keeps and its
 * generator, the one list the parser, --help, --list-masks, error messages and docs read. The random mask
 * draws from GLib's seeded Mersenne Twister, so a seed gives the same mask on any machine. */
#include "mask.h"

#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Strict non-negative integer in [lo, hi] from the start of s; *end after it. */
static bool parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out, const char **end)
{
    char *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (!g_ascii_isdigit(*s) || errno || v < lo || v > hi) /* strtoll alone takes " 5", "+5" */
        return false;
    *out = v, *end = e;
    return true;
}

static SimStatus bad(SimError *err, const char *spec, const char *why)
{
    char *kinds = sim_mask_syntax(", ", false);
    sim_error_set(err, SIM_ERR_USAGE, "--mask %s: %s (%s; tile units)", spec, why, kinds);
    g_free(kinds);
    return err->status;
}

static SimStatus make_window(BlockMask *m, const char *arg, const char *spec, SimError *err)
{
    int64_t left, right = -1;
    const char *end;
    if (!parse_int(arg, 1, 1 << 24, &left, &end) || (*end == ':' && !parse_int(end + 1, 0, 1 << 24, &right, &end)) || *end)
        return bad(err, spec, "a window is W (causal) or L:R, positive tile counts");
    for (int kv = 0; kv < m->kv_tiles; kv++)
        for (int q = 0; q < m->q_tiles; q++)
            m->keep[(int64_t)kv * m->q_tiles + q] = right < 0 ? (kv <= q && q - kv < left) : (kv >= q - left && kv <= q + right);
    return SIM_OK;
}

static SimStatus make_document(BlockMask *m, const char *arg, const char *spec, SimError *err)
{
    int *segment = g_new(int, m->q_tiles);
    int64_t at = 0, n = 0, len;
    const char *p = arg;
    while (at < m->q_tiles && parse_int(p, 1, 1 << 24, &len, &p)) {
        for (int64_t i = at; i < at + len && i < m->q_tiles; i++)
            segment[i] = (int)n;
        at += len, n++;
        if (*p != ',' || !p[1]) /* "4,4," ends in a comma: refused below */
            break;
        p++;
    }
    bool is_ok = *p == 0 && at == m->q_tiles && m->q_tiles == m->kv_tiles;
    for (int kv = 0; is_ok && kv < m->kv_tiles; kv++)
        for (int q = 0; q < m->q_tiles; q++)
            m->keep[(int64_t)kv * m->q_tiles + q] = kv <= q && segment[kv] == segment[q];
    g_free(segment);
    return is_ok ? SIM_OK : bad(err, spec, "document lengths are positive tile counts summing to the tiles (KV = Q)");
}

static SimStatus make_random(BlockMask *m, const char *arg, const char *spec, SimError *err)
{
    char *end;
    double density = g_ascii_strtod(arg, &end);
    int64_t seed;
    const char *rest;
    bool is_decimal = (g_ascii_isdigit(*arg) || *arg == '.') && arg + strspn(arg, "0123456789.eE+-") == end;
    if (!is_decimal || *end != ':' || !(density > 0 && density <= 1) || !parse_int(end + 1, 0, UINT32_MAX, &seed, &rest) || *rest)
        return bad(err, spec, "random takes a density in (0, 1] and an integer seed");
    GRand *g = g_rand_new_with_seed((guint32)seed);
    for (int kv = 0; kv < m->kv_tiles; kv++)
        for (int q = 0; q < m->q_tiles; q++)
            m->keep[(int64_t)kv * m->q_tiles + q] = kv == q % m->kv_tiles || g_rand_double(g) < density;
    g_rand_free(g);
    return SIM_OK;
}

static SimStatus make_full_or_causal(BlockMask *m, const char *arg, const char *spec, SimError *err)
{
    (void)arg, (void)err;
    for (int kv = 0; kv < m->kv_tiles; kv++)
        for (int q = 0; q < m->q_tiles; q++)
            m->keep[(int64_t)kv * m->q_tiles + q] = spec[0] == 'f' || kv <= q;
    return SIM_OK;
}

static SimStatus make_prefix(BlockMask *m, const char *arg, const char *spec, SimError *err)
{
    int64_t prefix;
    const char *end;
    if (!parse_int(arg, 0, 1 << 24, &prefix, &end) || *end)
        return bad(err, spec, "prefix takes a tile count");
    for (int kv = 0; kv < m->kv_tiles; kv++)
        for (int q = 0; q < m->q_tiles; q++)
            m->keep[(int64_t)kv * m->q_tiles + q] = kv < prefix || kv <= q;
    return SIM_OK;
}

/* The mask kinds, one line each (a kind with two forms, window, has a line per form; the first line of a
 * kind makes both). Order = the order of --help, --list-masks and docs/masks.md's table. */
typedef struct {
    const char *kind;      /* the spec up to its ':' */
    const char *syntax;    /* as --help writes it */
    const char *keeps;     /* which (kv, q) pairs it keeps, for --list-masks and docs/masks.md */
    SimStatus (*make)(BlockMask *m, const char *arg, const char *spec, SimError *err);
} MaskKind;

static const MaskKind kinds[] = {
    { "full", "full", "always", make_full_or_causal },
    { "causal", "causal", "kv <= q", make_full_or_causal },
    { "window", "window:W", "causal sliding window: q - W < kv <= q", make_window },
    { "window", "window:L:R", "q - L <= kv <= q + R", make_window },
    { "document", "document:L1,L2,...", "kv and q in the same segment, and kv <= q. Segments are consecutive runs "
      "of L1, L2, ... tiles; the lengths must sum to the tiles", make_document },
    { "prefix", "prefix:P", "kv < P (the prefix, seen by every row), or kv <= q", make_prefix },
    { "random", "random:DENSITY:SEED", "each pair with probability DENSITY from a seeded generator. The pairs with "
      "kv = q (mod the KV tiles) are always kept, so every row and KV tile has work", make_random },
};

/* The kind of spec: "full" or "causal" exactly, else the block kind named before its ':' (its generator
 * refuses a missing argument with a sentence); NULL when none. */
static const MaskKind *find_kind(const char *spec)
{
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
        if (strlen(kinds[i].kind) == len && strncmp(spec, kinds[i].kind, len) == 0 &&
            (!colon || strchr(kinds[i].syntax, ':')))
            return &kinds[i];
    return NULL;
}

int sim_mask_kind_count(void)
{
    return (int)G_N_ELEMENTS(kinds);
}

bool sim_mask_kind_at(int i, const char **syntax, const char **keeps)
{
    if (i < 0 || i >= sim_mask_kind_count())
        return false;
    *syntax = kinds[i].syntax, *keeps = kinds[i].keeps;
    return true;
}

char *sim_mask_syntax(const char *sep, bool is_block_only)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
        if (!is_block_only || strchr(kinds[i].syntax, ':'))
            g_string_append_printf(s, "%s%s", s->len ? sep : "", kinds[i].syntax);
    return g_string_free(s, FALSE);
}

bool sim_mask_is_block_kind(const char *spec)
{
    return strchr(spec, ':') && find_kind(spec);
}

SimStatus sim_mask_make(const char *spec, int kv_tiles, int q_tiles, BlockMask *out, SimError *err)
{
    return sim_mask_make_capped(spec, kv_tiles, q_tiles, INT64_MAX, out, err);
}

SimStatus sim_mask_make_capped(const char *spec, int kv_tiles, int q_tiles, int64_t max_bytes, BlockMask *out,
                               SimError *err)
{
    *out = (BlockMask){ .kv_tiles = kv_tiles, .q_tiles = q_tiles };
    if (kv_tiles < 1 || q_tiles < 1 || (int64_t)kv_tiles * q_tiles > (1LL << 30))
        return sim_error_set(err, SIM_ERR_USAGE, "--mask %s: %d x %d tiles is outside 1 .. 2^30 pairs", spec, kv_tiles,
                             q_tiles);
    if ((int64_t)kv_tiles * q_tiles > max_bytes)
        return sim_error_set(err, SIM_ERR_LIMIT, "--mask %s: %d KV x %d Q tiles take %.0f MB as a mask, over the cap "
                             "of %.0f MB (--max-memory-mb)", spec, kv_tiles, q_tiles,
                             ceil((double)kv_tiles * q_tiles / (1 << 20)), (double)max_bytes / (1 << 20));
    out->keep = g_new0(uint8_t, (int64_t)kv_tiles * q_tiles);
    snprintf(out->spec, sizeof out->spec, "%s", spec);
    const MaskKind *k = find_kind(spec);
    const char *colon = strchr(spec, ':');
    if (k)
        k->make(out, colon ? colon + 1 : "", spec, err);
    else
        bad(err, spec, "unknown mask");
    if (err->status)
        sim_mask_clear(out);
    return err->status;
}

void sim_mask_apply(const BlockMask *m, Workload *wl)
{
    wl->kv_tiles = m->kv_tiles, wl->q_tiles = m->q_tiles, wl->tile_ratio = 1;
    bool is_causal = strcmp(m->spec, "causal") == 0 && m->kv_tiles == m->q_tiles;
    if (strcmp(m->spec, "full") == 0 || is_causal) /* the registered policies' own masks */
        wl->mask = is_causal ? MASK_CAUSAL : MASK_FULL, wl->keep = NULL;
    else
        wl->mask = MASK_BLOCK, wl->keep = m->keep;
}

int64_t sim_mask_count(const BlockMask *m)
{
    int64_t n = 0;
    for (int64_t i = 0; i < (int64_t)m->kv_tiles * m->q_tiles; i++)
        n += m->keep[i] != 0;
    return n;
}

void sim_mask_clear(BlockMask *m)
{
    g_free(m->keep);
    m->keep = NULL;
}

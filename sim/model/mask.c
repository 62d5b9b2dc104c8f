/* Block mask generators. Every generator keeps the diagonal-or-below structure the spec describes; the
 * random mask draws from GLib's seeded Mersenne Twister, so a seed gives the same mask on any machine. */
#include "mask.h"

#include <errno.h>
#include <glib.h>
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
    return sim_error_set(err, SIM_ERR_USAGE, "--mask %s: %s (full, causal, window:W, window:L:R, document:L1,L2,..., "
                         "prefix:P, random:DENSITY:SEED; tile units)", spec, why);
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

SimStatus sim_mask_make(const char *spec, int kv_tiles, int q_tiles, BlockMask *out, SimError *err)
{
    *out = (BlockMask){ .kv_tiles = kv_tiles, .q_tiles = q_tiles };
    if (kv_tiles < 1 || q_tiles < 1 || (int64_t)kv_tiles * q_tiles > (1LL << 30))
        return sim_error_set(err, SIM_ERR_USAGE, "--mask %s: %d x %d tiles is outside 1 .. 2^30 pairs", spec, kv_tiles,
                             q_tiles);
    out->keep = g_new0(uint8_t, (int64_t)kv_tiles * q_tiles);
    snprintf(out->spec, sizeof out->spec, "%s", spec);
    const char *colon = strchr(spec, ':'), *arg = colon ? colon + 1 : "";
    size_t kind = colon ? (size_t)(colon - spec) : strlen(spec);
    int64_t prefix;
    const char *end;
    if (strcmp(spec, "full") == 0 || strcmp(spec, "causal") == 0) {
        for (int kv = 0; kv < kv_tiles; kv++)
            for (int q = 0; q < q_tiles; q++)
                out->keep[(int64_t)kv * q_tiles + q] = spec[0] == 'f' || kv <= q;
    } else if (kind == 6 && strncmp(spec, "window", 6) == 0)
        make_window(out, arg, spec, err);
    else if (kind == 8 && strncmp(spec, "document", 8) == 0)
        make_document(out, arg, spec, err);
    else if (kind == 6 && strncmp(spec, "random", 6) == 0)
        make_random(out, arg, spec, err);
    else if (kind == 6 && strncmp(spec, "prefix", 6) == 0) {
        if (!parse_int(arg, 0, 1 << 24, &prefix, &end) || *end)
            bad(err, spec, "prefix takes a tile count");
        for (int kv = 0; !err->status && kv < kv_tiles; kv++)
            for (int q = 0; q < q_tiles; q++)
                out->keep[(int64_t)kv * q_tiles + q] = kv < prefix || kv <= q;
    } else
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

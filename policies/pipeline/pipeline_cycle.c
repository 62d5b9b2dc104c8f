/* Cycle algebra of the preload pipeline: the serial Cycle, Preload counts, parsing and formatting a Cycle,
 * and the durations one engine sees. Timing-free: no engine runs here. Invariant: every Cycle built or
 * parsed here has offsets that never decrease along the chain. */
#include "pipeline_policy.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_cube_stage(int j) { return j % 2 == 0; }

void pipe_cycle_serial(int n_pairs, PipeCycle *out)
{
    *out = (PipeCycle){ .n_pairs = n_pairs, .is_serial = true };
    for (int j = 0; j < 2 * n_pairs; j++)
        out->order[j] = j;
}

int pipe_cycle_preload(const PipeCycle *c)
{
    int hi = 0;
    for (int j = 0; j < 2 * c->n_pairs; j++)
        hi = MAX(hi, c->offset[j]);
    return hi - c->offset[0];
}

void pipe_cycle_set_preload(PipeCycle *c, int preload)
{
    int last = 2 * c->n_pairs - 1, have = pipe_cycle_preload(c);
    if (preload >= have) {
        c->offset[last] += preload - have;
        return;
    }
    /* Close external chain edges from the start of the chain: shift every later stage one Cycle back. */
    for (int j = 0; j < last && have > preload; j++)
        while (have > preload && c->offset[j + 1] > c->offset[j]) {
            for (int t = j + 1; t <= last; t++)
                c->offset[t]--;
            have--;
        }
}

static SimStatus parse_stage(const char *tok, int n_pairs, int *stage, int *offset, SimError *err)
{
    char *end;
    if ((tok[0] != 'C' && tok[0] != 'V') || tok[1] < '1' || tok[1] > '9')
        return sim_error_set(err, SIM_ERR_USAGE, "--order expects stages like C1 or V2+1, got '%s'", tok);
    long pair = strtol(tok + 1, &end, 10);
    long off = 0;
    if (*end == '+') {
        const char *digits = end + 1;
        off = strtol(digits, &end, 10);
        if (end == digits || *digits < '0' || *digits > '9' || off > PIPE_MAX_BLOCKS)
            return sim_error_set(err, SIM_ERR_USAGE, "--order: bad offset in '%s' (want +K, K >= 0)", tok);
    }
    if (*end)
        return sim_error_set(err, SIM_ERR_USAGE, "--order expects stages like C1 or V2+1, got '%s'", tok);
    if (pair < 1 || pair > n_pairs)
        return sim_error_set(err, SIM_ERR_USAGE, "--order names stage %s but there are %d CV pairs", tok,
                             n_pairs);
    *stage = 2 * (int)(pair - 1) + (tok[0] == 'V');
    *offset = (int)off;
    return SIM_OK;
}

SimStatus pipe_cycle_parse(const char *text, int n_pairs, PipeCycle *out, SimError *err)
{
    *out = (PipeCycle){ .n_pairs = n_pairs };
    bool is_seen[PIPE_MAX_STAGES] = { false };
    int count = 0;
    gchar **toks = g_strsplit(text, ",", -1);
    for (int i = 0; toks[i] && !err->status; i++) {
        int stage = 0, off = 0;
        if (parse_stage(toks[i], n_pairs, &stage, &off, err))
            break;
        if (is_seen[stage])
            sim_error_set(err, SIM_ERR_USAGE, "--order lists %c%d twice", "CV"[stage % 2], stage / 2 + 1);
        else {
            is_seen[stage] = true;
            out->order[count++] = stage;
            out->offset[stage] = off;
        }
    }
    g_strfreev(toks);
    if (!err->status && count != 2 * n_pairs)
        sim_error_set(err, SIM_ERR_USAGE, "--order lists %d stages but a Cycle has %d (every C and V once)",
                      count, 2 * n_pairs);
    for (int j = 0; !err->status && j + 1 < 2 * n_pairs; j++)
        if (out->offset[j + 1] < out->offset[j])
            sim_error_set(err, SIM_ERR_USAGE, "--order: %c%d+%d consumes %c%d+%d of a later block; offsets "
                          "must not decrease along the chain", "CV"[(j + 1) % 2], (j + 1) / 2 + 1,
                          out->offset[j + 1], "CV"[j % 2], j / 2 + 1, out->offset[j]);
    return err->status;
}

void pipe_cycle_format(const PipeCycle *c, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && at < len)
            at += (size_t)snprintf(buf + at, len - at, "|");
        for (int i = 0; i < 2 * c->n_pairs; i++) {
            int j = c->order[i];
            if (is_cube_stage(j) == (pass == 0) && at < len)
                at += (size_t)snprintf(buf + at, len - at, " %c%d+%d", "CV"[j % 2], j / 2 + 1, c->offset[j]);
        }
        if (pass == 0 && at < len)
            at += (size_t)snprintf(buf + at, len - at, " ");
    }
}

static int64_t part_ns(int64_t d, int parts, int k)
{
    return d / parts + (k < d % parts);
}

void pipe_effective_durations(const PipeWorkload *wl, bool is_last_block, int64_t *c, int64_t *v)
{
    for (int p = 0; p < wl->n_pairs; p++) {
        c[p] = part_ns(wl->c_ns[p], wl->n_cube, 0);
        v[p] = part_ns(is_last_block && wl->has_v_last ? wl->v_last_ns[p] : wl->v_ns[p], wl->n_vector, 0);
    }
}


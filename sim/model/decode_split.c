/* Split policies for decode: FA3's num_splits_heuristic, the paper's sequence-aware rule, a fixed count
 * and the simulator's own optimum, each a const ops struct in the one table below.
 * Invariant: every policy returns a split count in 1..SIM_DECODE_MAX_SPLITS; the two heuristics are pure
 * functions of the geometry and mirror upstream's float arithmetic so that ties round as on the GPU host. */
#include "decode.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define L2_BYTES (50 * 1024 * 1024) /* upstream assumes a 50 MB L2 */
#define MAX_SPLITS_HEURISTIC 128     /* get_num_splits passes 128 */

/* Rule 1 of upstream: enough m-blocks to nearly fill the SMs -> 1 split, unless one KV head exceeds the
 * L2, the mask is full and there are at least two waves of m-blocks. Returns false to fall through. */
static bool saturated_rule(const DecodeGeometry *g, int n_sm, bool is_causal, int max_splits, int *splits)
{
    if (!((float)g->total_mblocks >= 0.8f * (float)n_sm))
        return false;
    if (g->size_one_kv_head > L2_BYTES && g->num_m_blocks >= 2 * (int64_t)n_sm && !is_causal) {
        int64_t s = (g->size_one_kv_head + L2_BYTES - 1) / L2_BYTES;
        *splits = s < max_splits ? (int)s : max_splits;
    } else {
        *splits = 1;
    }
    return true;
}

/* Upstream's wave-efficiency loop: the smallest s whose efficiency (waves / ceil(waves)) is at least
 * 0.85 of the best over s = 1..min(max_splits, n_sm, n_blocks). */
static int efficiency_loop(const DecodeGeometry *g, int n_sm, int max_splits)
{
    int64_t cap = max_splits;
    if (n_sm < cap)
        cap = n_sm;
    if (g->n_blocks < cap)
        cap = g->n_blocks;
    float eff[MAX_SPLITS_HEURISTIC > SIM_DECODE_MAX_SPLITS ? MAX_SPLITS_HEURISTIC : SIM_DECODE_MAX_SPLITS];
    float max_eff = 0.f;
    for (int s = 1; s <= cap; s++) {
        float n_waves = (float)(g->total_mblocks * s) / (float)n_sm;
        eff[s - 1] = n_waves / ceilf(n_waves);
        if (eff[s - 1] > max_eff)
            max_eff = eff[s - 1];
    }
    for (int s = 1; s <= cap; s++)
        if ((double)eff[s - 1] >= 0.85 * (double)max_eff)
            return s;
    return 1;
}

static int clamp_max_splits(int max_splits)
{
    return max_splits < 1 ? 1 : max_splits > SIM_DECODE_MAX_SPLITS ? SIM_DECODE_MAX_SPLITS : max_splits;
}

int sim_decode_fa3_splits(const DecodeGeometry *g, int n_sm, bool is_causal, int max_splits)
{
    int s;
    max_splits = clamp_max_splits(max_splits);
    if (saturated_rule(g, n_sm, is_causal, max_splits, &s))
        return s;
    if (g->n_blocks <= 4) /* "we never split for hdim = 128 and seqlen_k = 512" */
        return 1;
    return efficiency_loop(g, n_sm, max_splits);
}

int sim_decode_seq_aware_splits(const DecodeGeometry *g, int n_sm, bool is_causal, int max_splits)
{
    int s;
    max_splits = clamp_max_splits(max_splits);
    if (saturated_rule(g, n_sm, is_causal, max_splits, &s))
        return s;
    if (g->n_blocks <= 3)                           /* guard 1: short contexts unchanged */
        return 1;
    if (g->n_blocks <= 4 && g->total_mblocks >= 4)  /* guard 2: enough tiles */
        return 1;
    if (g->n_blocks == 4 && g->total_mblocks < 4)   /* the low-tile boundary override */
        return 3;
    return efficiency_loop(g, n_sm, max_splits);
}

SimStatus sim_decode_best_splits(const DecodeShape *w, const DecodeCosts *c, int *splits, int64_t *latency_ns,
                                 SimError *err)
{
    DecodeGeometry g;
    if (sim_decode_geometry(w, &g, err) != SIM_OK)
        return err->status;
    int64_t cap = g.n_blocks < MAX_SPLITS_HEURISTIC ? g.n_blocks : MAX_SPLITS_HEURISTIC;
    int best = 0;
    int64_t best_ns = 0;
    for (int s = 1; s <= cap; s++) {
        DecodeRun r;
        if (sim_decode_run(w, c, s, &r, err) != SIM_OK)
            return err->status;
        if (!best || r.latency_ns < best_ns)
            best = s, best_ns = r.latency_ns;
    }
    *splits = best;
    if (latency_ns)
        *latency_ns = best_ns;
    return SIM_OK;
}

static SimStatus choose_fa3(const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c, int arg,
                            int *splits, SimError *err)
{
    (void)c, (void)arg, (void)err;
    *splits = sim_decode_fa3_splits(g, w->n_sm, false, MAX_SPLITS_HEURISTIC);
    return SIM_OK;
}

static SimStatus choose_seq_aware(const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c, int arg,
                                  int *splits, SimError *err)
{
    (void)c, (void)arg, (void)err;
    *splits = sim_decode_seq_aware_splits(g, w->n_sm, false, MAX_SPLITS_HEURISTIC);
    return SIM_OK;
}

static SimStatus choose_fixed(const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c, int arg,
                              int *splits, SimError *err)
{
    (void)w, (void)g, (void)c, (void)err;
    *splits = arg;
    return SIM_OK;
}

static SimStatus choose_best(const DecodeShape *w, const DecodeGeometry *g, const DecodeCosts *c, int arg,
                             int *splits, SimError *err)
{
    (void)g, (void)arg;
    return sim_decode_best_splits(w, c, splits, NULL, err);
}

static const DecodeSplitOps split_fa3 = {
    "fa3", "FA3's num_splits_heuristic: no split if num_n_blocks <= 4, else the 0.85 wave-efficiency loop",
    false, choose_fa3 };
static const DecodeSplitOps split_seq_aware = {
    "seq-aware", "the paper's rule: as fa3, but 3 splits when num_n_blocks == 4 and total_mblocks < 4",
    false, choose_seq_aware };
static const DecodeSplitOps split_fixed = {
    "fixed", "fixed:S runs S splits (1..256), as a num_splits passed explicitly", true, choose_fixed };
static const DecodeSplitOps split_best = {
    "best", "the simulator's optimum over s = 1..min(128, num_n_blocks), fewest splits on ties", false,
    choose_best };

static const DecodeSplitOps *const split_table[] = { &split_fa3, &split_seq_aware, &split_fixed, &split_best };

int sim_decode_split_count(void)
{
    return (int)(sizeof split_table / sizeof split_table[0]);
}

const DecodeSplitOps *sim_decode_split_at(int i)
{
    return i >= 0 && i < sim_decode_split_count() ? split_table[i] : NULL;
}

SimStatus sim_decode_split_parse(const char *text, DecodeSplit *out, SimError *err)
{
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    for (int i = 0; i < sim_decode_split_count(); i++) {
        const DecodeSplitOps *ops = split_table[i];
        if (strlen(ops->name) != len || strncmp(ops->name, text, len) != 0)
            continue;
        if (!ops->has_arg && colon)
            break;
        *out = (DecodeSplit){ .ops = ops };
        if (!ops->has_arg)
            return SIM_OK;
        char *end;
        errno = 0;
        long v = colon ? strtol(colon + 1, &end, 10) : 0;
        if (!colon || colon[1] < '0' || colon[1] > '9' || errno || *end || v < 1 || v > SIM_DECODE_MAX_SPLITS)
            break;
        out->arg = (int)v;
        return SIM_OK;
    }
    return sim_error_set(err, SIM_ERR_USAGE, "--split-policy expects fa3, seq-aware, best or fixed:S with S "
                         "from 1 to %d, got '%s'", SIM_DECODE_MAX_SPLITS, text);
}

SimStatus sim_decode_split_choose(const DecodeSplit *sp, const DecodeShape *w, const DecodeCosts *c,
                                  int *splits, SimError *err)
{
    DecodeGeometry g;
    if (sim_decode_geometry(w, &g, err) != SIM_OK)
        return err->status;
    return sp->ops->choose(w, &g, c, sp->arg, splits, err);
}

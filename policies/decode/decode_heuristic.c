/* FA3's num_splits_heuristic and the paper's sequence-aware rule, shared by the fa3 and seq-aware split
 * policies and by the model's sweeps, and the simulated-optimum search of `best`. Invariant: the two
 * heuristics are pure functions of the geometry and mirror upstream's float arithmetic so that ties round
 * as on the GPU host. */
#include "decode_policy.h"

#include <math.h>

#define L2_BYTES (50 * 1024 * 1024) /* upstream assumes a 50 MB L2 */

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
    float eff[SIM_DECODE_MAX_SPLITS]; /* cap <= max_splits <= SIM_DECODE_MAX_SPLITS */
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

SimStatus decode_split_argmin(const DecodeSplitQuery *q, int *splits, int64_t *latency_ns, SimError *err)
{
    int64_t n_blocks = q->geometry->n_blocks;
    int64_t cap = n_blocks < SIM_DECODE_MAX_SPLITS_HEURISTIC ? n_blocks : SIM_DECODE_MAX_SPLITS_HEURISTIC;
    int best = 0;
    int64_t best_ns = 0;
    for (int s = 1; s <= cap; s++) {
        int64_t ns;
        if (q->simulate(q->simulate_ctx, s, &ns, err) != SIM_OK)
            return err->status;
        if (!best || ns < best_ns)
            best = s, best_ns = ns;
    }
    *splits = best;
    if (latency_ns)
        *latency_ns = best_ns;
    return SIM_OK;
}

/* The decode questions beyond one run: the split sweep of the paper's Figure 3 (best, plateau, the
 * heuristics' picks) and the paper's 160-configuration regression (rows, per-policy stats against fa3,
 * regrets). Invariant: grid row i is (batch i / 40, L_K i / 5 % 8, H_kv i % 5), the order it is printed in. */
#include "decode.h"

#include <math.h>

SimStatus sim_decode_sweep(const DecodeShape *w, const DecodeCosts *c, DecodeSweep *sw, SimError *err)
{
    DecodeGeometry g;
    if (sim_decode_geometry(w, &g, err) != SIM_OK || sim_decode_check_size(w, c, SIM_DECODE_SWEEP_MAX, err) != SIM_OK)
        return err->status;
    sw->best = 1;
    for (int s = 1; s <= SIM_DECODE_SWEEP_MAX; s++) {
        if (sim_decode_run(w, c, s, &sw->runs[s - 1], err) != SIM_OK)
            return err->status;
        if (sw->runs[s - 1].latency_ns < sw->runs[sw->best - 1].latency_ns)
            sw->best = s;
    }
    int64_t best_ns = sw->runs[sw->best - 1].latency_ns;
    for (sw->plateau = 1; 100 * sw->runs[sw->plateau - 1].latency_ns > SIM_DECODE_PLATEAU_PERCENT * best_ns;)
        sw->plateau++;
    sw->fa3 = sim_decode_fa3_splits(&g, w->n_sm, false, SIM_DECODE_MAX_SPLITS_HEURISTIC);
    sw->seq_aware = sim_decode_seq_aware_splits(&g, w->n_sm, false, SIM_DECODE_MAX_SPLITS_HEURISTIC);
    return SIM_OK;
}

static const int grid_batch[] = { 1, 2, 4, 8 };
static const int64_t grid_lk[] = { 128, 256, 384, 512, 1024, 2048, 4096, 8192 };
static const int grid_hkv[] = { 1, 2, 4, 8, 32 };

SimStatus sim_decode_grid_row(const DecodeShape *base, const DecodeCosts *c, int i, DecodeGridRow *row,
                              SimError *err)
{
    row->w = *base;
    row->w.batch = grid_batch[i / 40];
    row->w.lk = grid_lk[i / 5 % 8];
    row->w.hkv = grid_hkv[i % 5];
    row->w.hq = SIM_DECODE_GRID_GROUP * row->w.hkv;
    DecodeGeometry g;
    int best = 0, max = SIM_DECODE_MAX_SPLITS_HEURISTIC;
    if (sim_decode_geometry(&row->w, &g, err) != SIM_OK ||
        sim_decode_run(&row->w, c, sim_decode_fa3_splits(&g, row->w.n_sm, false, max), &row->fa3, err) ||
        sim_decode_run(&row->w, c, sim_decode_seq_aware_splits(&g, row->w.n_sm, false, max), &row->seq, err) ||
        sim_decode_best_splits(&row->w, c, &best, NULL, err) ||
        sim_decode_run(&row->w, c, best, &row->best, err))
        return err->status;
    row->n_blocks = g.n_blocks;
    return SIM_OK;
}

double sim_decode_speedup(const DecodeRun *base, const DecodeRun *r)
{
    return (double)base->latency_ns / (double)r->latency_ns;
}

DecodeGridStats sim_decode_grid_stats_init(void)
{
    return (DecodeGridStats){ .min = INFINITY };
}

void sim_decode_grid_stats_add(DecodeGridStats *st, const DecodeRun *fa3, const DecodeRun *r)
{
    double x = sim_decode_speedup(fa3, r);
    st->changed += r->splits != fa3->splits;
    st->slower += r->latency_ns > fa3->latency_ns;
    st->log_sum += log(x);
    st->min = fmin(st->min, x);
    st->max = fmax(st->max, x);
}

double sim_decode_grid_geomean(const DecodeGridStats *st)
{
    return exp(st->log_sum / SIM_DECODE_GRID_COUNT);
}

DecodeGridRegret sim_decode_grid_regret(const DecodeGridRow *rows)
{
    DecodeGridRegret g = { 0 };
    for (int i = 0; i < SIM_DECODE_GRID_COUNT; i++) {
        const DecodeGridRow *r = &rows[i], *f = &rows[g.worst_fa3], *s = &rows[g.worst_seq];
        g.beats_both += r->best.latency_ns < r->fa3.latency_ns && r->best.latency_ns < r->seq.latency_ns;
        if (sim_decode_speedup(&r->fa3, &r->best) > sim_decode_speedup(&f->fa3, &f->best))
            g.worst_fa3 = i;
        if (sim_decode_speedup(&r->seq, &r->best) > sim_decode_speedup(&s->seq, &s->best))
            g.worst_seq = i;
    }
    return g;
}

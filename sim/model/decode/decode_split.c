/* Split policies meet the decode model: a policy's query gets sim_decode_run as its clock, so `best` can
 * simulate while policies/ stays free of the model. Invariant: the chosen count is the policy's; this file
 * adds only the geometry and the clock. */
#include "decode.h"

typedef struct {
    const DecodeShape *w;
    const DecodeCosts *c;
} Clock;

static SimStatus simulate(void *ctx, int splits, int64_t *latency_ns, SimError *err)
{
    const Clock *k = ctx;
    DecodeRun r;
    if (sim_decode_run(k->w, k->c, splits, &r, err) == SIM_OK)
        *latency_ns = r.latency_ns;
    return err->status;
}

SimStatus sim_decode_split_choose(const DecodeSplit *sp, const DecodeShape *w, const DecodeCosts *c,
                                  int *splits, SimError *err)
{
    DecodeGeometry g;
    if (sim_decode_geometry(w, &g, err) != SIM_OK)
        return err->status;
    Clock k = { w, c };
    DecodeSplitQuery q = { .shape = w, .geometry = &g, .arg = sp->arg, .simulate = simulate, .simulate_ctx = &k };
    return decode_split_choose(sp, &q, splits, err);
}

SimStatus sim_decode_best_splits(const DecodeShape *w, const DecodeCosts *c, int *splits, int64_t *latency_ns,
                                 SimError *err)
{
    DecodeGeometry g;
    if (sim_decode_geometry(w, &g, err) != SIM_OK)
        return err->status;
    Clock k = { w, c };
    DecodeSplitQuery q = { .shape = w, .geometry = &g, .simulate = simulate, .simulate_ctx = &k };
    return decode_split_argmin(&q, splits, latency_ns, err);
}

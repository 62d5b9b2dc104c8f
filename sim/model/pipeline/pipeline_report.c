/* The reports of `sim pipeline`: AMLA vs base FlashAttention on MLA decode (AMLA, Liao et al. 2025, Table 5), FA vs VFA
 * per-tile vector work (the VFA paper's Table 1), and Theorem B.1 / Lemma B.2 on seeded random instances. Each
 * fills rows; printing is sim/io's. Invariant: every number is a pure function of the inputs (and seed). */
#include "pipeline.h"

#include <glib.h>
#include <string.h>

/* AMLA (Liao et al. 2025) Table 5: FLOPS utilisation of AMLA on Ascend 910 and of FlashMLA on the GPU, per (Sq, Sk). */
static const int report_sk[6] = { 1024, 2048, 3072, 4096, 6144, 16384 };
static const double paper_910_fu[2][6] = { { 40.9, 55.1, 62.4, 64.1, 70.2, 74.5 },
                                           { 57.3, 70.7, 75.8, 79.7, 82.2, 86.8 } };
static const double paper_gpu_fu[2][6] = { { 32.6, 43.3, 48.0, 51.5, 52.6, 57.8 },
                                           { 48.1, 56.5, 59.8, 59.2, 63.0, 67.4 } };

/* One pipeline run for a report: durations c, v of one block; v_last for the last block if not NULL;
 * the rotation's Cycle unless fixed. */
static SimStatus report_run(const int64_t *c, const int64_t *v, const int64_t *v_last, int64_t blocks,
                            int n_vector, const PipeCycle *fixed, PipeResult *r, SimError *err)
{
    PipeWorkload wl = { .n_pairs = 2, .blocks = blocks, .n_cube = 1, .n_vector = n_vector };
    memcpy(wl.c_ns, c, 2 * sizeof *c);
    memcpy(wl.v_ns, v, 2 * sizeof *v);
    if (v_last) {
        wl.has_v_last = true;
        memcpy(wl.v_last_ns, v_last, 2 * sizeof *v_last);
    }
    PipeCycle cy;
    PipeRotation rot;
    int64_t ce[PIPE_MAX_PAIRS], ve[PIPE_MAX_PAIRS];
    pipe_effective_durations(&wl, false, ce, ve);
    pipe_rotation(2, ce, ve, &rot, &cy);
    return pipe_run(&wl, fixed ? fixed : &cy, r, err);
}

SimStatus pipe_amla_report(const PipeAscendModel *m, PipeAmlaRow *rows, SimError *err)
{
    const PipePolicyOps *amla = pipe_policy_find("amla");   /* the report is about this policy's Cycle */
    PipeCycle amla_cycle;
    PipeWorkload two = { .n_pairs = 2, .blocks = 1, .n_cube = 1, .n_vector = 2 };
    g_assert(amla);
    if (pipe_policy_build(amla, &two, NULL, &amla_cycle, err) != SIM_OK)
        return err->status;
    for (int sq = 1; sq <= 2 && !err->status; sq++)
        for (int i = 0; i < 6 && !err->status; i++) {
            PipeAmlaRow *row = &rows[(sq - 1) * 6 + i];
            int64_t vb[2], ca[2], va[2];
            *row = (PipeAmlaRow){ .sq = sq, .sk = report_sk[i], .blocks = report_sk[i] / 512,
                                  .paper_910_percent = paper_910_fu[sq - 1][i],
                                  .paper_gpu_percent = paper_gpu_fu[sq - 1][i] };
            pipe_mla_costs(m, 128 * sq, false, row->c_ns, vb);
            pipe_mla_costs(m, 128 * sq, true, ca, va);
            int64_t last[2] = { va[0], vb[1] };   /* the last block normalises O: one rescale pass */
            PipeResult base, am;
            report_run(row->c_ns, vb, NULL, row->blocks, 2, NULL, &base, err);
            report_run(ca, va, last, row->blocks, 2, &amla_cycle, &am, err);
            row->base_v_engine_ns[0] = (vb[0] + 1) / 2, row->base_v_engine_ns[1] = (vb[1] + 1) / 2;
            row->amla_v1_engine_ns = (va[0] + 1) / 2;
            row->is_base_stall_free = base.is_stall_free;
            row->base_cube_busy = base.cube_busy_fraction, row->amla_cube_busy = am.cube_busy_fraction;
            pipe_result_clear(&base);
            pipe_result_clear(&am);
        }
    return err->status;
}

SimStatus pipe_vfa_report(PipeVfaRow *rows, SimError *err)
{
    static const int config[4][2] = { { 16, 32 }, { 8, 32 }, { 4, 32 }, { 4, 16 } };
    int64_t baseline = 0;
    for (int i = 0; i < 4 && !err->status; i++) {
        int64_t fa_makespan = 0;
        for (int is_vfa = 0; is_vfa <= 1 && !err->status; is_vfa++) {
            PipeVfaRow *row = &rows[2 * i + is_vfa];
            int64_t c[2], v[2], fa_c[2], fa_v[2];
            pipe_vfa_costs(config[i][0], config[i][1], is_vfa, c, v);
            pipe_vfa_costs(config[i][0], config[i][1], false, fa_c, fa_v);
            PipeResult r;
            /* VFA still rescales on its local (last) block */
            if (report_run(c, v, is_vfa ? fa_v : NULL, PIPE_VFA_REPORT_BLOCKS, 1, NULL, &r, err) == SIM_OK) {
                if (!is_vfa)
                    fa_makespan = r.makespan_ns;
                if (i == 0 && !is_vfa)
                    baseline = r.makespan_ns;
                *row = (PipeVfaRow){ .tensor_bits = config[i][0], .vector_bits = config[i][1], .is_vfa = is_vfa,
                                     .sum_c_ns = c[0] + c[1], .sum_v_ns = v[0] + v[1], .makespan_ns = r.makespan_ns,
                                     .vs_fa = (double)fa_makespan / (double)r.makespan_ns,
                                     .vs_base = (double)baseline / (double)r.makespan_ns };
            }
            pipe_result_clear(&r);
        }
    }
    return err->status;
}

static int64_t sum_of(const int64_t *x, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* Durations uniform in [1, 1000]; every other instance made Vector-dominated (one V stage raised). */
static void theorem_instance(GRand *g, int n, int t, int64_t *c, int64_t *v)
{
    for (int p = 0; p < n; p++)
        c[p] = g_rand_int_range(g, 1, 1001), v[p] = g_rand_int_range(g, 1, 1001);
    int64_t *big = t % 2 ? v : c, *small = t % 2 ? c : v;
    if (sum_of(big, n) <= sum_of(small, n))
        big[g_rand_int_range(g, 0, n)] += sum_of(small, n) - sum_of(big, n) + 1;
}

/* Lemma B.2's construction on the Cube stages c: V_k + C_j > sum C for all j, the other V small. */
static bool lemma_needs_n(GRand *g, int n, const int64_t *c)
{
    int k = g_rand_int_range(g, 0, n);
    int64_t lo = c[0], small[PIPE_MAX_PAIRS];
    for (int p = 1; p < n; p++)
        lo = MIN(lo, c[p]);
    for (int p = 0; p < n; p++)
        small[p] = p == k ? sum_of(c, n) - lo + 1 : (lo - 1) / n;
    return pipe_min_preload(n, c, small, NULL) == n;
}

void pipe_theorem_report(uint32_t seed, PipeTheoremRow *rows)
{
    static const int count[7] = { 0, 2000, 2000, 1500, 600, 200, 40 };
    GRand *g = g_rand_new_with_seed(seed);
    for (int n = 1; n <= PIPE_MAX_BRUTE_PAIRS; n++) {
        PipeTheoremRow *row = &rows[n - 1];
        *row = (PipeTheoremRow){ .n = n, .instances = count[n] };
        for (int t = 0; t < count[n]; t++) {
            int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
            theorem_instance(g, n, t, c, v);
            PipeRotation rot;
            PipeCycle cy;
            pipe_rotation(n, c, v, &rot, &cy);
            row->cube_dominated += rot.is_cube_dominated;
            row->rotation_stall_free += pipe_cycle_period_fast(&cy, c, v) == MAX(sum_of(c, n), sum_of(v, n));
            int m = pipe_min_preload(n, c, v, NULL);
            row->min_below[m < n - 1 ? 0 : m == n - 1 ? 1 : 2]++;
            if (t % 5 == 0) {
                row->lemma_instances++;
                row->lemma_min_n += lemma_needs_n(g, n, c);
            }
        }
    }
    g_rand_free(g);
}

/* Cube/Vector preload pipelines as engine programs: the program of a whole pipeline (Preload, steady
 * Cycles, drain), the engine run of one isolated Cycle (the steady period) and of the whole pipeline with
 * its analysis, and the Ascend 910 / VFA stage costs. Invariant: ops are added Cycle by Cycle in the
 * Cycle's issue order, so each engine's program order is the pipeline's issue order. */
#include "pipeline.h"

#include <glib.h>

static bool is_cube_stage(int j) { return j % 2 == 0; }

static int64_t part_ns(int64_t d, int parts, int k)
{
    return d / parts + (k < d % parts);
}

typedef struct {
    const PipeWorkload *wl;
    SimProgram *p;
    int64_t *first_op;     /* per (block, stage): id of its part 0; parts are consecutive */
} Builder;

static int stage_parts(const PipeWorkload *wl, int j) { return is_cube_stage(j) ? wl->n_cube : wl->n_vector; }

static void add_stage(Builder *b, int64_t block, int j)
{
    const PipeWorkload *wl = b->wl;
    int parts = stage_parts(wl, j), p = j / 2;
    int64_t d = is_cube_stage(j) ? wl->c_ns[p]
                : block == wl->blocks - 1 && wl->has_v_last ? wl->v_last_ns[p] : wl->v_ns[p];
    for (int k = 0; k < parts; k++) {
        int engine = is_cube_stage(j) ? k : wl->n_cube + k;
        int64_t id = sim_program_add_op(b->p, engine, is_cube_stage(j) ? SIM_OP_COMPUTE : SIM_OP_VECTOR,
                                        part_ns(d, parts, k), (int32_t)block);
        if (k == 0)
            b->first_op[block * 2 * wl->n_pairs + j] = id;
    }
}

/* Every part of (bf, jf) -> every part of (bt, jt). */
static void connect(Builder *b, int64_t bf, int jf, int64_t bt, int jt, SimEdgeKind kind)
{
    int s = 2 * b->wl->n_pairs;
    int64_t from = b->first_op[bf * s + jf], to = b->first_op[bt * s + jt];
    for (int i = 0; i < stage_parts(b->wl, jf); i++)
        for (int k = 0; k < stage_parts(b->wl, jt); k++)
            sim_program_add_edge(b->p, from + i, to + k, 0, kind);
}

/* Replays the add order of pipe_program_new: per Cycle, per stage in issue order, its parts. */
static void stage_of_ops(const PipeWorkload *wl, const PipeCycle *c, uint8_t *out)
{
    int s = 2 * wl->n_pairs, hi = 0;
    for (int j = 0; j < s; j++)
        hi = MAX(hi, c->offset[j]);
    int64_t op = 0;
    for (int64_t cycle = c->offset[0]; cycle < wl->blocks + hi; cycle++)
        for (int i = 0; i < s; i++) {
            int64_t block = cycle - c->offset[c->order[i]];
            if (block >= 0 && block < wl->blocks)
                for (int k = 0; k < stage_parts(wl, c->order[i]); k++)
                    out[op++] = (uint8_t)c->order[i];
        }
}

SimProgram *pipe_program_new(const PipeWorkload *wl, const PipeCycle *c, uint8_t **op_stage)
{
    int s = 2 * wl->n_pairs, hi = 0, lo = c->offset[0];
    for (int j = 0; j < s; j++)
        hi = MAX(hi, c->offset[j]);
    Builder b = { .wl = wl, .p = sim_program_new(1, wl->n_cube + wl->n_vector) };
    b.first_op = g_new(int64_t, wl->blocks * s);
    int64_t parts = wl->n_pairs * (wl->n_cube + wl->n_vector);
    sim_program_reserve(b.p, wl->blocks * parts, wl->blocks * s * (int64_t)(wl->n_cube * wl->n_vector) * 3);
    sim_program_add_cta(b.p, 0);
    for (int64_t cycle = lo; cycle < wl->blocks + hi; cycle++)
        for (int i = 0; i < s; i++) {
            int j = c->order[i];
            int64_t block = cycle - c->offset[j];
            if (block >= 0 && block < wl->blocks)
                add_stage(&b, block, j);
        }
    for (int64_t block = 0; block < wl->blocks; block++)
        for (int j = 0; j + 1 < s; j++) {
            connect(&b, block, j, block, j + 1, SIM_EDGE_DATA);
            if (wl->ring_slots > 0 && block >= wl->ring_slots) /* the slot block-R's consumer frees */
                connect(&b, block - wl->ring_slots, j + 1, block, j, SIM_EDGE_BUFFER);
        }
    if (c->is_serial)
        for (int64_t block = 1; block < wl->blocks; block++)
            connect(&b, block - 1, s - 1, block, 0, SIM_EDGE_DATA);
    g_free(b.first_op);
    sim_program_seal(b.p);
    if (op_stage) {  /* recovered from the engines: stages of one block are added in Cycle order */
        *op_stage = g_new(uint8_t, b.p->op_count);
        stage_of_ops(wl, c, *op_stage);
    }
    return b.p;
}

SimStatus pipe_cycle_period(const PipeCycle *cy, const int64_t *c, const int64_t *v, int ring_slots,
                            int64_t *period_ns, SimError *err)
{
    int s = 2 * cy->n_pairs;
    int64_t id[PIPE_MAX_STAGES];
    SimProgram *p = sim_program_new(1, 2);
    sim_program_add_cta(p, 0);
    for (int i = 0; i < s; i++) {
        int j = cy->order[i];
        id[j] = sim_program_add_op(p, j % 2, is_cube_stage(j) ? SIM_OP_COMPUTE : SIM_OP_VECTOR,
                                   is_cube_stage(j) ? c[j / 2] : v[j / 2], 0);
    }
    for (int j = 0; j + 1 < s; j++) {
        int gap = cy->offset[j + 1] - cy->offset[j];
        if (gap == 0)
            sim_program_add_edge(p, id[j], id[j + 1], 0, SIM_EDGE_DATA);
        if (ring_slots > 0 && gap > ring_slots) {
            sim_program_free(p);
            *period_ns = -1;
            return sim_error_set(err, SIM_ERR_SCHEDULE, "%c%d waits for a ring slot that %c%d frees only in a "
                                 "later Cycle (%d slots, %d Cycles apart)", "CV"[j % 2], j / 2 + 1,
                                 "CV"[(j + 1) % 2], (j + 1) / 2 + 1, ring_slots, gap);
        }
        if (ring_slots > 0 && gap == ring_slots)  /* the slot of block b - R is freed in this Cycle */
            sim_program_add_edge(p, id[j + 1], id[j], 0, SIM_EDGE_BUFFER);
    }
    sim_program_seal(p);
    SimSchedule sched = { 0 };
    SimStatus st = sim_engine_run(p, &sched, err);
    *period_ns = st == SIM_OK ? sched.makespan_ns : -1;
    sim_schedule_clear(&sched);
    sim_program_free(p);
    return st;
}

static void busy(const SimProgram *p, const SimSchedule *s, int n_cube, PipeResult *r)
{
    for (int64_t op = 0; op < p->op_count; op++) {
        if (sim_op_engine(p, op) < n_cube)
            r->cube_busy_ns += sim_op_duration_ns(p, op);
        else
            r->vector_busy_ns += sim_op_duration_ns(p, op);
    }
    r->makespan_ns = s->makespan_ns;
}

SimStatus pipe_run(const PipeWorkload *wl, const PipeCycle *c, PipeResult *r, SimError *err)
{
    *r = (PipeResult){ .preload_count = c->is_serial ? 0 : pipe_cycle_preload(c) };
    int64_t ce[PIPE_MAX_PAIRS], ve[PIPE_MAX_PAIRS], sum_c = 0, sum_v = 0;
    pipe_effective_durations(wl, false, ce, ve);
    for (int p = 0; p < wl->n_pairs; p++)
        sum_c += ce[p], sum_v += ve[p];
    r->bound_ns = MAX(sum_c, sum_v);
    SimError local = { 0 };
    if (pipe_cycle_period(c, ce, ve, wl->ring_slots, &r->steady_cycle_ns, &local) == SIM_OK)
        r->is_stall_free = r->steady_cycle_ns == r->bound_ns;
    else
        g_strlcpy(r->cycle_msg, local.msg, sizeof r->cycle_msg);
    local = (SimError){ 0 };
    r->program = pipe_program_new(wl, c, &r->op_stage);
    if (sim_engine_run(r->program, &r->schedule, &local) == SIM_OK)
        sim_analyze(r->program, &r->schedule, &r->analysis, NULL, err);
    if (local.status == SIM_ERR_SCHEDULE) {
        r->is_deadlock = true;
        g_strlcpy(r->deadlock_msg, local.msg, sizeof r->deadlock_msg);
        return err->status;
    }
    if (local.status)
        return sim_error_set(err, local.status, "%s", local.msg);
    busy(r->program, &r->schedule, wl->n_cube, r);
    r->critical_path_ns = r->analysis.critical_path_ns;
    if (r->makespan_ns > 0) {
        r->cube_busy_fraction = (double)r->cube_busy_ns / ((double)wl->n_cube * (double)r->makespan_ns);
        r->vector_busy_fraction = (double)r->vector_busy_ns / ((double)wl->n_vector * (double)r->makespan_ns);
    }
    return err->status;
}

void pipe_result_clear(PipeResult *r)
{
    sim_analysis_clear(&r->analysis);
    sim_schedule_clear(&r->schedule);
    sim_program_free(r->program);
    g_free(r->op_stage);
    r->program = NULL;
    r->op_stage = NULL;
}

/* Ascend 910 (AMLA, Liao et al. 2025, section 4.2 and Table 5): 48 Cube cores, 16x16x16 BF16 MACs = 8192 FLOP/cycle
 * at 1.8 GHz = 14.75 TFLOPS per core, 707.8 TFLOPS in all (= 614 TFLOPS / 86.8%); HBM 3.2 TB/s / 48.
 * Assumptions (not in the paper): a Vector core does 64 FP32 lanes/cycle at 1.8 GHz; workspace traffic
 * (S, P, O in GM) gets the same per-core GM share as the KV loads (L2 hits would make it faster). */
PipeAscendModel pipe_ascend_910(void)
{
    return (PipeAscendModel){ .cube_flops_per_ns = 8192 * 1.8, .vector_ops_per_ns = 64 * 1.8,
                              .hbm_bytes_per_ns = 3200.0 / 48, .gm_bytes_per_ns = 3200.0 / 48 };
}

static int64_t ns(double x) { return (int64_t)(x + 0.999999); }

/* One KV block of S2 = 512 tokens, Dk 576, Dv 512. Vector stage durations are for one Vector core doing
 * the whole stage with half the core pair's bandwidth (split over two, each half takes half). */
void pipe_mla_costs(const PipeAscendModel *m, int rows, bool is_amla, int64_t *c, int64_t *v)
{
    const double s2 = 512, dk = 576, dv = 512, scores = rows * s2, outs = rows * dv;
    double c1 = 2 * rows * s2 * dk / m->cube_flops_per_ns, c2 = 2 * rows * s2 * dv / m->cube_flops_per_ns;
    double kv_load = s2 * dk * 2 / m->hbm_bytes_per_ns;  /* K (its first 512 columns are V) once per block */
    if (kv_load > c1 + c2)                                /* MTE2 hides under the Cube unless slower */
        c1 += kv_load - (c1 + c2);
    double half_bw = m->gm_bytes_per_ns / 2;   /* each Vector core's share */
    /* V1: scale, rowmax, running max, sub, exp, sum, cast: 8 ops per score; read S fp32, write P bf16. */
    double v1 = MAX(8 * scores / m->vector_ops_per_ns, 6 * scores / half_bw);
    /* Base V2: O = O * exp(m_old - m_new) + T in GM: read O and T, write O (fp32), 2 ops per element.
     * AMLA: an integer add of (n_i - n_{i-1}) << 23 to O (4-byte atomic write), folded into V1. */
    double v2 = MAX(2 * outs / m->vector_ops_per_ns, 12 * outs / half_bw);
    if (is_amla)
        v1 += MAX(outs / m->vector_ops_per_ns, 4 * outs / half_bw), v2 = 0;
    c[0] = ns(c1), c[1] = ns(c2), v[0] = ns(v1), v[1] = ns(v2);
}

/* VFA tile 128 x 128, d = 128. FP16 tensor = 8192 FLOP/ns (a unit: only ratios matter), exp = 1/250 of it
 * per element, linear vector = 8x exp (x2 for V16). Table 1 linear ops per score: FA MUL, MAX, SUB, SUM
 * plus load S / store P (2); VFA drops MAX. Per row: FA running MAX, MAD, exp of the max change; VFA the
 * add. O rescale (FA only) per output element: load, MUL, store. */
void pipe_vfa_costs(int tensor_bits, int vector_bits, bool is_vfa, int64_t *c, int64_t *v)
{
    const double br = 128, bc = 128, d = 128, fp16 = 8192;
    double tensor = fp16 * (tensor_bits == 16 ? 1 : tensor_bits == 8 ? 2 : 6);
    double exp_rate = fp16 / 250, lin = 8 * exp_rate * (vector_bits == 16 ? 2 : 1);
    double gemm = 2 * br * bc * d / tensor;
    double exps = br * bc / exp_rate + (is_vfa ? 0 : br / exp_rate);
    double linear = br * bc * (is_vfa ? 5 : 6) / lin + br * (is_vfa ? 1 : 3) / lin;
    c[0] = ns(gemm), c[1] = ns(gemm);
    v[0] = ns(exps + linear);
    v[1] = is_vfa ? 0 : ns(3 * br * d / lin);
}

/* Outputs of `sim pipeline`: text, JSON (cJSON stays inside this file), renderer specs and report tables.
 * Invariant: formats are those the command has always printed; tests/cli_pipeline.sh and the golden
 * before/after diff of issue 11 hold them byte for byte. */
#include "pipeline_out.h"

#include <cjson/cJSON.h>
#include <inttypes.h>

#include "output.h"
#include "render.h"
#include "dashsim/version.h"

static cJSON *int_array(const int64_t *x, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)x[i]));
    return a;
}

static void add_explain(cJSON *j, const PipeRotation *rot, int n)
{
    cJSON *e = cJSON_AddObjectToObject(j, "explain");
    cJSON_AddStringToObject(e, "case", rot->is_cube_dominated ? "cube-dominated" : "vector-dominated");
    cJSON_AddItemToObject(e, "a_ns", int_array(rot->a_ns, n));
    cJSON_AddItemToObject(e, "prefix_sums_ns", int_array(rot->prefix_ns, n + 1));
    cJSON_AddNumberToObject(e, "k", rot->k);
}

static void add_result(cJSON *j, const PipeResult *r)
{
    cJSON_AddNumberToObject(j, "bound_ns", (double)r->bound_ns);
    cJSON_AddBoolToObject(j, "deadlock", r->is_deadlock);
    if (r->is_deadlock) {
        cJSON_AddStringToObject(j, "deadlock_reason", r->deadlock_msg);
        cJSON_AddNullToObject(j, "makespan_ns");
        return;
    }
    if (r->steady_cycle_ns >= 0)
        cJSON_AddNumberToObject(j, "steady_cycle_ns", (double)r->steady_cycle_ns);
    else
        cJSON_AddNullToObject(j, "steady_cycle_ns"), cJSON_AddStringToObject(j, "cycle_reason", r->cycle_msg);
    cJSON_AddBoolToObject(j, "stall_free", r->is_stall_free);
    cJSON_AddNumberToObject(j, "makespan_ns", (double)r->makespan_ns);
    cJSON_AddNumberToObject(j, "critical_path_ns", (double)r->critical_path_ns);
    cJSON_AddNumberToObject(j, "cube_busy_fraction", r->cube_busy_fraction);
    cJSON_AddNumberToObject(j, "vector_busy_fraction", r->vector_busy_fraction);
}

void sim_pipeline_write_json(FILE *f, const PipeRequest *rq, const PipeJob *job, bool is_explain)
{
    const PipeWorkload *wl = &rq->wl;
    char cycle[256];
    pipe_cycle_format(&job->cycle, cycle, sizeof cycle);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "dashsim_version", DASHSIM_VERSION);
    cJSON_AddStringToObject(j, "policy", rq->policy->name);
    cJSON_AddNumberToObject(j, "n_pairs", wl->n_pairs);
    cJSON_AddNumberToObject(j, "blocks", (double)wl->blocks);
    cJSON_AddNumberToObject(j, "cube_engines", wl->n_cube);
    cJSON_AddNumberToObject(j, "vector_engines", wl->n_vector);
    cJSON_AddNumberToObject(j, "ring_slots", wl->ring_slots);
    cJSON_AddItemToObject(j, "c_ns", int_array(wl->c_ns, wl->n_pairs));
    cJSON_AddItemToObject(j, "v_ns", int_array(wl->v_ns, wl->n_pairs));
    if (wl->has_v_last)
        cJSON_AddItemToObject(j, "v_last_ns", int_array(wl->v_last_ns, wl->n_pairs));
    cJSON_AddStringToObject(j, "cycle", cycle + 1);
    cJSON_AddNumberToObject(j, "preload_count", job->result.preload_count);
    if (job->min_preload >= 0)
        cJSON_AddNumberToObject(j, "min_preload_count", job->min_preload);
    add_result(j, &job->result);
    if (is_explain)
        add_explain(j, &job->rotation, wl->n_pairs);
    char *s = cJSON_PrintUnformatted(j);
    fprintf(f, "%s\n", s);
    cJSON_free(s);
    cJSON_Delete(j);
}

void sim_pipeline_write_explain(FILE *f, const PipeRequest *rq, const PipeJob *job)
{
    const PipeRotation *rot = &job->rotation;
    int n = rq->wl.n_pairs;
    fprintf(f, "Theorem B.1 (%s): a_i = V_i - C_i+1 =", rot->is_cube_dominated ? "sum V <= sum C" : "sum V > sum C");
    for (int i = 0; i < n; i++)
        fprintf(f, " %" PRId64, rot->a_ns[i]);
    fprintf(f, "\n  prefix sums F(0..%d) =", n);
    for (int i = 0; i <= n; i++)
        fprintf(f, " %" PRId64, rot->prefix_ns[i]);
    fprintf(f, "\n  k = argmin F = %d: Cube starts at C%d, Vector at V%d; C%d -> V%d crosses Cycles\n", rot->k,
            (rot->k + 1) % n + 1, rot->k % n + 1, rot->k % n + 1, rot->k % n + 1);
    if (job->min_preload >= 0) {
        char buf[256];
        pipe_cycle_format(&job->witness, buf, sizeof buf);
        fprintf(f, "  brute force: minimum stall-free Preload count %d, e.g. Cycle%s\n", job->min_preload, buf);
    }
}

void sim_pipeline_write_summary(FILE *f, const PipeRequest *rq, const PipeJob *job)
{
    const PipeWorkload *wl = &rq->wl;
    const PipeResult *r = &job->result;
    char cycle[256];
    pipe_cycle_format(&job->cycle, cycle, sizeof cycle);
    fprintf(f, "pipeline %s, n = %d CV pairs, %" PRId64 " blocks, %d Cube : %d Vector, ring %d\n",
            rq->policy->name, wl->n_pairs, wl->blocks, wl->n_cube, wl->n_vector, wl->ring_slots);
    fprintf(f, "  %-18s AMLA's Preload Pipeline on one AI core, the stage durations as given (ns); model numbers, "
            "not measurements\n", "model");
    fprintf(f, "  %-18s %s (Preload count %d)\n", "Cycle", cycle + 1, r->preload_count);
    if (job->min_preload >= 0)
        fprintf(f, "  %-18s %d (brute force over every Cycle)\n", "min Preload count", job->min_preload);
    if (r->is_deadlock) {
        fprintf(f, "  %-18s %s\n", "deadlock", r->deadlock_msg);
        return;
    }
    if (r->steady_cycle_ns < 0)
        fprintf(f, "  %-18s cannot run alone: %s\n", "steady Cycle", r->cycle_msg);
    else
        fprintf(f, "  %-18s %" PRId64 " ns (bound max(sum C, sum V) = %" PRId64 " ns): %s\n", "steady Cycle",
                r->steady_cycle_ns, r->bound_ns, r->is_stall_free ? "stall-free" : "stalls");
    fprintf(f, "  %-18s %" PRId64 " ns (critical path %" PRId64 " ns)\n", "makespan", r->makespan_ns,
            r->critical_path_ns);
    fprintf(f, "  %-18s Cube %.2f %%, Vector %.2f %%\n", "busy", 100 * r->cube_busy_fraction,
            100 * r->vector_busy_fraction);
}

/* Stage j of a CV pair, as AMLA names it: C1, V1, C2, V2, ... */
static void stage_name(void *ctx, int32_t j, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, "%c%d", "CV"[j % 2], j / 2 + 1);
}

static void label_op(void *ctx, int64_t op, SimRenderLabel *out)
{
    const PipeResult *r = ctx;
    int j = r->op_stage[op];
    int64_t block = sim_op_task(r->program, op);
    stage_name(NULL, j, out->name, sizeof out->name); /* the block is an argument: a stable name per stage */
    out->phase = j % 2 ? "vector" : "cube";
    out->group = j;
    out->args[0] = block;
    out->args[1] = j;
}

SimStatus sim_pipeline_render(const PipeRequest *rq, const PipeJob *job, const char *trace_path,
                              const char *csv_path, const char *gantt_path, SimError *err)
{
    static const char *const cube[] = { "CUBE", "CUBE1", "CUBE2", "CUBE3" };
    static const char *const vec[] = { "VECTOR", "VECTOR1", "VECTOR2", "VECTOR3" };
    const PipeWorkload *wl = &rq->wl;
    const PipeResult *r = &job->result;
    char title[256];
    snprintf(title, sizeof title, "pipeline %s, n = %d, %" PRId64 " blocks, %d Cube : %d Vector: makespan %"
             PRId64 " ns", rq->policy->name, wl->n_pairs, wl->blocks, wl->n_cube, wl->n_vector, r->makespan_ns);
    SimRenderSpec spec = { .program = r->program, .schedule = &r->schedule, .analysis = &r->analysis,
                           .device = "AI core", .unit_name = "AI core", .unit_column = "core",
                           .arg_names = { "block", "stage" }, .group_name = "stage", .title = title,
                           .flow_edge_kinds = 1u << SIM_EDGE_DATA, .label = label_op, .label_ctx = (void *)r,
                           .group_label = stage_name };
    for (int k = 0; k < wl->n_cube; k++)
        spec.engine_names[k] = wl->n_cube == 1 ? "CUBE" : cube[k];
    for (int k = 0; k < wl->n_vector; k++)
        spec.engine_names[wl->n_cube + k] = wl->n_vector == 1 ? "VECTOR" : vec[k];
    SimTraceOptions topt = { .has_flows = true, .max_bytes = (int64_t)1 << 30, .cap_hint = "use fewer --blocks" };
    SimGanttOptions gopt = { 0 };
    int mark = sim_output_batch_begin(); /* all of the outputs or none: an existing file is never lost */
    if (trace_path)
        sim_render_trace(&spec, &topt, trace_path, err);
    if (!err->status && csv_path)
        sim_render_csv(&spec, csv_path, err);
    if (!err->status && gantt_path)
        sim_render_gantt(&spec, &gopt, gantt_path, err);
    return sim_output_batch_end(mark, err->status, err);
}

void sim_pipeline_write_amla_report(FILE *f, const PipeAscendModel *m, const PipeAmlaRow *rows)
{
    fprintf(f, "# MLA decode, one AI core pair of Ascend 910 (1 Cube : 2 Vector), 2 sequences x 128 heads x Sq "
            "rows,\n# KV blocks of 512. Stage ns per engine. Cube %% = Cube busy / makespan (model); paper: FLOPS "
            "utilisation.\n");
    fprintf(f, "# GM (workspaces) %.1f GB/s, HBM %.1f GB/s, Cube %.0f GFLOP/s, Vector %.1f Gop/s per core.\n",
            m->gm_bytes_per_ns, m->hbm_bytes_per_ns, m->cube_flops_per_ns, m->vector_ops_per_ns);
    fprintf(f, "%-3s %6s %6s | %6s %6s %6s %6s %5s %7s | %6s %7s | %7s %7s\n", "Sq", "Sk", "blocks", "C1", "C2",
            "V1", "V2", "sfree", "base%", "V1amla", "amla%", "paper%", "gpu%");
    for (int i = 0; i < PIPE_AMLA_REPORT_ROWS; i++) {
        const PipeAmlaRow *r = &rows[i];
        fprintf(f, "%-3d %6d %6" PRId64 " | %6" PRId64 " %6" PRId64 " %6" PRId64 " %6" PRId64 " %5s %6.1f%% | "
                "%6" PRId64 " %6.1f%% | %6.1f%% %6.1f%%\n", r->sq, r->sk, r->blocks, r->c_ns[0], r->c_ns[1],
                r->base_v_engine_ns[0], r->base_v_engine_ns[1], r->is_base_stall_free ? "yes" : "no",
                100 * r->base_cube_busy, r->amla_v1_engine_ns, 100 * r->amla_cube_busy, r->paper_910_percent,
                r->paper_gpu_percent);
    }
}

void sim_pipeline_write_vfa_report(FILE *f, const PipeVfaRow *rows)
{
    fprintf(f, "# VFA (Vector Relieved Flash Attention, Table 1): per 128x128 tile, d 128; 1 tensor : 1 vector "
            "engine, %d KV tiles, Preload 2.\n# sumC / sumV per tile (ns), critical engine, vector share = sumV / (sumC + sumV).\n",
            PIPE_VFA_REPORT_BLOCKS);
    fprintf(f, "%-7s %-4s %6s %6s %-7s %7s %9s %8s %8s\n", "config", "alg", "sumC", "sumV", "crit", "vshare",
            "makespan", "vs FA", "vs base");
    for (int i = 0; i < PIPE_VFA_REPORT_ROWS; i++) {
        const PipeVfaRow *r = &rows[i];
        fprintf(f, "C%dV%-4d %-4s %6" PRId64 " %6" PRId64 " %-7s %6.1f%% %9" PRId64 " %7.2fx %7.2fx\n",
                r->tensor_bits, r->vector_bits, r->is_vfa ? "VFA" : "FA", r->sum_c_ns, r->sum_v_ns,
                r->sum_c_ns >= r->sum_v_ns ? "tensor" : "vector",
                100.0 * (double)r->sum_v_ns / (double)(r->sum_c_ns + r->sum_v_ns), r->makespan_ns, r->vs_fa,
                r->vs_base);
    }
}

void sim_pipeline_write_theorem_report(FILE *f, uint32_t seed, const PipeTheoremRow *rows)
{
    fprintf(f, "# seed %u. rotation: Preload n by Theorem B.1, stall-free = isolated Cycle takes max(sum C, sum V)."
            "\n# min: brute force over every Cycle; Lemma B.2: same C, V_k + C_j > sum C for all j, other V small.\n",
            seed);
    fprintf(f, "%-2s %9s %6s %6s %10s %8s %8s %8s %12s\n", "n", "instances", "cube", "vector", "rot-sfree",
            "min<n-1", "min=n-1", "min=n", "lemma:min=n");
    for (int i = 0; i < PIPE_MAX_BRUTE_PAIRS; i++) {
        const PipeTheoremRow *r = &rows[i];
        fprintf(f, "%-2d %9d %6d %6d %10d %8d %8d %8d %6d of %-4d\n", r->n, r->instances, r->cube_dominated,
                r->instances - r->cube_dominated, r->rotation_stall_free, r->min_below[0], r->min_below[1],
                r->min_below[2], r->lemma_min_n, r->lemma_instances);
    }
}

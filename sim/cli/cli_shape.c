/* `sim --seqlen S --head-dim D --heads H --mask M`: the shape front end. Derives FA3's tiles and the costs
 * for the shape (sim/run/shape.h), runs every policy for the mask (or the one named), and reports the tiles
 * it chose, each policy's makespan and TFLOPS, the winner and its margin over fa3, with its assumptions
 * (reduction mode, preset, profile; model numbers). Outputs (--trace, --csv, ...) show the named policy or
 * the winner. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "profile_io.h"
#include "shape.h"

typedef struct {
    const char *policy;
    int64_t makespan_ns;
    double tflops;
} ShapeRow;

static AttnJob bare_job(const AttnJob *job)
{
    AttnJob j = *job;
    j.dot_path = j.plan_path = j.trace_path = j.csv_path = j.gantt_path = NULL;
    j.analysis = SIM_ANALYSIS_SUMMARY;
    return j;
}

/* A policy the ranking left out (its plan does not fit the shape) and the policy's sentence why. */
typedef struct {
    const char *policy;
    char reason[sizeof ((SimError *)0)->msg];
} ShapeAbsent;

/* Every policy for the mask (or the one named) into rows; returns the row count. Ranking all of them, a
 * policy whose plan does not fit the shape (symmetric-shift on an odd number of KV tiles) is left out
 * with its reason in absent (*absent_count), so the others are still ranked. */
static int rank_policies(const AttnJob *job, const SimCost *cost, ShapeRow *rows, ShapeAbsent *absent,
                         int *absent_count, SimError *err)
{
    int n = 0;
    bool is_all = strcmp(job->policy, "all") == 0;
    for (int i = 0; i < policy_count() && !err->status; i++) {
        const PolicyOps *p = policy_at(i);
        bool fits = job->wl.mask == MASK_FULL ? p->supports_full : p->supports_causal;
        if (is_all ? !fits : strcmp(p->name, job->policy) != 0)
            continue;
        AttnJob j = bare_job(job);
        j.policy = p->name;
        AttnResult r;
        SimError why = { 0 };
        if (sim_job_run(&j, &r, &why) == SIM_OK)
            rows[n++] = (ShapeRow){ p->name, r.a.makespan_ns, cost->bwd_flops / (double)r.a.makespan_ns / 1e3 };
        else if (is_all && why.status == SIM_ERR_SCHEDULE) {
            absent[*absent_count].policy = p->name;
            snprintf(absent[(*absent_count)++].reason, sizeof absent->reason, "%s", why.msg);
        } else
            *err = why;
        sim_job_result_clear(&r);
    }
    if (!err->status && n == 0 && *absent_count)
        sim_error_set(err, SIM_ERR_USAGE, "no policy fits this shape: %s", absent[0].reason);
    else if (!err->status && n == 0)
        sim_error_set(err, SIM_ERR_USAGE, "unknown policy '%s' (sim --list-policies shows them; all: every one)",
                      job->policy);
    return n;
}

static void print_text(FILE *f, const ShapeOptions *so, const AttnJob *job, const SimCost *c, const char *profile,
                       const ShapeRow *rows, int n, int win, int fa3, const ShapeAbsent *absent,
                       int absent_count)
{
    const Workload *wl = &job->wl;
    int64_t per_sample = wl->heads / so->batch;
    fprintf(f, "shape  batch %" PRId64 " x %" PRId64 " head%s, seqlen %" PRId64 ", head_dim %" PRId64 ", %s mask, "
            "bf16, %s (%d SMs)\n", so->batch, per_sample, cli_plural(per_sample), so->seqlen, so->head_dim,
            wl->mask == MASK_FULL ? "full" : "causal", so->preset, wl->n_sm);
    fprintf(f, "tiles  kBlockM x kBlockN = %d x %d (FA3's sm90 backward table for head_dim %" PRId64 ", %s mask): "
            "%d KV x %d Q tiles per head, tile ratio %d, head swizzle %d\n", c->block_m, c->block_n, so->head_dim,
            wl->mask == MASK_FULL ? "full" : "causal", wl->kv_tiles, wl->q_tiles, wl->tile_ratio, wl->head_swizzle);
    fprintf(f, "costs  c = %" PRId64 " ns per tile pair (cost model: the backward's FLOPs over the per-SM tensor rate, "
            "an estimate), r = %" PRId64 " ns, hand-off %" PRId64 " ns, deposit %" PRId64 " ns\n", job->costs.c_ns,
            job->costs.r_ns, job->costs.latency_ns, job->costs.deposit_ns);
    fprintf(f, "model  %s reduction, %d dQ buffer(s), preset %s, %s; model numbers, not measurements\n",
            job->costs.reduce == REDUCE_ASYNC ? "async" : "serial", job->costs.dq_buffers, so->preset, profile ?
            "r, hand-off, deposit and load model from the profile (bulk reduction)" : "r and latency from the cost "
            "model (--model paper)");
    if (profile)
        fprintf(f, "profile %s\n", profile);
    fprintf(f, "TFLOPS = backward FLOPs / makespan, FLOPs = 2.5 x forward (FA3's convention: 2.5 x 4 x b x h x S x "
            "S_k x d, causal with the average S_k) = %.4g\n", c->bwd_flops);
    fprintf(f, "%-16s %14s %9s %8s\n", "policy", "makespan_ns", "TFLOPS", "vs fa3");
    for (int i = 0; i < n; i++)
        fprintf(f, "%-16s %14" PRId64 " %9.1f %8.4f\n", rows[i].policy, rows[i].makespan_ns, rows[i].tflops,
                fa3 >= 0 ? (double)rows[fa3].makespan_ns / rows[i].makespan_ns : 0);
    for (int i = 0; i < absent_count; i++)
        fprintf(f, "%-16s %s\n", "not ranked", absent[i].reason);
    if (n == 1)
        fprintf(f, "one policy named: nothing ranked (--policy all ranks every policy for the mask)\n");
    else if (fa3 >= 0)
        fprintf(f, "winner %s, %.4fx over fa3 (%" PRId64 " vs %" PRId64 " ns)\n", rows[win].policy,
                (double)rows[fa3].makespan_ns / rows[win].makespan_ns, rows[win].makespan_ns, rows[fa3].makespan_ns);
    else
        fprintf(f, "winner %s\n", rows[win].policy);
}

static void print_json(FILE *f, const ShapeOptions *so, const AttnJob *job, const SimCost *c, const char *profile,
                       const ShapeRow *rows, int n, int win, int fa3, const ShapeAbsent *absent,
                       int absent_count)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "dashsim_version", SIM_VERSION);
    cJSON *s = cJSON_AddObjectToObject(j, "shape");
    cJSON_AddNumberToObject(s, "seqlen", (double)so->seqlen);
    cJSON_AddNumberToObject(s, "head_dim", (double)so->head_dim);
    cJSON_AddNumberToObject(s, "batch", (double)so->batch);
    cJSON_AddNumberToObject(s, "block_m", c->block_m);
    cJSON_AddNumberToObject(s, "block_n", c->block_n);
    cJSON_AddNumberToObject(s, "flops", c->bwd_flops);
    cJSON_AddStringToObject(s, "hardware", so->preset);
    if (profile)
        cJSON_AddStringToObject(s, "profile", profile);
    else
        cJSON_AddNullToObject(s, "profile");
    cJSON_AddStringToObject(s, "model", "model numbers, not measurements");
    cJSON_AddStringToObject(j, "mask", job->wl.mask == MASK_FULL ? "full" : "causal");
    cJSON_AddStringToObject(j, "reduce", job->costs.reduce == REDUCE_ASYNC ? "async" : "serial");
    cJSON_AddNumberToObject(j, "n", job->wl.n_sm);
    cJSON_AddNumberToObject(j, "heads", job->wl.heads);
    cJSON_AddNumberToObject(j, "kv_tiles", job->wl.kv_tiles);
    cJSON_AddNumberToObject(j, "q_tiles", job->wl.q_tiles);
    cJSON_AddNumberToObject(j, "tile_ratio", job->wl.tile_ratio);
    cJSON_AddNumberToObject(j, "head_swizzle", job->wl.head_swizzle);
    cJSON_AddNumberToObject(j, "dq_buffers", job->costs.dq_buffers);
    cJSON_AddNumberToObject(j, "c_ns", (double)job->costs.c_ns);
    cJSON_AddNumberToObject(j, "r_ns", (double)job->costs.r_ns);
    cJSON_AddNumberToObject(j, "latency_ns", (double)job->costs.latency_ns);
    cJSON *a = cJSON_AddArrayToObject(j, "policies");
    for (int i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", rows[i].policy);
        cJSON_AddNumberToObject(e, "makespan_ns", (double)rows[i].makespan_ns);
        cJSON_AddNumberToObject(e, "tflops", rows[i].tflops);
        if (fa3 >= 0)
            cJSON_AddNumberToObject(e, "speedup", (double)rows[fa3].makespan_ns / rows[i].makespan_ns);
        cJSON_AddItemToArray(a, e);
    }
    cJSON *left = cJSON_AddArrayToObject(j, "not_ranked");
    for (int i = 0; i < absent_count; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", absent[i].policy);
        cJSON_AddStringToObject(e, "reason", absent[i].reason);
        cJSON_AddItemToArray(left, e);
    }
    cJSON_AddStringToObject(j, "winner", rows[win].policy);
    if (fa3 >= 0)
        cJSON_AddNumberToObject(j, "margin_over_fa3", (double)rows[fa3].makespan_ns / rows[win].makespan_ns);
    char *text = cJSON_PrintUnformatted(j);
    fprintf(f, "%s\n", text);
    cJSON_free(text);
    cJSON_Delete(j);
}

int cli_shape_run(const ShapeOptions *opts, const AttnJob *given, bool is_json)
{
    ShapeOptions so = *opts;
    so.head_dim = so.head_dim ? so.head_dim : 128, so.batch = so.batch ? so.batch : 1;
    so.preset = so.preset ? so.preset : "h100-sxm";
    char buf[4096];
    const char *profile = so.is_paper ? NULL : so.profile_path ? so.profile_path : cli_default_profile(buf, sizeof buf);
    SimError err = { 0 };
    HwProfile *hp = NULL;
    if (profile && sim_profile_read(profile, &hp, &err) != SIM_OK)
        return cli_fail(&err);
    ShapeQuery q = { .shape = { .batch = so.batch, .heads = given->wl.heads, .seqlen_q = so.seqlen,
                                .seqlen_k = so.seqlen, .head_dim = so.head_dim, .mask = given->wl.mask,
                                .dtype = DTYPE_BF16 },
                     .preset = so.preset, .profile = hp, .reduce = given->costs.reduce,
                     .dq_buffers = given->costs.dq_buffers };
    AttnJob job = *given;
    SimCost cost;
    SimLoadModel load = { 0 };
    ShapeRow rows[64];
    ShapeAbsent absent[64];
    int n = 0, win = 0, fa3 = -1, absent_count = 0;
    if (sim_shape_job(&q, &job, &cost, &load, &err) == SIM_OK &&
        (n = rank_policies(&job, &cost, rows, absent, &absent_count, &err)) > 0) {
        for (int i = 0; i < n; i++) {
            win = rows[i].makespan_ns < rows[win].makespan_ns ? i : win;
            fa3 = strcmp(rows[i].policy, "fa3") == 0 ? i : fa3;
        }
        AttnJob out = job; /* the outputs asked for, of the ranked winner (or the one policy named) */
        out.policy = rows[win].policy;
        AttnResult r;
        bool has_outputs = job.dot_path || job.plan_path || job.trace_path || job.csv_path || job.gantt_path;
        if (has_outputs && sim_job_run(&out, &r, &err) == SIM_OK)
            sim_job_result_clear(&r);
    }
    FILE *f = cli_report_file((const char *[]){ job.dot_path, job.plan_path, job.trace_path, job.csv_path }, 4);
    if (!err.status)
        (is_json ? print_json : print_text)(f, &so, &job, &cost, profile, rows, n, win, fa3, absent, absent_count);
    sim_profile_load_clear(&load);
    sim_profile_free(hp);
    return err.status ? cli_fail(&err) : 0;
}

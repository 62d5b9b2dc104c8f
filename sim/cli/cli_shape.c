/* `sim --seqlen S --head-dim D --heads H --mask M [--kernel K]`: the shape front end. Costs the shape through
 * the one costing path (sim/model/cost/costing.h: the kernel profile's tiles and per-task costs, or FA3's tiles
 * and the FLOPs estimate; the hardware profile's reductions), runs every policy for the mask (or the one
 * named), and reports each policy's makespan, predicted time with the launch's fixed costs, TFLOPS, and the
 * winner's margin over fa3 and fa3-spt, naming the kernel and hardware profiles it used (model numbers).
 * Outputs (--trace, --csv, ...) show the named policy or the winner. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "costing.h"
#include "mask.h"
#include "kernel_io.h"
#include "profile_io.h"

typedef struct {
    const char *policy;
    int64_t makespan_ns, total_ns;  /* the engine's makespan; with the launch's fixed costs */
    double tflops;                  /* backward FLOPs over total_ns */
} ShapeRow;

/* A policy the ranking left out (its plan does not fit the shape) and the policy's sentence why. */
typedef struct {
    const char *policy;
    char reason[sizeof ((SimError *)0)->msg];
} ShapeAbsent;

typedef struct {
    FILE *f;                        /* where the report goes: stdout, or stderr when an output is "-" */
    const ShapeOptions *so;
    const AttnJob *job;
    const CostReport *rep;
    const char *profile, *kernel;   /* the files used; NULL: none */
    const ShapeRow *rows;
    int n, win, fa3, spt;           /* row indexes; -1 where absent */
    const ShapeAbsent *absent;
    int absent_count;
    double error;                   /* the validated error a lead must beat (a fraction) */
    const char *error_from;         /* where that error came from, in words */
    int tied[64], tie_count;        /* rows within error of the winner, the winner first; count 1: no tie */
} ShapeReport;

static AttnJob bare_job(const AttnJob *job)
{
    AttnJob j = *job;
    j.dot_path = j.plan_path = j.trace_path = j.csv_path = j.gantt_path = NULL;
    j.analysis = SIM_ANALYSIS_SUMMARY;
    return j;
}

/* Every policy for the mask (or the one named) into rows; returns the row count. Ranking all of them, a
 * policy whose plan does not fit the shape (symmetric-shift on an odd number of KV tiles) is left out
 * with its reason in absent (*absent_count), so the others are still ranked. */
static int rank_policies(const AttnJob *job, const CostReport *rep, ShapeRow *rows, ShapeAbsent *absent,
                         int *absent_count, SimError *err)
{
    int n = 0;
    bool is_all = strcmp(job->policy, "all") == 0;
    for (int i = 0; i < policy_count() && !err->status; i++) {
        const PolicyOps *p = policy_at(i);
        bool fits = policy_supports(p, &job->wl);
        if (is_all ? !fits : strcmp(p->name, job->policy) != 0)
            continue;
        AttnJob j = bare_job(job);
        j.policy = p->name;
        AttnResult r;
        SimError why = { 0 };
        if (sim_job_run(&j, &r, &why) == SIM_OK) {
            int64_t total = sim_cost_time_ns(rep, r.a.makespan_ns);
            rows[n++] = (ShapeRow){ p->name, r.a.makespan_ns, total, rep->cost.bwd_flops / (double)total / 1e3 };
            sim_job_result_clear(&r);
        } else if (is_all && why.status == SIM_ERR_SCHEDULE) {
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

static int kept_tiles(const Workload *wl)
{
    int n = 0;
    for (int64_t i = 0; wl->keep && i < (int64_t)wl->kv_tiles * wl->q_tiles; i++)
        n += wl->keep[i] != 0;
    return n;
}

/* The mask as given: full, causal, or the spec in tokens. */
static const char *mask_name(const ShapeReport *s)
{
    return s->so->token_mask ? s->so->token_mask : s->job->wl.mask == MASK_FULL ? "full" : "causal";
}

/* The baselines margins are taken over: FA3's orders (on a block mask, ascending and spt are FA3's). */
static const char *base_name(const ShapeReport *s, bool is_spt)
{
    return s->so->token_mask ? (is_spt ? "spt" : "ascending") : (is_spt ? "fa3-spt" : "fa3");
}

static double margin(const ShapeReport *s, int base)
{
    return base >= 0 ? (double)s->rows[base].total_ns / (double)s->rows[s->win].total_ns : 0;
}

/* The rows whose time is within the validated error of the winner's (the winner first, then by time): the
 * model cannot order them, so the report calls them a tie. */
static void find_ties(ShapeReport *s)
{
    s->tie_count = 0;
    if (s->n == 0)
        return;
    s->tied[s->tie_count++] = s->win;
    for (;;) {
        int next = -1;
        for (int i = 0; i < s->n; i++) {
            bool is_in = false;
            for (int t = 0; t < s->tie_count; t++)
                is_in |= s->tied[t] == i;
            if (!is_in && (next < 0 || s->rows[i].total_ns < s->rows[next].total_ns))
                next = i;
        }
        if (next < 0 || (double)s->rows[next].total_ns / s->rows[s->win].total_ns - 1 >= s->error)
            return;
        s->tied[s->tie_count++] = next;
    }
}

static void print_tie(const ShapeReport *s)
{
    fprintf(s->f, "tie    ");
    for (int t = 0; t < s->tie_count; t++)
        fprintf(s->f, "%s%s", t == 0 ? "" : t + 1 == s->tie_count ? " and " : ", ", s->rows[s->tied[t]].policy);
    fprintf(s->f, ": the lead %.2f%% of %s over %s is below the validated error %.2f%% (%s), so the model cannot "
            "order them\n", 100 * ((double)s->rows[s->tied[1]].total_ns / s->rows[s->win].total_ns - 1),
            s->rows[s->win].policy, s->rows[s->tied[1]].policy, 100 * s->error, s->error_from);
}

/* GQA: kv_heads (0 given: the heads) and whether the costing used it, in words; returns whether it did. Only a
 * kernel profile costs it (the dK/dV group sums in its fixed costs, its KV write under GQA); the task graph is
 * the same per query head, so the FLOPs cost model has nothing to change. */
static bool gqa_note(const ShapeReport *s, int64_t *kv_heads, char *note, size_t len)
{
    int64_t heads = s->job->wl.heads / s->so->batch;
    *kv_heads = s->so->kv_heads ? s->so->kv_heads : heads;
    if (*kv_heads == heads) {
        snprintf(note, len, "none: kv_heads = heads = %" PRId64, heads);
        return false;
    }
    if (s->kernel)
        snprintf(note, len, "kv_heads %" PRId64 " of %" PRId64 " heads, costed by the kernel profile: the dK/dV group "
                 "sums in the launch's fixed costs and the KV write under GQA", *kv_heads, heads);
    else
        snprintf(note, len, "kv_heads %" PRId64 " of %" PRId64 " heads, not costed: the FLOPs cost model has no term "
                 "for the dK/dV group sums and the task graph is the same per query head (--kernel costs them)",
                 *kv_heads, heads);
    return s->kernel != NULL;
}

static void print_text(const ShapeReport *s)
{
    const ShapeOptions *so = s->so;
    const Workload *wl = &s->job->wl;
    const SimCost *c = &s->rep->cost;
    const AttnCosts *k = &s->job->costs;
    fprintf(s->f, "shape  batch %" PRId64 " x %" PRId64 " head%s, seqlen %" PRId64 ", head_dim %" PRId64 ", %s mask, bf16, "
           "%s (%d SMs)\n", so->batch, wl->heads / so->batch, cli_plural(wl->heads / so->batch), so->seqlen,
           so->head_dim, mask_name(s), so->preset, wl->n_sm);
    if (so->seqlen_k != so->seqlen)
        fprintf(s->f, "keys   seqlen_k %" PRId64 ": the queries are the last %" PRId64 " positions of the keys "
                "(bottom-right, as FlashAttention aligns masks)\n", so->seqlen_k, so->seqlen);
    if (so->token_mask)
        fprintf(s->f, "mask   %s in tokens over the kernel's tiles: %d of %d (KV, Q) tile pairs kept per head\n",
                so->token_mask, kept_tiles(wl), wl->kv_tiles * wl->q_tiles);
    fprintf(s->f, "kernel %s\n", s->kernel ? s->kernel : "none: FA3's sm90 backward tiles, compute from FLOPs (an estimate)");
    fprintf(s->f, "tiles  kBlockM x kBlockN = %d x %d: %d KV x %d Q tiles per head, tile ratio %d, head swizzle %d\n",
           c->block_m, c->block_n, wl->kv_tiles, wl->q_tiles, wl->tile_ratio, wl->head_swizzle);
    fprintf(s->f, "costs  c = %" PRId64 " ns per task (%s), r = %" PRId64 " ns, hand-off %" PRId64 " ns, deposit %" PRId64
           " ns; r from the %s\n", k->c_ns, s->rep->compute_from, k->r_ns, k->latency_ns, k->deposit_ns,
           s->rep->reduce_from);
    fprintf(s->f, "model  %s reduction, %d dQ buffer(s), hardware profile %s; launch fixed costs %" PRId64
           " ns; model numbers, not measurements\n", k->reduce == REDUCE_ASYNC ? "async" : "serial", k->dq_buffers,
           s->profile ? s->profile : "none: r and latency from the cost model (--model paper)", s->rep->fixed_ns);
    char gqa[256];
    int64_t kv_heads;
    gqa_note(s, &kv_heads, gqa, sizeof gqa);
    fprintf(s->f, "gqa    %s\n", gqa);
    fprintf(s->f, "TFLOPS = backward FLOPs / time, FLOPs = 2.5 x forward (FA3's convention: 2.5 x 4 x b x h x S x S_k x d,"
           " causal with the average S_k) = %.4g\n", c->bwd_flops);
    fprintf(s->f, "%-16s %14s %14s %9s %8s\n", "policy", "makespan_ns", "time_ns", "TFLOPS", s->so->token_mask ? "vs asc" : "vs fa3");
    for (int i = 0; i < s->n; i++)
        fprintf(s->f, "%-16s %14" PRId64 " %14" PRId64 " %9.1f %8.4f\n", s->rows[i].policy, s->rows[i].makespan_ns,
               s->rows[i].total_ns, s->rows[i].tflops,
               s->fa3 >= 0 ? (double)s->rows[s->fa3].total_ns / s->rows[i].total_ns : 0);
    for (int i = 0; i < s->absent_count; i++)
        fprintf(s->f, "%-16s %s\n", "not ranked", s->absent[i].reason);
    if (s->n == 1) {
        fprintf(s->f, "one policy named: nothing ranked (--policy all ranks every policy for the mask)\n");
        return;
    }
    if (s->tie_count > 1)
        print_tie(s);
    fprintf(s->f, "%s %s", s->tie_count > 1 ? "fastest modelled" : "winner", s->rows[s->win].policy);
    if (s->fa3 >= 0 && s->fa3 != s->win)
        fprintf(s->f, ", %.4fx over %s", margin(s, s->fa3), base_name(s, false));
    if (s->spt >= 0 && s->spt != s->win)
        fprintf(s->f, s->so->token_mask ? ", %.4fx over %s (FA3's shortest-first launch)" : ", %.4fx over %s (FA3's causal "
                "default)", margin(s, s->spt), base_name(s, true));
    fprintf(s->f, " (%" PRId64 " ns)\n", s->rows[s->win].total_ns);
}

static void print_json(const ShapeReport *s)
{
    const ShapeOptions *so = s->so;
    const SimCost *c = &s->rep->cost;
    const AttnJob *job = s->job;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "dashsim_version", SIM_VERSION);
    cJSON *sh = cJSON_AddObjectToObject(j, "shape");
    cJSON_AddNumberToObject(sh, "seqlen", (double)so->seqlen);
    cJSON_AddNumberToObject(sh, "head_dim", (double)so->head_dim);
    cJSON_AddNumberToObject(sh, "batch", (double)so->batch);
    cJSON_AddNumberToObject(sh, "block_m", c->block_m);
    cJSON_AddNumberToObject(sh, "block_n", c->block_n);
    cJSON_AddNumberToObject(sh, "flops", c->bwd_flops);
    cJSON_AddStringToObject(sh, "hardware", so->preset);
    if (s->profile)
        cJSON_AddStringToObject(sh, "profile", s->profile);
    else
        cJSON_AddNullToObject(sh, "profile");
    if (s->kernel)
        cJSON_AddStringToObject(sh, "kernel", s->kernel);
    else
        cJSON_AddNullToObject(sh, "kernel");
    cJSON_AddStringToObject(sh, "compute_from", s->rep->compute_from);
    cJSON_AddStringToObject(sh, "reduce_from", s->rep->reduce_from);
    cJSON_AddStringToObject(sh, "model", "model numbers, not measurements");
    cJSON_AddStringToObject(j, "mask", mask_name(s));
    cJSON_AddNumberToObject(sh, "seqlen_k", (double)so->seqlen_k);
    cJSON_AddStringToObject(j, "reduce", job->costs.reduce == REDUCE_ASYNC ? "async" : "serial");
    cJSON_AddNumberToObject(j, "n", job->wl.n_sm);
    cJSON_AddNumberToObject(j, "heads", job->wl.heads);
    char gqa[256];
    int64_t kv_heads;
    cJSON_AddBoolToObject(j, "gqa_costed", gqa_note(s, &kv_heads, gqa, sizeof gqa));
    cJSON_AddNumberToObject(j, "heads_per_sample", (double)(job->wl.heads / so->batch));
    cJSON_AddNumberToObject(j, "kv_heads", (double)kv_heads);
    cJSON_AddStringToObject(j, "gqa", gqa);
    cJSON_AddNumberToObject(j, "kv_tiles", job->wl.kv_tiles);
    cJSON_AddNumberToObject(j, "q_tiles", job->wl.q_tiles);
    if (s->so->token_mask)
        cJSON_AddNumberToObject(j, "kept_tiles", kept_tiles(&job->wl));
    cJSON_AddNumberToObject(j, "tile_ratio", job->wl.tile_ratio);
    cJSON_AddNumberToObject(j, "head_swizzle", job->wl.head_swizzle);
    cJSON_AddNumberToObject(j, "dq_buffers", job->costs.dq_buffers);
    cJSON_AddNumberToObject(j, "c_ns", (double)job->costs.c_ns);
    cJSON_AddNumberToObject(j, "r_ns", (double)job->costs.r_ns);
    cJSON_AddNumberToObject(j, "latency_ns", (double)job->costs.latency_ns);
    cJSON_AddNumberToObject(j, "fixed_ns", (double)s->rep->fixed_ns);
    cJSON *a = cJSON_AddArrayToObject(j, "policies");
    for (int i = 0; i < s->n; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", s->rows[i].policy);
        cJSON_AddNumberToObject(e, "makespan_ns", (double)s->rows[i].makespan_ns);
        cJSON_AddNumberToObject(e, "time_ns", (double)s->rows[i].total_ns);
        cJSON_AddNumberToObject(e, "tflops", s->rows[i].tflops);
        if (s->fa3 >= 0)
            cJSON_AddNumberToObject(e, "speedup", (double)s->rows[s->fa3].total_ns / s->rows[i].total_ns);
        cJSON_AddItemToArray(a, e);
    }
    cJSON *left = cJSON_AddArrayToObject(j, "not_ranked");
    for (int i = 0; i < s->absent_count; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "policy", s->absent[i].policy);
        cJSON_AddStringToObject(e, "reason", s->absent[i].reason);
        cJSON_AddItemToArray(left, e);
    }
    cJSON_AddStringToObject(j, "winner", s->rows[s->win].policy);
    if (s->fa3 >= 0)
        cJSON_AddNumberToObject(j, "margin_over_fa3", margin(s, s->fa3));
    if (s->spt >= 0)
        cJSON_AddNumberToObject(j, "margin_over_fa3_spt", margin(s, s->spt));
    cJSON_AddNumberToObject(j, "validated_error", s->error);
    cJSON_AddStringToObject(j, "validated_error_from", s->error_from);
    cJSON_AddBoolToObject(j, "is_tie", s->tie_count > 1);
    cJSON *tie = cJSON_AddArrayToObject(j, "tie");
    for (int t = 0; s->tie_count > 1 && t < s->tie_count; t++)
        cJSON_AddItemToArray(tie, cJSON_CreateString(s->rows[s->tied[t]].policy));
    char *text = cJSON_PrintUnformatted(j);
    fprintf(s->f, "%s\n", text);
    cJSON_free(text);
    cJSON_Delete(j);
}

/* A mask in tokens: its tile mask over the kernel's tiles (costed as the causal shape: FA3 takes the causal
 * tiles for local masks too) applied to the job, and the FLOPs of the (query, key) pairs it keeps. */
static SimStatus apply_token_mask(const ShapeOptions *so, const SimShape *shape, CostReport *rep, BlockMask *block,
                                  AttnJob *job, SimError *err)
{
    MaskTokens mt = { so->seqlen, so->seqlen_k, rep->cost.block_m, rep->cost.block_n };
    int64_t kept;
    if (sim_mask_from_tokens(so->token_mask, &mt, block, &kept, err) != SIM_OK)
        return err->status;
    sim_mask_apply(block, &job->wl);
    rep->cost.bwd_flops = 2.5 * 4 * (double)shape->batch * (double)shape->heads * (double)shape->head_dim * (double)kept;
    return SIM_OK;
}

/* The profiles the shape is costed with: the hardware profile (unless --model paper) and the kernel profile
 * (when --kernel names one), found from any directory. */
static SimStatus load_profiles(const ShapeOptions *so, char *hw_path, char *kernel_path, size_t len, HwProfile **hp,
                               KernelProfile **kp, SimError *err)
{
    if (!so->is_paper && (cli_find_profile_for(so->profile_path, so->preset, hw_path, len, err) != SIM_OK ||
                          sim_profile_read(hw_path, hp, err) != SIM_OK))
        return err->status;
    if (so->kernel_path && (cli_find_kernel_for(so->kernel_path, so->preset, kernel_path, len, err) != SIM_OK ||
                            sim_kernel_read(kernel_path, kp, err) != SIM_OK))
        return err->status;
    return SIM_OK;
}

int cli_shape_run(const ShapeOptions *opts, const AttnJob *given, bool is_json)
{
    ShapeOptions so = *opts;
    SimError err = { 0 };
    BlockMask block = { 0 };
    so.seqlen_k = so.seqlen_k ? so.seqlen_k : so.seqlen;
    if (so.kv_heads && (so.kv_heads > given->wl.heads || given->wl.heads % so.kv_heads != 0))
        return sim_error_set(&err, SIM_ERR_USAGE, "--kv-heads %" PRId64 " must divide --heads %d", so.kv_heads,
                             given->wl.heads), cli_fail(&err);
    so.head_dim = so.head_dim ? so.head_dim : 128, so.batch = so.batch ? so.batch : 1;
    so.preset = so.preset ? so.preset : "h100-sxm";
    char hw_path[4096], kernel_path[4096];
    HwProfile *hp = NULL;
    KernelProfile *kp = NULL;
    CostReport rep = { 0 };
    AttnJob job = *given;
    SimLoadModel load = { 0 };
    ShapeRow rows[64];
    ShapeAbsent absent[64];
    ShapeReport s = { .so = &so, .job = &job, .rep = &rep, .rows = rows, .fa3 = -1, .spt = -1, .absent = absent };
    if (load_profiles(&so, hw_path, kernel_path, sizeof hw_path, &hp, &kp, &err) == SIM_OK) {
        CostQuery q = { .shape = { .batch = so.batch, .heads = given->wl.heads, .kv_heads = so.kv_heads, .seqlen_q = so.seqlen,
                                   .seqlen_k = so.seqlen_k, .head_dim = so.head_dim,
                                   .mask = so.token_mask ? MASK_CAUSAL : given->wl.mask,
                                   .dtype = DTYPE_BF16 },
                        .preset = so.preset, .hw = hp, .kernel = kp, .reduce = given->costs.reduce,
                        .dq_buffers = given->costs.dq_buffers };
        if (sim_cost_attention(&q, &job.wl, &job.costs, &rep, &load, &err) == SIM_OK &&
            (!so.token_mask || apply_token_mask(&so, &q.shape, &rep, &block, &job, &err) == SIM_OK))
            s.n = rank_policies(&job, &rep, rows, absent, &s.absent_count, &err);
    }
    for (int i = 0; i < s.n; i++) {
        s.win = rows[i].total_ns < rows[s.win].total_ns ? i : s.win;
        s.fa3 = strcmp(rows[i].policy, so.token_mask ? "ascending" : "fa3") == 0 ? i : s.fa3;
        s.spt = strcmp(rows[i].policy, so.token_mask ? "spt" : "fa3-spt") == 0 ? i : s.spt;
    }
    AttnJob out = job; /* the outputs asked for, of the ranked winner (or the one policy named) */
    AttnResult r;
    if (s.n > 0 && (job.dot_path || job.plan_path || job.trace_path || job.csv_path || job.gantt_path)) {
        out.policy = rows[s.win].policy;
        if (sim_job_run(&out, &r, &err) == SIM_OK)
            sim_job_result_clear(&r);
    }
    s.profile = hp ? hw_path : NULL, s.kernel = kp ? kernel_path : NULL;
    s.error = kp && kp->validated_error > 0 ? kp->validated_error : SIM_KERNEL_DEFAULT_ERROR;
    s.error_from = kp && kp->validated_error > 0 ? "the kernel profile's validated_error"
                   : "default: docs/profile.md's median error predicted from the profile";
    find_ties(&s);
    s.f = cli_report_file((const char *[]){ job.dot_path, job.plan_path, job.trace_path, job.csv_path }, 4);
    if (!err.status)
        (is_json ? print_json : print_text)(&s);
    sim_mask_clear(&block);
    sim_profile_load_clear(&load);
    sim_profile_free(hp);
    sim_kernel_free(kp);
    return err.status ? cli_fail(&err) : 0;
}

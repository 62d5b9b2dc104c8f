/* The shape ranking (shape.h): cost the shape once, run every policy for its mask on the same job, and read
 * the fastest, the baselines and the tie off the rows; and a front end's query of one shape, with its profiles
 * found and read, as that ranking. Invariant: every row is costed by the same CostReport, so rows differ only
 * in their schedule. */
#include <stdio.h>
#include <string.h>

#include "shape.h"

#include "datadir.h"
#include "kernel_io.h"
#include "profile_io.h"

static AttnJob bare_job(const AttnJob *job)
{
    AttnJob j = *job;
    j.dot_path = j.plan_path = j.trace_path = j.csv_path = j.gantt_path = NULL;
    j.analysis = SIM_ANALYSIS_SUMMARY;
    return j;
}

/* Every policy for the mask (or the one named) into rows. Ranking all of them, a policy whose plan does not
 * fit the shape (symmetric-shift on an odd number of KV tiles) is left out with its reason, so the others are
 * still ranked. */
static SimStatus rank_policies(ShapeRanking *s, SimShapeProgress progress, void *ctx, SimError *err)
{
    const AttnJob *job = &s->job;
    bool is_all = strcmp(job->policy, "all") == 0;
    int count = 0, done = 0;
    for (int i = 0; i < policy_count(); i++)
        count += is_all ? policy_supports(policy_at(i), &job->wl) : strcmp(policy_at(i)->name, job->policy) == 0;
    for (int i = 0; i < policy_count() && !err->status && s->n < SIM_SHAPE_MAX_ROWS; i++) {
        const PolicyOps *p = policy_at(i);
        bool fits = policy_supports(p, &job->wl);
        if (is_all ? !fits : strcmp(p->name, job->policy) != 0)
            continue;
        if (progress)
            progress(ctx, done++, count, p->name);
        AttnJob j = bare_job(job);
        j.policy = p->name;
        AttnResult r;
        SimError why = { 0 };
        if (sim_job_run(&j, &r, &why) == SIM_OK) {
            int64_t total = sim_cost_time_ns(&s->rep, r.a.makespan_ns);
            double ref = job->costs.clock.bins > 0 ? job->costs.clock.ref_mhz : 0;
            s->rows[s->n++] = (ShapeRow){ p->name, r.a.makespan_ns, total, s->rep.cost.bwd_flops / (double)total / 1e3,
                                          ref / r.clock_scale };
            sim_job_result_clear(&r);
        } else if (is_all && why.status == SIM_ERR_SCHEDULE) {
            s->absent[s->absent_count].policy = p->name;
            snprintf(s->absent[s->absent_count++].reason, sizeof s->absent->reason, "%s", why.msg);
        } else
            *err = why;
        sim_job_result_clear(&r);
    }
    if (progress)
        progress(ctx, count, count, NULL);
    if (!err->status && s->n == 0 && s->absent_count)
        sim_error_set(err, SIM_ERR_USAGE, "no policy fits this shape: %s", s->absent[0].reason);
    else if (!err->status && s->n == 0)
        sim_error_set(err, SIM_ERR_USAGE, "unknown policy '%s' (sim --list-policies shows them; all: every one)",
                      job->policy);
    return err->status;
}

/* The rows whose time is within the validated error of the fastest's (the fastest first, then by time): the
 * model cannot order them, so the report calls them a tie. */
static void find_ties(ShapeRanking *s)
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

/* A mask in tokens: its tile mask over the kernel's tiles applied to wl, and the FLOPs of the (query, key) pairs
 * it keeps. */
static SimStatus apply_token_mask(const char *spec, const SimShape *shape, Workload *wl, CostReport *rep,
                                  BlockMask *block, int *kept_tiles, SimError *err)
{
    MaskTokens mt = { shape->seqlen_q, shape->seqlen_k, rep->cost.block_m, rep->cost.block_n };
    int64_t kept;
    if (sim_mask_from_tokens(spec, &mt, block, &kept, err) != SIM_OK)
        return err->status;
    sim_mask_apply(block, wl);
    rep->cost.bwd_flops = 2.5 * 4 * (double)shape->batch * (double)shape->heads * (double)shape->head_dim * (double)kept;
    for (int64_t i = 0; wl->keep && i < (int64_t)wl->kv_tiles * wl->q_tiles; i++)
        *kept_tiles += wl->keep[i] != 0;
    return SIM_OK;
}

SimStatus sim_shape_cost(const CostQuery *q, const char *token_mask, Workload *wl, AttnCosts *costs, CostReport *rep,
                         SimLoadModel *load, BlockMask *block, int *kept_tiles, SimError *err)
{
    CostQuery cq = *q;
    *kept_tiles = 0;
    if (token_mask) /* costed as the causal shape: FA3 takes the causal tiles for local masks too */
        cq.shape.mask = MASK_CAUSAL;
    if (sim_cost_attention(&cq, wl, costs, rep, load, err) == SIM_OK && token_mask)
        apply_token_mask(token_mask, &cq.shape, wl, rep, block, kept_tiles, err);
    return err->status;
}

/* The fastest row, the baselines' rows, the validated error and the tie. */
static void read_ranking(ShapeRanking *s, const char *token_mask, const KernelProfile *kp)
{
    for (int i = 0; i < s->n; i++) {
        s->win = s->rows[i].total_ns < s->rows[s->win].total_ns ? i : s->win;
        s->fa3 = strcmp(s->rows[i].policy, token_mask ? "ascending" : "fa3") == 0 ? i : s->fa3;
        s->spt = strcmp(s->rows[i].policy, token_mask ? "spt" : "fa3-spt") == 0 ? i : s->spt;
    }
    bool has_error = kp && kp->validated_error > 0;
    s->error = has_error ? kp->validated_error : SIM_KERNEL_DEFAULT_ERROR;
    s->error_from = has_error ? "the kernel profile's validated_error"
                    : "default: docs/profile.md's median error predicted from the profile";
    find_ties(s);
}

SimStatus sim_shape_rank(const CostQuery *q, const char *token_mask, const AttnJob *given, ShapeRanking *s,
                         SimShapeProgress progress, void *progress_ctx, SimError *err)
{
    memset(s, 0, sizeof *s);
    s->job = *given;
    s->fa3 = s->spt = -1;
    if (sim_shape_cost(q, token_mask, &s->job.wl, &s->job.costs, &s->rep, &s->load, &s->block, &s->kept_tiles,
                       err) == SIM_OK &&
        rank_policies(s, progress, progress_ctx, err) == SIM_OK)
        read_ranking(s, token_mask, q->kernel);
    return err->status;
}

void sim_shape_ranking_clear(ShapeRanking *s)
{
    sim_mask_clear(&s->block);
    sim_profile_load_clear(&s->load);
}

double sim_shape_margin(const ShapeRanking *s, int base)
{
    return base >= 0 ? (double)s->rows[base].total_ns / (double)s->rows[s->win].total_ns : 0;
}

void sim_shape_query_resolve(ShapeQuery *q)
{
    q->seqlen_k = q->seqlen_k ? q->seqlen_k : q->seqlen;
    q->head_dim = q->head_dim ? q->head_dim : 128;
    q->batch = q->batch ? q->batch : 1;
    q->preset = q->preset ? q->preset : "h100-sxm";
}

SimStatus sim_shape_profiles_load(const ShapeQuery *q, ShapeProfiles *pf, SimError *err)
{
    memset(pf, 0, sizeof *pf);
    if (!q->is_paper &&
        (sim_data_find_profile_for(q->profile_name, q->preset, pf->hw_path, sizeof pf->hw_path, err) != SIM_OK ||
         sim_profile_read(pf->hw_path, &pf->hw, err) != SIM_OK))
        return err->status;
    if (q->kernel_name &&
        (sim_data_find_kernel_for(q->kernel_name, q->preset, pf->kernel_path, sizeof pf->kernel_path, err) != SIM_OK ||
         sim_kernel_read(pf->kernel_path, &pf->kernel, err) != SIM_OK))
        return err->status;
    return SIM_OK;
}

void sim_shape_profiles_clear(ShapeProfiles *pf)
{
    sim_profile_free(pf->hw);
    sim_kernel_free(pf->kernel);
    pf->hw = NULL, pf->kernel = NULL;
}

SimStatus sim_shape_rank_query(const ShapeQuery *q, const ShapeProfiles *pf, const AttnJob *given, ShapeRanking *out,
                               SimShapeProgress progress, void *progress_ctx, SimError *err)
{
    CostQuery cq = { .shape = { .batch = q->batch, .heads = given->wl.heads, .kv_heads = q->kv_heads,
                                .seqlen_q = q->seqlen, .seqlen_k = q->seqlen_k, .head_dim = q->head_dim,
                                .mask = given->wl.mask, .dtype = DTYPE_BF16 },
                     .preset = q->preset, .hw = pf->hw, .kernel = pf->kernel, .reduce = given->costs.reduce,
                     .dq_buffers = given->costs.dq_buffers };
    return sim_shape_rank(&cq, q->token_mask, given, out, progress, progress_ctx, err);
}

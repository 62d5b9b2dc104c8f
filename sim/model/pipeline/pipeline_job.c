/* One `sim pipeline` request: the cross-field checks, then the policy's Cycle, the rotation of Theorem B.1
 * (always, for --explain), the brute-force minimum Preload count (when asked) and the engine run.
 * Invariant: every check runs before anything is built, and the first failing one is the one reported. */
#include "pipeline.h"

#include <glib.h>
#include <inttypes.h>

SimStatus pipe_request_check(PipeRequest *rq, SimError *err)
{
    PipeWorkload *wl = &rq->wl;
    const PipeCycleRequest *cy = &rq->cycle;
    if (pipe_policy_prepare(rq->policy, wl, err) != SIM_OK)
        return err->status;
    if (!rq->policy->has_cycle_request && (cy->order_text || cy->preload >= 0)) {
        char *names = pipe_policy_names(", ", " or ", true);
        sim_error_set(err, SIM_ERR_USAGE, "--order and --preload apply to --policy %s only", names);
        g_free(names);
        return err->status;
    }
    if (cy->order_text && cy->preload >= 0)
        return sim_error_set(err, SIM_ERR_USAGE, "--order fixes the Preload count; drop --preload");
    if (rq->has_min_preload && wl->n_pairs > PIPE_MAX_BRUTE_PAIRS)
        return sim_error_set(err, SIM_ERR_USAGE, "--min-preload enumerates n! orders and takes at most %d CV "
                             "pairs, --c has %d", PIPE_MAX_BRUTE_PAIRS, wl->n_pairs);
    int64_t ops = wl->blocks * wl->n_pairs * (wl->n_cube + wl->n_vector);
    double mb = (double)ops * PIPE_BYTES_PER_OP_UNIT * (1 + MAX(wl->n_cube, wl->n_vector)) / (1 << 20);
    if (ops > PIPE_MAX_OPS)
        return sim_error_set(err, SIM_ERR_LIMIT, "the pipeline would have %" PRId64 " ops, more than the %d this "
                             "command simulates; use fewer --blocks", ops, PIPE_MAX_OPS);
    if (rq->max_memory_mb > 0 && mb > (double)rq->max_memory_mb)
        return sim_error_set(err, SIM_ERR_LIMIT, "the pipeline's %" PRId64 " ops would need about %.0f MB, over the "
                             "cap of %" PRId64 " MB (--max-memory-mb); use fewer --blocks", ops, mb, rq->max_memory_mb);
    return SIM_OK;
}

SimStatus pipe_job_run(const PipeRequest *rq, PipeJob *job, SimError *err)
{
    int64_t c[PIPE_MAX_PAIRS], v[PIPE_MAX_PAIRS];
    PipeCycle unused;
    *job = (PipeJob){ .min_preload = -1 };
    pipe_effective_durations(&rq->wl, false, c, v);
    pipe_rotation(rq->wl.n_pairs, c, v, &job->rotation, &unused);
    if (pipe_policy_build(rq->policy, &rq->wl, &rq->cycle, &job->cycle, err) != SIM_OK)
        return err->status;
    if (rq->has_min_preload)
        job->min_preload = pipe_min_preload(rq->wl.n_pairs, c, v, &job->witness);
    if (pipe_run(&rq->wl, &job->cycle, &job->result, err) != SIM_OK)
        pipe_job_clear(job);
    return err->status;
}

void pipe_job_clear(PipeJob *job)
{
    pipe_result_clear(&job->result);
}

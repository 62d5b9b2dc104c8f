/* A client of the installed library: only the public header, flags from `pkg-config dashsim`. */
#include <dashsim.h>
#include <stdio.h>

int main(void)
{
    AttnJob job = sim_job_default();
    job.policy = "shift", job.wl.n_sm = 8, job.wl.kv_tiles = job.wl.q_tiles = 8, job.wl.heads = 2;
    AttnResult r;
    SimError err = { 0 };
    if (sim_job_run(&job, &r, &err) != SIM_OK)
        return fprintf(stderr, "%s\n", err.msg), 2;
    printf("%s %s makespan_ns %lld\n", dashsim_version(), job.policy, (long long)r.a.makespan_ns);
    sim_job_result_clear(&r);
    return 0;
}

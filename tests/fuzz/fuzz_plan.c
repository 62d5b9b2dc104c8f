/* libFuzzer harness for the plan reader (`make fuzz`): sim_plan_read on arbitrary bytes under a 64 MB
 * cap, then small accepted plans are simulated (sim_job_run). Invariant checked: no crash, no leak, a
 * plan it accepts passes plan_check, and the engine takes every accepted plan (an empty CTA was an
 * assertion in the engine: tests/fuzz/regress-plan/empty-cta.plan). */
#include <stdlib.h>

#include "fuzz_input.h"
#include "job.h"
#include "plan_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Plan *plan = NULL;
    AttnCosts costs;
    uint64_t hash;
    SimError err = { 0 };
    if (sim_plan_read(fuzz_input_file(data, size), 64 << 20, &plan, &costs, &hash, &err) == SIM_OK) {
        SimError check = { 0 };
        if (plan_check(plan, "", &check) != SIM_OK)
            abort(); /* accepted plans are valid */
        if (plan->task_count <= 4096 && plan->wl.n_sm <= 1024) {
            AttnJob job = sim_job_default();
            job.plan = plan, job.policy = plan->policy, job.wl = plan->wl, job.costs = costs;
            job.max_memory_mb = 256;
            AttnResult r;
            SimError run = { 0 };
            sim_job_run(&job, &r, &run); /* an error is fine, a crash is not */
            sim_job_result_clear(&r);
        }
    } else if (!err.msg[0])
        abort(); /* every refusal says why */
    plan_free(plan);
    return 0;
}

/* libFuzzer harness for the plan reader (`make fuzz`): sim_plan_read on arbitrary bytes under a 64 MB
 * cap. Invariant checked: no crash, no leak, and a plan it accepts passes plan_check. */
#include <stdlib.h>

#include "fuzz_input.h"
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
    } else if (!err.msg[0])
        abort(); /* every refusal says why */
    plan_free(plan);
    return 0;
}

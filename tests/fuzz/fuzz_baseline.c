/* libFuzzer harness for calibrate --kernel --baseline (`make fuzz-baseline`): sim_kernel_baseline_read and
 * sim_kernel_fit_baseline on arbitrary bytes, against the reference kernel gpu-bwd ($DASHSIM_FUZZ_REFERENCE,
 * else configs/kernels/gpu-bwd.json from the tree). Invariant checked: no crash, no leak, no abort; every
 * record's size is checked before any simulation (a 64 MB cap) and the fit stops at its 2 s budget; a
 * refusal says why. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "kernel_baseline.h"
#include "kernel_io.h"

static KernelProfile *reference(void)
{
    static KernelProfile *ref;
    if (!ref) {
        const char *path = getenv("DASHSIM_FUZZ_REFERENCE");
        SimError err = { 0 };
        if (sim_kernel_read(path && path[0] ? path : "../../configs/kernels/gpu-bwd.json", &ref, &err) != SIM_OK)
            abort(); /* the harness's own setup: set DASHSIM_FUZZ_REFERENCE */
    }
    return ref;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const KernelProfile *ref = reference();
    KernelBaseline b = { 0 };
    SimError err = { 0 };
    static char path[4096];
    SimBudget budget = { .max_seconds = 2 };
    sim_budget_start(&budget);
    if (sim_kernel_baseline_read(fuzz_file_as(path, sizeof path, ".json", data, size), &b, &err) == SIM_OK) {
        b.max_memory_mb = 64, b.budget = &budget;
        sim_kernel_fit_baseline(&b, ref, &err);
    }
    if (err.status && !err.msg[0])
        abort();
    sim_kernel_baseline_clear(&b);
    return 0;
}

/* libFuzzer harness for the latency-matrix reader (`make fuzz`): the first byte picks n_sm (1..16), the
 * rest is the file (gpu-calib JSON or the plain format). Invariant checked: no crash, no leak, and an
 * accepted matrix has -1 on its diagonal and every cell in -1..SIM_LATENCY_MAX_NS. */
#include <stdlib.h>

#include "fuzz_input.h"
#include "latency_matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int n_sm = 1 + data[0] % 16;
    int32_t *m = NULL;
    bool is_legacy;
    SimError err = { 0 };
    if (sim_latency_matrix_load(fuzz_input_file(data + 1, size - 1), n_sm, &m, &is_legacy, &err) == SIM_OK) {
        for (int64_t i = 0; i < (int64_t)n_sm * n_sm; i++)
            if (m[i] < -1 || m[i] > SIM_LATENCY_MAX_NS || (i / n_sm == i % n_sm && m[i] != -1))
                abort();
    } else if (!err.msg[0])
        abort();
    free(m);
    return 0;
}

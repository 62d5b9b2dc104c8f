/* libFuzzer harness for the trace reader (`make fuzz`): sim_trace_load_capped on arbitrary bytes with a
 * 256 MB budget. Invariant checked: no crash, no leak, and every task of an accepted trace indexes its
 * workload (smid < n_sm, head < heads, kv < kv_tiles, q < q_tiles) with ordered times. */
#include <stdlib.h>

#include "fuzz_input.h"
#include "trace_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Trace *t = NULL;
    SimError err = { 0 };
    if (sim_trace_load_capped(fuzz_input_file(data, size), 256 << 20, &t, &err) == SIM_OK) {
        for (int64_t i = 0; i < t->task_count; i++) {
            const TraceTask *k = &t->tasks[i];
            if (k->smid < 0 || k->smid >= t->wl.n_sm || k->head < 0 || k->head >= t->wl.heads || k->kv < 0 ||
                k->kv >= t->wl.kv_tiles || k->q < 0 || k->q >= t->wl.q_tiles || k->c_start > k->r_end)
                abort();
        }
    } else if (!err.msg[0])
        abort();
    sim_trace_free(t);
    return 0;
}

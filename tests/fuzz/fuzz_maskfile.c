/* libFuzzer harness for the mask file reader (`make fuzz`): sim_mask_read_capped on arbitrary bytes with a
 * 1 MB cap. Invariant checked: no crash, no leak; a refused file says why; an accepted mask has tiles in
 * 1..2^20, at most 2^30 pairs and the cap, and only 0/1 cells. */
#include <stdlib.h>

#include "fuzz_input.h"
#include "mask_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    BlockMask m;
    SimError err = { 0 };
    if (sim_mask_read_capped(fuzz_input_file(data, size), 1 << 20, &m, &err) != SIM_OK) {
        if (!err.msg[0] || m.keep)
            abort();
        return 0;
    }
    int64_t cells = (int64_t)m.kv_tiles * m.q_tiles;
    if (m.kv_tiles < 1 || m.q_tiles < 1 || m.kv_tiles > (1 << 20) || m.q_tiles > (1 << 20) || cells > (1 << 20))
        abort();
    for (int64_t i = 0; i < cells; i++)
        if (m.keep[i] > 1)
            abort();
    sim_mask_clear(&m);
    return 0;
}

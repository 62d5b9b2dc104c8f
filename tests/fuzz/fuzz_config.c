/* libFuzzer harness for the config loader (`make fuzz`): parse, validate every sweep point, decode and
 * derive costs, and expand the sweep (sizes checked against the memory caps). Invariant checked: no
 * crash, no leak, and a config the validator accepts decodes every point without an error. */
#include <stdint.h>
#include <stdlib.h>

#include "config.h"
#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SimDiag *diag = sim_diag_new();
    SimConfig *c = sim_config_parse("fuzz.json", (const char *)data, size, diag);
    /* validation is linear in the points (about 10 us each, 10x that under ASan): big sweeps only
     * make the fuzzer slow, the per-point path is covered by small ones */
    if (c && sim_config_point_count(c, true) > 5000) {
        sim_config_free(c);
        sim_diag_free(diag);
        return 0;
    }
    if (c && sim_config_validate(c, true, diag)) {
        /* expansion sizes every job against the memory caps before anything is run or read */
        sim_sweep_free(sim_sweep_new(c, true, diag));
        int64_t n = sim_config_point_count(c, true);
        for (int64_t i = 0; i < n && i < 64; i++) {
            SimConfigPoint p;
            if (!sim_config_point(c, true, i, &p, diag))
                abort(); /* validated configs decode */
            SimCost cost;
            sim_cost_derive(&p.shape, &p.hw, &cost);
            if (cost.c_ns < 0 || cost.r_ns < 0 || cost.wl.kv_tiles < 1 || cost.wl.q_tiles < 1)
                abort();
        }
    }
    sim_config_free(c);
    sim_diag_free(diag);
    return 0;
}

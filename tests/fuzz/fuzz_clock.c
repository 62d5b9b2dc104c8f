/* libFuzzer harness for calibrate --clock (`make fuzz-clock`): sim_profile_fit_clock_rule on arbitrary bytes
 * as the reduce_clock raw file, onto the committed H100 profile ($DASHSIM_FUZZ_PROFILE, else
 * configs/profiles/h100-sxm.json from the tree). Invariant checked: no crash, no leak, no abort; a refused
 * file says why; an accepted one gives a profile that is written and read back. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "profile_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *base = getenv("DASHSIM_FUZZ_PROFILE");
    HwProfile *p = NULL, *again = NULL;
    SimError err = { 0 };
    if (sim_profile_read(base && base[0] ? base : "../../configs/profiles/h100-sxm.json", &p, &err) != SIM_OK)
        abort(); /* the harness's own setup: set DASHSIM_FUZZ_PROFILE */
    static char path[4096], back[4096];
    if (sim_profile_fit_clock_rule(p, fuzz_file_as(path, sizeof path, ".json", data, size), 64 << 20, &err) != SIM_OK) {
        if (!err.msg[0])
            abort();
    } else {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f || !sim_profile_write(p, f))
            abort();
        fclose(f);
        if (sim_profile_read(fuzz_file_as(back, sizeof back, ".profile", (const uint8_t *)buf, len), &again, &err) != SIM_OK)
            abort(); /* the fitted profile is one its own reader refuses */
        free(buf);
    }
    sim_profile_free(p), sim_profile_free(again);
    return 0;
}

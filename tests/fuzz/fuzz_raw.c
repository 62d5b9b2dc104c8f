/* libFuzzer harness for sim calibrate's raw reader (`make fuzz`): sim_profile_from_raw on arbitrary bytes.
 * Invariant checked: no crash, no leak; a refused file says why; a profile made from an accepted one is
 * written as a file the profile reader accepts, that reads back to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "profile_io.h"

static char *written(const HwProfile *p, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f || !sim_profile_write(p, f))
        abort();
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    HwProfile *p = NULL, *again = NULL;
    SimError err = { 0 };
    if (sim_profile_from_raw(fuzz_input_file(data, size), NULL, INT64_MAX, &p, &err) != SIM_OK) {
        if (!err.msg[0] || p)
            abort();
        return 0;
    }
    size_t len1, len2;
    char *one = written(p, &len1);
    static char path[4096];
    if (sim_profile_read(fuzz_file_as(path, sizeof path, ".profile", (const uint8_t *)one, len1), &again, &err) != SIM_OK)
        abort(); /* calibrate wrote a profile its own reader refuses */
    char *two = written(again, &len2);
    if (len1 != len2 || memcmp(one, two, len1) != 0)
        abort();
    free(one), free(two);
    sim_profile_free(p), sim_profile_free(again);
    return 0;
}

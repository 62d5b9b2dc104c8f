/* libFuzzer harness for the hardware profile reader (`make fuzz`): sim_profile_read on arbitrary bytes.
 * Invariant checked: no crash, no leak; a refused file says why; an accepted profile is written as a
 * file its own reader accepts, and writing that one again gives the same bytes (a fixed point). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "profile_io.h"

/* p written to a memory buffer; g_free'd by the caller (NULL: the writer failed). */
static char *written(const HwProfile *p, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    bool ok = sim_profile_write(p, f);
    fclose(f);
    if (!ok)
        free(buf), buf = NULL;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    HwProfile *p = NULL, *again = NULL;
    SimError err = { 0 };
    if (sim_profile_read(fuzz_input_file(data, size), &p, &err) != SIM_OK) {
        if (!err.msg[0])
            abort();
        sim_profile_free(p);
        return 0;
    }
    size_t len1 = 0, len2 = 0;
    char *one = written(p, &len1);
    if (!one || sim_profile_read(fuzz_input_file((const uint8_t *)one, len1), &again, &err) != SIM_OK)
        abort(); /* the writer's output is refused by the reader */
    char *two = written(again, &len2);
    if (!two || len1 != len2 || memcmp(one, two, len1) != 0)
        abort();
    free(one), free(two);
    sim_profile_free(p), sim_profile_free(again);
    return 0;
}

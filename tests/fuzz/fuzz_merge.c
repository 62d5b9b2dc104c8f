/* libFuzzer harness for sim sweep --merge (`make fuzz`): the input cut at each "\n--8<--\n" into up to 4
 * files, merged with sim_sweep_merge. Invariant checked: no crash, no leak; a refusal says why; an
 * accepted merge has one line per row the slices announce (and the header once, CSV and table), and the
 * same files merged in reverse order give the same bytes. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "sweep.h"

#define CUT "\n--8<--\n"

static char *merged(const char *const *paths, int count, size_t *len, SimError *err)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    sim_sweep_merge(paths, count, f, err);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char names[4][4096];
    const char *paths[4], *reversed[4];
    const char *at = (const char *)data, *end = at + size;
    int count = 0;
    while (count < 4) {
        const char *cut = memmem(at, (size_t)(end - at), CUT, strlen(CUT));
        const char *stop = cut && count < 3 ? cut + 1 : end; /* the file keeps its last newline */
        snprintf(names[count], sizeof names[count], "%s/dashsim-fuzz-%d-%d.csv", fuzz_tmp_dir(), (int)getpid(), count);
        FILE *f = fopen(names[count], "wb");
        if (!f || fwrite(at, 1, (size_t)(stop - at), f) != (size_t)(stop - at) || fclose(f) != 0)
            abort();
        paths[count] = names[count];
        count++;
        if (stop == end)
            break;
        at = cut + strlen(CUT);
    }
    for (int i = 0; i < count; i++)
        reversed[i] = paths[count - 1 - i];
    SimError e1 = { 0 }, e2 = { 0 };
    size_t len1, len2;
    char *one = merged(paths, count, &len1, &e1), *two = merged(reversed, count, &len2, &e2);
    if ((e1.status != SIM_OK) != (e2.status != SIM_OK) || (e1.status && (!e1.msg[0] || len1)))
        abort(); /* an order changes acceptance, or a refusal wrote bytes or said nothing */
    if (!e1.status && (len1 != len2 || memcmp(one, two, len1) != 0))
        abort();
    free(one), free(two);
    return 0;
}

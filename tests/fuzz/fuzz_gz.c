/* libFuzzer harness for the bounded reader's gzip input (`make fuzz`): the bytes as a .gz file, read whole
 * (a 1 MiB cap) and line by line. Invariant checked: no crash, no leak; both ways agree on acceptance; an
 * accepted file decompresses within the cap, and its lines joined with newlines are its text (a final
 * newline aside, '\r' before a newline dropped by the line reader). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char name[4096];
    const char *path = fuzz_file_as(name, sizeof name, ".json.gz", data, size);
    SimInputLimits limits = { .max_bytes = 1 << 20, .max_line = 1 << 20 };
    char *text = NULL, *line;
    size_t len = 0, line_len, at = 0;
    SimError e1 = { 0 }, e2 = { 0 };
    SimStatus whole = sim_input_read_all(path, &limits, &text, &len, &e1);
    if (whole != SIM_OK && (!e1.msg[0] || text))
        abort();
    if (whole == SIM_OK && (len > (size_t)limits.max_bytes || text[len] != 0))
        abort();
    SimInput *in = NULL;
    if (sim_input_open(path, &limits, &in, &e2) == SIM_OK) {
        while (sim_input_line(in, &line, &line_len, &e2) == SIM_OK && line) {
            if (whole == SIM_OK && (at + line_len > len || memcmp(text + at, line, line_len) != 0))
                abort(); /* a line that is not the text's next bytes */
            at += line_len;
            at += at < len && text[at] == '\r' && (at + 1 == len || text[at + 1] == '\n');
            at += at < len && text[at] == '\n';
        }
        sim_input_close(in);
    }
    bool is_binary = whole == SIM_OK && memchr(text, 0, len) != NULL; /* refused by lines, not by the whole */
    if ((whole == SIM_OK) != (e2.status == SIM_OK) && !is_binary)
        abort();
    if (whole == SIM_OK && e2.status == SIM_OK && at != len)
        abort();
    free(text);
    return 0;
}

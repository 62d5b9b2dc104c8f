/* libFuzzer harness for the --mask spec parser (`make fuzz`): the first two bytes pick the KV and Q tiles
 * (1..64 each), the rest is the spec. Invariant checked: no crash, no leak; a refused spec says why; an
 * accepted one keeps only 0/1 cells, is made again identically (a seed gives one mask) and keeps the
 * diagonal wherever its kind promises to (causal, window, document, prefix, random on square tiles). An
 * accepted spec must also match the documented grammar (checked here on its own): a lenient parse fails. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mask.h"

/* Digits, at least one, from *s; true if some. */
static bool digits(const char **s)
{
    const char *start = *s;
    while (**s >= '0' && **s <= '9')
        (*s)++;
    return *s > start;
}

/* full | causal | window:D | window:D:D | document:D(,D)* | prefix:D | random:DECIMAL:D, and nothing after. */
static bool is_grammatical(const char *spec)
{
    const char *s = strchr(spec, ':');
    if (!s)
        return strcmp(spec, "full") == 0 || strcmp(spec, "causal") == 0;
    s++;
    if (strncmp(spec, "window:", 7) == 0)
        return digits(&s) && (!*s || (*s++ == ':' && digits(&s) && !*s));
    if (strncmp(spec, "prefix:", 7) == 0)
        return digits(&s) && !*s;
    if (strncmp(spec, "document:", 9) == 0) {
        while (digits(&s) && *s == ',')
            s++;
        return !*s && s[-1] != ',';
    }
    if (strncmp(spec, "random:", 7) != 0)
        return false;
    bool has_int = digits(&s), has_frac = *s == '.' && (s++, digits(&s));
    if (!has_int && !has_frac)
        return false;
    if (*s == 'e' || *s == 'E') {
        s += s[1] == '-' || s[1] == '+' ? 2 : 1;
        if (!digits(&s))
            return false;
    }
    return *s++ == ':' && digits(&s) && !*s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 256)
        return 0;
    int kv = 1 + data[0] % 64, q = 1 + data[1] % 64;
    char spec[256];
    memcpy(spec, data + 2, size - 2);
    spec[size - 2] = 0;
    BlockMask m = { 0 }, again = { 0 };
    SimError err = { 0 }, err2 = { 0 };
    if (sim_mask_make(spec, kv, q, &m, &err) != SIM_OK) {
        if (!err.msg[0] || m.keep)
            abort();
        return 0;
    }
    if (!is_grammatical(spec))
        abort(); /* accepted but not in the grammar */
    if (sim_mask_make(spec, kv, q, &again, &err2) != SIM_OK || memcmp(m.keep, again.keep, (size_t)kv * q) != 0)
        abort();
    bool has_diagonal = strncmp(spec, "full", 4) != 0 && (kv == q || strncmp(spec, "random", 6) == 0);
    for (int64_t i = 0; i < (int64_t)kv * q; i++)
        if (m.keep[i] > 1 || (has_diagonal && i / q == i % q % kv && !m.keep[i]))
            abort();
    sim_mask_clear(&m), sim_mask_clear(&again);
    return 0;
}

/* An LD_PRELOAD shim for tests/cli_output_layer_and_readers.sh: faults in the renames and links that commit an output set,
 * chosen by environment variables, so the tests can interrupt or break a commit at a known point.
 *   FAULT_RENAME_DELAY_MS=N  each rename() sleeps N ms first (a signal can arrive between two renames)
 *   FAULT_RENAME_FAIL=TEXT   a rename() whose target contains TEXT fails with EIO
 *   FAULT_LINK_FAIL=1        every link() fails with EPERM (a file system without hard links) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *delay = getenv("FAULT_RENAME_DELAY_MS"), *fail = getenv("FAULT_RENAME_FAIL");
    if (delay) {
        struct timespec ts = { atoi(delay) / 1000, (long)(atoi(delay) % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    if (fail && *fail && strstr(to, fail) && !strstr(to, ".tmp.") && !strstr(from, ".bak.")) {
        errno = EIO;
        return -1;
    }
    return real(from, to);
}

int link(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
    if (getenv("FAULT_LINK_FAIL")) {
        errno = EPERM;
        return -1;
    }
    return real(from, to);
}

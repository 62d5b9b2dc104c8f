/* `make bench`'s trace-loading stopwatch (bench/bench_validate.sh): loads every trace named on the command
 * line with sim_trace_load, as sim validate does, and prints the CPU seconds that took (this process's
 * clock) and the number loaded. Linked to build/libdashsim-internal.a; not part of it. */
#include <stdio.h>
#include <time.h>

#include "trace_in.h"

int main(int argc, char **argv)
{
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    int loaded = 0;
    for (int i = 1; i < argc; i++) {
        Trace *t = NULL;
        SimError err = { 0 };
        if (sim_trace_load(argv[i], &t, &err) == SIM_OK)
            loaded++;
        else
            fprintf(stderr, "load_traces: %s\n", err.msg);
        sim_trace_free(t);
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    printf("%.3f %d\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9, loaded);
    return loaded == argc - 1 ? 0 : 2;
}

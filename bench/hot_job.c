/* The same attention job as `make bench`'s (fa3, full mask, 132 SMs, HEADS x 128 x 128 tasks, serial, full
 * analysis) run 1 + REPS times in one process, through libdashsim's job call, with bin/sim's allocator
 * settings (sim/cli/main.c: freed memory stays in the heap). The first run faults its pages in; the later
 * ones find them in the heap, already mapped. Prints the first run's CPU seconds and the median of the
 * later ones (CLOCK_PROCESS_CPUTIME_ID): their difference is what fresh pages cost the job, the rest is
 * the simulator's own work with its data in whatever cache level holds it.
 * Usage: hot_job HEADS REPS. Built by bench/bench.sh against build/libdashsim-internal.a (every module's
 * names: the installed archive keeps only the API's global); not part of libdashsim. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_clock.h"
#include "job.h"


int main(int argc, char **argv)
{
    int heads = argc == 3 ? atoi(argv[1]) : 0, reps = argc == 3 ? atoi(argv[2]) : 0;
    if (heads < 1 || heads > 4096 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: hot_job HEADS REPS\n");
        return 2;
    }
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, INT32_MAX);
    mallopt(M_ARENA_MAX, 1);
    AttnJob job = sim_job_default();
    job.policy = "fa3";
    job.wl.heads = heads, job.wl.kv_tiles = 128, job.wl.q_tiles = 128, job.wl.n_sm = 132;
    job.max_memory_mb = 65536;
    double *t = malloc(sizeof(double) * (size_t)(reps + 1));
    for (int i = 0; t && i <= reps; i++) {
        AttnResult r = { 0 };
        SimError err = { 0 };
        double t0 = cpu_seconds();
        SimStatus st = sim_job_run(&job, &r, &err);
        t[i] = cpu_seconds() - t0;
        sim_job_result_clear(&r);
        if (st != SIM_OK) {
            fprintf(stderr, "hot_job: %s\n", err.msg);
            return 2;
        }
    }
    if (!t)
        return 2;
    qsort(t + 1, (size_t)reps, sizeof *t, cmp_double);
    printf("%.6f %.6f\n", t[0], t[1 + (reps - 1) / 2]);
    free(t);
    return 0;
}

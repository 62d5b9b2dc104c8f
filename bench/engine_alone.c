/* The engine alone: builds one attention program (POLICY, 132 SMs, HEADS x 128 x 128 tiles, the CLI's default
 * costs: serial, c 1000, r 500) and times REPS runs of the event engine on it (sim_engine_run_events; with
 * `fast`, sim_engine_run: the fast path where it applies), each with fresh schedule arrays as a job has.
 * Prints the median CPU seconds (this process's clock) and ns per op; a checksum of the starts keeps the
 * runs honest. Linked to build/libdashsim-internal.a; not part of it. Build and run (from the tree's root):
 *   cc -O2 -std=c11 -D_DEFAULT_SOURCE -Isim/core -Iinclude -Idag -Ipolicies/attention -Ipolicies/pipeline \
 *      -Ipolicies/decode $(for d in sim/model/x/; do printf -- "-I%s " "${d%/}"; done) -Isim/io -Isim/run \
 *      $(pkg-config --cflags glib-2.0) -o /tmp/engine_alone bench/engine_alone.c build/libdashsim-internal.a \
 *      $(pkg-config --libs igraph glib-2.0 libcjson zlib) -lm -lpthread
 *   /tmp/engine_alone fa3 32 9        (x: every folder under sim/model, as bench/bench.sh builds hot_job)
 * Usage: engine_alone POLICY HEADS REPS [fast]. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "bench_clock.h"
#include "job.h"
#include "policy.h"
#include "search.h"


int main(int argc, char **argv)
{
    int heads = argc >= 4 ? atoi(argv[2]) : 0, reps = argc >= 4 ? atoi(argv[3]) : 0;
    bool is_fast = argc == 5 && !strcmp(argv[4], "fast");
    if (heads < 1 || heads > 4096 || reps < 1 || reps > 1000 || argc > 5 || (argc == 5 && !is_fast)) {
        fprintf(stderr, "usage: engine_alone POLICY HEADS REPS [fast]\n");
        return 2;
    }
    AttnJob job = sim_job_default();
    job.wl.heads = heads, job.wl.kv_tiles = 128, job.wl.q_tiles = 128, job.wl.n_sm = 132;
    SimError err = { 0 };
    PolicyQuery q = sim_policy_query(&job.wl, &job.costs, 1);
    const PolicyOps *ops = policy_find(argv[1]);
    Plan *plan = ops ? policy_build_query(ops, &q, &err) : NULL;
    if (!plan) {
        fprintf(stderr, "engine_alone: %s\n", ops ? err.msg : "unknown policy");
        return 2;
    }
    SimProgram *prog = sim_attention_program(plan, &job.costs);
    double *t = malloc(sizeof(double) * (size_t)reps);
    int64_t sum = 0;
    for (int i = 0; t && i < reps; i++) {
        SimSchedule s = { 0 };
        double t0 = cpu_seconds();
        SimStatus st = (is_fast ? sim_engine_run : sim_engine_run_events)(prog, &s, &err);
        t[i] = cpu_seconds() - t0;
        for (int64_t op = 0; st == SIM_OK && op < prog->op_count; op += 977)
            sum += s.start_ns[op];
        sim_schedule_clear(&s);
        if (st != SIM_OK) {
            fprintf(stderr, "engine_alone: %s\n", err.msg);
            return 2;
        }
    }
    if (!t)
        return 2;
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    printf("%s %" PRId64 " ops: %.6f s, %.1f ns an op (median of %d; checksum %" PRId64 ")\n", argv[1],
           prog->op_count, t[(reps - 1) / 2], t[(reps - 1) / 2] * 1e9 / (double)prog->op_count, reps, sum);
    free(t);
    sim_program_free(prog);
    plan_free(plan);
    return 0;
}

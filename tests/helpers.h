/* Shared helpers of the Check suites: run a policy through plan -> program -> engine (-> DAG). */
#ifndef TESTS_HELPERS_H
#define TESTS_HELPERS_H

#include "analyze.h"
#include "attention.h"

typedef struct {
    int64_t makespan_ns, critical_path_ns, lemma1_violations;
    bool is_ok;            /* the policy accepted the workload */
} TstRun;

/* Workload of the paper: N = M = n, tile ratio 1, no swizzle. */
Workload tst_workload(int n, int heads, Mask mask);
AttnCosts tst_costs(int64_t c, int64_t r, int64_t latency_ns, ReduceMode reduce);
/* Engine only (fast); with_dag also solves the DAG for critical path and Lemma 1. */
TstRun tst_run(const char *policy, const Workload *wl, const AttnCosts *costs, bool with_dag);
/* Records a case that a suite could not run here (with why); test_main counts them in its closing line
 * "N passed, N failed, N skipped" and lists them. Call while building suites (before forking). */
void tst_skip(const char *suite, const char *what, const char *why);
int tst_skipped(void);

#endif

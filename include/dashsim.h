/* dashsim: the public header of libdashsim, the one a program includes (`pkg-config --cflags --libs
 * dashsim`). It brings the layers a client needs to simulate a schedule: status and errors, plans,
 * engine programs and the event engine, the attention policies, the attention cost model, the DAG
 * analysis and the one-call attention job. Layers and ownership: docs/architecture.md.
 *
 *   AttnJob job = sim_job_default();          // 132 SMs, fa3, full mask, c 1000 ns, r 500 ns
 *   job.policy = "shift"; job.wl.heads = 16;
 *   AttnResult r; SimError err = { 0 };
 *   if (sim_job_run(&job, &r, &err) == SIM_OK) printf("%lld ns\n", (long long)r.a.makespan_ns);
 *   sim_job_result_clear(&r);
 */
#ifndef DASHSIM_H
#define DASHSIM_H

#include "version.h"   /* DASHSIM_VERSION, DASHSIM_VERSION_MAJOR, _MINOR, _PATCH */
#include "status.h"
#include "plan.h"
#include "program.h"
#include "engine.h"
#include "policy.h"
#include "attention.h"
#include "analyze.h"
#include "job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH": compare with DASHSIM_VERSION to catch a header/library
 * mismatch. */
const char *dashsim_version(void);

#ifdef __cplusplus
}
#endif

#endif

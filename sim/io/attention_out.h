/* `sim --json`'s object for one attention schedule (a policy's or a plan's), written for the CLI and the
 * library's dashsim_replay_json alike (sim/io/attention_out.c). */
#ifndef SIM_ATTENTION_OUT_H
#define SIM_ATTENTION_OUT_H

#include <stdio.h>

#include "analyze.h"
#include "attention.h"

/* What one job reported (sim/run/job.h's AttnResult, as the io layer sees it). Borrowed pointers. */
typedef struct {
    const char *policy;          /* the registry name, or the plan file's */
    const char *mask;            /* "full", "causal", a block mask's spec, "block" for a plan's */
    const Workload *wl;
    const AttnCosts *costs;
    SimAnalysisLevel analysis;   /* SIM_ANALYSIS_NONE: nothing past the makespan is written */
    int64_t tasks;
    const SimAnalysis *a;
    bool has_closed_form, is_closed_form_exact;
    int64_t closed_form_ns;
} AttnReport;

/* One JSON object and a newline, integers as their digits. O(1). */
void sim_attention_write_json(FILE *f, const AttnReport *r);

#endif

/* How an attention job's realized schedule is drawn and named (implemented in sim/run/job.c): the render
 * spec (tracks, labels, title, metadata) its trace, CSV and Gantt chart share, and the DOT graph's node
 * names. Shared by the job and the measured-trace viewer (sim/run/trace_view.c), so a measured run and its
 * model are drawn with the same tracks and the same slice names. Not part of the public API. */
#ifndef SIM_JOB_RENDER_H
#define SIM_JOB_RENDER_H

#include "analyze.h"
#include "job.h"
#include "render.h"

typedef struct {
    const Plan *plan;
    const SimProgram *prog;
} AttnLabelCtx;

enum { ATTN_META_COUNT = 11 };

/* The text a spec points into (caller-owned, lives as long as the spec). */
typedef struct {
    SimRenderMeta meta[ATTN_META_COUNT];
    char values[ATTN_META_COUNT][32];
    char title[256], device[64];
    AttnLabelCtx label_ctx;
} AttnRenderText;

/* The spec of job's realized schedule s of prog (compiled from plan): one track per SM and engine
 * ("compute", "reduction store"), slices named by phase letter and head only ("C h0": compute, R reduction,
 * P prologue, D deposit), a stable name per head and phase so that Perfetto colours by them, with head,
 * kv, q and rank as arguments; numbers in the metadata are JSON numbers. a may be NULL (nothing critical). */
SimRenderSpec sim_job_render_spec(const AttnJob *job, const Plan *plan, const SimProgram *prog,
                                  const SimSchedule *s, const SimAnalysis *a, AttnRenderText *t);
/* The DOT output to f whose op nodes read "C h0 kv3 q5" (phase, head, KV tile, Q tile); ctx is *l. */
SimDotSpec sim_job_dot_spec(FILE *f, const AttnLabelCtx *l);

#endif

/* Renderers of a realized schedule: Chrome Trace Event JSON (Perfetto, chrome://tracing), CSV (one row
 * per op) and a Gantt chart drawn by gnuplot (PNG or SVG, with its script and data kept beside it).
 * They take a generic description (program + schedule + analysis + track names + a labeller or per-phase
 * label templates), so attention jobs and Cube/Vector pipelines share them. Invariant: every file is
 * written through sim/output.h, so an error leaves nothing under the requested name; output bytes depend
 * only on inputs. */
#ifndef SIM_RENDER_H
#define SIM_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze.h"
#include "engine.h"
#include "program.h"
#include "status.h"

#define SIM_RENDER_MAX_ARGS 6     /* integer arguments a labeller may attach to each op */
#define SIM_RENDER_MAX_ENGINES 8  /* engines per unit the renderers name */

/* What the labeller says about one op. The renderer sets the defaults before the call: name = phase =
 * sim_op_kind_name(kind), group = -1, args = 0; name only where it is read (is_name_wanted). */
typedef struct {
    bool is_name_wanted;              /* set by the renderer: false when no one reads name (CSV, Gantt),
                                       * and then the labeller may leave it (formatting it costs more than
                                       * the rest of a CSV row) */
    char name[64];                    /* slice name, e.g. "C h0 kv3 q5" */
    const char *phase;                /* static: CSV 'phase' column and trace category, e.g. "compute" */
    int32_t group;                    /* colour key (attention: head); -1: colour by phase */
    int64_t args[SIM_RENDER_MAX_ARGS];/* values for SimRenderSpec.arg_names, in that order */
} SimRenderLabel;

typedef void (*SimRenderLabelFn)(void *ctx, int64_t op, SimRenderLabel *out);

/* One phase of a labelling by templates: its phase and name, its args read from a table of tasks, so the CSV
 * and the trace label a million ops without a call that fills a SimRenderLabel each, and a slice is written
 * from its phase's text escaped once. */
typedef struct {
    const char *phase;                /* static: CSV 'phase' column and trace category, e.g. "compute" */
    const char *name;                 /* static: the slice name, or its prefix when name_arg >= 0 ("C h") */
    int name_arg;                     /* the arg whose decimal value ends the name ("C h" + head); -1: none */
    int group_arg;                    /* the arg that is the colour key (SimRenderLabel.group); -1: none */
} SimRenderPhase;
/* The phases (indices in SimRenderSpec.phases, below 256) of ops first to first + count - 1 into out: one call
 * for a block of ops rather than one an op. */
typedef void (*SimRenderPhaseFn)(void *ctx, int64_t first, int64_t count, uint8_t *out);

typedef struct {
    const char *key, *value;          /* e.g. "policy", "shift"; borrowed */
} SimRenderMeta;

/* Everything a renderer reads; all pointers borrowed and left unchanged. */
typedef struct {
    const SimProgram *program;        /* sealed */
    const SimSchedule *schedule;      /* the engine's run of program */
    const SimAnalysis *analysis;      /* is_critical per op; NULL: nothing is marked critical */
    const char *device;               /* trace process name, e.g. "H100 (132 SMs)"; NULL: "device" */
    const char *unit_name;            /* track prefix, e.g. "SM" or "AI core"; NULL: "unit" */
    const char *unit_column;          /* CSV column of the unit, e.g. "sm"; NULL: "unit" */
    const char *engine_names[SIM_RENDER_MAX_ENGINES]; /* per engine, e.g. "compute", "reduction store"
                                       * or "CUBE", "VECTOR"; NULL entries: "engine K" */
    const char *arg_names[SIM_RENDER_MAX_ARGS]; /* names of the label args, e.g. "head", "kv", "q";
                                       * the first NULL ends the list; they become CSV columns and trace args */
    const char *group_name;           /* what a colour means in the Gantt legend, e.g. "head"; NULL: phase */
    const char *title;                /* one line: what ran (policy, shape); NULL: none */
    const SimRenderMeta *meta;        /* trace metadata and the CSV sidecar PATH.meta.json; meta_count entries */
    int meta_count;
    uint32_t flow_edge_kinds;         /* bit (1u << SimEdgeKind) per edge kind drawn as trace arrows, e.g.
                                       * 1u << SIM_EDGE_ACCUM; used only when SimTraceOptions.has_flows */
    SimRenderLabelFn label;           /* NULL: the defaults above (or the templates below) */
    void *label_ctx;
    /* Labels by template, used instead of label where phases is set: op's phase is phases[k], k what
     * phase_of(label_ctx, op, 1, &k) gives, and its args are its task's row of task_args, arg i = task_args[task * task_arg_stride + i]
     * (all 0 for an op of no task, -1). Borrowed. */
    const SimRenderPhase *phases;
    int phase_count;
    SimRenderPhaseFn phase_of;
    const int32_t *task_args;
    int task_arg_stride;
    /* The Gantt key's name of colour group k (e.g. a pipeline stage: "C1", "V1", ...), written into buf of
     * len bytes with label_ctx; NULL: "<group_name> <k>". No quote in it (it goes into a gnuplot string). */
    void (*group_label)(void *ctx, int32_t group, char *buf, size_t len);
} SimRenderSpec;

typedef struct {
    bool has_flows;                   /* add flow arrows for spec->flow_edge_kinds */
    int64_t max_bytes;                /* refuse (SIM_ERR_LIMIT) traces estimated above this; 0: no cap */
    const char *cap_flag;             /* the option that sets max_bytes, named in the refusal; NULL: a fixed cap */
    const char *cap_hint;             /* what to do instead, ending the refusal; NULL: "simulate less" */
} SimTraceOptions;

typedef struct {
    int max_rows;                     /* units drawn at most; above it every k-th unit is drawn and the
                                       * caption says so; 0: 48 */
    int64_t max_boxes;                /* refuse (SIM_ERR_LIMIT) charts with more boxes; 0: 1000000 */
    const char *gnuplot;              /* program to run; NULL: "gnuplot" found on PATH */
    const char *box_label_args[2];    /* two of spec->arg_names whose values label each box wide enough
                                       * to hold them, "a,b" (attention: "kv", "q"); NULL: no labels */
} SimGanttOptions;

/* Fills out for op: the defaults above, then spec->label if set, or the templates (spec->phases); the name
 * only if is_name_wanted. */
void sim_render_label(const SimRenderSpec *spec, int64_t op, bool is_name_wanted, SimRenderLabel *out);

/* Op's phase template and args where spec->phases is set (args: SIM_RENDER_MAX_ARGS entries, those past
 * the arg names 0). */
static inline const SimRenderPhase *sim_render_phase(const SimRenderSpec *spec, int64_t op, int64_t *args)
{
    int32_t task = sim_op_task(spec->program, op);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS; i++)
        args[i] = 0;
    if (task >= 0) {
        const int32_t *row = spec->task_args + (int64_t)task * spec->task_arg_stride;
        for (int i = 0; i < spec->task_arg_stride && i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
            args[i] = row[i];
    }
    uint8_t k;
    spec->phase_of(spec->label_ctx, op, 1, &k);
    return &spec->phases[k];
}

/* The ops' phases a block at a time, for writers that take the ops in order. */
enum { SIM_RENDER_PHASE_BLOCK = 256 };
typedef struct {
    int64_t first, end;               /* the ops whose phases phase holds: [first, end) */
    uint8_t phase[SIM_RENDER_PHASE_BLOCK];
} SimRenderPhases;
#define SIM_RENDER_PHASES_INIT ((SimRenderPhases){ .first = 0, .end = 0 })
/* Fills b with the phases of the block of ops from op (spec->phases set). */
void sim_render_phases_fill(const SimRenderSpec *spec, SimRenderPhases *b, int64_t op);
/* Op's phase index, through b; ops are taken in order (op at least the last one taken). */
static inline int sim_render_phase_at(const SimRenderSpec *spec, SimRenderPhases *b, int64_t op)
{
    if (op >= b->end)
        sim_render_phases_fill(spec, b, op);
    return b->phase[op - b->first];
}

/* Op's phase and its args (SIM_RENDER_MAX_ARGS entries): through the templates where spec->phases is set,
 * without filling a whole label; else as sim_render_label. */
const char *sim_render_phase_args(const SimRenderSpec *spec, int64_t op, int64_t *args);

/* Per op, the time it sat ready within its own CTA but did not start: start minus the latest of its
 * CTA's dispatch, the end of the previous op of its CTA on the same engine, and the ends of incoming
 * edges from ops of the same CTA. What remains is waiting on other CTAs (dQ semaphores, buffers,
 * latency). Returns a new array of op_count entries (g_free it). O(ops + edges). */
int64_t *sim_render_waits_new(const SimProgram *p, const SimSchedule *s);
/* The same one op at a time, without the array: sim_render_wait_next takes every op in op order (a CTA's
 * ops follow one another, CTAs in order), from 0; O(1 + the op's incoming edges) each. */
typedef struct {
    const SimProgram *p;              /* borrowed */
    const SimSchedule *s;             /* borrowed */
    int32_t cta;                      /* the CTA of the last op taken */
    int64_t cta_begin, cta_end;       /* its first op, one past its last */
    int64_t next_in;                  /* the next op's first incoming edge (the last op's end of them) */
    int64_t last_end[256];            /* per engine: the end of its last op in the CTA, or its dispatch */
} SimRenderWaits;
void sim_render_waits_init(SimRenderWaits *w, const SimProgram *p, const SimSchedule *s);
/* Opens the CTA whose first op is op (sim_render_wait_next's step at a CTA's start). */
void sim_render_waits_open_cta(SimRenderWaits *w, int64_t op);
/* end_ns: op's end (sim_schedule_end_ns), which the writers have at hand. Inline: the writers call it once an
 * op, and it is a few loads for an op of one or two incoming edges. */
static inline int64_t sim_render_wait_next(SimRenderWaits *w, int64_t op, int64_t end_ns)
{
    const SimProgram *p = w->p;
    const SimSchedule *s = w->s;
    if (op >= w->cta_end) /* op opens the next CTA with ops: a CTA's ops follow one another */
        sim_render_waits_open_cta(w, op);
    int k = sim_op_engine(p, op);
    int64_t ready = w->last_end[k];
    int64_t last = sim_program_in_end(p, op);
    for (int64_t i = w->next_in; i < last; i++) {
        int64_t from = sim_edge_from(p, sim_program_in_edge(p, i));
        if (from >= w->cta_begin && from < w->cta_end) { /* of the same CTA: its ops are [cta_begin, cta_end) */
            int64_t end = sim_schedule_end_ns(p, s, from);
            ready = end > ready ? end : ready;
        }
    }
    w->next_in = last;
    w->last_end[k] = end_ns;
    return s->start_ns[op] - ready;
}

/* Estimated size of the trace in bytes: ops of nonzero duration are slices, edges of the flow kinds
 * between two slices are arrows. O(ops + edges). */
int64_t sim_render_trace_bytes(const SimRenderSpec *spec, const SimTraceOptions *opt);

/* Chrome Trace Event JSON: one process (the device), one thread per unit and engine (tid = unit *
 * engines_per_unit + engine + 1, sorted so), one "X" event per op of nonzero duration (ts/dur in us with
 * ns precision; args: the label args, wait_ns, critical), critical slices in category "critical" and
 * cname "terrible", flow events "s"/"f" per drawn edge, process labels (title and metadata), and the
 * file's "metadata": dashsim_version, then spec's metadata (whole integers as JSON numbers).
 * Errors: SIM_ERR_LIMIT over opt->max_bytes (before writing), SIM_ERR_IO. O(ops + edges). */
SimStatus sim_render_trace(const SimRenderSpec *spec, const SimTraceOptions *opt, const char *path,
                           SimError *err);
/* The same with one process per spec (pid 1..count, in that order; e.g. a measured run and its model):
 * the file's metadata is specs[0]'s, each process is labelled with its own. */
SimStatus sim_render_trace_set(const SimRenderSpec *specs, int count, const SimTraceOptions *opt, const char *path,
                               SimError *err);

/* CSV: the header "op,cta,<unit_column>,<arg_names...>,phase,engine,start_ns,end_ns,wait_ns,critical" first,
 * then one row per op (zero-length ops included) in op order. The title and metadata go to PATH.meta.json
 * (when path is a regular file), committed with the CSV: both or neither. Errors: SIM_ERR_IO. O(ops). */
SimStatus sim_render_csv(const SimRenderSpec *spec, const char *path, SimError *err);

/* Gantt chart: path must end in .png or .svg (else SIM_ERR_USAGE). Writes STEM.dat (the boxes) and
 * STEM.gp (the script; `gnuplot STEM.gp` in that directory redraws path) beside it and runs gnuplot
 * there. Units on y (unit 0 on top), time on x; colour per label group (16 distinct colours, each in the
 * key outside the plot; more groups: colour = group mod 16, said in the caption), reductions lighter,
 * idle time grey, critical ops outlined in black. Errors: SIM_ERR_USAGE (suffix, a quote in the path),
 * SIM_ERR_LIMIT (over max_boxes), SIM_ERR_IO (writing, gnuplot missing or failing). */
SimStatus sim_render_gantt(const SimRenderSpec *spec, const SimGanttOptions *opt, const char *path,
                           SimError *err);
/* Checks path's suffix and characters only (for CLIs to refuse early). */
SimStatus sim_render_gantt_check_path(const char *path, SimError *err);

#endif

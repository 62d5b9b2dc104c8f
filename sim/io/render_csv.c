/* CSV of a realized schedule: one row per op in op order, zero-length ops included, so the rows are the
 * whole program and the largest end_ns is the makespan. Values are integers or plain names; the
 * title and metadata go first as '#' comment lines (pandas: comment='#'). */
#include "render.h"

#include <glib.h>
#include <inttypes.h>

#include "output.h"

static void write_header(FILE *f, const SimRenderSpec *spec)
{
    if (spec->title)
        fprintf(f, "# %s\n", spec->title);
    for (int i = 0; i < spec->meta_count; i++)
        fprintf(f, "# %s: %s\n", spec->meta[i].key, spec->meta[i].value);
    fprintf(f, "op,cta,%s,", spec->unit_column ? spec->unit_column : "unit");
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
        fprintf(f, "%s,", spec->arg_names[i]);
    fputs("phase,engine,start_ns,end_ns,wait_ns,critical\n", f);
}

SimStatus sim_render_csv(const SimRenderSpec *spec, const char *path, SimError *err)
{
    SimOutput out;
    if (sim_output_open(&out, path, err) != SIM_OK)
        return err->status;
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    int64_t *wait = sim_render_waits_new(p, s);
    write_header(out.f, spec);
    for (int64_t op = 0; op < p->op_count; op++) {
        SimRenderLabel l;
        sim_render_label(spec, op, &l);
        fprintf(out.f, "%" PRId64 ",%d,%d,", op, p->ops[op].cta, s->cta_unit[p->ops[op].cta]);
        for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
            fprintf(out.f, "%" PRId64 ",", l.args[i]);
        fprintf(out.f, "%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%d\n", l.phase, p->ops[op].engine,
                s->start_ns[op], s->end_ns[op], wait[op], spec->analysis ? spec->analysis->is_critical[op] : 0);
    }
    g_free(wait);
    return sim_output_commit(&out, err);
}

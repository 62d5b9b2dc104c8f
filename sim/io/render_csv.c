/* CSV of a realized schedule: one row per op in op order, zero-length ops included, so the rows are the
 * whole program and the largest end_ns is the makespan. The first line is the header (pandas, csv.DictReader
 * and spreadsheets read it as is); values are integers or plain names. The title and metadata go to a
 * sidecar JSON, PATH.meta.json, written beside a regular file (not beside standard output or a device). */
#include "render.h"

#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>

#include "format.h"
#include "output.h"
#include "dashsim/version.h"

static void write_header(FILE *f, const SimRenderSpec *spec)
{
    fprintf(f, "op,cta,%s,", spec->unit_column ? spec->unit_column : "unit");
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
        fprintf(f, "%s,", spec->arg_names[i]);
    fputs("phase,engine,start_ns,end_ns,wait_ns,critical\n", f);
}

/* {"schema_version": 1, "csv": "t.csv", "title": "...", "dashsim_version": "0.2.0",
 *  "meta": {"policy": "fa3", "n_sm": 2, ...}} */
static SimStatus write_sidecar(const SimRenderSpec *spec, const char *csv_path, SimError *err)
{
    gchar *path = g_strdup_printf("%s.meta.json", csv_path);
    SimOutput out;
    if (sim_output_open(&out, path, err) != SIM_OK) {
        g_free(path);
        return err->status;
    }
    gchar *base = g_path_get_basename(csv_path);
    fputs("{\"schema_version\":1,\"csv\":", out.f);
    sim_write_json_string(out.f, base);
    fputs(",\"title\":", out.f);
    if (spec->title)
        sim_write_json_string(out.f, spec->title);
    else
        fputs("null", out.f);
    fputs(",\"dashsim_version\":\"" DASHSIM_VERSION "\",\"meta\":{", out.f);
    for (int i = 0; i < spec->meta_count; i++) {
        fputs(i ? "," : "", out.f);
        sim_write_json_string(out.f, spec->meta[i].key);
        fputc(':', out.f);
        sim_write_json_value(out.f, spec->meta[i].value);
    }
    fputs("}}\n", out.f);
    g_free(base), g_free(path);
    return sim_output_commit(&out, err);
}

/* One row: the numbers go straight into the writer's buffer, one room check per part of the row. */
static void write_row(SimWriter *w, const SimRenderSpec *spec, int64_t op, int64_t wait_ns)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    SimRenderLabel l;
    sim_render_label(spec, op, false, &l);
    enum { NUMBER = 21 }; /* a number and its comma */
    char *c = sim_writer_room(w, NUMBER * (3 + SIM_RENDER_MAX_ARGS));
    const int64_t head[] = { op, sim_op_cta(p, op), s->cta_unit[sim_op_cta(p, op)] };
    for (int i = 0; i < 3; i++)
        c = sim_format_i64(c, head[i]), *c++ = ',';
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
        c = sim_format_i64(c, l.args[i]), *c++ = ',';
    sim_writer_end(w, c);
    sim_writer_str(w, l.phase);
    c = sim_writer_room(w, NUMBER * 5 + 1);
    const int64_t tail[] = { sim_op_engine(p, op), s->start_ns[op], sim_schedule_end_ns(p, s, op), wait_ns,
                             spec->analysis ? spec->analysis->is_critical[op] : 0 };
    for (int i = 0; i < 5; i++)
        *c++ = ',', c = sim_format_i64(c, tail[i]);
    *c++ = '\n';
    sim_writer_end(w, c);
}

SimStatus sim_render_csv(const SimRenderSpec *spec, const char *path, SimError *err)
{
    SimOutput out;
    int mark = sim_output_batch_begin(); /* the CSV and its sidecar: both or neither */
    if (sim_output_open(&out, path, err) != SIM_OK)
        return sim_output_batch_end(mark, err->status, err);
    const SimProgram *p = spec->program;
    int64_t *wait = sim_render_waits_new(p, spec->schedule);
    write_header(out.f, spec);
    SimWriter w;
    sim_writer_init(&w, out.f);
    for (int64_t op = 0; op < p->op_count; op++)
        write_row(&w, spec, op, wait[op]);
    sim_writer_done(&w); /* a failed write sets the stream's error flag, which sim_output_commit reports */
    g_free(wait);
    bool has_sidecar = !out.is_in_place && (spec->title || spec->meta_count);
    if (sim_output_commit(&out, err) == SIM_OK && has_sidecar)
        write_sidecar(spec, path, err);
    return sim_output_batch_end(mark, err->status, err);
}

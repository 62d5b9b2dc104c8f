/* CSV of a realized schedule: one row per op in op order, zero-length ops included, so the rows are the
 * whole program and the largest end_ns is the makespan. The first line is the header (pandas, csv.DictReader
 * and spreadsheets read it as is); values are integers or plain names. The title and metadata go to a
 * sidecar JSON, PATH.meta.json, written beside a regular file (not beside standard output or a device). */
#include "render.h"

#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

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

/* What a row copies from the row before: the columns' memos and the phase's text. */
typedef struct {
    SimFormatCounter op;
    SimFormatMemo head[2];            /* cta, unit */
    SimFormatMemo args[SIM_RENDER_MAX_ARGS];
    SimFormatMemo engine, wait;
    const char *phase;                /* the last phase, its length */
    size_t phase_len;
} RowMemo;

/* One row: the numbers go straight into the writer's buffer, one room check for the row. */
static void write_row(SimWriter *w, const SimRenderSpec *spec, RowMemo *m, int64_t op, int64_t end_ns,
                      int64_t wait_ns)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    int64_t args[SIM_RENDER_MAX_ARGS];
    const char *phase = sim_render_phase_args(spec, op, args);
    if (phase != m->phase)
        m->phase = phase, m->phase_len = strlen(phase);
    enum { NUMBER = 25 }; /* a number, its comma and a memo's whole-block copy */
    char *c = sim_writer_room(w, NUMBER * (10 + SIM_RENDER_MAX_ARGS) + m->phase_len);
    c = (char *)memcpy(c, m->op.digits, m->op.len) + m->op.len;
    sim_format_counter_step(&m->op);
    int32_t cta = sim_op_cta(p, op);
    *c++ = ',', c = sim_format_memo(c, &m->head[0], cta);
    *c++ = ',', c = sim_format_memo(c, &m->head[1], s->cta_unit[cta]);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
        *c++ = ',', c = sim_format_memo(c, &m->args[i], args[i]);
    *c++ = ',';
    c = (char *)memcpy(c, phase, m->phase_len) + m->phase_len;
    *c++ = ',', c = sim_format_memo(c, &m->engine, sim_op_engine(p, op));
    *c++ = ',', c = sim_format_i64(c, s->start_ns[op]);
    *c++ = ',', c = sim_format_i64(c, end_ns);
    *c++ = ',', c = sim_format_memo(c, &m->wait, wait_ns);
    c[0] = ',', c[1] = spec->analysis && spec->analysis->is_critical[op] ? '1' : '0', c[2] = '\n';
    sim_writer_end(w, c + 3);
}

SimStatus sim_render_csv(const SimRenderSpec *spec, const char *path, SimError *err)
{
    SimOutput out;
    int mark = sim_output_batch_begin(); /* the CSV and its sidecar: both or neither */
    if (sim_output_open(&out, path, err) != SIM_OK)
        return sim_output_batch_end(mark, err->status, err);
    const SimProgram *p = spec->program;
    SimRenderWaits waits;
    sim_render_waits_init(&waits, p, spec->schedule);
    int digits = 1; /* of the makespan: the widest time */
    for (int64_t t = spec->schedule->makespan_ns; t >= 10; t /= 10)
        digits++;
    sim_output_reserve(&out, p->op_count * (48 + 3 * digits + 8 * SIM_RENDER_MAX_ARGS)); /* a row at most, about */
    write_header(out.f, spec);
    SimWriter w;
    sim_output_writer_init(&w, &out);
    RowMemo memo = { .op = { "0", 1 }, .head = { SIM_FORMAT_MEMO_ZERO, SIM_FORMAT_MEMO_ZERO },
                     .engine = SIM_FORMAT_MEMO_ZERO, .wait = SIM_FORMAT_MEMO_ZERO };
    for (int i = 0; i < SIM_RENDER_MAX_ARGS; i++)
        memo.args[i] = SIM_FORMAT_MEMO_ZERO;
    for (int64_t op = 0; op < p->op_count; op++) {
        int64_t end_ns = sim_schedule_end_ns(p, spec->schedule, op);
        write_row(&w, spec, &memo, op, end_ns, sim_render_wait_next(&waits, op, end_ns));
    }
    sim_writer_done(&w); /* a failed write sets the stream's error flag, which sim_output_commit reports */
    bool has_sidecar = !out.is_in_place && (spec->title || spec->meta_count);
    if (sim_output_commit(&out, err) == SIM_OK && has_sidecar)
        write_sidecar(spec, path, err);
    return sim_output_batch_end(mark, err->status, err);
}

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

/* The texts kept are padded with PAD bytes and copied by a move of fixed size (format.h). */
enum { PAD = SIM_FORMAT_PAD };
/* Engines below SIM_RENDER_MAX_ENGINES keep their own end; those above share the last memo. */
enum { ENGINE_MEMOS = SIM_RENDER_MAX_ENGINES + 1 };

/* A row's text in parts, each kept from the rows before and written anew only where what it shows changed:
 * the op, a counter stepped in place; "cta,unit," once a CTA; the args "head,kv,q,rank," once a task (with
 * templates) or where they changed (with a labeller); "phase,engine," once a phase and engine; the start,
 * the end just written on the op's engine (or the row before's), and the end, the start's text with its last
 * four digits rewritten (sim_format_memo_near); the wait through its memo. The kept texts are padded, so each
 * is copied whole by a move of fixed size (put_padded). A text is never read back just after it was written
 * (format.h: the stall of store-to-load forwarding): a new args text is written into the output and kept from
 * there at the next row. */
typedef struct {
    const char *phase;                /* the phase whose text this is (borrowed); NULL: none yet */
    int engine;
    char *text;                       /* owned: "compute,0," and PAD zero bytes */
    size_t len;
} PhaseColumns;

typedef struct {
    SimFormatCounter op;
    int32_t cta;                      /* the CTA of cta_text; -1: none yet */
    char cta_text[2 * 24 + PAD];      /* "cta,unit," (each number at most 20 bytes) and its pad */
    size_t cta_len;
    int arg_count, task_arg_count;    /* the CSV's arg columns; of them, those read from a task's row */
    int64_t task;                     /* with templates: the task whose args args_text holds; -2: none */
    int64_t args[SIM_RENDER_MAX_ARGS];/* the row's args */
    bool is_args_new;                 /* args differ from args_text's: written through the memos */
    SimFormatMemo arg_memo[SIM_RENDER_MAX_ARGS];
    char args_text[SIM_RENDER_MAX_ARGS * 21 + PAD]; /* "0,3,65,3," and its pad */
    size_t args_len;
    const char *args_new;             /* in the output: the last row's new args text, kept at the next row */
    PhaseColumns *phases;             /* owned: per phase (templates) or op kind (a labeller's default) */
    int phase_count;
    SimRenderPhases phase_block;      /* with templates: the ops' phases */
    SimFormatMemo end[ENGINE_MEMOS];  /* per engine memo: its last row's end_ns */
    int last_engine;                  /* the last row's engine memo */
    SimFormatMemo wait;
    const uint8_t *is_critical;       /* the analysis's, or NULL */
} RowParts;
static void parts_init(RowParts *r, const SimRenderSpec *spec)
{
    *r = (RowParts){ .op = { "0", 1 }, .cta = -1, .task = -2, .wait = SIM_FORMAT_MEMO_ZERO,
                     .phase_block = SIM_RENDER_PHASES_INIT,
                     .is_critical = spec->analysis ? spec->analysis->is_critical : NULL };
    while (r->arg_count < SIM_RENDER_MAX_ARGS && spec->arg_names[r->arg_count])
        r->arg_count++;
    r->task_arg_count = MIN(r->arg_count, spec->task_arg_stride);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS; i++)
        r->arg_memo[i] = SIM_FORMAT_MEMO_ZERO;
    for (int i = 0; i < r->arg_count; i++) /* all 0 */
        r->args_text[2 * i] = '0', r->args_text[2 * i + 1] = ',';
    r->args_len = 2 * (size_t)r->arg_count;
    r->phase_count = spec->phases ? spec->phase_count : SIM_OP_KIND_COUNT;
    r->phases = g_new0(PhaseColumns, r->phase_count);
    for (int i = 0; i < ENGINE_MEMOS; i++)
        r->end[i] = SIM_FORMAT_MEMO_ZERO;
}

static void parts_clear(RowParts *r)
{
    for (int i = 0; i < r->phase_count; i++)
        g_free(r->phases[i].text);
    g_free(r->phases);
}

/* The row's phase and, where they may have changed, its args into r->args (is_args_new where they did);
 * returns the phase's columns. With templates the args are read from the task's row once a task. */
static PhaseColumns *row_label(const SimRenderSpec *spec, RowParts *r, int64_t op, const char **phase)
{
    if (!spec->phases) {
        int64_t args[SIM_RENDER_MAX_ARGS];
        *phase = sim_render_phase_args(spec, op, args);
        for (int i = 0; i < r->arg_count; i++)
            r->is_args_new |= args[i] != r->arg_memo[i].value;
        memcpy(r->args, args, sizeof args);
        return &r->phases[sim_op_kind(spec->program, op)];
    }
    int slot = sim_render_phase_at(spec, &r->phase_block, op);
    int64_t task = sim_op_task(spec->program, op);
    *phase = spec->phases[slot].phase;
    if (task != r->task) { /* a task's ops follow one another */
        const int32_t *row = task >= 0 ? spec->task_args + task * spec->task_arg_stride : NULL;
        int n = r->task_arg_count; /* in a local: the stores below could otherwise change it */
        for (int i = 0; i < n; i++)
            r->args[i] = row ? row[i] : 0;
        r->task = task, r->is_args_new = true;
    }
    return &r->phases[slot];
}

/* "phase,engine," written anew into col. */
static void phase_columns(PhaseColumns *col, const char *phase, int engine)
{
    size_t n = strlen(phase);
    col->text = g_realloc(col->text, n + 24 + PAD);
    memset(col->text, 0, n + 24 + PAD);
    memcpy(col->text, phase, n);
    char *c = col->text + n;
    *c++ = ',', c = sim_format_i64(c, engine), *c++ = ',';
    col->len = (size_t)(c - col->text);
    col->phase = phase, col->engine = engine;
}

/* The args' text at c: the row before's, or written through each arg's memo (kept at the next row). */
static char *put_args(char *c, RowParts *r)
{
    if (!r->is_args_new)
        return sim_format_put_padded(c, r->args_text, r->args_len);
    char *text = c;
    int n = r->arg_count;
    for (int i = 0; i < n; i++)
        c = sim_format_memo(c, &r->arg_memo[i], r->args[i]), *c++ = ',';
    r->args_len = (size_t)(c - text);
    r->args_new = text;
    r->is_args_new = false;
    return c;
}

/* The start and end columns: the start copied from the end last written on its engine (or on the row
 * before's), the end from the start's text where they share all but the last four digits. */
static char *put_times(char *c, RowParts *r, int e, int64_t start_ns, int64_t end_ns)
{
    const SimFormatMemo *start = r->end[e].value == start_ns ? &r->end[e]
                                 : r->end[r->last_engine].value == start_ns ? &r->end[r->last_engine] : NULL;
    if (start)
        c = (char *)memcpy(c, start->text, sizeof start->text) + start->len;
    else
        c = sim_format_i64(c, start_ns);
    *c++ = ',';
    /* start's memo is no longer read: it may be the one the end goes to */
    c = start ? sim_format_memo_near(c, &r->end[e], start, end_ns) : sim_format_memo(c, &r->end[e], end_ns);
    r->last_engine = e;
    return c;
}

/* One row, into the writer's buffer with one room check. */
static void write_row(SimWriter *w, const SimRenderSpec *spec, RowParts *r, int64_t op, int64_t end_ns,
                      int64_t wait_ns)
{
    const SimProgram *p = spec->program;
    if (r->args_new) /* the last row's new args text, written a row ago: read back without a stall */
        sim_format_put_padded(r->args_text, r->args_new, r->args_len), r->args_new = NULL;
    const char *phase;
    PhaseColumns *col = row_label(spec, r, op, &phase);
    int k = sim_op_engine(p, op), e = MIN(k, SIM_RENDER_MAX_ENGINES);
    if (G_UNLIKELY(col->phase != phase || col->engine != k))
        phase_columns(col, phase, k);
    int32_t cta = sim_op_cta(p, op);
    if (G_UNLIKELY(cta != r->cta)) {
        char *c = sim_format_i64(r->cta_text, cta);
        *c++ = ',', c = sim_format_i64(c, spec->schedule->cta_unit[cta]), *c++ = ',';
        r->cta_len = (size_t)(c - r->cta_text), r->cta = cta;
    }
    char *c = sim_writer_room(w, r->cta_len + r->args_len + col->len + 6 * 24 + 3 * PAD);
    c = (char *)memcpy(c, r->op.digits, sizeof r->op.digits) + r->op.len;
    sim_format_counter_step(&r->op);
    *c++ = ',';
    c = sim_format_put_padded(c, r->cta_text, r->cta_len);
    c = put_args(c, r);
    c = sim_format_put_padded(c, col->text, col->len);
    c = put_times(c, r, e, spec->schedule->start_ns[op], end_ns);
    *c++ = ',', c = sim_format_memo(c, &r->wait, wait_ns);
    c[0] = ',', c[1] = r->is_critical && r->is_critical[op] ? '1' : '0', c[2] = '\n';
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
    RowParts parts;
    parts_init(&parts, spec);
    for (int64_t op = 0; op < p->op_count; op++) {
        int64_t end_ns = sim_schedule_end_ns(p, spec->schedule, op);
        write_row(&w, spec, &parts, op, end_ns, sim_render_wait_next(&waits, op, end_ns));
    }
    parts_clear(&parts);
    sim_writer_done(&w); /* a failed write sets the stream's error flag, which sim_output_commit reports */
    bool has_sidecar = !out.is_in_place && (spec->title || spec->meta_count);
    if (sim_output_commit(&out, err) == SIM_OK && has_sidecar)
        write_sidecar(spec, path, err);
    return sim_output_batch_end(mark, err->status, err);
}

/* Chrome Trace Event JSON for Perfetto and chrome://tracing. One track (thread) per unit and engine, so
 * the slices of a track never overlap: an engine runs one op at a time. Written by hand, not through
 * cJSON, so a trace of millions of slices streams in constant memory and numbers print exactly
 * (ts and dur in microseconds with three decimals = integer nanoseconds). */
#include "render.h"

#include <glib.h>
#include <inttypes.h>

#include "format.h"
#include "output.h"
#include "dashsim/version.h"

/* Bytes per item, rounded up from traces of the attention policies (slices carry 4 args); slices and
 * arrows grow with d, the digits of the makespan in ns: a slice prints six times, an arrow two. */
enum { SLICE_BYTES = 220, SLICE_BYTES_PER_DIGIT = 6, FLOW_BYTES = 150, FLOW_BYTES_PER_DIGIT = 4,
       TRACK_BYTES = 200, FIXED_BYTES = 4096 };

static void json_us(FILE *f, int64_t ns)
{
    fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

static bool is_flow(const SimRenderSpec *spec, const SimTraceOptions *opt, int64_t e)
{
    const SimProgram *p = spec->program;
    const SimEdge *edge = &p->edges[e];
    return opt->has_flows && (spec->flow_edge_kinds >> edge->kind & 1u) &&
           p->ops[edge->from].duration_ns > 0 && p->ops[edge->to].duration_ns > 0;
}

int64_t sim_render_trace_bytes(const SimRenderSpec *spec, const SimTraceOptions *opt)
{
    const SimProgram *p = spec->program;
    int digits = 1;
    for (int64_t t = spec->schedule->makespan_ns; t >= 10; t /= 10)
        digits++;
    int64_t bytes = FIXED_BYTES + (int64_t)p->n_units * p->engines_per_unit * TRACK_BYTES;
    for (int64_t op = 0; op < p->op_count; op++)
        bytes += p->ops[op].duration_ns > 0 ? SLICE_BYTES + SLICE_BYTES_PER_DIGIT * digits : 0;
    for (int64_t e = 0; opt->has_flows && e < p->edge_count; e++)
        bytes += is_flow(spec, opt, e) ? FLOW_BYTES + FLOW_BYTES_PER_DIGIT * digits : 0;
    return bytes;
}

static int64_t track_of(const SimProgram *p, const SimSchedule *s, int64_t op)
{
    return (int64_t)s->cta_unit[p->ops[op].cta] * p->engines_per_unit + p->ops[op].engine + 1;
}

/* The file's metadata: the dashsim version, then the first spec's metadata (integers as JSON numbers). */
static void write_file_metadata(FILE *f, const SimRenderSpec *spec)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"dashsim_version\":\"" DASHSIM_VERSION "\"", f);
    for (int i = 0; i < spec->meta_count; i++) {
        fputc(',', f);
        sim_write_json_string(f, spec->meta[i].key);
        fputc(':', f);
        sim_write_json_value(f, spec->meta[i].value);
    }
    fputs("},\"traceEvents\":[\n", f);
}

/* One process: its name, its labels (title and metadata) and a named, sorted track per unit and engine. */
static void write_process(FILE *f, const SimRenderSpec *spec, int pid, bool is_first)
{
    const SimProgram *p = spec->program;
    fprintf(f, "%s{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":",
            is_first ? "" : ",\n", pid);
    sim_write_json_string(f, spec->device ? spec->device : "device");
    fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_sort_index\",\"args\":"
               "{\"sort_index\":%d}}", pid, pid);
    GString *labels = g_string_new(spec->title ? spec->title : "");
    for (int i = 0; i < spec->meta_count; i++)
        g_string_append_printf(labels, "%s%s=%s", labels->len ? ", " : "", spec->meta[i].key, spec->meta[i].value);
    fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_labels\",\"args\":{\"labels\":", pid);
    sim_write_json_string(f, labels->str);
    fputs("}}", f);
    g_string_free(labels, TRUE);
    for (int32_t u = 0; u < p->n_units; u++)
        for (int k = 0; k < p->engines_per_unit; k++) {
            int64_t tid = (int64_t)u * p->engines_per_unit + k + 1;
            const char *engine = k < SIM_RENDER_MAX_ENGINES ? spec->engine_names[k] : NULL;
            char name[128];
            if (engine)
                snprintf(name, sizeof name, "%s %d %s", spec->unit_name ? spec->unit_name : "unit", u, engine);
            else
                snprintf(name, sizeof name, "%s %d engine %d", spec->unit_name ? spec->unit_name : "unit", u, k);
            fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"thread_name\","
                       "\"args\":{\"name\":", pid, tid);
            sim_write_json_string(f, name);
            fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"thread_sort_index\","
                       "\"args\":{\"sort_index\":%" PRId64 "}}", pid, tid, tid);
        }
}

static void write_slice(FILE *f, const SimRenderSpec *spec, int pid, int64_t op, int64_t wait_ns)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    bool is_critical = spec->analysis && spec->analysis->is_critical[op];
    SimRenderLabel l;
    sim_render_label(spec, op, &l);
    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRId64 ",\"ts\":", pid, track_of(p, s, op));
    json_us(f, s->start_ns[op]);
    fputs(",\"dur\":", f);
    json_us(f, s->end_ns[op] - s->start_ns[op]);
    fputs(",\"name\":", f);
    sim_write_json_string(f, l.name);
    fputs(",\"cat\":", f);
    sim_write_json_string(f, l.phase);
    if (is_critical)
        fputs(",\"cname\":\"terrible\"", f);
    fputs(",\"args\":{", f);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++) {
        sim_write_json_string(f, spec->arg_names[i]);
        fprintf(f, ":%" PRId64 ",", l.args[i]);
    }
    fprintf(f, "\"op\":%" PRId64 ",\"cta\":%d,\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64 ",\"wait_ns\":%"
            PRId64 ",\"critical\":%s}}", op, p->ops[op].cta, s->start_ns[op], s->end_ns[op], wait_ns,
            is_critical ? "true" : "false");
}

/* One arrow: "s" inside the source slice, "f" (bound to its enclosing slice) inside the target; its id is
 * id_base + e (flow ids are global to the file: each process gets its own range). */
static void write_flow(FILE *f, const SimRenderSpec *spec, int pid, int64_t id_base, int64_t e)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    const SimEdge *edge = &p->edges[e];
    const char *kind = sim_edge_kind_name(edge->kind);
    int64_t from = edge->from, to = edge->to;
    int64_t id = id_base + e;
    fprintf(f, ",\n{\"ph\":\"s\",\"id\":%" PRId64 ",\"pid\":%d,\"tid\":%" PRId64 ",\"ts\":", id, pid,
            track_of(p, s, from));
    json_us(f, s->start_ns[from] + (s->end_ns[from] - s->start_ns[from]) / 2);
    fprintf(f, ",\"name\":\"%s\",\"cat\":\"%s\"},\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRId64 ",\"pid\":%d,"
            "\"tid\":%" PRId64 ",\"ts\":", kind, kind, id, pid, track_of(p, s, to));
    json_us(f, s->start_ns[to] + (s->end_ns[to] - s->start_ns[to]) / 2);
    fprintf(f, ",\"name\":\"%s\",\"cat\":\"%s\"}", kind, kind);
}

/* Every op that lasted (an engine's op of nonzero duration; a measured one that has a span) as a slice,
 * then the arrows, of one process. */
static void write_events(FILE *f, const SimRenderSpec *spec, const SimTraceOptions *opt, int pid, int64_t id_base)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    int64_t *wait = sim_render_waits_new(p, s);
    for (int64_t op = 0; op < p->op_count; op++)
        if (s->end_ns[op] > s->start_ns[op])
            write_slice(f, spec, pid, op, wait[op]);
    for (int64_t e = 0; opt->has_flows && e < p->edge_count; e++)
        if (is_flow(spec, opt, e))
            write_flow(f, spec, pid, id_base, e);
    g_free(wait);
}

SimStatus sim_render_trace_set(const SimRenderSpec *specs, int count, const SimTraceOptions *opt, const char *path,
                               SimError *err)
{
    int64_t bytes = 0;
    for (int i = 0; i < count; i++)
        bytes += sim_render_trace_bytes(&specs[i], opt);
    if (opt->max_bytes > 0 && bytes > opt->max_bytes)
        return sim_error_set(err, SIM_ERR_LIMIT, "the trace %s would be about %" PRId64 " MB, over the cap of %"
                             PRId64 " MB (--trace-max-mb); simulate fewer heads or tiles", path,
                             (bytes + (1 << 20) - 1) >> 20, opt->max_bytes >> 20);
    SimOutput out;
    if (sim_output_open(&out, path, err) != SIM_OK)
        return err->status;
    write_file_metadata(out.f, &specs[0]);
    for (int i = 0; i < count; i++)
        write_process(out.f, &specs[i], i + 1, i == 0);
    int64_t id_base = 0;
    for (int i = 0; i < count; id_base += specs[i++].program->edge_count)
        write_events(out.f, &specs[i], opt, i + 1, id_base);
    fputs("\n]}\n", out.f);
    return sim_output_commit(&out, err);
}

SimStatus sim_render_trace(const SimRenderSpec *spec, const SimTraceOptions *opt, const char *path,
                           SimError *err)
{
    return sim_render_trace_set(spec, 1, opt, path, err);
}

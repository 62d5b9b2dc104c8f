/* Chrome Trace Event JSON for Perfetto and chrome://tracing. One track (thread) per unit and engine, so
 * the slices of a track never overlap: an engine runs one op at a time. Written by hand, not through
 * cJSON, so a trace of millions of slices streams in constant memory and numbers print exactly
 * (ts and dur in microseconds with three decimals = integer nanoseconds); events go through the buffered
 * writer (format.h), numbers formatted by hand. */
#include "render.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "format.h"
#include "output.h"
#include "dashsim/version.h"

/* Bytes per item, rounded up from traces of the attention policies (slices carry 4 args); slices and
 * arrows grow with d, the digits of the makespan in ns: a slice prints six times, an arrow two. */
enum { SLICE_BYTES = 220, SLICE_BYTES_PER_DIGIT = 6, FLOW_BYTES = 150, FLOW_BYTES_PER_DIGIT = 4,
       TRACK_BYTES = 200, FIXED_BYTES = 4096 };

static bool is_flow(const SimRenderSpec *spec, const SimTraceOptions *opt, int64_t e)
{
    const SimProgram *p = spec->program;
    return opt->has_flows && (spec->flow_edge_kinds >> sim_edge_kind(p, e) & 1u) &&
           sim_op_duration_ns(p, sim_edge_from(p, e)) > 0 && sim_op_duration_ns(p, sim_edge_to(p, e)) > 0;
}

int64_t sim_render_trace_bytes(const SimRenderSpec *spec, const SimTraceOptions *opt)
{
    const SimProgram *p = spec->program;
    int digits = 1;
    for (int64_t t = spec->schedule->makespan_ns; t >= 10; t /= 10)
        digits++;
    int64_t bytes = FIXED_BYTES + (int64_t)p->n_units * p->engines_per_unit * TRACK_BYTES;
    for (int64_t op = 0; op < p->op_count; op++)
        bytes += sim_op_duration_ns(p, op) > 0 ? SLICE_BYTES + SLICE_BYTES_PER_DIGIT * digits : 0;
    for (int64_t e = 0; opt->has_flows && e < p->edge_count; e++)
        bytes += is_flow(spec, opt, e) ? FLOW_BYTES + FLOW_BYTES_PER_DIGIT * digits : 0;
    return bytes;
}

static int64_t track_of(const SimProgram *p, const SimSchedule *s, int64_t op)
{
    return (int64_t)s->cta_unit[sim_op_cta(p, op)] * p->engines_per_unit + sim_op_engine(p, op) + 1;
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

/* A template's text: ",\"name\":\"C h" before the name's number and "\",\"cat\":..." after it, or the whole
 * name and category and "" (a name without a number). */
typedef struct {
    char *pre, *post;                    /* owned */
    size_t pre_len, post_len;
} PhaseText;

/* What every slice of a process repeats, escaped once: its opening up to the tid, each label arg's JSON key
 * with its colon, each op kind's name as a JSON string (the phase most labels keep) and, with templates,
 * each phase's name and category around the name's number; and the numbers of the slice before. */
typedef struct {
    char *open;                          /* owned: ",\n{"ph":"X","pid":P,"tid":" */
    size_t open_len;
    char *arg_keys[SIM_RENDER_MAX_ARGS]; /* owned; NULL past the last arg */
    size_t arg_key_len[SIM_RENDER_MAX_ARGS];
    char *kinds[SIM_OP_KIND_COUNT];      /* owned */
    size_t kind_len[SIM_OP_KIND_COUNT];
    PhaseText *phase_text;               /* owned: with templates, one per phase */
    SimFormatCounter op;                 /* the next op's number: every op is counted, slice or not */
    SimFormatMemo tid[SIM_RENDER_MAX_ENGINES], cta, args[SIM_RENDER_MAX_ARGS], wait;
} SliceKeys;

/* The texts every slice copies are padded with PAD bytes, so one of at most PAD bytes is copied whole by a
 * copy of fixed size (a few vector moves, not a call); the room asked for covers the pad. */
enum { PAD = 32 };
static char *padded(char *s)
{
    size_t n = strlen(s);
    s = g_realloc(s, n + PAD + 1);
    memset(s + n, 0, PAD + 1);
    return s;
}

static inline char *put_padded(char *c, const char *text, size_t len)
{
    if (len <= PAD)
        memcpy(c, text, PAD);
    else
        memcpy(c, text, len);
    return c + len;
}

/* s as a JSON string (sim_write_json_string's bytes), then tail; a new string and its length. */
static char *json_text(const char *s, const char *tail, size_t *len)
{
    GString *t = g_string_new("\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c == '"' || *c == '\\')
            g_string_append_printf(t, "\\%c", *c);
        else if (*c < 0x20)
            g_string_append_printf(t, "\\u%04x", *c);
        else
            g_string_append_c(t, (char)*c);
    g_string_append_c(t, '"');
    g_string_append(t, tail);
    *len = t->len;
    return g_string_free(t, FALSE);
}

/* A template's text, escaped once. */
static PhaseText phase_text(const SimRenderPhase *ph)
{
    size_t len;
    char *name = json_text(ph->name, "", &len), *cat = json_text(ph->phase, "", &len);
    PhaseText t;
    if (ph->name_arg >= 0) {
        name[strlen(name) - 1] = '\0'; /* the closing quote follows the number */
        t.pre = g_strconcat(",\"name\":", name, NULL);
        t.post = g_strconcat("\",\"cat\":", cat, NULL);
    } else {
        t.pre = g_strconcat(",\"name\":", name, ",\"cat\":", cat, NULL);
        t.post = g_strdup("");
    }
    g_free(name), g_free(cat);
    t.pre_len = strlen(t.pre), t.post_len = strlen(t.post);
    t.pre = padded(t.pre), t.post = padded(t.post);
    return t;
}

static void keys_init(SliceKeys *k, const SimRenderSpec *spec, int pid)
{
    *k = (SliceKeys){ .open = g_strdup_printf(",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":", pid), .op = { "0", 1 } };
    k->open_len = strlen(k->open);
    k->open = padded(k->open);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++)
        k->arg_keys[i] = padded(json_text(spec->arg_names[i], ":", &k->arg_key_len[i]));
    for (int i = 0; i < SIM_OP_KIND_COUNT; i++)
        k->kinds[i] = json_text(sim_op_kind_name(i), "", &k->kind_len[i]);
    k->phase_text = g_new(PhaseText, spec->phases ? spec->phase_count : 0);
    for (int i = 0; spec->phases && i < spec->phase_count; i++)
        k->phase_text[i] = phase_text(&spec->phases[i]);
}

static void keys_clear(SliceKeys *k, int phase_count)
{
    g_free(k->open);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS; i++)
        g_free(k->arg_keys[i]);
    for (int i = 0; i < SIM_OP_KIND_COUNT; i++)
        g_free(k->kinds[i]);
    for (int i = 0; i < phase_count; i++)
        g_free(k->phase_text[i].pre), g_free(k->phase_text[i].post);
    g_free(k->phase_text);
}

/* Appends the literal text lit (a string constant) at c. */
#define PUT(c, lit) (memcpy((c), (lit), sizeof(lit) - 1), (c) += sizeof(lit) - 1)

/* The slice's name and category from its label (escaped here); its args into args. */
static char *put_label(SimWriter *w, char *c, const SimRenderSpec *spec, SliceKeys *keys, int64_t op,
                       int64_t *args)
{
    SimRenderLabel l;
    sim_render_label(spec, op, true, &l);
    memcpy(args, l.args, sizeof l.args);
    PUT(c, ",\"name\":");
    sim_writer_end(w, c);
    sim_writer_json_string(w, l.name);
    SimOpKind kind = sim_op_kind(spec->program, op);
    c = sim_writer_room(w, 16 + keys->kind_len[kind]);
    PUT(c, ",\"cat\":");
    if (l.phase == sim_op_kind_name(kind)) /* the default, escaped once */
        return (char *)memcpy(c, keys->kinds[kind], keys->kind_len[kind]) + keys->kind_len[kind];
    sim_writer_end(w, c);
    sim_writer_json_string(w, l.phase);
    return sim_writer_room(w, 0);
}

/* The slice's name and category from its phase's template; its args into args. */
static char *put_template(SimWriter *w, char *c, const SimRenderSpec *spec, SliceKeys *keys, int64_t op,
                          int64_t *args)
{
    const SimRenderPhase *ph = sim_render_phase(spec, op, args);
    const PhaseText *t = &keys->phase_text[ph - spec->phases];
    sim_writer_end(w, c);
    c = sim_writer_room(w, t->pre_len + t->post_len + 24 + 2 * PAD);
    c = put_padded(c, t->pre, t->pre_len);
    if (ph->name_arg >= 0)
        c = sim_format_memo(c, &keys->args[ph->name_arg], args[ph->name_arg]);
    return put_padded(c, t->post, t->post_len);
}

/* The slice's track, start and duration: the track's number kept per engine (it repeats within a CTA), the
 * start in microseconds from its own nanoseconds' text (written into start, len bytes, for its arg). */
static char *put_times(char *c, const SimRenderSpec *spec, SliceKeys *keys, int64_t op, int64_t end_ns,
                       char *start, size_t *len)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    int k = sim_op_engine(p, op);
    c = k < SIM_RENDER_MAX_ENGINES ? sim_format_memo(c, &keys->tid[k], track_of(p, s, op))
                                   : sim_format_i64(c, track_of(p, s, op));
    PUT(c, ",\"ts\":");
    int64_t start_ns = s->start_ns[op];
    size_t n = *len = (size_t)(sim_format_i64(start, start_ns) - start);
    if (start_ns >= 1000) { /* sim_format_us_of_text, in copies of fixed size from the padded start */
        memcpy(c, start, 24);
        c[n - 3] = '.';
        memcpy(c + n - 2, start + n - 3, 3);
        c += n + 1;
    } else {
        c = start_ns >= 0 ? sim_format_us_of_text(c, start, n) : sim_format_us(c, start_ns);
    }
    PUT(c, ",\"dur\":");
    return sim_format_us(c, end_ns - start_ns);
}

/* One slice; keys->op is op's number. */
static void write_slice(SimWriter *w, const SimRenderSpec *spec, SliceKeys *keys, int64_t op, int64_t end_ns,
                        int64_t wait_ns)
{
    const SimProgram *p = spec->program;
    bool is_critical = spec->analysis && spec->analysis->is_critical[op];
    int64_t args[SIM_RENDER_MAX_ARGS];
    char start[24 + PAD];
    size_t start_len;
    char *c = sim_writer_room(w, 160 + PAD + keys->open_len); /* tid, ts and dur: 24 + 47 + 48 */
    c = put_padded(c, keys->open, keys->open_len);
    c = put_times(c, spec, keys, op, end_ns, start, &start_len);
    c = spec->phases ? put_template(w, c, spec, keys, op, args) : put_label(w, c, spec, keys, op, args);
    sim_writer_end(w, c);
    enum { ROOM = 640 }; /* what follows, keys of at most 24 bytes: 28 + 6 x (PAD + 25) args + 196 */
    c = sim_writer_room(w, ROOM);
    if (is_critical)
        PUT(c, ",\"cname\":\"terrible\"");
    PUT(c, ",\"args\":{");
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && keys->arg_keys[i]; i++) {
        if (keys->arg_key_len[i] > 24) { /* a long key: room of its own */
            sim_writer_end(w, c);
            c = sim_writer_room(w, keys->arg_key_len[i] + ROOM);
        }
        c = put_padded(c, keys->arg_keys[i], keys->arg_key_len[i]);
        c = sim_format_memo(c, &keys->args[i], args[i]);
        *c++ = ',';
    }
    PUT(c, "\"op\":");
    memcpy(c, keys->op.digits, sizeof keys->op.digits);
    c += keys->op.len;
    PUT(c, ",\"cta\":");
    c = sim_format_memo(c, &keys->cta, sim_op_cta(p, op));
    PUT(c, ",\"start_ns\":");
    c = put_padded(c, start, start_len);
    PUT(c, ",\"end_ns\":");
    c = sim_format_i64(c, end_ns);
    PUT(c, ",\"wait_ns\":");
    c = sim_format_memo(c, &keys->wait, wait_ns);
    if (is_critical)
        PUT(c, ",\"critical\":true}}");
    else
        PUT(c, ",\"critical\":false}}");
    sim_writer_end(w, c);
}

/* One arrow: "s" inside the source slice, "f" (bound to its enclosing slice) inside the target; its id is
 * id_base + e (flow ids are global to the file: each process gets its own range). */
static void write_flow(SimWriter *w, const SimRenderSpec *spec, int pid, int64_t id_base, int64_t e)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    const char *kind = sim_edge_kind_name(sim_edge_kind(p, e)); /* a short name of letters */
    size_t kind_len = strlen(kind);
    char *c = sim_writer_room(w, 400 + 4 * kind_len);
    for (int end = 0; end < 2; end++) {
        int64_t op = end ? sim_edge_to(p, e) : sim_edge_from(p, e);
        if (end)
            PUT(c, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":");
        else
            PUT(c, ",\n{\"ph\":\"s\",\"id\":");
        c = sim_format_i64(c, id_base + e);
        PUT(c, ",\"pid\":");
        c = sim_format_i64(c, pid);
        PUT(c, ",\"tid\":");
        c = sim_format_i64(c, track_of(p, s, op));
        PUT(c, ",\"ts\":");
        c = sim_format_us(c, s->start_ns[op] + (sim_schedule_end_ns(p, s, op) - s->start_ns[op]) / 2);
        PUT(c, ",\"name\":\"");
        c = (char *)memcpy(c, kind, kind_len) + kind_len;
        PUT(c, "\",\"cat\":\"");
        c = (char *)memcpy(c, kind, kind_len) + kind_len;
        PUT(c, "\"}");
    }
    sim_writer_end(w, c);
}

/* Every op that lasted (an engine's op of nonzero duration; a measured one that has a span) as a slice,
 * then the arrows, of one process. */
static void write_events(SimWriter *w, const SimRenderSpec *spec, const SimTraceOptions *opt, int pid,
                         int64_t id_base)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    SimRenderWaits waits;
    sim_render_waits_init(&waits, p, s);
    SliceKeys keys;
    keys_init(&keys, spec, pid);
    for (int64_t op = 0; op < p->op_count; op++) {
        int64_t wait = sim_render_wait_next(&waits, op);
        int64_t end = sim_schedule_end_ns(p, s, op);
        if (end > s->start_ns[op])
            write_slice(w, spec, &keys, op, end, wait);
        sim_format_counter_step(&keys.op);
    }
    for (int64_t e = 0; opt->has_flows && e < p->edge_count; e++)
        if (is_flow(spec, opt, e))
            write_flow(w, spec, pid, id_base, e);
    keys_clear(&keys, spec->phases ? spec->phase_count : 0);
}

SimStatus sim_render_trace_set(const SimRenderSpec *specs, int count, const SimTraceOptions *opt, const char *path,
                               SimError *err)
{
    int64_t bytes = 0;
    for (int i = 0; i < count; i++)
        bytes += sim_render_trace_bytes(&specs[i], opt);
    if (opt->max_bytes > 0 && bytes > opt->max_bytes)
        return sim_error_set(err, SIM_ERR_LIMIT, "the trace %s would be about %" PRId64 " MB, over the cap of %"
                             PRId64 " MB (%s); %s", path, (bytes + (1 << 20) - 1) >> 20, opt->max_bytes >> 20,
                             opt->cap_flag ? opt->cap_flag : "a fixed cap", opt->cap_hint ? opt->cap_hint : "simulate less");
    SimOutput out;
    if (sim_output_open(&out, path, err) != SIM_OK)
        return err->status;
    sim_output_reserve(&out, bytes);
    write_file_metadata(out.f, &specs[0]);
    for (int i = 0; i < count; i++)
        write_process(out.f, &specs[i], i + 1, i == 0);
    SimWriter w;
    sim_writer_init(&w, out.f);
    int64_t id_base = 0;
    for (int i = 0; i < count; id_base += specs[i++].program->edge_count)
        write_events(&w, &specs[i], opt, i + 1, id_base);
    sim_writer_str(&w, "\n]}\n");
    sim_writer_done(&w); /* a failed write sets the stream's error flag, which sim_output_commit reports */
    return sim_output_commit(&out, err);
}

SimStatus sim_render_trace(const SimRenderSpec *spec, const SimTraceOptions *opt, const char *path,
                           SimError *err)
{
    return sim_render_trace_set(spec, 1, opt, path, err);
}

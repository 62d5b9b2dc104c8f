/* Chrome Trace Event JSON for Perfetto and chrome://tracing. One track (thread) per unit and engine, so
 * the slices of a track never overlap: an engine runs one op at a time. Written by hand, not through
 * cJSON, so a trace of millions of slices streams in constant memory and numbers print exactly
 * (ts and dur in microseconds with three decimals = integer nanoseconds); events go through the buffered
 * writer (format.h), numbers formatted by hand. A slice labelled by templates is its phase's last slice's
 * text with the numbers that changed rewritten in place (SliceText); one labelled by a call is formatted. */
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
    bytes += sim_program_lasting_ops(p) * (SLICE_BYTES + SLICE_BYTES_PER_DIGIT * digits);
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

/* A template's text: ",\"name\":\"C h" before the name's number and "\",\"cat\":...,\"args\":{" after it, or
 * the whole name and category before and the args' opening after (a name without a number); after it, the
 * text of a slice not critical and that of a critical one (its cname). */
typedef struct {
    char *pre, *post[2];                 /* owned */
    size_t pre_len, post_len[2];
    int name_arg;                        /* SimRenderPhase.name_arg */
} PhaseText;

/* Memos per engine below SIM_RENDER_MAX_ENGINES; the engines above share the last one. */
enum { ENGINE_MEMOS = SIM_RENDER_MAX_ENGINES + 1 };

/* The numbers of a templated slice's text (ts and dur in microseconds, the others integers). */
enum { F_TID, F_TS, F_DUR, F_NAME, F_ARG, F_OP = F_ARG + SIM_RENDER_MAX_ARGS, F_CTA, F_START, F_END, F_WAIT,
       F_COUNT };

/* With templates, the whole text of the last slice of one phase and criticality, with each number's value and
 * where its text ends: the phase's next slice copies it into the output and then rewrites there (and here,
 * for the slices after) the numbers that changed, where a number keeps its length (the times, the op, a
 * task's args mostly do); where one does not, the text is written anew. A number is rewritten in stores of
 * four bytes from a table of four digits, the first of them keeping the text's bytes before the number (its
 * key: three bytes at least, never another number). The text is read again only at the phase's next slice,
 * not just after it was rewritten (see SliceKeys). */
typedef struct {
    char *text;                          /* owned: room bytes; NULL before the phase's first slice */
    size_t len;
    int64_t task;                        /* the task whose args it holds */
    int64_t value[F_COUNT];
    int64_t low[F_COUNT];                /* the values whose text has the value's length: [low, low + span) */
    uint64_t span[F_COUNT];              /* 0: none is rewritten in place (a negative value, or above 12
                                          * digits before the point) */
    int64_t base[F_COUNT];               /* the value less its last four digits */
    int64_t low4[F_COUNT];               /* the values whose text differs from the value's in its last four
                                          * digits at most: [low4, low4 + span4) */
    uint64_t span4[F_COUNT];
    uint32_t end[F_COUNT];               /* where the number's text ends */
    uint32_t pre[F_COUNT], keep[F_COUNT];/* the text's bytes in the first store's word (pre & keep), and the
                                          * mask of those kept in it */
    uint32_t pre4[F_COUNT], keep4[F_COUNT]; /* the same for the last word (of an integer) */
    uint8_t digits[F_COUNT];             /* the number's digits (before the point), at most 12 where span > 0 */
    bool is_moved;                       /* a number changed length in this slice (splice): the slice takes the
                                          * whole text again */
} SliceText;

/* What every slice of a process repeats, escaped once: its opening up to the tid, each label arg's JSON key
 * with its colon, each op kind's name as a JSON string (the phase most labels keep) and, with templates,
 * each phase's name and category around the name's number; with templates, each phase's last text
 * (SliceText); and, for slices labelled by a call, the texts of the slices before, copied where a slice
 * repeats them rather than formatted again: a task's args (its compute and reduction are adjacent), an
 * engine's last end (the next start on it, or on the next slice's engine), the last two durations.
 * A text is never read back just after it was written: a new number is formatted straight into the output
 * (and into its memo, for the slices after), and a task's new args text is kept from the output at the
 * slice's end. Reading bytes just stored by narrower stores stalls the CPU (store-to-load forwarding fails):
 * it cost more than formatting twice. */
typedef struct {
    char *open;                          /* owned: ",\n{"ph":"X","pid":P,"tid":" */
    size_t open_len;
    char *arg_keys[SIM_RENDER_MAX_ARGS]; /* owned; NULL past the last arg */
    size_t arg_key_len[SIM_RENDER_MAX_ARGS];
    int arg_count;
    char *kinds[SIM_OP_KIND_COUNT];      /* owned */
    size_t kind_len[SIM_OP_KIND_COUNT];
    PhaseText *phase_text;               /* owned: with templates, one per phase */
    SliceText *texts;                    /* owned: with templates, two per phase (not critical, critical) */
    SimFormatCounter op;                 /* the next op's number: every op is counted, slice or not */
    SimRenderPhases phase_block;         /* with templates: the ops' phases */
    SimFormatMemo tid[ENGINE_MEMOS], cta, wait;
    int64_t args[SIM_RENDER_MAX_ARGS];   /* the slice's args (0 past those its labels give) */
    SimFormatMemo arg_memo[SIM_RENDER_MAX_ARGS]; /* each arg's value in args_text */
    int args_from;                       /* the first arg that differs from args_text's; -1: none */
    int task_arg_count;                  /* with templates: the args read from a task's row */
    int64_t task;                        /* with templates: the last slice's task, whose args task_args holds */
    int64_t task_args[SIM_RENDER_MAX_ARGS];
    uint32_t *digits4;                   /* owned, with templates: 0 to 9999 as four digits each ("0042") */
    uint32_t keep_mask[4];               /* the word's first k bytes set, for k = 0 to 3 */
    uint32_t point, point_mask;          /* '.' as the word's first byte; the mask of its other three */
    char *args_text;                     /* owned: "\"head\":0,\"kv\":1,...,\"op\":" (every arg, its key and a
                                          * comma, then the op's key) */
    size_t args_len, arg_end[SIM_RENDER_MAX_ARGS]; /* its length, and where each arg's comma ends */
    const char *args_new;                /* in the output: this slice's args text, for args_text at its end */
    SimFormatMemo end[ENGINE_MEMOS];     /* per engine: its last slice's end_ns */
    int last_engine;                     /* the last slice's engine memo */
    SimFormatMemo dur[2];                /* the last two durations, in microseconds (compute, reduce, ...) */
    int dur_next;                        /* the one the next new duration replaces */
    size_t room;                         /* the most bytes a slice writes after its label, pads included */
    const uint8_t *is_critical;          /* the analysis's, or NULL */
} SliceKeys;

/* The texts every slice copies are padded with PAD bytes, so one of at most PAD bytes is copied whole by a
 * copy of fixed size (sim_format_put_padded); the room asked for covers the pad. */
enum { PAD = SIM_FORMAT_PAD };
static char *padded(char *s)
{
    size_t n = strlen(s);
    s = g_realloc(s, n + PAD + 1);
    memset(s + n, 0, PAD + 1);
    return s;
}

/* Appends the literal text lit (a string constant) at c. */
#define PUT(c, lit) (memcpy((c), (lit), sizeof(lit) - 1), (c) += sizeof(lit) - 1)

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
    PhaseText t = { .name_arg = ph->name_arg };
    bool has_number = ph->name_arg >= 0;
    if (has_number)
        name[strlen(name) - 1] = '\0'; /* the closing quote follows the number */
    t.pre = g_strconcat(",\"name\":", name, has_number ? "" : ",\"cat\":", has_number ? "" : cat, NULL);
    for (int critical = 0; critical < 2; critical++)
        t.post[critical] = g_strconcat(has_number ? "\",\"cat\":" : "", has_number ? cat : "",
                                       critical ? ",\"cname\":\"terrible\"" : "", ",\"args\":{", NULL);
    g_free(name), g_free(cat);
    t.pre_len = strlen(t.pre), t.pre = padded(t.pre);
    for (int critical = 0; critical < 2; critical++)
        t.post_len[critical] = strlen(t.post[critical]), t.post[critical] = padded(t.post[critical]);
    return t;
}

/* The args text of all-zero args, and its longest length (each arg's key and 20 digits); a new string. */
static char *zero_args_text(const SliceKeys *k, size_t *len, size_t *max_len)
{
    GString *t = g_string_new("");
    *max_len = 0;
    for (int i = 0; i < k->arg_count; i++) {
        g_string_append_printf(t, "%s0,", k->arg_keys[i]);
        *max_len += k->arg_key_len[i] + 21;
    }
    g_string_append(t, "\"op\":");
    *len = t->len, *max_len += 5;
    g_string_set_size(t, *max_len + PAD); /* the pad copied past the end, zeroed */
    memset(t->str + *len, 0, t->len - *len);
    return g_string_free(t, FALSE);
}

/* The tables of the templated slices' stores: 0 to 9999 as four digits, and the masks by byte position. */
static void words_init(SliceKeys *k)
{
    k->digits4 = g_new(uint32_t, 10000);
    for (int i = 0; i < 10000; i++) {
        char d[4] = { sim_format_pairs[2 * (i / 100)], sim_format_pairs[2 * (i / 100) + 1],
                      sim_format_pairs[2 * (i % 100)], sim_format_pairs[2 * (i % 100) + 1] };
        memcpy(&k->digits4[i], d, 4);
    }
    for (int n = 0; n < 4; n++) {
        unsigned char m[4] = { 0 };
        memset(m, 0xff, (size_t)n);
        memcpy(&k->keep_mask[n], m, 4);
    }
    k->point_mask = ~k->keep_mask[1];
    memcpy(&k->point, (char[4]){ '.', 0, 0, 0 }, 4);
}

static void keys_init(SliceKeys *k, const SimRenderSpec *spec, int pid)
{
    *k = (SliceKeys){ .open = g_strdup_printf(",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":", pid), .op = { "0", 1 },
                      .args_from = -1, .task = -2, .phase_block = SIM_RENDER_PHASES_INIT,
                      .is_critical = spec->analysis ? spec->analysis->is_critical : NULL };
    k->open_len = strlen(k->open);
    k->open = padded(k->open);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS && spec->arg_names[i]; i++, k->arg_count++)
        k->arg_keys[i] = padded(json_text(spec->arg_names[i], ":", &k->arg_key_len[i]));
    k->task_arg_count = MIN(k->arg_count, spec->task_arg_stride);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS; i++)
        k->arg_memo[i] = SIM_FORMAT_MEMO_ZERO;
    for (int i = 0; i < k->arg_count; i++)
        k->arg_end[i] = (i ? k->arg_end[i - 1] : 0) + k->arg_key_len[i] + 2;
    size_t max_len;
    k->args_text = zero_args_text(k, &k->args_len, &max_len);
    for (int i = 0; i < SIM_OP_KIND_COUNT; i++)
        k->kinds[i] = json_text(sim_op_kind_name(i), "", &k->kind_len[i]);
    k->phase_text = g_new(PhaseText, spec->phases ? spec->phase_count : 0);
    k->texts = g_new0(SliceText, spec->phases ? 2 * spec->phase_count : 0);
    if (spec->phases)
        words_init(k);
    size_t label = 0;
    for (int i = 0; spec->phases && i < spec->phase_count; i++) {
        k->phase_text[i] = phase_text(&spec->phases[i]);
        label = MAX(label, k->phase_text[i].pre_len + k->phase_text[i].post_len[1] + 24 + 2 * PAD);
    }
    /* the room: each part at its longest with its pad, numbers 24 bytes (a negative ts 41), the literals */
    k->room = k->open_len + label + max_len + 3 * PAD + 12 * 24 + 160;
    g_assert(k->room <= SIM_WRITER_MAX_ROOM);
    k->cta = k->wait = SIM_FORMAT_MEMO_ZERO;
    for (int i = 0; i < ENGINE_MEMOS; i++)
        k->tid[i] = k->end[i] = SIM_FORMAT_MEMO_ZERO;
    k->dur[0].value = k->dur[1].value = -1; /* no slice lasts -1 ns */
}

static void keys_clear(SliceKeys *k, int phase_count)
{
    g_free(k->open);
    for (int i = 0; i < SIM_RENDER_MAX_ARGS; i++)
        g_free(k->arg_keys[i]);
    for (int i = 0; i < SIM_OP_KIND_COUNT; i++)
        g_free(k->kinds[i]);
    for (int i = 0; i < phase_count; i++)
        g_free(k->phase_text[i].pre), g_free(k->phase_text[i].post[0]), g_free(k->phase_text[i].post[1]);
    g_free(k->phase_text);
    for (int i = 0; i < 2 * phase_count; i++)
        g_free(k->texts[i].text);
    g_free(k->texts);
    g_free(k->digits4);
    g_free(k->args_text);
}

/* After the slice's args were put in k->args: args_from is the first that differs from args_text's, or -1. */
static void args_changed(SliceKeys *k)
{
    int i = 0;
    while (i < k->arg_count && k->arg_memo[i].value == k->args[i])
        i++;
    k->args_from = i < k->arg_count ? i : -1;
}

/* The slice's args text: args_text, or where args changed its part before them and the rest written here
 * (then kept from here into args_text at the slice's end). */
static char *put_args(char *c, SliceKeys *k)
{
    if (k->args_from < 0)
        return sim_format_put_padded(c, k->args_text, k->args_len);
    int i = k->args_from;
    char *text = c;
    c = sim_format_put_padded(c, k->args_text, i ? k->arg_end[i - 1] : 0);
    for (; i < k->arg_count; i++) {
        c = sim_format_put_padded(c, k->arg_keys[i], k->arg_key_len[i]);
        c = sim_format_memo(c, &k->arg_memo[i], k->args[i]);
        *c++ = ',';
        k->arg_end[i] = (size_t)(c - text);
    }
    PUT(c, "\"op\":");
    k->args_len = (size_t)(c - text);
    k->args_new = text;
    k->args_from = -1;
    return c;
}

/* The slice's name and category from its label (escaped here), and its args; returns room for the rest of
 * the slice. */
static char *put_label(SimWriter *w, char *c, const SimRenderSpec *spec, SliceKeys *keys, int64_t op)
{
    SimRenderLabel l;
    sim_render_label(spec, op, true, &l);
    memcpy(keys->args, l.args, sizeof keys->args);
    args_changed(keys);
    PUT(c, ",\"name\":");
    sim_writer_end(w, c);
    sim_writer_json_string(w, l.name);
    SimOpKind kind = sim_op_kind(spec->program, op);
    c = sim_writer_room(w, keys->room);
    PUT(c, ",\"cat\":");
    if (l.phase == sim_op_kind_name(kind)) /* the default, escaped once */
        return (char *)memcpy(c, keys->kinds[kind], keys->kind_len[kind]) + keys->kind_len[kind];
    sim_writer_end(w, c);
    sim_writer_json_string(w, l.phase);
    return sim_writer_room(w, keys->room);
}

/* The memo holding start_ns's text: the end last written on engine memo e or on the last slice's; NULL for
 * none. */
static inline const SimFormatMemo *start_text(SliceKeys *keys, int e, int64_t start_ns)
{
    if (keys->end[e].value == start_ns)
        return &keys->end[e];
    if (keys->end[keys->last_engine].value == start_ns)
        return &keys->end[keys->last_engine];
    return NULL;
}

/* The slice's start in microseconds: from its own nanoseconds' text (start), or formatted. */
static char *put_ts(char *c, const SimFormatMemo *start, int64_t start_ns)
{
    size_t n = start ? start->len : 0;
    if (start && start_ns >= 1000) { /* sim_format_us_of_text, in copies of fixed size from the padded start */
        memcpy(c, start->text, sizeof start->text);
        c[n - 3] = '.';
        memcpy(c + n - 2, start->text + n - 3, 3);
        return c + n + 1;
    }
    return start && start_ns >= 0 ? sim_format_us_of_text(c, start->text, n) : sim_format_us(c, start_ns);
}

/* The slice's track, start and duration (one of the last two kept, or formatted). */
static char *put_times(char *c, SliceKeys *keys, int e, int64_t track, const SimFormatMemo *start,
                       int64_t start_ns, int64_t end_ns)
{
    c = sim_format_memo(c, &keys->tid[e], track);
    PUT(c, ",\"ts\":");
    c = put_ts(c, start, start_ns);
    PUT(c, ",\"dur\":");
    int64_t dur_ns = end_ns - start_ns;
    SimFormatMemo *d = &keys->dur[0];
    if (d->value == dur_ns || (d = &keys->dur[1])->value == dur_ns) {
        memcpy(c, d->text, sizeof d->text);
        return c + d->len;
    }
    d = &keys->dur[keys->dur_next];
    keys->dur_next ^= 1;
    d->value = dur_ns;
    d->len = (size_t)(sim_format_us(d->text, dur_ns) - d->text); /* dur_ns > 0: at most 20 bytes */
    return sim_format_us(c, dur_ns);
}

/* The slice's numbers after its args: op, CTA, start, end, wait. */
static char *put_numbers(char *c, SliceKeys *keys, int e, int32_t cta, const SimFormatMemo *start,
                         int64_t start_ns, int64_t end_ns, int64_t wait_ns)
{
    memcpy(c, keys->op.digits, sizeof keys->op.digits);
    c += keys->op.len;
    PUT(c, ",\"cta\":");
    c = sim_format_memo(c, &keys->cta, cta);
    PUT(c, ",\"start_ns\":");
    if (start) {
        memcpy(c, start->text, sizeof start->text);
        c += start->len;
    } else {
        c = sim_format_i64(c, start_ns);
    }
    PUT(c, ",\"end_ns\":");
    /* start's memo is no longer read: it may be the one the end goes to */
    c = start ? sim_format_memo_near(c, &keys->end[e], start, end_ns) : sim_format_memo(c, &keys->end[e], end_ns);
    keys->last_engine = e;
    PUT(c, ",\"wait_ns\":");
    return sim_format_memo(c, &keys->wait, wait_ns);
}

/* One slice labelled by spec->label (or the defaults); keys->op is op's number. */
static void write_slice(SimWriter *w, const SimRenderSpec *spec, SliceKeys *keys, int64_t op, int64_t end_ns,
                        int64_t wait_ns)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    bool is_critical = keys->is_critical && keys->is_critical[op];
    int k = sim_op_engine(p, op), e = MIN(k, SIM_RENDER_MAX_ENGINES);
    int32_t cta = sim_op_cta(p, op);
    int64_t start_ns = s->start_ns[op];
    const SimFormatMemo *start = start_text(keys, e, start_ns);
    char *c = sim_writer_room(w, keys->room);
    c = sim_format_put_padded(c, keys->open, keys->open_len);
    c = put_times(c, keys, e, (int64_t)s->cta_unit[cta] * p->engines_per_unit + k + 1, start, start_ns, end_ns);
    c = put_label(w, c, spec, keys, op);
    if (is_critical)
        PUT(c, ",\"cname\":\"terrible\"");
    PUT(c, ",\"args\":{");
    c = put_args(c, keys);
    c = put_numbers(c, keys, e, cta, start, start_ns, end_ns, wait_ns);
    if (is_critical)
        PUT(c, ",\"critical\":true}}");
    else
        PUT(c, ",\"critical\":false}}");
    sim_writer_end(w, c);
    if (keys->args_new) /* written a while ago now: read back without a stall */
        sim_format_put_padded(keys->args_text, keys->args_new, keys->args_len), keys->args_new = NULL;
}

static inline bool is_us(int f)
{
    return f == F_TS || f == F_DUR;
}

static inline void put_word(char *c, char *text, size_t at, uint32_t word)
{
    memcpy(c + at, &word, 4);
    memcpy(text + at, &word, 4);
}

/* Where number f's last four digits alone may change from v: the values of v's block of 10000 (of as many
 * digits), or where v has fewer than five digits the values of as many digits. */
static void set_block(SliceText *t, int f, int64_t v)
{
    t->base[f] = v - v % 10000;
    bool is_block = is_us(f) || t->digits[f] > 4;
    t->low4[f] = is_block ? t->base[f] : t->low[f];
    t->span4[f] = is_block ? 10000 : t->span[f];
}

static void splice(SliceText *t, const SliceKeys *k, int f, int64_t v);

/* patch where more than v's last four digits change. Out of line and cold: the rare case, kept out of the
 * slice's loop. */
G_GNUC_NO_INLINE __attribute__((cold)) static void patch_whole(SliceText *t, char *c, const SliceKeys *k, int f, int64_t v)
{
    if ((uint64_t)v - (uint64_t)t->low[f] >= t->span[f]) {
        splice(t, k, f, v);
        return;
    }
    t->value[f] = v;
    set_block(t, f, v);
    size_t end = t->end[f] - 4;
    uint64_t u = (uint64_t)v;
    if (is_us(f)) { /* "%lld.%03lld": the point and the thousandths in one word, then the whole part */
        put_word(c, t->text, end, (k->digits4[u % 1000] & k->point_mask) | k->point);
        end -= 4, u /= 1000;
    }
    for (int i = 4; i < t->digits[f]; i += 4, end -= 4, u /= 10000) /* the words after the first */
        put_word(c, t->text, end, k->digits4[u % 10000]);
    uint32_t word = k->digits4[u];
    put_word(c, t->text, end, (word & ~t->keep[f]) | t->pre[f]);
}

/* Number f takes v in t and in the copy of t's text at c: rewritten in both where its text keeps its length
 * (sim_format_i64's and sim_format_us's bytes); where it does not, in t alone (splice). Where only its last
 * four digits change (a time, the op, most often), one word (a time: and the digit before the point). */
static inline void patch(SliceText *t, char *c, const SliceKeys *k, int f, int64_t v)
{
    if (v == t->value[f])
        return;
    if (G_UNLIKELY((uint64_t)v - (uint64_t)t->low4[f] >= t->span4[f])) {
        patch_whole(t, c, k, f, v);
        return;
    }
    uint32_t word = k->digits4[(uint64_t)v - (uint64_t)t->base[f]];
    size_t end = t->end[f] - 4;
    t->value[f] = v;
    if (is_us(f)) {
        put_word(c, t->text, end, (word & k->point_mask) | k->point);
        memcpy(c + end - 1, &word, 1); /* the thousands, the whole part's last digit: the word's first byte */
        memcpy(t->text + end - 1, &word, 1);
    } else {
        put_word(c, t->text, end, (word & ~t->keep4[f]) | t->pre4[f]);
    }
}

/* Task's args as sim_render_phase reads them: its row's first task_arg_count (the others stay 0; all 0 for
 * an op of no task, -1). */
static void task_args(const SimRenderSpec *spec, const SliceKeys *k, int64_t task, int64_t *args)
{
    int n = k->task_arg_count; /* in a local: the stores below could otherwise change it */
    const int32_t *row = task >= 0 ? spec->task_args + task * spec->task_arg_stride : NULL;
    for (int i = 0; i < n; i++)
        args[i] = row ? row[i] : 0;
}

/* The args of the slice's task (keys->task_args) and the name's number in t and at c, as patch. */
static void patch_args(SliceText *t, char *c, const SliceKeys *k, const PhaseText *ph)
{
    int n = k->arg_count; /* in a local: the stores below could otherwise change it */
    for (int i = 0; i < n; i++)
        patch(t, c, k, F_ARG + i, k->task_args[i]);
    if (ph->name_arg >= 0)
        patch(t, c, k, F_NAME, k->task_args[ph->name_arg]);
    t->task = k->task;
}

/* Where number f's text (v's, ending at end in t's text) may be rewritten in place: the values of as many
 * digits, the first store's word. */
static void field_range(SliceText *t, const SliceKeys *k, int f, int64_t v, size_t end)
{
    static const uint64_t pow10[13] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                        1000000000, 10000000000, 100000000000, 1000000000000 };
    int64_t whole = is_us(f) ? v / 1000 : v;
    int d = v < 0 ? 0 : sim_format_digits((uint64_t)whole);
    t->value[f] = v;
    t->digits[f] = (uint8_t)d;
    t->span[f] = t->span4[f] = 0;
    if (d < 1 || d > 12)
        return;
    int64_t scale = is_us(f) ? 1000 : 1;
    t->low[f] = d == 1 ? 0 : (int64_t)pow10[d - 1] * scale;
    t->span[f] = pow10[d] * (uint64_t)scale - (uint64_t)t->low[f];
    int words = (d + 3) / 4, top = d - 4 * (words - 1); /* digits in the first word */
    size_t at = end - (is_us(f) ? 4 : 0) - 4 * (size_t)words;
    t->keep[f] = k->keep_mask[4 - top];
    memcpy(&t->pre[f], t->text + at, 4);
    t->pre[f] &= t->keep[f];
    t->keep4[f] = d > 4 ? 0 : t->keep[f];
    t->pre4[f] = d > 4 ? 0 : t->pre[f];
    set_block(t, f, v);
}

/* Number f's text for v at c; returns its end. */
static char *format_field(char *c, int f, int64_t v)
{
    return is_us(f) ? sim_format_us(c, v) : sim_format_i64(c, v);
}

/* Number f's text for v at c, kept in t (s: t's text); returns its end. */
static char *put_field(SliceText *t, const char *s, char *c, int f, int64_t v)
{
    char *end = format_field(c, f, v);
    t->end[f] = (uint32_t)(end - s);
    return end;
}

/* Number f takes v where its text changes length (a tile past 9 or 99, a time past a power of ten): v's text
 * in t's in place of the old one, the text after it moved by the difference and the later numbers' ends with
 * it (the bytes before each are its key, moved whole), rather than the whole text built anew. The numbers
 * are in the text in the order of their F_ index; those absent from it have ends no one reads. */
static void splice(SliceText *t, const SliceKeys *k, int f, int64_t v)
{
    char old[48], now[48];
    size_t m = (size_t)(format_field(old, f, t->value[f]) - old), n = (size_t)(format_field(now, f, v) - now);
    size_t start = t->end[f] - m;
    memmove(t->text + start + n, t->text + t->end[f], t->len - t->end[f]);
    memcpy(t->text + start, now, n);
    for (int g = f + 1; g < F_COUNT; g++)
        t->end[g] = (uint32_t)(t->end[g] + n - m);
    t->len = t->len + n - m;
    t->end[f] = (uint32_t)(start + n);
    field_range(t, k, f, v, t->end[f]);
    t->is_moved = true;
}

/* t's whole text, written anew: the slice of numbers v (args: task's) with phase text ph. */
static void text_build(SliceText *t, const SliceKeys *k, const PhaseText *ph, bool is_critical, const int64_t *v)
{
    char *s = t->text, *c = (char *)memcpy(s, k->open, k->open_len) + k->open_len;
    const int64_t *args = k->task_args;
    c = put_field(t, s, c, F_TID, v[F_TID]);
    PUT(c, ",\"ts\":");
    c = put_field(t, s, c, F_TS, v[F_TS]);
    PUT(c, ",\"dur\":");
    c = put_field(t, s, c, F_DUR, v[F_DUR]);
    c = (char *)memcpy(c, ph->pre, ph->pre_len) + ph->pre_len;
    if (ph->name_arg >= 0)
        c = put_field(t, s, c, F_NAME, args[ph->name_arg]);
    c = (char *)memcpy(c, ph->post[is_critical], ph->post_len[is_critical]) + ph->post_len[is_critical];
    for (int i = 0; i < k->arg_count; i++) {
        c = (char *)memcpy(c, k->arg_keys[i], k->arg_key_len[i]) + k->arg_key_len[i];
        c = put_field(t, s, c, F_ARG + i, args[i]);
        *c++ = ',';
    }
    static const char *const keys[] = { "\"op\":", ",\"cta\":", ",\"start_ns\":", ",\"end_ns\":", ",\"wait_ns\":" };
    for (int f = F_OP; f <= F_WAIT; f++) {
        size_t n = strlen(keys[f - F_OP]);
        c = put_field(t, s, (char *)memcpy(c, keys[f - F_OP], n) + n, f, v[f]);
    }
    if (is_critical)
        PUT(c, ",\"critical\":true}}");
    else
        PUT(c, ",\"critical\":false}}");
    t->len = (size_t)(c - s);
    t->task = k->task;
    for (int f = 0; f < F_COUNT; f++) {
        bool is_arg = f >= F_ARG && f < F_OP;
        if ((f == F_NAME && ph->name_arg < 0) || (is_arg && f - F_ARG >= k->arg_count))
            continue; /* not in the text */
        field_range(t, k, f, f == F_NAME ? args[ph->name_arg] : is_arg ? args[f - F_ARG] : v[f], t->end[f]);
    }
}

/* t's text at c, in copies of fixed size: 192 bytes (most slices' text is longer), then 32 at a time (t's
 * text and the room at c have them past its end). */
static inline void copy_text(char *c, const SliceText *t)
{
    memcpy(c, t->text, 192);
    for (size_t i = 192; i < t->len; i += 32)
        memcpy(c + i, t->text + i, 32);
}

/* One slice labelled by templates (spec->phases): its phase's last text with the numbers that changed
 * rewritten (the phase's first slice: written anew). */
static void write_templated(SimWriter *w, const SimRenderSpec *spec, SliceKeys *keys, int64_t op, int64_t end_ns,
                            int64_t wait_ns)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    bool is_critical = keys->is_critical && keys->is_critical[op];
    int phase = sim_render_phase_at(spec, &keys->phase_block, op);
    SliceText *t = &keys->texts[2 * phase + is_critical];
    const PhaseText *ph = &keys->phase_text[phase];
    int32_t cta = sim_op_cta(p, op);
    int64_t task = sim_op_task(p, op), start_ns = s->start_ns[op];
    int64_t track = (int64_t)s->cta_unit[cta] * p->engines_per_unit + sim_op_engine(p, op) + 1;
    if (task != keys->task) /* a task's ops follow one another: its args are read once */
        task_args(spec, keys, task, keys->task_args), keys->task = task;
    char *c = sim_writer_room(w, keys->room);
    if (!t->text) { /* the phase's first slice */
        int64_t v[F_COUNT] = { [F_TID] = track, [F_TS] = start_ns, [F_DUR] = end_ns - start_ns, [F_OP] = op,
                               [F_CTA] = cta, [F_START] = start_ns, [F_END] = end_ns, [F_WAIT] = wait_ns };
        t->text = g_malloc0(keys->room);
        text_build(t, keys, ph, is_critical, v);
        copy_text(c, t);
        sim_writer_end(w, c + t->len);
        return;
    }
    copy_text(c, t);
    patch(t, c, keys, F_TID, track);
    patch(t, c, keys, F_TS, start_ns);
    patch(t, c, keys, F_DUR, end_ns - start_ns);
    if (task != t->task)
        patch_args(t, c, keys, ph);
    patch(t, c, keys, F_OP, op);
    patch(t, c, keys, F_CTA, cta);
    patch(t, c, keys, F_START, start_ns);
    patch(t, c, keys, F_END, end_ns);
    patch(t, c, keys, F_WAIT, wait_ns);
    if (G_UNLIKELY(t->is_moved)) { /* a number changed length: its text moved in t alone */
        copy_text(c, t);
        t->is_moved = false;
    }
    sim_writer_end(w, c + t->len);
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
        int64_t end = sim_schedule_end_ns(p, s, op);
        int64_t wait = sim_render_wait_next(&waits, op, end);
        if (end > s->start_ns[op] && spec->phases)
            write_templated(w, spec, &keys, op, end, wait);
        else if (end > s->start_ns[op])
            write_slice(w, spec, &keys, op, end, wait);
        if (!spec->phases) /* read by write_slice alone */
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
    sim_output_writer_init(&w, &out);
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

/* Renderers (sim/render.h): the writer's hand-formatted numbers and strings are printf's bytes, the trace parses and no two slices of a track overlap, flows and critical
 * marks match the program, the CSV's last end is the makespan and its waits follow the closed form of
 * FA3's full-mask staircase, gnuplot draws PNG and SVG, and every error leaves no file behind. */
#include <check.h>
#include <cjson/cJSON.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "format.h"
#include "job.h"
#include "render.h"
#include "tests.h"

typedef struct {
    Plan *plan;
    SimProgram *prog;
    SimSchedule s;
    SimAnalysis a;
} Run;

static void run_policy(Run *r, const char *policy, int n, int heads, Mask mask, ReduceMode reduce)
{
    Workload wl = { .n_sm = n, .heads = heads, .kv_tiles = n, .q_tiles = n, .mask = mask, .tile_ratio = 1,
                    .head_swizzle = 1 };
    AttnCosts costs = { .c_ns = 1000, .r_ns = 500, .reduce = reduce, .dq_buffers = 1 };
    SimError err = { 0 };
    *r = (Run){ .plan = policy_build(policy_find(policy), &wl, &err) };
    ck_assert_ptr_nonnull(r->plan);
    r->prog = sim_attention_program(r->plan, &costs);
    ck_assert_int_eq(sim_engine_run(r->prog, &r->s, &err), SIM_OK);
    ck_assert_int_eq(sim_analyze(r->prog, &r->s, &r->a, NULL, &err), SIM_OK);
}

static void run_free(Run *r)
{
    sim_analysis_clear(&r->a);
    sim_schedule_clear(&r->s);
    sim_program_free(r->prog);
    plan_free(r->plan);
}

static SimRenderSpec spec_of(const Run *r)
{
    return (SimRenderSpec){ .program = r->prog, .schedule = &r->s, .analysis = &r->a, .unit_name = "SM",
                            .flow_edge_kinds = 1u << SIM_EDGE_ACCUM };
}

static char *tmp_path(const char *dir, const char *name)
{
    return g_build_filename(dir, name, NULL);
}

/* Files in dir, to check that an error left nothing (no temporary either). */
static int file_count(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    int n = 0;
    while (g_dir_read_name(d))
        n++;
    g_dir_close(d);
    return n;
}

static void remove_dir(char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        char *p = tmp_path(dir, name);
        g_unlink(p);
        g_free(p);
    }
    g_dir_close(d);
    g_rmdir(dir);
    g_free(dir);
}

static cJSON *parse_file(const char *path)
{
    char *text;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    cJSON *j = cJSON_Parse(text);
    g_free(text);
    ck_assert_ptr_nonnull(j);
    return j;
}

static const cJSON *item(const cJSON *object, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    ck_assert_ptr_nonnull(v);
    return v;
}

static int64_t arg_int(const cJSON *ev, const char *key)
{
    const cJSON *v = item(item(ev, "args"), key);
    ck_assert(cJSON_IsNumber(v));
    return (int64_t)v->valuedouble;
}

typedef struct {
    int64_t tid, start, end;
} Slice;

static int slice_cmp(const void *a, const void *b)
{
    const Slice *x = a, *y = b;
    return x->tid != y->tid ? (x->tid > y->tid) - (x->tid < y->tid) : (x->start > y->start) - (x->start < y->start);
}

/* Checks the trace of r written with flows; returns the number of X events. */
static int64_t check_trace(const Run *r, const char *path)
{
    cJSON *j = parse_file(path);
    const cJSON *events = item(j, "traceEvents"), *ev;
    ck_assert(cJSON_IsArray(events));
    Slice *slices = g_new(Slice, cJSON_GetArraySize(events));
    int64_t n = 0, flows_s = 0, flows_f = 0, threads = 0, critical = 0;
    cJSON_ArrayForEach(ev, events) {
        const char *ph = item(ev, "ph")->valuestring;
        if (strcmp(ph, "X") == 0) {
            int64_t start = arg_int(ev, "start_ns"), end = arg_int(ev, "end_ns"), op = arg_int(ev, "op");
            ck_assert_int_eq(r->s.start_ns[op], start);
            ck_assert_int_eq(sim_schedule_end_ns(r->prog, &r->s, op), end);
            /* ts and dur are microseconds with exactly nanosecond precision */
            ck_assert_int_eq((int64_t)(item(ev, "ts")->valuedouble * 1000 + 0.5), start);
            ck_assert_int_eq((int64_t)(item(ev, "dur")->valuedouble * 1000 + 0.5), end - start);
            bool is_critical = cJSON_IsTrue(item(item(ev, "args"), "critical"));
            ck_assert_int_eq(is_critical, r->a.is_critical[op]);
            critical += is_critical;
            slices[n++] = (Slice){ (int64_t)item(ev, "tid")->valuedouble, start, end };
        }
        flows_s += strcmp(ph, "s") == 0;
        flows_f += strcmp(ph, "f") == 0;
        threads += strcmp(ph, "M") == 0 && strcmp(item(ev, "name")->valuestring, "thread_name") == 0;
    }
    qsort(slices, n, sizeof *slices, slice_cmp);
    for (int64_t i = 1; i < n; i++)
        if (slices[i].tid == slices[i - 1].tid)
            ck_assert_int_le(slices[i - 1].end, slices[i].start);
    int64_t accum = 0;
    for (int64_t e = 0; e < r->prog->edge_count; e++)
        accum += sim_edge_kind(r->prog, e) == SIM_EDGE_ACCUM;
    ck_assert_int_eq(flows_s, accum);
    ck_assert_int_eq(flows_f, accum);
    ck_assert_int_eq(threads, (int64_t)r->prog->n_units * r->prog->engines_per_unit);
    ck_assert_int_gt(critical, 0);
    ck_assert_str_eq(item(item(j, "metadata"), "k")->valuestring, "v");
    g_free(slices);
    cJSON_Delete(j);
    return n;
}

START_TEST(trace_parses_and_no_slices_overlap)
{
    static const struct { const char *policy; Mask mask; ReduceMode reduce; } cases[] = {
        { "fa3", MASK_FULL, REDUCE_SERIAL }, { "shift", MASK_FULL, REDUCE_ASYNC },
        { "fa3", MASK_CAUSAL, REDUCE_ASYNC }, { "symmetric-shift", MASK_CAUSAL, REDUCE_SERIAL },
    };
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *path = tmp_path(dir, "t.json");
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        Run r;
        run_policy(&r, cases[i].policy, 8, 2, cases[i].mask, cases[i].reduce);
        SimRenderSpec spec = spec_of(&r);
        SimRenderMeta meta = { "k", "v" };
        spec.meta = &meta, spec.meta_count = 1;
        SimTraceOptions opt = { .has_flows = true };
        SimError err = { 0 };
        ck_assert_int_eq(sim_render_trace(&spec, &opt, path, &err), SIM_OK);
        /* C and R per task: async deposits are zero-length and not drawn */
        ck_assert_int_eq(check_trace(&r, path), 2 * r.plan->task_count);
        run_free(&r);
    }
    g_free(path);
    remove_dir(dir);
}
END_TEST

START_TEST(trace_estimate_and_cap)
{
    Run r;
    run_policy(&r, "fa3", 16, 2, MASK_CAUSAL, REDUCE_ASYNC);
    SimRenderSpec spec = spec_of(&r);
    SimTraceOptions opt = { .has_flows = true };
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *path = tmp_path(dir, "t.json");
    SimError err = { 0 };
    ck_assert_int_eq(sim_render_trace(&spec, &opt, path, &err), SIM_OK);
    GStatBuf st;
    ck_assert_int_eq(g_stat(path, &st), 0);
    int64_t estimate = sim_render_trace_bytes(&spec, &opt);
    ck_assert_int_ge(estimate, st.st_size);      /* the cap never lets a larger trace through */
    ck_assert_int_le(estimate, 2 * st.st_size);  /* nor refuses one half its size */
    g_unlink(path);
    opt.max_bytes = estimate - 1;
    ck_assert_int_eq(sim_render_trace(&spec, &opt, path, &err), SIM_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.msg, "over the cap"));
    ck_assert_int_eq(file_count(dir), 0);
    SimError err2 = { 0 };
    ck_assert_int_eq(sim_render_trace(&spec, &(SimTraceOptions){ 0 }, "/nonexistent/t.json", &err2), SIM_ERR_IO);
    ck_assert_int_eq(sim_render_csv(&spec, "/nonexistent/t.csv", &err2), SIM_ERR_IO);
    g_free(path);
    remove_dir(dir);
    run_free(&r);
}
END_TEST

/* FA3, full mask, one head, serial, c = 2r: CTA k's first reduction waits k r for the row's previous
 * one; every later phase starts as soon as its SM is free. Makespan n (c + r) + (n - 1) r. */
START_TEST(csv_last_end_is_makespan_and_waits_match)
{
    const int n = 8;
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *path = tmp_path(dir, "p.csv");
    AttnJob job = sim_job_default();
    job.wl.n_sm = job.wl.kv_tiles = job.wl.q_tiles = n;
    job.csv_path = path;
    AttnResult res;
    SimError err = { 0 };
    ck_assert_int_eq(sim_job_run(&job, &res, &err), SIM_OK);
    char *text;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    char **lines = g_strsplit(text, "\n", -1);
    int64_t rows = 0, last_end = 0, wait_sum = 0, header = -1;
    for (int i = 0; lines[i] && lines[i][0]; i++) {
        if (lines[i][0] == '#')
            continue;
        if (header < 0) {
            ck_assert_str_eq(lines[i], "op,cta,sm,head,kv,q,rank,phase,engine,start_ns,end_ns,wait_ns,critical");
            header = i;
            continue;
        }
        char **f = g_strsplit(lines[i], ",", -1);
        ck_assert_int_eq(g_strv_length(f), 13);
        int64_t kv = atoll(f[4]), q = atoll(f[5]), end = atoll(f[10]), wait = atoll(f[11]);
        bool is_first_reduce = strcmp(f[7], "reduce") == 0 && q == 0;
        ck_assert_int_eq(wait, is_first_reduce ? kv * 500 : 0);
        last_end = MAX(last_end, end);
        wait_sum += wait;
        rows++;
        g_strfreev(f);
    }
    ck_assert_int_eq(rows, 2 * n * n);
    ck_assert_int_eq(last_end, res.a.makespan_ns);
    ck_assert_int_eq(last_end, n * 1500 + (n - 1) * 500);
    ck_assert_int_eq(wait_sum, 500 * n * (n - 1) / 2);
    g_strfreev(lines);
    g_free(text);
    sim_job_result_clear(&res);
    g_free(path);
    remove_dir(dir);
}
END_TEST

/* Labels of a fa3 run, given two ways: a labeller called per op, and templates with the plan's tasks as the
 * args table (whose labeller only counts the calls it gets). */
typedef struct {
    const Plan *plan;
    const SimProgram *prog;
    int calls;
} TemplateCtx;

static const SimRenderPhase test_phases[2 + SIM_OP_KIND_COUNT] = {
    { "compute", "C h", 0, 0 }, { "reduce", "R h", 0, 0 }, { "compute", "compute", -1, -1 },
    { "reduce", "reduce", -1, -1 }, { "vector", "vector", -1, -1 }, { "sync", "sync", -1, -1 },
    { "write", "write", -1, -1 },
};

static void test_phase_of(void *ctx, int64_t first, int64_t count, uint8_t *out)
{
    const TemplateCtx *t = ctx;
    for (int64_t op = first; op < first + count; op++) {
        SimOpKind kind = sim_op_kind(t->prog, op);
        out[op - first] = (uint8_t)(sim_op_task(t->prog, op) >= 0 && kind <= SIM_OP_REDUCE ? kind : 2 + kind);
    }
}

static void test_label(void *ctx, int64_t op, SimRenderLabel *out)
{
    TemplateCtx *t = ctx;
    t->calls++;
    int32_t task = sim_op_task(t->prog, op);
    if (task < 0 || sim_op_kind(t->prog, op) > SIM_OP_REDUCE)
        return;
    const PlanTask *pt = &t->plan->tasks[task];
    snprintf(out->name, sizeof out->name, "%s h%d", sim_op_kind(t->prog, op) ? "R" : "C", pt->head);
    out->group = pt->head;
    out->args[0] = pt->head, out->args[1] = pt->kv, out->args[2] = pt->q, out->args[3] = pt->rank;
}

/* The CSV and the trace from templates are the labeller's bytes, without one call to it; the op column
 * counts up through 9, 99 and 999 and the wait column is sim_render_waits_new's. */
START_TEST(templates_write_the_labellers_bytes)
{
    Run r;
    run_policy(&r, "fa3", 24, 1, MASK_FULL, REDUCE_SERIAL); /* 1152 ops */
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *paths[4], *texts[4];
    TemplateCtx by_call = { r.plan, r.prog, 0 }, by_template = by_call;
    SimRenderSpec spec[2] = { spec_of(&r), spec_of(&r) };
    for (int i = 0; i < 2; i++) {
        spec[i].arg_names[0] = "head", spec[i].arg_names[1] = "kv", spec[i].arg_names[2] = "q";
        spec[i].arg_names[3] = "rank", spec[i].label = test_label;
    }
    spec[0].label_ctx = &by_call, spec[1].label_ctx = &by_template;
    spec[1].phases = test_phases, spec[1].phase_count = 2 + SIM_OP_KIND_COUNT, spec[1].phase_of = test_phase_of;
    spec[1].task_args = (const int32_t *)r.plan->tasks, spec[1].task_arg_stride = 4;
    SimTraceOptions opt = { .has_flows = true };
    SimError err = { 0 };
    for (int i = 0; i < 4; i++) {
        paths[i] = tmp_path(dir, (const char *[]){ "a.csv", "b.csv", "a.json", "b.json" }[i]);
        ck_assert_int_eq(i < 2 ? sim_render_csv(&spec[i], paths[i], &err)
                               : sim_render_trace(&spec[i - 2], &opt, paths[i], &err), SIM_OK);
        ck_assert(g_file_get_contents(paths[i], &texts[i], NULL, NULL));
    }
    ck_assert_int_eq(by_template.calls, 0);
    ck_assert_int_eq(by_call.calls, 2 * r.prog->op_count);
    ck_assert_str_eq(texts[0], texts[1]);
    ck_assert_str_eq(texts[2], texts[3]);
    int64_t *wait = sim_render_waits_new(r.prog, &r.s);
    char **lines = g_strsplit(texts[1], "\n", -1);
    for (int64_t op = 0; op < r.prog->op_count; op++) {
        char **f = g_strsplit(lines[op + 1], ",", -1);
        ck_assert_int_eq(atoll(f[0]), op);
        ck_assert_int_eq(atoll(f[11]), wait[op]);
        g_strfreev(f);
    }
    g_strfreev(lines);
    g_free(wait);
    for (int i = 0; i < 4; i++)
        g_free(paths[i]), g_free(texts[i]);
    remove_dir(dir);
    run_free(&r);
}
END_TEST

/* wait = start - max(dispatch, previous op of the CTA on the engine, in-CTA edge sources). */
START_TEST(wait_counts_only_other_ctas)
{
    SimProgram *p = sim_program_new(2, 2);
    sim_program_add_cta(p, 0);
    int64_t a = sim_program_add_op(p, 0, SIM_OP_COMPUTE, 10, 0);
    int64_t b = sim_program_add_op(p, 1, SIM_OP_REDUCE, 5, 0);
    sim_program_add_edge(p, a, b, 0, SIM_EDGE_PHASE);
    sim_program_add_cta(p, 1);
    sim_program_add_op(p, 0, SIM_OP_COMPUTE, 3, 1);
    int64_t y = sim_program_add_op(p, 0, SIM_OP_REDUCE, 4, 1);
    sim_program_add_edge(p, a, y, 2, SIM_EDGE_ACCUM);
    sim_program_add_cta(p, 1);
    sim_program_add_op(p, 1, SIM_OP_COMPUTE, 1, 2);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    int64_t *wait = sim_render_waits_new(p, &s);
    const int64_t start[] = { 0, 10, 0, 12, 16 }, expected[] = { 0, 0, 0, 9, 0 };
    for (int op = 0; op < 5; op++) {
        ck_assert_int_eq(s.start_ns[op], start[op]);
        ck_assert_int_eq(wait[op], expected[op]);
    }
    g_free(wait);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

static bool file_starts_with(const char *path, const char *magic, size_t len)
{
    char *text;
    gsize size;
    bool ok = g_file_get_contents(path, &text, &size, NULL) && size >= len && memcmp(text, magic, len) == 0;
    g_free(text);
    return ok;
}

START_TEST(gantt_draws_png_and_svg)
{
    Run r;
    run_policy(&r, "fa3", 4, 2, MASK_FULL, REDUCE_ASYNC);
    SimRenderSpec spec = spec_of(&r);
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL);
    char *png = tmp_path(dir, "g.png"), *svg = tmp_path(dir, "g2.svg"), *gp = tmp_path(dir, "g.gp");
    char *dat = tmp_path(dir, "g.dat");
    SimError err = { 0 };
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ 0 }, png, &err), SIM_OK);
    ck_assert(file_starts_with(png, "\x89PNG\r\n", 6));
    ck_assert(file_starts_with(gp, "# Gantt chart", 13));
    ck_assert(file_starts_with(dat, "# idle", 6));
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ 0 }, svg, &err), SIM_OK);
    char *text;
    ck_assert(g_file_get_contents(svg, &text, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(text, "<svg"));
    g_free(text);
    ck_assert_int_eq(file_count(dir), 6);
    g_free(png), g_free(svg), g_free(gp), g_free(dat);
    remove_dir(dir);
    run_free(&r);
}
END_TEST

/* 5 SMs, at most 2 rows: every 3rd SM (0 and 3) is drawn and the caption says so. */
START_TEST(gantt_samples_rows_above_the_threshold)
{
    Run r;
    run_policy(&r, "shift", 5, 1, MASK_FULL, REDUCE_SERIAL);
    SimRenderSpec spec = spec_of(&r);
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *png = tmp_path(dir, "g.png");
    char *gp = tmp_path(dir, "g.gp"), *dat = tmp_path(dir, "g.dat");
    SimError err = { 0 };
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ .max_rows = 2 }, png, &err), SIM_OK);
    char *text;
    ck_assert(g_file_get_contents(gp, &text, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(text, "every 3rd SM drawn (2 of 5)"));
    ck_assert_ptr_nonnull(strstr(text, "set ytics (\"SM 0\" 0, \"SM 3\" 1)"));
    g_free(text);
    ck_assert(g_file_get_contents(dat, &text, NULL, NULL));
    /* blocks: idle (one line per drawn row), compute (2 SMs x 5 tasks), reductions, critical path */
    char **blocks = g_strsplit(text, "\n\n\n", -1);
    ck_assert_uint_eq(g_strv_length(blocks), 5);
    const char *title[] = { "# idle", "# compute", "# reductions", "# critical path" };
    const int lines[] = { 1 + 2, 1 + 2 * 5, 1 + 2 * 5, -1 };
    for (int i = 0; i < 4; i++) {
        ck_assert(g_str_has_prefix(blocks[i], title[i]));
        char **l = g_strsplit(blocks[i], "\n", -1);
        if (lines[i] >= 0)
            ck_assert_int_eq(g_strv_length(l), lines[i]);
        g_strfreev(l);
    }
    g_strfreev(blocks);
    g_free(text);
    g_free(png), g_free(gp), g_free(dat);
    remove_dir(dir);
    run_free(&r);
}
END_TEST

/* One unit of 2400 ops of 1 ns, compute and reduction in turn: boxes of 0.46 px, so a raster of 5 lines.
 * Pixel column 0 spans [0, 2) ns (2400 * 1 / 1100), one op of each kind: their colours' mean, rounded, on
 * every line but the middle one, the stripe, blended halfway to black (op 0 is critical: half the column's
 * time); the last column, past the ops, idle grey; the gaps between rows are white rectangles over it. */
START_TEST(gantt_rasters_boxes_below_a_pixel)
{
    SimProgram *p = sim_program_new(1, 1);
    sim_program_add_cta(p, -1);
    for (int i = 0; i < 2400; i++)
        sim_program_add_op(p, 0, i % 2 ? SIM_OP_REDUCE : SIM_OP_COMPUTE, 1, i);
    sim_program_seal(p);
    SimSchedule s = { 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    s.makespan_ns = 2500; /* a last stretch with no op: idle */
    uint8_t critical[2400] = { 1 };      /* op 0 only: half of column 0's time */
    SimAnalysis a = { .is_critical = critical };
    SimRenderSpec spec = { .program = p, .schedule = &s, .analysis = &a, .unit_name = "SM" };
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *png = tmp_path(dir, "g.png");
    char *gp = tmp_path(dir, "g.gp"), *dat = tmp_path(dir, "g.dat");
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ 0 }, png, &err), SIM_OK);
    ck_assert(file_starts_with(png, "\x89PNG\r\n", 6));
    char *text;
    gsize len;
    ck_assert(g_file_get_contents(gp, &text, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(text, "datafile binary array=(1100,5) format='%uchar'"));
    ck_assert_ptr_nonnull(strstr(text, "set object 1 rect from 0,-0.55 to 2500,-0.45 fc rgb 'white'"));
    g_free(text);
    ck_assert(g_file_get_contents(dat, &text, &len, NULL));
    ck_assert_uint_eq(len, 3 * 1100 * 5);
    const uint8_t *px = (const uint8_t *)text;
    const uint32_t compute = 0x1f77b4, reduce = 0xff7f0e; /* palette by kind; a reduction gets its tint */
    for (int ch = 0; ch < 3; ch++) {
        uint32_t c = compute >> (16 - 8 * ch) & 0xff, r = ((reduce >> (16 - 8 * ch) & 0xff) + 0xff) / 2;
        for (int line = 0; line < 5; line++) { /* line 2, the stripe, halfway to black */
            uint32_t mean = (c + r + 1) / 2;
            ck_assert_uint_eq(px[3 * 1100 * line + ch], line == 2 ? (mean + 1) / 2 : mean); /* column 0 */
            ck_assert_uint_eq(px[3 * 1100 * line + 3 * 1099 + ch], 0xe8);                  /* the last: idle */
        }
    }
    g_free(text);
    g_free(png), g_free(gp), g_free(dat);
    remove_dir(dir);
    sim_schedule_clear(&s);
    sim_program_free(p);
}
END_TEST

START_TEST(gantt_errors_leave_no_file)
{
    Run r;
    run_policy(&r, "fa3", 4, 1, MASK_FULL, REDUCE_SERIAL);
    SimRenderSpec spec = spec_of(&r);
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *png = tmp_path(dir, "g.png");
    char *jpg = tmp_path(dir, "g.jpg"), *quote = tmp_path(dir, "it's.png");
    SimError e1 = { 0 }, e2 = { 0 }, e3 = { 0 }, e4 = { 0 }, e5 = { 0 };
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ 0 }, jpg, &e1), SIM_ERR_USAGE);
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ 0 }, quote, &e2), SIM_ERR_USAGE);
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ .max_boxes = 3 }, png, &e3), SIM_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(e3.msg, "boxes, over the cap of 3; use --trace"));
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ .gnuplot = "/nonexistent/gnuplot" }, png, &e4),
                     SIM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(e4.msg, "cannot run /nonexistent/gnuplot"));
    ck_assert_int_eq(sim_render_gantt(&spec, &(SimGanttOptions){ .gnuplot = "false" }, png, &e5), SIM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(e5.msg, "false failed to draw"));
    ck_assert_int_eq(file_count(dir), 0);
    g_free(png), g_free(jpg), g_free(quote);
    remove_dir(dir);
    run_free(&r);
}
END_TEST

/* sim_format_i64 and sim_format_us against printf on edges (powers of ten and two, their neighbours, the
 * extremes) and pseudo-random values of every length; the writer's JSON strings against the stream's. */
START_TEST(writer_formats_as_printf)
{
    char a[64], b[64];
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 400000; i++) {
        int64_t v;
        if (i < 3 * 64)
            v = (int64_t)((1ULL << (i / 3)) + (uint64_t)(i % 3) - 1);
        else if (i < 3 * 64 + 3 * 19) {
            uint64_t p10 = 1;
            for (int k = 0; k < (i - 3 * 64) / 3; k++)
                p10 *= 10;
            v = (int64_t)(p10 + (uint64_t)((i - 3 * 64) % 3) - 1);
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v = (int64_t)(x >> (x % 64));
        }
        for (int sign = 0; sign < 2; sign++, v = v == INT64_MIN ? INT64_MAX : -v) {
            *sim_format_i64(a, v) = '\0';
            snprintf(b, sizeof b, "%" G_GINT64_FORMAT, v);
            ck_assert_str_eq(a, b);
            *sim_format_us(a, v) = '\0'; /* negative counts too, in printf's odd form */
            snprintf(b, sizeof b, "%" G_GINT64_FORMAT ".%03" G_GINT64_FORMAT, v / 1000, v % 1000);
            ck_assert_str_eq(a, b);
        }
    }
    *sim_format_i64(a, INT64_MIN) = '\0';
    ck_assert_str_eq(a, "-9223372036854775808");
    static const char *const texts[] = { "", "C h0 kv3 q5", "say \"hi\"\\", "tab\there\x01\x1f", "\xc3\xa9t\xc3\xa9" };
    for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
        char *stream = NULL, *buffered = NULL;
        size_t len1 = 0, len2 = 0;
        FILE *f = open_memstream(&stream, &len1), *g = open_memstream(&buffered, &len2);
        sim_write_json_string(f, texts[i]);
        SimWriter w;
        sim_writer_init(&w, g);
        sim_writer_json_string(&w, texts[i]);
        ck_assert(sim_writer_done(&w));
        fclose(f), fclose(g);
        ck_assert_str_eq(stream, buffered);
        free(stream), free(buffered);
    }
}
END_TEST

/* sim_format_memo_near gives printf's bytes at p and in the memo, from near's text where v shares all but
 * its last four digits with it (near below 10000, blocks crossed, v below near, negatives and extremes
 * formatted), into near itself or another memo. */
START_TEST(memo_near_formats_as_printf)
{
    static const int64_t nears[] = { 0, 7, 9999, 10000, 10001, 19999, 98500, 99000, 123456, 999999, 6145500,
                                     1000000000000LL, INT64_MAX - 5 };
    static const int64_t steps[] = { 0, 1, 499, 500, 999, 1000, 1500, 9999, 10000, 123456, -1, -500, -10000 };
    char a[64], b[64];
    for (size_t i = 0; i < G_N_ELEMENTS(nears); i++)
        for (size_t j = 0; j < G_N_ELEMENTS(steps); j++)
            for (int is_self = 0; is_self < 2; is_self++) {
                SimFormatMemo near = SIM_FORMAT_MEMO_ZERO, other = SIM_FORMAT_MEMO_ZERO;
                near.value = nears[i];
                near.len = (size_t)(sim_format_i64(near.text, nears[i]) - near.text);
                bool is_over = steps[j] > 0 && nears[i] > INT64_MAX - steps[j]; /* near + step past INT64_MAX */
                int64_t v = is_over ? nears[i] : nears[i] + steps[j];           /* (the nears are not negative) */
                SimFormatMemo *m = is_self ? &near : &other;
                *sim_format_memo_near(a, m, &near, v) = '\0';
                snprintf(b, sizeof b, "%" G_GINT64_FORMAT, v);
                ck_assert_str_eq(a, b);
                ck_assert_int_eq(m->value, v);
                ck_assert_int_eq(m->len, strlen(b));
                ck_assert(memcmp(m->text, b, m->len) == 0);
                /* the memo then gives the same text through sim_format_memo */
                *sim_format_memo(a, m, v) = '\0';
                ck_assert_str_eq(a, b);
            }
}
END_TEST

/* A random program for trace_is_printf_bytes: units x 2 engines, CTAs of 1 to 12 ops with durations that
 * repeat, vary and cross 10 us boundaries (zero-length ops too), tasks of 1 to 3 adjacent ops (some ops of
 * none), edges within a CTA and across CTAs with latency. is_long: some durations of 8 to 12 digits, so
 * that times cross 10^8, 10^9 and 10^12 ns (the widths where a slice's number is written in 2, 3 and more
 * words of four digits). */
static SimProgram *random_program(GRand *rng, int units, int ctas, bool is_long, int64_t *task_count)
{
    static const int64_t short_durations[] = { 0, 1, 7, 500, 1000, 1000, 1500, 9999, 10001, 12345, 500, 1000 };
    static const int64_t long_durations[] = { 0, 1, 1000, 1500, 99999999, 100000000, 123456789, 999999999999,
                                              1000, 500, 10001, 7 };
    const int64_t *durations = is_long ? long_durations : short_durations;
    _Static_assert(sizeof short_durations == sizeof long_durations, "both tables hold as many");
    SimProgram *p = sim_program_new(units, 2);
    int32_t next_task = 0;
    int64_t ops_before = 0;
    for (int c = 0; c < ctas; c++) {
        sim_program_add_cta(p, -1);
        int n = g_rand_int_range(rng, 1, 13), left_in_task = 0;
        int32_t task = -1;
        for (int i = 0; i < n; i++) {
            if (left_in_task-- <= 0) {
                left_in_task = g_rand_int_range(rng, 0, 3);
                task = g_rand_int_range(rng, 0, 5) ? next_task++ : -1;
            }
            int64_t d = durations[g_rand_int_range(rng, 0, G_N_ELEMENTS(short_durations))];
            SimOpKind kind = (SimOpKind[]){ SIM_OP_COMPUTE, SIM_OP_REDUCE, SIM_OP_SYNC }[g_rand_int_range(rng, 0, 3)];
            int64_t op = sim_program_add_op(p, g_rand_int_range(rng, 0, 2), kind, d, task);
            if (i > 0 && g_rand_int_range(rng, 0, 2))
                sim_program_add_edge(p, op - 1 - g_rand_int_range(rng, 0, i), op, 0, SIM_EDGE_PHASE);
            if (ops_before > 0 && g_rand_int_range(rng, 0, 4) == 0)
                sim_program_add_edge(p, g_rand_int_range(rng, 0, (int32_t)ops_before), op,
                                     g_rand_int_range(rng, 0, 3000), SIM_EDGE_ACCUM);
        }
        ops_before += n;
    }
    sim_program_seal(p);
    *task_count = next_task;
    return p;
}

/* Phases of the random program's ops: compute named by arg 0, reduction by arg 1 (its number), sync by arg
 * 5 (past the args: always 0), ops of no task by their kind alone. */
static const SimRenderPhase random_phases[] = {
    { "compute", "C h", 0, 0 }, { "reduce", "R kv", 1, 1 }, { "sync", "S", 5, -1 }, { "idle \"x\"", "none", -1, -1 },
};

static int random_phase(const SimProgram *p, int64_t op)
{
    SimOpKind kind = sim_op_kind(p, op);
    return sim_op_task(p, op) < 0 ? 3 : kind == SIM_OP_COMPUTE ? 0 : kind == SIM_OP_REDUCE ? 1 : 2;
}

static void random_phase_of(void *ctx, int64_t first, int64_t count, uint8_t *out)
{
    for (int64_t op = first; op < first + count; op++)
        out[op - first] = (uint8_t)random_phase(ctx, op);
}

/* printf's slice of op, as the trace's documentation (render.h) gives it, for the random program's spec. */
static void reference_slice(GString *out, const SimRenderSpec *spec, int64_t op, int64_t wait)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    int64_t start = s->start_ns[op], end = sim_schedule_end_ns(p, s, op), task = sim_op_task(p, op);
    int64_t args[4] = { 0 };
    for (int i = 0; i < 3 && task >= 0; i++) /* task_arg_stride 3: the fourth arg is 0 */
        args[i] = spec->task_args[task * 3 + i];
    const SimRenderPhase *ph = &spec->phases[random_phase(spec->program, op)];
    bool is_critical = spec->analysis->is_critical[op];
    g_string_append_printf(out, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%" G_GINT64_FORMAT ",\"ts\":%" G_GINT64_FORMAT
                           ".%03" G_GINT64_FORMAT ",\"dur\":%" G_GINT64_FORMAT ".%03" G_GINT64_FORMAT ",\"name\":\"%s",
                           (int64_t)s->cta_unit[sim_op_cta(p, op)] * 2 + sim_op_engine(p, op) + 1, start / 1000,
                           start % 1000, (end - start) / 1000, (end - start) % 1000, ph->name);
    if (ph->name_arg >= 0)
        g_string_append_printf(out, "%" G_GINT64_FORMAT, ph->name_arg < 4 ? args[ph->name_arg] : 0);
    g_string_append_printf(out, "\",\"cat\":\"%s\"%s,\"args\":{\"head\":%" G_GINT64_FORMAT ",\"kv\":%"
                           G_GINT64_FORMAT ",\"q \\\"with a long key, over 32 bytes\\\"\":%" G_GINT64_FORMAT
                           ",\"rank\":%" G_GINT64_FORMAT ",\"op\":%" G_GINT64_FORMAT ",\"cta\":%d,\"start_ns\":%"
                           G_GINT64_FORMAT ",\"end_ns\":%" G_GINT64_FORMAT ",\"wait_ns\":%" G_GINT64_FORMAT
                           ",\"critical\":%s}}", strcmp(ph->phase, "idle \"x\"") ? ph->phase : "idle \\\"x\\\"",
                           is_critical ? ",\"cname\":\"terrible\"" : "", args[0], args[1], args[2], args[3], op,
                           sim_op_cta(p, op), start, end, wait, is_critical ? "true" : "false");
}

/* One round of the printf tests: a random program run, its tasks' args (3 a task, changing at any position
 * from one task to the next) and random critical marks. */
typedef struct {
    SimProgram *p;
    SimSchedule s;
    int32_t *rows;
    SimAnalysis a;
} RandomRun;

static void random_run_init(RandomRun *r, GRand *rng, int round)
{
    int64_t tasks;
    r->p = random_program(rng, 3 + round % 3, 10 + 10 * (round % 20), round >= 20, &tasks);
    r->s = (SimSchedule){ 0 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_engine_run(r->p, &r->s, &err), SIM_OK);
    r->rows = g_new(int32_t, 3 * tasks + 3);
    for (int64_t i = 0; i < 3 * tasks; i++)
        r->rows[i] = g_rand_int_range(rng, 0, 3) ? (int32_t)(i < 3 ? 0 : r->rows[i - 3]) : g_rand_int_range(rng, 0, 100001);
    r->a = (SimAnalysis){ .is_critical = g_new0(uint8_t, r->p->op_count) };
    for (int64_t op = 0; op < r->p->op_count; op++)
        r->a.is_critical[op] = (uint8_t)g_rand_int_range(rng, 0, 2);
}

static void random_run_clear(RandomRun *r)
{
    g_free(r->rows), g_free(r->a.is_critical);
    sim_schedule_clear(&r->s);
    sim_program_free(r->p);
}

/* got and want line by line: the first line that differs, alone. */
static void assert_same_lines(const char *got, const char *want)
{
    char **got_lines = g_strsplit(got, "\n", -1), **want_lines = g_strsplit(want, "\n", -1);
    for (int i = 0; got_lines[i] || want_lines[i]; i++)
        ck_assert_str_eq(got_lines[i] ? got_lines[i] : "(none)", want_lines[i] ? want_lines[i] : "(none)");
    g_strfreev(got_lines), g_strfreev(want_lines);
}

/* Runs 26 random programs (seed): render writes round's output to path and its expected text to want; the
 * file's part that part() picks (NULL: all of it) must equal want line by line. */
typedef void (*PrintfRender)(RandomRun *r, int round, const char *path, GString *want);
static void printf_rounds(guint32 seed, const char *file, PrintfRender render, char *(*part)(char *text))
{
    GRand *rng = g_rand_new_with_seed(seed);
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *path = tmp_path(dir, file);
    for (int round = 0; round < 26; round++) {
        RandomRun r;
        random_run_init(&r, rng, round);
        GString *want = g_string_new("");
        render(&r, round, path, want);
        char *text;
        ck_assert(g_file_get_contents(path, &text, NULL, NULL));
        assert_same_lines(part ? part(text) : text, want->str);
        g_free(text), g_string_free(want, TRUE);
        random_run_clear(&r);
    }
    g_rand_free(rng);
    g_free(path);
    remove_dir(dir);
}

static void render_trace_round(RandomRun *r, int round, const char *path, GString *want)
{
    (void)round;
    SimRenderSpec spec = { .program = r->p, .schedule = &r->s, .analysis = &r->a, .unit_name = "SM",
                           .arg_names = { "head", "kv", "q \"with a long key, over 32 bytes\"", "rank" },
                           .phases = random_phases, .phase_count = 4, .phase_of = random_phase_of,
                           .label_ctx = r->p, .task_args = r->rows, .task_arg_stride = 3 };
    SimError err = { 0 };
    ck_assert_int_eq(sim_render_trace(&spec, &(SimTraceOptions){ 0 }, path, &err), SIM_OK);
    int64_t *wait = sim_render_waits_new(r->p, &r->s), slices = 0;
    for (int64_t op = 0; op < r->p->op_count; op++)
        if (sim_schedule_end_ns(r->p, &r->s, op) > r->s.start_ns[op])
            reference_slice(want, &spec, op, wait[op]), slices++;
    ck_assert_int_gt(slices, 10);
    g_free(wait);
}

/* The trace's slices: from the first slice to the closing bracket. */
static char *trace_slices(char *text)
{
    char *first = strstr(text, ",\n{\"ph\":\"X\""), *last = strstr(text, "\n]}\n");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_nonnull(last);
    *last = '\0';
    return first;
}

/* The trace's slices are printf's bytes of the documented format, slice by slice, on random programs whose
 * repeats the writer copies rather than formats (a task's args changing at each arg, starts at the end just
 * written on the engine or not, durations repeating or new, times crossing 10 us boundaries, a long and
 * escaped arg key, a name's arg past the args, critical slices or not). */
START_TEST(trace_is_printf_bytes)
{
    printf_rounds(35, "t.json", render_trace_round, trace_slices);
}
END_TEST

/* The labeller of csv_is_printf_bytes: the random programs' templates as a call (phase and args). */
typedef struct {
    const SimProgram *p;
    const int32_t *rows;
} RandomLabels;

static void random_label(void *ctx, int64_t op, SimRenderLabel *out)
{
    const RandomLabels *l = ctx;
    int64_t task = sim_op_task(l->p, op);
    out->phase = random_phases[random_phase(l->p, op)].phase;
    for (int i = 0; i < 3; i++)
        out->args[i] = task >= 0 ? l->rows[task * 3 + i] : 0;
}

/* printf's row of op, as the CSV's documentation (render.h) gives it, for the random program's spec. */
static void reference_row(GString *out, const SimRenderSpec *spec, const int32_t *rows, int64_t op, int64_t wait)
{
    const SimProgram *p = spec->program;
    const SimSchedule *s = spec->schedule;
    int64_t task = sim_op_task(p, op), args[4] = { 0 };
    for (int i = 0; i < 3 && task >= 0; i++)
        args[i] = rows[task * 3 + i];
    int k = random_phase(p, op);
    int32_t cta = sim_op_cta(p, op);
    g_string_append_printf(out, "%" G_GINT64_FORMAT ",%d,%d,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                           ",%" G_GINT64_FORMAT ",%s,%d,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%d\n",
                           op, cta, s->cta_unit[cta], args[0], args[1], args[2], args[3], random_phases[k].phase,
                           sim_op_engine(p, op), s->start_ns[op], sim_schedule_end_ns(p, s, op), wait,
                           spec->analysis && spec->analysis->is_critical[op]);
}

static void render_csv_round(RandomRun *r, int round, const char *path, GString *want)
{
    RandomLabels labels = { r->p, r->rows };
    bool is_labeller = round % 2, has_marks = round % 4 < 2;
    SimRenderSpec spec = { .program = r->p, .schedule = &r->s, .analysis = has_marks ? &r->a : NULL,
                           .unit_column = "sm", .arg_names = { "head", "kv", "q", "rank" } };
    if (is_labeller)
        spec.label = random_label, spec.label_ctx = &labels;
    else
        spec.phases = random_phases, spec.phase_count = 4, spec.phase_of = random_phase_of, spec.label_ctx = r->p,
        spec.task_args = r->rows, spec.task_arg_stride = 3;
    SimError err = { 0 };
    ck_assert_int_eq(sim_render_csv(&spec, path, &err), SIM_OK);
    g_string_append(want, "op,cta,sm,head,kv,q,rank,phase,engine,start_ns,end_ns,wait_ns,critical\n");
    int64_t *wait = sim_render_waits_new(r->p, &r->s);
    for (int64_t op = 0; op < r->p->op_count; op++)
        reference_row(want, &spec, r->rows, op, wait[op]);
    g_free(wait);
}

/* The CSV's rows are printf's bytes, row by row, on the random programs of trace_is_printf_bytes, through the
 * templates and through a labeller, with critical marks and without: the parts a row keeps from the rows
 * before (a CTA's columns, a task's args changing at any position, a phase's columns on either engine, the op
 * counter, times of up to 13 digits) are those a row written anew would have. */
START_TEST(csv_is_printf_bytes)
{
    printf_rounds(36, "t.csv", render_csv_round, NULL);
}
END_TEST

/* The copying formatters give sim_format_i64's and sim_format_us's bytes: a counter stepped from 0 past
 * 99999, a memo fed repeats and changes, microseconds from a count's own text. */
START_TEST(memo_counter_and_text_us_format_as_printf)
{
    char a[64], b[64];
    SimFormatCounter n = { "0", 1 };
    SimFormatMemo m = SIM_FORMAT_MEMO_ZERO;
    for (int64_t v = 0; v < 120000; v++, sim_format_counter_step(&n)) {
        snprintf(b, sizeof b, "%" G_GINT64_FORMAT, v);
        ck_assert_int_eq(n.len, strlen(b));
        ck_assert(memcmp(n.digits, b, n.len) == 0);
        int64_t repeated = v / 3 - 20000; /* each value three times, negative ones too */
        *sim_format_memo(a, &m, repeated) = '\0';
        snprintf(b, sizeof b, "%" G_GINT64_FORMAT, repeated);
        ck_assert_str_eq(a, b);
        int64_t ns = v * v % 1000003 + (v < 2000 ? 0 : v * 1000); /* short counts and long ones */
        char text[24];
        size_t len = (size_t)(sim_format_i64(text, ns) - text);
        *sim_format_us_of_text(a, text, len) = '\0';
        *sim_format_us(b, ns) = '\0';
        ck_assert_str_eq(a, b);
    }
    *sim_format_memo(a, &SIM_FORMAT_MEMO_ZERO, 0) = '\0'; /* the starting memo holds 0, and its text */
    ck_assert_str_eq(a, "0");
}
END_TEST

/* Two processes in one file (sim perfetto's measured run and model): each its own pid, name and tracks,
 * slices split between them, flow ids unique across the file, the file's metadata the first's with the
 * version first and its integers as numbers. */
START_TEST(trace_set_two_processes)
{
    Run a, b;
    run_policy(&a, "fa3", 4, 2, MASK_FULL, REDUCE_ASYNC);
    run_policy(&b, "shift", 4, 2, MASK_FULL, REDUCE_ASYNC);
    SimRenderMeta meta[] = { { "policy", "fa3" }, { "n_sm", "4" }, { "padded", "04" } };
    SimRenderSpec specs[2] = { spec_of(&a), spec_of(&b) };
    specs[0].device = "first", specs[1].device = "second";
    specs[0].meta = meta, specs[0].meta_count = 3;
    char *dir = g_dir_make_tmp("render-XXXXXX", NULL), *path = tmp_path(dir, "two.json");
    SimError err = { 0 };
    SimTraceOptions opt = { .has_flows = true };
    ck_assert_int_eq(sim_render_trace_set(specs, 2, &opt, path, &err), SIM_OK);
    cJSON *j = parse_file(path);
    const cJSON *m = item(j, "metadata"), *ev;
    ck_assert_str_eq(m->child->string, "dashsim_version");
    ck_assert(cJSON_IsNumber(item(m, "n_sm")) && cJSON_IsString(item(m, "padded")));
    int64_t slices[3] = { 0 }, flows = 0;
    GHashTable *ids = g_hash_table_new(g_int64_hash, g_int64_equal);
    int64_t *keys = g_new(int64_t, cJSON_GetArraySize(item(j, "traceEvents")));
    cJSON_ArrayForEach(ev, item(j, "traceEvents")) {
        int pid = (int)item(ev, "pid")->valuedouble;
        const char *ph = item(ev, "ph")->valuestring, *name = item(ev, "name")->valuestring;
        ck_assert(pid == 1 || pid == 2);
        if (!strcmp(name, "process_name"))
            ck_assert_str_eq(item(item(ev, "args"), "name")->valuestring, pid == 1 ? "first" : "second");
        slices[pid] += !strcmp(ph, "X");
        if (!strcmp(ph, "s")) { /* one "s" per arrow: its id is new to the file */
            keys[flows] = (int64_t)item(ev, "id")->valuedouble;
            ck_assert(!g_hash_table_contains(ids, &keys[flows]));
            g_hash_table_add(ids, &keys[flows++]);
        }
    }
    ck_assert_int_gt(slices[1], 0);
    ck_assert_int_gt(slices[2], 0);
    ck_assert_int_gt(flows, 0);
    g_hash_table_destroy(ids), g_free(keys);
    cJSON_Delete(j);
    g_free(path), remove_dir(dir);
    run_free(&a), run_free(&b);
}
END_TEST

Suite *suite_render(void)
{
    Suite *s = suite_create("render");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, writer_formats_as_printf);
    tcase_add_test(tc, memo_counter_and_text_us_format_as_printf);
    tcase_add_test(tc, memo_near_formats_as_printf);
    tcase_add_test(tc, trace_parses_and_no_slices_overlap);
    tcase_add_test(tc, trace_estimate_and_cap);
    tcase_add_test(tc, trace_set_two_processes);
    tcase_add_test(tc, csv_last_end_is_makespan_and_waits_match);
    tcase_add_test(tc, csv_is_printf_bytes);
    tcase_add_test(tc, wait_counts_only_other_ctas);
    tcase_add_test(tc, templates_write_the_labellers_bytes);
    tcase_add_test(tc, trace_is_printf_bytes);
    tcase_add_test(tc, gantt_draws_png_and_svg);
    tcase_add_test(tc, gantt_samples_rows_above_the_threshold);
    tcase_add_test(tc, gantt_rasters_boxes_below_a_pixel);
    tcase_add_test(tc, gantt_errors_leave_no_file);
    suite_add_tcase(s, tc);
    return s;
}

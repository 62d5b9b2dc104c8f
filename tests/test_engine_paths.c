/* The event queue's ring pops in the heap's (time, sequence) order, and the engine's two paths give the
 * same schedule op for op: the fast path (engine_ordered.h), where it
 * applies, against the event engine (sim_engine_run_events) on every registered policy and each mask it
 * supports, serial and async, several shapes, equal and unequal per-op durations, block-mask plans (the
 * hand-made orders and a search's), and random programs; and the fast path turns down what it cannot
 * reproduce (back edges under the block scheduler, a load model, zero-length CTAs). */
#include "analyze.h"
#include "engine_ordered.h"
#include "event_queue.h"
#include "mask.h"
#include "pipeline.h"
#include "policy.h"
#include "search.h"
#include "tests.h"

#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

/* Schedules a and b are the same, field by field. */
static void assert_same(const SimProgram *p, const SimSchedule *a, const SimSchedule *b, const char *what)
{
    ck_assert_msg(a->makespan_ns == b->makespan_ns, "%s: makespan %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT,
                  what, a->makespan_ns, b->makespan_ns);
    for (int64_t op = 0; op < p->op_count; op++)
        ck_assert_msg(a->start_ns[op] == b->start_ns[op] && sim_schedule_end_ns(p, a, op) == sim_schedule_end_ns(p, b, op),
                      "%s: op %" G_GINT64_FORMAT " [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") vs [%" G_GINT64_FORMAT
                      ", %" G_GINT64_FORMAT ")", what, op, a->start_ns[op], sim_schedule_end_ns(p, a, op), b->start_ns[op], sim_schedule_end_ns(p, b, op));
    for (int32_t c = 0; c < p->cta_count; c++)
        ck_assert_msg(a->cta_unit[c] == b->cta_unit[c] && a->cta_dispatch_ns[c] == b->cta_dispatch_ns[c] &&
                      a->cta_end_ns[c] == b->cta_end_ns[c], "%s: CTA %d on unit %d at %" G_GINT64_FORMAT " vs unit %d at %"
                      G_GINT64_FORMAT, what, c, a->cta_unit[c], a->cta_dispatch_ns[c], b->cta_unit[c], b->cta_dispatch_ns[c]);
}

static int deadlocks; /* programs the event engine found deadlocked */
static int64_t recorded; /* fast-path schedules that recorded what set each start */
static int64_t event_recorded; /* event-engine schedules that did */

/* The analysis of s, a fast-path schedule with start_by (its forward pass skipped), equals the one through
 * dag/'s graph (a DOT spec forces it): critical path, Lemma 1, the walk's breakdown, every op's slack. */
static void assert_recorded_analysis(const SimProgram *p, const SimSchedule *s, const char *what)
{
    SimAnalysis fast, graph;
    SimError err = { 0 };
    FILE *null = fopen("/dev/null", "w");
    SimDotSpec dot = { .f = null };
    ck_assert_int_eq(sim_analyze(p, s, &fast, NULL, &err), SIM_OK);
    ck_assert_int_eq(sim_analyze(p, s, &graph, &dot, &err), SIM_OK);
    fclose(null);
    ck_assert_msg(fast.critical_path_ns == graph.critical_path_ns && fast.lemma1_violations == graph.lemma1_violations,
                  "%s: critical path %" G_GINT64_FORMAT " vs %" G_GINT64_FORMAT ", Lemma 1 %" G_GINT64_FORMAT " vs %"
                  G_GINT64_FORMAT, what, fast.critical_path_ns, graph.critical_path_ns, fast.lemma1_violations,
                  graph.lemma1_violations);
    for (int i = 0; i < BREAK_COUNT; i++)
        ck_assert_msg(fast.breakdown_ns[i] == graph.breakdown_ns[i], "%s: breakdown part %d", what, i);
    for (int64_t op = 0; op < p->op_count; op++)
        ck_assert_msg(fast.is_critical[op] == graph.is_critical[op], "%s: op %" G_GINT64_FORMAT " critical", what, op);
    sim_analysis_clear(&fast), sim_analysis_clear(&graph);
}

/* s->start_by names a predecessor that meets each op's start, and none earlier in the edge-id order does. */
static void assert_start_by(const SimProgram *p, const SimSchedule *s, const char *what)
{
    for (int64_t op = 0; op < p->op_count; op++) {
        int32_t c = sim_op_cta(p, op);
        int64_t start = s->start_ns[op], first = -1, prev = -1; /* first: the code of the first one meeting it */
        for (int64_t u = p->ctas[c].op_begin; u < op; u++)
            if (sim_program_next_on_engine(p, u) == op)
                prev = u;
        if (prev >= 0 && sim_schedule_end_ns(p, s, prev) == start)
            first = SIM_START_BY_ENGINE;
        for (int64_t k = sim_program_in_begin(p, op); first < 0 && k < sim_program_in_end(p, op); k++) {
            int64_t e = sim_program_in_edge(p, k), u = sim_edge_from(p, e);
            if (sim_schedule_end_ns(p, s, u) + sim_engine_edge_latency(p, s, e) == start)
                first = SIM_START_BY_EDGE + k - sim_program_in_begin(p, op);
        }
        if (first < 0 && prev < 0 && s->cta_dispatch_ns[c] == start)
            first = SIM_START_BY_DISPATCH;
        first = MIN(first, SIM_START_BY_EDGE_FAR); /* in-edges past the byte's range share one code */
        ck_assert_msg(first >= 0 && s->start_by[op] == first, "%s: op %" G_GINT64_FORMAT " start set by %d, recorded %d",
                      what, op, (int)first, s->start_by[op]);
    }
}

/* Whether the analysis may take an engine's start_by as is (engine.h): every edge forward, CTAs all pinned
 * or none. */
static bool is_recordable(const SimProgram *p)
{
    int32_t pinned = 0;
    for (int32_t c = 0; c < p->cta_count; c++)
        pinned += p->ctas[c].pinned_unit >= 0;
    for (int64_t e = 0; e < p->edge_count; e++)
        if (sim_edge_from(p, e) >= sim_edge_to(p, e))
            return false;
    return pinned == 0 || pinned == p->cta_count;
}

/* The event engine's start_by: recorded on its plain path (no end_ns) where is_recordable, else NULL; where
 * recorded, right (assert_start_by), the analysis's as through dag/, and the fast path's byte for byte. */
static void check_event_start_by(const SimProgram *p, const SimSchedule *events, const SimSchedule *fast,
                                 bool is_ok, const char *what)
{
    bool want = is_ok && !events->end_ns && is_recordable(p);
    ck_assert_msg(!events->start_by == !want, "%s: the event engine's start_by %s", what,
                  want ? "missing" : "where the analysis cannot take it");
    if (!events->start_by)
        return;
    assert_start_by(p, events, what);
    assert_recorded_analysis(p, events, what);
    event_recorded++;
    if (fast->start_by)
        ck_assert_msg(memcmp(events->start_by, fast->start_by, (size_t)p->op_count) == 0,
                      "%s: the event engine's start_by is not the fast path's", what);
}

/* Runs p both ways (and through sim_engine_run) and compares; returns whether the fast path took it. */
static bool compare_paths(const SimProgram *p, const char *what)
{
    SimSchedule events = { 0 }, fast = { 0 }, chosen = { 0 };
    SimError err = { 0 }, err2 = { 0 };
    SimStatus st = sim_engine_run_events(p, &events, &err);
    bool is_fast = sim_engine_ordered_run(p, &fast);
    ck_assert_msg(!is_fast || st == SIM_OK, "%s: the fast path ran a schedule the event engine rejects", what);
    if (is_fast)
        assert_same(p, &events, &fast, what);
    ck_assert_msg(!fast.start_by == !is_fast || fast.order, "%s: start_by where the fast path ran in CTA order", what);
    if (fast.start_by) {
        assert_start_by(p, &fast, what);
        assert_recorded_analysis(p, &fast, what);
        recorded++;
    }
    check_event_start_by(p, &events, &fast, st == SIM_OK, what);
    ck_assert_int_eq(sim_engine_run(p, &chosen, &err2), st);
    deadlocks += st != SIM_OK;
    if (st == SIM_OK)
        assert_same(p, &events, &chosen, what);
    sim_schedule_clear(&events), sim_schedule_clear(&fast), sim_schedule_clear(&chosen);
    return is_fast;
}

/* Durations that differ per op (a test's change to a sealed program: the engine reads them per op). */
static void vary_durations(SimProgram *p, uint32_t seed)
{
    GRand *rng = g_rand_new_with_seed(seed);
    for (int64_t op = 0; op < p->op_count; op++)
        sim_program_set_duration(p, op, g_rand_int_range(rng, 0, 4) == 0 ? 0 : g_rand_int_range(rng, 1, 2000));
    g_rand_free(rng);
}

typedef struct {
    int n, heads, kv, q, ratio;
} Shape;

static const Shape shapes[] = { { 4, 1, 4, 4, 1 }, { 8, 3, 8, 8, 1 }, { 5, 2, 6, 12, 2 }, { 132, 2, 16, 16, 1 } };

/* The program without tasks (sim_attention_program_untasked) is a's program but for op_task, never made;
 * with a waited-reduction rule, which reads the tasks, it keeps them. */
static void assert_untasked_same(const Plan *plan, const AttnCosts *costs, const SimProgram *a, const char *what)
{
    AttnCosts waited = *costs;
    waited.waited.read_delta_ns = 7;
    SimProgram *b = sim_attention_program_untasked(plan, costs), *kept = sim_attention_program_untasked(plan, &waited);
    ck_assert_msg(!b->op_task && kept->op_task && a->op_task, "%s: tasks made where not asked, or missing", what);
    ck_assert(a->op_count == b->op_count && a->edge_count == b->edge_count && a->cta_count == b->cta_count);
    for (int64_t op = 0; op < a->op_count; op++)
        ck_assert_msg(sim_op_cta(a, op) == sim_op_cta(b, op) && sim_op_duration_ns(a, op) == sim_op_duration_ns(b, op) &&
                      sim_op_kind(a, op) == sim_op_kind(b, op) && sim_op_engine(a, op) == sim_op_engine(b, op) &&
                      sim_op_task(a, op) == sim_op_task(kept, op), "%s: op %" G_GINT64_FORMAT " differs", what, op);
    for (int64_t e = 0; e < a->edge_count; e++)
        ck_assert_msg(sim_edge_from(a, e) == sim_edge_from(b, e) && sim_edge_to(a, e) == sim_edge_to(b, e) &&
                      sim_edge_kind(a, e) == sim_edge_kind(b, e) && sim_edge_latency_ns(a, e) == sim_edge_latency_ns(b, e),
                      "%s: edge %" G_GINT64_FORMAT " differs", what, e);
    sim_program_free(b), sim_program_free(kept);
}

/* One plan under serial and async costs, fixed and varied durations; counts the cases the fast path took. */
static int compare_plan(const Plan *plan, const char *name, int *cases)
{
    int taken = 0;
    for (int k = 0; k < 6; k++) {
        AttnCosts costs = { .c_ns = 1000, .r_ns = 500, .latency_ns = k % 3 == 1 ? 0 : 300,
                            .reduce = k % 2 ? REDUCE_ASYNC : REDUCE_SERIAL, .dq_buffers = 1 + k / 4,
                            .cta_prologue_ns = k == 2 ? 150 : 0, .deposit_ns = k == 3 ? 40 : 0 };
        SimProgram *p = sim_attention_program(plan, &costs);
        assert_untasked_same(plan, &costs, p, plan->policy);
        if (k >= 4)
            vary_durations(p, (uint32_t)(k + 17 * plan->task_count));
        char what[160];
        snprintf(what, sizeof what, "%s, %s mask, %d SMs, costs %d", name, plan_mask_name(plan->wl.mask),
                 plan->wl.n_sm, k);
        taken += compare_paths(p, what);
        (*cases)++;
        sim_program_free(p);
    }
    return taken;
}

START_TEST(every_policy_and_mask_same_schedule)
{
    int cases = 0, taken = 0;
    for (int i = 0; i < policy_count(); i++)
        for (Mask mask = MASK_FULL; mask <= MASK_CAUSAL; mask++)
            for (size_t s = 0; s < G_N_ELEMENTS(shapes); s++) {
                const Shape *sh = &shapes[s];
                Workload wl = { .n_sm = sh->n, .heads = sh->heads, .kv_tiles = sh->kv, .q_tiles = sh->q,
                                .mask = mask, .tile_ratio = mask == MASK_CAUSAL ? sh->ratio : 1, .head_swizzle = 1 };
                SimError err = { 0 };
                Plan *plan = policy_build(policy_at(i), &wl, &err);
                if (!plan)
                    continue; /* the policy does not take this mask or shape */
                int t = compare_plan(plan, policy_at(i)->name, &cases);
                taken += t;
                /* Forward-edge policies take the fast path always; shift's rows run across CTAs of a wave */
                if (strcmp(policy_at(i)->name, "shift") == 0 && sh->n < sh->kv * sh->heads)
                    ck_assert_int_eq(t, 0);
                if (strcmp(policy_at(i)->name, "fa3") == 0 || strcmp(policy_at(i)->name, "symmetric-shift") == 0)
                    ck_assert_int_eq(t, 6);
                plan_free(plan);
            }
    ck_assert_int_gt(cases, 100);
    ck_assert_int_gt(taken, cases / 2);
    ck_assert_int_ge(event_recorded, recorded); /* the event engine records where the fast path does */
    ck_assert_int_gt(recorded, cases / 2);
}
END_TEST

START_TEST(block_mask_plans_same_schedule)
{
    static const char *const specs[] = { "window:3", "random:0.3:7", "document:5,7", "prefix:2" };
    int cases = 0, taken = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(specs); i++) {
        BlockMask m;
        SimError err = { 0 };
        ck_assert_int_eq(sim_mask_make(specs[i], 12, 12, &m, &err), SIM_OK);
        Workload wl = { .n_sm = 5, .heads = 3, .head_swizzle = 1 };
        sim_mask_apply(&m, &wl);
        AttnCosts costs = { .c_ns = 1000, .r_ns = 500, .latency_ns = 300, .dq_buffers = 1 };
        PolicyQuery q = sim_policy_query(&wl, &costs, 1); /* the search runs under these costs */
        for (int k = 0; k < policy_count(); k++) {
            if (!policy_supports(policy_at(k), &wl))
                continue;
            Plan *plan = policy_build_query(policy_at(k), &q, &err);
            ck_assert_ptr_nonnull(plan);
            taken += compare_plan(plan, policy_at(k)->name, &cases);
            plan_free(plan);
        }
        sim_mask_clear(&m);
    }
    ck_assert_int_gt(taken, 0);
}
END_TEST

START_TEST(pipeline_policies_same_schedule)
{
    int cases = 0, taken = 0;
    deadlocks = 0;
    for (int i = 0; i < pipe_policy_count(); i++)
        for (int n = 2; n <= 3; n++)
            for (int ring = 0; ring <= 2; ring++) {
                PipeWorkload wl = { .n_pairs = n, .blocks = 7, .n_cube = 1, .n_vector = 2, .ring_slots = ring };
                for (int j = 0; j < n; j++)
                    wl.c_ns[j] = 300 + 70 * j, wl.v_ns[j] = 500 - 90 * j;
                PipeCycle cy;
                SimError err = { 0 };
                if (pipe_policy_prepare(pipe_policy_at(i), &wl, &err) != SIM_OK ||
                    pipe_policy_build(pipe_policy_at(i), &wl, NULL, &cy, &err) != SIM_OK)
                    continue;
                SimProgram *p = pipe_program_new(&wl, &cy, NULL);
                taken += compare_paths(p, pipe_policy_at(i)->name);
                cases++;
                sim_program_free(p);
            }
    ck_assert_int_gt(cases, 5);
    ck_assert_int_eq(taken, cases - deadlocks); /* one CTA on one unit: its placement is known */
}
END_TEST

/* A random program: CTAs all pinned, all dispatched or mixed, one to three engines, zero-length ops,
 * latencies (and a unit matrix), edges forward or any way (then it may deadlock: both paths must say so). */
static SimProgram *random_program(GRand *rng, int pinning, bool is_forward)
{
    int32_t units = g_rand_int_range(rng, 1, 6), engines = g_rand_int_range(rng, 1, 4);
    SimProgram *p = sim_program_new(units, engines);
    int32_t ctas = g_rand_int_range(rng, 1, 14);
    for (int32_t c = 0; c < ctas; c++) {
        bool is_pinned = pinning == 1 || (pinning == 2 && g_rand_boolean(rng));
        sim_program_add_cta(p, is_pinned ? g_rand_int_range(rng, 0, units) : -1);
        for (int k = g_rand_int_range(rng, 1, 6); k > 0; k--)
            sim_program_add_op(p, g_rand_int_range(rng, 0, engines), SIM_OP_COMPUTE,
                               g_rand_int_range(rng, 0, 3) == 0 ? 0 : g_rand_int_range(rng, 1, 50), c);
    }
    for (int k = g_rand_int_range(rng, 0, (int32_t)p->op_count * 2); k > 0; k--) {
        int32_t a = g_rand_int_range(rng, 0, (int32_t)p->op_count), b = g_rand_int_range(rng, 0, (int32_t)p->op_count);
        if (is_forward && a >= b)
            continue;
        sim_program_add_edge(p, a, b, g_rand_int_range(rng, 0, 30),
                             g_rand_boolean(rng) ? SIM_EDGE_ACCUM : SIM_EDGE_DATA);
    }
    if (g_rand_boolean(rng)) {
        p->unit_latency_ns = g_new(int32_t, units * units);
        for (int32_t i = 0; i < units * units; i++)
            p->unit_latency_ns[i] = g_rand_int_range(rng, 0, 40);
    }
    sim_program_seal(p);
    return p;
}

START_TEST(random_programs_same_schedule)
{
    GRand *rng = g_rand_new_with_seed(20240611);
    int taken[3] = { 0 };
    for (int i = 0; i < 1500; i++) {
        int pinning = i % 3;
        SimProgram *p = random_program(rng, pinning, i % 2 == 0);
        char what[64];
        snprintf(what, sizeof what, "random program %d", i);
        bool is_fast = compare_paths(p, what);
        taken[pinning] += is_fast;
        int32_t pinned = 0;
        for (int32_t c = 0; c < p->cta_count; c++)
            pinned += p->ctas[c].pinned_unit >= 0;
        if (pinned > 0 && pinned < p->cta_count) /* some of each: the fast path does not model it */
            ck_assert(!is_fast);
        sim_program_free(p);
    }
    g_rand_free(rng);
    ck_assert_int_gt(recorded, 300); /* the CTA-order runs: start_by and the analysis that skips the forward pass */
    ck_assert_int_ge(event_recorded, recorded);
    ck_assert_int_gt(taken[0], 150); /* of 500 programs of each pinning */
    ck_assert_int_gt(taken[1], 250);
}
END_TEST

/* A random program of one engine a unit whose edges run in order of both ends (in_edge and out_edge NULL:
 * the event engine's lean loops), forward or not; else as random_program. The same seed, the same program. */
static SimProgram *random_lean_program(guint32 seed, int pinning, bool is_forward)
{
    GRand *rng = g_rand_new_with_seed(seed);
    int32_t units = g_rand_int_range(rng, 1, 6);
    SimProgram *p = sim_program_new(units, 1);
    for (int32_t c = 0, ctas = g_rand_int_range(rng, 1, 14); c < ctas; c++) {
        bool is_pinned = pinning == 1 || (pinning == 2 && g_rand_boolean(rng));
        sim_program_add_cta(p, is_pinned ? g_rand_int_range(rng, 0, units) : -1);
        for (int k = g_rand_int_range(rng, 1, 6); k > 0; k--)
            sim_program_add_op(p, 0, SIM_OP_COMPUTE, g_rand_int_range(rng, 0, 3) == 0 ? 0 : g_rand_int_range(rng, 1, 50), c);
    }
    int64_t from = 0, to = 0, latency = g_rand_int_range(rng, 0, 3) * 7; /* one latency: no per-edge array */
    while ((from += g_rand_int_range(rng, 0, 3)) < p->op_count) {
        int64_t t = to + g_rand_int_range(rng, 0, 4) - (is_forward ? 0 : 1);
        if (t >= p->op_count || (is_forward && t <= from) || t < to)
            continue;
        sim_program_add_edge(p, from, to = t, (int32_t)latency, SIM_EDGE_ACCUM);
    }
    sim_program_seal(p);
    g_rand_free(rng);
    return p;
}

/* The same program with a load model that changes nothing (no extra, no queue; its ops are not reductions): the
 * event engine's full path, which keeps every end and the order, against its plain loops (running ahead
 * where every edge runs forward, in time order else; lean or not): the same schedule, or the same deadlock. */
static void assert_full_path_same(SimProgram *a, SimProgram *b, const char *what)
{
    int32_t extra[] = { 0, 0 };
    SimLoadModel none = { .extra_ns = extra, .extra_len = 1, .issue_ppm = 1000000 };
    sim_program_set_load(b, &none);
    SimSchedule plain = { 0 }, full = { 0 };
    SimError err_plain = { 0 }, err_full = { 0 };
    SimStatus st = sim_engine_run_events(a, &plain, &err_plain);
    ck_assert_int_eq(sim_engine_run_events(b, &full, &err_full), st);
    ck_assert_msg(st != SIM_OK || (!plain.end_ns && full.end_ns), "%s: not the plain path against the full one", what);
    if (st == SIM_OK)
        assert_same(a, &plain, &full, what);
    else
        ck_assert_str_eq(err_plain.msg, err_full.msg);
    deadlocks += st != SIM_OK;
    sim_schedule_clear(&plain), sim_schedule_clear(&full);
}

START_TEST(plain_loops_same_as_full_path)
{
    int lean = 0, before = deadlocks;
    for (int i = 0; i < 1200; i++) {
        char what[64];
        snprintf(what, sizeof what, "program %d", i);
        bool is_forward = i % 4 < 2;
        if (i % 2 == 0) {
            SimProgram *a = random_lean_program(7100 + i, i / 4 % 3, is_forward);
            SimProgram *b = random_lean_program(7100 + i, i / 4 % 3, is_forward);
            lean += !a->in_edge && !a->out_edge && !a->first_in.full && !a->first_out.full;
            assert_full_path_same(a, b, what);
            sim_program_free(a), sim_program_free(b);
        } else {
            GRand *ra = g_rand_new_with_seed(7100 + i), *rb = g_rand_new_with_seed(7100 + i);
            SimProgram *a = random_program(ra, i / 4 % 3, is_forward), *b = random_program(rb, i / 4 % 3, is_forward);
            assert_full_path_same(a, b, what);
            sim_program_free(a), sim_program_free(b);
            g_rand_free(ra), g_rand_free(rb);
        }
    }
    ck_assert_int_eq(lean, 600); /* the generator made 600 of the lean shape (not: which loop ran) */
    ck_assert_int_gt(deadlocks - before, 20); /* backward edges: some cycles, reported alike */
}
END_TEST

START_TEST(fast_path_turns_down_what_it_cannot_order)
{
    SimSchedule s = { 0 };
    /* a back edge under the block scheduler, more CTAs than units */
    SimProgram *p = sim_program_new(1, 1);
    sim_program_add_cta(p, -1);
    int64_t a = sim_program_add_op(p, 0, SIM_OP_REDUCE, 5, 0);
    sim_program_add_cta(p, -1);
    int64_t b = sim_program_add_op(p, 0, SIM_OP_REDUCE, 5, 1);
    sim_program_add_edge(p, b, a, 0, SIM_EDGE_ACCUM);
    sim_program_seal(p);
    ck_assert(!sim_engine_ordered_run(p, &s));
    ck_assert_ptr_null(s.start_ns);
    sim_program_free(p);
    /* a zero-length dispatched CTA: placed in a second round of its time, which the unit heap does not model */
    p = sim_program_new(2, 1);
    const int64_t d[] = { 0, 5, 3 };
    for (int c = 0; c < 3; c++) {
        sim_program_add_cta(p, -1);
        sim_program_add_op(p, 0, SIM_OP_COMPUTE, d[c], c);
    }
    sim_program_seal(p);
    ck_assert(!sim_engine_ordered_run(p, &s));
    ck_assert(!compare_paths(p, "zero-length CTA"));
    sim_program_free(p);
    /* a load model */
    p = sim_program_new(2, 1);
    sim_program_add_cta(p, -1);
    sim_program_add_op(p, 0, SIM_OP_REDUCE, 5, 0);
    int32_t extra[] = { 0, 0, 500 };
    SimLoadModel load = { .extra_ns = extra, .extra_len = 2, .issue_ppm = 1000000 };
    sim_program_set_load(p, &load);
    sim_program_seal(p);
    ck_assert(!sim_engine_ordered_run(p, &s));
    sim_program_free(p);
    /* the interference and waited-reduction rules (their times depend on the order ops start in) */
    for (int rule = 0; rule < 2; rule++) {
        p = sim_program_new(1, 2);
        sim_program_add_cta(p, 0);
        sim_program_add_op(p, 0, SIM_OP_COMPUTE, 5, 0);
        sim_program_add_op(p, 1, SIM_OP_REDUCE, 5, 0);
        if (rule == 0)
            p->overlap = (SimOverlapRule){ .penalty_ns = 3, .before_ns = 10, .after_ns = 10 };
        else
            p->waited = (SimWaitedReduce){ .read_delta_ns = 2 };
        sim_program_seal(p);
        ck_assert(!sim_engine_ordered_run(p, &s));
        ck_assert(!compare_paths(p, "a rule"));
        sim_program_free(p);
    }
    /* a cycle among pinned CTAs: the event engine reports it */
    p = sim_program_new(2, 1);
    sim_program_add_cta(p, 0);
    a = sim_program_add_op(p, 0, SIM_OP_REDUCE, 1, 0);
    sim_program_add_cta(p, 1);
    b = sim_program_add_op(p, 0, SIM_OP_REDUCE, 1, 1);
    sim_program_add_edge(p, a, b, 0, SIM_EDGE_ACCUM);
    sim_program_add_edge(p, b, a, 0, SIM_EDGE_ACCUM);
    sim_program_seal(p);
    ck_assert(!sim_engine_ordered_run(p, &s));
    sim_program_free(p);
}
END_TEST

/* Random pushes within the horizon of the time last popped (or lowered by a push, as the engine does
 * between a load model's steps), popped in bursts: the ring and the heap give the same (time, op) order. */
START_TEST(ring_pops_in_heap_order)
{
    GRand *rng = g_rand_new_with_seed(7);
    for (int round = 0; round < 30; round++) {
        int64_t horizon = g_rand_int_range(rng, 0, 3000), now = g_rand_int_range(rng, 0, 100000);
        SimEventQueue ring, heap;
        sim_event_queue_init(&ring, horizon, 4);
        sim_event_queue_init(&heap, -1, 4);
        ck_assert(sim_event_queue_is_ring(&ring) && !sim_event_queue_is_ring(&heap));
        for (int32_t op = 0; op < 1000; op++) {
            int64_t t = now + (g_rand_boolean(rng) ? 0 : g_rand_int_range(rng, 0, (int32_t)horizon + 1));
            sim_event_queue_push(&ring, t, op);
            sim_event_queue_push(&heap, t, op);
            while (!sim_event_queue_is_empty(&heap) && g_rand_int_range(rng, 0, 3) == 0) {
                int64_t t_ring, t_heap;
                ck_assert_int_eq(sim_event_queue_min_time(&ring), sim_event_queue_min_time(&heap));
                int32_t a = sim_event_queue_pop(&ring, &t_ring), b = sim_event_queue_pop(&heap, &t_heap);
                ck_assert(a == b && t_ring == t_heap);
                now = t_ring;
            }
            if (!sim_event_queue_is_empty(&ring) && g_rand_boolean(rng)) /* a peek moves the ring past now */
                ck_assert_int_eq(sim_event_queue_min_time(&ring), sim_event_queue_min_time(&heap));
        }
        while (!sim_event_queue_is_empty(&heap)) {
            int64_t t_ring, t_heap;
            ck_assert_int_eq(sim_event_queue_pop(&ring, &t_ring), sim_event_queue_pop(&heap, &t_heap));
            ck_assert_int_eq(t_ring, t_heap);
        }
        ck_assert(sim_event_queue_is_empty(&ring));
        sim_event_queue_clear(&ring), sim_event_queue_clear(&heap);
    }
    SimEventQueue far;
    sim_event_queue_init(&far, 1 << 20, 4); /* too long a horizon for the ring */
    ck_assert(!sim_event_queue_is_ring(&far));
    sim_event_queue_clear(&far);
    g_rand_free(rng);
}
END_TEST

/* Events of one time drained with has_at, peek_at and pop_at, ring, heap and a ring of slots (each op its
 * own slot), against pop's (time, op) order: pushes at the time being drained (zero-length ops) join its end. */
START_TEST(pop_at_drains_a_time_in_push_order)
{
    GRand *rng = g_rand_new_with_seed(11);
    for (int round = 0; round < 20; round++) {
        int64_t horizon = g_rand_int_range(rng, 0, 200);
        SimEventQueue ring, heap, ref, slots;
        sim_event_queue_init_slots(&slots, horizon, 5100);
        sim_event_queue_init(&ring, horizon, 4);
        sim_event_queue_init(&heap, -1, 4);
        sim_event_queue_init(&ref, -1, 4);
        int32_t next_op = 0;
        for (int k = 0; k < 50; k++, next_op++) {
            int64_t t = g_rand_int_range(rng, 0, (int32_t)horizon + 1);
            sim_event_queue_push(&ring, t, next_op), sim_event_queue_push(&heap, t, next_op);
            sim_event_queue_push(&ref, t, next_op), sim_event_queue_push_slot(&slots, t, next_op);
        }
        while (!sim_event_queue_is_empty(&ref)) {
            int64_t now = sim_event_queue_min_time(&ref), t_ref;
            ck_assert_int_eq(sim_event_queue_min_time(&ring), now);
            ck_assert_int_eq(sim_event_queue_min_time(&heap), now);
            ck_assert_int_eq(sim_event_queue_min_time(&slots), now);
            do {
                int32_t want = sim_event_queue_pop(&ref, &t_ref);
                ck_assert_int_eq(t_ref, now);
                ck_assert(sim_event_queue_peek_at(&ring, now) == want && sim_event_queue_peek_at(&heap, now) == want &&
                          sim_event_queue_peek_at(&slots, now) == want);
                ck_assert_int_eq(sim_event_queue_pop_at(&ring, now), want);
                ck_assert_int_eq(sim_event_queue_pop_at(&heap, now), want);
                ck_assert_int_eq(sim_event_queue_pop_at(&slots, now), want);
                if (next_op < 5000 && g_rand_int_range(rng, 0, 4) == 0) { /* a push within the horizon */
                    int64_t t = now + (g_rand_boolean(rng) ? 0 : g_rand_int_range(rng, 0, (int32_t)horizon + 1));
                    sim_event_queue_push(&ring, t, next_op), sim_event_queue_push(&heap, t, next_op);
                    sim_event_queue_push_slot(&slots, t, next_op), sim_event_queue_push(&ref, t, next_op++);
                }
                ck_assert_int_eq(sim_event_queue_has_at(&ring, now), sim_event_queue_has_at(&ref, now));
                ck_assert_int_eq(sim_event_queue_has_at(&heap, now), sim_event_queue_has_at(&ref, now));
                ck_assert_int_eq(sim_event_queue_has_at(&slots, now), sim_event_queue_has_at(&ref, now));
            } while (sim_event_queue_has_at(&ref, now));
            ck_assert(sim_event_queue_peek_at(&ring, now) == -1 && sim_event_queue_peek_at(&slots, now) == -1);
        }
        ck_assert(sim_event_queue_is_empty(&ring) && sim_event_queue_is_empty(&heap));
        ck_assert(sim_event_queue_is_empty(&slots));
        sim_event_queue_clear(&ring), sim_event_queue_clear(&heap), sim_event_queue_clear(&ref);
        sim_event_queue_clear(&slots);
    }
    g_rand_free(rng);
}
END_TEST

/* Two CTAs of one op each, pinned to units 0 and 1, an edge between their ops (forward: 0 -> 1). */
static SimProgram *two_pinned(bool is_forward)
{
    SimProgram *p = sim_program_new(2, 1);
    for (int32_t c = 0; c < 2; c++) {
        sim_program_add_cta(p, c);
        sim_program_add_op(p, 0, SIM_OP_COMPUTE, 10 + c, c);
    }
    sim_program_add_edge(p, is_forward ? 0 : 1, is_forward ? 1 : 0, 5, SIM_EDGE_DATA);
    return p;
}

/* The event engine's plain path (fixed durations, no rule, fewer than 255 predecessors an op) keeps what
 * the outputs need only: no ends (start + duration), and a completion order only where an edge runs
 * backward (else CTA order is topological: analyze_order.c). A rule, or an op with 300 predecessors, takes
 * the full path, which keeps both; the schedule is the fast path's either way. */
START_TEST(event_engine_keeps_ends_and_order_only_where_needed)
{
    for (int k = 0; k < 4; k++) {
        SimProgram *p;
        if (k < 3) {
            p = two_pinned(k != 1);
            if (k == 2)
                p->waited = (SimWaitedReduce){ .read_delta_ns = 2 };
        } else { /* one op waits on 300 others, each a CTA of its own */
            p = sim_program_new(4, 1);
            for (int32_t c = 0; c <= 300; c++) {
                sim_program_add_cta(p, c % 4);
                sim_program_add_op(p, 0, SIM_OP_COMPUTE, 1 + c % 7, c);
            }
            for (int32_t c = 0; c < 300; c++)
                sim_program_add_edge(p, c, 300, 3, SIM_EDGE_DATA);
        }
        sim_program_seal(p);
        SimSchedule s = { 0 };
        SimError err = { 0 };
        ck_assert_int_eq(sim_engine_run_events(p, &s, &err), SIM_OK);
        bool is_plain = k < 2;
        ck_assert(is_plain == (s.end_ns == NULL));
        ck_assert((k == 0) == (s.order == NULL));
        if (k == 1) /* the backward edge: op 1 ends at 11, op 0 starts 5 later on the other unit */
            ck_assert(s.start_ns[0] == 16 && sim_schedule_end_ns(p, &s, 0) == 26 && s.order[0] == 2 && s.order[2] == 1);
        if (k != 2)
            compare_paths(p, "plain or full path");
        if (k < 2) { /* a duration past the ring's horizon: the plain path's slots go through the heap */
            sim_program_set_duration(p, 1, 1 << 20);
            compare_paths(p, "plain path on the heap");
        }
        sim_schedule_clear(&s);
        sim_program_free(p);
    }
}
END_TEST

/* A kernel profile's CTA turnover (cta_gap_ns): the prologue of a CTA that starts on a unit another CTA left,
 * not the launch wave's, nor a persistent slot's next plan CTA (the same GPU CTA). fa3 on 2 SMs, 4 KV tiles: CTAs
 * 2 and 3 follow CTAs 0 and 1 and start their first compute prologue + gap after them. */
START_TEST(cta_gap_only_where_a_cta_follows_another)
{
    SimError err = { 0 };
    Workload wl = { .n_sm = 2, .heads = 1, .kv_tiles = 4, .q_tiles = 2, .mask = MASK_FULL, .tile_ratio = 1,
                    .head_swizzle = 1 };
    AttnCosts costs = { .c_ns = 1000, .r_ns = 500, .reduce = REDUCE_ASYNC, .dq_buffers = 2, .cta_prologue_ns = 100,
                        .cta_gap_ns = 70 };
    Plan *plan = policy_build(policy_find("fa3"), &wl, &err);
    ck_assert_ptr_nonnull(plan);
    ck_assert_int_eq(plan->cta_count, 4);
    SimProgram *p = sim_attention_program(plan, &costs);
    for (int32_t c = 0; c < 4; c++)
        ck_assert_int_eq(sim_op_duration_ns(p, p->ctas[c].op_begin), (c < 2 ? 100 : 170));
    SimSchedule s = { 0 };
    ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
    for (int32_t c = 2; c < 4; c++) /* on the unit CTA c - 2 left, its compute 170 ns after that CTA's end */
        ck_assert_int_eq(s.start_ns[p->ctas[c].op_begin + 1], s.cta_end_ns[s.cta_unit[c] == s.cta_unit[0] ? 0 : 1] + 170);
    sim_schedule_clear(&s), sim_program_free(p), plan_free(plan);
    costs.cta_prologue_ns = 0; /* the gap alone still makes a prologue op, 0 at launch */
    plan = policy_build(policy_find("fa3"), &wl, &err);
    p = sim_attention_program(plan, &costs);
    ck_assert_int_eq(sim_op_duration_ns(p, p->ctas[0].op_begin), 0);
    ck_assert_int_eq(sim_op_duration_ns(p, p->ctas[3].op_begin), 70);
    sim_program_free(p), plan_free(plan);
    wl = (Workload){ .n_sm = 2, .heads = 2, .kv_tiles = 4, .q_tiles = 4, .mask = MASK_CAUSAL, .tile_ratio = 1,
                     .head_swizzle = 1 };
    costs.cta_prologue_ns = 100;
    plan = policy_build(policy_find("symmetric-shift"), &wl, &err);
    ck_assert_ptr_nonnull(plan);
    ck_assert(plan->is_persistent && plan->cta_count > wl.n_sm);
    p = sim_attention_program(plan, &costs);
    for (int32_t c = 0; c < plan->cta_count; c++)
        ck_assert_int_eq(sim_op_duration_ns(p, p->ctas[c].op_begin), 100);
    sim_program_free(p), plan_free(plan);
}
END_TEST

/* The turn's jitter (program.h): a reduction whose turn came 2 ns before its compute ended counts as waited
 * (read_delta_ns more) only with a jitter above 2 ns; a turn after its compute, always; one 490 ns early (4.9
 * jitters), never. It starts at the later of the two and takes the expected wait beyond it (Clark): s phi(x/s) +
 * x Phi(x/s) - max(0, x) for a turn x ns after the compute, rounded; with s = 100 and x = 0, 39.89 ns. */
START_TEST(turn_within_the_jitter_counts_as_waited)
{
    const struct {
        int32_t jitter, turn, compute, start, end;
    } cases[] = { { 0, 10, 12, 12, 22 },     { 2, 10, 12, 12, 22 },       { 3, 10, 12, 12, 27 },
                  { 0, 13, 12, 13, 28 },     { 3, 13, 12, 13, 29 },       { 100, 12, 12, 12, 67 },
                  { 100, 1000, 12, 1000, 1015 }, { 100, 10, 500, 500, 510 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SimProgram *p = sim_program_new(2, 1);
        sim_program_add_cta(p, 0);
        int64_t a = sim_program_add_op(p, 0, SIM_OP_REDUCE, cases[i].turn, 0);
        sim_program_add_cta(p, 1);
        sim_program_add_op(p, 0, SIM_OP_COMPUTE, cases[i].compute, 1);
        int64_t b = sim_program_add_op(p, 0, SIM_OP_REDUCE, 10, 1);
        sim_program_add_edge(p, a, b, 0, SIM_EDGE_ACCUM);
        p->waited = (SimWaitedReduce){ .read_delta_ns = 5, .jitter_ns = cases[i].jitter };
        sim_program_seal(p);
        SimSchedule s = { 0 };
        SimError err = { 0 };
        ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
        ck_assert_msg(s.start_ns[b] == cases[i].start && sim_schedule_end_ns(p, &s, b) == cases[i].end,
                      "case %zu: %lld to %lld", i, (long long)s.start_ns[b], (long long)sim_schedule_end_ns(p, &s, b));
        sim_schedule_clear(&s), sim_program_free(p);
    }
}
END_TEST

/* The waited step's slope (program.h): a waited reduction's read takes slope / 1000 ns more per other store-engine op
 * running at its release beyond k_ref (less below it); a reduction that did not wait takes its own time. Unit 0's
 * reduction a (100 ns) hands its row to unit 1's b; unit 2's long store op c runs throughout, so b is released at
 * 100 with one other in flight (a has completed). */
START_TEST(waited_step_grows_with_the_reductions_in_flight)
{
    const struct {
        int32_t slope_milli, k_ref;
        bool is_turn;
        int64_t end;
    } cases[] = { { 0, 0, true, 100 + 10 + 5 },         { 10000, 0, true, 100 + 10 + 5 + 10 },
                  { 10000, 2, true, 100 + 10 + 5 - 10 }, { 10000, 3, true, 100 }, /* never below 0 ns */
                  { 2500, 0, true, 100 + 10 + 5 + 3 },   { -2500, 0, true, 100 + 10 + 5 - 3 }, /* half away from 0 */
                  { 10000, 0, false, 10 } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SimProgram *p = sim_program_new(3, 2);
        sim_program_add_cta(p, 0);
        int64_t a = sim_program_add_op(p, 1, SIM_OP_REDUCE, 100, 0);
        sim_program_add_cta(p, 1);
        int64_t b = sim_program_add_op(p, 1, SIM_OP_REDUCE, 10, 1);
        sim_program_add_cta(p, 2);
        sim_program_add_op(p, 1, SIM_OP_REDUCE, 1000, 2);
        if (cases[i].is_turn)
            sim_program_add_edge(p, a, b, 0, SIM_EDGE_ACCUM);
        p->waited = (SimWaitedReduce){ .read_delta_ns = 5, .slope_milli_ns = cases[i].slope_milli, .k_ref = cases[i].k_ref };
        sim_program_seal(p);
        SimSchedule s = { 0 };
        SimError err = { 0 };
        ck_assert_int_eq(sim_engine_run(p, &s, &err), SIM_OK);
        ck_assert_msg(sim_schedule_end_ns(p, &s, b) == cases[i].end, "case %zu: ends at %lld, not %lld", i,
                      (long long)sim_schedule_end_ns(p, &s, b), (long long)cases[i].end);
        sim_schedule_clear(&s), sim_program_free(p);
    }
}
END_TEST

Suite *suite_engine_paths(void)
{
    Suite *s = suite_create("engine_paths");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, ring_pops_in_heap_order);
    tcase_add_test(tc, pop_at_drains_a_time_in_push_order);
    tcase_add_test(tc, event_engine_keeps_ends_and_order_only_where_needed);
    tcase_add_test(tc, every_policy_and_mask_same_schedule);
    tcase_add_test(tc, block_mask_plans_same_schedule);
    tcase_add_test(tc, pipeline_policies_same_schedule);
    tcase_add_test(tc, random_programs_same_schedule);
    tcase_add_test(tc, plain_loops_same_as_full_path);
    tcase_add_test(tc, fast_path_turns_down_what_it_cannot_order);
    tcase_add_test(tc, cta_gap_only_where_a_cta_follows_another);
    tcase_add_test(tc, turn_within_the_jitter_counts_as_waited);
    tcase_add_test(tc, waited_step_grows_with_the_reductions_in_flight);
    tcase_set_timeout(tc, 60); /* each schedule's analysis is also checked against dag/'s: 0.4 s of CPU in all,
                                * past Check's 4 s default on a loaded machine */
    suite_add_tcase(s, tc);
    return s;
}

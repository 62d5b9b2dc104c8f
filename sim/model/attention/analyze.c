/* Realized-schedule DAG. Nodes: every op, plus one zero-weight dispatch node per CTA (CTA c is node
 * op_count + c). The dispatch node waits for the previous CTA on the same unit to end and, for CTAs
 * placed by the block scheduler, for the previous such CTA's dispatch (in-order launch): exactly the
 * rule the engine applies, which is why the engine's makespan equals the critical path. The hot path
 * (analyze_order.c) solves this DAG in the engine's completion order without building it; the igraph
 * graph below is built only for the DOT export or when that order does not fit the DAG. */
#include "analyze.h"

#include <glib.h>
#include <stdlib.h>

#include "analyze_order.h"
#include "dag.h"
#include "dashsim/version.h"

enum { KIND_PROGRAM = SIM_EDGE_KIND_COUNT, KIND_DISPATCH, KIND_LAUNCH };

static void add_cta_edges(Dag *g, const SimProgram *p, const SimSchedule *s)
{
    int32_t *last_on_unit = g_new(int32_t, p->n_units);
    for (int32_t u = 0; u < p->n_units; u++)
        last_on_unit[u] = -1;
    /* CTAs of a unit run one after another; dispatch order within a unit is dispatch-time order, which
     * is CTA order for both pinned and block-scheduled CTAs. */
    int32_t prev_dynamic = -1;
    for (int32_t c = 0; c < p->cta_count; c++) {
        const SimCta *cta = &p->ctas[c];
        int64_t node = p->op_count + c;
        int32_t u = s->cta_unit[c], prev = last_on_unit[u];
        for (int64_t op = prev >= 0 ? p->ctas[prev].op_begin : 0;
             prev >= 0 && op < p->ctas[prev].op_begin + p->ctas[prev].op_count; op++)
            if (sim_program_next_on_engine(p, op) < 0)
                dag_add_edge(g, op, node, 0, KIND_DISPATCH, true);
        if (cta->pinned_unit < 0) {
            if (prev_dynamic >= 0)
                dag_add_edge(g, p->op_count + prev_dynamic, node, 0, KIND_LAUNCH, false);
            prev_dynamic = c;
        }
        for (int64_t op = cta->op_begin; op < cta->op_begin + cta->op_count; op++)
            if (sim_program_is_first_on_engine(p, op))
                dag_add_edge(g, node, op, 0, KIND_PROGRAM, true);
        last_on_unit[u] = c;
    }
    g_free(last_on_unit);
}

static Dag *build_dag(const SimProgram *p, const SimSchedule *s)
{
    Dag *g = dag_new(p->op_count + p->cta_count);
    for (int64_t op = 0; op < p->op_count; op++) {
        dag_set_node(g, op, sim_schedule_end_ns(p, s, op) - s->start_ns[op], sim_op_kind(p, op)); /* realised (load model) */
        if (sim_program_next_on_engine(p, op) >= 0)
            dag_add_edge(g, op, sim_program_next_on_engine(p, op), 0, KIND_PROGRAM, true);
    }
    for (int64_t e = 0; e < p->edge_count; e++) {
        int64_t from = sim_edge_from(p, e), to = sim_edge_to(p, e);
        int32_t uf = s->cta_unit[sim_op_cta(p, from)], ut = s->cta_unit[sim_op_cta(p, to)];
        dag_add_edge(g, from, to, sim_engine_edge_latency(p, s, e), sim_edge_kind(p, e),
                     sim_edge_kind(p, e) != SIM_EDGE_ACCUM && uf == ut);
    }
    add_cta_edges(g, p, s);
    return g;
}

typedef struct {
    int64_t start, end;
} Interval;

static int interval_cmp(const void *a, const void *b)
{
    const Interval *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* With one engine per unit no two ops of a unit overlap (a CTA's run one after another, and CTAs of a unit
 * never overlap): the busy time is their lengths' sum. */
static int64_t busy_time_one_engine(const SimProgram *p, const SimSchedule *s)
{
    int64_t busy = 0;
    if (!s->end_ns && p->op_duration_ns)
        for (int64_t op = 0; op < p->op_count; op++)
            busy += p->op_duration_ns[op];
    else
        for (int64_t op = 0; op < p->op_count; op++)
            busy += sim_schedule_end_ns(p, s, op) - s->start_ns[op];
    return busy;
}

/* Time during which some engine of the CTA's unit is busy; CTAs of a unit never overlap. */
static int64_t busy_time(const SimProgram *p, const SimSchedule *s)
{
    if (p->engines_per_unit == 1)
        return busy_time_one_engine(p, s);
    int64_t busy = 0;
    Interval *iv = NULL;
    int32_t capacity = 0;
    for (int32_t c = 0; c < p->cta_count; c++) {
        const SimCta *cta = &p->ctas[c];
        if (cta->op_count > capacity)
            iv = g_renew(Interval, iv, capacity = cta->op_count);
        int32_t k = 0;
        for (int64_t op = cta->op_begin; op < cta->op_begin + cta->op_count; op++)
            if (sim_schedule_end_ns(p, s, op) > s->start_ns[op])
                iv[k++] = (Interval){ s->start_ns[op], sim_schedule_end_ns(p, s, op) };
        if (p->engines_per_unit > 1)
            qsort(iv, k, sizeof *iv, interval_cmp);
        int64_t reach = INT64_MIN;
        for (int32_t i = 0; i < k; i++) {
            busy += MAX(iv[i].end, reach) - MAX(iv[i].start, reach);
            reach = MAX(reach, iv[i].end);
        }
    }
    g_free(iv);
    return busy;
}

static void critical_breakdown(const Dag *g, const SimProgram *p, SimAnalysis *a)
{
    static const BreakdownPart part_of_kind[SIM_OP_KIND_COUNT] = {
        [SIM_OP_COMPUTE] = BREAK_COMPUTE, [SIM_OP_REDUCE] = BREAK_REDUCE,
        [SIM_OP_VECTOR] = BREAK_VECTOR, [SIM_OP_SYNC] = BREAK_COMPUTE, [SIM_OP_WRITE] = BREAK_COMPUTE,
    };
    const int64_t *nodes, *edges;
    int64_t len = dag_critical_path(g, &nodes, &edges);
    for (int64_t i = 0; i < len; i++) {
        if (nodes[i] < p->op_count)
            a->breakdown_ns[part_of_kind[sim_op_kind(p, nodes[i])]] += dag_node_weight_ns(g, nodes[i]);
        if (i + 1 < len)
            a->breakdown_ns[BREAK_LATENCY] += dag_edge_weight_ns(g, edges[i]);
    }
}

typedef struct {
    const SimProgram *p;
    const SimDotSpec *dot;
} NodeLabelCtx;

static void node_label(int64_t v, char *buf, size_t len, void *ctx)
{
    const NodeLabelCtx *l = ctx;
    const SimProgram *p = l->p;
    if (v >= p->op_count)
        snprintf(buf, len, "dispatch CTA %" G_GINT64_FORMAT, v - p->op_count);
    else if (l->dot->label)
        l->dot->label(l->dot->ctx, v, buf, len);
    else
        snprintf(buf, len, "%s task %d CTA %d", sim_op_kind_name(sim_op_kind(p, v)), sim_op_task(p, v), sim_op_cta(p, v));
}

/* Through the igraph DAG (dag/): for the DOT export, and for a schedule without a usable completion order. */
static SimStatus analyze_dag(const SimProgram *p, const SimSchedule *s, SimAnalysis *out, const SimDotSpec *dot,
                             SimError *err)
{
    Dag *g = build_dag(p, s);
    if (dag_solve(g, err) != SIM_OK) {
        dag_free(g);
        return err->status;
    }
    out->critical_path_ns = dag_critical_path_ns(g);
    out->lemma1_violations = dag_count_depth_violations(g, SIM_EDGE_ACCUM);
    critical_breakdown(g, p, out);
    out->is_critical = g_new(uint8_t, p->op_count);
    for (int64_t op = 0; op < p->op_count; op++)
        out->is_critical[op] = dag_slack_ns(g, op) == 0;
    NodeLabelCtx label = { p, dot };
    if (dot && (fprintf(dot->f, "// made by dashsim %s\n", DASHSIM_VERSION) < 0 ||
                !dag_write_dot(g, dot->f, node_label, &label)))
        sim_error_set(err, SIM_ERR_IO, "writing the DOT graph failed");
    dag_free(g);
    return err->status;
}

SimStatus sim_analyze(const SimProgram *p, const SimSchedule *s, SimAnalysis *out, const SimDotSpec *dot,
                      SimError *err)
{
    return sim_analyze_level(p, s, SIM_ANALYSIS_FULL, out, dot, err);
}

SimStatus sim_analyze_level(const SimProgram *p, const SimSchedule *s, SimAnalysisLevel level, SimAnalysis *out,
                            const SimDotSpec *dot, SimError *err)
{
    *out = (SimAnalysis){ .makespan_ns = s->makespan_ns };
    int64_t capacity = (int64_t)p->n_units * s->makespan_ns;
    if (level == SIM_ANALYSIS_NONE)
        return SIM_OK;
    if (dot || !sim_analyze_order(p, s, level == SIM_ANALYSIS_FULL, out)) {
        sim_analysis_clear(out);
        *out = (SimAnalysis){ .makespan_ns = s->makespan_ns };
        if (analyze_dag(p, s, out, dot, err) != SIM_OK)
            return err->status;
    }
    out->busy_ns = busy_time(p, s);
    out->bubble_ns = capacity - out->busy_ns;
    out->busy_fraction = capacity > 0 ? (double)out->busy_ns / (double)capacity : 0.0;
    out->breakdown_ns[BREAK_WAIT] = out->makespan_ns - out->critical_path_ns;
    return SIM_OK;
}

void sim_analysis_clear(SimAnalysis *a)
{
    g_free(a->is_critical);
    a->is_critical = NULL;
}

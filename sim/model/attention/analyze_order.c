/* Solving the realised DAG in a topological order: CTA order when every program edge runs forward (the
 * common case: memory is then read front to back), else the engine's completion order. Node v < n is
 * op v, node n + c the dispatch of CTA c (n = op_count). Edges, implicit except the program's: op -> its
 * next op on the engine (0), program edges (realised latency; chain if not ACCUM and on one unit), every
 * last-on-engine op of the previous CTA on the unit -> dispatch (0, chain), previous block-scheduled
 * dispatch -> dispatch (0, not chain), dispatch -> first-on-engine ops (0, chain). Ties are broken as dag/
 * breaks them on the graph analyze.c builds, whose edge ids run: program order, program edges, then per
 * CTA its dispatch edges. Where the engine's fast path recorded what set each start (SimSchedule.start_by)
 * the forward pass is not repeated: depths (or their closed form) and the backward pass alone. */
#include "analyze_order.h"

#include <glib.h>

#include "prefault.h"

enum { IS_CRITICAL = 1, IS_DONE = 2, IS_BOUND = 4 }; /* IS_CRITICAL alone: the flags are is_critical as they are */

typedef struct {
    const SimProgram *p;
    const SimSchedule *s;
    int64_t n;
    int32_t *depth;               /* per node: chain edges on the deepest chain path to it */
    uint8_t *flags;               /* per node: IS_BOUND, IS_DONE (forward pass), IS_CRITICAL (backward) */
    int32_t *prev_on_unit, *next_on_unit;   /* per CTA: neighbours on its unit in CTA order, or -1 */
    int32_t *prev_launch, *next_launch;     /* per block-scheduled CTA: neighbours in launch order, or -1 */
    int64_t cp_ns;
} Solver;

/* The engine starts every op and dispatch as early as the DAG allows, so a node's earliest start is its
 * realised start: solve() checks est == start at every node (the recurrence then holds everywhere, and
 * in topological order it has one solution), so no array of earliest starts is needed. */
static inline int64_t est_of(const Solver *sv, int64_t v)
{
    return v < sv->n ? sv->s->start_ns[v] : sv->s->cta_dispatch_ns[v - sv->n];
}

static inline int64_t end_of(const Solver *sv, int64_t op)
{
    return sim_schedule_end_ns(sv->p, sv->s, op);
}

static inline int64_t weight(const Solver *sv, int64_t v)
{
    return v < sv->n ? end_of(sv, v) - sv->s->start_ns[v] : 0;
}

static inline int32_t unit_of(const Solver *sv, int64_t op)
{
    return sv->s->cta_unit[sim_op_cta(sv->p, op)];
}

/* The latency edge e had, its source op 'from' on unit uf and its target on ut: sim_engine_edge_latency's
 * rule (program latency or the matrix for ACCUM edges, plus the hand-off growth), inlined for the passes. */
static inline int64_t latency(const Solver *sv, int64_t e, int64_t from, int32_t uf, int32_t ut)
{
    const SimProgram *p = sv->p;
    if (uf == ut)
        return 0;
    if (sim_edge_kind(p, e) != SIM_EDGE_ACCUM)
        return sim_edge_latency_ns(p, e);
    int64_t lat = p->unit_latency_ns ? p->unit_latency_ns[(int64_t)uf * p->n_units + ut] : sim_edge_latency_ns(p, e);
    return sv->s->handoff_extra_ns ? lat + sv->s->handoff_extra_ns[from] : lat;
}

static void link_ctas(Solver *sv)
{
    const SimProgram *p = sv->p;
    int32_t *last = g_new(int32_t, p->n_units), prev_dynamic = -1;
    for (int32_t u = 0; u < p->n_units; u++)
        last[u] = -1;
    for (int32_t c = 0; c < p->cta_count; c++) {
        int32_t u = sv->s->cta_unit[c];
        sv->prev_on_unit[c] = last[u], sv->next_on_unit[c] = -1, sv->next_launch[c] = sv->prev_launch[c] = -1;
        if (last[u] >= 0)
            sv->next_on_unit[last[u]] = c;
        last[u] = c;
        if (p->ctas[c].pinned_unit < 0) {
            sv->prev_launch[c] = prev_dynamic;
            if (prev_dynamic >= 0)
                sv->next_launch[prev_dynamic] = c;
            prev_dynamic = c;
        }
    }
    g_free(last);
}

static inline bool is_done(const Solver *sv, int64_t v)
{
    return sv->flags[v] & IS_DONE;
}

/* Term t of a node starting at start: none may exceed it, and one must meet it (IS_BOUND). */
static inline bool bound(Solver *sv, int64_t v, int64_t start, int64_t t)
{
    if (t == start)
        sv->flags[v] |= IS_BOUND;
    return t <= start;
}

/* Checks op v's start against its program in-edges and its dispatch node (its previous op on the engine
 * pushed its term), computes its depth and pushes both to its next op on the engine. False if a
 * predecessor is not done yet (the order is not topological) or the start is not the earliest one. */
static bool forward_op(Solver *sv, int64_t v)
{
    const SimProgram *p = sv->p;
    int32_t depth = sv->depth[v], c = sim_op_cta(p, v), unit = sv->s->cta_unit[c];
    /* read before the flags' stores, which may alias any of it */
    int64_t start = sv->s->start_ns[v], end = end_of(sv, v), next = sim_program_next_on_engine_in(p, v, c);
    bool is_first = sim_program_is_first_on_engine_in(p, v, c);
    for (int64_t k = sim_program_in_begin(p, v), k_end = sim_program_in_end(p, v); k < k_end; k++) {
        int64_t e = sim_program_in_edge(p, k), u = sim_edge_from(p, e);
        int32_t uf = unit_of(sv, u);
        if (!is_done(sv, u) || !bound(sv, v, start, end_of(sv, u) + latency(sv, e, u, uf, unit)))
            return false;
        if (sim_edge_kind(p, e) != SIM_EDGE_ACCUM && uf == unit)
            depth = MAX(depth, sv->depth[u] + 1);
    }
    if (is_first) {
        int64_t node = sv->n + c;
        if (!is_done(sv, node) || !bound(sv, v, start, est_of(sv, node)))
            return false;
        depth = MAX(depth, sv->depth[node] + 1);
    }
    if (!(sv->flags[v] & IS_BOUND) || end < start)
        return false;
    sv->depth[v] = depth;
    sv->cp_ns = MAX(sv->cp_ns, end);
    if (next >= 0) {
        if (!bound(sv, next, sv->s->start_ns[next], end))
            return false;
        sv->depth[next] = MAX(sv->depth[next], depth + 1);
    }
    return true;
}

static bool forward_dispatch(Solver *sv, int32_t c)
{
    const SimProgram *p = sv->p;
    int64_t node = sv->n + c, start = est_of(sv, node);
    int32_t depth = 0, prev = sv->prev_on_unit[c], launch = sv->prev_launch[c];
    if (prev < 0 && launch < 0 && start == 0)
        sv->flags[node] |= IS_BOUND; /* a source starts at 0 */
    for (int64_t op = prev >= 0 ? p->ctas[prev].op_begin : 0;
         prev >= 0 && op < p->ctas[prev].op_begin + p->ctas[prev].op_count; op++)
        if (sim_program_next_on_engine(p, op) < 0) {
            if (!is_done(sv, op) || !bound(sv, node, start, end_of(sv, op)))
                return false;
            depth = MAX(depth, sv->depth[op] + 1);
        }
    if (launch >= 0 && (!is_done(sv, sv->n + launch) || !bound(sv, node, start, est_of(sv, sv->n + launch))))
        return false;
    if (!(sv->flags[node] & IS_BOUND))
        return false;
    sv->depth[node] = depth;
    sv->cp_ns = MAX(sv->cp_ns, start);
    return true;
}

/* Slack 0 <=> the node ends at the critical path's end, or a tight edge leads to a critical node. */
static bool backward_op(const Solver *sv, int64_t v, int32_t cta)
{
    const SimProgram *p = sv->p;
    int32_t unit = sv->s->cta_unit[cta];
    int64_t end = end_of(sv, v), next = sim_program_next_on_engine_in(p, v, cta);
    if (end == sv->cp_ns)
        return true;
    if (next >= 0 && (sv->flags[next] & IS_CRITICAL) && est_of(sv, next) == end)
        return true;
    for (int64_t k = sim_program_out_begin(p, v), k_end = sim_program_out_end(p, v); k < k_end; k++) {
        int64_t e = sim_program_out_edge(p, k), to = sim_edge_to(p, e);
        if ((sv->flags[to] & IS_CRITICAL) && est_of(sv, to) == end + latency(sv, e, v, unit, unit_of(sv, to)))
            return true;
    }
    int32_t c = sv->next_on_unit[cta];
    return next < 0 && c >= 0 && (sv->flags[sv->n + c] & IS_CRITICAL) && est_of(sv, sv->n + c) == end;
}

static bool backward_dispatch(const Solver *sv, int32_t c)
{
    const SimProgram *p = sv->p;
    int64_t est = est_of(sv, sv->n + c);
    if (est == sv->cp_ns)
        return true;
    int64_t end = p->is_first_on_engine ? p->ctas[c].op_begin + p->ctas[c].op_count : p->ctas[c].op_begin + 1;
    for (int64_t op = p->ctas[c].op_begin; op < end; op++) /* one engine: the CTA's first op is its only first */
        if (sim_program_is_first_on_engine_in(p, op, c) && (sv->flags[op] & IS_CRITICAL) && est_of(sv, op) == est)
            return true;
    int32_t next = sv->next_launch[c];
    return next >= 0 && (sv->flags[sv->n + next] & IS_CRITICAL) && est_of(sv, sv->n + next) == est;
}

/* The predecessor that set op v's start, as the engine recorded it (SimSchedule.start_by, in the order
 * binding_pred searches): its previous op on its engine, an in-edge's source or its CTA's dispatch. */
static int64_t recorded_pred(const Solver *sv, int64_t v, int64_t *latency_ns)
{
    const SimProgram *p = sv->p;
    uint8_t by = sv->s->start_by[v];
    if (by == SIM_START_BY_DISPATCH)
        return sv->n + sim_op_cta(p, v);
    if (by == SIM_START_BY_ENGINE) {
        int64_t u = v - 1;
        while (sim_program_next_on_engine(p, u) != v)
            u--;
        return u;
    }
    int64_t e = sim_program_in_edge(p, sim_program_in_begin(p, v) + by - SIM_START_BY_EDGE);
    *latency_ns = sim_engine_edge_latency(p, sv->s, e);
    return sim_edge_from(p, e);
}

/* The predecessor the critical path walk takes from v: its first binding in-edge in edge-id order (see
 * the top of the file); *latency_ns gets that edge's weight. -1 at a source. */
static int64_t binding_pred(const Solver *sv, int64_t v, int64_t *latency_ns)
{
    const SimProgram *p = sv->p;
    int64_t est = est_of(sv, v);
    *latency_ns = 0;
    if (v >= sv->n) {
        int32_t c = (int32_t)(v - sv->n), prev = sv->prev_on_unit[c], launch = sv->prev_launch[c];
        for (int64_t op = prev >= 0 ? p->ctas[prev].op_begin : 0;
             prev >= 0 && op < p->ctas[prev].op_begin + p->ctas[prev].op_count; op++)
            if (sim_program_next_on_engine(p, op) < 0 && est_of(sv, op) + weight(sv, op) == est)
                return op;
        return launch >= 0 && est_of(sv, sv->n + launch) == est ? sv->n + launch : -1;
    }
    if (sv->s->start_by && sv->s->start_by[v] != SIM_START_BY_EDGE_FAR)
        return recorded_pred(sv, v, latency_ns);
    const SimCta *cta = &p->ctas[sim_op_cta(p, v)];
    for (int64_t u = v - 1; !sim_program_is_first_on_engine(p, v) && u >= cta->op_begin; u--)
        if (sim_program_next_on_engine(p, u) == v) {
            if (est_of(sv, u) + weight(sv, u) == est)
                return u;
            break;
        }
    for (int64_t k = sim_program_in_begin(p, v); k < sim_program_in_begin(p, v + 1); k++) {
        int64_t e = sim_program_in_edge(p, k), u = sim_edge_from(p, e), lat = sim_engine_edge_latency(p, sv->s, e);
        if (est_of(sv, u) + weight(sv, u) + lat == est) {
            *latency_ns = lat;
            return u;
        }
    }
    int64_t node = sv->n + sim_op_cta(p, v);
    return sim_program_is_first_on_engine(p, v) && est_of(sv, node) == est ? node : -1;
}

/* Walks back from the lowest-numbered node that ends last, as dag_critical_path does. */
static void breakdown(const Solver *sv, SimAnalysis *a)
{
    static const BreakdownPart part_of_kind[SIM_OP_KIND_COUNT] = {
        [SIM_OP_COMPUTE] = BREAK_COMPUTE, [SIM_OP_REDUCE] = BREAK_REDUCE,
        [SIM_OP_VECTOR] = BREAK_VECTOR, [SIM_OP_SYNC] = BREAK_COMPUTE, [SIM_OP_WRITE] = BREAK_COMPUTE,
    };
    int64_t v = -1, nodes = sv->n + sv->p->cta_count;
    for (int64_t u = 0; u < nodes && v < 0; u++)
        if (est_of(sv, u) + weight(sv, u) == sv->cp_ns)
            v = u;
    while (v >= 0) {
        int64_t latency;
        if (v < sv->n)
            a->breakdown_ns[part_of_kind[sim_op_kind(sv->p, v)]] += weight(sv, v);
        v = binding_pred(sv, v, &latency);
        a->breakdown_ns[BREAK_LATENCY] += latency;
    }
}

/* One node of the forward pass; false if the order is not topological there or the start not earliest. */
static bool forward_node(Solver *sv, int64_t v, int64_t nodes)
{
    if (v < 0 || v >= nodes || is_done(sv, v) ||
        !(v < sv->n ? forward_op(sv, v) : forward_dispatch(sv, (int32_t)(v - sv->n))))
        return false;
    sv->flags[v] |= IS_DONE;
    return true;
}

/* cta: v's CTA (v an op) where the caller knows it, else -1 */
static void backward_node(Solver *sv, int64_t v, int32_t cta)
{
    if (v < sv->n ? backward_op(sv, v, cta >= 0 ? cta : sim_op_cta(sv->p, v)) : backward_dispatch(sv, (int32_t)(v - sv->n)))
        sv->flags[v] |= IS_CRITICAL;
}

static void backward_in_cta_order(Solver *sv)
{
    const SimProgram *p = sv->p;
    for (int32_t c = p->cta_count - 1; c >= 0; c--) {
        for (int64_t op = p->ctas[c].op_begin + p->ctas[c].op_count - 1; op >= p->ctas[c].op_begin; op--)
            backward_node(sv, op, c);
        backward_node(sv, sv->n + c, -1);
    }
}

/* Slack 0 of CTA c's ops (backward_op's rule), last to first, its CTAs after it done; in the flags as 0 or
 * 1 (IS_CRITICAL), where the engine recorded start_by: the flags hold nothing else then. */
static void backward_recorded_cta(Solver *sv, int32_t c)
{
    const SimProgram *p = sv->p;
    const int64_t *start = sv->s->start_ns;
    int32_t unit = sv->s->cta_unit[c], next_cta = sv->next_on_unit[c];
    bool is_next_cta_tight_at = next_cta >= 0 && sv->flags[sv->n + next_cta]; /* then its dispatch time: */
    int64_t next_cta_at = next_cta >= 0 ? sv->s->cta_dispatch_ns[next_cta] : -1, begin = p->ctas[c].op_begin;
    int64_t k_end = sim_program_out_begin(p, begin + p->ctas[c].op_count); /* a CTA's out-edges are one run */
    for (int64_t v = begin + p->ctas[c].op_count - 1; v >= begin; v--) {
        int64_t end = start[v] + sim_op_duration_ns(p, v), next = sim_program_next_on_engine_in(p, v, c);
        int64_t k = sim_program_out_begin(p, v);
        bool is_critical = end == sv->cp_ns || (next >= 0 ? sv->flags[next] && start[next] == end
                                                            : is_next_cta_tight_at && next_cta_at == end);
        for (int64_t j = k; !is_critical && j < k_end; j++) {
            int64_t e = sim_program_out_edge(p, j), to = sim_edge_to(p, e);
            is_critical = sv->flags[to] && start[to] == end + latency(sv, e, v, unit, unit_of(sv, to));
        }
        sv->flags[v] = is_critical;
        k_end = k;
    }
}

static void backward_recorded(Solver *sv)
{
    for (int32_t c = sv->p->cta_count - 1; c >= 0; c--) {
        backward_recorded_cta(sv, c);
        backward_node(sv, sv->n + c, -1);
    }
}

/* The chain depth of CTA c's dispatch: one past its unit's previous CTA's last ops on their engines. */
static int32_t dispatch_depth(const Solver *sv, int32_t c)
{
    const SimProgram *p = sv->p;
    int32_t prev = sv->prev_on_unit[c], depth = 0;
    for (int64_t op = prev >= 0 ? p->ctas[prev].op_begin : 0;
         prev >= 0 && op < p->ctas[prev].op_begin + p->ctas[prev].op_count; op++)
        if (sim_program_next_on_engine_in(p, op, prev) < 0)
            depth = MAX(depth, sv->depth[op] + 1);
    return depth;
}

/* Op v's chain depth, its in-edges from k_begin to k_end and its previous op on its engine at depth before
 * (its dispatch's where it is the first), and the Lemma 1 violations of its ACCUM in-edges. */
static int32_t depth_of_op(const Solver *sv, int64_t k_begin, int64_t k_end, int32_t unit, int32_t before,
                           SimAnalysis *out)
{
    const SimProgram *p = sv->p;
    int32_t depth = before + 1;
    bool has_accum = false;
    for (int64_t k = k_begin; k < k_end; k++) {
        int64_t e = sim_program_in_edge(p, k), u = sim_edge_from(p, e);
        if (sim_edge_kind(p, e) == SIM_EDGE_ACCUM)
            has_accum = true;
        else if (unit_of(sv, u) == unit)
            depth = MAX(depth, sv->depth[u] + 1);
    }
    for (int64_t k = k_begin; has_accum && k < k_end; k++) {
        int64_t e = sim_program_in_edge(p, k);
        out->lemma1_violations += sim_edge_kind(p, e) == SIM_EDGE_ACCUM && sv->depth[sim_edge_from(p, e)] >= depth;
    }
    return depth;
}

/* Where the engine recorded what set every start (s->start_by: its fast path ran in CTA order, which is
 * then topological, every in-edge coming from an earlier op), each start is the earliest by its making and
 * the critical path ends at the makespan: of the forward pass only the chain depths are left, in CTA order. */
static void depth_in_cta_order(Solver *sv, SimAnalysis *out)
{
    const SimProgram *p = sv->p;
    int32_t last[SIM_ENGINES_MAX]; /* per engine: the depth of the CTA's previous op on it */
    for (int32_t c = 0; c < p->cta_count; c++) {
        int32_t d = dispatch_depth(sv, c), unit = sv->s->cta_unit[c];
        sv->depth[sv->n + c] = d;
        for (int k = 0; k < p->engines_per_unit; k++)
            last[k] = d;
        int64_t v = p->ctas[c].op_begin, k = sim_program_in_begin(p, v); /* a CTA's in-edges are one run */
        for (; v < p->ctas[c].op_begin + p->ctas[c].op_count; v++) {
            int engine = sim_op_engine(p, v);
            int64_t k_end = sim_program_in_end(p, v);
            sv->depth[v] = last[engine] = depth_of_op(sv, k, k_end, unit, last[engine], out);
            k = k_end;
        }
    }
    sv->cp_ns = sv->s->makespan_ns;
}

/* Both passes in CTA order: every array is then read front to back, where the completion order interleaves
 * all running CTAs (one stream per CTA and array, far more than the hardware prefetcher follows: the cost
 * per task of that order grows with the ops in flight). The recurrences have one solution in any
 * topological order, so the results are those of the completion order. */
static bool solve_in_cta_order(Solver *sv, bool has_critical, int64_t nodes)
{
    const SimProgram *p = sv->p;
    for (int32_t c = 0; c < p->cta_count; c++) {
        if (!forward_node(sv, sv->n + c, nodes))
            return false;
        for (int64_t op = p->ctas[c].op_begin; op < p->ctas[c].op_begin + p->ctas[c].op_count; op++)
            if (!forward_node(sv, op, nodes))
                return false;
    }
    if (has_critical)
        backward_in_cta_order(sv);
    return true;
}

static bool solve(Solver *sv, bool has_critical)
{
    const int32_t *order = sv->s->order;
    int64_t nodes = sv->n + sv->p->cta_count;
    if (sim_program_is_edge_order_forward(sv->p))
        return solve_in_cta_order(sv, has_critical, nodes);
    if (!order) /* the engine leaves it out only where edges run forward */
        return false;
    for (int64_t i = 0; i < nodes; i++)
        if (!forward_node(sv, order[i], nodes))
            return false;
    for (int64_t i = nodes - 1; has_critical && i >= 0; i--)
        backward_node(sv, order[i], -1);
    return true;
}

/* Whether the chain depths have a closed form: one engine per unit and ACCUM edges alone (never chain
 * edges), so the only chains are program order and the dispatches: op i of CTA c at depth first(c) + i. */
static bool is_depth_closed(const SimProgram *p)
{
    return p->engines_per_unit == 1 && !(p->has_kind_latency & ~(1u << SIM_EDGE_ACCUM));
}

/* Lemma 1's count from that closed form, with no depth per op: first(c) is 1 past its dispatch's depth,
 * which is one past its unit's previous CTA's last op (first(prev) + ops(prev) - 1), or 0. */
static void lemma1_closed(const Solver *sv, SimAnalysis *out)
{
    const SimProgram *p = sv->p;
    int64_t *offset = g_new(int64_t, p->cta_count); /* op's depth - op, for the ops of CTA c */
    for (int32_t c = 0; c < p->cta_count; c++) {
        int32_t prev = sv->prev_on_unit[c];
        int64_t first = prev < 0 ? 1 : offset[prev] + p->ctas[prev].op_begin + p->ctas[prev].op_count + 1;
        offset[c] = first - p->ctas[c].op_begin;
    }
    for (int64_t e = 0; e < p->edge_count; e++) {
        int64_t from = sim_edge_from(p, e), to = sim_edge_to(p, e);
        out->lemma1_violations += offset[sim_op_cta(p, from)] + from >= offset[sim_op_cta(p, to)] + to;
    }
    g_free(offset);
}

/* The analysis where the engine recorded what set every start (depth_in_cta_order says why that leaves
 * the depths and the backward pass): the depths only where they have no closed form, the flags only for
 * is_critical. */
static void analyze_recorded(Solver *sv, bool has_critical, SimAnalysis *out)
{
    int64_t nodes = sv->n + sv->p->cta_count;
    if (is_depth_closed(sv->p)) {
        lemma1_closed(sv, out);
        sv->cp_ns = sv->s->makespan_ns;
    } else {
        sv->depth = SIM_PREFAULT_NEW(int32_t, nodes); /* written whole */
        depth_in_cta_order(sv, out);
    }
    if (has_critical) {
        sv->flags = SIM_PREFAULT_NEW0(uint8_t, nodes);
        backward_recorded(sv);
    }
}

bool sim_analyze_order(const SimProgram *p, const SimSchedule *s, bool has_critical, SimAnalysis *out)
{
    int64_t nodes = p->op_count + p->cta_count;
    Solver sv = { .p = p, .s = s, .n = p->op_count, .prev_on_unit = g_new(int32_t, p->cta_count),
                  .next_on_unit = g_new(int32_t, p->cta_count), .prev_launch = g_new(int32_t, p->cta_count),
                  .next_launch = g_new(int32_t, p->cta_count) };
    link_ctas(&sv);
    bool ok = true;
    if (s->start_by) {
        analyze_recorded(&sv, has_critical, out);
    } else {
        sv.depth = SIM_PREFAULT_NEW0(int32_t, nodes), sv.flags = SIM_PREFAULT_NEW0(uint8_t, nodes);
        if ((ok = solve(&sv, has_critical)))
            for (int64_t e = 0; e < p->edge_count; e++)
                out->lemma1_violations += sim_edge_kind(p, e) == SIM_EDGE_ACCUM &&
                                          sv.depth[sim_edge_from(p, e)] >= sv.depth[sim_edge_to(p, e)];
    }
    if (ok) {
        out->critical_path_ns = sv.cp_ns;
        breakdown(&sv, out);
    }
    g_free(sv.depth);
    g_free(sv.prev_on_unit), g_free(sv.next_on_unit), g_free(sv.prev_launch), g_free(sv.next_launch);
    if (ok && has_critical) { /* the flags become is_critical: one byte per op, 0 or 1 */
        for (int64_t op = 0; !s->start_by && op < p->op_count; op++) /* with start_by they are already */
            sv.flags[op] = (sv.flags[op] & IS_CRITICAL) != 0;
        out->is_critical = g_renew(uint8_t, sv.flags, MAX(p->op_count, 1));
    } else {
        g_free(sv.flags);
    }
    return ok;
}

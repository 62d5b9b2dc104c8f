/* Building and sealing an engine-level program. Growth is geometric, so building is O(ops + edges);
 * sealing derives the adjacency (CSR in both directions, offsets in two levels where they fit) and the
 * implicit per-engine program order. Narrow fields widen on the first value that needs it. */
#include "program.h"

#include <glib.h>
#include <string.h>

#include "prefault.h"

SimProgram *sim_program_new(int32_t n_units, int32_t engines_per_unit)
{
    SimProgram *p = g_new0(SimProgram, 1);
    p->n_units = n_units;
    p->engines_per_unit = engines_per_unit;
    return p;
}

static void offsets_clear(SimOffsets *o)
{
    g_free(o->full), g_free(o->base), g_free(o->rel);
    *o = (SimOffsets){ 0 };
}

void sim_program_free(SimProgram *p)
{
    if (!p)
        return;
    g_free(p->ctas);
    g_free(p->op_cta_base), g_free(p->op_cta_delta), g_free(p->op_task), g_free(p->op_duration_ns), g_free(p->op_duration_wide_ns);
    g_free(p->op_kind), g_free(p->op_engine);
    g_free(p->edge_from), g_free(p->edge_to), g_free(p->edge_kind), g_free(p->edge_latency_ns);
    g_free(p->unit_latency_ns);
    if (p->load) {
        g_free(p->load->extra_ns);
        g_free(p->load->handoff_extra_ns);
        g_free(p->load);
    }
    offsets_clear(&p->first_in), offsets_clear(&p->first_out);
    g_free(p->in_edge);
    g_free(p->out_edge);
    g_free(p->next_on_engine);
    g_free(p->is_first_on_engine);
    g_free(p);
}

/* Every per-op array to n entries (the ones in use: durations narrow or wide, engines with several). */
static void resize_ops(SimProgram *p, int64_t n)
{
    p->op_cta_base = g_renew(int32_t, p->op_cta_base, n / 256 + 1);
    p->op_cta_delta = g_renew(uint8_t, p->op_cta_delta, n);
    if (!p->is_taskless)
        p->op_task = g_renew(int32_t, p->op_task, n);
    if (p->op_duration_wide_ns)
        p->op_duration_wide_ns = g_renew(int64_t, p->op_duration_wide_ns, n);
    else
        p->op_duration_ns = g_renew(int32_t, p->op_duration_ns, n);
    p->op_kind = g_renew(uint8_t, p->op_kind, n);
    if (p->engines_per_unit > 1)
        p->op_engine = g_renew(uint8_t, p->op_engine, n);
    p->op_capacity = n;
}

static void resize_edges(SimProgram *p, int64_t n)
{
    p->edge_from = g_renew(int32_t, p->edge_from, n);
    p->edge_to = g_renew(int32_t, p->edge_to, n);
    p->edge_kind = g_renew(uint8_t, p->edge_kind, n);
    if (p->edge_latency_ns)
        p->edge_latency_ns = g_renew(int32_t, p->edge_latency_ns, n);
    p->edge_capacity = n;
}

void sim_program_reserve(SimProgram *p, int64_t ops, int64_t edges)
{
    if (ops > p->op_capacity)
        resize_ops(p, ops);
    if (edges > p->edge_capacity)
        resize_edges(p, edges);
}

void sim_program_prefault(SimProgram *p)
{
    size_t ops = (size_t)p->op_capacity, edges = (size_t)p->edge_capacity;
    sim_prefault(p->op_cta_delta, ops), sim_prefault(p->op_task, ops * 4), sim_prefault(p->op_kind, ops);
    sim_prefault(p->op_duration_ns, ops * 4), sim_prefault(p->op_engine, ops);
    sim_prefault(p->edge_from, edges * 4), sim_prefault(p->edge_to, edges * 4), sim_prefault(p->edge_kind, edges);
}

int32_t sim_program_add_cta(SimProgram *p, int32_t pinned_unit)
{
    if (p->cta_count == p->cta_capacity) {
        p->cta_capacity = p->cta_capacity ? 2 * p->cta_capacity : 64;
        p->ctas = g_renew(SimCta, p->ctas, p->cta_capacity);
    }
    p->ctas[p->cta_count] = (SimCta){ .pinned_unit = pinned_unit, .op_begin = (int32_t)p->op_count };
    return p->cta_count++;
}

void sim_program_set_duration(SimProgram *p, int64_t op, int64_t duration_ns)
{
    g_assert(op >= 0 && op < p->op_capacity && duration_ns >= 0 && duration_ns < SIM_OP_MAX_DURATION_NS);
    if (p->op_duration_ns && duration_ns > INT32_MAX) { /* widen: durations past 2.1 s are rare */
        p->op_duration_wide_ns = g_new(int64_t, p->op_capacity);
        for (int64_t i = 0; i < p->op_count; i++)
            p->op_duration_wide_ns[i] = p->op_duration_ns[i];
        g_free(p->op_duration_ns);
        p->op_duration_ns = NULL;
    }
    if (p->op_duration_ns)
        p->op_duration_ns[op] = (int32_t)duration_ns;
    else
        p->op_duration_wide_ns[op] = duration_ns;
}

/* sim_program_add_op's every case (it takes the common one inline): the arrays full, wide durations. */
int64_t sim_program_add_op_grown(SimProgram *p, int engine, SimOpKind kind, int64_t duration_ns, int32_t task)
{
    g_assert(p->cta_count > 0 && engine >= 0 && engine < p->engines_per_unit && engine < SIM_ENGINES_MAX);
    if (p->op_count == p->op_capacity)
        resize_ops(p, p->op_capacity ? 2 * p->op_capacity : 1024);
    int64_t op = p->op_count++;
    int32_t cta = p->cta_count - 1;
    if (op % 256 == 0)
        p->op_cta_base[op / 256] = cta;
    g_assert(cta - p->op_cta_base[op / 256] <= UINT8_MAX); /* no 255 empty CTAs among 256 ops */
    p->op_cta_delta[op] = (uint8_t)(cta - p->op_cta_base[op / 256]);
    if (p->op_task)
        p->op_task[op] = task;
    p->op_kind[op] = (uint8_t)kind;
    if (p->op_engine)
        p->op_engine[op] = (uint8_t)engine;
    sim_program_set_duration(p, op, duration_ns);
    p->ctas[p->cta_count - 1].op_count++;
    return op;
}

/* sim_program_add_edge's every case (it takes the common one inline). */
void sim_program_add_edge_grown(SimProgram *p, int64_t from, int64_t to, int32_t latency_ns, SimEdgeKind kind)
{
    g_assert(from >= 0 && to >= 0 && latency_ns >= 0 && kind < SIM_EDGE_KIND_COUNT);
    if (p->edge_count == p->edge_capacity)
        resize_edges(p, p->edge_capacity ? 2 * p->edge_capacity : 1024);
    int64_t e = p->edge_count++;
    if (!(p->has_kind_latency >> kind & 1))
        p->kind_latency_ns[kind] = latency_ns, p->has_kind_latency |= (uint8_t)(1u << kind);
    if (!p->edge_latency_ns && latency_ns != p->kind_latency_ns[kind]) { /* latencies of one kind differ */
        p->edge_latency_ns = g_new(int32_t, p->edge_capacity);
        for (int64_t i = 0; i < e; i++)
            p->edge_latency_ns[i] = p->kind_latency_ns[p->edge_kind[i]];
    }
    p->edge_from[e] = (int32_t)from, p->edge_to[e] = (int32_t)to, p->edge_kind[e] = (uint8_t)kind;
    if (p->edge_latency_ns)
        p->edge_latency_ns[e] = latency_ns;
}

void sim_program_drop_tasks(SimProgram *p)
{
    g_free(p->op_task);
    p->op_task = NULL;
    p->is_taskless = true;
}

/* Offsets in two levels (SimOffsets) from the degrees counted into rel: each rel[v] becomes the start of
 * v's run relative to its block's base (the start of the block's first op). False where a block's span
 * passes 255. */
static bool sum_in_blocks(int64_t n, SimOffsets *o)
{
    int64_t total = 0;
    for (int64_t b = 0; b <= n / 32; b++) {
        o->base[b] = (int32_t)total;
        int32_t r = 0;
        for (int64_t v = 32 * b; v < MIN(32 * b + 32, n + 1); v++) {
            int32_t degree = o->rel[v];
            o->rel[v] = (uint8_t)r;
            r += degree;
        }
        if (r > UINT8_MAX) /* the next block's start (or the end), relative to this base */
            return false;
        total += r;
    }
    return true;
}

/* The same in full: first[v] the start of v's run. */
static void sum_in_full(const int32_t *end, int64_t edges, int64_t n, SimOffsets *o)
{
    o->full = SIM_PREFAULT_NEW0(int32_t, n + 1);
    for (int64_t e = 0; e < edges; e++)
        o->full[end[e] + 1]++;
    for (int64_t v = 0; v < n; v++)
        o->full[v + 1] += o->full[v];
}

/* One direction of the adjacency: a counting sort of edge ids by end[e] (edge_to or edge_from). The fill
 * pass moves each offset to the end of its run, where the next op's starts (within a block, the next op's
 * rel; at a block's end, 0 relative to the next base): one shift puts them back. With edges already in
 * order of end, no ids (NULL): the ids are the identity. */
static int32_t *build_csr(const SimProgram *p, const int32_t *end, SimOffsets *o)
{
    int64_t n = p->op_count, edges = p->edge_count;
    bool is_sorted = true, fits = true;
    o->base = g_new(int32_t, n / 32 + 1), o->rel = SIM_PREFAULT_NEW0(uint8_t, n + 1);
    for (int64_t e = 0; e < edges; e++) {
        g_assert(end[e] < n);
        is_sorted &= e == 0 || end[e - 1] <= end[e];
        fits &= o->rel[end[e]]++ < UINT8_MAX;
    }
    if (!fits || !sum_in_blocks(n, o)) {
        g_free(o->base), g_free(o->rel);
        *o = (SimOffsets){ 0 };
        sum_in_full(end, edges, n, o);
    }
    if (is_sorted)
        return NULL;
    int32_t *ids = SIM_PREFAULT_NEW(int32_t, edges);
    if (o->full) {
        for (int64_t e = 0; e < edges; e++)
            ids[o->full[end[e]]++] = (int32_t)e;
        memmove(o->full + 1, o->full, sizeof *o->full * (size_t)n);
        o->full[0] = 0;
        return ids;
    }
    for (int64_t e = 0; e < edges; e++)
        ids[o->base[end[e] / 32] + o->rel[end[e]]++] = (int32_t)e;
    memmove(o->rel + 1, o->rel, (size_t)n);
    for (int64_t v = 0; v <= n; v += 32)
        o->rel[v] = 0;
    return ids;
}

void sim_program_seal(SimProgram *p)
{
    g_assert(!p->first_in.full && !p->first_in.rel && p->op_count < INT32_MAX && p->edge_count < INT32_MAX);
    p->out_edge = build_csr(p, p->edge_from, &p->first_out);
    p->in_edge = build_csr(p, p->edge_to, &p->first_in);
    if (p->engines_per_unit == 1) /* program order is op order: sim_program_next_on_engine */
        return;
    p->next_on_engine = g_new(int32_t, p->op_count);
    p->is_first_on_engine = g_new(bool, p->op_count);
    int32_t last[SIM_ENGINES_MAX];
    for (int32_t c = 0; c < p->cta_count; c++) {
        for (int k = 0; k < p->engines_per_unit; k++)
            last[k] = -1;
        for (int32_t i = p->ctas[c].op_begin; i < p->ctas[c].op_begin + p->ctas[c].op_count; i++) {
            int k = sim_op_engine(p, i);
            p->next_on_engine[i] = -1;
            p->is_first_on_engine[i] = last[k] < 0;
            if (last[k] >= 0)
                p->next_on_engine[last[k]] = i;
            last[k] = i;
        }
    }
}

bool sim_program_is_edge_order_forward(const SimProgram *p)
{
    int32_t is_forward[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }; /* no early exit, eight lanes: GCC vectorizes it at -O2 */
    int64_t k = 0;
    for (; k + 8 <= p->edge_count; k += 8)
        for (int j = 0; j < 8; j++)
            is_forward[j] &= p->edge_from[k + j] < p->edge_to[k + j];
    for (; k < p->edge_count; k++)
        is_forward[0] &= p->edge_from[k] < p->edge_to[k];
    for (int j = 1; j < 8; j++)
        is_forward[0] &= is_forward[j];
    return is_forward[0];
}

int64_t sim_program_lasting_ops(const SimProgram *p)
{
    int64_t count = 0;
    if (!p->op_duration_ns) {
        for (int64_t op = 0; op < p->op_count; op++)
            count += p->op_duration_wide_ns[op] > 0;
        return count;
    }
    int32_t lanes[8] = { 0 }; /* eight lanes (ops < 2^31: below 2^28 each), a loop GCC vectorizes at -O2 */
    int64_t op = 0;
    for (; op + 8 <= p->op_count; op += 8)
        for (int j = 0; j < 8; j++)
            lanes[j] += p->op_duration_ns[op + j] > 0;
    for (int j = 0; j < 8; j++)
        count += lanes[j];
    for (; op < p->op_count; op++)
        count += p->op_duration_ns[op] > 0;
    return count;
}

int64_t sim_program_edge_latency(const SimProgram *p, int64_t e, int32_t u_from, int32_t u_to)
{
    if (u_from == u_to)
        return 0;
    if (p->unit_latency_ns && sim_edge_kind(p, e) == SIM_EDGE_ACCUM)
        return p->unit_latency_ns[(int64_t)u_from * p->n_units + u_to];
    return sim_edge_latency_ns(p, e);
}

void sim_program_set_load(SimProgram *p, const SimLoadModel *load)
{
    g_assert(!p->load && load->extra_len >= 1 && load->issue_ppm >= 1 && load->issue_ppm <= 1000000 &&
             load->capacity_milli >= 0);
    p->load = g_new(SimLoadModel, 1);
    *p->load = *load;
    p->load->extra_ns = g_memdup2(load->extra_ns, sizeof(int32_t) * (load->extra_len + 1));
    p->load->handoff_extra_ns = NULL;
    p->load->handoff_len = 0;
    if (load->handoff_extra_ns && load->handoff_len >= 1) {
        p->load->handoff_extra_ns = g_memdup2(load->handoff_extra_ns, sizeof(int32_t) * (load->handoff_len + 1));
        p->load->handoff_len = load->handoff_len;
    }
}

const char *sim_op_kind_name(SimOpKind kind)
{
    static const char *const names[] = { "compute", "reduce", "vector", "sync", "write" };
    return kind < SIM_OP_KIND_COUNT ? names[kind] : "?";
}

const char *sim_edge_kind_name(SimEdgeKind kind)
{
    static const char *const names[] = { "phase", "accum", "buffer", "data" };
    return kind < SIM_EDGE_KIND_COUNT ? names[kind] : "?";
}

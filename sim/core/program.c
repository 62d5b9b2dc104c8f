/* Building and sealing an engine-level program. Growth is geometric, so building is O(ops + edges);
 * sealing derives the adjacency (CSR in both directions) and the implicit per-engine program order. */
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

void sim_program_free(SimProgram *p)
{
    if (!p)
        return;
    g_free(p->ctas);
    g_free(p->ops);
    g_free(p->edges);
    g_free(p->unit_latency_ns);
    if (p->load) {
        g_free(p->load->extra_ns);
        g_free(p->load->handoff_extra_ns);
        g_free(p->load);
    }
    g_free(p->first_in);
    g_free(p->in_edge);
    g_free(p->first_out);
    g_free(p->out_edge);
    g_free(p->next_on_engine);
    g_free(p->is_first_on_engine);
    g_free(p);
}

void sim_program_reserve(SimProgram *p, int64_t ops, int64_t edges)
{
    if (ops > p->op_capacity)
        p->ops = g_renew(SimOp, p->ops, p->op_capacity = ops);
    if (edges > p->edge_capacity)
        p->edges = g_renew(SimEdge, p->edges, p->edge_capacity = edges);
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

int64_t sim_program_add_op(SimProgram *p, int engine, SimOpKind kind, int64_t duration_ns, int32_t task)
{
    g_assert(p->cta_count > 0 && engine >= 0 && engine < p->engines_per_unit && engine < 256 && duration_ns >= 0 &&
             duration_ns < SIM_OP_MAX_DURATION_NS);
    if (p->op_count == p->op_capacity) {
        p->op_capacity = p->op_capacity ? 2 * p->op_capacity : 1024;
        p->ops = g_renew(SimOp, p->ops, p->op_capacity);
    }
    p->ops[p->op_count] = (SimOp){ .cta = p->cta_count - 1, .task = task, .engine = (uint64_t)engine,
                                   .kind = (uint64_t)kind, .duration_ns = duration_ns };
    p->ctas[p->cta_count - 1].op_count++;
    return p->op_count++;
}

void sim_program_add_edge(SimProgram *p, int64_t from, int64_t to, int32_t latency_ns, SimEdgeKind kind)
{
    g_assert(from >= 0 && to >= 0 && latency_ns >= 0);
    if (p->edge_count == p->edge_capacity) {
        p->edge_capacity = p->edge_capacity ? 2 * p->edge_capacity : 1024;
        p->edges = g_renew(SimEdge, p->edges, p->edge_capacity);
    }
    p->edges[p->edge_count++] = (SimEdge){ .from = (int32_t)from, .to = (int32_t)to,
                                           .latency_ns = latency_ns, .kind = (uint8_t)kind };
}

/* Counting sort of edge ids by both endpoints, in one pass over the edges for the counts and one for the
 * ids: first_in[v]..first_in[v+1] index v's incoming edges in in_edge, likewise out. The fill pass moves
 * each first_*[v] to the end of v's run, where v + 1's starts: one shift puts them back, no copy needed. */
static void build_csr(SimProgram *p)
{
    int64_t n = p->op_count;
    int32_t *fi = SIM_PREFAULT_NEW0(int32_t, n + 1), *fo = SIM_PREFAULT_NEW0(int32_t, n + 1);
    for (int64_t e = 0; e < p->edge_count; e++) {
        g_assert(p->edges[e].from < n && p->edges[e].to < n);
        fi[p->edges[e].to + 1]++, fo[p->edges[e].from + 1]++;
    }
    for (int64_t v = 0; v < n; v++)
        fi[v + 1] += fi[v], fo[v + 1] += fo[v];
    int32_t *in = SIM_PREFAULT_NEW(int32_t, p->edge_count), *out = SIM_PREFAULT_NEW(int32_t, p->edge_count);
    for (int64_t e = 0; e < p->edge_count; e++)
        in[fi[p->edges[e].to]++] = (int32_t)e, out[fo[p->edges[e].from]++] = (int32_t)e;
    memmove(fi + 1, fi, sizeof *fi * (size_t)n), memmove(fo + 1, fo, sizeof *fo * (size_t)n);
    fi[0] = fo[0] = 0;
    p->first_in = fi, p->in_edge = in, p->first_out = fo, p->out_edge = out;
}

void sim_program_seal(SimProgram *p)
{
    g_assert(!p->first_in && p->op_count < INT32_MAX && p->edge_count < INT32_MAX);
    build_csr(p);
    if (p->engines_per_unit == 1) /* program order is op order: sim_program_next_on_engine */
        return;
    p->next_on_engine = g_new(int32_t, p->op_count);
    p->is_first_on_engine = g_new(bool, p->op_count);
    int32_t last[256];
    for (int32_t c = 0; c < p->cta_count; c++) {
        for (int k = 0; k < p->engines_per_unit; k++)
            last[k] = -1;
        for (int32_t i = p->ctas[c].op_begin; i < p->ctas[c].op_begin + p->ctas[c].op_count; i++) {
            int k = p->ops[i].engine;
            p->next_on_engine[i] = -1;
            p->is_first_on_engine[i] = last[k] < 0;
            if (last[k] >= 0)
                p->next_on_engine[last[k]] = i;
            last[k] = i;
        }
    }
}

int64_t sim_program_edge_latency(const SimProgram *p, int64_t e, int32_t u_from, int32_t u_to)
{
    if (u_from == u_to)
        return 0;
    const SimEdge *edge = &p->edges[e];
    if (p->unit_latency_ns && edge->kind == SIM_EDGE_ACCUM)
        return p->unit_latency_ns[(int64_t)u_from * p->n_units + u_to];
    return edge->latency_ns;
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

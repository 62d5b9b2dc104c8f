/* DAG analysis on igraph. igraph gives the topological order (and rejects cycles); the longest-path,
 * slack and depth recurrences then run over our own CSR arrays in that order, O(V + E), so a 1M-node
 * graph is analysed in well under a second. igraph runs with the library's own error handler (no abort), the host's put back after. */
#include "dag.h"

#include <glib.h>
#include <igraph.h>
#include <stdio.h>

struct Dag {
    int64_t n;
    int64_t *weight;          /* per node */
    uint8_t *kind;
    int32_t *from, *to;       /* per edge */
    int64_t *edge_weight;
    uint8_t *edge_kind;
    bool *is_chain;
    int64_t m, capacity;
    /* after dag_solve */
    int64_t *est, *tail;      /* longest path to the node's start; from its start to any sink */
    int32_t *depth;
    int64_t cp_ns;
    int64_t *path_nodes, *path_edges, path_len;
};

Dag *dag_new(int64_t node_count)
{
    Dag *g = g_new0(Dag, 1);
    g->n = node_count;
    g->weight = g_new0(int64_t, node_count);
    g->kind = g_new0(uint8_t, node_count);
    return g;
}

void dag_free(Dag *g)
{
    if (!g)
        return;
    g_free(g->weight), g_free(g->kind);
    g_free(g->from), g_free(g->to), g_free(g->edge_weight), g_free(g->edge_kind), g_free(g->is_chain);
    g_free(g->est), g_free(g->tail), g_free(g->depth);
    g_free(g->path_nodes), g_free(g->path_edges);
    g_free(g);
}

int64_t dag_node_count(const Dag *g) { return g->n; }
int64_t dag_edge_count(const Dag *g) { return g->m; }
int64_t dag_node_weight_ns(const Dag *g, int64_t v) { return g->weight[v]; }
int dag_node_kind(const Dag *g, int64_t v) { return g->kind[v]; }
int64_t dag_edge_weight_ns(const Dag *g, int64_t e) { return g->edge_weight[e]; }
int dag_edge_kind(const Dag *g, int64_t e) { return g->edge_kind[e]; }
int64_t dag_critical_path_ns(const Dag *g) { return g->cp_ns; }
int64_t dag_earliest_start_ns(const Dag *g, int64_t v) { return g->est[v]; }
int64_t dag_slack_ns(const Dag *g, int64_t v) { return g->cp_ns - g->est[v] - g->tail[v]; }
int64_t dag_depth(const Dag *g, int64_t v) { return g->depth[v]; }

void dag_set_node(Dag *g, int64_t v, int64_t weight_ns, int kind)
{
    g_assert(v >= 0 && v < g->n && weight_ns >= 0);
    g->weight[v] = weight_ns;
    g->kind[v] = (uint8_t)kind;
}

int64_t dag_add_edge(Dag *g, int64_t u, int64_t v, int64_t weight_ns, int kind, bool is_chain)
{
    g_assert(u >= 0 && u < g->n && v >= 0 && v < g->n && weight_ns >= 0);
    if (g->m == g->capacity) {
        g->capacity = g->capacity ? 2 * g->capacity : 1024;
        g->from = g_renew(int32_t, g->from, g->capacity);
        g->to = g_renew(int32_t, g->to, g->capacity);
        g->edge_weight = g_renew(int64_t, g->edge_weight, g->capacity);
        g->edge_kind = g_renew(uint8_t, g->edge_kind, g->capacity);
        g->is_chain = g_renew(bool, g->is_chain, g->capacity);
    }
    g->from[g->m] = (int32_t)u, g->to[g->m] = (int32_t)v;
    g->edge_weight[g->m] = weight_ns;
    g->edge_kind[g->m] = (uint8_t)kind;
    g->is_chain[g->m] = is_chain;
    return g->m++;
}

/* Debian's igraph is built without thread safety (IGRAPH_THREAD_SAFE 0): its error state is global,
 * so every igraph call runs under this lock; the O(V + E) recurrences run outside it. */
static GMutex igraph_lock;

static bool topological_order_locked(const Dag *g, int64_t *order);

/* The library's own igraph handlers, installed around each igraph call and the host's put back after:
 * an igraph error (out of memory, a size it cannot hold) frees igraph's temporaries and comes back as a
 * return code, never igraph's default abort, and warnings are not printed on the host's stderr. */
static void on_igraph_error(const char *reason, const char *file, int line, igraph_error_t code)
{
    (void)reason, (void)file, (void)line, (void)code;
    IGRAPH_FINALLY_FREE();
}

static void on_igraph_warning(const char *reason, const char *file, int line)
{
    (void)reason, (void)file, (void)line;
}

/* Topological order through igraph. False if the graph has a cycle or igraph failed. */
static bool topological_order(const Dag *g, int64_t *order)
{
    g_mutex_lock(&igraph_lock);
    igraph_error_handler_t *host_error = igraph_set_error_handler(on_igraph_error);
    igraph_warning_handler_t *host_warning = igraph_set_warning_handler(on_igraph_warning);
    bool ok = topological_order_locked(g, order);
    igraph_set_error_handler(host_error);
    igraph_set_warning_handler(host_warning);
    g_mutex_unlock(&igraph_lock);
    return ok;
}

static bool topological_order_locked(const Dag *g, int64_t *order)
{
    igraph_vector_int_t edges, res;
    igraph_t graph;
    if (igraph_vector_int_init(&edges, 2 * g->m) != IGRAPH_SUCCESS)
        return false;
    for (int64_t e = 0; e < g->m; e++) {
        VECTOR(edges)[2 * e] = g->from[e];
        VECTOR(edges)[2 * e + 1] = g->to[e];
    }
    bool ok = igraph_create(&graph, &edges, g->n, IGRAPH_DIRECTED) == IGRAPH_SUCCESS;
    igraph_vector_int_destroy(&edges);
    if (!ok)
        return false;
    ok = igraph_vector_int_init(&res, 0) == IGRAPH_SUCCESS;
    if (!ok) {
        igraph_destroy(&graph);
        return false;
    }
    ok = igraph_topological_sorting(&graph, &res, IGRAPH_OUT) == IGRAPH_SUCCESS &&
         igraph_vector_int_size(&res) == g->n;
    for (int64_t i = 0; ok && i < g->n; i++)
        order[i] = VECTOR(res)[i];
    igraph_vector_int_destroy(&res);
    igraph_destroy(&graph);
    return ok;
}

/* first[v]..first[v+1] index the edges into v in ids. */
static void in_edges(const Dag *g, int64_t **first, int64_t **ids)
{
    const int32_t *key = g->to;
    int64_t *f = g_new0(int64_t, g->n + 1), *o = g_new(int64_t, g->m);
    for (int64_t e = 0; e < g->m; e++)
        f[key[e] + 1]++;
    for (int64_t v = 0; v < g->n; v++)
        f[v + 1] += f[v];
    int64_t *fill = g_memdup2(f, sizeof *f * (g->n + 1));
    for (int64_t e = 0; e < g->m; e++)
        o[fill[key[e]]++] = e;
    g_free(fill);
    *first = f, *ids = o;
}

/* Walks back from the node that ends last, always through the lowest-id binding in-edge. */
static void trace_critical_path(Dag *g, const int64_t *first_in, const int64_t *in)
{
    int64_t v = -1;
    for (int64_t u = 0; u < g->n; u++)
        if (g->est[u] + g->weight[u] == g->cp_ns && v < 0)
            v = u;
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(int64_t)), *edges = g_array_new(FALSE, FALSE, sizeof(int64_t));
    while (v >= 0) {
        g_array_append_val(nodes, v);
        int64_t next = -1;
        for (int64_t k = first_in[v]; k < first_in[v + 1] && next < 0; k++) {
            int64_t e = in[k], u = g->from[e];
            if (g->est[u] + g->weight[u] + g->edge_weight[e] == g->est[v]) {
                g_array_append_val(edges, e);
                next = u;
            }
        }
        v = next;
    }
    g->path_len = nodes->len;
    g->path_nodes = g_new(int64_t, nodes->len);
    g->path_edges = g_new(int64_t, MAX(edges->len, 1));
    for (guint i = 0; i < nodes->len; i++)
        g->path_nodes[i] = g_array_index(nodes, int64_t, nodes->len - 1 - i);
    for (guint i = 0; i < edges->len; i++)
        g->path_edges[i] = g_array_index(edges, int64_t, edges->len - 1 - i);
    g_array_free(nodes, TRUE), g_array_free(edges, TRUE);
}

SimStatus dag_solve(Dag *g, SimError *err)
{
    int64_t *order = g_new(int64_t, g->n);
    if (!topological_order(g, order)) {
        g_free(order);
        return sim_error_set(err, SIM_ERR_SCHEDULE, "the dependency graph has a cycle, so no schedule can "
                             "satisfy it");
    }
    int64_t *first_in, *in;
    in_edges(g, &first_in, &in);
    g->est = g_new0(int64_t, g->n), g->tail = g_new0(int64_t, g->n), g->depth = g_new0(int32_t, g->n);
    g->cp_ns = 0;
    for (int64_t i = 0; i < g->n; i++) {
        int64_t v = order[i];
        for (int64_t k = first_in[v]; k < first_in[v + 1]; k++) {
            int64_t e = in[k], u = g->from[e];
            g->est[v] = MAX(g->est[v], g->est[u] + g->weight[u] + g->edge_weight[e]);
            if (g->is_chain[e])
                g->depth[v] = MAX(g->depth[v], g->depth[u] + 1);
        }
        g->cp_ns = MAX(g->cp_ns, g->est[v] + g->weight[v]);
    }
    /* Reverse order: tail[v] is final once all successors pushed their best into it (kept in tail). */
    for (int64_t i = g->n - 1; i >= 0; i--) {
        int64_t v = order[i];
        g->tail[v] += g->weight[v];
        for (int64_t k = first_in[v]; k < first_in[v + 1]; k++) {
            int64_t e = in[k], u = g->from[e];
            g->tail[u] = MAX(g->tail[u], g->edge_weight[e] + g->tail[v]);
        }
    }
    trace_critical_path(g, first_in, in);
    g_free(order), g_free(first_in), g_free(in);
    return SIM_OK;
}

int64_t dag_critical_path(const Dag *g, const int64_t **nodes, const int64_t **edges)
{
    *nodes = g->path_nodes;
    *edges = g->path_edges;
    return g->path_len;
}

int64_t dag_count_depth_violations(const Dag *g, int edge_kind)
{
    int64_t count = 0;
    for (int64_t e = 0; e < g->m; e++)
        if (g->edge_kind[e] == edge_kind && g->depth[g->from[e]] >= g->depth[g->to[e]])
            count++;
    return count;
}

bool dag_write_dot(const Dag *g, FILE *f, void (*label)(int64_t v, char *buf, size_t len, void *ctx), void *ctx)
{
    char buf[128];
    fprintf(f, "digraph dashsim {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
    for (int64_t v = 0; v < g->n; v++) {
        label(v, buf, sizeof buf, ctx);
        fprintf(f, "  n%" G_GINT64_FORMAT " [label=\"%s\\n%" G_GINT64_FORMAT " ns\"%s];\n", v, buf,
                g->weight[v], g->est && dag_slack_ns(g, v) == 0 ? ", color=red" : "");
    }
    for (int64_t e = 0; e < g->m; e++)
        fprintf(f, "  n%d -> n%d [label=\"%" G_GINT64_FORMAT "\"%s];\n", g->from[e], g->to[e],
                g->edge_weight[e], g->is_chain[e] ? "" : ", style=dashed");
    fprintf(f, "}\n");
    return !ferror(f);
}

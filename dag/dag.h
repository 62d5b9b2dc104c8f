/* A weighted DAG of phases and its analysis: critical (longest) path, earliest start, slack and chain
 * depth per node, and the Lemma 1 count. Node weights are durations, edge weights latencies, in ns.
 * The only module that includes <igraph.h> (topological order, cycle detection); the graph is opaque.
 * Invariant after dag_solve: est[v] = max over in-edges (est[u] + w[u] + w[e]) and slack >= 0. */
#ifndef DAG_H
#define DAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

typedef struct Dag Dag;

/* A graph of node_count nodes (all weight 0, kind 0) and no edges. Free with dag_free. */
Dag *dag_new(int64_t node_count);
void dag_free(Dag *g);
int64_t dag_node_count(const Dag *g);
int64_t dag_edge_count(const Dag *g);
void dag_set_node(Dag *g, int64_t v, int64_t weight_ns, int kind);
/* is_chain: the edge belongs to its node's chain (same SM: program order, phase, buffer, dispatch);
 * only chain edges count toward depth. Returns the edge id (edges are numbered in insertion order). */
int64_t dag_add_edge(Dag *g, int64_t u, int64_t v, int64_t weight_ns, int kind, bool is_chain);

/* Orders and analyses the graph: O(V + E). SIM_ERR_SCHEDULE with a sentence if it has a cycle. */
SimStatus dag_solve(Dag *g, SimError *err);

/* After dag_solve. */
int64_t dag_critical_path_ns(const Dag *g);
int64_t dag_earliest_start_ns(const Dag *g, int64_t v);
int64_t dag_slack_ns(const Dag *g, int64_t v);
int64_t dag_depth(const Dag *g, int64_t v);
int64_t dag_node_weight_ns(const Dag *g, int64_t v);
int dag_node_kind(const Dag *g, int64_t v);
int64_t dag_edge_weight_ns(const Dag *g, int64_t e);
int dag_edge_kind(const Dag *g, int64_t e);
/* One critical path from a source to the node that ends last: nodes[0..len-1] and edges[0..len-2]
 * (edges[i] joins nodes[i] and nodes[i+1]). Ties go to the lowest edge id. Arrays owned by the graph. */
int64_t dag_critical_path(const Dag *g, const int64_t **nodes, const int64_t **edges);
/* Lemma 1: number of edges of the given kind from u to v with depth(u) >= depth(v) (node u must end
 * before v starts, so a depth-monotone edge has depth(u) < depth(v)). */
int64_t dag_count_depth_violations(const Dag *g, int edge_kind);

/* Graphviz DOT to f; label(v, buf, len, ctx) names each node; critical nodes (slack 0) are red and
 * cross-chain edges dashed. Returns false if a write failed. */
bool dag_write_dot(const Dag *g, FILE *f, void (*label)(int64_t v, char *buf, size_t len, void *ctx), void *ctx);

#endif

/* AMLA's Preload theorem (Liao et al. 2025, appendix B): the min-prefix-sum rotation (Theorem B.1), the ASAP
 * period of one isolated Cycle without the engine, and the exact minimum stall-free Preload count by brute force.
 * A Cycle is stall-free when its isolated run takes max(sum C, sum V): the critical engine then runs back
 * to back from 0, so the search fixes its order and packs the other engine's stages into windows. */
#include "pipeline_policy.h"

#include <glib.h>
#include <string.h>

void pipe_rotation(int n_pairs, const int64_t *c, const int64_t *v, PipeRotation *rot, PipeCycle *out)
{
    int n = n_pairs;
    int64_t sum_c = 0, sum_v = 0;
    *rot = (PipeRotation){ .k = n };
    for (int i = 0; i < n; i++) {
        rot->a_ns[i] = v[i] - c[(i + 1) % n];
        rot->prefix_ns[i + 1] = rot->prefix_ns[i] + rot->a_ns[i];
        sum_c += c[i], sum_v += v[i];
    }
    rot->is_cube_dominated = sum_v <= sum_c;
    for (int l = n; l >= 1; l--)   /* first argmin */
        if (rot->prefix_ns[l] <= rot->prefix_ns[rot->k])
            rot->k = l;
    int x = rot->k % n;            /* the pair whose C -> V edge crosses Cycles: 1-based k + 1 */
    *out = (PipeCycle){ .n_pairs = n };
    for (int t = 0; t < n; t++) {
        out->order[t] = 2 * ((x + 1 + t) % n);
        out->order[n + t] = 2 * ((x + t) % n) + 1;
    }
    for (int p = 0; p < n; p++) {
        out->offset[2 * p + 1] = out->offset[2 * p] + (p == x);
        if (p + 1 < n)
            out->offset[2 * p + 2] = out->offset[2 * p + 1] + 1;
    }
}

int64_t pipe_cycle_period_fast(const PipeCycle *cy, const int64_t *c, const int64_t *v)
{
    int s = 2 * cy->n_pairs, pos[2] = { 0, 0 }, seq[2][PIPE_MAX_STAGES], len[2] = { 0, 0 };
    int64_t end[PIPE_MAX_STAGES], free_at[2] = { 0, 0 }, makespan = 0;
    bool is_done[PIPE_MAX_STAGES] = { false };
    for (int i = 0; i < s; i++)
        seq[cy->order[i] % 2][len[cy->order[i] % 2]++] = cy->order[i];
    for (int done = 0; done < s;) {
        bool has_progress = false;
        for (int e = 0; e < 2; e++) {
            if (pos[e] == len[e])
                continue;
            int j = seq[e][pos[e]];
            bool is_internal = j > 0 && cy->offset[j - 1] == cy->offset[j];
            if (is_internal && !is_done[j - 1])
                continue;
            int64_t t = MAX(free_at[e], is_internal ? end[j - 1] : 0);
            end[j] = free_at[e] = t + (j % 2 ? v[j / 2] : c[j / 2]);
            makespan = MAX(makespan, end[j]);
            is_done[j] = true;
            pos[e]++, done++;
            has_progress = true;
        }
        if (!has_progress)
            return -1;
    }
    return makespan;
}

/* The search state: critical engine order fixed, the other engine's stages still to place. */
typedef struct {
    int n;
    bool is_cube_critical;
    int64_t bound, crit[PIPE_MAX_PAIRS], other[PIPE_MAX_PAIRS];
    int pred[PIPE_MAX_PAIRS], succ[PIPE_MAX_PAIRS];   /* critical index of the chain neighbour, or -1 */
    int64_t start[PIPE_MAX_PAIRS], end[PIPE_MAX_PAIRS];
    int64_t f[1 << PIPE_MAX_BRUTE_PAIRS][2 * PIPE_MAX_BRUTE_PAIRS];  /* earliest finish; -1 unreachable */
    int16_t from[1 << PIPE_MAX_BRUTE_PAIRS][2 * PIPE_MAX_BRUTE_PAIRS]; /* j | up << 4 | down << 5 */
} Search;

static void try_place(Search *q, int mask, int s, int j)
{
    for (int up = 0; up <= (q->pred[j] >= 0); up++)
        for (int down = 0; down <= (q->succ[j] >= 0); down++) {
            int64_t release = up ? q->end[q->pred[j]] : 0;
            int64_t deadline = down ? q->start[q->succ[j]] : q->bound;
            int64_t t = MAX(q->f[mask][s], release) + q->other[j];
            int m2 = mask | 1 << j, s2 = s + up + down;
            if (t <= deadline && (q->f[m2][s2] < 0 || t < q->f[m2][s2])) {
                q->f[m2][s2] = t;
                q->from[m2][s2] = (int16_t)(j | up << 4 | down << 5);
            }
        }
}

/* Most internal chain edges with the critical engine in order perm; -1 if none fits. */
static int pack_other(Search *q, const int *perm)
{
    int64_t t = 0;
    for (int i = 0; i < q->n; i++) {
        q->start[perm[i]] = t;
        t = q->end[perm[i]] = t + q->crit[perm[i]];
    }
    int full = (1 << q->n) - 1, max_s = 2 * q->n - 1;
    memset(q->f, -1, sizeof q->f);
    q->f[0][0] = 0;
    for (int mask = 0; mask < full; mask++)
        for (int s = 0; s <= max_s; s++)
            if (q->f[mask][s] >= 0)
                for (int j = 0; j < q->n; j++)
                    if (!(mask >> j & 1))
                        try_place(q, mask, s, j);
    for (int s = max_s; s >= 0; s--)
        if (q->f[full][s] >= 0)
            return s;
    return -1;
}

/* Rebuilds the Cycle that pack_other found with s internal edges. */
static void witness_cycle(const Search *q, const int *perm, int s, PipeCycle *out)
{
    int n = q->n, mask = (1 << n) - 1, other_order[PIPE_MAX_PAIRS];
    bool is_internal[PIPE_MAX_STAGES] = { false };
    for (int i = n - 1; i >= 0; i--) {
        int code = q->from[mask][s], j = code & 15, up = code >> 4 & 1, down = code >> 5 & 1;
        other_order[i] = j;
        /* Cube critical: other j is V_j, up = C_j -> V_j (edge 2j), down = V_j -> C_j+1 (edge 2j+1).
         * Vector critical: other j is C_j, up = V_j-1 -> C_j (edge 2j-1), down = C_j -> V_j (edge 2j). */
        int up_edge = q->is_cube_critical ? 2 * j : 2 * j - 1;
        if (up)
            is_internal[up_edge] = true;
        if (down)
            is_internal[up_edge + 1] = true;
        mask &= ~(1 << j);
        s -= up + down;
    }
    *out = (PipeCycle){ .n_pairs = n };
    int crit_par = q->is_cube_critical ? 0 : 1;
    for (int i = 0; i < n; i++) {
        out->order[i] = 2 * perm[i] + crit_par;
        out->order[n + i] = 2 * other_order[i] + 1 - crit_par;
    }
    for (int j = 0; j + 1 < 2 * n; j++)
        out->offset[j + 1] = out->offset[j] + !is_internal[j];
}

static bool next_permutation(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i]; a[i] = a[j]; a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--)
        t = a[l], a[l] = a[r], a[r] = t;
    return true;
}

static void search_init(Search *q, int n, const int64_t *c, const int64_t *v)
{
    int64_t sum_c = 0, sum_v = 0;
    for (int p = 0; p < n; p++)
        sum_c += c[p], sum_v += v[p];
    q->n = n;
    q->is_cube_critical = sum_v <= sum_c;
    q->bound = MAX(sum_c, sum_v);
    for (int p = 0; p < n; p++) {
        q->crit[p] = q->is_cube_critical ? c[p] : v[p];
        q->other[p] = q->is_cube_critical ? v[p] : c[p];
        q->pred[p] = q->is_cube_critical ? p : p - 1;
        q->succ[p] = q->is_cube_critical ? (p + 1 < n ? p + 1 : -1) : p;
    }
}

int pipe_min_preload(int n_pairs, const int64_t *c, const int64_t *v, PipeCycle *witness)
{
    g_assert(n_pairs >= 1 && n_pairs <= PIPE_MAX_BRUTE_PAIRS);
    Search *q = g_new0(Search, 1);
    search_init(q, n_pairs, c, v);
    int perm[PIPE_MAX_PAIRS], best_perm[PIPE_MAX_PAIRS], best = -1;
    for (int i = 0; i < n_pairs; i++)
        perm[i] = i;
    do {
        int s = pack_other(q, perm);
        if (s > best) {
            best = s;
            memcpy(best_perm, perm, sizeof perm);
        }
    } while (best < 2 * n_pairs - 1 && next_permutation(perm, n_pairs));
    if (witness) {
        pack_other(q, best_perm);
        witness_cycle(q, best_perm, best, witness);
    }
    g_free(q);
    return 2 * n_pairs - 1 - best;
}

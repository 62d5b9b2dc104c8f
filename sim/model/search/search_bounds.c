/* Lower bounds on the makespan, in two spaces. Any plan plan_check accepts (CTAs may split a KV tile, in any
 * order): the SM with the most tasks runs them back to back, and the longest dQ row reduces one tile after
 * another. One CTA per (KV head, KV tile), the search's space: also the longest such CTA, and the CTAs as
 * indivisible jobs packed onto the SMs (bounds of the bin-packing kind: some SM holds k + 1 of the k n + 1
 * longest). Every figure is a whole number of ns that no schedule of its space beats. */
#include "search_space.h"

#include <glib.h>

/* One SM running m tasks (one CTA, or several with one prologue counted), alone: serial, compute and
 * reduction back to back; async, the compute engine's work then the last reduction, or the first deposit
 * then the store engine's work. */
static int64_t tasks_alone_ns(const AttnCosts *k, int64_t m)
{
    if (m == 0)
        return 0;
    if (k->reduce == REDUCE_SERIAL)
        return k->cta_prologue_ns + m * (k->c_ns + k->r_ns);
    int64_t front = k->c_ns + k->deposit_ns;
    return k->cta_prologue_ns + MAX(m * front + k->r_ns, front + m * k->r_ns);
}

/* The CTAs' durations alone packed onto n SMs: the longest, and for each k, some SM runs k + 1 of the
 * k n + 1 longest, so at least the k + 1 shortest of those (and the average load). count[m]: CTAs of m
 * tasks, m <= max_tasks. */
static int64_t packing_ns(const AttnCosts *k, const int64_t *count, int64_t max_tasks, int32_t n)
{
    int64_t items = 0, sum = 0, best = 0;
    for (int64_t m = 0; m <= max_tasks; m++)
        items += count[m], sum += count[m] * tasks_alone_ns(k, m);
    best = (sum + n - 1) / n;
    for (int64_t kk = 0; kk * n + 1 <= items; kk++) { /* the (kn+1)-th longest back to the (kn+1-kk)-th */
        int64_t want_last = kk * n + 1, rank = 0, total = 0;
        for (int64_t m = max_tasks; m > 0 && rank < want_last; m--) {
            int64_t from = MAX(rank, want_last - kk - 1), to = MIN(rank + count[m], want_last);
            if (to > from)
                total += (to - from) * tasks_alone_ns(k, m);
            rank += count[m];
        }
        best = MAX(best, total);
    }
    return best;
}

void search_bounds(const Search *s, SearchBounds *out)
{
    const AttnCosts *k = &s->model; /* no op longer than under the costs: the bounds hold for them */
    int32_t n = s->wl->n_sm;
    int64_t longest_row = 0, max_tasks = 0;
    for (int64_t r = 0; r < s->rows; r++)
        longest_row = MAX(longest_row, s->row_first[r + 1] - s->row_first[r]);
    for (int32_t j = 0; j < s->tile_count; j++)
        max_tasks = MAX(max_tasks, (int64_t)(s->tile_first[j + 1] - s->tile_first[j]) * s->group);
    *out = (SearchBounds){ 0 };
    out->work_ns = tasks_alone_ns(k, (s->tasks + n - 1) / n);
    out->row_ns = longest_row ? k->c_ns + (k->reduce == REDUCE_ASYNC ? k->deposit_ns : 0) + longest_row * k->r_ns : 0;
    out->lower_bound_ns = MAX(out->work_ns, out->row_ns);
    out->chain_ns = tasks_alone_ns(k, max_tasks);
    int64_t *count = g_new0(int64_t, max_tasks + 1);
    for (int32_t j = 0; j < s->tile_count; j++)
        count[(s->tile_first[j + 1] - s->tile_first[j]) * s->group] += s->wl->heads / s->group;
    out->packing_ns = packing_ns(k, count, max_tasks, n);
    g_free(count);
    out->space_bound_ns = MAX(out->lower_bound_ns, MAX(out->chain_ns, out->packing_ns));
}

void sim_search_bounds(const Workload *wl, const AttnCosts *costs, int32_t gqa_group, SearchBounds *out)
{
    Search s;
    SimError err = { 0 };
    *out = (SearchBounds){ 0 };
    if (search_space_init(&s, wl, costs, gqa_group, &err) == SIM_OK)
        search_bounds(&s, out);
    search_space_clear(&s);
}

/* The search's space: one head's kept pairs and the tasks of every head numbered densely, the CTAs
 * (items) and their task orders, and the plain cost model below any costs that bounds and pruning use.
 * Invariant: every array is linear in tasks, rows or tiles, never heads x KV tiles x Q tiles; the mask is
 * read a word at a time. */
#include "search_space.h"

#include <glib.h>
#include <string.h>

/* One head's kept pairs, the KV tiles and the Q tiles that keep one, without storing them. */
static void count_pairs(const Workload *wl, int64_t *pairs, int32_t *tiles, int32_t *q_count)
{
    uint8_t *seen = g_new0(uint8_t, wl->q_tiles);
    *pairs = 0, *tiles = 0, *q_count = 0;
    for (int32_t k = 0; k < wl->kv_tiles; k++) {
        int64_t before = *pairs;
        for (int32_t q = plan_next_kept(wl, k, 0); q < wl->q_tiles; q = plan_next_kept(wl, k, q + 1))
            (*pairs)++, *q_count += !seen[q], seen[q] = 1;
        *tiles += *pairs > before;
    }
    g_free(seen);
}

/* Lists one head's kept pairs by KV tile and numbers the Q tiles that keep one. */
static void index_pairs(Search *s)
{
    const Workload *wl = s->wl;
    count_pairs(wl, &s->pairs, &s->tile_count, &s->q_count);
    s->tile_kv = g_new(int32_t, s->tile_count), s->tile_first = g_new(int32_t, s->tile_count + 1);
    s->pair_q = g_new(int32_t, MAX(s->pairs, 1)), s->pair_row = g_new(int32_t, MAX(s->pairs, 1));
    int32_t *q_index = g_new(int32_t, wl->q_tiles), p = 0, j = 0, rows = 0;
    for (int q = 0; q < wl->q_tiles; q++)
        q_index[q] = -1;
    for (int32_t k = 0; k < wl->kv_tiles; k++) {
        int32_t before = p;
        for (int32_t q = plan_next_kept(wl, k, 0); q < wl->q_tiles; q = plan_next_kept(wl, k, q + 1))
            s->pair_q[p++] = q, q_index[q] = 0;
        if (p > before)
            s->tile_kv[j] = k, s->tile_first[j++] = before;
    }
    s->tile_first[j] = p;
    for (int q = 0; q < wl->q_tiles; q++)
        if (q_index[q] == 0)
            q_index[q] = rows++;
    for (int64_t i = 0; i < s->pairs; i++)
        s->pair_row[i] = q_index[s->pair_q[i]];
    g_free(q_index);
}

SimStatus search_space_size(const Workload *wl, int32_t group, SearchSize *out, SimError *err)
{
    int64_t pairs;
    int32_t tiles, q_count;
    count_pairs(wl, &pairs, &tiles, &q_count);
    *out = (SearchSize){ .tasks = pairs * wl->heads, .rows = (int64_t)q_count * wl->heads,
                         .items = (int64_t)(wl->heads / MAX(1, group)) * tiles };
    if (out->tasks == 0)
        return sim_error_set(err, SIM_ERR_LIMIT, "the mask keeps no (KV tile, Q tile) pair: nothing to schedule");
    return SIM_OK;
}

/* Every task's row and KV tile, and each row's contributors (the CSR the rank order fills). */
static void index_tasks(Search *s)
{
    s->task_row = g_new(int32_t, s->tasks), s->task_kv = g_new(int32_t, s->tasks);
    s->row_first = g_new0(int32_t, s->rows + 1);
    int64_t t = 0;
    for (int32_t h = 0; h < s->wl->heads / s->group; h++)
        for (int32_t j = 0; j < s->tile_count; j++) {
            int32_t rows = s->tile_first[j + 1] - s->tile_first[j];
            for (int32_t k = 0; k < rows * s->group; k++, t++) {
                int64_t head = (int64_t)h * s->group + k / rows, pair = s->tile_first[j] + k % rows;
                s->task_row[t] = (int32_t)(head * s->q_count + s->pair_row[pair]);
                s->task_kv[t] = s->tile_kv[j];
                s->row_first[s->task_row[t] + 1]++;
            }
        }
    for (int64_t r = 0; r < s->rows; r++)
        s->row_first[r + 1] += s->row_first[r];
}

/* Whether the costs are the plain model (no load model, no kernel-profile part): the walk times them. */
static bool is_plain(const AttnCosts *c)
{
    return !c->load && !c->c_diag_ns && !c->c_first_extra_ns && !c->launch_extra_ns && !c->cta_first_extra_ns && !c->cta_gap_ns &&
           !c->kv_write_ns &&
           !c->kv_switch_ns && !c->reduce_read_ns && !sim_overlap_has_rules(&c->overlap) &&
           !c->waited.read_delta_ns && !c->waited.tail_delta_ns && !c->waited.slope_milli_ns;
}

/* The plain model no op of which is longer than under c: the cheapest compute (a cut diagonal), a reduction
 * only as long as its read where it is split (the buffer is freed there, and maybe the row), as short as a
 * waiting one may be, as fast as the load model ever makes it (its queue only adds; its extra may not). The extra ops and penalties of a kernel
 * profile only add time. So any schedule takes at least as long under c as under this model: its bounds
 * and timings bound c's. */
static AttnCosts plain_below(const AttnCosts *c)
{
    int64_t r = c->reduce == REDUCE_ASYNC && c->reduce_read_ns > 0 ? MIN(c->reduce_read_ns, c->r_ns) : c->r_ns;
    /* the waited step's slope shortens a waited read by at most slope x k_ref (none in flight); a negative slope
     * (never fitted) by at most |slope| x (2^16 - k_ref), more reductions than any GPU keeps in flight */
    int64_t slope = c->waited.slope_milli_ns, least_slope = slope > 0 ? -slope * c->waited.k_ref / 1000 - 1 :
                                                            slope * ((1 << 16) - c->waited.k_ref) / 1000 - 1;
    r = MAX(0, r + MIN(0, c->waited.read_delta_ns) + MIN(0, c->waited.tail_delta_ns) + (slope ? least_slope : 0));
    int64_t least_extra = 0; /* a load model's extra below 0 (never fitted so): faster than alone */
    for (int32_t k = 1; c->load && k <= c->load->extra_len; k++)
        least_extra = MIN(least_extra, c->load->extra_ns[k]);
    r = MAX(0, r + least_extra);
    int64_t least_handoff = 0;
    for (int32_t k = 0; c->load && c->load->handoff_extra_ns && k <= c->load->handoff_len; k++)
        least_handoff = MIN(least_handoff, c->load->handoff_extra_ns[k]);
    return (AttnCosts){ .c_ns = c->c_diag_ns > 0 ? MIN(c->c_ns, c->c_diag_ns) : c->c_ns, .r_ns = r,
                        .latency_ns = MAX(0, c->latency_ns + least_handoff), .reduce = c->reduce, .dq_buffers = c->dq_buffers,
                        .cta_prologue_ns = c->cta_prologue_ns, .deposit_ns = c->deposit_ns };
}

SimStatus search_space_init(Search *s, const Workload *wl, const AttnCosts *costs, int32_t group, SimError *err)
{
    *s = (Search){ .wl = wl, .costs = costs, .model = plain_below(costs), .group = MAX(1, group),
                   .is_fast = is_plain(costs) };
    SearchSize size;
    if (search_space_size(wl, group, &size, err) != SIM_OK)
        return err->status;
    if (size.tasks > SEARCH_MAX_TASKS)
        return sim_error_set(err, SIM_ERR_LIMIT, "%d heads x %" G_GINT64_FORMAT " kept pairs is %" G_GINT64_FORMAT
                             " tasks, more than the search numbers (2^29)", wl->heads, size.tasks / wl->heads, size.tasks);
    index_pairs(s);
    s->tasks = size.tasks, s->rows = size.rows;
    index_tasks(s);
    return SIM_OK;
}

void search_space_clear(Search *s)
{
    g_free(s->tile_kv), g_free(s->tile_first), g_free(s->pair_q), g_free(s->pair_row);
    g_free(s->task_row), g_free(s->task_kv), g_free(s->row_first);
    g_free(s->slot_first), g_free(s->slot_cta_first), g_free(s->cta_len), g_free(s->item_index);
    g_free(s->slot_pos), g_free(s->seq), g_free(s->row_last), g_free(s->row_pos), g_free(s->pred);
    g_free(s->c_end), g_free(s->d_end), g_free(s->red);
    *s = (Search){ 0 };
}

double search_space_bytes(const SearchSize *z, int32_t n_sm)
{
    int64_t tasks = z->tasks, rows = z->rows, items = z->items;
    /* per task: its row and kv; per position: its slot-major index, task, rank link, rank order (and its
     * best copy), compute and deposit end, reduction (24 + 16 + 16 B); per row: its offsets, last, and
     * while laid out its tail (40 B); per item: the layout, its trial and best, CTA length, index */
    return (double)tasks * 64 + (double)rows * 40 + (double)items * (3 * sizeof(Item) + 8) + (double)n_sm * 16;
}

int search_items(const Search *s, Item **items)
{
    int n = 0;
    *items = g_new(Item, (int64_t)(s->wl->heads / s->group) * s->tile_count);
    for (int32_t h = 0; h < s->wl->heads / s->group; h++)
        for (int32_t j = 0; j < s->tile_count; j++)
            (*items)[n++] = (Item){ .head = h, .kv = s->tile_kv[j], .tile = j };
    return n;
}

int32_t search_item_rows(const Search *s, const Item *it)
{
    return (s->tile_first[it->tile + 1] - s->tile_first[it->tile]) * s->group;
}

int64_t search_item_first(const Search *s, const Item *it)
{
    return ((int64_t)it->head * s->pairs + s->tile_first[it->tile]) * s->group;
}

void search_item_pair(const Search *s, const Item *it, int32_t k, int32_t *head, int32_t *q)
{
    int32_t rows = s->tile_first[it->tile + 1] - s->tile_first[it->tile];
    *head = it->head * s->group + k / rows, *q = s->pair_q[s->tile_first[it->tile] + k % rows];
}

void search_task_pair(const Search *s, int32_t task, int32_t *head, int32_t *q)
{
    int64_t per_head = s->pairs * s->group, u = task % per_head;
    int32_t lo = 0, hi = s->tile_count - 1;
    while (lo < hi) { /* the tile whose tasks hold u */
        int32_t mid = (lo + hi + 1) / 2;
        if ((int64_t)s->tile_first[mid] * s->group <= u)
            lo = mid;
        else
            hi = mid - 1;
    }
    int32_t rows = s->tile_first[lo + 1] - s->tile_first[lo], k = (int32_t)(u - (int64_t)s->tile_first[lo] * s->group);
    *head = (int32_t)(task / per_head) * s->group + k / rows;
    *q = s->pair_q[s->tile_first[lo] + k % rows];
}

static int item_launch_cmp(const Item *x, const Item *y)
{
    return x->pos != y->pos ? (x->pos > y->pos) - (x->pos < y->pos) : (x->slot > y->slot) - (x->slot < y->slot);
}

static int item_launch_qsort(const void *a, const void *b)
{
    return item_launch_cmp(a, b);
}

/* (place, slot) is unique, so any sort gives the same order: insertion sort when a move left the array
 * nearly sorted, else qsort. */
void search_sort_items(Item *items, int n)
{
    int descents = 0;
    for (int i = 1; i < n && descents <= 4; i++)
        descents += item_launch_cmp(&items[i - 1], &items[i]) > 0;
    if (descents > 4) {
        qsort(items, n, sizeof *items, item_launch_qsort);
        return;
    }
    for (int i = 1; i < n; i++) {
        Item x = items[i];
        int j = i;
        for (; j > 0 && item_launch_cmp(&items[j - 1], &x) > 0; j--)
            items[j] = items[j - 1];
        items[j] = x;
    }
}

int64_t search_layout_bound(const Search *s, const Item *items, int n)
{
    const AttnCosts *k = &s->model;
    int64_t *load = g_new0(int64_t, s->wl->n_sm), worst = 0;
    for (int i = 0; i < n; i++) {
        int64_t m = search_item_rows(s, &items[i]), cta = k->reduce == REDUCE_SERIAL ? m * (k->c_ns + k->r_ns)
            : MAX(m * (k->c_ns + k->deposit_ns) + k->r_ns, k->c_ns + k->deposit_ns + m * k->r_ns);
        load[items[i].slot] += k->cta_prologue_ns + cta;
        worst = MAX(worst, load[items[i].slot]);
    }
    g_free(load);
    return worst;
}

bool search_is_monotone(const Search *s)
{
    const SimLoadModel *m = s->costs->load;
    for (int32_t k = 1; m && k <= m->extra_len; k++) /* the queue's wait is never negative; the extra may be */
        if (m->extra_ns[k] < 0)
            return false;
    for (int32_t k = 0; m && m->handoff_extra_ns && k <= m->handoff_len; k++)
        if (m->handoff_extra_ns[k] < 0)
            return false;
    return true;
}

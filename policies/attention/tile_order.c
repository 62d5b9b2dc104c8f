/* FA3-style orders for any mask, shared by ascending, descending (on a block mask) and spt, and run by the
 * search as its baselines and starting layouts. Invariant: one CTA per (KV head, KV tile that keeps a pair),
 * and every row accumulates in launch order, so in-order dispatch never waits on a CTA not yet launched. */
#include "policy.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

int32_t plan_next_kept(const Workload *wl, int32_t kv, int32_t q)
{
    if (wl->mask != MASK_BLOCK)
        return MAX(q, plan_q_lo(wl, kv));
    const uint8_t *row = wl->keep + (int64_t)kv * wl->q_tiles;
    for (; q < wl->q_tiles && ((uintptr_t)(row + q) & 7); q++)
        if (row[q])
            return q;
    for (uint64_t word; q + 8 <= wl->q_tiles; q += 8) {
        memcpy(&word, row + q, sizeof word);
        if (word)
            break;
    }
    for (; q < wl->q_tiles; q++)
        if (row[q])
            return q;
    return q;
}

/* One CTA: the KV head and its KV tile's kept rows, pair_q[first .. first + rows). */
typedef struct {
    int32_t head, kv, first, rows;
} TileCta;

/* Shortest first; ties: the later head, then the later KV tile (the longest-first order reversed). */
static int by_rows_asc(const void *a, const void *b)
{
    const TileCta *x = a, *y = b;
    if (x->rows != y->rows)
        return x->rows - y->rows;
    return x->head != y->head ? y->head - x->head : y->kv - x->kv;
}

/* One head's kept rows by KV tile into *pair_q; the tiles that keep one into *ctas, for every KV head. */
static int64_t list_ctas(const Workload *wl, int32_t group, int32_t **pair_q, TileCta **ctas)
{
    int64_t pairs = 0, tiles = 0;
    for (int32_t k = 0; k < wl->kv_tiles; k++)
        for (int32_t q = plan_next_kept(wl, k, 0); q < wl->q_tiles; q = plan_next_kept(wl, k, q + 1))
            pairs++;
    *pair_q = g_new(int32_t, MAX(pairs, 1));
    TileCta *tile = g_new(TileCta, wl->kv_tiles);
    for (int32_t k = 0, p = 0; k < wl->kv_tiles; k++) {
        int32_t before = p;
        for (int32_t q = plan_next_kept(wl, k, 0); q < wl->q_tiles; q = plan_next_kept(wl, k, q + 1))
            (*pair_q)[p++] = q;
        if (p > before)
            tile[tiles++] = (TileCta){ 0, k, before, p - before };
    }
    int64_t heads = wl->heads / group, n = heads * tiles;
    *ctas = g_new(TileCta, MAX(n, 1));
    for (int64_t h = 0; h < heads; h++)
        for (int64_t j = 0; j < tiles; j++)
            (*ctas)[h * tiles + j] = tile[j], (*ctas)[h * tiles + j].head = (int32_t)h;
    g_free(tile);
    return n;
}

const char *plan_tile_order_name(PlanTileOrder order)
{
    return order == PLAN_TILES_ASCENDING ? "ascending" : order == PLAN_TILES_DESCENDING ? "descending" : "spt";
}

void plan_add_tile_order(Plan *plan, int32_t group, PlanTileOrder order)
{
    int32_t *pair_q;
    TileCta *ctas;
    group = MAX(group, 1);
    int64_t n = list_ctas(&plan->wl, group, &pair_q, &ctas);
    if (order == PLAN_TILES_SPT)
        qsort(ctas, n, sizeof *ctas, by_rows_asc); /* keys are distinct: any sort gives this order */
    int64_t *key = g_new(int64_t, MAX(plan->task_capacity, 1));
    for (int64_t i = 0; i < n; i++) {
        const TileCta *c = &ctas[i];
        plan_add_cta(plan, -1);
        for (int32_t j = 0; j < c->rows * group; j++) {
            int32_t k = order == PLAN_TILES_DESCENDING ? j / c->rows * c->rows + c->rows - 1 - j % c->rows : j;
            key[plan->task_count] = i;
            plan_add_task(plan, c->head * group + k / c->rows, c->kv, pair_q[c->first + k % c->rows]);
        }
    }
    plan_rank_by_key(plan, key);
    g_free(key), g_free(ctas), g_free(pair_q);
}

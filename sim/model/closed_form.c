/* The DASH paper's closed forms (section 3) and the conditions under which the simulator reproduces
 * them exactly. n = SMs = KV tiles = Q tiles, m heads, tile ratio 1, serial reduction, as in the paper. */
#include "attention.h"

#include <string.h>

bool sim_closed_form_ns(const char *policy, const Workload *wl, const AttnCosts *costs, int64_t *ns,
                        bool *is_exact)
{
    int64_t n = wl->n_sm, m = wl->heads, c = costs->c_ns, r = costs->r_ns;
    bool is_paper_shape = wl->kv_tiles == n && wl->q_tiles == n && wl->tile_ratio == 1 &&
                          wl->head_swizzle == 1 && costs->reduce == REDUCE_SERIAL;
    bool is_full = wl->mask == MASK_FULL;
    *is_exact = false;
    if (!is_paper_shape)
        return false;
    if (strcmp(policy, "fa3") == 0) {
        /* The paper states the causal form for one head and calls it approximate for m heads; with heads
         * launched one after another (head swizzle 1) it is exact for every m. */
        *ns = m * n * (c + r) + (n - 1) * r;
        *is_exact = costs->latency_ns == 0;
        return true;
    }
    if (strcmp(policy, "shift") == 0 && is_full) {
        *ns = m * n * (c + r);
        *is_exact = costs->latency_ns <= c;
        return true;
    }
    if (strcmp(policy, "symmetric-shift") == 0 && !is_full && m % 2 == 0) {
        *ns = m * (n + 1) * (c + r) / 2;
        *is_exact = costs->latency_ns <= c;
        return true;
    }
    if (strcmp(policy, "descending") == 0 && !is_full && m % 2 == 0) {
        /* Exact iff c >= r or m = 2: otherwise each later pair of heads adds (n-1)(r-c), see
         * sim_descending_exact_ns. */
        *ns = m * (n + 1) * (c + r) / 2 + (n - 1) * r;
        *is_exact = costs->latency_ns == 0 && (c >= r || m == 2);
        return true;
    }
    return false;
}

int64_t sim_descending_exact_ns(int64_t n, int64_t m, int64_t c, int64_t r)
{
    return m * (n + 1) * (c + r) / 2 + (n - 1) * r + (m / 2 - 1) * (n - 1) * (r > c ? r - c : 0);
}

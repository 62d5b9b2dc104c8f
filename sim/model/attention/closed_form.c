/* The DASH paper's closed forms (section 3) through the policies' own hooks: the costs as the paper states
 * them, and the one form this simulator found beyond the paper (descending, causal, r > c). */
#include "attention.h"

bool sim_closed_form_ns(const PolicyOps *p, const Workload *wl, const AttnCosts *costs, int64_t *ns, bool *is_exact)
{
    PolicyCosts c = { .c_ns = costs->c_ns, .r_ns = costs->r_ns, .latency_ns = costs->latency_ns,
                      .is_serial = costs->reduce == REDUCE_SERIAL };
    return policy_closed_form(p, wl, &c, ns, is_exact);
}

int64_t sim_descending_exact_ns(int64_t n, int64_t m, int64_t c, int64_t r)
{
    return m * (n + 1) * (c + r) / 2 + (n - 1) * r + (m / 2 - 1) * (n - 1) * (r > c ? r - c : 0);
}

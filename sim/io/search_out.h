/* `sim search --json`'s object, written for the CLI and the library alike (sim/io/search_out.c). */
#ifndef SIM_SEARCH_OUT_H
#define SIM_SEARCH_OUT_H

#include <stdio.h>

#include "mask.h"
#include "search.h"

/* One JSON object and a newline: the mask m as made (its spec and tiles), wl's SMs and heads, the costs, the
 * GQA group (0 or 1: none) and the result r (its plan set). O(baselines). */
void sim_search_write_json(FILE *f, const BlockMask *m, const Workload *wl, const AttnCosts *costs, int32_t gqa_group,
                           const SearchResult *r);

#endif

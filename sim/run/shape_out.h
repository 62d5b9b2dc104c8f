/* The shape ranking's JSON object (`sim --seqlen S ... --json`), written for the CLI and the library's
 * dashsim_shape_json alike (sim/run/shape_out.c). It sits beside the ranking, not in sim/io: its input is the
 * run layer's ShapeRanking, which sim/io cannot see. */
#ifndef SIM_SHAPE_OUT_H
#define SIM_SHAPE_OUT_H

#include <stdio.h>

#include "shape.h"

/* GQA in words for the report: *kv_heads (q's, or the heads per sample), and whether the costing used it (only a
 * kernel profile costs it: has_kernel). Returns that. */
bool sim_shape_gqa_note(const ShapeQuery *q, const ShapeRanking *r, bool has_kernel, int64_t *kv_heads, char *note,
                        size_t len);
/* The mask as given: full, causal, or q's spec in tokens. */
const char *sim_shape_mask_name(const ShapeQuery *q, const ShapeRanking *r);
/* One JSON object, without a newline (a list of shapes prints them as one array): q resolved, r ranked with the
 * profiles found at profile and kernel (NULL: none). O(rows). */
void sim_shape_write_json(FILE *f, const ShapeQuery *q, const ShapeRanking *r, const char *profile, const char *kernel);

#endif

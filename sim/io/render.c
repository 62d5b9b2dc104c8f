/* What the renderers share: an op's label (defaults, then the caller's labeller) and its wait.
 * wait >= 0 always: the engine never starts an op before its CTA-internal predecessors end. */
#include "render.h"

#include <glib.h>
#include <string.h>

void sim_render_label(const SimRenderSpec *spec, int64_t op, bool is_name_wanted, SimRenderLabel *out)
{
    const char *kind = sim_op_kind_name(sim_op_kind(spec->program, op));
    out->is_name_wanted = is_name_wanted;
    out->name[0] = '\0';
    if (is_name_wanted)
        memcpy(out->name, kind, strlen(kind) + 1); /* a kind's name: a short word */
    out->phase = kind;
    out->group = -1;
    memset(out->args, 0, sizeof out->args);
    if (spec->label)
        spec->label(spec->label_ctx, op, out);
}

int64_t *sim_render_waits_new(const SimProgram *p, const SimSchedule *s)
{
    int64_t *wait = g_new(int64_t, p->op_count);
    int64_t last_end[256];
    g_assert(p->engines_per_unit <= 256); /* as in sim_program_seal */
    for (int32_t c = 0; c < p->cta_count; c++) {
        for (int k = 0; k < p->engines_per_unit; k++)
            last_end[k] = s->cta_dispatch_ns[c];
        for (int64_t op = p->ctas[c].op_begin; op < p->ctas[c].op_begin + p->ctas[c].op_count; op++) {
            int k = sim_op_engine(p, op);
            int64_t ready = last_end[k];
            for (int64_t i = sim_program_in_begin(p, op); i < sim_program_in_begin(p, op + 1); i++) {
                int64_t from = sim_edge_from(p, sim_program_in_edge(p, i));
                if (sim_op_cta(p, from) == c && sim_schedule_end_ns(p, s, from) > ready)
                    ready = sim_schedule_end_ns(p, s, from);
            }
            wait[op] = s->start_ns[op] - ready;
            last_end[k] = sim_schedule_end_ns(p, s, op);
        }
    }
    return wait;
}

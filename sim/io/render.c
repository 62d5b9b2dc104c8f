/* What the renderers share: an op's label (defaults, then the caller's labeller) and its wait.
 * wait >= 0 always: the engine never starts an op before its CTA-internal predecessors end. */
#include "render.h"

#include <glib.h>
#include <string.h>

#include "format.h"

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
    if (spec->phases) {
        const SimRenderPhase *ph = sim_render_phase(spec, op, out->args);
        out->phase = ph->phase;
        out->group = ph->group_arg >= 0 ? (int32_t)out->args[ph->group_arg] : -1;
        if (is_name_wanted) {
            size_t n = strlen(ph->name);
            g_assert(n + 21 <= sizeof out->name);
            memcpy(out->name, ph->name, n + 1);
            if (ph->name_arg >= 0)
                *sim_format_i64(out->name + n, out->args[ph->name_arg]) = '\0';
        }
    } else if (spec->label) {
        spec->label(spec->label_ctx, op, out);
    }
}

const char *sim_render_phase_args(const SimRenderSpec *spec, int64_t op, int64_t *args)
{
    if (spec->phases)
        return sim_render_phase(spec, op, args)->phase;
    SimRenderLabel l;
    sim_render_label(spec, op, false, &l);
    memcpy(args, l.args, sizeof l.args);
    return l.phase;
}

void sim_render_phases_fill(const SimRenderSpec *spec, SimRenderPhases *b, int64_t op)
{
    int64_t left = spec->program->op_count - op;
    b->first = op;
    b->end = op + (left < SIM_RENDER_PHASE_BLOCK ? left : SIM_RENDER_PHASE_BLOCK);
    spec->phase_of(spec->label_ctx, op, b->end - op, b->phase);
}

void sim_render_waits_init(SimRenderWaits *w, const SimProgram *p, const SimSchedule *s)
{
    g_assert(p->engines_per_unit <= 256); /* as in sim_program_seal */
    *w = (SimRenderWaits){ .p = p, .s = s, .cta = -1, .cta_end = 0,
                           .next_in = p->op_count > 0 ? sim_program_in_begin(p, 0) : 0 };
}

void sim_render_waits_open_cta(SimRenderWaits *w, int64_t op)
{
    const SimProgram *p = w->p;
    while (op >= w->cta_end) {
        const SimCta *next = &p->ctas[++w->cta];
        w->cta_end = next->op_begin + next->op_count;
    }
    g_assert(op == p->ctas[w->cta].op_begin);
    w->cta_begin = op;
    for (int k = 0; k < p->engines_per_unit; k++)
        w->last_end[k] = w->s->cta_dispatch_ns[w->cta];
}

int64_t *sim_render_waits_new(const SimProgram *p, const SimSchedule *s)
{
    int64_t *wait = g_new(int64_t, p->op_count);
    SimRenderWaits w;
    sim_render_waits_init(&w, p, s);
    for (int64_t op = 0; op < p->op_count; op++)
        wait[op] = sim_render_wait_next(&w, op, sim_schedule_end_ns(p, s, op));
    return wait;
}

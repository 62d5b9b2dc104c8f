/* Compiling an attention plan into an engine program. Each task's ops are appended in the CTA's task
 * order, so program order on each engine is the plan's order; accumulation edges follow the ranks. */
#include "attention.h"

#include <glib.h>
#include <inttypes.h>

#include "prefault.h"

/* Store engines a unit: engines 1 .. store_warps (0 and 1: one). */
static int store_warps(const AttnCosts *c)
{
    return MAX(c->store_warps, 1);
}

static bool is_split(const AttnCosts *c)
{
    return c->reduce == REDUCE_ASYNC && c->reduce_read_ns > 0;
}

/* A W op after each KV-tile run (dK/dV write, then the next run's K/V load). */
static bool has_kv_op(const AttnCosts *c)
{
    return c->reduce == REDUCE_ASYNC && (c->kv_write_ns > 0 || c->kv_switch_ns > 0);
}

int sim_attention_ops_per_task(const AttnCosts *costs)
{
    if (costs->reduce == REDUCE_SERIAL)
        return 2;
    return 3 + is_split(costs) + has_kv_op(costs);
}

double sim_attention_tasks(const Workload *wl)
{
    if (wl->mask == MASK_BLOCK && !wl->keep) /* a block mask not made yet: at most every pair */
        return (double)wl->heads * wl->kv_tiles * wl->q_tiles;
    return (double)wl->heads * (double)plan_tasks_per_head(wl);
}

SimStatus sim_attention_check_size(const Workload *wl, const AttnCosts *costs, double extra_bytes,
                                   int64_t max_memory_mb, SimError *err)
{
    /* doubles: heads x tiles x tiles reaches 2^93 at most, exact enough to compare with 2^31; a causal or block
     * mask counts the pairs it keeps (what is built), not its kv x q */
    double tasks = sim_attention_tasks(wl);
    double mb = (tasks * sim_attention_ops_per_task(costs) * SIM_BYTES_PER_OP + extra_bytes) / (1 << 20);
    if (mb > (double)max_memory_mb)
        return sim_error_set(err, SIM_ERR_LIMIT, "%d SMs, %d heads x %d KV x %d Q tiles would need about %.0f MB "
                             "to simulate, over the cap of %" PRId64 " MB (--max-memory-mb)", wl->n_sm, wl->heads,
                             wl->kv_tiles, wl->q_tiles, mb, max_memory_mb);
    /* a CTA's prologue is at most one op a task (plus one a unit), and a task adds at most 3 edges */
    double ops = tasks * (sim_attention_ops_per_task(costs) + 1) + wl->n_sm, edges = 3 * tasks;
    if (ops >= INT32_MAX || edges >= INT32_MAX)
        return sim_error_set(err, SIM_ERR_LIMIT, "%d heads x %d KV x %d Q tiles is %.0f tasks, up to %.0f engine ops "
                             "and %.0f edges: over the 2^31 - 1 that the engine can index (fewer heads or tiles)",
                             wl->heads, wl->kv_tiles, wl->q_tiles, tasks, ops, edges);
    return SIM_OK;
}

/* The reductions of each dQ row in rank order: the slot of task t is row_first[row(t)] + rank(t), and
 * by_rank[slot] its reduction op, set as the op is added. */
typedef struct {
    int64_t *row_first;         /* rows + 1 entries (row: head x q_tiles + q) */
    int32_t *by_rank;           /* per slot */
} RankSlots;

static inline int64_t slot_of(const Plan *plan, const RankSlots *r, int64_t t)
{
    const PlanTask *task = &plan->tasks[t];
    return r->row_first[(int64_t)task->head * plan->wl.q_tiles + task->q] + task->rank;
}

static RankSlots rank_slots_new(const Plan *plan)
{
    int64_t rows = (int64_t)plan->wl.heads * plan->wl.q_tiles;
    RankSlots r = { g_new0(int64_t, rows + 1), SIM_PREFAULT_NEW(int32_t, plan->task_count) };
    for (int64_t t = 0; t < plan->task_count; t++)
        r.row_first[(int64_t)plan->tasks[t].head * plan->wl.q_tiles + plan->tasks[t].q + 1]++;
    for (int64_t row = 0; row < rows; row++)
        r.row_first[row + 1] += r.row_first[row];
    return r;
}

/* Accumulation edges: the reduction of rank k-1 of each row (its release: release_op, or with NULL the
 * reduction itself) precedes the one of rank k (its start). Added in task order (= op order), so the engine
 * and the analysis read the edge array front to back. */
static void add_accumulation_edges(SimProgram *prog, const Plan *plan, const RankSlots *r, const int32_t *release_op,
                                   int32_t latency_ns)
{
    for (int64_t t = 0; t < plan->task_count; t++) {
        const PlanTask *task = &plan->tasks[t];
        int64_t row = (int64_t)task->head * plan->wl.q_tiles + task->q, slot = r->row_first[row] + task->rank;
        if (slot + 1 < r->row_first[row + 1])
            sim_program_add_edge(prog, release_op ? release_op[t] : r->by_rank[slot], r->by_rank[slot + 1],
                                 latency_ns, SIM_EDGE_ACCUM);
    }
}

/* Whether task i of a CTA starts, or ends, its run of one KV tile (the kernel loads K/V at the start of a
 * run and writes dK/dV at its end). */
static bool is_same_kv(const PlanTask *a, const PlanTask *b)
{
    return a->head == b->head && a->kv == b->kv;
}

/* The compute of one task: c_ns, or c_diag_ns on the causal diagonal, plus the K/V load on a run's first,
 * plus, on a CTA's first task, the launch wave's load (a CTA that starts at launch) or a later CTA's own. */
static int64_t compute_ns(const Plan *plan, const AttnCosts *costs, const PlanCta *cta, int32_t i, bool is_launch)
{
    const PlanTask *t = &plan->tasks[cta->task_begin + i];
    bool is_diag = plan->wl.mask == MASK_CAUSAL && t->q / plan->wl.tile_ratio == t->kv;
    int64_t c = is_diag && costs->c_diag_ns > 0 ? costs->c_diag_ns : costs->c_ns;
    if (costs->c_first_extra_ns > 0 && (i == 0 || !is_same_kv(t - 1, t)))
        c += costs->c_first_extra_ns;
    if (i == 0)
        c += is_launch ? costs->launch_extra_ns : costs->cta_first_extra_ns;
    return c;
}

/* Whether each CTA opens with a prologue op (SYNC on the compute engine): its own, or the turnover gap. */
static bool has_prologue(const AttnCosts *costs)
{
    return costs->cta_prologue_ns > 0 || costs->cta_gap_ns > 0;
}

/* A CTA's prologue: cta_prologue_ns, and cta_gap_ns more where it starts on a unit another CTA left (a GPU
 * CTA's exit and the block scheduler's turnover; a persistent slot's next plan CTA is the same GPU CTA). */
static int64_t prologue_ns(const Plan *plan, const AttnCosts *costs, bool is_launch)
{
    return costs->cta_prologue_ns + (is_launch || plan->is_persistent ? 0 : costs->cta_gap_ns);
}

/* Exact op count: the reserve is filled, and prefaulted, whole. */
static int64_t count_ops(const Plan *plan, const AttnCosts *costs)
{
    int64_t ops = plan->task_count * (costs->reduce == REDUCE_SERIAL ? 2 : 3 + is_split(costs)) +
                  (has_prologue(costs) ? plan->cta_count : 0);
    if (has_kv_op(costs))
        for (int32_t c = 0; c < plan->cta_count; c++)
            for (int32_t i = 0; i < plan->ctas[c].task_count; i++) {
                const PlanTask *t = &plan->tasks[plan->ctas[c].task_begin + i];
                ops += i + 1 == plan->ctas[c].task_count || !is_same_kv(t, t + 1);
            }
    return ops;
}

/* Exact edge count: accumulation (one per task but each row's last), and async: phase (one per task) and
 * buffer (per CTA, one per task past its first dq_buffers). */
static int64_t count_edges(const Plan *plan, const AttnCosts *costs, const RankSlots *r)
{
    int64_t rows = (int64_t)plan->wl.heads * plan->wl.q_tiles, edges = plan->task_count;
    for (int64_t row = 0; row < rows; row++)
        edges -= r->row_first[row + 1] > r->row_first[row];
    if (costs->reduce == REDUCE_ASYNC) {
        edges += plan->task_count;
        for (int32_t c = 0; c < plan->cta_count; c++)
            edges += MAX(0, plan->ctas[c].task_count - MAX(costs->dq_buffers, 0));
    }
    return edges;
}

/* One async task's ops: C, D [, W] on the compute engine, R [, T] on store engine 1 + i % store_warps (the
 * kernel's store warp w takes a CTA's tasks w, w + SW, ...: gpu/bwd/bwd_rank.cuh), and the phase and buffer
 * edges. Sets the task's reduction (accumulation target, in its rank slot), read and release (accumulation
 * source). */
static void add_async_task(SimProgram *prog, const Plan *plan, const AttnCosts *costs, const PlanCta *cta, int32_t i,
                           bool is_launch, int32_t *read_op, int32_t *reduce_slot, int32_t *release_op)
{
    int32_t t = cta->task_begin + i;
    sim_program_add_op(prog, 0, SIM_OP_COMPUTE, compute_ns(plan, costs, cta, i, is_launch), t);
    int64_t deposit = sim_program_add_op(prog, 0, SIM_OP_SYNC, costs->deposit_ns, t);
    bool is_last = i + 1 == cta->task_count;
    if (has_kv_op(costs) && (is_last || !is_same_kv(&plan->tasks[t], &plan->tasks[t + 1])))
        sim_program_add_op(prog, 0, SIM_OP_WRITE, costs->kv_write_ns + (is_last ? 0 : costs->kv_switch_ns), t);
    int64_t read = is_split(costs) ? MIN(costs->reduce_read_ns, costs->r_ns) : costs->r_ns;
    int store = 1 + i % store_warps(costs);
    *reduce_slot = read_op[t] = (int32_t)sim_program_add_op(prog, store, SIM_OP_REDUCE, read, t);
    release_op[t] = read_op[t];
    if (is_split(costs)) {
        int32_t tail = (int32_t)sim_program_add_op(prog, store, SIM_OP_SYNC, costs->r_ns - read, t);
        release_op[t] = costs->is_release_at_read ? read_op[t] : tail;
    }
    sim_program_add_edge(prog, deposit, read_op[t], 0, SIM_EDGE_PHASE);
    if (i >= costs->dq_buffers)
        sim_program_add_edge(prog, read_op[t - costs->dq_buffers], deposit, 0, SIM_EDGE_BUFFER);
}

static SimProgram *build(const Plan *plan, const AttnCosts *costs, bool has_tasks)
{
    bool is_async = costs->reduce == REDUCE_ASYNC;
    SimProgram *prog = sim_program_new(plan->wl.n_sm, is_async ? 1 + store_warps(costs) : 1);
    RankSlots r = rank_slots_new(plan);
    if (!has_tasks)
        sim_program_drop_tasks(prog);
    sim_program_reserve(prog, count_ops(plan, costs), count_edges(plan, costs, &r));
    sim_program_prefault(prog); /* filled to capacity (the reserve is exact): fault the pages in now */
    /* op ids: below 2^31 (sim_program_seal); async: a release and a read per task besides its reduction */
    int32_t *release_op = is_async ? SIM_PREFAULT_NEW(int32_t, plan->task_count) : NULL;
    int32_t *read_op = is_async ? SIM_PREFAULT_NEW(int32_t, plan->task_count) : NULL;
    bool *has_unit_started = g_new0(bool, plan->wl.n_sm); /* persistent: a unit's first CTA starts at launch */
    for (int32_t c = 0; c < plan->cta_count; c++) {
        const PlanCta *cta = &plan->ctas[c];
        sim_program_add_cta(prog, plan->is_persistent ? cta->slot : -1);
        /* CTAs that start at launch: the first n_sm in launch order, or each unit's first pinned one */
        bool is_launch = plan->is_persistent ? !has_unit_started[cta->slot] : c < plan->wl.n_sm;
        if (plan->is_persistent)
            has_unit_started[cta->slot] = true;
        if (has_prologue(costs))
            sim_program_add_op(prog, 0, SIM_OP_SYNC, prologue_ns(plan, costs, is_launch), cta->task_begin);
        for (int32_t i = 0, t = cta->task_begin; i < cta->task_count; i++, t++) {
            int32_t *reduce_slot = &r.by_rank[slot_of(plan, &r, t)];
            if (is_async) {
                add_async_task(prog, plan, costs, cta, i, is_launch, read_op, reduce_slot, release_op);
                continue;
            }
            sim_program_add_op(prog, 0, SIM_OP_COMPUTE, compute_ns(plan, costs, cta, i, is_launch), t);
            *reduce_slot = (int32_t)sim_program_add_op(prog, 0, SIM_OP_REDUCE, costs->r_ns, t);
        }
    }
    add_accumulation_edges(prog, plan, &r, release_op, (int32_t)costs->latency_ns);
    if (costs->load)
        sim_program_set_load(prog, costs->load);
    prog->overlap = costs->overlap;
    prog->waited = costs->waited;
    g_free(has_unit_started), g_free(release_op), g_free(read_op), g_free(r.row_first), g_free(r.by_rank);
    sim_program_seal(prog);
    return prog;
}

SimProgram *sim_attention_program(const Plan *plan, const AttnCosts *costs)
{
    return build(plan, costs, true);
}

SimProgram *sim_attention_program_untasked(const Plan *plan, const AttnCosts *costs)
{
    return build(plan, costs, costs->waited.read_delta_ns || costs->waited.tail_delta_ns || costs->waited.slope_milli_ns);
}

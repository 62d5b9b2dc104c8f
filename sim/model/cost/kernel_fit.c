/* Fitting a kernel profile to traces (kernel_fit.h). The traces are walked per GPU block (tasks of one block
 * share its SM and entry stamp), in compute order, so that each task's predecessor on its SM is known: the
 * kind of a task (first of a run, diagonal, overlapped by the previous reduction) comes from that walk. */
#include "kernel_fit.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* Growable sample of one phase. */
typedef struct {
    int64_t *v;
    int64_t n, cap;
} Sample;

static void add(Sample *s, int64_t x)
{
    if (s->n == s->cap)
        s->v = g_renew(int64_t, s->v, s->cap = s->cap ? 2 * s->cap : 256);
    s->v[s->n++] = x;
}

/* The median of a sample of stamp differences: with q > 1 (--grouped-medians) as grouped data on a timer of
 * step q ns (sim_median_grouped_i64: on a 32-ns timer the plain median snaps to the grid, so two fits of nearly
 * the same phase can land a step apart); else the plain median. */
static int64_t med(Sample *s, int64_t q)
{
    return s->n ? sim_median_grouped_i64(s->v, s->n, q) : 0;
}

enum { S_LAUNCH, S_LAUNCH_DIAG, S_LATER, S_LATER_DIAG, S_KV_WRITE, S_KV_WRITE_GQA, S_KV_SWITCH, S_GAP, S_DEPOSIT, S_READ, S_TAIL, S_READ_WAITED,
       S_TAIL_WAITED, S_HANDOFF, S_PROLOGUE, S_CTA_GAP, S_BESIDE_WRITE, S_BESIDE_WRITE_WAITED,
       S_RUNNING_WRITE, S_RUNNING_WRITE_WAITED, S_SLACK_STEP, S_COUNT }; /* each *_WAITED just after its kind */

/* Candidate overlap windows: the previous reduction starting from before_ns before to after_ns after the
 * compute's start. The fit keeps the pair that separates the computes best. */
static const int32_t windows[] = { 250, 500, 750, 1000, 1500 };
enum { N_WINDOWS = sizeof windows / sizeof windows[0] };

typedef struct {
    Sample s[S_COUNT];
    Sample offset_ns, offset_c;  /* interior tasks: previous reduction start - compute start, and compute */
    Sample offset_trace;         /* beside them, sample for sample: the trace's number (traces_seen at the time) */
    int64_t traces_seen;         /* traces collected so far */
    int64_t tick_ns;             /* the traces' own stamp step (sim_trace_stamp_step): penalty_within's grid */
    char *beside_write;          /* per task of the trace being walked: 0, or its reduction overlaps a dK/dV
                                  * write of its block: 'i' it started inside it, 'r' it ran when it began */
    Sample write_in_flight[2], write_ns[2]; /* each dK/dV write (MHA, GQA): other SMs' writes running at its
                                  * start, and its time */
    int32_t *inside_others;      /* with --write-extra-slope, per task of the trace being walked, marked 'i':
                                  * other SMs' writes running at its reduction's start; else NULL */
    Sample inside_in_flight[2];  /* beside S_BESIDE_WRITE and S_BESIDE_WRITE_WAITED, sample for sample: those
                                  * counts (the write-extra slope, --write-extra-slope) */
    int64_t *inside_at;          /* per task of the trace being walked, marked 'i': its reduction's start less the
                                  * write's start */
    Sample inside_offset[2];     /* beside S_BESIDE_WRITE and S_BESIDE_WRITE_WAITED, sample for sample: those */
    int64_t step_ns;             /* > 1: medians as grouped data on this grid (sim_kernel_fit_traces) */
    bool has_write_extra_slope;  /* KernelFitOptions': count inside_others */
    Sample step_in_flight, step_waited; /* per waited chain step (both ranks waited, on different SMs, neither beside
                                  * a write): the other reductions in flight at the first one's start, and the step
                                  * (turn to turn) */
} Phases;

static int by_block_then_start(const void *a, const void *b)
{
    const TraceTask *x = *(const TraceTask *const *)a, *y = *(const TraceTask *const *)b;
    if (x->smid != y->smid)
        return x->smid < y->smid ? -1 : 1;
    if (x->b_entry != y->b_entry)
        return x->b_entry < y->b_entry ? -1 : 1;
    return x->c_start < y->c_start ? -1 : x->c_start > y->c_start;
}

static bool is_diag(const Trace *t, const TraceTask *x)
{
    return t->wl.mask == MASK_CAUSAL && x->q / t->wl.tile_ratio == x->kv;
}

/* Marks the block's reductions that overlap one of its dK/dV writes (s_end -> k_end of a run's last task):
 * started inside it, or already running when it began (the engine's two rules, program.h). */
static void mark_beside_write(const Trace *t, TraceTask **b, int64_t n, Phases *ph)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            if (b[j]->k_end > b[j]->s_end && b[i]->r_start < b[j]->k_end && b[i]->r_end > b[j]->s_end) {
                ph->beside_write[b[i] - t->tasks] = b[i]->r_start >= b[j]->s_end ? 'i' : 'r';
                ph->inside_at[b[i] - t->tasks] = b[i]->r_start - b[j]->s_end;
                break;
            }
}

/* One GPU block's tasks, in compute order. */
static void walk_block(const Trace *t, TraceTask **b, int64_t n, bool is_launch_block, Phases *ph)
{
    mark_beside_write(t, b, n, ph);
    add(&ph->s[S_PROLOGUE], b[0]->c_start - b[0]->b_entry);
    for (int64_t i = 0; i < n; i++) {
        const TraceTask *x = b[i], *p = i ? b[i - 1] : NULL;
        bool is_first = !p || p->head != x->head || p->kv != x->kv, diag = is_diag(t, x);
        int64_t c = x->c_end - x->c_start;
        if (i == 0 && is_launch_block)
            add(&ph->s[diag ? S_LAUNCH_DIAG : S_LAUNCH], c);
        else if (i == 0) /* a CTA that started on an SM another CTA left */
            add(&ph->s[diag ? S_LATER_DIAG : S_LATER], c);
        else if (!is_first) {
            add(&ph->offset_ns, p->r_start - x->c_start);
            add(&ph->offset_c, c * 2 + diag); /* low bit: diagonal */
            add(&ph->offset_trace, ph->traces_seen);
        }
        if (x->k_end > x->s_end) {
            bool is_gqa = t->kernel.kv_heads > 0 && t->kernel.kv_heads < t->kernel.heads_per_batch;
            add(&ph->s[is_gqa ? S_KV_WRITE_GQA : S_KV_WRITE], x->k_end - x->s_end);
        }
        if (p && p->r_read <= x->c_end) /* the staging buffer was free: the deposit did not wait */
            add(&ph->s[S_DEPOSIT], x->s_end - x->c_end);
        if (i + 1 < n)
            add(&ph->s[x->k_end > x->s_end ? S_KV_SWITCH : S_GAP], b[i + 1]->c_start - x->k_end);
    }
}

/* How many of the sorted v are below at (binary search). */
static int64_t count_below(const int64_t *v, int64_t n, int64_t at)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Per row in rank order: each reduction's read and tail, split by whether it waited for its turn (its tile
 * was staged before the previous rank released); the hand-off where rank k waited for rank k-1 on
 * another SM: from k-1's release to k's acquire; and, where ranks k-1 and k both did not wait, the change of
 * the slack (staged minus the previous release) from one to the next: the jitter around a turn; and each waited chain
 * step with the reductions in flight at its start, those started and not ended before it (the waited step's slope). */
static void handoffs(const Trace *t, Phases *ph)
{
    int64_t rows = (int64_t)t->wl.heads * t->wl.q_tiles;
    int64_t *starts = g_new(int64_t, t->task_count), *ends = g_new(int64_t, t->task_count);
    for (int64_t i = 0; i < t->task_count; i++)
        starts[i] = t->tasks[i].r_start, ends[i] = t->tasks[i].r_end;
    sim_sort_i64(starts, t->task_count);
    sim_sort_i64(ends, t->task_count);
    int64_t *first = g_new0(int64_t, rows + 1);
    const TraceTask **by = g_new(const TraceTask *, t->task_count);
    for (int64_t i = 0; i < t->task_count; i++)
        first[(int64_t)t->tasks[i].head * t->wl.q_tiles + t->tasks[i].q + 1]++;
    for (int64_t r = 0; r < rows; r++)
        first[r + 1] += first[r];
    for (int64_t i = 0; i < t->task_count; i++) {
        const TraceTask *x = &t->tasks[i];
        int64_t row = (int64_t)x->head * t->wl.q_tiles + x->q;
        if (first[row] + x->rank < first[row + 1])
            by[first[row] + x->rank] = x;
    }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = first[r]; k < first[r + 1]; k++) {
            bool is_waited = k > first[r] && by[k]->r_ready < by[k - 1]->r_end;
            char beside = ph->beside_write[by[k] - t->tasks];
            if (beside) { /* its whole time; the excess is fitted later */
                add(&ph->s[beside == 'i' ? (is_waited ? S_BESIDE_WRITE_WAITED : S_BESIDE_WRITE)
                                         : (is_waited ? S_RUNNING_WRITE_WAITED : S_RUNNING_WRITE)],
                    by[k]->r_end - by[k]->r_start);
                if (beside == 'i' && ph->inside_others) /* sample for sample beside S_BESIDE_WRITE(_WAITED) */
                    add(&ph->inside_in_flight[is_waited], ph->inside_others[by[k] - t->tasks]);
                if (beside == 'i')
                    add(&ph->inside_offset[is_waited], ph->inside_at[by[k] - t->tasks]);
            } else {
                add(&ph->s[is_waited ? S_READ_WAITED : S_READ], by[k]->r_read - by[k]->r_start);
                add(&ph->s[is_waited ? S_TAIL_WAITED : S_TAIL], by[k]->r_end - by[k]->r_read);
            }
            if (is_waited && by[k]->smid != by[k - 1]->smid)
                add(&ph->s[S_HANDOFF], by[k]->r_start - by[k - 1]->r_end);
            if (k > first[r] + 1 && !is_waited && by[k - 1]->r_ready >= by[k - 2]->r_end)
                add(&ph->s[S_SLACK_STEP], (by[k]->r_ready - by[k - 1]->r_end) - (by[k - 1]->r_ready - by[k - 2]->r_end));
            if (k > first[r] + 1 && is_waited && by[k - 1]->r_ready < by[k - 2]->r_end &&
                by[k]->smid != by[k - 1]->smid && !beside && !ph->beside_write[by[k - 1] - t->tasks]) {
                int64_t at = by[k - 1]->r_start;
                add(&ph->step_in_flight, count_below(starts, t->task_count, at) - count_below(ends, t->task_count, at));
                add(&ph->step_waited, by[k]->r_start - by[k - 1]->r_start);
            }
        }
    g_free(starts), g_free(ends);
    g_free(by);
    g_free(first);
}

/* The waited chain step against the reductions in flight (docs/profile.md, "The waited step and the load"): the
 * steps binned by 16 in flight, each bin's median step at its mean count, a line through the bins of at least 50
 * steps weighted by their counts. Its slope in milli-ns per reduction and its weighted mean count, where the
 * profile's waited costs stand; 0 slope with fewer than 3 such bins. */
static void fit_waited_slope(const Phases *ph, KernelTile *tile)
{
    enum { BIN = 16, BINS = 64, LEAST = 50 };
    Sample y[BINS] = { 0 };
    double kx[BINS] = { 0 };
    for (int64_t i = 0; i < ph->step_in_flight.n; i++) {
        int b = (int)MIN(ph->step_in_flight.v[i] / BIN, BINS - 1);
        add(&y[b], ph->step_waited.v[i]);
        kx[b] += (double)ph->step_in_flight.v[i];
    }
    double sw = 0, sx = 0, sy = 0, mx[BINS], my[BINS];
    int used = 0;
    for (int b = 0; b < BINS; b++)
        if (y[b].n >= LEAST) {
            mx[b] = kx[b] / (double)y[b].n, my[b] = (double)sim_median_i64(y[b].v, y[b].n);
            sw += (double)y[b].n, sx += (double)y[b].n * mx[b], sy += (double)y[b].n * my[b], used++;
        }
    double sxx = 0, sxy = 0;
    for (int b = 0; b < BINS && used >= 3; b++)
        if (y[b].n >= LEAST)
            sxx += (double)y[b].n * (mx[b] - sx / sw) * (mx[b] - sx / sw),
            sxy += (double)y[b].n * (mx[b] - sx / sw) * (my[b] - sy / sw);
    if (used >= 3 && sxx > 0) {
        tile->reduce_waited_slope_milli = llround(1000 * sxy / sxx);
        tile->reduce_waited_k_ref = llround(sx / sw);
    }
    for (int b = 0; b < BINS; b++)
        g_free(y[b].v);
}

/* The jitter around a reduction's turn as one standard deviation, robustly: the interquartile range of the slack's
 * changes from rank to rank (each the difference of two draws, so sqrt 2 wider) over 1.349; 0 with fewer than
 * 2 samples. */
static int64_t turn_jitter(Sample *s)
{
    if (s->n < 2)
        return 0;
    int64_t q1 = sim_quantile_i64(s->v, s->n, 0.25), q3 = sim_quantile_i64(s->v, s->n, 0.75);
    return (int64_t)llround((double)(q3 - q1) / (1.349 * M_SQRT2));
}

static int by_write_start(const void *a, const void *b)
{
    const TraceTask *x = *(const TraceTask *const *)a, *y = *(const TraceTask *const *)b;
    return x->s_end < y->s_end ? -1 : x->s_end > y->s_end ? 1 : x->smid - y->smid;
}

/* Each dK/dV write (s_end -> k_end of a run's last task) with the number of other SMs' writes running at its
 * start, as the engine counts them (the write-slope rule, program.h): a sweep in start order over the
 * writes still running (at most one an SM). */
static void write_waves(const Trace *t, Phases *ph)
{
    const TraceTask **w = g_new(const TraceTask *, t->task_count);
    int64_t n = 0;
    for (int64_t i = 0; i < t->task_count; i++)
        if (t->tasks[i].k_end > t->tasks[i].s_end)
            w[n++] = &t->tasks[i];
    qsort(w, (size_t)n, sizeof *w, by_write_start);
    const TraceTask **running = g_new(const TraceTask *, n ? n : 1);
    int64_t m = 0;
    bool is_gqa = t->kernel.kv_heads > 0 && t->kernel.kv_heads < t->kernel.heads_per_batch;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = 0, others = 0;
        for (int64_t j = 0; j < m; j++)
            if (running[j]->k_end > w[i]->s_end) {
                running[k++] = running[j];
                others += running[j]->smid != w[i]->smid;
            }
        m = k;
        running[m++] = w[i];
        add(&ph->write_in_flight[is_gqa], others);
        add(&ph->write_ns[is_gqa], w[i]->k_end - w[i]->s_end);
    }
    g_free(running);
    g_free(w);
}

/* The write slope (ns per other write in flight) by least squares over both kinds of write, each about its
 * own mean (their times differ by their bytes, the slope is the memory system's), clamped at 0; then each
 * kind's base, the median of time - slope x in flight. With no spread in the counts, no slope. */
static void fit_write_slope(Phases *ph, KernelTile *tile)
{
    double num = 0, den = 0;
    for (int k = 0; k < 2; k++) {
        const Sample *x = &ph->write_in_flight[k], *y = &ph->write_ns[k];
        double mx = 0, my = 0;
        for (int64_t i = 0; i < x->n; i++)
            mx += (double)x->v[i] / (double)x->n, my += (double)y->v[i] / (double)x->n;
        for (int64_t i = 0; i < x->n; i++)
            num += ((double)x->v[i] - mx) * ((double)y->v[i] - my), den += pow((double)x->v[i] - mx, 2);
    }
    int32_t slope = den > 0 && num > 0 ? (int32_t)lround(num / den) : 0;
    tile->overlap.write_slope_ns = slope;
    int64_t *base[2] = { &tile->kv_write_ns, &tile->kv_write_gqa_ns };
    for (int k = 0; k < 2; k++) {
        Sample r = { 0 };
        for (int64_t i = 0; i < ph->write_ns[k].n; i++)
            add(&r, ph->write_ns[k].v[i] - (int64_t)slope * ph->write_in_flight[k].v[i]);
        *base[k] = MAX(med(&r, ph->step_ns), 0);
        g_free(r.v);
    }
}

/* For each reduction that started inside its block's dK/dV write: the other SMs' writes (s_end -> k_end of a
 * run's last task) running at its start. O(such reductions x writes). */
static void count_inside_others(const Trace *t, Phases *ph)
{
    const TraceTask **w = g_new(const TraceTask *, t->task_count ? t->task_count : 1);
    int64_t n = 0;
    for (int64_t i = 0; i < t->task_count; i++)
        if (t->tasks[i].k_end > t->tasks[i].s_end)
            w[n++] = &t->tasks[i];
    for (int64_t i = 0; i < t->task_count; i++) {
        const TraceTask *x = &t->tasks[i];
        int32_t others = 0;
        for (int64_t j = 0; ph->beside_write[i] == 'i' && j < n; j++)
            others += w[j]->smid != x->smid && w[j]->s_end <= x->r_start && x->r_start < w[j]->k_end;
        ph->inside_others[i] = others;
    }
    g_free(w);
}

static void collect(const Trace *t, Phases *ph)
{
    TraceTask **b = g_new(TraceTask *, t->task_count);
    ph->beside_write = g_new0(char, t->task_count);
    ph->inside_at = g_new0(int64_t, t->task_count ? t->task_count : 1);
    for (int64_t i = 0; i < t->task_count; i++)
        b[i] = &t->tasks[i];
    qsort(b, (size_t)t->task_count, sizeof *b, by_block_then_start);
    int32_t prev_sm = -1;
    int64_t prev_end = 0; /* the SM's previous block's last op end (reduction or dK/dV write) */
    for (int64_t i = 0, j; i < t->task_count; i = j) {
        int64_t end = INT64_MIN;
        for (j = i; j < t->task_count && b[j]->smid == b[i]->smid && b[j]->b_entry == b[i]->b_entry; j++)
            end = MAX(end, MAX(b[j]->r_end, b[j]->k_end));
        walk_block(t, b + i, j - i, b[i]->smid != prev_sm, ph); /* an SM's first block started at launch */
        if (b[i]->smid == prev_sm) /* a block on an SM another block left: the turnover between them */
            add(&ph->s[S_CTA_GAP], b[i]->b_entry - prev_end);
        prev_sm = b[i]->smid, prev_end = end;
    }
    if (ph->has_write_extra_slope) {
        ph->inside_others = g_new0(int32_t, t->task_count ? t->task_count : 1);
        count_inside_others(t, ph);
    }
    handoffs(t, ph);
    write_waves(t, ph);
    ph->traces_seen++;
    g_free(ph->beside_write), g_free(ph->inside_others), g_free(ph->inside_at);
    ph->beside_write = NULL, ph->inside_others = NULL, ph->inside_at = NULL;
    g_free(b);
}

/* The overlap penalty within each trace (docs/profile.md, "The overlap penalty within a trace"): per trace, the
 * median of its interior computes (not cut by the diagonal) that start inside the window less the median of those
 * outside it, each a median of grouped data on the stamps' own grid (so that a difference below the timer's step is
 * not rounded to 0 or a whole step); the median over the traces with at least 16 of each, never below 0. One trace is one schedule at one
 * clock; the pooled groups compared schedules, whose clocks differ with their load. O(traces x samples). */
static int64_t penalty_within(const Phases *ph, int32_t before, int32_t after)
{
    Sample diff = { 0 };
    for (int64_t t = 0; t < ph->traces_seen; t++) {
        Sample g[2] = { { 0 } };
        for (int64_t i = 0; i < ph->offset_ns.n; i++) {
            int64_t off = ph->offset_ns.v[i], c = ph->offset_c.v[i];
            if (ph->offset_trace.v[i] == t && !(c & 1))
                add(&g[off >= -before && off < after], c >> 1);
        }
        if (g[0].n >= 16 && g[1].n >= 16)
            add(&diff, med(&g[1], ph->tick_ns) - med(&g[0], ph->tick_ns));
        g_free(g[0].v), g_free(g[1].v);
    }
    int64_t pen = diff.n ? MAX(med(&diff, 0), 0) : 0;
    g_free(diff.v);
    return pen;
}

/* The window pair that splits the interior computes into two groups with the least squared deviation from
 * their group medians; the penalty is measured within each trace at that window (penalty_within). */
static void fit_overlap(Phases *ph, SimOverlapRule *rule, int64_t *c_plain, int64_t *diag_plain)
{
    double best = INFINITY;
    for (int a = 0; a < N_WINDOWS; a++)
        for (int b = 0; b < N_WINDOWS; b++) {
            Sample g[4] = { 0 };
            for (int64_t i = 0; i < ph->offset_ns.n; i++) {
                int64_t off = ph->offset_ns.v[i], c = ph->offset_c.v[i];
                bool in = off >= -windows[a] && off < windows[b];
                add(&g[(c & 1) * 2 + in], c >> 1);
            }
            int64_t m[4];
            double sse = 0;
            for (int k = 0; k < 4; k++)
                m[k] = med(&g[k], ph->step_ns);
            for (int64_t i = 0; i < ph->offset_ns.n; i++) {
                int64_t off = ph->offset_ns.v[i], c = ph->offset_c.v[i];
                int k = (int)((c & 1) * 2 + (off >= -windows[a] && off < windows[b]));
                sse += pow((double)((c >> 1) - m[k]), 2);
            }
            if (sse < best) {
                best = sse;
                *c_plain = m[0], *diag_plain = m[2];
                *rule = (SimOverlapRule){ .before_ns = windows[a], .after_ns = windows[b] };
            }
            for (int k = 0; k < 4; k++)
                g_free(g[k].v);
        }
}

/* Least squares y = base + slope x over n points; with one distinct x, the mean and no slope. A negative
 * slope (noise over a narrow range of sizes) is clamped to 0 with the mean as base. */
static KernelLinear fit_linear(const double *x, const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++)
        sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
    double den = n * sxx - sx * sx;
    if (n == 0)
        return (KernelLinear){ 0, 0 };
    if (den <= 1e-9 * (sxx + 1) || n * sxy - sx * sy <= 0)
        return (KernelLinear){ sy / n, 0 };
    double slope = (n * sxy - sx * sy) / den;
    return (KernelLinear){ (sy - slope * sx) / n, slope };
}

static SimShape trace_shape(const Trace *t)
{
    const TraceKernel *k = &t->kernel;
    return (SimShape){ .batch = k->batch, .heads = k->heads_per_batch, .kv_heads = k->kv_heads,
                       .seqlen_q = k->seqlen, .seqlen_k = k->seqlen, .head_dim = k->head_dim, .mask = t->wl.mask };
}

/* The span of a trace's tasks: first compute start to last reduction end. */
static int64_t trace_span(const Trace *t)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t i = 0; i < t->task_count; i++)
        lo = MIN(lo, t->tasks[i].c_start), hi = MAX(hi, t->tasks[i].r_end);
    return hi - lo;
}

/* What a launch took beyond its tasks' span: the timed run's time (timed_ns > 0) or else the recorded run's cudaEvent
 * stages, less the trace's span. */
static double launch_over(const Trace *t, int64_t timed_ns)
{
    const TraceKernel *k = &t->kernel;
    int64_t total = timed_ns > 0 ? timed_ns : k->memset_ns + k->pre_ns + k->main_ns + k->post_ns;
    return (double)(total - trace_span(t));
}

/* The fixed costs: what a launch takes beyond its tasks' span, against the MiB its fixed stages move. The
 * launch's time is the timed run's (timed_ns) when known, else the recorded run's cudaEvent stages (which
 * count an event's overhead at each stage boundary: an upper bound). GQA traces give the group sums' part
 * over what the fit of the others predicts for them: with gqa_rate > 0 (the group sums' own ns a MiB, pooled
 * over the profile's head dims: gqa_stage_rate) their MiB at that rate and the mean rest as its base (the
 * line's rate is then gqa_rate less the tile's, which may be negative); else their MiB at the tile's rate and
 * the rest as a line of its own (one size: its mean). */
static void fit_fixed(Trace *const *tr, const int64_t *timed_ns, int n, double gqa_rate, KernelTile *tile)
{
    double x[2][256] = { { 0 } }, y[2][256] = { { 0 } }, mib[256][2] = { { 0 } }, over[256] = { 0 };
    int m[2] = { 0 };
    for (int i = 0; i < n && i < 256; i++) {
        SimShape s = trace_shape(tr[i]);
        sim_kernel_stage_mib(&s, mib[i]);
        over[i] = launch_over(tr[i], timed_ns ? timed_ns[i] : 0);
        if (mib[i][1] == 0)
            x[0][m[0]] = mib[i][0], y[0][m[0]++] = over[i];
    }
    tile->fixed = fit_linear(x[0], y[0], m[0]);
    const KernelLinear *f = &tile->fixed;
    for (int i = 0; i < n && i < 256; i++) {
        if (mib[i][1] == 0)
            continue;
        /* what the line charges: every stage at the tile's rate (the old arithmetic, so those profiles rebuild byte
         * for byte), or the group sums' MiB at their own */
        double charged = gqa_rate > 0 ? f->base_ns + f->ns_per_mib * mib[i][0] + gqa_rate * mib[i][1]
                                      : f->base_ns + f->ns_per_mib * (mib[i][0] + mib[i][1]);
        x[1][m[1]] = mib[i][1], y[1][m[1]++] = over[i] - charged;
    }
    if (gqa_rate <= 0) {
        tile->fixed_gqa = fit_linear(x[1], y[1], m[1]);
        return;
    }
    double mean = 0;
    for (int i = 0; i < m[1]; i++)
        mean += y[1][i] / m[1];
    tile->fixed_gqa = m[1] ? (KernelLinear){ mean, gqa_rate - f->ns_per_mib } : (KernelLinear){ 0, 0 };
}

static int cmp_point(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* xy (n pairs) sorted by x into t: SIM_ERR_INPUT unless 2 to SIM_KERNEL_TABLE_MAX points, x strictly increasing. */
static SimStatus make_table(double (*xy)[2], int n, const char *path, const char *what, KernelTable *t, SimError *err)
{
    qsort(xy, (size_t)n, sizeof xy[0], cmp_point);
    if (n < 2 || n > SIM_KERNEL_TABLE_MAX)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: %d sizes for %s: a stage table needs 2 to %d", path, n, what,
                             SIM_KERNEL_TABLE_MAX);
    for (int i = 0; i < n; i++) {
        if (i && xy[i][0] <= xy[i - 1][0])
            return sim_error_set(err, SIM_ERR_INPUT, "%s: two points of the same size (%.17g) for %s", path, xy[i][0], what);
        t->x[i] = xy[i][0], t->ns[i] = xy[i][1];
    }
    t->n = n;
    return SIM_OK;
}

/* The stage tables of head dim d from a sweep: stages from its group-1 points of d (the chain over rows); sums
 * pooled over head dims and groups (one memory stream whatever the head dim, as gqa_stage_rate's): each GQA point's
 * chain less the group-1 chain of the same head dim and rows, over its group-sum MiB, the points of one size (rows
 * x head dim) averaged. */
static SimStatus stage_tables(const KernelStageSweep *s, int d, KernelTile *tile, SimError *err)
{
    double (*xy)[2] = g_malloc0(sizeof(double[2]) * (size_t)(s->count + 1));
    double (*sum)[2] = g_malloc0(sizeof(double[2]) * (size_t)(s->count + 1));
    int64_t *key = g_new0(int64_t, s->count + 1);
    int *per = g_new0(int, s->count + 1), n = 0, m = 0;
    for (int i = 0; i < s->count; i++) {
        const KernelStagePoint *p = &s->points[i];
        if (p->group == 1 && p->head_dim == d)
            xy[n][0] = (double)p->rows, xy[n++][1] = (double)p->chain_ns;
        if (p->group == 1 || err->status)
            continue;
        const KernelStagePoint *one = NULL;
        for (int j = 0; j < s->count && !one; j++)
            if (s->points[j].group == 1 && s->points[j].head_dim == p->head_dim && s->points[j].rows == p->rows)
                one = &s->points[j];
        if (!one) {
            sim_error_set(err, SIM_ERR_INPUT, "%s: /points/%d: a GQA point needs the group-1 point of the same head "
                          "dim and rows (its group sums are the difference)", s->path, i);
            continue;
        }
        double mib[2];
        SimShape sh = { .batch = 1, .heads = p->group, .kv_heads = 1, .seqlen_q = p->rows / p->group,
                        .seqlen_k = p->rows / p->group, .head_dim = p->head_dim };
        sim_kernel_stage_mib(&sh, mib);
        int b = 0;
        while (b < m && key[b] != p->rows * p->head_dim)
            b++;
        key[b] = p->rows * p->head_dim, m = MAX(m, b + 1);
        sum[b][0] += mib[1], sum[b][1] += (double)(p->chain_ns - one->chain_ns), per[b]++;
    }
    for (int b = 0; b < m; b++)
        sum[b][0] /= per[b], sum[b][1] /= per[b];
    char what[64];
    snprintf(what, sizeof what, "head dim %d at group 1", d);
    if (!err->status && make_table(xy, n, s->path, what, &tile->stages, err) == SIM_OK)
        make_table(sum, m, s->path, "the group sums (GQA points)", &tile->sums, err);
    g_free(xy), g_free(sum), g_free(key), g_free(per);
    return err->status;
}

/* With a stage sweep: the tile's stage tables, and fixed as the mean of what each trace's launch took beyond its
 * span and the tables (the launches, the first prologue, the drain); fixed_gqa 0. */
static SimStatus fit_stages(const KernelStageSweep *s, Trace *const *tr, const int64_t *timed_ns, int n,
                            KernelTile *tile, SimError *err)
{
    if (strcmp(s->gpu_name, tr[0]->gpu_name) != 0)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: /metadata/gpu_name: %s is not the traces' GPU (%s): the stages "
                             "must be timed on the same GPU", s->path, s->gpu_name, tr[0]->gpu_name);
    if (stage_tables(s, tile->head_dim, tile, err) != SIM_OK)
        return err->status;
    double rest = 0;
    for (int i = 0; i < n; i++) {
        SimShape sh = trace_shape(tr[i]);
        double mib[2];
        sim_kernel_stage_mib(&sh, mib);
        rest += (launch_over(tr[i], timed_ns ? timed_ns[i] : 0) - sim_kernel_table_ns(&tile->stages,
                 (double)sh.batch * sh.heads * sh.seqlen_q) - (mib[1] > 0 ? sim_kernel_table_ns(&tile->sums, mib[1]) : 0)) / n;
    }
    tile->fixed = (KernelLinear){ rest, 0 }, tile->fixed_gqa = (KernelLinear){ 0, 0 };
    return SIM_OK;
}

/* The group sums' own rate (ns a MiB of their stage's bytes) from the recorded launches' post stage: per head dim,
 * the MHA traces' post_ns as a line over rows (the dQ postprocess alone), and each GQA trace's post_ns above that
 * line against its group-sum MiB; a line over those points, pooled over head dims (the group sums are one memory
 * stream whatever the head dim, and each head dim's calibration has one GQA size). 0 (not known) unless at least
 * two sizes give a positive rate. O(traces^2). */
static double gqa_stage_rate(Trace *const *tr, int n)
{
    double x[256], y[256];
    int m = 0;
    for (int i = 0; i < n && m < 256; i++) {
        SimShape s = trace_shape(tr[i]);
        double mib[2], rx[256], ry[256];
        sim_kernel_stage_mib(&s, mib);
        if (mib[1] == 0 || tr[i]->kernel.post_ns <= 0)
            continue;
        int r = 0;
        for (int j = 0; j < n && r < 256; j++) {
            SimShape t = trace_shape(tr[j]);
            double mj[2];
            sim_kernel_stage_mib(&t, mj);
            if (mj[1] == 0 && t.head_dim == s.head_dim && tr[j]->kernel.post_ns > 0)
                rx[r] = (double)t.batch * t.heads * t.seqlen_q, ry[r++] = (double)tr[j]->kernel.post_ns;
        }
        KernelLinear dq = fit_linear(rx, ry, r); /* its ns_per_mib is ns a row here */
        if (r >= 2 && dq.ns_per_mib > 0)
            x[m] = mib[1], y[m++] = (double)tr[i]->kernel.post_ns - (dq.base_ns + dq.ns_per_mib *
                                                                    ((double)s.batch * s.heads * s.seqlen_q));
    }
    KernelLinear g = fit_linear(x, y, m);
    return g.ns_per_mib > 0 ? g.ns_per_mib : 0;
}

/* With --write-extra-slope: the reductions that started inside a write, excess (over the same kind alone) against
 * the other SMs' writes in flight at their start; the slope by least squares, clamped at 0, then the base as
 * the median of excess - slope x count (as the write slope's, fit_write_slope). */
static void fit_write_extra_slope(const Phases *ph, int64_t alone, int64_t alone_waited, KernelTile *tile)
{
    double mx = 0, my = 0, num = 0, den = 0;
    int64_t n = ph->s[S_BESIDE_WRITE].n + ph->s[S_BESIDE_WRITE_WAITED].n;
    for (int pass = 0; pass < 2 && n > 0; pass++)
        for (int w = 0; w < 2; w++) {
            const Sample *y = &ph->s[w ? S_BESIDE_WRITE_WAITED : S_BESIDE_WRITE], *x = &ph->inside_in_flight[w];
            for (int64_t i = 0; i < y->n; i++) {
                double dx = (double)x->v[i], dy = (double)(y->v[i] - (w ? alone_waited : alone));
                if (pass == 0)
                    mx += dx / (double)n, my += dy / (double)n;
                else
                    num += (dx - mx) * (dy - my), den += (dx - mx) * (dx - mx);
            }
        }
    int32_t slope = den > 0 && num > 0 ? (int32_t)lround(num / den) : 0;
    Sample r = { 0 };
    for (int w = 0; w < 2; w++) {
        const Sample *y = &ph->s[w ? S_BESIDE_WRITE_WAITED : S_BESIDE_WRITE], *x = &ph->inside_in_flight[w];
        for (int64_t i = 0; i < y->n; i++)
            add(&r, y->v[i] - (w ? alone_waited : alone) - (int64_t)slope * x->v[i]);
    }
    tile->overlap.write_extra_slope_ns = slope;
    tile->overlap.write_extra_ns = (int32_t)MAX(med(&r, ph->step_ns), 0);
    g_free(r.v);
}

/* A reduction's read and tail alone (no dK/dV write beside it), of the waited kind or not (none measured: the
 * other). */
static int64_t reduction_alone(const KernelTile *tile, bool is_waited)
{
    if (is_waited && tile->reduce_read_waited_ns)
        return tile->reduce_read_waited_ns + tile->reduce_tail_waited_ns;
    return tile->reduce_read_ns + tile->reduce_tail_ns;
}

/* The median excess of the reductions beside a dK/dV write over the same kind of reduction alone (those that
 * waited for their turn over the waited ones): the reductions that started inside it, and unless at_start also
 * those running when it began (the engine's two rules, program.h); 0 when none was seen. */
static int32_t write_excess(const Phases *ph, const KernelTile *tile, bool at_start)
{
    static const int kinds[] = { S_BESIDE_WRITE, S_RUNNING_WRITE };
    int64_t alone = reduction_alone(tile, false), alone_waited = reduction_alone(tile, true);
    Sample excess = { 0 };
    for (int k = 0; k < (at_start ? 1 : 2); k++) {
        for (int64_t i = 0; i < ph->s[kinds[k]].n; i++)
            add(&excess, ph->s[kinds[k]].v[i] - alone);
        for (int64_t i = 0; i < ph->s[kinds[k] + 1].n; i++)
            add(&excess, ph->s[kinds[k] + 1].v[i] - alone_waited);
    }
    int32_t x = (int32_t)MAX(med(&excess, ph->step_ns), 0);
    g_free(excess.v);
    return x;
}

/* Under the start rule, with --write-extra-window (docs/profile.md, "The write extra by the time into the write"):
 * a reduction that starts early in its SM's dK/dV write pays much more than one that starts late (the default's
 * d 128 calibration: about 1.8 us in the first 1.5 us, 0.0-0.9 after 2 us), so the extra is two medians split at
 * the window (from 500 to 4000 ns in steps of 250) that leaves the least squared error; both kinds (waited or not)
 * pooled, each against its own reduction alone. Fewer than 2 samples on a side: that window is not a candidate. */
static void write_extra_window(const Phases *ph, KernelTile *tile)
{
    int64_t alone = reduction_alone(tile, false), alone_waited = reduction_alone(tile, true);
    double best = -1;
    for (int32_t w = 500; w <= 4000; w += 250) {
        Sample side[2] = { { 0 } };
        for (int k = 0; k < 2; k++) {
            const Sample *y = &ph->s[k ? S_BESIDE_WRITE_WAITED : S_BESIDE_WRITE], *x = &ph->inside_offset[k];
            for (int64_t i = 0; i < y->n && i < x->n; i++)
                add(&side[x->v[i] >= w], y->v[i] - (k ? alone_waited : alone));
        }
        if (side[0].n >= 2 && side[1].n >= 2) {
            int64_t m[2] = { med(&side[0], ph->step_ns), med(&side[1], ph->step_ns) };
            double sse = 0;
            for (int k = 0; k < 2; k++)
                for (int64_t i = 0; i < side[k].n; i++)
                    sse += pow((double)(side[k].v[i] - m[k]), 2);
            if (best < 0 || sse < best) {
                best = sse;
                tile->overlap.write_extra_ns = (int32_t)MAX(m[0], 0);
                tile->overlap.write_extra_window_ns = w, tile->overlap.write_extra_late_ns = (int32_t)MAX(m[1], 0);
            }
        }
        g_free(side[0].v), g_free(side[1].v);
    }
}

/* The clock dip at launch (docs/profile.md, "The clock dip at launch"), from the traces' cycle counts: each trace's
 * compute in bins of CLOCK_BIN_NS from its first compute start (cycles over stamps, each task split over the bins it
 * overlaps); the settled clock is the median of the bins from CLOCK_SETTLED_NS on; the dip's shape the mean deficit
 * of the busy traces (busy share above CLOCK_BUSY) per bin, peak 1; each trace's depth by least squares on that
 * shape, and the depth's line over the busy share (max(0, k (u - u0)), u0 on a grid of 0.01) by least squares.
 * No clock (bins 0) when a trace lacks cycles, none is busy, or no bin is past CLOCK_SETTLED_NS. */
#define CLOCK_BIN_NS 25000
#define CLOCK_BINS 12
#define CLOCK_SETTLED_NS 250000
#define CLOCK_BUSY 0.55
#define CLOCK_BINS_MAX 4000 /* 100 ms of bins: later compute does not enter the fit (a trace's times bound nothing) */

typedef struct {
    double busy, mhz[CLOCK_BINS]; /* mhz 0: the bin has too little compute to say */
    double depth;
} ClockTrace;

/* One trace's bins, busy share (tasks x compute_ns over its SMs' time) and the bins past CLOCK_SETTLED_NS into late. */
static bool clock_bins(const Trace *t, int64_t compute_ns, ClockTrace *ct, Sample *late)
{
    int64_t t0 = INT64_MAX, c_end = 0, span = trace_span(t);
    for (int64_t i = 0; i < t->task_count; i++)
        t0 = MIN(t0, t->tasks[i].c_start);
    for (int64_t i = 0; i < t->task_count; i++)
        c_end = MAX(c_end, t->tasks[i].c_end - t0);
    int nb = (int)MIN(c_end / CLOCK_BIN_NS + 1, CLOCK_BINS_MAX);
    double *cyc = g_new0(double, nb), *ns = g_new0(double, nb);
    bool has_cycles = true;
    for (int64_t i = 0; i < t->task_count; i++) {
        const TraceTask *x = &t->tasks[i];
        int64_t a = x->c_start - t0, b = x->c_end - t0;
        has_cycles &= x->c_cycles > 0;
        for (int64_t k = a / CLOCK_BIN_NS; b > a && k <= (b - 1) / CLOCK_BIN_NS && k < nb; k++) {
            double over = (double)(MIN(b, (k + 1) * CLOCK_BIN_NS) - MAX(a, k * CLOCK_BIN_NS));
            cyc[k] += (double)x->c_cycles * over / (double)(b - a), ns[k] += over;
        }
    }
    *ct = (ClockTrace){ .busy = (double)t->task_count * (double)compute_ns /
                                ((double)t->wl.n_sm * (double)MAX(span, 1)) };
    for (int k = 0; k < nb; k++) {
        bool is_full = (int64_t)(k + 1) * CLOCK_BIN_NS <= c_end && ns[k] > 0.05 * CLOCK_BIN_NS * t->wl.n_sm;
        double mhz = is_full ? 1e3 * cyc[k] / ns[k] : 0;
        if (k < CLOCK_BINS)
            ct->mhz[k] = mhz;
        if (mhz > 0 && (int64_t)k * CLOCK_BIN_NS >= CLOCK_SETTLED_NS)
            add(late, llround(mhz * 1e3)); /* kHz: Sample holds integers */
    }
    g_free(cyc), g_free(ns);
    return has_cycles;
}

/* The depth line's u0 and slope: least squares over a grid of u0. */
static void fit_depth_line(const ClockTrace *ct, int n, AttnClock *k)
{
    double best = INFINITY;
    for (int g = 20; g < 60; g++) {
        double u0 = g / 100.0, sxy = 0, sxx = 0, sse = 0;
        for (int i = 0; i < n; i++) {
            double x = fmax(0, ct[i].busy - u0);
            sxy += x * ct[i].depth, sxx += x * x;
        }
        double slope = sxx > 0 ? fmax(0, sxy / sxx) : 0;
        for (int i = 0; i < n; i++)
            sse += pow(ct[i].depth - slope * fmax(0, ct[i].busy - u0), 2);
        if (sse < best - 1e-9)
            best = sse, k->dip_u0 = u0, k->dip_mhz_per_u = round(slope * 10) / 10;
    }
}

static void fit_clock(Trace *const *tr, int n, int64_t compute_ns, AttnClock *k)
{
    *k = (AttnClock){ 0 };
    ClockTrace *ct = g_new0(ClockTrace, n);
    Sample late = { 0 };
    bool has_cycles = true;
    double cycles = 0, stamped = 0;
    for (int i = 0; i < n; i++) {
        has_cycles &= clock_bins(tr[i], compute_ns, &ct[i], &late);
        for (int64_t j = 0; j < tr[i]->task_count; j++) {
            const TraceTask *x = &tr[i]->tasks[j];
            cycles += (double)x->c_cycles, stamped += (double)(x->c_end - x->c_start);
        }
    }
    double shape[CLOCK_BINS] = { 0 }, peak = 0, settled = late.n ? (double)med(&late, 0) / 1e3 : 0;
    for (int b = 0; b < CLOCK_BINS && settled > 0; b++) {
        double sum = 0;
        int m = 0;
        for (int i = 0; i < n; i++)
            if (ct[i].busy > CLOCK_BUSY && ct[i].mhz[b] > 0)
                sum += settled - ct[i].mhz[b], m++;
        shape[b] = m ? fmax(0, sum / m) : 0, peak = fmax(peak, shape[b]);
    }
    if (has_cycles && peak > 0 && stamped > 0) {
        k->max_mhz = round(settled * 10) / 10, k->ref_mhz = round(1e4 * cycles / stamped) / 10;
        k->dip_bin_ns = CLOCK_BIN_NS, k->bins = CLOCK_BINS;
        for (int b = 0; b < CLOCK_BINS; b++)
            k->dip[b] = round(1000 * shape[b] / peak) / 1000;
        for (int i = 0; i < n; i++) {
            double sxy = 0, sxx = 0;
            for (int b = 0; b < CLOCK_BINS; b++)
                if (ct[i].mhz[b] > 0)
                    sxy += k->dip[b] * (k->max_mhz - ct[i].mhz[b]), sxx += k->dip[b] * k->dip[b];
            ct[i].depth = sxx > 0 ? sxy / sxx : 0;
        }
        fit_depth_line(ct, n, k);
    }
    g_free(ct), g_free(late.v);
}

/* One tile from the traces of one head dim. */
static void fit_tile(Trace *const *tr, const int64_t *timed_ns, int n, const KernelFitOptions *o, double gqa_rate,
                     KernelTile *tile)
{
    Phases ph = { .step_ns = o->step_ns, .has_write_extra_slope = o->has_write_extra_slope && o->is_write_rule_start,
                  .tick_ns = sim_trace_stamp_step(tr, n) };
    for (int i = 0; i < n; i++)
        collect(tr[i], &ph);
    int64_t c = 0, diag = 0, q = o->step_ns;
    fit_overlap(&ph, &tile->overlap, &c, &diag);
    tile->overlap.penalty_ns = (int32_t)penalty_within(&ph, tile->overlap.before_ns, tile->overlap.after_ns);
    int64_t gap = med(&ph.s[S_GAP], q);
    Sample extra = { 0 }, later = { 0 }; /* first computes over the same kind of interior compute */
    for (int64_t i = 0; i < ph.s[S_LAUNCH].n; i++)
        add(&extra, ph.s[S_LAUNCH].v[i] - c);
    for (int64_t i = 0; i < ph.s[S_LAUNCH_DIAG].n; i++)
        add(&extra, ph.s[S_LAUNCH_DIAG].v[i] - (diag ? diag : c));
    for (int64_t i = 0; i < ph.s[S_LATER].n; i++)
        add(&later, ph.s[S_LATER].v[i] - c);
    for (int64_t i = 0; i < ph.s[S_LATER_DIAG].n; i++)
        add(&later, ph.s[S_LATER_DIAG].v[i] - (diag ? diag : c));
    *tile = (KernelTile){
        .head_dim = tr[0]->kernel.head_dim, .mask = -1, .block_m = tr[0]->kernel.tile_m,
        .block_n = tr[0]->kernel.tile_n, .compute_ns = c + gap, .diag_ns = diag ? diag + gap : 0,
        .launch_extra_ns = MAX(med(&extra, q), 0), .cta_first_extra_ns = MAX(med(&later, q), 0),
        .kv_write_ns = med(&ph.s[S_KV_WRITE], q), .kv_write_gqa_ns = med(&ph.s[S_KV_WRITE_GQA], q),
        .kv_switch_ns = ph.s[S_KV_SWITCH].n ? MAX(med(&ph.s[S_KV_SWITCH], q) - gap, 0) : 0,
        .deposit_ns = med(&ph.s[S_DEPOSIT], q), .reduce_read_ns = MAX(med(&ph.s[S_READ], q), 1),
        .reduce_tail_ns = MAX(med(&ph.s[S_TAIL], q), 1), .reduce_read_waited_ns = med(&ph.s[S_READ_WAITED], q),
        .reduce_tail_waited_ns = med(&ph.s[S_TAIL_WAITED], q), .handoff_ns = MAX(med(&ph.s[S_HANDOFF], q), 0),
        .cta_prologue_ns = med(&ph.s[S_PROLOGUE], q), .cta_gap_ns = o->has_cta_gap ? MAX(med(&ph.s[S_CTA_GAP], q), 0) : 0, .overlap = tile->overlap, .traces = n,
        .store_warps = tr[0]->kernel.store_warps };
    if (!o->stages) /* else fit_stages gives the fixed costs */
        fit_fixed(tr, timed_ns, n, gqa_rate, tile);
    tile->overlap.write_extra_ns = write_excess(&ph, tile, o->is_write_rule_start);
    tile->overlap.is_write_extra_at_start = o->is_write_rule_start;
    if (o->is_write_rule_start && !o->has_write_extra_slope && o->has_write_extra_window)
        write_extra_window(&ph, tile);
    if (o->has_write_extra_slope && o->is_write_rule_start)
        fit_write_extra_slope(&ph, reduction_alone(tile, false), reduction_alone(tile, true), tile);
    fit_write_slope(&ph, tile);
    /* only where a row that waited once stays waiting: a waited chain step (read, tail, hand-off) longer than an
     * interior compute step (compute and loop gap, staging); elsewhere a turn within the jitter waits now and
     * then, at no lasting cost (docs/profile.md, "The jitter around a turn") */
    if (o->has_turn_jitter && tile->reduce_read_waited_ns > 0 &&
        tile->reduce_read_waited_ns + tile->reduce_tail_waited_ns + tile->handoff_ns > tile->compute_ns + tile->deposit_ns)
        tile->reduce_turn_jitter_ns = turn_jitter(&ph.s[S_SLACK_STEP]);
    if (o->has_clock)
        fit_clock(tr, n, tile->compute_ns, &tile->clock);
    if (o->has_waited_slope && tile->reduce_read_waited_ns > 0)
        fit_waited_slope(&ph, tile);
    g_free(ph.step_in_flight.v), g_free(ph.step_waited.v);

    for (int k = 0; k < S_COUNT; k++)
        g_free(ph.s[k].v);
    for (int k = 0; k < 2; k++)
        g_free(ph.write_in_flight[k].v), g_free(ph.write_ns[k].v), g_free(ph.inside_in_flight[k].v),
            g_free(ph.inside_offset[k].v);
    g_free(ph.offset_ns.v), g_free(ph.offset_c.v), g_free(ph.offset_trace.v), g_free(extra.v), g_free(later.v);
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b, b = r;
    }
    return a;
}

int64_t sim_trace_stamp_step(Trace *const *traces, int count)
{
    int64_t g = 0;
    for (int i = 0; i < count && g != 1; i++)
        for (int64_t j = 0; j < traces[i]->task_count && g != 1; j++) {
            const TraceTask *x = &traces[i]->tasks[j];
            const int64_t stamp[] = { x->c_start, x->c_end, x->r_ready, x->r_start, x->r_end, x->s_end, x->k_end,
                                      x->r_read, x->b_entry, x->b_exit };
            for (size_t k = 0; k < sizeof stamp / sizeof stamp[0]; k++)
                g = gcd(g, stamp[k] < 0 ? -stamp[k] : stamp[k]);
        }
    return g ? g : 1;
}

static SimStatus check_trace(const Trace *t, const Trace *first, SimError *err)
{
    const TraceKernel *k = &t->kernel;
    if (!t->has_phases || !k->name[0] || !k->seqlen || !k->batch || !k->heads_per_batch || !k->tile_m || !k->tile_n)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: not a kernel trace with phase stamps (it needs the columns s_end, "
                             "k_end, r_read, b_entry, b_exit and the metadata kernel, seqlen, batch, heads_per_batch, "
                             "tile_m, tile_n: gpu/bwd writes them)", t->path);
    if (strcmp(k->name, first->kernel.name) != 0 || strcmp(t->gpu_name, first->gpu_name) != 0)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: kernel %s on %s, but %s is kernel %s on %s: one profile is one "
                             "kernel on one GPU", t->path, k->name, t->gpu_name, first->path, first->kernel.name,
                             first->gpu_name);
    if (t->model.reduce != REDUCE_ASYNC)
        return sim_error_set(err, SIM_ERR_INPUT, "%s: a serial-reduction trace; kernel profiles model a store warp "
                             "(async)", t->path);
    return SIM_OK;
}

/* The traces of one head dim (one tile) ran with one number of store warps. */
static SimStatus check_store_warps(Trace *const *traces, int count, SimError *err)
{
    for (int i = 1; i < count; i++)
        for (int j = 0; j < i; j++) {
            const TraceKernel *a = &traces[j]->kernel, *b = &traces[i]->kernel;
            if (a->head_dim == b->head_dim && a->store_warps != b->store_warps)
                return sim_error_set(err, SIM_ERR_INPUT, "%s: store_warps %d, but %s at the same head dim (%d) has "
                                     "%d: one tile is one kernel configuration", traces[i]->path, b->store_warps,
                                     traces[j]->path, a->head_dim, a->store_warps);
        }
    return SIM_OK;
}

SimStatus sim_kernel_fit_traces(Trace *const *traces, const int64_t *timed_ns, int count, const KernelFitOptions *o,
                                KernelProfile **out, SimError *err)
{
    *out = NULL;
    if (count < 1)
        return sim_error_set(err, SIM_ERR_USAGE, "no traces to fit a kernel profile to");
    for (int i = 0; i < count; i++)
        if (check_trace(traces[i], traces[0], err) != SIM_OK)
            return err->status;
    if (check_store_warps(traces, count, err) != SIM_OK)
        return err->status;
    KernelProfile *k = g_new0(KernelProfile, 1);
    k->version = 1, k->head_swizzle = 1, k->dq_buffers = traces[0]->model.dq_buffers;
    k->sm_count = traces[0]->wl.n_sm, k->release = KERNEL_RELEASE_AT_COMPLETION;
    k->is_write_rule_start = o->is_write_rule_start;
    g_strlcpy(k->kernel, traces[0]->kernel.name, sizeof k->kernel);
    g_strlcpy(k->gpu_name, traces[0]->gpu_name, sizeof k->gpu_name);
    g_strlcpy(k->reduce_op, traces[0]->kernel.reduce_op[0] ? traces[0]->kernel.reduce_op : "bulk", sizeof k->reduce_op);
    g_strlcpy(k->method, "traces", sizeof k->method);
    Trace **group = g_new(Trace *, count);
    int64_t *group_ns = g_new0(int64_t, count);
    bool *is_done = g_new0(bool, count);
    double gqa_rate = o->stages ? 0 : gqa_stage_rate(traces, count); /* the stage tables' sums replace it */
    for (int i = 0; i < count; i++) { /* one tile per head dim, in the order the head dims first appear */
        if (is_done[i])
            continue;
        int n = 0;
        for (int j = i; j < count; j++)
            if (!is_done[j] && traces[j]->kernel.head_dim == traces[i]->kernel.head_dim)
                group_ns[n] = timed_ns ? timed_ns[j] : 0, group[n++] = traces[j], is_done[j] = true;
        k->tiles = g_renew(KernelTile, k->tiles, k->tile_count + 1);
        fit_tile(group, group_ns, n, o, gqa_rate, &k->tiles[k->tile_count++]);
        if (o->stages && fit_stages(o->stages, group, group_ns, n, &k->tiles[k->tile_count - 1], err) != SIM_OK)
            break;
    }
    g_free(group);
    g_free(group_ns);
    g_free(is_done);
    if (err->status) {
        sim_kernel_free(k);
        return err->status;
    }
    *out = k;
    return SIM_OK;
}

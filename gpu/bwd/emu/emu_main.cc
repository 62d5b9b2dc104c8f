/* gpu-bwd-emu: runs the real backward kernel's source (gpu/bwd/bwd_fallback_sm80.cuh, or with --kernel wgmma the
 * Hopper kernel of gpu/bwd/wg/) on the CPU through the primitive emulation of bwd_emu.h and wg_emu.h, for plans made for a few SMs: every GPU thread is an OS thread, CTAs
 * are dispatched in launch order onto n_sm emulated SMs (persistent plans: all co-resident; an SM's threads run its
 * CTAs one after another), and the preprocess and postprocess kernels run the same way, on two SMs. Checks dQ, dK, dV against a float64 reference, bit
 * identity over runs with random timing jitter, and reports whether the atomic mode differs.
 * --same-as K also runs kernel K once (deterministic) and says whether its gradients equal the kernel's bit for bit,
 * on PLAN or, with --same-as-plan PLAN2, on PLAN2 (same heads, mask and seqlen; for a kernel of other Q tiles).
 * --inject-inflight-write tests the emulation itself: each wgmma's accumulators are changed while it is in flight,
 * which the emulated wait_group must catch (exit 1 with a message).
 * Usage: gpu-bwd-emu PLAN --head-dim D [--heads H --kv-heads K] [--runs R] [--jitter-us J] [--atomic-runs A]
 *        [--kernel mma|wgmma|wgmma-VARIANT (BWD_WG_VARIANTS)] [--same-as KERNEL [--same-as-plan PLAN2]]
 * Exit: 0 ok, 1 a check failed, 2 bad usage or plan. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include "../bwd_fallback_sm80.cuh"
#include "../bwd_postprocess.cuh"
#include "../bwd_preprocess.cuh"
#include "../wg/wg_kernel_sm90.cuh"
#include "../../gpu_plan.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

thread_local EmuIdx emu_tid, emu_bid, emu_bdim;
thread_local EmuCta *emu_cta;
thread_local std::mt19937 *emu_rng;
thread_local unsigned emu_shfl_count;
int emu_jitter_us = 0;
int emu_inject_inflight_write = 0;

/* One emulated SM of emu_grid: `threads` OS threads that run the blocks the SM is given one after another
 * (a thread per GPU thread of the resident block, kept from block to block: creating them anew per block was
 * most of the time of the many small blocks of the pre- and postprocess kernels). */
struct EmuSlot {
    EmuBarrier bar;
    EmuCta *cta = nullptr;
    int block = 0;
};

/* Runs blocks 0..blocks-1 of `threads` threads each, in launch order, at most n_sm at a time: each emulated SM
 * takes the next block as soon as its block's threads have all returned. */
static void emu_grid(int blocks, int threads, int n_sm, size_t smem_bytes, const std::function<void()> &body)
{
    const int slots = blocks < n_sm ? blocks : n_sm;
    std::atomic<int> next{0};
    std::vector<EmuSlot> slot(slots);
    std::vector<std::thread> ts;
    const size_t smem_alloc = (smem_bytes + 1023) / 1024 * 1024 + 1024;
    for (int s = 0; s < slots; s++)
        for (int t = 0; t < threads; t++)
            ts.emplace_back([&, s, t] {
                EmuSlot &sl = slot[s];
                for (;;) {
                    if (t == 0) { /* the SM's first thread takes the next block, behind the SM's barrier */
                        sl.block = next.fetch_add(1);
                        if (sl.block < blocks) {
                            sl.cta = new EmuCta();
                            sl.cta->smem = (unsigned char *)aligned_alloc(1024, smem_alloc);
                            sl.cta->smid = sl.block % n_sm;
                        }
                    }
                    sl.bar.sync(threads);
                    const int b = sl.block;
                    if (b >= blocks)
                        return;
                    emu_tid = {(unsigned)t, 0, 0};
                    emu_bid = {(unsigned)b, 0, 0};
                    emu_bdim = {(unsigned)threads, 0, 0};
                    emu_cta = sl.cta;
                    std::mt19937 rng((unsigned)(b * 1000003 + t * 7919 + (unsigned)gpu_globaltimer()));
                    emu_rng = &rng;
                    body();
                    sl.bar.sync(threads); /* the block is done: its CTA state goes */
                    if (t == 0) {
                        free(sl.cta->smem);
                        delete sl.cta;
                    }
                }
            });
    for (auto &x : ts)
        x.join();
}



/* The SMs the pre- and postprocess kernels run on: their blocks touch disjoint rows, so how many run at once
 * changes no bit, and two (this machine's cores) keep the OS threads few (16 was 4096 threads on 2 cores). */
#define EMU_PRE_SMS 2

static float bf(const __nv_bfloat16 &x)
{
    return __bfloat162float(x);
}

struct Problem {
    int heads, kv_heads, group, bh, bkv, s, d, causal;
    float scale;
    std::vector<__nv_bfloat16> q, k, v, o, dout;
    std::vector<float> lse;
    std::vector<double> rdq, rdk, rdv; /* float64 reference */
};

static void make_problem(Problem &p, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    const size_t nq = (size_t)p.bh * p.s * p.d, nkv = (size_t)p.bkv * p.s * p.d;
    auto fill = [&](std::vector<__nv_bfloat16> &x, size_t n) {
        x.resize(n);
        for (auto &e : x)
            e = __float2bfloat16(nd(rng));
    };
    fill(p.q, nq), fill(p.k, nkv), fill(p.v, nkv), fill(p.dout, nq);
    p.o.resize(nq), p.lse.resize((size_t)p.bh * p.s);
    p.rdq.assign(nq, 0), p.rdk.assign(nkv, 0), p.rdv.assign(nkv, 0);
    const int s = p.s, d = p.d;
    std::vector<double> P((size_t)s * s), dS((size_t)s * s);
    for (int h = 0; h < p.bh; h++) {
        const int kh = h / p.group;
        const __nv_bfloat16 *Q = &p.q[(size_t)h * s * d], *K = &p.k[(size_t)kh * s * d], *V = &p.v[(size_t)kh * s * d];
        const __nv_bfloat16 *dO = &p.dout[(size_t)h * s * d];
        for (int i = 0; i < s; i++) { /* forward: P, LSE, O (rounded to bf16, as the kernel's input) */
            double mx = -1e300, sum = 0;
            for (int j = 0; j < s; j++) {
                double x = -1e300;
                if (!p.causal || j <= i) {
                    x = 0;
                    for (int c = 0; c < d; c++)
                        x += (double)bf(Q[(size_t)i * d + c]) * bf(K[(size_t)j * d + c]);
                    x *= p.scale;
                }
                P[(size_t)i * s + j] = x;
                mx = x > mx ? x : mx;
            }
            for (int j = 0; j < s; j++)
                sum += (!p.causal || j <= i) ? exp(P[(size_t)i * s + j] - mx) : 0;
            const double lse = mx + log(sum);
            p.lse[(size_t)h * s + i] = (float)lse;
            for (int j = 0; j < s; j++)
                P[(size_t)i * s + j] = (!p.causal || j <= i) ? exp(P[(size_t)i * s + j] - lse) : 0;
            for (int c = 0; c < d; c++) {
                double acc = 0;
                for (int j = 0; j < s; j++)
                    acc += P[(size_t)i * s + j] * bf(V[(size_t)j * d + c]);
                p.o[((size_t)h * s + i) * d + c] = __float2bfloat16((float)acc);
            }
        }
        for (int i = 0; i < s; i++) { /* backward in float64 (Delta from the bf16 O, as the kernel) */
            double delta = 0;
            for (int c = 0; c < d; c++)
                delta += (double)bf(dO[(size_t)i * d + c]) * bf(p.o[((size_t)h * s + i) * d + c]);
            for (int j = 0; j < s; j++) {
                double dp = 0;
                for (int c = 0; c < d; c++)
                    dp += (double)bf(dO[(size_t)i * d + c]) * bf(V[(size_t)j * d + c]);
                dS[(size_t)i * s + j] = P[(size_t)i * s + j] * (dp - delta);
            }
        }
        for (int i = 0; i < s; i++)
            for (int j = 0; j < s; j++) {
                const double pij = P[(size_t)i * s + j], ds = dS[(size_t)i * s + j];
                if (pij == 0 && ds == 0)
                    continue;
                for (int c = 0; c < d; c++) {
                    p.rdq[((size_t)h * s + i) * d + c] += p.scale * ds * bf(K[(size_t)j * d + c]);
                    p.rdk[((size_t)kh * s + j) * d + c] += p.scale * ds * bf(Q[(size_t)i * d + c]);
                    p.rdv[((size_t)kh * s + j) * d + c] += pij * bf(dO[(size_t)i * d + c]);
                }
            }
    }
}

struct Grads {
    std::vector<__nv_bfloat16> dq, dk, dv;
    int timeout;
};

/* The kernel under test: "mma" (bwd_fallback_sm80.cuh) or a variant of the Hopper kernel (BWD_WG_VARIANTS). */
static const char *emu_kernel = "mma";

static bool emu_kernel_known(const char *name)
{
    if (!strcmp(name, "mma"))
        return true;
#define EMU_KNOWN(n, ...)                                                                                 \
    if (!strcmp(name, n))                                                                                          \
        return true;
    BWD_WG_VARIANTS(EMU_KNOWN)
#undef EMU_KNOWN
    return false;
}

/* The Q rows per tile and the dQaccum layout (gpu_tile_pos_z's z) of kernel k at head dim d (mma: BWD_BLOCK_M, 0). */
struct EmuKernelShape {
    int block_m, swizzle;
};

template <class C> static EmuKernelShape emu_shape_of() { return EmuKernelShape{ (int)C::BM, (int)C::SZ }; }

static EmuKernelShape emu_shape(const char *k, int d)
{
    EmuKernelShape shape = { BWD_BLOCK_M, 0 };
#define EMU_SHAPE(n, ...)                                                                                          \
    if (!strcmp(k, n))                                                                                             \
        shape = d == 64 ? emu_shape_of<BwdWgCfg<64, __VA_ARGS__>>() : emu_shape_of<BwdWgCfg<128, __VA_ARGS__>>();
    BWD_WG_VARIANTS(EMU_SHAPE)
#undef EMU_SHAPE
    return shape;
}

/* Reads plan `path` for kernel k at head dim d and seqlen s (0: the plan's): 0, or 2 with the reason printed. */
static int emu_plan_read(const char *path, const char *k, int d, int s, GpuPlan *plan, GpuOrder *ord)
{
    char err[512];
    if (gpu_plan_read(path, plan, err, sizeof err))
        return fprintf(stderr, "gpu-bwd-emu: %s\n", err), 2;
    const int bm = emu_shape(k, d).block_m;
    if (plan->tile_ratio != BWD_BLOCK_N / bm || plan->q_tiles * bm != plan->kv_tiles * BWD_BLOCK_N ||
        (s && plan->kv_tiles * BWD_BLOCK_N != s))
        return fprintf(stderr, "gpu-bwd-emu: %s: kernel %s at head dim %d needs tile_ratio %d and q_tiles = %d kv_tiles%s\n",
                       path, k, d, BWD_BLOCK_N / bm, BWD_BLOCK_N / bm, s ? " (and the first plan's seqlen)" : ""), 2;
    gpu_order_build(plan, ord);
    return 0;
}

template <class C> static void launch_wg(const GpuPlan &plan, const GpuOrder &ord, const BwdArgs &a, const BwdWgMaps &m)
{
    emu_grid(ord.block_count, BWD_WG_THREADS, plan.n_sm, bwd_wg_smem_bytes<C>(), [&] { bwd_wg_kernel<C>(a, m); });
}

template <int D> static void launch(const Problem &p, const GpuPlan &plan, const GpuOrder &ord, const BwdArgs &a)
{
    if (!strcmp(emu_kernel, "mma")) {
        emu_grid(ord.block_count, BWD_THREADS, plan.n_sm, sizeof(BwdSmem<D>), [&] { bwd_kernel<D>(a); });
        return;
    }
    BwdWgMaps m;
    const long long rows = (long long)p.bh * p.s, kv_rows = (long long)p.bkv * p.s;
    m.q = EmuTmap{p.q.data(), rows, D, BWD_BLOCK_M};
    m.dout = EmuTmap{p.dout.data(), rows, D, BWD_BLOCK_M};
    m.k = EmuTmap{p.k.data(), kv_rows, D, BWD_BLOCK_N};
    m.v = EmuTmap{p.v.data(), kv_rows, D, BWD_BLOCK_N};
#define EMU_LAUNCH(n, ...)                                                                                \
    if (!strcmp(emu_kernel, n))                                                                                    \
        launch_wg<BwdWgCfg<D, __VA_ARGS__>>(plan, ord, a, m);
    BWD_WG_VARIANTS(EMU_LAUNCH)
#undef EMU_LAUNCH
}

template <int D> static Grads run_kernel(const Problem &p, const GpuPlan &plan, const GpuOrder &ord, int is_atomic)
{
    const long long rows = (long long)p.bh * p.s;
    std::vector<float> delta(rows), lse2(rows), acc((size_t)rows * D, 0.0f);
    std::vector<float> dk_part, dv_part;
    std::vector<unsigned> sem((size_t)plan.heads * plan.q_tiles, 0);
    Grads g;
    g.dq.resize((size_t)rows * D), g.dk.resize(p.k.size()), g.dv.resize(p.v.size());
    emu_grid((int)((rows + 7) / 8), 256, EMU_PRE_SMS, 0, [&] {
        bwd_pre_kernel<D>(p.o.data(), p.dout.data(), p.lse.data(), delta.data(), lse2.data(), rows);
    });
    std::vector<int4> tasks(plan.task_count + 1);
    for (int i = 0; i < plan.task_count; i++) {
        const GpuTask &t = plan.tasks[ord.order[i]];
        tasks[i] = make_int4(t.head, t.kv, t.q, t.rank);
    }
    BwdErr err;
    memset(&err, 0, sizeof err);
    if (p.group > 1)
        dk_part.assign((size_t)rows * D, 0.0f), dv_part.assign((size_t)rows * D, 0.0f);
    BwdArgs a;
    memset(&a, 0, sizeof a);
    a.tasks = tasks.data();
    a.block_begin = ord.block_begin;
    a.q = p.q.data(), a.k = p.k.data(), a.v = p.v.data(), a.dout = p.dout.data();
    a.lse2 = lse2.data(), a.delta = delta.data(), a.dq_accum = acc.data(), a.sem = sem.data();
    a.dk = p.group > 1 ? (void *)dk_part.data() : (void *)g.dk.data();
    a.dv = p.group > 1 ? (void *)dv_part.data() : (void *)g.dv.data();
    a.err = &err;
    a.group = p.group, a.seqlen = p.s, a.q_tiles = plan.q_tiles, a.heads = plan.heads;
    a.is_causal = p.causal, a.is_atomic = is_atomic, a.is_dkv_fp32 = p.group > 1;
    a.scale = p.scale, a.scale_log2 = p.scale * BWD_LOG2E;
    a.timeout_ns = 3600000000000LL; /* emulated tasks are ~10^4 times slower than on a GPU */
    launch<D>(p, plan, ord, a);
    g.timeout = err.flag;
    if (err.flag && err.rank < 0)
        fprintf(stderr, "timeout: block %d waited on barrier %d (parity %u) at (head %d, q %d)\n", err.block,
                -1 - err.rank, err.seen, err.head, err.q);
    else if (err.flag)
        fprintf(stderr, "timeout: block %d waited on (head %d, q %d) for rank %d, semaphore %u\n", err.block,
                err.head, err.q, err.rank, err.seen);
    const long long n8 = rows * D / 8;
    emu_grid((int)((n8 + 255) / 256), 256, EMU_PRE_SMS, 0,
             [&] {
                 if (emu_shape(emu_kernel, D).swizzle)
                     bwd_post_dq_kernel<D, 1>(acc.data(), g.dq.data(), p.scale, n8);
                 else
                     bwd_post_dq_kernel<D, 0>(acc.data(), g.dq.data(), p.scale, n8);
             });
    if (p.group > 1) {
        const long long n4 = rows / p.group * D / 4;
        emu_grid((int)((n4 + 255) / 256), 256, EMU_PRE_SMS, 0, [&] {
            bwd_post_dkv_kernel(dk_part.data(), dv_part.data(), g.dk.data(), g.dv.data(), p.group,
                                (long long)p.s * D, p.scale, n4);
        });
    }
    return g;
}

static double rel_err(const std::vector<__nv_bfloat16> &x, const std::vector<double> &r, double *max_abs)
{
    double num = 0, den = 0;
    *max_abs = 0;
    for (size_t i = 0; i < r.size(); i++) {
        const double e = (double)bf(x[i]) - r[i];
        num += e * e, den += r[i] * r[i];
        *max_abs = fabs(e) > *max_abs || e != e ? fabs(e) : *max_abs;
    }
    return sqrt(num / den);
}

static bool same(const Grads &a, const Grads &b)
{
    return !memcmp(a.dq.data(), b.dq.data(), a.dq.size() * 2) && !memcmp(a.dk.data(), b.dk.data(), a.dk.size() * 2) &&
           !memcmp(a.dv.data(), b.dv.data(), a.dv.size() * 2);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int d = 128, heads = 0, kv_heads = 0, runs = 3, atomic_runs = 3;
    const char *same_as = NULL, *same_as_plan = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--head-dim"))
            d = atoi(v), i++;
        else if (!strcmp(argv[i], "--heads"))
            heads = atoi(v), i++;
        else if (!strcmp(argv[i], "--kv-heads"))
            kv_heads = atoi(v), i++;
        else if (!strcmp(argv[i], "--runs"))
            runs = atoi(v), i++;
        else if (!strcmp(argv[i], "--atomic-runs"))
            atomic_runs = atoi(v), i++;
        else if (!strcmp(argv[i], "--inject-inflight-write"))
            emu_inject_inflight_write = 1;
        else if (!strcmp(argv[i], "--jitter-us"))
            emu_jitter_us = atoi(v), i++;
        else if (!strcmp(argv[i], "--kernel")) {
            if (!emu_kernel_known(v))
                return fprintf(stderr, "gpu-bwd-emu: unknown kernel '%s' (mma, wgmma or a wgmma variant of "
                                       "BWD_WG_VARIANTS)\n", v), 2;
            emu_kernel = v, i++;
        } else if (!strcmp(argv[i], "--same-as")) {
            if (!emu_kernel_known(v))
                return fprintf(stderr, "gpu-bwd-emu: unknown kernel '%s' for --same-as\n", v), 2;
            same_as = v, i++;
        } else if (!strcmp(argv[i], "--same-as-plan"))
            same_as_plan = v, i++;
        else if (argv[i][0] != '-')
            path = argv[i];
        else
            return fprintf(stderr, "gpu-bwd-emu: unknown option %s\n", argv[i]), 2;
    }
    GpuPlan plan, plan2;
    GpuOrder ord, ord2;
    if (!path || (d != 64 && d != 128))
        return fprintf(stderr, "usage: gpu-bwd-emu PLAN --head-dim 64|128 [--heads H --kv-heads K] [--runs R] "
                               "[--atomic-runs A] [--jitter-us J] [--kernel mma|wgmma|wgmma-VARIANT] [--same-as KERNEL "
                               "[--same-as-plan PLAN2]]\n"), 2;
    if (emu_plan_read(path, emu_kernel, d, 0, &plan, &ord))
        return 2;
    if (same_as_plan && (!same_as || emu_plan_read(same_as_plan, same_as, d, plan.kv_tiles * BWD_BLOCK_N, &plan2, &ord2)))
        return fprintf(stderr, "gpu-bwd-emu: --same-as-plan needs --same-as and a plan for that kernel\n"), 2;
    if (same_as_plan && (plan2.heads != plan.heads || strcmp(plan2.mask, plan.mask)))
        return fprintf(stderr, "gpu-bwd-emu: %s has other heads or another mask than %s\n", same_as_plan, path), 2;
    Problem p;
    p.heads = heads ? heads : plan.heads;
    p.kv_heads = kv_heads ? kv_heads : p.heads;
    p.group = p.heads / p.kv_heads, p.bh = plan.heads, p.bkv = plan.heads / p.group;
    p.s = plan.kv_tiles * BWD_BLOCK_N, p.d = d, p.causal = !strcmp(plan.mask, "causal");
    p.scale = 1.0f / sqrtf((float)d);
    make_problem(p, 1234u + (unsigned)d);
    int rc = 0;
    std::vector<Grads> det;
    for (int r = 0; r < runs; r++) {
        det.push_back(d == 64 ? run_kernel<64>(p, plan, ord, 0) : run_kernel<128>(p, plan, ord, 0));
        rc |= det.back().timeout;
    }
    double mq, mk, mv;
    const double eq = rel_err(det[0].dq, p.rdq, &mq), ek = rel_err(det[0].dk, p.rdk, &mk), ev = rel_err(det[0].dv, p.rdv, &mv);
    bool identical = true;
    for (int r = 1; r < runs; r++)
        identical &= same(det[0], det[r]);
    int atomic_differ = 0;
    for (int r = 0; r < atomic_runs; r++) {
        Grads g = d == 64 ? run_kernel<64>(p, plan, ord, 1) : run_kernel<128>(p, plan, ord, 1);
        atomic_differ += !same(det[0], g);
    }
    int same_as_ok = 1;
    if (same_as) { /* the other kernel's gradients, once, against this kernel's first run */
        const char *self = emu_kernel;
        emu_kernel = same_as;
        const GpuPlan &pl = same_as_plan ? plan2 : plan;
        const GpuOrder &od = same_as_plan ? ord2 : ord;
        Grads g = d == 64 ? run_kernel<64>(p, pl, od, 0) : run_kernel<128>(p, pl, od, 0);
        emu_kernel = self;
        same_as_ok = !g.timeout && same(det[0], g);
    }
    const bool ok = eq < 0.02 && ek < 0.02 && ev < 0.02 && identical && !rc && same_as_ok;
    printf("%s: %s kernel, %s %s heads %d kv_heads %d seqlen %d d %d: rel err dq %.2e dk %.2e dv %.2e (max abs %.2e %.2e %.2e) "
           "vs float64; %d deterministic runs %s; atomic runs differing from deterministic: %d of %d%s%s%s\n",
           path, emu_kernel, plan.policy, plan.mask, p.heads, p.kv_heads, p.s, d, eq, ek, ev, mq, mk, mv, runs,
           identical ? "bit-identical" : "DIFFER", atomic_differ, atomic_runs,
           same_as ? (same_as_ok ? "; bit-identical to " : "; DIFFERS from ") : "", same_as ? same_as : "",
           ok ? "" : "  FAIL");
    gpu_order_clear(&ord);
    gpu_plan_clear(&plan);
    if (same_as_plan) {
        gpu_order_clear(&ord2);
        gpu_plan_clear(&plan2);
    }
    return ok ? 0 : 1;
}

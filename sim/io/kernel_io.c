/* Kernel profile files: the reader checks every key and range (unknown keys are errors, so a misspelled
 * field never silently means 0); the writer prints integers and shortest round-trip doubles, so the same
 * profile gives the same bytes. */
#include "kernel_io.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "format.h"
#include "json_file.h"
#include "json_read.h"
#include "kernel_runs_io.h"

#define KERNEL_MAX_BYTES (16L << 20)
#define NS_MAX 1000000000

static const char *const top_keys[] = { "format", "version", "name", "kernel", "gpu", "method", "source",
                                        "geometry", "tiles", "validated_error", NULL };
static const char *const tile_keys[] = { "head_dim", "mask", "block_m", "block_n", "compute_ns", "diag_ns",
                                         "launch_extra_ns", "cta_first_extra_ns", "kv_write_ns", "kv_write_gqa_ns", "kv_switch_ns", "deposit_ns",
                                         "reduce_read_ns", "reduce_tail_ns", "reduce_read_waited_ns",
                                         "reduce_tail_waited_ns", "reduce_turn_jitter_ns", "reduce_waited_slope_ns", "reduce_waited_k_ref", "handoff_ns", "cta_prologue_ns", "cta_gap_ns", "overlap",
                                         "fixed", "traces", "store_warps", "clock", NULL };

static KernelLinear read_linear(JsonIn *in, const cJSON *fixed, const char *path, const char *key)
{
    static const char *const keys[] = { "base_ns", "ns_per_mib", NULL };
    char p[96];
    snprintf(p, sizeof p, "%s/%s", path, key);
    const cJSON *o = sim_json_get(in, fixed, path, key);
    sim_json_known_keys(in, o, p, keys);
    /* the group sums' line corrects the tile's rate (kernel.h), so its own may be negative */
    double lo = strcmp(key, "gqa") ? 0 : -1e8;
    return (KernelLinear){ sim_json_num(in, o, p, "base_ns", -1e8, 1e9), sim_json_num(in, o, p, "ns_per_mib", lo, 1e8) };
}

/* An optional stage table ([[x, ns], ...], kernel.h's KernelTable) at fixed/key: 2 to SIM_KERNEL_TABLE_MAX points, x
 * strictly increasing and positive, ns not negative. */
static void read_table(JsonIn *in, const cJSON *fixed, const char *path, const char *key, KernelTable *t)
{
    if (!cJSON_GetObjectItemCaseSensitive(fixed, key) || in->err->status)
        return;
    const cJSON *a = sim_json_array(in, fixed, path, key, SIM_KERNEL_TABLE_MAX);
    int n = a ? cJSON_GetArraySize(a) : 0;
    for (int i = 0; i < n && !in->err->status; i++) {
        const cJSON *e = cJSON_GetArrayItem(a, i), *x = cJSON_GetArrayItem(e, 0), *ns = cJSON_GetArrayItem(e, 1);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 || !cJSON_IsNumber(x) || !cJSON_IsNumber(ns) ||
            !(x->valuedouble > (i ? t->x[i - 1] : 0) && x->valuedouble <= 1e12) ||
            !(ns->valuedouble >= 0 && ns->valuedouble <= 1e10))
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s/%d: must be [x, ns], x above the previous point's and "
                          "positive (at most 1e12), ns from 0 to 1e10", in->file, path, key, i);
        else
            t->x[i] = x->valuedouble, t->ns[i] = ns->valuedouble;
    }
    if (!in->err->status && n < 2)
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/%s: a stage table needs at least 2 points", in->file, path, key);
    t->n = in->err->status ? 0 : n;
}

/* The optional slowdown under sustained load inside a tile's clock (AttnClock.sustained): absent, per_u 0. */
static void read_sustained(JsonIn *in, const cJSON *c, const char *path, AttnClock *k)
{
    static const char *const keys[] = { "launches", "load_ms", "tau_ms", "u0", "per_u", NULL };
    if (!cJSON_GetObjectItemCaseSensitive(c, "sustained") || in->err->status)
        return;
    char p[80];
    snprintf(p, sizeof p, "%s/sustained", path);
    const cJSON *s = sim_json_get(in, c, path, "sustained");
    sim_json_known_keys(in, s, p, keys);
    k->sustained.launches = sim_json_num(in, s, p, "launches", 1, 100);
    k->sustained.load_ms = sim_json_num(in, s, p, "load_ms", 0, 1e6);
    k->sustained.tau_ms = sim_json_num(in, s, p, "tau_ms", 1, 1e6);
    k->sustained.u0 = sim_json_num(in, s, p, "u0", 0, 1);
    k->sustained.per_u = sim_json_num(in, s, p, "per_u", 0, 1); /* at most twice the compute: the scale's own bound */
}

/* The optional clock of a tile (AttnClock): absent, bins 0. */
static void read_clock(JsonIn *in, const cJSON *r, const char *path, AttnClock *k)
{
    static const char *const keys[] = { "max_mhz", "ref_mhz", "dip_u0", "dip_mhz_per_u", "dip_bin_ns", "dip", "sustained",
                                        NULL };
    *k = (AttnClock){ 0 };
    if (!cJSON_GetObjectItemCaseSensitive(r, "clock") || in->err->status)
        return;
    char p[64];
    snprintf(p, sizeof p, "%s/clock", path);
    const cJSON *c = sim_json_get(in, r, path, "clock");
    sim_json_known_keys(in, c, p, keys);
    k->max_mhz = sim_json_num(in, c, p, "max_mhz", 1, 1e5), k->ref_mhz = sim_json_num(in, c, p, "ref_mhz", 1, 1e5);
    k->dip_u0 = sim_json_num(in, c, p, "dip_u0", 0, 1), k->dip_mhz_per_u = sim_json_num(in, c, p, "dip_mhz_per_u", 0, 1e5);
    k->dip_bin_ns = (int32_t)sim_json_int(in, c, p, "dip_bin_ns", 1, 1000000000);
    const cJSON *a = sim_json_array(in, c, p, "dip", ATTN_CLOCK_BINS);
    int n = a && !in->err->status ? cJSON_GetArraySize(a) : 0;
    for (int i = 0; i < n && !in->err->status; i++) {
        const cJSON *e = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 && e->valuedouble <= 1))
            sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/dip/%d: must be a number from 0 to 1 (the dip's shape, "
                          "peak 1)", in->file, p, i);
        else
            k->dip[i] = e->valuedouble;
    }
    if (!in->err->status && n < 1)
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/dip: needs at least one bin", in->file, p);
    if (!in->err->status && (k->ref_mhz > 1.5 * k->max_mhz || 1.5 * k->ref_mhz < k->max_mhz ||
                             k->dip_mhz_per_u > 0.5 * k->max_mhz))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s: ref_mhz must be within 1.5x of max_mhz and dip_mhz_per_u at most "
                      "half of it (a clock that scales the compute by more is not a clock)", in->file, p);
    read_sustained(in, c, p, k);
    k->bins = in->err->status ? 0 : n;
}

static int read_mask(JsonIn *in, const cJSON *r, const char *path)
{
    char m[16] = "";
    sim_json_text(in, r, path, "mask", m, sizeof m);
    if (in->err->status)
        return -1;
    if (strcmp(m, "any") && strcmp(m, "full") && strcmp(m, "causal"))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/mask: must be \"any\", \"full\" or \"causal\"", in->file, path);
    return strcmp(m, "full") == 0 ? MASK_FULL : strcmp(m, "causal") == 0 ? MASK_CAUSAL : -1;
}

/* A tile's own reduction: read and tail, waited or not, the turn's jitter and the waited step's slope (optional). */
static void read_reduction(JsonIn *in, const cJSON *r, const char *path, KernelTile *t)
{
    t->reduce_read_ns = sim_json_int(in, r, path, "reduce_read_ns", 0, NS_MAX);
    t->reduce_tail_ns = sim_json_int(in, r, path, "reduce_tail_ns", 0, NS_MAX);
    t->reduce_read_waited_ns = sim_json_int(in, r, path, "reduce_read_waited_ns", 0, NS_MAX);
    t->reduce_tail_waited_ns = sim_json_int(in, r, path, "reduce_tail_waited_ns", 0, NS_MAX);
    if (cJSON_GetObjectItemCaseSensitive(r, "reduce_turn_jitter_ns")) /* optional: 0 in profiles before it */
        t->reduce_turn_jitter_ns = sim_json_int(in, r, path, "reduce_turn_jitter_ns", 0, 1000000);
    if (cJSON_GetObjectItemCaseSensitive(r, "reduce_waited_slope_ns")) { /* optional, with its k_ref: 0 before it */
        t->reduce_waited_slope_milli = llround(1000 * sim_json_num(in, r, path, "reduce_waited_slope_ns", -1000, 1000));
        t->reduce_waited_k_ref = sim_json_int(in, r, path, "reduce_waited_k_ref", 0, 1 << 20);
    }
}

static void read_tile(JsonIn *in, const cJSON *r, const char *path, KernelTile *t)
{
    static const char *const overlap_keys[] = { "penalty_ns", "before_ns", "after_ns", "write_extra_ns",
                                                "write_slope_ns", "write_extra_slope_ns", "write_extra_window_ns", "write_extra_late_ns", NULL };
    static const char *const fixed_keys[] = { "all", "gqa", "stages", "sums", NULL };
    sim_json_known_keys(in, r, path, tile_keys);
    t->head_dim = (int)sim_json_int(in, r, path, "head_dim", 1, 1024);
    t->mask = read_mask(in, r, path);
    t->block_m = (int)sim_json_int(in, r, path, "block_m", 1, 1024);
    t->block_n = (int)sim_json_int(in, r, path, "block_n", 1, 1024);
    t->compute_ns = sim_json_int(in, r, path, "compute_ns", 1, NS_MAX);
    t->diag_ns = sim_json_int(in, r, path, "diag_ns", 0, NS_MAX);
    t->launch_extra_ns = sim_json_int(in, r, path, "launch_extra_ns", 0, NS_MAX);
    /* optional: profiles written before it have none, and their kernels' later CTAs paid nothing (0) */
    if (cJSON_GetObjectItemCaseSensitive(r, "cta_first_extra_ns"))
        t->cta_first_extra_ns = sim_json_int(in, r, path, "cta_first_extra_ns", 0, NS_MAX);
    t->kv_write_ns = sim_json_int(in, r, path, "kv_write_ns", 0, NS_MAX);
    t->kv_write_gqa_ns = sim_json_int(in, r, path, "kv_write_gqa_ns", 0, NS_MAX);
    t->kv_switch_ns = sim_json_int(in, r, path, "kv_switch_ns", 0, NS_MAX);
    t->deposit_ns = sim_json_int(in, r, path, "deposit_ns", 0, NS_MAX);
    read_reduction(in, r, path, t);
    t->handoff_ns = sim_json_int(in, r, path, "handoff_ns", 0, NS_MAX);
    t->cta_prologue_ns = sim_json_int(in, r, path, "cta_prologue_ns", 0, NS_MAX);
    if (cJSON_GetObjectItemCaseSensitive(r, "cta_gap_ns")) /* optional: 0 in profiles written before it */
        t->cta_gap_ns = sim_json_int(in, r, path, "cta_gap_ns", 0, NS_MAX);
    t->traces = (int)sim_json_int(in, r, path, "traces", 0, 1 << 20);
    t->store_warps = cJSON_GetObjectItemCaseSensitive(r, "store_warps") ? /* optional: 1 when absent */
        (int)sim_json_int(in, r, path, "store_warps", 1, ATTN_STORE_WARPS_MAX) : 1;
    read_clock(in, r, path, &t->clock);
    char p[64];
    snprintf(p, sizeof p, "%s/overlap", path);
    const cJSON *o = sim_json_get(in, r, path, "overlap");
    sim_json_known_keys(in, o, p, overlap_keys);
    t->overlap = (SimOverlapRule){ .penalty_ns = (int32_t)sim_json_int(in, o, p, "penalty_ns", 0, NS_MAX),
                                   .before_ns = (int32_t)sim_json_int(in, o, p, "before_ns", 0, NS_MAX),
                                   .after_ns = (int32_t)sim_json_int(in, o, p, "after_ns", 0, NS_MAX),
                                   .write_extra_ns = (int32_t)sim_json_int(in, o, p, "write_extra_ns", 0, NS_MAX) };
    if (cJSON_GetObjectItemCaseSensitive(o, "write_extra_window_ns")) { /* optional: absent, one write extra */
        t->overlap.write_extra_window_ns = (int32_t)sim_json_int(in, o, p, "write_extra_window_ns", 1, NS_MAX);
        t->overlap.write_extra_late_ns = (int32_t)sim_json_int(in, o, p, "write_extra_late_ns", 0, NS_MAX);
    }
    if (cJSON_GetObjectItemCaseSensitive(o, "write_slope_ns")) /* optional: 0 in profiles written before it */
        t->overlap.write_slope_ns = (int32_t)sim_json_int(in, o, p, "write_slope_ns", 0, 1000000);
    if (cJSON_GetObjectItemCaseSensitive(o, "write_extra_slope_ns")) /* optional: 0 when absent */
        t->overlap.write_extra_slope_ns = (int32_t)sim_json_int(in, o, p, "write_extra_slope_ns", 0, 1000000);
    snprintf(p, sizeof p, "%s/fixed", path);
    const cJSON *f = sim_json_get(in, r, path, "fixed");
    sim_json_known_keys(in, f, p, fixed_keys);
    t->fixed = read_linear(in, f, p, "all"), t->fixed_gqa = read_linear(in, f, p, "gqa");
    read_table(in, f, p, "stages", &t->stages), read_table(in, f, p, "sums", &t->sums);
    if (!in->err->status && t->fixed.ns_per_mib + t->fixed_gqa.ns_per_mib < 0)
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/gqa/ns_per_mib: the group sums' rate (all's ns_per_mib plus "
                      "gqa's) must not be negative", in->file, p);
    if (!in->err->status && (t->reduce_read_ns > 0) != (t->reduce_tail_ns > 0))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s: reduce_read_ns and reduce_tail_ns are both 0 (the hardware "
                      "profile's reduction) or both measured", in->file, path);
}

static void read_geometry(JsonIn *in, const cJSON *root, KernelProfile *k)
{
    static const char *const keys[] = { "head_swizzle", "dq_buffers", "reduce_op", "release", "write_rule", NULL };
    const cJSON *g = sim_json_get(in, root, "", "geometry");
    sim_json_known_keys(in, g, "/geometry", keys);
    k->head_swizzle = (int)sim_json_int(in, g, "/geometry", "head_swizzle", 0, 1);
    k->dq_buffers = (int)sim_json_int(in, g, "/geometry", "dq_buffers", 1, 64);
    sim_json_text(in, g, "/geometry", "reduce_op", k->reduce_op, sizeof k->reduce_op);
    char rel[16] = "";
    sim_json_text(in, g, "/geometry", "release", rel, sizeof rel);
    if (!in->err->status && strcmp(rel, "read") && strcmp(rel, "completion"))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: /geometry/release: must be \"read\" or \"completion\"", in->file);
    k->release = strcmp(rel, "read") == 0 ? KERNEL_RELEASE_AT_READ : KERNEL_RELEASE_AT_COMPLETION;
    char rule[16] = "overlap"; /* optional: profiles written before it apply both */
    if (cJSON_GetObjectItemCaseSensitive(g, "write_rule"))
        sim_json_text(in, g, "/geometry", "write_rule", rule, sizeof rule);
    if (!in->err->status && strcmp(rule, "start") && strcmp(rule, "overlap"))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: /geometry/write_rule: must be \"start\" or \"overlap\"", in->file);
    k->is_write_rule_start = strcmp(rule, "start") == 0;
}

/* What a kernel profile and a baseline file share: version, names, source, the GPU and the geometry; the
 * method too where the file has one (a profile: how it was made). */
static void read_header(JsonIn *in, const cJSON *root, bool has_method, KernelProfile *k)
{
    k->version = (int)sim_json_int(in, root, "", "version", 1, 1);
    sim_json_text(in, root, "", "name", k->name, sizeof k->name);
    sim_json_text(in, root, "", "kernel", k->kernel, sizeof k->kernel);
    if (has_method)
        sim_json_text(in, root, "", "method", k->method, sizeof k->method);
    sim_json_text(in, root, "", "source", k->source, sizeof k->source);
    const cJSON *gpu = sim_json_get(in, root, "", "gpu");
    static const char *const gpu_keys[] = { "name", "sm_count", "date", NULL };
    sim_json_known_keys(in, gpu, "/gpu", gpu_keys);
    sim_json_text(in, gpu, "/gpu", "name", k->gpu_name, sizeof k->gpu_name);
    sim_json_text(in, gpu, "/gpu", "date", k->date, sizeof k->date);
    k->sm_count = (int)sim_json_int(in, gpu, "/gpu", "sm_count", 1, 4096);
    read_geometry(in, root, k);
}

SimStatus sim_kernel_read(const char *path, KernelProfile **out, SimError *err)
{
    *out = NULL;
    cJSON *root;
    if (sim_json_parse_file(path, KERNEL_MAX_BYTES, &root, err) != SIM_OK)
        return err->status;
    JsonIn in = { path, err };
    KernelProfile *k = g_new0(KernelProfile, 1);
    char format[32] = "";
    sim_json_known_keys(&in, root, "", top_keys);
    sim_json_text(&in, root, "", "format", format, sizeof format);
    if (!err->status && strcmp(format, "dashsim-kernel") != 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"dashsim-kernel\" (sim calibrate --kernel writes one)",
                      path);
    read_header(&in, root, true, k);
    if (cJSON_GetObjectItemCaseSensitive(root, "validated_error"))
        k->validated_error = sim_json_num(&in, root, "", "validated_error", 1e-6, 1);
    const cJSON *tiles = sim_json_array(&in, root, "", "tiles", 64);
    k->tile_count = tiles ? cJSON_GetArraySize(tiles) : 0;
    k->tiles = g_new0(KernelTile, MAX(k->tile_count, 1));
    for (int i = 0; i < k->tile_count && !err->status; i++) {
        char p[32];
        snprintf(p, sizeof p, "/tiles/%d", i);
        read_tile(&in, cJSON_GetArrayItem(tiles, i), p, &k->tiles[i]);
        const SimOverlapRule *o = &k->tiles[i].overlap;
        if (!err->status && !k->is_write_rule_start && (o->write_extra_slope_ns || o->write_extra_window_ns))
            sim_error_set(err, SIM_ERR_INPUT, "%s: %s/overlap/%s: applies only under /geometry/write_rule \"start\"",
                          path, p, o->write_extra_slope_ns ? "write_extra_slope_ns" : "write_extra_window_ns");
    }
    cJSON_Delete(root);
    if (err->status) {
        sim_kernel_free(k);
        return err->status;
    }
    *out = k;
    return SIM_OK;
}

static void read_baseline_tile(JsonIn *in, const cJSON *r, const char *path, KernelTile *t)
{
    static const char *const keys[] = { "head_dim", "mask", "block_m", "block_n", NULL };
    sim_json_known_keys(in, r, path, keys);
    t->head_dim = (int)sim_json_int(in, r, path, "head_dim", 1, 1024);
    t->mask = read_mask(in, r, path);
    t->block_m = (int)sim_json_int(in, r, path, "block_m", 1, 1024);
    t->block_n = (int)sim_json_int(in, r, path, "block_n", 1, 1024);
}

SimStatus sim_kernel_sustained_read(const char *path, int *head_dim, AttnClock *k, char *gpu, size_t gpu_len,
                                    SimError *err)
{
    static const char *const keys[] = { "format", "version", "head_dim", "gpu", "sustained", "source", NULL };
    cJSON *root;
    if (sim_json_parse_file(path, KERNEL_MAX_BYTES, &root, err) != SIM_OK)
        return err->status;
    JsonIn in = { path, err };
    char format[32] = "";
    sim_json_known_keys(&in, root, "", keys);
    sim_json_text(&in, root, "", "format", format, sizeof format);
    if (!err->status && strcmp(format, "dashsim-sustained") != 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"dashsim-sustained\" (scripts/fit-sustained.py writes "
                      "one)", path);
    sim_json_int(&in, root, "", "version", 1, 1);
    *head_dim = (int)sim_json_int(&in, root, "", "head_dim", 1, 1024);
    gpu[0] = '\0';
    if (cJSON_GetObjectItemCaseSensitive(root, "gpu")) /* optional: files written before it name none */
        sim_json_text(&in, root, "", "gpu", gpu, gpu_len);
    if (!err->status && !cJSON_GetObjectItemCaseSensitive(root, "sustained"))
        sim_error_set(err, SIM_ERR_INPUT, "%s: /sustained: missing", path);
    read_sustained(&in, root, "", k);
    cJSON_Delete(root);
    return err->status;
}

SimStatus sim_kernel_baseline_read(const char *path, KernelBaseline *out, SimError *err)
{
    static const char *const keys[] = { "format", "version", "name", "kernel", "gpu", "source", "geometry", "tiles",
                                        "metadata", "records", NULL };
    *out = (KernelBaseline){ 0 };
    cJSON *root;
    if (sim_json_parse_file(path, KERNEL_MAX_BYTES, &root, err) != SIM_OK)
        return err->status;
    JsonIn in = { path, err };
    KernelProfile *k = g_new0(KernelProfile, 1);
    char format[32] = "";
    sim_json_known_keys(&in, root, "", keys);
    sim_json_text(&in, root, "", "format", format, sizeof format);
    if (!err->status && strcmp(format, "dashsim-kernel-baseline") != 0)
        sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"dashsim-kernel-baseline\"", path);
    read_header(&in, root, false, k);
    g_strlcpy(k->method, "baseline-times", sizeof k->method);
    const cJSON *tiles = sim_json_array(&in, root, "", "tiles", 64);
    k->tile_count = tiles ? cJSON_GetArraySize(tiles) : 0;
    k->tiles = g_new0(KernelTile, MAX(k->tile_count, 1));
    for (int i = 0; i < k->tile_count && !err->status; i++) {
        char p[32];
        snprintf(p, sizeof p, "/tiles/%d", i);
        read_baseline_tile(&in, cJSON_GetArrayItem(tiles, i), p, &k->tiles[i]);
    }
    out->kernel = k;
    if (!err->status)
        sim_kernel_runs_parse(root, path, &out->times, err);
    if (out->times)
        g_strlcpy(out->times->kernel, k->kernel, sizeof out->times->kernel);
    cJSON_Delete(root);
    if (err->status)
        sim_kernel_baseline_clear(out);
    return err->status;
}

static gint cmp_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

SimStatus sim_kernel_read_dir(const char *dir, KernelProfile ***out, int *count, SimError *err)
{
    *out = NULL, *count = 0;
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d)
        return sim_error_set(err, SIM_ERR_IO, "cannot read directory %s", dir);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(d)))
        if (g_str_has_suffix(name, ".json"))
            g_ptr_array_add(names, g_build_filename(dir, name, NULL));
    g_dir_close(d);
    g_ptr_array_sort(names, cmp_name);
    *out = g_new0(KernelProfile *, names->len + 1);
    for (guint i = 0; i < names->len && !err->status; i++)
        if (sim_kernel_read(names->pdata[i], &(*out)[*count], err) == SIM_OK)
            (*count)++;
    g_ptr_array_free(names, TRUE);
    return err->status;
}

static void write_linear(FILE *f, const char *name, const KernelLinear *l, bool is_last)
{
    fprintf(f, "\"%s\": {\"base_ns\": %.17g, \"ns_per_mib\": %.17g}%s", name, l->base_ns, l->ns_per_mib,
            is_last ? "" : ", ");
}

/* A stage table, written only where the tile has one (profiles without stay byte for byte). */
static void write_table(FILE *f, const char *name, const KernelTable *t)
{
    if (!t->n)
        return;
    fprintf(f, ",\n      \"%s\": [", name);
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s[%.17g, %.17g]", i ? ", " : "", t->x[i], t->ns[i]);
    fputs("]", f);
}

static void write_tile(FILE *f, const KernelTile *t, bool is_last)
{
    fprintf(f, "    {\"head_dim\": %d, \"mask\": \"%s\", \"block_m\": %d, \"block_n\": %d,\n", t->head_dim,
            t->mask == MASK_FULL ? "full" : t->mask == MASK_CAUSAL ? "causal" : "any", t->block_m, t->block_n);
    fprintf(f, "     \"compute_ns\": %" PRId64 ", \"diag_ns\": %" PRId64 ", \"launch_extra_ns\": %" PRId64
            ", \"cta_first_extra_ns\": %" PRId64 ", \"deposit_ns\": %" PRId64 ",\n", t->compute_ns, t->diag_ns,
            t->launch_extra_ns, t->cta_first_extra_ns, t->deposit_ns);
    fprintf(f, "     \"kv_write_ns\": %" PRId64 ", \"kv_write_gqa_ns\": %" PRId64 ", \"kv_switch_ns\": %" PRId64 ",\n",
            t->kv_write_ns, t->kv_write_gqa_ns, t->kv_switch_ns);
    fprintf(f, "     \"reduce_read_ns\": %" PRId64 ", \"reduce_tail_ns\": %" PRId64 ", \"reduce_read_waited_ns\": %"
            PRId64 ", \"reduce_tail_waited_ns\": %" PRId64 ",\n", t->reduce_read_ns, t->reduce_tail_ns,
            t->reduce_read_waited_ns, t->reduce_tail_waited_ns);
    fprintf(f, "     \"handoff_ns\": %" PRId64 ", \"cta_prologue_ns\": %" PRId64 ",", t->handoff_ns,
            t->cta_prologue_ns);
    if (t->reduce_turn_jitter_ns > 0) /* written only when fitted: profiles without it stay byte for byte */
        fprintf(f, " \"reduce_turn_jitter_ns\": %" PRId64 ",", t->reduce_turn_jitter_ns);
    if (t->reduce_waited_slope_milli != 0) /* written only when fitted, as the jitter */
        fprintf(f, " \"reduce_waited_slope_ns\": %.3f, \"reduce_waited_k_ref\": %" PRId64 ",",
                (double)t->reduce_waited_slope_milli / 1000, t->reduce_waited_k_ref);
    if (t->cta_gap_ns > 0) /* written only when fitted: profiles without it stay byte for byte */
        fprintf(f, " \"cta_gap_ns\": %" PRId64 ",", t->cta_gap_ns);
    if (t->store_warps > 1) /* written only above 1: profiles of one store warp stay byte for byte */
        fprintf(f, " \"store_warps\": %d,", t->store_warps);
    fputs("\n", f);
    fprintf(f, "     \"overlap\": {\"penalty_ns\": %d, \"before_ns\": %d, \"after_ns\": %d, \"write_extra_ns\": %d",
            t->overlap.penalty_ns, t->overlap.before_ns, t->overlap.after_ns, t->overlap.write_extra_ns);
    if (t->overlap.write_slope_ns) /* written only when fitted: profiles without it stay byte for byte */
        fprintf(f, ", \"write_slope_ns\": %d", t->overlap.write_slope_ns);
    if (t->overlap.write_extra_slope_ns) /* written only when fitted (--write-extra-slope) */
        fprintf(f, ", \"write_extra_slope_ns\": %d", t->overlap.write_extra_slope_ns);
    if (t->overlap.write_extra_window_ns) /* written only when fitted by the time into the write */
        fprintf(f, ", \"write_extra_window_ns\": %d, \"write_extra_late_ns\": %d", t->overlap.write_extra_window_ns,
                t->overlap.write_extra_late_ns);
    fputs("},\n", f);
    fputs("     \"fixed\": {", f);
    write_linear(f, "all", &t->fixed, false), write_linear(f, "gqa", &t->fixed_gqa, true);
    write_table(f, "stages", &t->stages), write_table(f, "sums", &t->sums);
    fputs("},\n", f);
    if (t->clock.bins > 0) { /* written only when fitted: profiles without it stay byte for byte */
        const AttnClock *k = &t->clock;
        fprintf(f, "     \"clock\": {\"max_mhz\": %.1f, \"ref_mhz\": %.1f, \"dip_u0\": %.2f, \"dip_mhz_per_u\": %.1f, "
                "\"dip_bin_ns\": %d, \"dip\": [", k->max_mhz, k->ref_mhz, k->dip_u0, k->dip_mhz_per_u, k->dip_bin_ns);
        for (int i = 0; i < k->bins; i++)
            fprintf(f, "%s%.3f", i ? ", " : "", k->dip[i]);
        fputc(']', f);
        if (k->sustained.per_u > 0) /* written only when fitted (calibrate --sustained) */
            fprintf(f, ", \"sustained\": {\"launches\": %g, \"load_ms\": %g, \"tau_ms\": %g, \"u0\": %.2f, "
                    "\"per_u\": %.4f}", k->sustained.launches, k->sustained.load_ms, k->sustained.tau_ms, k->sustained.u0,
                    k->sustained.per_u);
        fputs("},\n", f);
    }
    fprintf(f, "     \"traces\": %d}%s\n", t->traces, is_last ? "" : ",");
}

bool sim_kernel_write(const KernelProfile *k, FILE *f)
{
    fputs("{\n  \"format\": \"dashsim-kernel\",\n  \"version\": 1,\n  \"name\": ", f);
    sim_write_json_string(f, k->name);
    fputs(",\n  \"kernel\": ", f);
    sim_write_json_string(f, k->kernel);
    fputs(",\n  \"gpu\": {\"name\": ", f);
    sim_write_json_string(f, k->gpu_name);
    fprintf(f, ", \"sm_count\": %d, \"date\": ", k->sm_count);
    sim_write_json_string(f, k->date);
    fputs("},\n  \"method\": ", f);
    sim_write_json_string(f, k->method);
    fputs(",\n  \"source\": ", f);
    sim_write_json_string(f, k->source);
    if (k->validated_error > 0) /* optional: absent in a profile that states none (the committed ones) */
        fprintf(f, ",\n  \"validated_error\": %.17g", k->validated_error);
    fprintf(f, ",\n  \"geometry\": {\"head_swizzle\": %d, \"dq_buffers\": %d, \"reduce_op\": ", k->head_swizzle,
            k->dq_buffers);
    sim_write_json_string(f, k->reduce_op);
    fprintf(f, ", \"release\": \"%s\", \"write_rule\": \"%s\"},\n  \"tiles\": [\n",
            k->release == KERNEL_RELEASE_AT_READ ? "read" : "completion", k->is_write_rule_start ? "start" : "overlap");
    for (int i = 0; i < k->tile_count; i++)
        write_tile(f, &k->tiles[i], i + 1 == k->tile_count);
    fputs("  ]\n}\n", f);
    return !ferror(f);
}

/* dashsim_decode_json: one run of `sim decode --json` (a split-KV decode step) as a library call. The request's
 * keys are the command's options for one run (batch, hq, hkv, lq, lk, head_dim, dtype, paged, kblock_m,
 * kblock_n, n, split_policy, hbm_gbps, sm_tensor_gflops, kernel_ns, cta_fixed_ns, block_ns, combine_ns,
 * combine_split_ns, max_memory_mb), with its defaults and ranges. Invariant: the bytes `sim decode ... --json` prints. */
#include "dashsim/dashsim.h"

#include <glib.h>
#include <string.h>

#include "api_util.h"
#include "decode.h"
#include "decode_out.h"
#include "decode_policy.h"

#define MAX_COUNT 1000000
#define MAX_NS INT64_C(1000000000000)

typedef struct {
    DecodeShape w;
    DecodeCosts c;
    DecodeSplit split;
} DecodeRequest;

/* An integer member: its range and where it goes (int or int64). */
typedef struct {
    const char *key;
    int64_t lo, hi;
    size_t offset;               /* in DecodeRequest */
    bool is_int64;
} DecodeKey;

#define SHAPE(k, f, lo, hi) { k, lo, hi, offsetof(DecodeRequest, w) + offsetof(DecodeShape, f), false }
#define COST(k, f, lo, hi) { k, lo, hi, offsetof(DecodeRequest, c) + offsetof(DecodeCosts, f), true }
static const DecodeKey keys[] = {
    SHAPE("batch", batch, 1, MAX_COUNT), SHAPE("hq", hq, 1, MAX_COUNT), SHAPE("hkv", hkv, 1, MAX_COUNT),
    SHAPE("lq", lq, 1, MAX_COUNT), { "lk", 1, INT64_C(1) << 40, offsetof(DecodeRequest, w) + offsetof(DecodeShape, lk), true },
    SHAPE("head_dim", head_dim, 1, 1024), SHAPE("kblock_m", kblock_m, 1, 1024), SHAPE("kblock_n", kblock_n, 1, 1024),
    SHAPE("n", n_sm, 1, 100000), COST("hbm_gbps", hbm_gbps, 1, MAX_NS), COST("sm_tensor_gflops", sm_tensor_gflops, 1, MAX_NS),
    COST("kernel_ns", kernel_ns, 0, MAX_NS), COST("cta_fixed_ns", cta_fixed_ns, 0, MAX_NS), COST("block_ns", block_ns, 0, MAX_NS),
    COST("combine_ns", combine_ns, 0, MAX_NS), COST("combine_split_ns", combine_split_ns, 0, 1000000000),
    COST("max_memory_mb", max_memory_mb, 1, INT64_C(1) << 40),
};

/* A string member (dtype, split_policy) or a boolean (paged). */
static SimStatus parse_other(DecodeRequest *q, const cJSON *item, SimError *err)
{
    const char *key = item->string;
    if (!strcmp(key, "paged")) {
        if (!cJSON_IsBool(item))
            return sim_error_set(err, SIM_ERR_INPUT, "request/paged: must be true or false");
        q->w.is_paged = cJSON_IsTrue(item);
        return SIM_OK;
    }
    if (strcmp(key, "dtype") && strcmp(key, "split_policy"))
        return sim_error_set(err, SIM_ERR_INPUT, "request/%.64s: unknown key (see docs/api.md, dashsim_decode_json)", key);
    if (!cJSON_IsString(item))
        return sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be a string", key);
    if (!strcmp(key, "split_policy"))
        return decode_split_parse(item->valuestring, &q->split, err);
    static const char *const names[] = { "bf16", "fp16", "fp8" };
    for (int i = 0; i < 3; i++)
        if (!strcmp(item->valuestring, names[i]))
            return q->w.dtype = (DecodeDtype)i, SIM_OK;
    return sim_error_set(err, SIM_ERR_INPUT, "request/dtype: must be bf16, fp16 or fp8, got '%.64s'", item->valuestring);
}

static SimStatus parse_request(const cJSON *root, DecodeRequest *q, SimError *err)
{
    *q = (DecodeRequest){ .w = sim_decode_shape_default(), .c = sim_decode_costs_h100() };
    q->c.max_memory_mb = 4096;
    decode_split_parse("fa3", &q->split, err);
    if (!cJSON_IsObject(root))
        return sim_error_set(err, SIM_ERR_INPUT, "request: must be a JSON object of the decode step's options");
    for (const cJSON *item = root->child; item && !err->status; item = item->next) {
        const DecodeKey *k = NULL;
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
            if (!strcmp(item->string, keys[i].key))
                k = &keys[i];
        int64_t v;
        if (!k)
            parse_other(q, item, err);
        else if (api_json_int(item, k->lo, k->hi, &v) != SIM_OK)
            sim_error_set(err, SIM_ERR_INPUT, "request/%s: must be an integer in %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                          k->key, k->lo, k->hi);
        else if (k->is_int64)
            *(int64_t *)((char *)q + k->offset) = v;
        else
            *(int *)((char *)q + k->offset) = (int)v;
    }
    return err->status;
}

DashsimStatus dashsim_decode_json(const char *request_json, char **result_json, char **error)
{
    SimError err = { 0 };
    cJSON *root = NULL;
    DecodeRequest q;
    DecodeGeometry g;
    DecodeRun r;
    int splits = 0;
    if (api_json_begin("dashsim_decode_json", request_json, result_json, error, &root, &err) == SIM_OK &&
        parse_request(root, &q, &err) == SIM_OK && sim_decode_geometry(&q.w, &g, &err) == SIM_OK &&
        sim_decode_split_choose(&q.split, &q.w, &q.c, &splits, &err) == SIM_OK &&
        sim_decode_run(&q.w, &q.c, splits, &r, &err) == SIM_OK) {
        ApiText t;
        api_text_open(&t);
        sim_decode_write_run(t.f, q.split.ops->name, &q.w, &g, &q.c, &r, true);
        *result_json = api_text_take(&t);
    }
    cJSON_Delete(root);
    return err.status ? api_fail(&err, error) : DASHSIM_OK;
}

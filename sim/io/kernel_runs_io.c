/* Kernel-runs files: each record's shape, policy and mode checked before it is used; failed runs kept and
 * marked, so that a prediction can say what it skipped. */
#include "kernel_runs_io.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "json_file.h"
#include "json_read.h"

#define RUNS_MAX_BYTES (64L << 20)

static void read_run(JsonIn *in, const cJSON *r, const char *path, KernelRun *x)
{
    char mask[16] = "", mode[16] = "", backend[16] = "";
    sim_json_text(in, r, path, "backend", backend, sizeof backend);
    x->seqlen = (int)sim_json_int(in, r, path, "seqlen", 1, 1 << 24);
    x->batch = (int)sim_json_int(in, r, path, "batch", 1, 1 << 20);
    x->heads = (int)sim_json_int(in, r, path, "heads", 1, 1 << 20);
    x->kv_heads = (int)sim_json_int(in, r, path, "kv_heads", 1, 1 << 20);
    x->head_dim = (int)sim_json_int(in, r, path, "head_dim", 1, 1024);
    sim_json_text(in, r, path, "mask", mask, sizeof mask);
    sim_json_text(in, r, path, "mode", mode, sizeof mode);
    sim_json_text(in, r, path, "policy", x->policy, sizeof x->policy);
    if (in->err->status)
        return;
    if (strcmp(mask, "full") && strcmp(mask, "causal"))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/mask: must be \"full\" or \"causal\"", in->file, path);
    else if (strcmp(mode, "deterministic") && strcmp(mode, "atomic"))
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/mode: must be \"deterministic\" or \"atomic\"", in->file, path);
    else if (x->heads % x->kv_heads != 0)
        sim_error_set(in->err, SIM_ERR_INPUT, "%s: %s/kv_heads: must divide heads", in->file, path);
    x->mask = strcmp(mask, "causal") == 0 ? MASK_CAUSAL : MASK_FULL;
    x->is_atomic = strcmp(mode, "atomic") == 0;
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(r, "ms"), *ok = cJSON_GetObjectItemCaseSensitive(r, "gradients_ok");
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(r, "bitwise_repeatable");
    if (!in->err->status && ms && !cJSON_GetObjectItemCaseSensitive(r, "error")) {
        double v = sim_json_num(in, r, path, "ms", 1e-6, 1e6);
        x->time_ns = llround(v * 1e6);
        x->is_ok = !cJSON_IsFalse(ok) && (x->is_atomic || !cJSON_IsFalse(rep));
    }
}

SimStatus sim_kernel_runs_parse(const cJSON *root, const char *path, KernelRuns **out, SimError *err)
{
    *out = NULL;
    JsonIn in = { path, err };
    KernelRuns *r = g_new0(KernelRuns, 1);
    r->path = g_strdup(path);
    const cJSON *meta = sim_json_get(&in, root, "", "metadata");
    sim_json_text(&in, meta, "/metadata", "gpu_name", r->gpu_name, sizeof r->gpu_name);
    sim_json_text(&in, meta, "/metadata", "date", r->date, sizeof r->date);
    g_strlcpy(r->kernel, "dashsim-bwd", sizeof r->kernel); /* the runs of gpu/bwd/shapes.py */
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(meta, "kernel");
    if (cJSON_IsString(k))
        g_strlcpy(r->kernel, k->valuestring, sizeof r->kernel);
    const cJSON *recs = sim_json_array(&in, root, "", "records", 1 << 20);
    r->count = recs ? cJSON_GetArraySize(recs) : 0;
    r->runs = g_new0(KernelRun, MAX(r->count, 1));
    for (int i = 0; i < r->count && !err->status; i++) {
        char p[32];
        snprintf(p, sizeof p, "/records/%d", i);
        read_run(&in, cJSON_GetArrayItem(recs, i), p, &r->runs[i]);
    }
    if (err->status) {
        sim_kernel_runs_free(r);
        return err->status;
    }
    *out = r;
    return SIM_OK;
}

/* path parsed, its "format" one of the two words (want2 may be NULL), else one sentence naming them (hint: who
 * writes one); NULL with err set on any problem. */
static cJSON *parse_format(const char *path, const char *want, const char *want2, const char *hint, SimError *err)
{
    cJSON *root;
    if (sim_json_parse_file(path, RUNS_MAX_BYTES, &root, err) != SIM_OK)
        return NULL;
    JsonIn in = { path, err };
    char format[32] = "";
    sim_json_text(&in, root, "", "format", format, sizeof format);
    if (!err->status && strcmp(format, want) != 0 && (!want2 || strcmp(format, want2) != 0))
        sim_error_set(err, SIM_ERR_INPUT, "%s: /format: must be \"%s\" (%s writes one)%s%s%s", path, want, hint,
                      want2 ? " or \"" : "", want2 ? want2 : "", want2 ? "\"" : "");
    if (err->status) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

SimStatus sim_kernel_runs_read(const char *path, KernelRuns **out, SimError *err)
{
    *out = NULL;
    cJSON *root = parse_format(path, "dashsim-kernel-runs", "dashsim-kernel-baseline", "gpu/bwd/shapes.py", err);
    if (root)
        sim_kernel_runs_parse(root, path, out, err);
    cJSON_Delete(root);
    return err->status;
}

bool sim_kernel_runs_is(const char *path)
{
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) /* a FIFO or a device: never read ahead of its reader */
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char head[512];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    return strstr(head, "\"dashsim-kernel-runs\"") || strstr(head, "\"dashsim-kernel-baseline\"");
}

SimStatus sim_kernel_stages_read(const char *path, KernelStageSweep *out, SimError *err)
{
    *out = (KernelStageSweep){ .path = g_strdup(path) };
    cJSON *root = parse_format(path, "dashsim-kernel-stages", NULL, "bin/gpu-bwd-stages", err);
    if (!root)
        return err->status;
    JsonIn in = { path, err };
    sim_json_int(&in, root, "", "version", 1, 1);
    sim_json_text(&in, sim_json_get(&in, root, "", "metadata"), "/metadata", "gpu_name", out->gpu_name,
                  sizeof out->gpu_name);
    const cJSON *pts = sim_json_array(&in, root, "", "points", 4096);
    int n = err->status || !pts ? 0 : cJSON_GetArraySize(pts);
    out->points = g_new0(KernelStagePoint, MAX(n, 1));
    for (int i = 0; i < n && !err->status; i++) {
        const cJSON *p = cJSON_GetArrayItem(pts, i);
        char at[32];
        snprintf(at, sizeof at, "/points/%d", i);
        out->points[i] = (KernelStagePoint){ (int)sim_json_int(&in, p, at, "head_dim", 1, 1024),
                                             (int)sim_json_int(&in, p, at, "group", 1, 1024),
                                             sim_json_int(&in, p, at, "rows", 1024, INT64_C(1) << 31),
                                             sim_json_int(&in, p, at, "chain_ns", 0, INT64_C(10000000000)) };
    }
    out->count = err->status ? 0 : n;
    cJSON_Delete(root);
    return err->status;
}

/* JSON configs: parse (syntax errors located by line:col), check every object's keys (unknown and
 * duplicate keys are errors, although cJSON keeps duplicates silently), apply --set overrides, and decode
 * each sweep point. Invariant: every sentence names the file and the JSON path (or line:col) it is about;
 * an axis value's error names its place in /sweep, not the field it is copied to. */
#include "config.h"

#include <cjson/cJSON.h>
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "json_file.h"
#include "mask_io.h"

struct SimDiag {
    GPtrArray *lines;   /* owned sentences in the order found */
    GHashTable *seen;   /* the same sentences, for dedup (borrowed keys) */
    SimStatus status;
};

SimDiag *sim_diag_new(void)
{
    SimDiag *d = g_new0(SimDiag, 1);
    d->lines = g_ptr_array_new_with_free_func(g_free);
    d->seen = g_hash_table_new(g_str_hash, g_str_equal);
    return d;
}

void sim_diag_free(SimDiag *d)
{
    if (!d)
        return;
    g_hash_table_destroy(d->seen);
    g_ptr_array_free(d->lines, TRUE);
    g_free(d);
}

void sim_diag_add(SimDiag *d, SimStatus status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (g_hash_table_contains(d->seen, s)) {
        g_free(s);
        return;
    }
    g_ptr_array_add(d->lines, s);
    g_hash_table_add(d->seen, s);
    if (!d->status)
        d->status = status;
}

int sim_diag_count(const SimDiag *d) { return (int)d->lines->len; }
SimStatus sim_diag_status(const SimDiag *d) { return d->status; }
const char *sim_diag_at(const SimDiag *d, int i) { return g_ptr_array_index(d->lines, i); }

int sim_diag_print(const SimDiag *d, FILE *f)
{
    for (guint i = 0; i < d->lines->len; i++)
        fprintf(f, "sim: %s\n", (const char *)g_ptr_array_index(d->lines, i));
    return sim_status_exit_code(d->status);
}

struct SimConfig {
    char *name;   /* file name for messages */
    char *dir;    /* its directory: relative paths inside are resolved against it */
    cJSON *doc;   /* owned */
    size_t bytes; /* length of the text: bounds the work per sweep point */
};

const char *sim_config_name(const SimConfig *c) { return c->name; }

void sim_config_free(SimConfig *c)
{
    if (!c)
        return;
    cJSON_Delete(c->doc);
    g_free(c->name);
    g_free(c->dir);
    g_free(c);
}

SimConfig *sim_config_parse(const char *name, const char *text, size_t len, SimDiag *diag)
{
    const char *nul = memchr(text, 0, len);
    char *buf = g_strndup(text, len);
    const char *end = NULL;
    cJSON *doc = nul ? NULL : cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
    if (!doc) {
        int line, col;
        long offset = nul ? (long)(nul - text) : end ? (long)(end - buf) : (long)len;
        sim_json_line_col(buf, offset, &line, &col);
        sim_diag_add(diag, SIM_ERR_INPUT, "%s:%d:%d: %s", name, line, col,
                     nul ? "a NUL byte is not allowed in a config"
                     : sim_json_is_too_deep(buf, (long)len) ? "the JSON is nested too deep (over "
                                                              G_STRINGIFY(CJSON_NESTING_LIMIT) " levels)"
                                                            : "invalid JSON here");
        g_free(buf);
        return NULL;
    }
    g_free(buf);
    SimConfig *c = g_new0(SimConfig, 1);
    c->name = g_strdup(name);
    c->dir = g_path_get_dirname(name);
    c->doc = doc;
    c->bytes = len;
    return c;
}

SimConfig *sim_config_load(const char *path, SimDiag *diag)
{
    char *text;
    size_t len;
    SimError err = { 0 };
    if (sim_json_read_file(path, SIM_CONFIG_MAX_BYTES, &text, &len, &err) != SIM_OK) {
        sim_diag_add(diag, err.status, "%s%s", err.msg, err.status == SIM_ERR_LIMIT ? " for a config" : "");
        return NULL;
    }
    SimConfig *c = sim_config_parse(path, text, len, diag);
    g_free(text);
    return c;
}

/* ---- --set ---- */

/* Workload fields that exclude each other: setting one drops the other, so that `--set workload.heads=16`
 * works on a config that gives hidden (the override replaces how the count is given, not adds to it). */
static void drop_exclusive(cJSON *workload, const char *key)
{
    static const char *const pairs[][2] = { { "heads", "hidden" }, { "batch", "total_tokens" } };
    for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++)
        for (int k = 0; k < 2; k++)
            if (strcmp(key, pairs[i][k]) == 0)
                cJSON_DeleteItemFromObjectCaseSensitive(workload, pairs[i][1 - k]);
}

bool sim_config_set(SimConfig *c, const char *assignment, SimDiag *diag)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        sim_diag_add(diag, SIM_ERR_USAGE, "--set expects key.path=value, got '%s'", assignment);
        return false;
    }
    char *key = g_strndup(assignment, (gsize)(eq - assignment));
    char **parts = g_strsplit(key, ".", -1);
    cJSON *obj = c->doc;
    bool is_ok = cJSON_IsObject(obj);
    for (int i = 0; is_ok && parts[i]; i++) {
        if (!parts[i][0] || !cJSON_IsObject(obj)) {
            is_ok = false;
            break;
        }
        if (!parts[i + 1]) {
            cJSON *v = cJSON_Parse(eq + 1);
            if (!v)
                v = cJSON_CreateString(eq + 1);
            if (i == 1 && strcmp(parts[0], "workload") == 0)
                drop_exclusive(obj, parts[i]);
            if (cJSON_GetObjectItemCaseSensitive(obj, parts[i]))
                cJSON_ReplaceItemInObjectCaseSensitive(obj, parts[i], v);
            else
                cJSON_AddItemToObject(obj, parts[i], v);
            break;
        }
        cJSON *next = cJSON_GetObjectItemCaseSensitive(obj, parts[i]);
        obj = next ? next : cJSON_AddObjectToObject(obj, parts[i]);
    }
    if (!is_ok)
        sim_diag_add(diag, SIM_ERR_USAGE, "--set %s: the path must name a field inside JSON objects", key);
    g_strfreev(parts);
    g_free(key);
    return is_ok;
}

/* ---- the schema's keys ---- */

static const char *const root_keys[] = { "schema_version", "description", "workload", "hardware", "policies",
                                         "options", "sweep", NULL };
static const char *const workload_keys[] = { "batch", "heads", "total_tokens", "hidden", "seqlen_q", "seqlen_k",
                                             "head_dim", "mask", "mask_file", "dtype", "block_m", "block_n",
                                             "kv_heads", "mask_tokens", NULL };
static const char *const hardware_keys[] = { "preset", "sm_count", "clock_mhz", "tensor_tflops",
                                             "tensor_efficiency", "l2_bandwidth_gbps", "hbm_bandwidth_gbps",
                                             "reduce_fixed_cycles", "latency_near_ns", "latency_far_ns",
                                             "latency_matrix", "profile", NULL };
static const char *const options_keys[] = { "reduce", "dq_buffers", "cta_prologue", "baseline", "max_memory_mb",
                                            "c_ns", "r_ns", "kernel", "max_seconds", "model", NULL };

static bool is_in(const char *const *keys, const char *k)
{
    for (int i = 0; keys[i]; i++)
        if (strcmp(keys[i], k) == 0)
            return true;
    return false;
}

static char *allowed_list(const char *const *keys)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; keys[i]; i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", keys[i]);
    return g_string_free(s, FALSE);
}

/* JSON pointer of child key k under path (RFC 6901 escapes). */
static char *child_path(const char *path, const char *k)
{
    GString *s = g_string_new(path);
    g_string_append_c(s, '/');
    for (const char *p = k; *p; p++)
        g_string_append(s, *p == '~' ? "~0" : *p == '/' ? "~1" : (char[2]){ *p, 0 });
    return g_string_free(s, FALSE);
}

/* Duplicate keys anywhere in the tree. Depth is bounded by cJSON's nesting limit. */
static void check_duplicates(const SimConfig *c, const cJSON *node, const char *path, SimDiag *diag)
{
    GHashTable *seen = cJSON_IsObject(node) ? g_hash_table_new(g_str_hash, g_str_equal) : NULL;
    int index = 0;
    for (const cJSON *ch = node->child; ch; ch = ch->next, index++) {
        char *p = seen ? child_path(path, ch->string) : g_strdup_printf("%s/%d", path, index);
        if (seen && g_hash_table_contains(seen, ch->string))
            sim_diag_add(diag, SIM_ERR_INPUT, "%s: %s: duplicate key", c->name, p);
        if (seen)
            g_hash_table_add(seen, ch->string);
        check_duplicates(c, ch, p, diag);
        g_free(p);
    }
    if (seen)
        g_hash_table_destroy(seen);
}

static void check_keys_of(const SimConfig *c, const cJSON *obj, const char *path, const char *const *keys,
                          SimDiag *diag)
{
    if (!obj || !cJSON_IsObject(obj))
        return;
    for (const cJSON *ch = obj->child; ch; ch = ch->next)
        if (!is_in(keys, ch->string)) {
            char *p = child_path(path, ch->string), *list = allowed_list(keys);
            sim_diag_add(diag, SIM_ERR_INPUT, "%s: %s: unknown key (allowed here: %s)", c->name, p, list);
            g_free(p);
            g_free(list);
        }
}

/* ---- sweep axes ---- */

#define MAX_AXES 8
#define MAX_AXIS_VALUES 10000

typedef struct {
    const char *name;     /* as written in /sweep */
    const cJSON *values;  /* its array */
    bool is_policy;       /* the policy list of every point, not a dimension */
    char targets[2][48];  /* "workload.seqlen_q" style paths the value is copied to */
    int target_count;
} Axis;

static bool resolve_section(const char *section, const char *key, Axis *a)
{
    const char *const *keys = strcmp(section, "workload") == 0   ? workload_keys
                              : strcmp(section, "hardware") == 0 ? hardware_keys
                              : strcmp(section, "options") == 0  ? options_keys
                                                                 : NULL;
    if (!keys || !is_in(keys, key))
        return false;
    snprintf(a->targets[a->target_count++], sizeof a->targets[0], "%s.%s", section, key);
    return true;
}

/* Axis name -> target fields: "seqlen" (seqlen_q and seqlen_k), "policy"/"policies", "section.key",
 * or a bare key of workload, hardware or options. */
static bool resolve_axis(const char *name, Axis *a)
{
    a->name = name;
    if (strcmp(name, "policy") == 0 || strcmp(name, "policies") == 0)
        return a->is_policy = true;
    if (strcmp(name, "seqlen") == 0)
        return resolve_section("workload", "seqlen_q", a) && resolve_section("workload", "seqlen_k", a);
    const char *dot = strchr(name, '.');
    if (dot) {
        char section[32];
        if (dot - name >= (long)sizeof section)
            return false;
        snprintf(section, sizeof section, "%.*s", (int)(dot - name), name);
        return resolve_section(section, dot + 1, a);
    }
    return resolve_section("workload", name, a) || resolve_section("hardware", name, a) ||
           resolve_section("options", name, a);
}

/* Reads /sweep into axes; reports bad names, empty or oversized axes. Returns the axis count or -1. */
static int read_axes(const SimConfig *c, Axis *axes, SimDiag *diag)
{
    const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(c->doc, "sweep");
    if (!sweep)
        return 0;
    if (!cJSON_IsObject(sweep)) {
        sim_diag_add(diag, SIM_ERR_INPUT, "%s: /sweep: must be an object of axis name -> array of values", c->name);
        return -1;
    }
    int n = 0;
    bool is_ok = true;
    for (const cJSON *ch = sweep->child; ch; ch = ch->next) {
        char *p = child_path("/sweep", ch->string);
        Axis a = { 0 };
        if (n == MAX_AXES)
            sim_diag_add(diag, SIM_ERR_LIMIT, "%s: %s: a sweep has at most %d axes", c->name, p, MAX_AXES), is_ok = false;
        else if (cJSON_GetObjectItemCaseSensitive(sweep, ch->string) != ch)
            is_ok = false; /* a second axis of that name: check_duplicates reports it */
        else if (!resolve_axis(ch->string, &a))
            sim_diag_add(diag, SIM_ERR_INPUT, "%s: %s: unknown axis (use seqlen, policy, a workload, hardware "
                         "or options key, or section.key)", c->name, p), is_ok = false;
        else if (!cJSON_IsArray(ch) || !ch->child || cJSON_GetArraySize(ch) > MAX_AXIS_VALUES)
            sim_diag_add(diag, SIM_ERR_INPUT, "%s: %s: must be an array of 1 to %d values", c->name, p,
                         MAX_AXIS_VALUES), is_ok = false;
        else {
            a.values = ch;
            axes[n++] = a;
        }
        g_free(p);
    }
    return is_ok ? n : -1;
}

int64_t sim_config_point_count(const SimConfig *c, bool is_sweep)
{
    Axis axes[MAX_AXES];
    SimDiag *d = sim_diag_new();
    int n = is_sweep ? read_axes(c, axes, d) : 0;
    sim_diag_free(d);
    int64_t count = 1;
    for (int i = 0; i < n; i++)
        if (!axes[i].is_policy)
            count = count > SIM_CONFIG_MAX_POINTS ? count : count * cJSON_GetArraySize(axes[i].values);
    return n < 0 ? 0 : count;
}

/* ---- decoding one point ---- */

typedef struct {
    const SimConfig *c;
    SimDiag *diag;
    SimDiag *base;                   /* lazily: the errors of the config without its axes; owned */
    bool is_ok;
    int64_t point;                   /* sweep point being decoded */
    int override_count;
    char target[2 * MAX_AXES][112];  /* "/workload/seqlen_q" */
    char source[2 * MAX_AXES][160];  /* "/sweep/seqlen/3" */
} Ctx;

static void fail(Ctx *x, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void decode(Ctx *x, const cJSON *doc, SimConfigPoint *p);
static void fail(Ctx *x, const char *path, const char *fmt, ...)
{
    char where[256];
    snprintf(where, sizeof where, "%s", path);
    bool is_from_axis = false;
    for (int i = 0; i < x->override_count; i++) {
        size_t n = strlen(x->target[i]);
        if (strncmp(path, x->target[i], n) == 0 && (path[n] == 0 || path[n] == '/'))
            snprintf(where, sizeof where, "%s%s", x->source[i], path + n), is_from_axis = true;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* a field the axes did not set may still be wrong only at this point: say which point */
    GString *point = g_string_new(NULL);
    for (int i = x->override_count - 1; !is_from_axis && i >= 0; i--) /* recorded last axis first */
        if (strcmp(x->target[i], "/policies") != 0 && !strstr(point->str, x->source[i]))
            g_string_append_printf(point, "%s%s", point->len ? ", " : "", x->source[i]);
    char *plain = where[0] ? g_strdup_printf("%s: %s: %s", x->c->name, where, msg) /* the root has no path */
                           : g_strdup_printf("%s: %s", x->c->name, msg);
    if (point->len && !x->base) {
        /* an error the config has without its axes is not about this point: keep it once, unlabelled */
        x->base = sim_diag_new();
        Ctx bx = { .c = x->c, .diag = x->base, .is_ok = true };
        SimConfigPoint unused;
        decode(&bx, x->c->doc, &unused);
    }
    if (point->len && !g_hash_table_contains(x->base->seen, plain))
        sim_diag_add(x->diag, SIM_ERR_INPUT, "%s (sweep point %" G_GINT64_FORMAT ": %s)", plain, x->point, point->str);
    else
        sim_diag_add(x->diag, SIM_ERR_INPUT, "%s", plain);
    g_free(plain);
    g_string_free(point, TRUE);
    g_free(msg);
    x->is_ok = false;
}

/* The member key of obj, or NULL; path receives "/section/key". */
static const cJSON *member(const cJSON *obj, const char *section, const char *key, char path[128])
{
    snprintf(path, 128, "%s%s/%s", section[0] ? "/" : "", section, key);
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static bool get_int(Ctx *x, const cJSON *obj, const char *section, const char *key, int64_t lo, int64_t hi,
                    int64_t *out)
{
    char path[128];
    const cJSON *v = member(obj, section, key, path);
    if (!v)
        return false;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < (double)lo ||
        v->valuedouble > (double)hi) {
        fail(x, path, "must be an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, lo, hi);
        return false;
    }
    *out = (int64_t)v->valuedouble;
    return true;
}

/* A number in (lo, hi]. */
static void get_num(Ctx *x, const cJSON *obj, const char *section, const char *key, double lo, double hi,
                    double *out)
{
    char path[128];
    const cJSON *v = member(obj, section, key, path);
    if (!v)
        return;
    if (!cJSON_IsNumber(v) || !(v->valuedouble > lo) || !(v->valuedouble <= hi))
        fail(x, path, "must be a number above %g and at most %g", lo, hi);
    else
        *out = v->valuedouble;
}

/* One of the names in choices (NULL-terminated); *out is its index. */
static void get_choice(Ctx *x, const cJSON *obj, const char *section, const char *key,
                       const char *const *choices, int *out)
{
    char path[128];
    const cJSON *v = member(obj, section, key, path);
    if (!v)
        return;
    for (int i = 0; cJSON_IsString(v) && choices[i]; i++)
        if (strcmp(v->valuestring, choices[i]) == 0) {
            *out = i;
            return;
        }
    char *list = allowed_list(choices);
    fail(x, path, "must be one of %s", list);
    g_free(list);
}

static void get_bool(Ctx *x, const cJSON *obj, const char *section, const char *key, bool *out)
{
    char path[128];
    const cJSON *v = member(obj, section, key, path);
    if (v && !cJSON_IsBool(v))
        fail(x, path, "must be true or false");
    else if (v)
        *out = cJSON_IsTrue(v);
}

/* A section object (absent: NULL, which every getter treats as empty). */
static const cJSON *section_of(Ctx *x, const cJSON *doc, const char *name, bool is_required)
{
    char path[128];
    const cJSON *s = member(doc, "", name, path);
    if (!s && is_required)
        fail(x, path, "missing (it must be an object)");
    if (s && !cJSON_IsObject(s)) {
        fail(x, path, "must be an object");
        return NULL;
    }
    return s;
}

#define MAX_COUNT 1000000
#define MAX_DERIVED_NS 1000000000000LL /* as the largest c_ns, r_ns accepted */

/* batch from total_tokens, heads from hidden; the FA3 tile; causal needs square sequences and nested tiles. */
static void check_workload(Ctx *x, const cJSON *w, SimConfigPoint *p, bool has_batch, bool has_heads)
{
    SimShape *s = &p->shape;
    if (p->total_tokens && has_batch)
        fail(x, "/workload/total_tokens", "give batch or total_tokens, not both");
    else if (p->total_tokens && (p->total_tokens % s->seqlen_q || p->total_tokens / s->seqlen_q > MAX_COUNT))
        fail(x, "/workload/total_tokens", "%" G_GINT64_FORMAT " must be a multiple of seqlen_q (%" G_GINT64_FORMAT
             ") and at most %d times it", p->total_tokens, s->seqlen_q, MAX_COUNT);
    else if (p->total_tokens)
        s->batch = p->total_tokens / s->seqlen_q;
    if (p->hidden && has_heads)
        fail(x, "/workload/hidden", "give heads or hidden, not both");
    else if (p->hidden && p->hidden % s->head_dim)
        fail(x, "/workload/hidden", "%" G_GINT64_FORMAT " must be a multiple of head_dim (%" G_GINT64_FORMAT ")",
             p->hidden, s->head_dim);
    else if (p->hidden)
        s->heads = p->hidden / s->head_dim;
    if (!!s->block_m != !!s->block_n)
        fail(x, s->block_m ? "/workload/block_n" : "/workload/block_m", "give both block_m and block_n, or neither");
    else if (!s->block_m && !sim_cost_fa3_tile(s->head_dim, s->mask == MASK_BLOCK ? MASK_FULL : s->mask,
                                               &s->block_m, &s->block_n))
        fail(x, "/workload/head_dim", "FA3 has no deterministic backward tile for head_dim %" G_GINT64_FORMAT
             " (it has 64, 96, 128 and 192; or give block_m and block_n)", s->head_dim);
    else if (s->mask == MASK_BLOCK && !cJSON_HasObjectItem(w, "block_m"))
        s->block_m = s->block_n;
    if (s->mask == MASK_CAUSAL && s->seqlen_k != s->seqlen_q)
        fail(x, "/workload/seqlen_k", "the causal mask needs seqlen_k equal to seqlen_q (%" G_GINT64_FORMAT ")",
             s->seqlen_q);
    if (s->mask == MASK_CAUSAL && s->block_m && s->block_n % s->block_m)
        fail(x, "/workload/head_dim", "the causal schedules need kBlockN (%d) to be a multiple of kBlockM (%d)",
             s->block_n, s->block_m);
    if (x->is_ok && s->batch * s->heads > MAX_COUNT)
        fail(x, "/workload/heads", "batch x heads = %" G_GINT64_FORMAT " is over the limit of %d",
             s->batch * s->heads, MAX_COUNT);
}

/* workload.mask: full, causal or a block mask's spec (tile units, docs/masks.md); workload.mask_file: a
 * block mask from a file, relative to the config's folder. Both are checked against the tiles later. */
static void decode_mask(Ctx *x, const cJSON *w, SimConfigPoint *p)
{
    char path[128], fpath[128];
    const cJSON *m = member(w, "workload", "mask", path), *f = member(w, "workload", "mask_file", fpath);
    if (m && (!cJSON_IsString(m) || !m->valuestring[0] || strlen(m->valuestring) >= sizeof p->mask_spec))
        fail(x, path, "must be full, causal or a block mask such as window:16 (docs/masks.md), at most %d characters",
             (int)sizeof p->mask_spec - 1);
    else if (m && strcmp(m->valuestring, "full") && strcmp(m->valuestring, "causal") &&
             !sim_mask_is_block_kind(m->valuestring)) { /* the numbers are checked against the tiles later */
        char *kinds = sim_mask_syntax(", ", true);
        fail(x, path, "must be full, causal or a block mask: %s (tile units, docs/masks.md)", kinds);
        g_free(kinds);
    } else if (m && strcmp(m->valuestring, "full") && strcmp(m->valuestring, "causal"))
        snprintf(p->mask_spec, sizeof p->mask_spec, "%s", m->valuestring);
    p->shape.mask = m && cJSON_IsString(m) && strcmp(m->valuestring, "causal") == 0 ? MASK_CAUSAL : MASK_FULL;
    if (f && m)
        fail(x, fpath, "give mask or mask_file, not both");
    else if (f && (!cJSON_IsString(f) || !f->valuestring[0] || strlen(f->valuestring) > 256))
        fail(x, fpath, "must be a file name (1 to 256 characters)");
    else if (f)
        snprintf(p->mask_file, sizeof p->mask_file, "%s%s%s", g_path_is_absolute(f->valuestring) ? "" : x->c->dir,
                 g_path_is_absolute(f->valuestring) ? "" : "/", f->valuestring);
    if (p->mask_spec[0] || p->mask_file[0])
        p->shape.mask = MASK_BLOCK;
    const cJSON *t = member(w, "workload", "mask_tokens", path);
    if (t && (m || f))
        fail(x, path, "give mask_tokens, mask or mask_file, not two of them");
    else if (t && (!cJSON_IsString(t) || !t->valuestring[0] || strlen(t->valuestring) >= sizeof p->mask_tokens))
        fail(x, path, "must be a block mask in tokens such as window:512 (docs/masks.md), at most %d characters",
             (int)sizeof p->mask_tokens - 1);
    else if (t)
    {
        snprintf(p->mask_tokens, sizeof p->mask_tokens, "%s", t->valuestring), p->shape.mask = MASK_BLOCK;
        snprintf(p->mask_tokens_name, sizeof p->mask_tokens_name, "tokens:%s", t->valuestring);
    }
}

/* A mask in tokens: made over FA3's causal tiles of the shape (the front end's, when no kernel profile names
 * others), so a bad spec is reported with the config's other errors. */
static void check_token_mask(Ctx *x, SimConfigPoint *p)
{
    SimShape *s = &p->shape;
    int bm, bn;
    BlockMask m = { 0 };
    SimError err = { 0 };
    int64_t kept;
    if (sim_cost_fa3_tile(s->head_dim, MASK_CAUSAL, &bm, &bn) &&
        sim_mask_from_tokens(p->mask_tokens, &(MaskTokens){ s->seqlen_q, s->seqlen_k, bm, bn }, &m, &kept, &err))
        fail(x, "/workload/mask_tokens", "%s", err.msg);
    sim_mask_clear(&m);
}

/* A block mask: square tiles (kBlockN x kBlockN, FA3's full-mask kBlockN unless given), and the mask made
 * or read for the point's tiles. */
static void check_block_mask(Ctx *x, SimConfigPoint *p)
{
    SimShape *s = &p->shape;
    if (s->block_m != s->block_n) {
        fail(x, "/workload/block_m", "a block mask needs square tiles: block_m equal to block_n (%d)", s->block_n);
        return;
    }
    BlockMask m = { 0 };
    SimError err = { 0 };
    int kv = (int)((s->seqlen_k + s->block_n - 1) / s->block_n), q = (int)((s->seqlen_q + s->block_m - 1) / s->block_m);
    if (p->mask_file[0] ? sim_mask_read_capped(p->mask_file, p->max_memory_mb << 20, &m, &err)
                        : sim_mask_make_capped(p->mask_spec, kv, q, p->max_memory_mb << 20, &m, &err))
        fail(x, p->mask_file[0] ? "/workload/mask_file" : "/workload/mask", "%s", err.msg);
    else if (m.kv_tiles != kv || m.q_tiles != q)
        fail(x, "/workload/mask_file", "the mask has %d KV x %d Q tiles; the workload has %d x %d (seqlen_k / "
             "block_n, seqlen_q / block_m)", m.kv_tiles, m.q_tiles, kv, q);
    sim_mask_clear(&m);
}

static void decode_workload(Ctx *x, const cJSON *doc, SimConfigPoint *p)
{
    const cJSON *w = section_of(x, doc, "workload", true);
    SimShape *s = &p->shape;
    if (!w)
        return;
    bool was_ok = x->is_ok; /* the consistency checks need only this section's fields */
    x->is_ok = true;
    *s = (SimShape){ .batch = 1, .heads = 1, .mask = MASK_FULL, .dtype = DTYPE_BF16 };
    bool has_batch = get_int(x, w, "workload", "batch", 1, MAX_COUNT, &s->batch);
    bool has_heads = get_int(x, w, "workload", "heads", 1, MAX_COUNT, &s->heads);
    get_int(x, w, "workload", "total_tokens", 1, 1000000000, &p->total_tokens);
    get_int(x, w, "workload", "hidden", 1, 10000000, &p->hidden);
    if (w && !get_int(x, w, "workload", "seqlen_q", 1, 10000000, &s->seqlen_q) &&
        !cJSON_GetObjectItemCaseSensitive(w, "seqlen_q"))
        fail(x, "/workload/seqlen_q", "missing (query tokens per sequence)");
    s->seqlen_k = s->seqlen_q;
    get_int(x, w, "workload", "seqlen_k", 1, 10000000, &s->seqlen_k);
    if (w && !get_int(x, w, "workload", "head_dim", 1, 1024, &s->head_dim) &&
        !cJSON_GetObjectItemCaseSensitive(w, "head_dim"))
        fail(x, "/workload/head_dim", "missing (dimension of one head)");
    decode_mask(x, w, p);
    int v = 0;
    get_choice(x, w, "workload", "dtype", (const char *const[]){ "bf16", "fp16", NULL }, &v);
    s->dtype = v ? DTYPE_FP16 : DTYPE_BF16;
    int64_t bm = 0, bn = 0;
    get_int(x, w, "workload", "block_m", 1, 1024, &bm);
    get_int(x, w, "workload", "block_n", 1, 1024, &bn);
    s->block_m = (int)bm, s->block_n = (int)bn;
    get_int(x, w, "workload", "kv_heads", 1, MAX_COUNT, &s->kv_heads);
    if (x->is_ok)
        check_workload(x, w, p, has_batch, has_heads);
    if (x->is_ok && s->kv_heads && (s->kv_heads > s->heads || s->heads % s->kv_heads != 0))
        fail(x, "/workload/kv_heads", "must divide the heads (%lld)", (long long)s->heads);
    if (x->is_ok && ((s->seqlen_k + s->block_n - 1) / s->block_n > MAX_COUNT ||
                     (s->seqlen_q + s->block_m - 1) / s->block_m > MAX_COUNT))
        fail(x, "/workload/seqlen_q", "more than %d tiles per head", MAX_COUNT);
    if (x->is_ok && s->mask == MASK_BLOCK)
        (p->mask_tokens[0] ? check_token_mask : check_block_mask)(x, p);
    if (p->mask_tokens[0] && !cJSON_HasObjectItem(w, "block_m"))
        s->block_m = s->block_n = 0; /* the costing path's tiles: the kernel profile's, else FA3's causal ones */
    x->is_ok &= was_ok;
}

/* A profile named by a config: a name ("h100-sxm", "gpu-bwd": found where data files are, at run time) or
 * a file, relative to the config's own directory. */
static void get_profile_name(Ctx *x, const cJSON *section, const char *sname, const char *key, char *out, size_t len)
{
    char path[128];
    const cJSON *v = member(section, sname, key, path);
    if (!v)
        return;
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > 256)
        fail(x, path, "must be a profile name or a file name (1 to 256 characters)");
    else if (!strchr(v->valuestring, '/') || g_path_is_absolute(v->valuestring))
        snprintf(out, len, "%s", v->valuestring);
    else
        snprintf(out, len, "%s/%s", x->c->dir, v->valuestring);
}

static void decode_hardware(Ctx *x, const cJSON *doc, SimConfigPoint *p)
{
    const cJSON *h = section_of(x, doc, "hardware", false);
    char path[128];
    const cJSON *preset = member(h, "hardware", "preset", path);
    sim_cost_preset("h100-sxm", &p->hw);
    if (preset && (!cJSON_IsString(preset) || !sim_cost_preset(preset->valuestring, &p->hw)))
        fail(x, path, "must be one of %s", sim_cost_preset_names());
    SimHardware *hw = &p->hw;
    int64_t v;
    if (get_int(x, h, "hardware", "sm_count", 1, 100000, &v))
        hw->sm_count = (int)v;
    if (get_int(x, h, "hardware", "clock_mhz", 1, 100000, &v))
        hw->clock_mhz = (int)v;
    get_num(x, h, "hardware", "tensor_tflops", 0, 1e6, &hw->tensor_tflops);
    get_num(x, h, "hardware", "tensor_efficiency", 0, 1, &hw->tensor_efficiency);
    get_num(x, h, "hardware", "l2_bandwidth_gbps", 0, 1e9, &hw->l2_bandwidth_gbps);
    get_num(x, h, "hardware", "hbm_bandwidth_gbps", 0, 1e9, &hw->hbm_bandwidth_gbps);
    get_int(x, h, "hardware", "reduce_fixed_cycles", 0, 1000000000, &hw->reduce_fixed_cycles);
    get_int(x, h, "hardware", "latency_near_ns", 0, 1000000000, &hw->latency_near_ns);
    get_int(x, h, "hardware", "latency_far_ns", 0, 1000000000, &hw->latency_far_ns);
    const cJSON *m = member(h, "hardware", "latency_matrix", path);
    if (m && (!cJSON_IsString(m) || !m->valuestring[0] || strlen(m->valuestring) > 256))
        fail(x, path, "must be a file name (1 to 256 characters)");
    else if (m && g_path_is_absolute(m->valuestring))
        snprintf(p->latency_matrix, sizeof p->latency_matrix, "%s", m->valuestring);
    else if (m)
        snprintf(p->latency_matrix, sizeof p->latency_matrix, "%s/%s", x->c->dir, m->valuestring);
    get_profile_name(x, h, "hardware", "profile", p->profile, sizeof p->profile);
}

static void decode_policies(Ctx *x, const cJSON *doc, SimConfigPoint *p)
{
    char path[128];
    const cJSON *v = member(doc, "", "policies", path);
    p->policy_count = 0;
    if (!v || (cJSON_IsString(v) && strcmp(v->valuestring, "all") == 0)) {
        for (int i = 0; i < policy_count() && p->policy_count < SIM_CONFIG_MAX_POLICIES; i++)
            p->policies[p->policy_count++] = policy_at(i)->name; /* each point runs those for its mask */
        return;
    }
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    if (n < 1 || n > SIM_CONFIG_MAX_POLICIES) {
        fail(x, path, "must be \"all\" or an array of 1 to %d policy names", SIM_CONFIG_MAX_POLICIES);
        return;
    }
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        const PolicyOps *ops = cJSON_IsString(e) ? policy_find(e->valuestring) : NULL;
        const char *name = ops ? ops->name : NULL;
        char ep[160];
        snprintf(ep, sizeof ep, "%s/%d", path, i);
        bool is_dup = false;
        for (int j = 0; name && j < p->policy_count; j++)
            is_dup |= strcmp(p->policies[j], name) == 0;
        const char *guess = !name && cJSON_IsString(e) ? policy_suggest(e->valuestring) : NULL;
        if (!name && guess)
            fail(x, ep, "unknown policy; did you mean '%s'? (sim --list-policies shows them)", guess);
        else if (!name)
            fail(x, ep, "unknown policy (sim --list-policies shows them, with the masks each takes)");
        else if (is_dup)
            fail(x, ep, "policy %s is listed twice", name);
        else
            p->policies[p->policy_count++] = name;
    }
}

static void decode_options(Ctx *x, const cJSON *doc, SimConfigPoint *p)
{
    const cJSON *o = section_of(x, doc, "options", false);
    int v = 1; /* the shape front end's defaults: FA3's asynchronous dQ store, the hardware profile's costs */
    get_choice(x, o, "options", "reduce", (const char *const[]){ "serial", "async", NULL }, &v);
    p->reduce = v ? REDUCE_ASYNC : REDUCE_SERIAL;
    char mpath[128];
    v = 0;
    get_choice(x, o, "options", "model", (const char *const[]){ "profile", "paper", NULL }, &v);
    p->is_paper = v == 1;
    if (p->is_paper && p->profile[0] && member(o, "options", "model", mpath))
        fail(x, mpath, "paper takes r and the hand-off from the cost model, not /hardware/profile: give one of them");
    int64_t bufs = 0; /* 0: the kernel profile's, 1 without one (the shape front end's rule) */
    get_int(x, o, "options", "dq_buffers", 1, 64, &bufs);
    p->dq_buffers = (int)bufs;
    get_bool(x, o, "options", "cta_prologue", &p->has_prologue);
    get_int(x, o, "options", "max_memory_mb", 1, 10000000, &p->max_memory_mb);
    get_int(x, o, "options", "max_seconds", 1, 10000000, &p->max_seconds);
    get_int(x, o, "options", "c_ns", 0, 1000000000000LL, &p->c_ns);
    get_int(x, o, "options", "r_ns", 0, 1000000000000LL, &p->r_ns);
    get_profile_name(x, o, "options", "kernel", p->kernel, sizeof p->kernel);
    char path[128];
    const cJSON *b = member(o, "options", "baseline", path);
    const Workload block = policy_kind_workload(MASK_BLOCK), full = policy_kind_workload(MASK_FULL),
                   causal = policy_kind_workload(MASK_CAUSAL);
    const PolicyOps *ops = b && cJSON_IsString(b) ? policy_find(b->valuestring) : NULL;
    if (b && !ops)
        fail(x, path, "must name a policy (sim --list-policies shows them)");
    else if (p->shape.mask == MASK_BLOCK) /* FA3's order on a block mask unless the baseline takes one */
        p->baseline = ops && policy_supports(ops, &block) ? ops->name : "ascending";
    else if (ops && (policy_supports(ops, &full) || policy_supports(ops, &causal)))
        p->baseline = ops->name;
}

/* Derived costs are inputs too: rates near zero give costs over the cap of a given c_ns or r_ns. */
static void check_costs(Ctx *x, const SimConfigPoint *p)
{
    SimCost c;
    sim_cost_derive(&p->shape, &p->hw, &c);
    const int64_t cost[] = { p->c_ns >= 0 ? p->c_ns : c.c_ns, p->r_ns >= 0 ? p->r_ns : c.r_ns, c.prologue_ns };
    const char *const what[] = { "compute cost c (from tensor_tflops and tensor_efficiency)",
                                 "reduction cost r (from l2_bandwidth_gbps, reduce_fixed_cycles and clock_mhz)",
                                 "CTA prologue (from hbm_bandwidth_gbps)" };
    const char *const where[] = { "/hardware/tensor_tflops", "/hardware/l2_bandwidth_gbps",
                                  "/hardware/hbm_bandwidth_gbps" };
    for (int i = 0; i < 3; i++)
        if (cost[i] > MAX_DERIVED_NS)
            fail(x, where[i], "the derived %s is over the limit of %lld ns", what[i], MAX_DERIVED_NS);
}

static void decode(Ctx *x, const cJSON *doc, SimConfigPoint *p)
{
    *p = (SimConfigPoint){ .baseline = "fa3", .c_ns = -1, .r_ns = -1, .max_memory_mb = 4096 };
    if (!cJSON_IsObject(doc)) {
        fail(x, "", "the config must be a JSON object");
        return;
    }
    char path[128];
    int64_t version = 0;
    if (!get_int(x, doc, "", "schema_version", SIM_CONFIG_SCHEMA_VERSION, SIM_CONFIG_SCHEMA_VERSION, &version) &&
        !member(doc, "", "schema_version", path))
        fail(x, "/schema_version", "missing (this sim reads schema version %d)", SIM_CONFIG_SCHEMA_VERSION);
    const cJSON *d = member(doc, "", "description", path);
    if (d && !cJSON_IsString(d))
        fail(x, path, "must be a string");
    decode_workload(x, doc, p);
    decode_hardware(x, doc, p);
    decode_policies(x, doc, p);
    decode_options(x, doc, p);
    if (x->is_ok)
        check_costs(x, p);
}

/* doc with point i's axis values copied in; x records where each came from. Owned by the caller. */
static cJSON *point_doc(const SimConfig *c, const Axis *axes, int n, int64_t i, Ctx *x)
{
    cJSON *doc = cJSON_Duplicate(c->doc, 1);
    for (int a = n - 1; a >= 0; a--) {
        char *src = child_path("/sweep", axes[a].name);
        if (axes[a].is_policy) {
            cJSON_DeleteItemFromObjectCaseSensitive(doc, "policies");
            cJSON_AddItemToObject(doc, "policies", cJSON_Duplicate(axes[a].values, 1));
            snprintf(x->target[x->override_count], sizeof x->target[0], "/policies");
            snprintf(x->source[x->override_count++], sizeof x->source[0], "%s", src);
            g_free(src);
            continue;
        }
        int len = cJSON_GetArraySize(axes[a].values), idx = (int)(i % len);
        i /= len;
        for (int t = 0; t < axes[a].target_count; t++) {
            char section[48];
            snprintf(section, sizeof section, "%s", axes[a].targets[t]);
            char *key = strchr(section, '.');
            *key++ = 0;
            cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, section);
            if (!s)
                s = cJSON_AddObjectToObject(doc, section);
            if (!cJSON_IsObject(s))
                continue;
            cJSON_DeleteItemFromObjectCaseSensitive(s, key);
            cJSON_AddItemToObject(s, key, cJSON_Duplicate(cJSON_GetArrayItem(axes[a].values, idx), 1));
            snprintf(x->target[x->override_count], sizeof x->target[0], "/%s/%s", section, key);
            snprintf(x->source[x->override_count++], sizeof x->source[0], "%s/%d", src, idx);
        }
        g_free(src);
    }
    return doc;
}

/* Point i; *base caches the config's own errors across calls (NULL at first; the caller frees it). */
static bool decode_point(const SimConfig *c, bool is_sweep, int64_t i, SimConfigPoint *out, SimDiag *diag,
                         SimDiag **base)
{
    Axis axes[MAX_AXES];
    Ctx x = { .c = c, .diag = diag, .base = *base, .is_ok = true, .point = i };
    int n = is_sweep ? read_axes(c, axes, diag) : 0;
    if (n < 0)
        return false;
    cJSON *doc = point_doc(c, axes, n, i, &x);
    decode(&x, doc, out);
    cJSON_Delete(doc);
    *base = x.base;
    return x.is_ok;
}

bool sim_config_point(const SimConfig *c, bool is_sweep, int64_t i, SimConfigPoint *out, SimDiag *diag)
{
    SimDiag *base = NULL;
    bool is_ok = decode_point(c, is_sweep, i, out, diag, &base);
    sim_diag_free(base);
    return is_ok;
}

bool sim_config_validate(const SimConfig *c, bool is_sweep, SimDiag *diag)
{
    int before = sim_diag_count(diag);
    check_duplicates(c, c->doc, "", diag);
    check_keys_of(c, c->doc, "", root_keys, diag);
    check_keys_of(c, cJSON_GetObjectItemCaseSensitive(c->doc, "workload"), "/workload", workload_keys, diag);
    check_keys_of(c, cJSON_GetObjectItemCaseSensitive(c->doc, "hardware"), "/hardware", hardware_keys, diag);
    check_keys_of(c, cJSON_GetObjectItemCaseSensitive(c->doc, "options"), "/options", options_keys, diag);
    Axis axes[MAX_AXES];
    int n = cJSON_IsObject(c->doc) ? read_axes(c, axes, diag) : 0;
    int64_t count = 1;
    for (int a = 0; a < n && count <= SIM_CONFIG_MAX_POINTS; a++)
        count *= axes[a].is_policy ? 1 : cJSON_GetArraySize(axes[a].values);
    if (count > SIM_CONFIG_MAX_POINTS) {
        sim_diag_add(diag, SIM_ERR_LIMIT, "%s: /sweep: more than %d points", c->name, SIM_CONFIG_MAX_POINTS);
        return false;
    }
    if ((double)count * (double)(c->bytes + 1) > 1e9) { /* each point decodes a copy of the document */
        sim_diag_add(diag, SIM_ERR_LIMIT, "%s: /sweep: %" G_GINT64_FORMAT " points of a %zu-byte config are over "
                     "the limit of 10^9 point-bytes", c->name, count, c->bytes);
        return false;
    }
    SimDiag *base = NULL;
    if (n < 0 || !is_sweep) {
        SimConfigPoint p;
        sim_config_point(c, false, 0, &p, diag);
    } else
        for (int64_t i = 0; i < count; i++) {
            SimConfigPoint p;
            decode_point(c, true, i, &p, diag, &base);
            if (sim_diag_count(diag) - before >= SIM_CONFIG_MAX_ERRORS) {
                sim_diag_add(diag, SIM_ERR_INPUT, "%s: more errors not listed (stopped after %d)", c->name,
                             SIM_CONFIG_MAX_ERRORS);
                break;
            }
        }
    sim_diag_free(base);
    return sim_diag_count(diag) == before;
}

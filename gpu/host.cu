/* Host helpers of the gpu/ tools: error checks, metadata (written with sim/io's JSON string escaper), dates.
 * Everything here runs on the CPU; only gpu_meta_device and the checks call the CUDA runtime. */
#include "gpu_host.h"
extern "C" {
#include "format.h" /* sim/io: the one JSON string escaper */
}

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void gpu_check(int status, const char *what, const char *file, int line)
{
    if (status == (int)cudaSuccess)
        return;
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString((cudaError_t)status));
    exit(1);
}

void gpu_check_launch(const char *what, const char *file, int line)
{
    gpu_check((int)cudaGetLastError(), what, file, line);
    gpu_check((int)cudaDeviceSynchronize(), what, file, line);
}

static GpuMetaEntry *meta_slot(GpuMeta *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->e[i].key, key) == 0)
            return &m->e[i];
    if (m->n == GPU_META_MAX) {
        fprintf(stderr, "too many metadata entries (at most %d)\n", GPU_META_MAX);
        exit(2);
    }
    GpuMetaEntry *e = &m->e[m->n++];
    snprintf(e->key, sizeof e->key, "%s", key);
    return e;
}

void gpu_meta_str(GpuMeta *m, const char *key, const char *value)
{
    GpuMetaEntry *e = meta_slot(m, key);
    size_t n = strlen(value);
    n = n < sizeof e->value - 1 ? n : sizeof e->value - 1; /* long values are cut, not refused */
    memcpy(e->value, value, n);
    e->value[n] = 0;
    e->is_raw = 0;
}

void gpu_meta_raw(GpuMeta *m, const char *key, const char *fmt, ...)
{
    GpuMetaEntry *e = meta_slot(m, key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->value, sizeof e->value, fmt, ap);
    va_end(ap);
    e->is_raw = 1;
}

static int is_json_number(const char *s)
{
    char *end;
    if (!*s || strchr(s, 'x') || strchr(s, 'X') || strstr(s, "inf") || strstr(s, "nan"))
        return 0;
    strtod(s, &end);
    return *end == 0 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'));
}

int gpu_meta_parse(GpuMeta *m, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof m->e[0].key)
        return 2;
    char key[48];
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = 0;
    const char *v = eq + 1;
    if (is_json_number(v) || !strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "null"))
        gpu_meta_raw(m, key, "%s", v);
    else
        gpu_meta_str(m, key, v);
    return 0;
}

void gpu_meta_merge(GpuMeta *m, const GpuMeta *src)
{
    for (int i = 0; i < src->n; i++) {
        GpuMetaEntry *e = meta_slot(m, src->e[i].key);
        memcpy(e->value, src->e[i].value, sizeof e->value);
        e->is_raw = src->e[i].is_raw;
    }
}

void gpu_meta_write(FILE *f, const GpuMeta *m)
{
    fputc('{', f);
    for (int i = 0; i < m->n; i++) {
        if (i)
            fputc(',', f);
        sim_write_json_string(f, m->e[i].key);
        fputc(':', f);
        if (m->e[i].is_raw)
            fputs(m->e[i].value, f);
        else
            sim_write_json_string(f, m->e[i].value);
    }
    fputc('}', f);
}

void gpu_utc_date(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The few NVML entry points used, declared here so that no NVML header or library is needed to build. */
typedef struct {
    int state; /* 0 not tried, 1 ready, -1 unavailable */
    void *dev; /* nvmlDevice_t */
    int (*clock_info)(void *dev, int type, unsigned *mhz);
    int (*driver_version)(char *buf, unsigned len);
} Nvml;
static Nvml nvml;

static int nvml_ready(void)
{
    if (nvml.state)
        return nvml.state > 0;
    nvml.state = -1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib)
        return 0;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*handle)(unsigned, void **) = (int (*)(unsigned, void **))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    nvml.clock_info = (int (*)(void *, int, unsigned *))dlsym(lib, "nvmlDeviceGetClockInfo");
    nvml.driver_version = (int (*)(char *, unsigned))dlsym(lib, "nvmlSystemGetDriverVersion");
    if (init && handle && nvml.clock_info && nvml.driver_version && init() == 0 && handle(0, &nvml.dev) == 0)
        nvml.state = 1;
    return nvml.state > 0;
}

int gpu_nvml_sm_clock_mhz(void)
{
    unsigned mhz = 0;
    if (!nvml_ready() || nvml.clock_info(nvml.dev, 1 /* NVML_CLOCK_SM */, &mhz) != 0)
        return -1;
    return (int)mhz;
}

void gpu_meta_device(GpuMeta *m, int device)
{
    cudaDeviceProp prop;
    GPU_CHECK(cudaGetDeviceProperties(&prop, device));
    int rt = 0, drv = 0;
    GPU_CHECK(cudaRuntimeGetVersion(&rt));
    GPU_CHECK(cudaDriverGetVersion(&drv));
    gpu_meta_str(m, "gpu_name", prop.name);
    gpu_meta_raw(m, "sm_count", "%d", prop.multiProcessorCount);
    int mhz = gpu_nvml_sm_clock_mhz();
    if (mhz >= 0)
        gpu_meta_raw(m, "sm_clock_mhz_before", "%d", mhz);
    else
        gpu_meta_raw(m, "sm_clock_mhz_before", "null");
    gpu_meta_raw(m, "sm_clock_mhz_after", "null");
    char s[96];
    snprintf(s, sizeof s, "cuda-driver-api-%d.%d", drv / 1000, (drv % 1000) / 10);
    if (nvml_ready())
        nvml.driver_version(s, sizeof s);
    gpu_meta_str(m, "driver", s);
    snprintf(s, sizeof s, "%d.%d", rt / 1000, (rt % 1000) / 10);
    gpu_meta_str(m, "cuda", s);
    char date[32];
    gpu_utc_date(date, sizeof date);
    gpu_meta_str(m, "date", date);
}

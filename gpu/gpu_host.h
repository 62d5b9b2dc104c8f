/* Host helpers shared by gpu-calib and gpu-exec: CUDA error checks, the metadata list that --meta
 * KEY=VALUE flags fill (a later value for a key replaces the earlier one; order of first appearance is
 * kept), UTC dates. Medians and JSON strings are the core's (sim/core/stats.h, sim/io/format.h). */
#ifndef GPU_HOST_H
#define GPU_HOST_H

#include <stdio.h>

/* Exits with status 1 and file:line when a CUDA runtime call fails. */
#define GPU_CHECK(call) gpu_check((call), #call, __FILE__, __LINE__)
void gpu_check(int status, const char *what, const char *file, int line);
/* After a launch: the launch error, then the error of the kernel's execution. */
void gpu_check_launch(const char *what, const char *file, int line);

#define GPU_META_MAX 64
typedef struct {
    char key[48];
    char value[512];
    int is_raw; /* 1: number, true/false/null, written as is; 0: a string, quoted */
} GpuMetaEntry;

typedef struct {
    GpuMetaEntry e[GPU_META_MAX];
    int n;
} GpuMeta;

/* Sets key to a string (quoted in JSON) or to raw JSON text (a number, true, false, null). */
void gpu_meta_str(GpuMeta *m, const char *key, const char *value);
void gpu_meta_raw(GpuMeta *m, const char *key, const char *fmt, ...);
/* "KEY=VALUE" from the command line: numbers and true/false/null stay raw. Returns 0, or 2 if malformed. */
int gpu_meta_parse(GpuMeta *m, const char *arg);
/* Copies every entry of src into m (replacing values of the same keys). */
void gpu_meta_merge(GpuMeta *m, const GpuMeta *src);
/* Writes {"k":v,...} without a newline. */
void gpu_meta_write(FILE *f, const GpuMeta *m);

/* Current UTC time as YYYY-MM-DDTHH:MM:SSZ into buf (>= 21 bytes). */
void gpu_utc_date(char *buf, size_t len);
/* Fills the device facts (gpu_name, sm_count, clocks, driver, cuda, date) into m. */
void gpu_meta_device(GpuMeta *m, int device);
/* Current SM clock of GPU 0 through NVML (loaded with dlopen, so nothing links against it); -1 when NVML
 * is not there. */
int gpu_nvml_sm_clock_mhz(void);

#endif

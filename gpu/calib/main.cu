/* gpu-calib: measures what the simulator's cost model needs on this GPU (docs/gpu.md): (1) the one-way
 * signal latency between every ordered pair of SMs (sm_latency.cu), (2) the cost of adding one dQ tile into
 * global memory and of one mma round of the executor's compute (tile_costs.cu); --profile measures the
 * predictor's raw hardware profile instead, one section per file (compute, staging, reduce_load, handoff,
 * launch, task_loop). Invariant: one CTA per SM (200 KB of dynamic shared memory), matrices by %smid. */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *section;
    int before, after;
    double measured;
} ProfClock;

/* DIR/name: a raw file ("dashsim-calib-profile-raw", version 1) of the metadata, with the clock after,
 * the tool and its method, then the sections in body (freed); path gets the file's path. */
static void write_raw(const Options *o, const GpuMeta *meta, const char *name, const char *tool, const char *method,
                      char *body, size_t body_len, char *path, size_t path_len)
{
    GpuMeta m = *meta;
    if (gpu_nvml_sm_clock_mhz() >= 0)
        gpu_meta_raw(&m, "sm_clock_mhz_after", "%d", gpu_nvml_sm_clock_mhz());
    gpu_meta_str(&m, "method", method);
    gpu_meta_str(&m, "tool", tool);
    FILE *out = calib_open_out(o->out_dir, name, path, path_len);
    fprintf(out, "{\"format\":\"dashsim-calib-profile-raw\",\"version\":1,\n\"metadata\":");
    gpu_meta_write(out, &m);
    fwrite(body, 1, body_len, out);
    fclose(out);
    free(body);
}

/* --profile: the raw measurements of the predictor's hardware profile (docs/gpu.md, "Profile calibration"):
 * compute vs tile and rounds, staging, reduction vs reductions in flight, hand-off under load, CTA launch
 * costs and the SM clock, every section run here; one JSON file, "dashsim-calib-profile-raw", written to
 * DIR/calib-profile-raw.json. No schedule runs. */
static void run_profile(const Options *o, int sm_count, GpuMeta *meta)
{
    char *body = NULL;
    size_t body_len = 0;
    FILE *f = open_memstream(&body, &body_len);
    ProfClock clocks[5] = {{"compute", 0, 0, 0}, {"staging", 0, 0, 0}, {"reduce_inflight", 0, 0, 0},
                           {"handoff_load", 0, 0, 0}, {"launch", 0, 0, 0}};
    for (int s = 0; s < 5; s++) {
        clocks[s].before = gpu_nvml_sm_clock_mhz();
        switch (s) {
        case 0: clocks[s].measured = calib_compute(f, sm_count); break;
        case 1: calib_staging(f, sm_count); break;
        case 2:
            calib_reduce_inflight(f, sm_count, "reduce_inflight", 0);
            calib_reduce_inflight(f, sm_count, "reduce_migratory", 1);
            calib_reduce_staggered(f, sm_count);
            break;
        case 3: calib_handoff(f, sm_count); break;
        default: clocks[s].measured = calib_launch(f, sm_count); break;
        }
        clocks[s].after = gpu_nvml_sm_clock_mhz();
        fflush(stdout);
    }
    /* the executor's own per-task costs, after the sections above (their clocks carry in the sections) */
    calib_task_loop(f, sm_count);
    fflush(stdout);
    calib_handoff_stamped(f, sm_count);
    fflush(stdout);
    fprintf(f, ",\n\"clock\":{\"method\":\"NVML SM clock just before and after each section (-1: NVML missing); "
               "measured: clock64 cycles per globaltimer us, median over CTAs (compute: all SMs, 256 rounds; launch: "
               "5 us CTAs); every row of compute and handoff_load carries its own sm_clock_mhz\",\"units\":\"MHz\","
               "\"sections\":[");
    for (int s = 0; s < 5; s++)
        if (clocks[s].measured > 0)
            fprintf(f, "%s{\"section\":\"%s\",\"nvml_before_mhz\":%d,\"nvml_after_mhz\":%d,\"measured_mhz\":%.0f}",
                    s ? "," : "", clocks[s].section, clocks[s].before, clocks[s].after, clocks[s].measured);
        else
            fprintf(f, "%s{\"section\":\"%s\",\"nvml_before_mhz\":%d,\"nvml_after_mhz\":%d,\"measured_mhz\":null}",
                    s ? "," : "", clocks[s].section, clocks[s].before, clocks[s].after);
    fprintf(f, "]}}\n");
    fclose(f);
    char path[1024];
    write_raw(o, meta, "calib-profile-raw.json", "gpu-calib --profile",
              "raw measurements for the predictor's hardware profile from calibration kernels only (no schedule "
              "traces); each section carries its own method text; all times in ns", body, body_len, path, sizeof path);
    printf("profile: wrote %s\n", path);
}

/* --steady: the reduction under steady, randomly phased load (reduce_steady, binned by reductions in
 * flight, per SM; reduce_steady_compute, the gap spent computing as the executor does), each SM's reduction
 * alone (reduce_per_sm), the reduction alone against the SM clock (reduce_clock) and, for comparison in
 * the same session, the burst curve (reduce_inflight); DIR/calib-steady-raw.json, and one line per kept sample in
 * DIR/steady-samples.tsv. */
static void run_steady(const Options *o, int sm_count, GpuMeta *meta)
{
    char *body = NULL, path[1024], tpath[1024];
    size_t body_len = 0;
    FILE *f = open_memstream(&body, &body_len);
    FILE *tsv = calib_open_out(o->out_dir, "steady-samples.tsv", tpath, sizeof tpath);
    fprintf(tsv, "tile_m\thead_dim\top\tgap_ns\tsmid\tround\tstart_ns\tread_ns\tend_ns\ttime_ns\tinflight_avg"
                 "\tinflight_mid\n");
    const int before = gpu_nvml_sm_clock_mhz();
    calib_reduce_steady(f, sm_count, o->seed, tsv, 0);
    fflush(stdout);
    calib_reduce_steady(f, sm_count, o->seed, tsv, 1);
    fflush(stdout);
    calib_reduce_clock(f, sm_count);
    fflush(stdout);
    calib_reduce_per_sm(f, sm_count);
    fflush(stdout);
    calib_reduce_inflight(f, sm_count, "reduce_inflight", 0);
    fprintf(f, ",\n\"clock\":{\"method\":\"NVML SM clock before and after the sections (-1: NVML missing)\","
               "\"units\":\"MHz\",\"sections\":[{\"section\":\"reduce_steady\",\"nvml_before_mhz\":%d,"
               "\"nvml_after_mhz\":%d,\"measured_mhz\":null}]}}\n", before, gpu_nvml_sm_clock_mhz());
    fclose(f);
    fclose(tsv);
    write_raw(o, meta, "calib-steady-raw.json", "gpu-calib --steady",
              "the dQ-tile reduction under steady, randomly phased load on every SM, each SM's reduction alone, the "
              "reduction against the SM clock and the burst curve of the same session; all times in ns", body,
              body_len, path, sizeof path);
    printf("steady: wrote %s and %s\n", path, tpath);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu-calib [--out-dir DIR] [--round-trips N] [--warmup N] [--skip-latency] [--profile]\n"
               "                 [--steady] [--seed N] [--meta K=V]...\n"
               "Writes DIR/calib-latency.json (SM-to-SM signal latency), DIR/calib-reduce.json (dQ tile reduction\n"
               "and mma compute costs) and DIR/calib-iters.txt (compute iterations for c/r = 1, 3, 8).\n"
               "--profile instead writes DIR/calib-profile-raw.json: compute vs tile and rounds, staging, reduction\n"
               "vs reductions in flight, hand-off under load, CTA launch costs, clocks, the executor's own task loop\n"
               "with every rank free (task_loop) and the hand-off as the executor stamps it (handoff_stamped) (docs/gpu.md).\n"
               "--steady instead writes DIR/calib-steady-raw.json: the reduction under steady, randomly phased load\n"
               "(reduce_steady, seeded by --seed), each SM's reduction alone (reduce_per_sm) and the burst curve, and\n"
               "DIR/steady-samples.tsv, one line per sample (docs/profile.md).\n");
}

int main(int argc, char **argv)
{
    Options o;
    memset(&o, 0, sizeof o);
    o.out_dir = ".";
    o.trips = 16;
    o.warm = 4;
    o.seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(s, "--version")) {
            printf("gpu-calib 1\n");
            return 0;
        } else if (!strcmp(s, "--skip-latency")) {
            o.is_skip_latency = 1;
        } else if (!strcmp(s, "--profile")) {
            o.is_profile = 1;
        } else if (!strcmp(s, "--steady")) {
            o.is_steady = 1;
        } else if (!v) {
            usage(stderr);
            return 2;
        } else if (!strcmp(s, "--out-dir")) {
            o.out_dir = v, i++;
        } else if (!strcmp(s, "--round-trips")) {
            o.trips = atoi(v), i++;
        } else if (!strcmp(s, "--seed")) {
            o.seed = (unsigned)strtoul(v, NULL, 10), i++;
        } else if (!strcmp(s, "--warmup")) {
            o.warm = atoi(v), i++;
        } else if (!strcmp(s, "--meta") && !gpu_meta_parse(&o.meta, v)) {
            i++;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (o.trips < 1 || o.trips > 1024 || o.warm < 0 || o.warm > 1024) {
        fprintf(stderr, "gpu-calib: --round-trips takes 1..1024 and --warmup 0..1024\n");
        return 2;
    }
    GPU_CHECK(cudaSetDevice(0));
    GpuMeta meta;
    memset(&meta, 0, sizeof meta);
    gpu_meta_device(&meta, 0);
    gpu_meta_merge(&meta, &o.meta);
    int sm_count = 0, coop = 0;
    GPU_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    GPU_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    if (o.is_profile || o.is_steady) {
        if (!coop) {
            fprintf(stderr, "gpu-calib: the device cannot launch cooperative kernels\n");
            return 1;
        }
        if (o.is_steady)
            run_steady(&o, sm_count, &meta);
        else
            run_profile(&o, sm_count, &meta);
        return 0;
    }
    if (!o.is_skip_latency) {
        if (!coop) {
            fprintf(stderr, "gpu-calib: the device cannot launch cooperative kernels\n");
            return 1;
        }
        calib_sm_latency(&o, sm_count, &meta);
    }
    calib_tile_costs(&o, sm_count, &meta);
    return 0;
}

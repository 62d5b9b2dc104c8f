/* Hardening of the file layer (issue 15): output batches are all or none (a failed rename restores what
 * was replaced), outputs never replace a device or an input, trace budgets refuse before allocating,
 * derived costs saturate instead of overflowing a cast, and jobs whose times could overflow are refused. */
#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "costmodel.h"
#include "format.h"
#include "job.h"
#include "output.h"
#include "tests.h"
#include "trace_in.h"

static char *tmp_dir(void)
{
    char *dir = g_dir_make_tmp("sim-io-XXXXXX", NULL);
    ck_assert_ptr_nonnull(dir);
    return dir;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

static void write_output(const char *path, const char *text, SimError *err)
{
    SimOutput out;
    ck_assert_int_eq(sim_output_open(&out, path, err), SIM_OK);
    fputs(text, out.f);
    ck_assert_int_eq(sim_output_commit(&out, err), SIM_OK);
}

/* The second rename of a batch fails (its target became a directory): the first target gets its old
 * bytes back, no temporary or backup file is left. */
START_TEST(batch_is_all_or_none)
{
    char *dir = tmp_dir(), *a = g_build_filename(dir, "a.txt", NULL), *b = g_build_filename(dir, "b.txt", NULL);
    g_file_set_contents(a, "old\n", -1, NULL);
    SimError err = { 0 };
    int mark = sim_output_batch_begin();
    write_output(a, "new\n", &err);
    write_output(b, "new\n", &err);
    char *text = slurp(a);
    ck_assert_str_eq(text, "old\n"); /* deferred until the batch ends */
    g_free(text);
    ck_assert_int_eq(g_mkdir(b, 0777), 0);
    ck_assert_int_eq(sim_output_batch_end(mark, SIM_OK, &err), SIM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.msg, "b.txt"));
    text = slurp(a);
    ck_assert_str_eq(text, "old\n");
    g_free(text);
    GDir *d = g_dir_open(dir, 0, NULL);
    int entries = 0;
    while (g_dir_read_name(d))
        entries++;
    g_dir_close(d);
    ck_assert_int_eq(entries, 2); /* a.txt and the directory b.txt */
    g_rmdir(b), g_unlink(a), g_rmdir(dir);
    g_free(a), g_free(b), g_free(dir);
}
END_TEST

START_TEST(batch_error_removes_pending)
{
    char *dir = tmp_dir(), *a = g_build_filename(dir, "a.txt", NULL);
    SimError err = { 0 };
    int mark = sim_output_batch_begin();
    write_output(a, "new\n", &err);
    ck_assert_int_eq(sim_output_batch_end(mark, SIM_ERR_INPUT, &err), SIM_ERR_INPUT);
    ck_assert(!g_file_test(a, G_FILE_TEST_EXISTS));
    ck_assert_int_eq(g_rmdir(dir), 0); /* empty: no temporary file either */
    g_free(a), g_free(dir);
}
END_TEST

START_TEST(device_is_written_in_place)
{
    SimError err = { 0 };
    write_output("/dev/null", "x\n", &err);
    struct stat st;
    ck_assert_int_eq(stat("/dev/null", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

START_TEST(same_file_is_refused)
{
    char *dir = tmp_dir(), *in = g_build_filename(dir, "in.json", NULL), *hard = g_build_filename(dir, "h.json", NULL);
    char *dotted = g_build_filename(dir, ".", "new.csv", NULL), *plain = g_build_filename(dir, "new.csv", NULL);
    g_file_set_contents(in, "{}", -1, NULL);
    ck_assert_int_eq(link(in, hard), 0);
    SimPathRole inputs[] = { { "the config", in } };
    SimPathRole by_inode[] = { { "-o", hard } }, by_name[] = { { "--trace", dotted }, { "--csv", plain } };
    SimPathRole devices[] = { { "--trace", "/dev/null" }, { "--csv", "/dev/null" } };
    SimError err = { 0 };
    ck_assert_int_eq(sim_output_check_paths(inputs, 1, by_inode, 1, &err), SIM_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "refusing to overwrite an input"));
    err = (SimError){ 0 };
    ck_assert_int_eq(sim_output_check_paths(inputs, 1, by_name, 2, &err), SIM_ERR_USAGE);
    ck_assert_ptr_nonnull(strstr(err.msg, "give each output its own path"));
    err = (SimError){ 0 };
    ck_assert_int_eq(sim_output_check_paths(inputs, 1, devices, 2, &err), SIM_OK);
    g_unlink(in), g_unlink(hard), g_rmdir(dir);
    g_free(in), g_free(hard), g_free(dotted), g_free(plain), g_free(dir);
}
END_TEST

/* A reserve far above what is written: the file holds exactly what was written, and the reserved blocks past
 * its end are freed at the close (no more than a few blocks beyond its size stay allocated). */
START_TEST(reserve_is_cut_back_to_what_is_written)
{
    char *dir = tmp_dir(), *a = g_build_filename(dir, "a.txt", NULL);
    SimError err = { 0 };
    SimOutput out;
    ck_assert_int_eq(sim_output_open(&out, a, &err), SIM_OK);
    sim_output_reserve(&out, 64 << 20);
    for (int i = 0; i < 1000; i++)
        fprintf(out.f, "line %d\n", i);
    ck_assert_int_eq(sim_output_commit(&out, &err), SIM_OK);
    struct stat st;
    ck_assert_int_eq(stat(a, &st), 0);
    ck_assert_int_eq(st.st_size, 8890);
    ck_assert_int_le((int64_t)st.st_blocks * 512, 64 << 10);
    char *text = slurp(a);
    ck_assert(g_str_has_prefix(text, "line 0\nline 1\n") && g_str_has_suffix(text, "line 999\n"));
    g_free(text);
    g_unlink(a);
    g_rmdir(dir);
    g_free(a), g_free(dir);
}
END_TEST

/* A writer on an output goes past the stream: after what the stream holds (1183 bytes here), each block
 * ends on a multiple of SIM_WRITER_BYTES in the file, rows of any length are cut across blocks with no byte
 * lost or repeated, and what was reserved is cut back. */
START_TEST(writer_blocks_end_on_aligned_offsets)
{
    char *dir = tmp_dir(), *a = g_build_filename(dir, "a.txt", NULL);
    SimError err = { 0 };
    SimOutput out;
    ck_assert_int_eq(sim_output_open(&out, a, &err), SIM_OK);
    sim_output_reserve(&out, 8 << 20);
    GString *want = g_string_new("");
    for (int i = 0; want->len < 1183; i++)
        g_string_append_printf(want, "head %d\n", i);
    g_string_truncate(want, 1183);
    fputs(want->str, out.f);
    SimWriter w;
    sim_output_writer_init(&w, &out);
    int blocks = 0;
    for (int64_t row = 0; want->len < (size_t)3 * SIM_WRITER_BYTES + 777; row++) {
        size_t len = w.len;
        char *c = sim_writer_room(&w, 600);
        if (w.len < len) { /* a block went out: it ended on a multiple */
            ck_assert_int_eq(sim_output_tell(&out) % SIM_WRITER_BYTES, 0);
            blocks++;
        }
        int n = (int)(row % 577);
        memset(c, 'a' + (int)(row % 26), (size_t)n);
        c[n] = '\n';
        g_string_append_len(want, c, n + 1);
        sim_writer_end(&w, c + n + 1);
    }
    ck_assert_int_eq(blocks, 3);
    ck_assert(sim_writer_done(&w));
    ck_assert_int_eq(sim_output_commit(&out, &err), SIM_OK);
    gchar *text = NULL;
    gsize len = 0;
    ck_assert(g_file_get_contents(a, &text, &len, NULL));
    ck_assert_uint_eq(len, want->len);
    ck_assert(memcmp(text, want->str, len) == 0);
    struct stat st;
    ck_assert_int_eq(stat(a, &st), 0);
    ck_assert_int_le((int64_t)st.st_blocks * 512, (int64_t)want->len + (64 << 10));
    g_free(text), g_string_free(want, TRUE);
    g_unlink(a);
    g_rmdir(dir);
    g_free(a), g_free(dir);
}
END_TEST

START_TEST(trace_budget_refuses_before_reading)
{
    Trace *t = NULL;
    SimError err = { 0 };
    /* the golden tiny trace is 545 bytes: times 32 it is over a 4 KB budget */
    ck_assert_int_eq(sim_trace_load_capped("tests/golden/validate/fa3-tiny.json", 4096, &t, &err), SIM_ERR_LIMIT);
    ck_assert_ptr_null(t);
    err = (SimError){ 0 };
    ck_assert_int_eq(sim_trace_load_capped("tests/golden/validate/fa3-tiny.json", 1 << 20, &t, &err), SIM_OK);
    sim_trace_free(t);
}
END_TEST

START_TEST(derived_costs_saturate)
{
    SimHardware hw;
    ck_assert(sim_cost_preset("h100-sxm", &hw));
    hw.tensor_tflops = 1e-300, hw.l2_bandwidth_gbps = 1e-300;
    SimShape shape = { .batch = 1, .heads = 1, .seqlen_q = 4096, .seqlen_k = 4096, .head_dim = 128 };
    SimCost c;
    sim_cost_derive(&shape, &hw, &c);
    ck_assert_int_eq(c.c_ns, INT64_MAX);
    ck_assert_int_eq(c.r_ns, INT64_MAX);
}
END_TEST

START_TEST(times_that_could_overflow_are_refused)
{
    AttnJob job = sim_job_default();
    job.wl = (Workload){ .n_sm = 1, .heads = 120, .kv_tiles = 200, .q_tiles = 200, .mask = MASK_FULL,
                         .tile_ratio = 1, .head_swizzle = 1 };
    job.costs.c_ns = job.costs.r_ns = 1000000000000LL;
    AttnResult r;
    SimError err = { 0 };
    ck_assert_int_eq(sim_job_run(&job, &r, &err), SIM_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.msg, "2^62"));
    sim_job_result_clear(&r);
    err = (SimError){ 0 };
    job.costs.c_ns = job.costs.r_ns = 1000;
    ck_assert_int_eq(sim_job_check_times(&job, 4800000, &err), SIM_OK);
}
END_TEST

Suite *suite_io(void)
{
    Suite *s = suite_create("io");
    TCase *tc = tcase_create("hardening");
    tcase_add_test(tc, batch_is_all_or_none);
    tcase_add_test(tc, batch_error_removes_pending);
    tcase_add_test(tc, device_is_written_in_place);
    tcase_add_test(tc, same_file_is_refused);
    tcase_add_test(tc, reserve_is_cut_back_to_what_is_written);
    tcase_add_test(tc, writer_blocks_end_on_aligned_offsets);
    tcase_add_test(tc, trace_budget_refuses_before_reading);
    tcase_add_test(tc, derived_costs_saturate);
    tcase_add_test(tc, times_that_could_overflow_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

/* Check suites of dashsim, one per module; test_main.c holds the one table that runs them. */
#ifndef TESTS_H
#define TESTS_H

#include <check.h>

/* A passing assertion records nothing. Check's own ck_assert_msg (which every ck_assert_* expands to) writes its
 * place to a file at each one that passes, so that a test killed by a signal is reported after the last place
 * passed: the suites' millions of assertions in loops made that about half their time (docs/performance.md). A
 * failing assertion is reported as before, file, line and message; a test killed by a signal still fails, reported
 * at its START_TEST line (CK_FORK=no under gdb, or make check-asan's stack, finds the place). */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
    ((expr) ? (void)0 : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

Suite *suite_policies(void);
Suite *suite_engine(void);
Suite *suite_engine_paths(void);
Suite *suite_dag(void);
Suite *suite_closed_forms(void);
Suite *suite_conformance(void);
Suite *suite_decode(void);
Suite *suite_config(void);
Suite *suite_render(void);
Suite *suite_pipeline(void);
Suite *suite_profile(void);
Suite *suite_io(void);
Suite *suite_search(void);
Suite *suite_api(void);
Suite *suite_limits(void);

#endif

/* Runs every Check suite listed in the table and prints "check: N passed, N failed, N skipped" last (each
 * test and each loop-test case counted once; skips are cases a suite could not run, listed above it). */
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"

#include "tests.h"

static Suite *(*const suites[])(void) = {
    suite_policies, suite_engine, suite_engine_paths, suite_dag, suite_closed_forms, suite_conformance,
    suite_decode,
    suite_config,
    suite_render,
    suite_pipeline,
    suite_profile,
    suite_io,
    suite_search,
    suite_api,
    suite_limits,
};

int main(void)
{
    SRunner *runner = srunner_create(NULL);
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(runner, suites[i]());
    srunner_run_all(runner, CK_NORMAL);
    int run = srunner_ntests_run(runner), failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    printf("check: %d passed, %d failed, %d skipped\n", run - failed, failed, tst_skipped());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

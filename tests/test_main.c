/* Runs every Check suite listed in the table; exit status 0 only if all pass. */
#include <stdlib.h>

#include "tests.h"

static Suite *(*const suites[])(void) = {
    suite_policies, suite_engine, suite_dag, suite_closed_forms, suite_conformance,
    suite_decode,
    suite_config,
    suite_render,
    suite_pipeline,
};

int main(void)
{
    SRunner *runner = srunner_create(NULL);
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(runner, suites[i]());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

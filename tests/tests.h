/* Check suites of dashsim, one per module; test_main.c holds the one table that runs them. */
#ifndef TESTS_H
#define TESTS_H

#include <check.h>

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

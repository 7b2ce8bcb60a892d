// SPDX-License-Identifier: BSD-3-Clause
// A bad value from any source is one error naming the parameter, where it was
// set (file:line, environment variable, command line, API), the value and the
// expected form; the parameter keeps the value it had from the other sources.
#include <string>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

const char *const expected_int = "expected an integer between -2147483648 and 2147483647";

int count = 5;

int register_count_only()
{
    count = 5;
    const int index = meridian_mca_base_param_register("ptest", "bad", "count", "a count",
                                                       MCA_BASE_PARAM_TYPE_INT, nullptr, 1,
                                                       MCA_BASE_PARAM_FLAG_NONE, &count);
    ck_assert_int_ge(index, 0);
    return index;
}

// Registered and looked up, as a program does: the lookup completes the
// registration, so a bad value has been told by then.
int register_count()
{
    const int index = register_count_only();
    ck_assert_int_eq(meridian_mca_base_param_find("ptest_bad_count"), index);
    return index;
}

// A good value in a file, under the source being tested.
std::string good_file()
{
    return write_file("good.conf", "# below the bad one\nptest_bad_count = 7\n");
}

} // namespace

START_TEST(bad_value_in_a_file)
{
    const std::string good = good_file();
    const std::string bad =
        write_file("bad.conf", "ptest_other_thing = 1\nptest_bad_count = seven\n");
    set_param_env("mca_base_param_files", good + ":" + bad);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    register_count();
    ck_assert_messages(
        ERROR_MSG("bad value \"seven\" for MCA parameter ptest_bad_count from file " + bad +
                  ":2: " + expected_int));
    ck_assert_int_eq(count, 7);
    ck_assert_text_eq(source_of("ptest_bad_count"), "file (" + good + ":2)");
}
END_TEST

START_TEST(bad_value_in_a_tune_file)
{
    const std::string good = good_file();
    set_param_env("mca_base_param_files", good);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_count();
    const std::string tune = write_file("tune.conf", "ptest_bad_count = 0x\n");
    const CommandLine cl = apply_command_line({"prog", "--tune", tune});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert_messages(
        ERROR_MSG("bad value \"0x\" for MCA parameter ptest_bad_count from tune file " + tune +
                  ":1: " + expected_int));
    ck_assert_int_eq(count, 7);
    ck_assert_text_eq(source_of("ptest_bad_count"), "file (" + good + ":2)");
}
END_TEST

START_TEST(bad_value_in_the_environment)
{
    const std::string good = good_file();
    set_param_env("mca_base_param_files", good);
    set_param_env("ptest_bad_count", "abc");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_count();
    ck_assert_messages(ERROR_MSG("bad value \"abc\" for MCA parameter ptest_bad_count from "
                                 "environment variable " +
                                 env_name("ptest_bad_count") + ": " + expected_int));
    ck_assert_int_eq(count, 7);
    ck_assert_text_eq(source_of("ptest_bad_count"), "file (" + good + ":2)");
}
END_TEST

START_TEST(bad_value_on_the_command_line)
{
    set_param_env("ptest_bad_count", "9");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_count();
    ck_assert_int_eq(count, 9);
    const CommandLine cl = apply_command_line({"prog", "--mca", "ptest_bad_count", "1.5", "run"});
    // The option is well formed; only its value is wrong for this parameter.
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (std::vector<std::string>{"prog", "run"}));
    ck_assert_messages(ERROR_MSG("bad value \"1.5\" for MCA parameter ptest_bad_count from the "
                                 "command line: " +
                                 std::string(expected_int)));
    ck_assert_int_eq(count, 9);
    ck_assert_text_eq(source_of("ptest_bad_count"), "environment");
}
END_TEST

START_TEST(bad_value_in_the_override_file)
{
    const std::string override_file = write_file("override.conf", "ptest_bad_count = 12 apples\n");
    set_param_env("mca_base_override_param_file", override_file);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const int index = register_count();
    ck_assert_messages(ERROR_MSG("bad value \"12 apples\" for MCA parameter ptest_bad_count from "
                                 "override file " +
                                 override_file + ":1: " + expected_int));
    ck_assert_int_eq(count, 5);
    ck_assert_text_eq(source_of("ptest_bad_count"), "default");
    // The bad override does not hide the sources below it.
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "6"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(count, 6);
    ck_assert_text_eq(source_of("ptest_bad_count"), "api");
    ck_assert_no_messages();
}
END_TEST

START_TEST(bad_value_from_the_api)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const int index = register_count();
    ck_assert_int_eq(apply_command_line({"prog", "--mca", "ptest_bad_count", "8"}).status,
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "eight"), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("bad value \"eight\" for MCA parameter ptest_bad_count from the "
                                 "API: " +
                                 std::string(expected_int) + "; it keeps \"8\""));
    ck_assert_int_eq(count, 8);
    ck_assert_text_eq(source_of("ptest_bad_count"), "command line");
}
END_TEST

// A bad setting set after registration is reported when it arrives, and only
// once however often the parameter is resolved again.
START_TEST(bad_value_reported_once)
{
    set_param_env("ptest_bad_count", "abc");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const int index = register_count();
    ck_assert_int_eq(messages().size(), 1);
    clear_messages();
    ck_assert_int_eq(apply_command_line({"prog", "--mca", "ptest_bad_count", "3"}).status,
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "4"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(index, 0, 10), MERIDIAN_SUCCESS);
    ck_assert_int_eq(count, 4);
    ck_assert_no_messages();
}
END_TEST

// Bounds are set in the call after the registration; a bad value set before
// is told once, naming the parameter's range rather than its type's.
START_TEST(bad_value_names_the_parameters_bounds)
{
    set_param_env("ptest_bad_count", "99999999999999999999");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const int index = register_count_only();
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(index, 0, 100), MERIDIAN_SUCCESS);
    ck_assert_messages(ERROR_MSG("bad value \"99999999999999999999\" for MCA parameter "
                                 "ptest_bad_count from environment variable " +
                                 env_name("ptest_bad_count") +
                                 ": expected an integer between 0 and 100"));
    ck_assert_int_eq(count, 5);
    ck_assert_text_eq(source_of("ptest_bad_count"), "default");
    // Not told again by later calls.
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_param_find("ptest_bad_count"), index);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(index, 0, 50), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

// A synonym added after the registration still holds the message back; the
// registration of the next parameter completes it.
START_TEST(bad_value_told_when_the_next_parameter_registers)
{
    set_param_env("ptest_bad_count", "ten");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const int index = register_count_only();
    ck_assert_int_eq(meridian_mca_base_param_register_synonym(index, "ptest", "bad", "number",
                                                              MCA_BASE_PARAM_FLAG_NONE),
                     MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    int other = 1;
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "bad", "other", "another",
                                                      MCA_BASE_PARAM_TYPE_INT, nullptr, 1,
                                                      MCA_BASE_PARAM_FLAG_NONE, &other),
                     0);
    ck_assert_messages(ERROR_MSG("bad value \"ten\" for MCA parameter ptest_bad_count from "
                                 "environment variable " +
                                 env_name("ptest_bad_count") + ": " + expected_int));
    ck_assert_int_eq(count, 5);
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_bad_value_sources");
    TCase *sources = make_tcase("sources");
    tcase_add_test(sources, bad_value_in_a_file);
    tcase_add_test(sources, bad_value_in_a_tune_file);
    tcase_add_test(sources, bad_value_in_the_environment);
    tcase_add_test(sources, bad_value_on_the_command_line);
    tcase_add_test(sources, bad_value_in_the_override_file);
    tcase_add_test(sources, bad_value_from_the_api);
    tcase_add_test(sources, bad_value_reported_once);
    tcase_add_test(sources, bad_value_names_the_parameters_bounds);
    tcase_add_test(sources, bad_value_told_when_the_next_parameter_registers);
    suite_add_tcase(suite, sources);
    return run_suite(suite);
}

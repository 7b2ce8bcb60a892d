// SPDX-License-Identifier: BSD-3-Clause
// The environment: <prefix><name>=<value> sets a parameter (prefix from
// meridian_mca_base_env_prefix(), never spelled out here); a variable with the prefix
// and no usable name is reported.
#include <cstdlib>
#include <string>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

int number = 1;
const char *text = nullptr;

void register_params()
{
    number = 1;
    text = nullptr;
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "env", "n", "a number",
                                                      MCA_BASE_PARAM_TYPE_INT, nullptr, 1, 0,
                                                      &number),
                     0);
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "env", "s", "a string",
                                                      MCA_BASE_PARAM_TYPE_STRING, nullptr, 1, 0,
                                                      &text),
                     0);
}

} // namespace

START_TEST(values_apply)
{
    set_param_env("ptest_env_n", "0x20");
    set_param_env("ptest_env_s", "hello world");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 32);
    ck_assert_str_eq(text, "hello world");
    ck_assert_text_eq(source_of("ptest_env_n"), "environment");
    ck_assert_text_eq(source_of("ptest_env_s"), "environment");
    ck_assert_no_messages();
}
END_TEST

// Registered first, set later: the environment read by meridian_mca_base_open applies.
START_TEST(values_apply_to_earlier_registrations)
{
    register_params();
    set_param_env("ptest_env_n", "-4");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(number, -4);
    ck_assert_text_eq(source_of("ptest_env_n"), "environment");
}
END_TEST

// The name after the prefix is case-sensitive, like every parameter name.
START_TEST(names_are_exact)
{
    set_param_env("PTEST_ENV_N", "9");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 1);
    ck_assert_text_eq(source_of("ptest_env_n"), "default");
}
END_TEST

START_TEST(prefix_alone_is_reported)
{
    setenv(meridian_mca_base_env_prefix(), "3", 1);
    set_param_env("ptest_env_n", "5");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_ERR_BAD_PARAM);
    const std::string prefix = meridian_mca_base_env_prefix();
    ck_assert_messages(ERROR_MSG("environment variable " + prefix +
                                 " does not name an MCA parameter "
                                 "(expected " +
                                 prefix + "<name> with letters, digits and '_')"));
    // The other variables still apply.
    register_params();
    ck_assert_int_eq(number, 5);
}
END_TEST

START_TEST(bad_name_is_reported)
{
    set_param_env("ptest-env.n", "3");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_ERR_BAD_PARAM);
    const std::string prefix = meridian_mca_base_env_prefix();
    ck_assert_messages(ERROR_MSG("environment variable " + prefix +
                                 "ptest-env.n does not name an MCA parameter (expected " + prefix +
                                 "<name> with letters, digits and '_')"));
    register_params();
    ck_assert_int_eq(number, 1);
}
END_TEST

// Blanks inside the value are the user's: a string keeps them.
START_TEST(string_values_are_taken_as_given)
{
    set_param_env("ptest_env_s", " padded ");
    set_param_env("ptest_env_n", " 12 ");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_str_eq(text, " padded ");
    ck_assert_int_eq(number, 12);
    ck_assert_no_messages();
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_environment");
    TCase *tcase = make_tcase("environment");
    tcase_add_test(tcase, values_apply);
    tcase_add_test(tcase, values_apply_to_earlier_registrations);
    tcase_add_test(tcase, names_are_exact);
    tcase_add_test(tcase, prefix_alone_is_reported);
    tcase_add_test(tcase, bad_name_is_reported);
    tcase_add_test(tcase, string_values_are_taken_as_given);
    suite_add_tcase(suite, tcase);
    return run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// Unknown names: a setting that no registered parameter has is reported by
// meridian_mca_base_check_params() with its source and the closest registered name; a
// warning, or an error under mca_base_strict_params=1.  Names under a
// framework Meridian declares but that is not registered yet are not judged.
#include <string>

#include "test/params/param_test_support.hpp"
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

int value = 0;

void register_value()
{
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "unk", "value", "a value",
                                                      MCA_BASE_PARAM_TYPE_INT, nullptr, 1, 0,
                                                      &value),
                     0);
}

std::string unknown(const std::string &name, const std::string &where,
                    const std::string &suggestion)
{
    std::string text =
        "MCA parameter \"" + name + "\" (set in " + where + ") is not registered by any component";
    if (!suggestion.empty()) {
        text += "; did you mean " + suggestion + "?";
    }
    return text;
}

} // namespace

START_TEST(misspelling_gets_a_suggestion)
{
    set_param_env("ptest_unk_valeu", "1");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_value();
    // Nothing is said until the caller asks: components may still register.
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG(unknown("ptest_unk_valeu",
                                           "environment variable " + env_name("ptest_unk_valeu"),
                                           "ptest_unk_value")));
    ck_assert_int_eq(value, 0);
}
END_TEST

// Upper case in the environment (as other variables are written) is the
// usual slip, too far from the name for an edit-distance guess.
START_TEST(upper_case_gets_the_lower_case_name)
{
    set_param_env("PTEST_UNK_VALUE", "1");
    set_param_env("Ptest_Unk_Valeu", "2");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_value();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG(unknown("PTEST_UNK_VALUE",
                                           "environment variable " + env_name("PTEST_UNK_VALUE"),
                                           "ptest_unk_value") +
                                   " (parameter names are lower case)"),
                       WARNING_MSG(unknown("Ptest_Unk_Valeu",
                                           "environment variable " + env_name("Ptest_Unk_Valeu"),
                                           "ptest_unk_value") +
                                   " (parameter names are lower case)"));
    ck_assert_int_eq(value, 0);
}
END_TEST

START_TEST(every_source_is_named)
{
    const std::string file = write_file("params.conf", "# one\nptest_unk_valu1 = 1\n");
    const std::string override_file = write_file("override.conf", "ptest_unk_valu5 = 5\n");
    const std::string tune = write_file("tune.conf", "ptest_unk_valu4 = 4\n");
    set_param_env("mca_base_param_files", file);
    set_param_env("mca_base_override_param_file", override_file);
    set_param_env("ptest_unk_valu2", "2");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(
        apply_command_line({"prog", "--mca", "ptest_unk_valu3", "3", "--tune", tune}).status,
        MERIDIAN_SUCCESS);
    register_value();
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(
        WARNING_MSG(unknown("ptest_unk_valu1", "file " + file + ":2", "ptest_unk_value")),
        WARNING_MSG(unknown("ptest_unk_valu2",
                            "environment variable " + env_name("ptest_unk_valu2"),
                            "ptest_unk_value")),
        WARNING_MSG(unknown("ptest_unk_valu3", "the command line", "ptest_unk_value")),
        WARNING_MSG(unknown("ptest_unk_valu4", "tune file " + tune + ":1", "ptest_unk_value")),
        WARNING_MSG(unknown("ptest_unk_valu5", "override file " + override_file + ":1",
                            "ptest_unk_value")));
}
END_TEST

START_TEST(nothing_close_gets_no_suggestion)
{
    set_param_env("zzqq_nothing_like_it", "1");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_value();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG(unknown(
        "zzqq_nothing_like_it", "environment variable " + env_name("zzqq_nothing_like_it"), "")));
}
END_TEST

START_TEST(registered_names_are_not_reported)
{
    set_param_env("ptest_unk_value", "3");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_value();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    ck_assert_int_eq(value, 3);
}
END_TEST

START_TEST(strict_makes_it_an_error)
{
    set_param_env("mca_base_strict_params", "1");
    set_param_env("ptest_unk_valeu", "1");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_value();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG(unknown("ptest_unk_valeu", "environment variable " + env_name("ptest_unk_valeu"),
                          "ptest_unk_value")));
}
END_TEST

START_TEST(strict_from_the_command_line)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(apply_command_line({"prog", "--mca", "mca_base_strict_params", "yes", "--mca",
                                         "ptest_unk_valeu", "1"})
                         .status,
                     MERIDIAN_SUCCESS);
    register_value();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG(unknown("ptest_unk_valeu", "the command line", "ptest_unk_value")));
}
END_TEST

START_TEST(strict_with_nothing_unknown_succeeds)
{
    set_param_env("mca_base_strict_params", "1");
    set_param_env("ptest_unk_value", "1");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_value();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

// Once pnet is declared (meridian_init declares the built-in frameworks),
// until it is registered its components' parameter names cannot be judged;
// once it is, they are.  Before the declaration the base knows no pnet.
START_TEST(declared_framework_not_registered_is_not_judged)
{
    set_param_env("pnet_base_verbos", "5");
    set_param_env("pnet_somecomponent_knob", "1");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(
        WARNING_MSG(unknown("pnet_base_verbos",
                            "environment variable " + env_name("pnet_base_verbos"), "")),
        WARNING_MSG(unknown("pnet_somecomponent_knob",
                            "environment variable " + env_name("pnet_somecomponent_knob"), "")));

    ck_assert_int_eq(meridian_mca_base_framework_declare(&meridian_pnet_base_framework),
                     MERIDIAN_SUCCESS);
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();

    ck_assert_int_eq(meridian_mca_base_framework_register(&meridian_pnet_base_framework),
                     MERIDIAN_SUCCESS);
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(
        WARNING_MSG(unknown("pnet_base_verbos",
                            "environment variable " + env_name("pnet_base_verbos"),
                            "pnet_base_verbose")),
        WARNING_MSG(unknown("pnet_somecomponent_knob",
                            "environment variable " + env_name("pnet_somecomponent_knob"), "")));
}
END_TEST

// A name that only looks like a framework's (no "_" after it) is judged.
START_TEST(framework_prefix_needs_the_separator)
{
    set_param_env("pnetx_value", "5");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_messages(
        WARNING_MSG(unknown("pnetx_value", "environment variable " + env_name("pnetx_value"), "")));
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_unknown_names");
    TCase *tcase = make_tcase("unknown_names");
    tcase_add_test(tcase, misspelling_gets_a_suggestion);
    tcase_add_test(tcase, upper_case_gets_the_lower_case_name);
    tcase_add_test(tcase, every_source_is_named);
    tcase_add_test(tcase, nothing_close_gets_no_suggestion);
    tcase_add_test(tcase, registered_names_are_not_reported);
    tcase_add_test(tcase, strict_makes_it_an_error);
    tcase_add_test(tcase, strict_from_the_command_line);
    tcase_add_test(tcase, strict_with_nothing_unknown_succeeds);
    tcase_add_test(tcase, declared_framework_not_registered_is_not_judged);
    tcase_add_test(tcase, framework_prefix_needs_the_separator);
    suite_add_tcase(suite, tcase);
    return run_suite(suite);
}

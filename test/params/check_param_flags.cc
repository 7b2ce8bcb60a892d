// SPDX-License-Identifier: BSD-3-Clause
// Parameter flags and definitions: read-only while the framework is open,
// deprecated synonyms and parameters, one type per name.
#include <string>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

// A framework of the test's own whose register_params hook registers a
// parameter that is fixed while the framework is open.
int knob = 3;
int knob_index = -1;

int register_readonly(mca_base_framework_t *framework)
{
    knob = 3;
    knob_index = meridian_mca_base_param_register(
        framework->name, "base", "knob", "fixed once open", MCA_BASE_PARAM_TYPE_INT, nullptr, 3,
        MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &knob);
    return knob_index < 0 ? knob_index : MERIDIAN_SUCCESS;
}

mca_base_framework_t readonly_framework = {
    .name = "ptestro",
    .description = "test framework with a read-only parameter",
    .version = {1, 0, 0},
    .flags = MCA_BASE_FRAMEWORK_FLAG_NONE,
    .register_params = register_readonly,
    .open = nullptr,
    .close = nullptr,
    .static_components = nullptr,
    .verbose = 0,
    .internal = nullptr,
};

const std::string frozen_message =
    "MCA parameter ptestro_base_knob cannot change while framework ptestro is open";

int register_int(const char *name, int flags, int *storage)
{
    const int index = meridian_mca_base_param_register(
        "ptest", "flags", name, "a number", MCA_BASE_PARAM_TYPE_INT, nullptr, 1, flags, storage);
    ck_assert_int_ge(index, 0);
    return index;
}

} // namespace

START_TEST(readonly_after_open)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register(&readonly_framework), MERIDIAN_SUCCESS);
    ck_assert_int_ge(knob_index, 0);
    // Before open it changes like any other.
    ck_assert_int_eq(meridian_mca_base_param_set_value(knob_index, "4"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(knob, 4);

    ck_assert_int_eq(meridian_mca_base_framework_open(&readonly_framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_set_value(knob_index, "5"), MERIDIAN_ERR_READ_ONLY);
    ck_assert_messages(ERROR_MSG(frozen_message));
    ck_assert_int_eq(knob, 4);
    ck_assert_text_eq(value_of("ptestro_base_knob"), "4");
    ck_assert_text_eq(source_of("ptestro_base_knob"), "api");

    // A second open keeps it fixed; only the last close releases it.
    ck_assert_int_eq(meridian_mca_base_framework_open(&readonly_framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_close(&readonly_framework), MERIDIAN_SUCCESS);
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_param_set_value(knob_index, "5"), MERIDIAN_ERR_READ_ONLY);
    ck_assert_messages(ERROR_MSG(frozen_message));
    ck_assert_int_eq(meridian_mca_base_framework_close(&readonly_framework), MERIDIAN_SUCCESS);

    clear_messages();
    ck_assert_int_eq(meridian_mca_base_param_set_value(knob_index, "6"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(knob, 6);
    ck_assert_no_messages();
}
END_TEST

// A bad value is still a bad value while frozen: the form is judged first.
START_TEST(readonly_bad_value_says_why)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_open(&readonly_framework), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_set_value(knob_index, "lots"), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("bad value \"lots\" for MCA parameter ptestro_base_knob from the "
                                 "API: expected an integer between -2147483648 and 2147483647; it "
                                 "keeps \"3\""));
    ck_assert_int_eq(meridian_mca_base_framework_close(&readonly_framework), MERIDIAN_SUCCESS);
}
END_TEST

// Other sources that arrive while the framework is open are refused too.
START_TEST(readonly_refuses_the_command_line)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_open(&readonly_framework), MERIDIAN_SUCCESS);
    const CommandLine cl = apply_command_line({"prog", "--mca", "ptestro_base_knob", "9"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert_messages(ERROR_MSG(frozen_message + "; the value from the command line is ignored"));
    ck_assert_int_eq(knob, 3);
    ck_assert_text_eq(source_of("ptestro_base_knob"), "default");
    ck_assert_int_eq(meridian_mca_base_framework_close(&readonly_framework), MERIDIAN_SUCCESS);
}
END_TEST

START_TEST(deprecated_synonym_warns_and_applies)
{
    set_param_env("ptest_flags_old", "7");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    int number = 1;
    const int index = register_int("new", MCA_BASE_PARAM_FLAG_NONE, &number);
    ck_assert_int_eq(meridian_mca_base_param_register_synonym(index, "ptest", "flags", "old",
                                                              MCA_BASE_PARAM_FLAG_DEPRECATED),
                     MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG("MCA parameter ptest_flags_old (set in environment variable " +
                                   env_name("ptest_flags_old") +
                                   ") is deprecated; use ptest_flags_new instead"));
    ck_assert_int_eq(number, 7);
    ck_assert_text_eq(source_of("ptest_flags_new"), "environment");
    // The synonym is a known name, and the warning is not repeated.
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(index, 0, 10), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    ck_assert_int_eq(number, 7);
}
END_TEST

START_TEST(deprecated_synonym_in_a_file)
{
    const std::string file = write_file("old.conf", "\nptest_flags_old = 8\n");
    set_param_env("mca_base_param_files", file);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    int number = 1;
    const int index = register_int("new", MCA_BASE_PARAM_FLAG_NONE, &number);
    ck_assert_int_eq(meridian_mca_base_param_register_synonym(index, "ptest", "flags", "old",
                                                              MCA_BASE_PARAM_FLAG_DEPRECATED),
                     MERIDIAN_SUCCESS);
    ck_assert_messages(WARNING_MSG("MCA parameter ptest_flags_old (set in file " + file +
                                   ":2) is deprecated; use ptest_flags_new instead"));
    ck_assert_int_eq(number, 8);
    ck_assert_text_eq(source_of("ptest_flags_new"), "file (" + file + ":2)");
}
END_TEST

START_TEST(plain_synonym_is_silent)
{
    set_param_env("ptest_flags_alias", "2");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    int number = 1;
    const int index = register_int("new", MCA_BASE_PARAM_FLAG_NONE, &number);
    ck_assert_int_eq(meridian_mca_base_param_register_synonym(index, "ptest", "flags", "alias", 0),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(number, 2);
    ck_assert_int_eq(meridian_mca_base_check_params(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

// The proper name and the synonym are one parameter: a higher source under
// either name wins, and the deprecation is told only for the synonym's use.
START_TEST(synonym_and_name_by_precedence)
{
    set_param_env("ptest_flags_old", "7");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    int number = 1;
    const int index = register_int("new", MCA_BASE_PARAM_FLAG_NONE, &number);
    ck_assert_int_eq(meridian_mca_base_param_register_synonym(index, "ptest", "flags", "old",
                                                              MCA_BASE_PARAM_FLAG_DEPRECATED),
                     MERIDIAN_SUCCESS);
    clear_messages();
    ck_assert_int_eq(apply_command_line({"prog", "--mca", "ptest_flags_new", "9"}).status,
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(number, 9);
    ck_assert_text_eq(source_of("ptest_flags_new"), "command line");
    ck_assert_no_messages();
}
END_TEST

START_TEST(synonym_cannot_take_another_name)
{
    int a = 1;
    int b = 2;
    const int index_a = register_int("a", 0, &a);
    register_int("b", 0, &b);
    ck_assert_int_eq(meridian_mca_base_param_register_synonym(index_a, "ptest", "flags", "b", 0),
                     MERIDIAN_ERR_EXISTS);
}
END_TEST

START_TEST(deprecated_param_warns)
{
    set_param_env("ptest_flags_dep", "4");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    int number = 1;
    const int index = register_int("dep", MCA_BASE_PARAM_FLAG_DEPRECATED, &number);
    ck_assert_messages(WARNING_MSG("MCA parameter ptest_flags_dep (set in environment variable " +
                                   env_name("ptest_flags_dep") + ") is deprecated"));
    ck_assert_int_eq(number, 4);
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(index, 0, 10), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

// Unset, a deprecated parameter says nothing.
START_TEST(deprecated_param_unset_is_silent)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    int number = 1;
    register_int("dep", MCA_BASE_PARAM_FLAG_DEPRECATED, &number);
    ck_assert_no_messages();
}
END_TEST

START_TEST(same_name_other_type_refused)
{
    int number = 1;
    const int index = register_int("x", 0, &number);
    const char *text = nullptr;
    ck_assert_int_eq(meridian_mca_base_param_register("ptest", "flags", "x", "now a string",
                                                      MCA_BASE_PARAM_TYPE_STRING, nullptr, 1, 0,
                                                      &text),
                     MERIDIAN_ERR_EXISTS);
    ck_assert_messages(
        ERROR_MSG("MCA parameter \"ptest_flags_x\" is already registered as int, not "
                  "as string"));
    // The first registration is untouched.
    ck_assert_int_eq(meridian_mca_base_param_find("ptest_flags_x"), index);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "12"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(number, 12);
    ck_assert_ptr_null(text);
}
END_TEST

// Same name and type again: the same parameter, bound to the new storage,
// with the value it had.
START_TEST(same_name_same_type_rebinds)
{
    int first = 1;
    const int index = register_int("x", 0, &first);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "12"), MERIDIAN_SUCCESS);
    int second = 1;
    ck_assert_int_eq(register_int("x", 0, &second), index);
    ck_assert_int_eq(second, 12);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "13"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(second, 13);
    ck_assert_int_eq(first, 12);
    ck_assert_no_messages();
}
END_TEST

START_TEST(invalid_definitions_refused)
{
    int number = 0;
    ck_assert_int_eq(meridian_mca_base_param_register("ptest", "flags", "bad-name", "h",
                                                      MCA_BASE_PARAM_TYPE_INT, nullptr, 1, 0,
                                                      &number),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_base_param_register("ptest", "flags", "lvl", "h",
                                                      MCA_BASE_PARAM_TYPE_INT, nullptr, 10, 0,
                                                      &number),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_base_param_register("ptest", "flags", "e", "h",
                                                      MCA_BASE_PARAM_TYPE_ENUM, nullptr, 1, 0,
                                                      &number),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG(
            "cannot register MCA parameter \"ptest_flags_bad-name\": names are made of letters, "
            "digits and '_', and need a framework"),
        ERROR_MSG(
            "cannot register MCA parameter \"ptest_flags_lvl\": info level 10 is not between 1 "
            "and 9"),
        ERROR_MSG("cannot register MCA parameter \"ptest_flags_e\": an enum parameter needs named "
                  "values"));
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_flags");
    TCase *readonly = make_tcase("readonly_after_open");
    tcase_add_test(readonly, readonly_after_open);
    tcase_add_test(readonly, readonly_bad_value_says_why);
    tcase_add_test(readonly, readonly_refuses_the_command_line);
    suite_add_tcase(suite, readonly);

    TCase *deprecated = make_tcase("deprecated");
    tcase_add_test(deprecated, deprecated_synonym_warns_and_applies);
    tcase_add_test(deprecated, deprecated_synonym_in_a_file);
    tcase_add_test(deprecated, plain_synonym_is_silent);
    tcase_add_test(deprecated, synonym_and_name_by_precedence);
    tcase_add_test(deprecated, synonym_cannot_take_another_name);
    tcase_add_test(deprecated, deprecated_param_warns);
    tcase_add_test(deprecated, deprecated_param_unset_is_silent);
    suite_add_tcase(suite, deprecated);

    TCase *definitions = make_tcase("definitions");
    tcase_add_test(definitions, same_name_other_type_refused);
    tcase_add_test(definitions, same_name_same_type_rebinds);
    tcase_add_test(definitions, invalid_definitions_refused);
    suite_add_tcase(suite, definitions);
    return run_suite(suite);
}

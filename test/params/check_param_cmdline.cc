// SPDX-License-Identifier: BSD-3-Clause
// The command line: --mca NAME VALUE (repeatable, also -mca), --tune FILE[,FILE]
// and --tune=FILE are taken out of argv and applied; the program's own
// arguments stay, in order.  On any error nothing is applied and argv is
// left exactly as it was.
#include <string>
#include <vector>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

using Args = std::vector<std::string>;

int number = 0;
const char *text = nullptr;

void open_and_register()
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    number = 0;
    text = nullptr;
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "cl", "n", "a number",
                                                      MCA_BASE_PARAM_TYPE_INT, nullptr, 1, 0,
                                                      &number),
                     0);
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "cl", "s", "a string",
                                                      MCA_BASE_PARAM_TYPE_STRING, nullptr, 1, 0,
                                                      &text),
                     0);
}

// The call fails with `error`, argv is untouched and no value moved.
void expect_refused(const Args &args, const std::string &error, int status = MERIDIAN_ERR_BAD_PARAM)
{
    const CommandLine cl = apply_command_line(args);
    ck_assert_int_eq(cl.status, status);
    ck_assert(cl.left == args);
    ck_assert_messages(ERROR_MSG(error));
    ck_assert_int_eq(number, 0);
    ck_assert_ptr_null(text);
    ck_assert_text_eq(source_of("ptest_cl_n"), "default");
    ck_assert_text_eq(source_of("ptest_cl_s"), "default");
}

} // namespace

START_TEST(mca_options_are_applied_and_removed)
{
    open_and_register();
    const CommandLine cl = apply_command_line({"prog", "in.dat", "--mca", "ptest_cl_n", "7", "-v",
                                               "-mca", "ptest_cl_s", "hi there", "out.dat"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (Args{"prog", "in.dat", "-v", "out.dat"}));
    ck_assert_int_eq(number, 7);
    ck_assert_str_eq(text, "hi there");
    ck_assert_text_eq(source_of("ptest_cl_n"), "command line");
    ck_assert_text_eq(source_of("ptest_cl_s"), "command line");
    ck_assert_no_messages();
}
END_TEST

// Settings made before the parameter exists apply when it is registered.
START_TEST(options_before_registration)
{
    const CommandLine cl = apply_command_line({"prog", "--mca", "ptest_cl_n", "3"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (Args{"prog"}));
    open_and_register();
    ck_assert_int_eq(number, 3);
    ck_assert_text_eq(source_of("ptest_cl_n"), "command line");
}
END_TEST

START_TEST(tune_files)
{
    open_and_register();
    const std::string a = write_file("a.conf", "ptest_cl_n = 1\nptest_cl_s = from-a\n");
    const std::string b = write_file("b.conf", "ptest_cl_n = 2\n");
    const CommandLine cl = apply_command_line({"prog", "--tune", a + "," + b, "x"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (Args{"prog", "x"}));
    ck_assert_int_eq(number, 2);
    ck_assert_str_eq(text, "from-a");
    ck_assert_text_eq(source_of("ptest_cl_n"), "file (" + b + ":1)");
    ck_assert_text_eq(source_of("ptest_cl_s"), "file (" + a + ":2)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(tune_with_equals)
{
    open_and_register();
    const std::string a = write_file("a.conf", "ptest_cl_s = tuned\n");
    const CommandLine cl = apply_command_line({"prog", "--tune=" + a, "y"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (Args{"prog", "y"}));
    ck_assert_str_eq(text, "tuned");
    ck_assert_text_eq(source_of("ptest_cl_s"), "file (" + a + ":1)");
}
END_TEST

// Option names taken as values, and everything after "--" (which stays, so
// the program's own parser sees it too) belongs to the program.
START_TEST(program_arguments_keep_their_order)
{
    open_and_register();
    const CommandLine cl =
        apply_command_line({"prog", "-n", "4", "--mca", "ptest_cl_s", "--tune", "--verbose", "--",
                            "--mca", "ptest_cl_n", "9", "--tune", "f", "last"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (Args{"prog", "-n", "4", "--verbose", "--", "--mca", "ptest_cl_n", "9",
                               "--tune", "f", "last"}));
    ck_assert_str_eq(text, "--tune");
    ck_assert_int_eq(number, 0);
    ck_assert_no_messages();
}
END_TEST

// Words that only look like Meridian's options (no dashes, a prefix, a
// longer name) are the program's.
START_TEST(program_words_like_option_names)
{
    open_and_register();
    const Args args = {"prog", "mca",     "base",   "tune", "x.conf", "m",   "--mc",
                       "1",    "--tunex", "--mcaa", "a",    "b",      "-tun"};
    const CommandLine cl = apply_command_line(args);
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == args);
    ck_assert_int_eq(number, 0);
    ck_assert_ptr_null(text);
    ck_assert_no_messages();
}
END_TEST

START_TEST(value_may_name_an_option)
{
    open_and_register();
    const CommandLine cl =
        apply_command_line({"prog", "--mca", "ptest_cl_s", "--mca", "--mca", "ptest_cl_n", "5"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (Args{"prog"}));
    ck_assert_str_eq(text, "--mca");
    ck_assert_int_eq(number, 5);
}
END_TEST

START_TEST(nothing_to_take)
{
    open_and_register();
    const CommandLine cl = apply_command_line({"prog", "a", "b"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (Args{"prog", "a", "b"}));
    ck_assert_no_messages();
}
END_TEST

START_TEST(error_missing_value)
{
    open_and_register();
    expect_refused(
        {"prog", "--mca", "ptest_cl_s", "ok", "arg", "--mca", "ptest_cl_n"},
        "command line: --mca needs a parameter name and a value, found only \"ptest_cl_n\"");
}
END_TEST

START_TEST(error_missing_name)
{
    open_and_register();
    expect_refused({"prog", "--mca", "ptest_cl_s", "ok", "-mca"},
                   "command line: -mca needs a parameter name and a value, found end of arguments");
}
END_TEST

START_TEST(error_empty_name)
{
    open_and_register();
    expect_refused({"prog", "--mca", "ptest_cl_s", "ok", "--mca", "", "1"},
                   "command line: --mca needs a parameter name, found an empty string");
}
END_TEST

START_TEST(error_same_name_twice)
{
    open_and_register();
    expect_refused({"prog", "--mca", "ptest_cl_n", "1", "x", "-mca", "ptest_cl_n", "2"},
                   "command line: --mca ptest_cl_n is given twice (values \"1\" and \"2\")");
}
END_TEST

START_TEST(error_tune_without_file)
{
    open_and_register();
    expect_refused({"prog", "--mca", "ptest_cl_s", "ok", "--tune"},
                   "command line: --tune needs a file name, found end of arguments");
}
END_TEST

START_TEST(error_tune_empty_item)
{
    open_and_register();
    const std::string a = write_file("a.conf", "ptest_cl_s = tuned\n");
    expect_refused({"prog", "--tune", a + ",,"},
                   "command line: --tune expects FILE[,FILE...], found \"" + a + ",,\"");
}
END_TEST

START_TEST(error_tune_file_missing)
{
    open_and_register();
    const std::string a = write_file("a.conf", "ptest_cl_s = tuned\n");
    const std::string missing = scratch() + "/missing.conf";
    expect_refused({"prog", "--mca", "ptest_cl_n", "4", "--tune", a + "," + missing},
                   "cannot read param file " + missing + ": No such file or directory",
                   MERIDIAN_ERR_IO);
}
END_TEST

START_TEST(error_tune_file_malformed)
{
    open_and_register();
    const std::string bad = write_file("bad.conf", "ptest_cl_s = x\nptest_cl_n 4\n");
    expect_refused(
        {"prog", "--mca", "ptest_cl_n", "4", "--tune=" + bad},
        bad + ":2:12: expected '=' after parameter name ptest_cl_n, found \"4\" (the file is "
              "ignored)");
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_cmdline");
    TCase *options = make_tcase("options");
    tcase_add_test(options, mca_options_are_applied_and_removed);
    tcase_add_test(options, options_before_registration);
    tcase_add_test(options, tune_files);
    tcase_add_test(options, tune_with_equals);
    tcase_add_test(options, program_arguments_keep_their_order);
    tcase_add_test(options, program_words_like_option_names);
    tcase_add_test(options, value_may_name_an_option);
    tcase_add_test(options, nothing_to_take);
    suite_add_tcase(suite, options);

    TCase *errors = make_tcase("errors");
    tcase_add_test(errors, error_missing_value);
    tcase_add_test(errors, error_missing_name);
    tcase_add_test(errors, error_empty_name);
    tcase_add_test(errors, error_same_name_twice);
    tcase_add_test(errors, error_tune_without_file);
    tcase_add_test(errors, error_tune_empty_item);
    tcase_add_test(errors, error_tune_file_missing);
    tcase_add_test(errors, error_tune_file_malformed);
    suite_add_tcase(suite, errors);
    return run_suite(suite);
}

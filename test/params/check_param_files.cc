// SPDX-License-Identifier: BSD-3-Clause
// Param files: what a valid file may hold, every parse error with its exact
// "PATH:LINE:COL: expected ..., found ..." message, a bad file ignored whole,
// which missing files are errors, "none", and the settings a file may not make.
#include <string>
#include <sys/stat.h>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

int number = 0;
const char *text = nullptr;

void register_params()
{
    number = 0;
    text = nullptr;
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "file", "a", "a number",
                                                      MCA_BASE_PARAM_TYPE_INT, nullptr, 1, 0,
                                                      &number),
                     0);
    ck_assert_int_ge(meridian_mca_base_param_register("ptest", "file", "s", "a string",
                                                      MCA_BASE_PARAM_TYPE_STRING, nullptr, 1, 0,
                                                      &text),
                     0);
}

// Read `contents` as the only param file; the open must fail with exactly
// `error` (without the path prefix and the "(the file is ignored)" suffix)
// and the file's settings must not apply.
void expect_parse_error(const std::string &contents, const std::string &error)
{
    const std::string path = write_file("bad.conf", contents);
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG(path + ":" + error + " (the file is ignored)"));
    register_params();
    ck_assert_int_eq(number, 0);
    ck_assert_ptr_null(text);
    ck_assert_text_eq(source_of("ptest_file_a"), "default");
}

} // namespace

START_TEST(valid_file_forms)
{
    const std::string path = write_file("ok.conf", "# a comment\n"
                                                   "   # an indented comment\n"
                                                   "\n"
                                                   "   \t\n"
                                                   "ptest_file_a\t=\t 42   \n"
                                                   "ptest_file_s=x = y#1 # a comment\n");
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 42);
    // A '#' after a blank starts a comment; one inside a word is the value's.
    ck_assert_str_eq(text, "x = y#1");
    ck_assert_text_eq(source_of("ptest_file_a"), "file (" + path + ":5)");
    ck_assert_text_eq(source_of("ptest_file_s"), "file (" + path + ":6)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(quoted_values_keep_blanks)
{
    const std::string path =
        write_file("quoted.conf", "ptest_file_s = \"  two  words  \"\nptest_file_a = \"17\"\n");
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_str_eq(text, "  two  words  ");
    ck_assert_int_eq(number, 17);
    ck_assert_no_messages();
}
END_TEST

START_TEST(empty_values)
{
    const std::string path = write_file("empty.conf", "ptest_file_s =\n");
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    // Set, to the empty string: not the same as unset.
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "");
    ck_assert_text_eq(source_of("ptest_file_s"), "file (" + path + ":1)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(crlf_line_ends)
{
    const std::string path = write_file(
        "dos.conf", "# written on Windows\r\nptest_file_a = 3\r\nptest_file_s = \" x \"\r\n\r\n");
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 3);
    ck_assert_str_eq(text, " x ");
    ck_assert_text_eq(source_of("ptest_file_s"), "file (" + path + ":3)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(error_missing_equals)
{
    expect_parse_error("ptest_file_a = 1\nptest_file_s two\n",
                       "2:14: expected '=' after parameter name ptest_file_s, found \"two\"");
}
END_TEST

START_TEST(error_missing_equals_at_end_of_line)
{
    expect_parse_error("ptest_file_a = 1\r\nptest_file_s\r\n",
                       "2:13: expected '=' after parameter name ptest_file_s, found end of line");
}
END_TEST

START_TEST(error_long_text_is_cut)
{
    expect_parse_error(
        "ptest_file_s this text is much longer than twenty\n",
        "1:14: expected '=' after parameter name ptest_file_s, found \"this text is much lo\"...");
}
END_TEST

START_TEST(error_bad_character_in_name)
{
    expect_parse_error(
        "ptest_file_a = 1\nptest-file-s = x\n",
        "2:6: expected letters, digits or '_' in parameter name ptest, found \"-file-s = x\"");
}
END_TEST

START_TEST(error_bad_first_character)
{
    expect_parse_error(
        "\n\n  $ptest_file_a = 1\n",
        "3:3: expected a parameter name (letters, digits, '_'), found \"$ptest_file_a = 1\"");
}
END_TEST

START_TEST(error_empty_name)
{
    expect_parse_error("ptest_file_a = 1\n = 2\n",
                       "2:2: expected a parameter name (letters, digits, '_'), found \"= 2\"");
}
END_TEST

START_TEST(error_unterminated_quote)
{
    expect_parse_error(
        "ptest_file_a = 1\nptest_file_s = \"open\n",
        "2:21: expected a closing '\"' for the value of ptest_file_s, found end of line");
}
END_TEST

START_TEST(error_lone_quote)
{
    expect_parse_error(
        "ptest_file_s = \"\n",
        "1:17: expected a closing '\"' for the value of ptest_file_s, found end of line");
}
END_TEST

START_TEST(error_text_after_quoted_value)
{
    // After a quoted value only a comment may follow: the error points at
    // the first character that is neither.
    expect_parse_error("ptest_file_s = \"a\" b # note\n",
                       "1:20: expected the end of the line or a '#' comment after the quoted "
                       "value of ptest_file_s, found \"b # note\"");
}
END_TEST

// A UTF-8 byte order mark at the start is skipped; elsewhere it is shown
// escaped (it is invisible), as is a byte that is not UTF-8.
START_TEST(byte_order_mark)
{
    const std::string path = write_file("bom.conf", "\xef\xbb\xbfptest_file_a = 3\n");
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 3);
    ck_assert_no_messages();
}
END_TEST

START_TEST(byte_order_mark_inside)
{
    expect_parse_error("ptest_file_a = 1\n\xef\xbb\xbfptest_file_s = \xff\n",
                       "2:1: expected a parameter name (letters, digits, '_'), found "
                       "\"\\ufeffptest_file_s = \\xff\"");
}
END_TEST

// Comments after values, quoted or not; quotes keep a " #" in the value.
START_TEST(comments_after_values)
{
    const std::string path = write_file("comments.conf", "ptest_file_a = 7 # seven\n"
                                                         "ptest_file_s = \"a # b\"\t# quoted\n");
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 7);
    ck_assert_str_eq(text, "a # b");
    ck_assert_no_messages();
}
END_TEST

START_TEST(error_duplicate_name)
{
    expect_parse_error(
        "ptest_file_a = 1\n# again:\nptest_file_a = 2\n",
        "3:1: expected each parameter once per file, found ptest_file_a again (first set "
        "on line 1)");
}
END_TEST

// The good files of a list still apply when one of them is refused.
START_TEST(bad_file_ignored_whole_others_apply)
{
    const std::string good = write_file("good.conf", "ptest_file_s = from-good\n");
    const std::string bad =
        write_file("bad.conf", "ptest_file_s = from-bad\nptest_file_a = 1\noops\n");
    set_param_env("mca_base_param_files", good + ":" + bad);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG(bad + ":3:5: expected '=' after parameter name oops, found end of "
                                       "line (the file is ignored)"));
    register_params();
    ck_assert_str_eq(text, "from-good");
    ck_assert_int_eq(number, 0);
    ck_assert_text_eq(source_of("ptest_file_s"), "file (" + good + ":1)");
}
END_TEST

START_TEST(missing_named_file_is_an_error)
{
    const std::string missing = scratch() + "/missing.conf";
    set_param_env("mca_base_param_files", missing);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG("cannot read param file " + missing + ": No such file or directory"));
}
END_TEST

START_TEST(missing_named_override_file_is_an_error)
{
    const std::string missing = scratch() + "/no-override.conf";
    set_param_env("mca_base_override_param_file", missing);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG("cannot read param file " + missing + ": No such file or directory"));
}
END_TEST

START_TEST(directory_is_an_error)
{
    set_param_env("mca_base_param_files", scratch());
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("cannot read param file " + scratch() + ": Is a directory"));
}
END_TEST

// HOME is an empty scratch directory: the default user file is missing.
START_TEST(missing_default_files_are_fine)
{
    unset_param_env("mca_base_param_files");
    unset_param_env("mca_base_override_param_file");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_no_messages();
    register_params();
    ck_assert_text_eq(source_of("ptest_file_a"), "default");
}
END_TEST

START_TEST(default_user_file_is_read)
{
    ck_assert_int_eq(mkdir((scratch() + "/.meridian").c_str(), 0755), 0);
    const std::string path = write_file(".meridian/mca-params.conf", "ptest_file_a = 4\n");
    unset_param_env("mca_base_param_files");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 4);
    ck_assert_text_eq(source_of("ptest_file_a"), "file (" + path + ":1)");
}
END_TEST

START_TEST(none_reads_nothing)
{
    ck_assert_int_eq(mkdir((scratch() + "/.meridian").c_str(), 0755), 0);
    write_file(".meridian/mca-params.conf", "ptest_file_a = 4\n");
    set_param_env("mca_base_param_files", "none");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    register_params();
    ck_assert_int_eq(number, 0);
    ck_assert_text_eq(source_of("ptest_file_a"), "default");
    ck_assert_no_messages();
}
END_TEST

// Which files are read cannot be decided by a file: the line is refused with
// a message, the rest of the file applies.
START_TEST(file_list_cannot_be_set_in_a_file)
{
    const std::string elsewhere = write_file("elsewhere.conf", "ptest_file_a = 99\n");
    const std::string path =
        write_file("sneaky.conf", "mca_base_param_files = " + elsewhere +
                                      "\nmca_base_override_param_file = " + elsewhere +
                                      "\nptest_file_a = 2\n");
    set_param_env("mca_base_param_files", path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_messages(
        ERROR_MSG("MCA parameter mca_base_param_files cannot be set in a file (file " + path +
                  ":1); set it in the environment or on the command line"),
        ERROR_MSG("MCA parameter mca_base_override_param_file cannot be set in a file (file " +
                  path + ":2); set it in the environment or on the command line"));
    register_params();
    ck_assert_int_eq(number, 2);
    ck_assert_text_eq(value_of("mca_base_param_files"), path);
    ck_assert_text_eq(source_of("mca_base_param_files"), "environment");
    ck_assert_text_eq(value_of("mca_base_override_param_file"), "none");
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_files");
    TCase *forms = make_tcase("valid_forms");
    tcase_add_test(forms, valid_file_forms);
    tcase_add_test(forms, quoted_values_keep_blanks);
    tcase_add_test(forms, empty_values);
    tcase_add_test(forms, crlf_line_ends);
    suite_add_tcase(suite, forms);

    TCase *errors = make_tcase("parse_errors");
    tcase_add_test(errors, error_missing_equals);
    tcase_add_test(errors, error_missing_equals_at_end_of_line);
    tcase_add_test(errors, error_long_text_is_cut);
    tcase_add_test(errors, error_bad_character_in_name);
    tcase_add_test(errors, error_bad_first_character);
    tcase_add_test(errors, error_empty_name);
    tcase_add_test(errors, error_unterminated_quote);
    tcase_add_test(errors, error_lone_quote);
    tcase_add_test(errors, error_text_after_quoted_value);
    tcase_add_test(errors, comments_after_values);
    tcase_add_test(errors, byte_order_mark);
    tcase_add_test(errors, byte_order_mark_inside);
    tcase_add_test(errors, error_duplicate_name);
    tcase_add_test(errors, bad_file_ignored_whole_others_apply);
    suite_add_tcase(suite, errors);

    TCase *which = make_tcase("which_files");
    tcase_add_test(which, missing_named_file_is_an_error);
    tcase_add_test(which, missing_named_override_file_is_an_error);
    tcase_add_test(which, directory_is_an_error);
    tcase_add_test(which, missing_default_files_are_fine);
    tcase_add_test(which, default_user_file_is_read);
    tcase_add_test(which, none_reads_nothing);
    tcase_add_test(which, file_list_cannot_be_set_in_a_file);
    suite_add_tcase(suite, which);
    return run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// Parameter types: which texts each type accepts, what it stores, and the
// complete message for a value of the wrong form (the value set before stays).
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

const char *const bool_expected = "a boolean (1/0, true/false, yes/no, on/off)";
const char *const int_expected = "an integer between -2147483648 and 2147483647";
const char *const unsigned_expected = "an unsigned integer between 0 and 4294967295";
const char *const size_expected = "a size in bytes, with an optional k, m, g or t suffix";
const char *const list_expected = "a comma-separated list with no empty items";
const char *const verbose_expected = "an integer between 0 and 100, or one of none (0), error (1), "
                                     "warn (10), info (20), debug (40), "
                                     "max (100)";

int register_param(const char *name, mca_base_param_type_t type, void *storage,
                   const mca_base_param_enum_value_t *enumerators = nullptr)
{
    const int index =
        meridian_mca_base_param_register("ptest", "types", name, "a parameter under test", type,
                                         enumerators, 1, MCA_BASE_PARAM_FLAG_NONE, storage);
    ck_assert_int_ge(index, 0);
    return index;
}

// The API refuses `value`, with the whole message, and the parameter keeps `kept`.
void expect_refused(int index, const std::string &full_name, const std::string &value,
                    const std::string &expected, const std::string &kept)
{
    clear_messages();
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, value.c_str()),
                     MERIDIAN_ERR_BAD_PARAM);
    const std::string quoted_value = "\"" + value + "\"";
    ck_assert_messages(ERROR_MSG("bad value " + quoted_value + " for MCA parameter " + full_name +
                                 " from the API: expected " + expected + "; it keeps \"" + kept +
                                 "\""));
    ck_assert_text_eq(value_of(full_name), kept);
    clear_messages();
}

void expect_set(int index, const char *value)
{
    ck_assert_msg(meridian_mca_base_param_set_value(index, value) == MERIDIAN_SUCCESS,
                  "value \"%s\" refused", value);
}

} // namespace

START_TEST(bool_accepts_every_spelling)
{
    bool flag = false;
    const int index = register_param("flag", MCA_BASE_PARAM_TYPE_BOOL, &flag);
    const char *const truthy[] = {"1", "true", "yes", "on", "TRUE", "Yes", " on "};
    const char *const falsy[] = {"0", "false", "no", "off", "FALSE", "No", "OFF"};
    for (const char *text : truthy) {
        flag = false;
        expect_set(index, "0");
        ck_assert(!flag);
        expect_set(index, text);
        ck_assert_msg(flag, "\"%s\" should be true", text);
        ck_assert_text_eq(value_of("ptest_types_flag"), "true");
    }
    for (const char *text : falsy) {
        expect_set(index, "1");
        expect_set(index, text);
        ck_assert_msg(!flag, "\"%s\" should be false", text);
        ck_assert_text_eq(value_of("ptest_types_flag"), "false");
    }
    ck_assert_no_messages();
}
END_TEST

START_TEST(bool_rejects_other_words)
{
    bool flag = true;
    const int index = register_param("flag", MCA_BASE_PARAM_TYPE_BOOL, &flag);
    for (const char *text : {"maybe", "2", "", "truee", "-1"}) {
        expect_refused(index, "ptest_types_flag", text, bool_expected, "true");
        ck_assert(flag);
    }
}
END_TEST

START_TEST(int_accepts_decimal_hex_and_negative)
{
    int number = 5;
    const int index = register_param("count", MCA_BASE_PARAM_TYPE_INT, &number);
    ck_assert_int_eq(number, 5);
    ck_assert_text_eq(source_of("ptest_types_count"), "default");
    const struct {
        const char *text;
        int value;
    } cases[] = {{"42", 42},
                 {"0x1F", 31},
                 {"0X10", 16},
                 {"-17", -17},
                 {"-0x10", -16},
                 {" 8 ", 8},
                 {"2147483647", 2147483647},
                 {"-2147483648", -2147483647 - 1}};
    for (const auto &c : cases) {
        expect_set(index, c.text);
        ck_assert_msg(number == c.value, "\"%s\" gave %d, not %d", c.text, number, c.value);
        ck_assert_text_eq(value_of("ptest_types_count"), std::to_string(c.value));
        ck_assert_text_eq(source_of("ptest_types_count"), "api");
    }
    ck_assert_no_messages();
}
END_TEST

START_TEST(int_rejects_out_of_range_and_junk)
{
    int number = 5;
    const int index = register_param("count", MCA_BASE_PARAM_TYPE_INT, &number);
    expect_set(index, "12");
    for (const char *text : {"2147483648", "-2147483649", "99999999999999999999", "12abc", "0x",
                             "0xZZ", "1.5", "", "--3", "ten"}) {
        expect_refused(index, "ptest_types_count", text, int_expected, "12");
        ck_assert_int_eq(number, 12);
    }
}
END_TEST

START_TEST(unsigned_rejects_negatives)
{
    unsigned number = 7;
    const int index = register_param("slots", MCA_BASE_PARAM_TYPE_UNSIGNED, &number);
    expect_set(index, "4294967295");
    ck_assert_uint_eq(number, 4294967295U);
    expect_set(index, "0x10");
    ck_assert_uint_eq(number, 16);
    ck_assert_text_eq(value_of("ptest_types_slots"), "16");
    for (const char *text : {"-1", "-0", "4294967296", "1e3", "x"}) {
        expect_refused(index, "ptest_types_slots", text, unsigned_expected, "16");
        ck_assert_uint_eq(number, 16);
    }
}
END_TEST

START_TEST(size_takes_binary_suffixes)
{
    std::size_t bytes = 1024;
    const int index = register_param("buffer", MCA_BASE_PARAM_TYPE_SIZE, &bytes);
    const struct {
        const char *text;
        unsigned long long value;
    } cases[] = {{"512", 512ULL},
                 {"4k", 4096ULL},
                 {"4K", 4096ULL},
                 {"2m", 2ULL << 20},
                 {"2M", 2ULL << 20},
                 {"3g", 3ULL << 30},
                 {"1t", 1ULL << 40},
                 {"16777215t", 16777215ULL << 40},
                 {"18446744073709551615", 18446744073709551615ULL}};
    for (const auto &c : cases) {
        expect_set(index, c.text);
        ck_assert_msg(bytes == c.value, "\"%s\" gave %zu", c.text, bytes);
        ck_assert_text_eq(value_of("ptest_types_buffer"), std::to_string(c.value));
    }
    ck_assert_no_messages();
}
END_TEST

START_TEST(size_rejects_bad_suffix_and_overflow)
{
    std::size_t bytes = 1024;
    const int index = register_param("buffer", MCA_BASE_PARAM_TYPE_SIZE, &bytes);
    expect_set(index, "8k");
    for (const char *text : {"12x", "12kb", "k", "-1", "1.5m", "16777216t", "18446744073709551616",
                             "17179869184g", ""}) {
        expect_refused(index, "ptest_types_buffer", text, size_expected, "8192");
        ck_assert_uint_eq(bytes, 8192);
    }
}
END_TEST

START_TEST(double_accepts_decimal_and_exponent)
{
    double ratio = 1.5;
    const int index = register_param("ratio", MCA_BASE_PARAM_TYPE_DOUBLE, &ratio);
    ck_assert_text_eq(value_of("ptest_types_ratio"), "1.5");
    expect_set(index, "2.25");
    ck_assert_double_eq(ratio, 2.25);
    ck_assert_text_eq(value_of("ptest_types_ratio"), "2.25");
    expect_set(index, "-1e3");
    ck_assert_double_eq(ratio, -1000.0);
    ck_assert_text_eq(value_of("ptest_types_ratio"), "-1000");
    for (const char *text : {"abc", "1.5x", "nan", "inf", "", "1e999"}) {
        expect_refused(index, "ptest_types_ratio", text, "a number", "-1000");
        ck_assert_double_eq(ratio, -1000.0);
    }
}
END_TEST

START_TEST(string_null_default_is_unset)
{
    const char *text = nullptr;
    const int index = register_param("label", MCA_BASE_PARAM_TYPE_STRING, &text);
    auto &registry = meridian::mca::ParamRegistry::instance();
    ck_assert_ptr_null(text);
    ck_assert(!registry.param(index)->is_set());
    ck_assert_text_eq(value_of("ptest_types_label"), "");
    ck_assert_text_eq(source_of("ptest_types_label"), "default");
    expect_set(index, "node-1, rack 2");
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "node-1, rack 2");
    ck_assert(registry.param(index)->is_set());
    // The empty string is a value, not "unset".
    expect_set(index, "");
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "");
    ck_assert(registry.param(index)->is_set());
    ck_assert_no_messages();
}
END_TEST

START_TEST(string_default_is_copied)
{
    char buffer[] = "first";
    const char *text = buffer;
    register_param("label", MCA_BASE_PARAM_TYPE_STRING, &text);
    // Meridian keeps its own copy: the caller's buffer may change or go.
    std::strcpy(buffer, "xxxxx");
    ck_assert_str_eq(text, "first");
    ck_assert_text_eq(value_of("ptest_types_label"), "first");
}
END_TEST

const mca_base_param_enum_value_t transports[] = {{0, "tcp"}, {1, "ucx"}, {2, "ofi"}, {0, nullptr}};

START_TEST(enum_by_name_or_number)
{
    int transport = 0;
    const int index = register_param("transport", MCA_BASE_PARAM_TYPE_ENUM, &transport, transports);
    ck_assert_text_eq(value_of("ptest_types_transport"), "tcp");
    expect_set(index, "ucx");
    ck_assert_int_eq(transport, 1);
    ck_assert_text_eq(value_of("ptest_types_transport"), "ucx");
    expect_set(index, "OFI");
    ck_assert_int_eq(transport, 2);
    ck_assert_text_eq(value_of("ptest_types_transport"), "ofi");
    expect_set(index, "1");
    ck_assert_int_eq(transport, 1);
    ck_assert_text_eq(value_of("ptest_types_transport"), "ucx");
    ck_assert_no_messages();
}
END_TEST

START_TEST(enum_rejects_unknown_names_and_numbers)
{
    int transport = 2;
    const int index = register_param("transport", MCA_BASE_PARAM_TYPE_ENUM, &transport, transports);
    for (const char *text : {"sctp", "3", "-1", "tc", ""}) {
        expect_refused(index, "ptest_types_transport", text, "one of tcp (0), ucx (1), ofi (2)",
                       "ofi");
        ck_assert_int_eq(transport, 2);
    }
}
END_TEST

START_TEST(enum_default_must_be_named)
{
    int transport = 9;
    ck_assert_int_eq(meridian_mca_base_param_register("ptest", "types", "transport", "help",
                                                      MCA_BASE_PARAM_TYPE_ENUM, transports, 1, 0,
                                                      &transport),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("cannot register MCA parameter \"ptest_types_transport\": the "
                                 "default 9 is not one of its named values"));
    ck_assert_int_eq(meridian_mca_base_param_find("ptest_types_transport"), MERIDIAN_ERR_NOT_FOUND);
}
END_TEST

// <fw>_base_verbose is an int with named values: a name or any number in range.
mca_base_framework_t verbose_framework = {
    .name = "ptestverb",
    .description = "test framework for the verbosity parameter",
    .version = {1, 0, 0},
    .flags = MCA_BASE_FRAMEWORK_FLAG_NONE,
    .register_params = nullptr,
    .open = nullptr,
    .close = nullptr,
    .static_components = nullptr,
    .verbose = 0,
    .internal = nullptr,
};

START_TEST(int_with_named_values)
{
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_register(&verbose_framework), MERIDIAN_SUCCESS);
    const int index = meridian_mca_base_param_find("ptestverb_base_verbose");
    ck_assert_int_ge(index, 0);
    ck_assert_int_eq(verbose_framework.verbose, 0);
    expect_set(index, "debug");
    ck_assert_int_eq(verbose_framework.verbose, 40);
    ck_assert_text_eq(value_of("ptestverb_base_verbose"), "40");
    expect_set(index, "37");
    ck_assert_int_eq(verbose_framework.verbose, 37);
    ck_assert_text_eq(value_of("ptestverb_base_verbose"), "37");
    expect_set(index, "MAX");
    ck_assert_int_eq(verbose_framework.verbose, 100);
    expect_set(index, "none");
    ck_assert_int_eq(verbose_framework.verbose, 0);
    ck_assert_no_messages();
    expect_set(index, "37");
    for (const char *text : {"101", "-1", "loud", "debug2"}) {
        expect_refused(index, "ptestverb_base_verbose", text, verbose_expected, "37");
        ck_assert_int_eq(verbose_framework.verbose, 37);
    }
}
END_TEST

START_TEST(list_items_are_trimmed)
{
    const char *const *items = nullptr;
    const int index = register_param("hosts", MCA_BASE_PARAM_TYPE_LIST, &items);
    ck_assert_ptr_nonnull(items);
    ck_assert_ptr_null(items[0]);
    expect_set(index, "a, b ,c");
    ck_assert_str_eq(items[0], "a");
    ck_assert_str_eq(items[1], "b");
    ck_assert_str_eq(items[2], "c");
    ck_assert_ptr_null(items[3]);
    ck_assert_text_eq(value_of("ptest_types_hosts"), "a,b,c");
    expect_set(index, " solo ");
    ck_assert_str_eq(items[0], "solo");
    ck_assert_ptr_null(items[1]);
    expect_set(index, "");
    ck_assert_ptr_null(items[0]);
    ck_assert_text_eq(value_of("ptest_types_hosts"), "");
    ck_assert_no_messages();
}
END_TEST

START_TEST(list_rejects_empty_items)
{
    const char *const *items = nullptr;
    const int index = register_param("hosts", MCA_BASE_PARAM_TYPE_LIST, &items);
    expect_set(index, "x,y");
    for (const char *text : {"a,,b", ",a", "a,", "a, ,b", ","}) {
        expect_refused(index, "ptest_types_hosts", text, list_expected, "x,y");
        ck_assert_str_eq(items[0], "x");
        ck_assert_str_eq(items[1], "y");
        ck_assert_ptr_null(items[2]);
    }
}
END_TEST

START_TEST(bounds_narrow_numbers)
{
    int number = 5;
    const int int_index = register_param("count", MCA_BASE_PARAM_TYPE_INT, &number);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(int_index, 1, 10), MERIDIAN_SUCCESS);
    expect_set(int_index, "10");
    expect_set(int_index, "1");
    ck_assert_int_eq(number, 1);
    expect_refused(int_index, "ptest_types_count", "11", "an integer between 1 and 10", "1");
    expect_refused(int_index, "ptest_types_count", "0", "an integer between 1 and 10", "1");

    unsigned slots = 2;
    const int unsigned_index = register_param("slots", MCA_BASE_PARAM_TYPE_UNSIGNED, &slots);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(unsigned_index, 2, 64), MERIDIAN_SUCCESS);
    expect_refused(unsigned_index, "ptest_types_slots", "65",
                   "an unsigned integer between 2 and 64", "2");

    std::size_t bytes = 4096;
    const int size_index = register_param("buffer", MCA_BASE_PARAM_TYPE_SIZE, &bytes);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(size_index, 1024, 1048576),
                     MERIDIAN_SUCCESS);
    expect_set(size_index, "1m");
    ck_assert_uint_eq(bytes, 1048576);
    expect_refused(size_index, "ptest_types_buffer", "2m",
                   std::string(size_expected) + ", between 1024 and 1048576", "1048576");

    double ratio = 1.0;
    const int double_index = register_param("ratio", MCA_BASE_PARAM_TYPE_DOUBLE, &ratio);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(double_index, 0.5, 2.5), MERIDIAN_SUCCESS);
    expect_set(double_index, "2.5");
    expect_refused(double_index, "ptest_types_ratio", "3", "a number between 0.5 and 2.5", "2.5");
}
END_TEST

// Bounds wider than the type do not widen it: an int stays an int (3e9 was
// taken and stored as -1294967296), and integers are compared with the
// bounds exactly, not rounded to a double first.
START_TEST(bounds_never_widen_the_type)
{
    int number = 5;
    const int int_index = register_param("count", MCA_BASE_PARAM_TYPE_INT, &number);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(int_index, 0, 1e10), MERIDIAN_SUCCESS);
    expect_refused(int_index, "ptest_types_count", "3000000000",
                   "an integer between 0 and 2147483647", "5");
    ck_assert_int_eq(number, 5);

    unsigned slots = 2;
    const int unsigned_index = register_param("slots", MCA_BASE_PARAM_TYPE_UNSIGNED, &slots);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(unsigned_index, 0, 1e12), MERIDIAN_SUCCESS);
    expect_refused(unsigned_index, "ptest_types_slots", "5000000000",
                   "an unsigned integer between 0 and 4294967295", "2");

    std::size_t bytes = 4096;
    const int size_index = register_param("buffer", MCA_BASE_PARAM_TYPE_SIZE, &bytes);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(size_index, 0, 9007199254740992.0),
                     MERIDIAN_SUCCESS);
    expect_set(size_index, "9007199254740992");
    expect_refused(size_index, "ptest_types_buffer", "9007199254740993",
                   std::string(size_expected) + ", between 0 and 9007199254740992",
                   "9007199254740992");
}
END_TEST

// A real value past 2^64 is shown as itself (it read 18446744073709551615),
// and the text reads back as the same value.
START_TEST(huge_reals_shown_as_they_are)
{
    double ratio = 1.0;
    const int index = register_param("ratio", MCA_BASE_PARAM_TYPE_DOUBLE, &ratio);
    for (const char *text : {"1e23", "2e19", "-3.5e300"}) {
        expect_set(index, text);
        const double set = ratio;
        char shown[64];
        ck_assert_int_gt(meridian_mca_base_param_value_string(index, shown, sizeof shown), 0);
        ck_assert_str_ne(shown, "18446744073709551615");
        expect_set(index, shown);
        ck_assert_msg(ratio == set, "%s read back as %.17g, not %.17g", shown, ratio, set);
    }
}
END_TEST

START_TEST(bounds_refused_where_meaningless)
{
    const char *text = nullptr;
    const int string_index = register_param("label", MCA_BASE_PARAM_TYPE_STRING, &text);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(string_index, 0, 1),
                     MERIDIAN_ERR_BAD_PARAM);
    int number = 5;
    const int int_index = register_param("count", MCA_BASE_PARAM_TYPE_INT, &number);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(int_index, 10, 1), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(int_index, std::nan(""), 1),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(int_index, 0, std::nan("")),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(int_index + 100, 0, 1),
                     MERIDIAN_ERR_NOT_FOUND);
    // Nothing changed: any int is still accepted.
    expect_set(int_index, "-50");
    ck_assert_int_eq(number, -50);
}
END_TEST

START_TEST(bounds_judge_values_already_set)
{
    // A component registers, then narrows: a setting that arrived before and
    // is now out of range must be reported, not dropped in silence.
    set_param_env("ptest_types_count", "50");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    int number = 5;
    const int index = register_param("count", MCA_BASE_PARAM_TYPE_INT, &number);
    ck_assert_int_eq(number, 50);
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_mca_base_param_set_bounds(index, 0, 10), MERIDIAN_SUCCESS);
    ck_assert_messages(ERROR_MSG("bad value \"50\" for MCA parameter ptest_types_count from "
                                 "environment variable " +
                                 env_name("ptest_types_count") +
                                 ": expected an integer between 0 and 10"));
    ck_assert_int_eq(number, 5);
    ck_assert_text_eq(source_of("ptest_types_count"), "default");
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_types");
    TCase *scalars = make_tcase("scalars");
    tcase_add_test(scalars, bool_accepts_every_spelling);
    tcase_add_test(scalars, bool_rejects_other_words);
    tcase_add_test(scalars, int_accepts_decimal_hex_and_negative);
    tcase_add_test(scalars, int_rejects_out_of_range_and_junk);
    tcase_add_test(scalars, unsigned_rejects_negatives);
    tcase_add_test(scalars, size_takes_binary_suffixes);
    tcase_add_test(scalars, size_rejects_bad_suffix_and_overflow);
    tcase_add_test(scalars, double_accepts_decimal_and_exponent);
    suite_add_tcase(suite, scalars);

    TCase *strings = make_tcase("strings_and_lists");
    tcase_add_test(strings, string_null_default_is_unset);
    tcase_add_test(strings, string_default_is_copied);
    tcase_add_test(strings, list_items_are_trimmed);
    tcase_add_test(strings, list_rejects_empty_items);
    suite_add_tcase(suite, strings);

    TCase *named = make_tcase("named_values");
    tcase_add_test(named, enum_by_name_or_number);
    tcase_add_test(named, enum_rejects_unknown_names_and_numbers);
    tcase_add_test(named, enum_default_must_be_named);
    tcase_add_test(named, int_with_named_values);
    suite_add_tcase(suite, named);

    TCase *bounds = make_tcase("bounds");
    tcase_add_test(bounds, bounds_narrow_numbers);
    tcase_add_test(bounds, bounds_never_widen_the_type);
    tcase_add_test(bounds, huge_reals_shown_as_they_are);
    tcase_add_test(bounds, bounds_refused_where_meaningless);
    tcase_add_test(bounds, bounds_judge_values_already_set);
    suite_add_tcase(suite, bounds);

    return run_suite(suite);
}

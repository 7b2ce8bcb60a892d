// SPDX-License-Identifier: BSD-3-Clause
// QMP's argv options (meridian::qmp::take_options): -qmp-geom (sizes or
// native), -qmp-alloc-map, -qmp-logic-map, -qmp-job.  As QMP, an option's
// values are the arguments after it that start with a digit; good options
// leave argv (the rest in order, NULL after the last); bad input leaves
// argv as it was and gives QMP_INVALID_ARG with "-option: expected ...,
// found ..." as QMP_get_error_string(NULL).
#include <initializer_list>
#include <string>
#include <vector>

#include "mca/qmp/qmp_internal.hpp"
#include "test/qmp_base/qmp_args.hpp"
#include "test/support/meridian_test.hpp"

namespace qmp = meridian::qmp;

namespace
{

std::string join(const std::vector<int> &values)
{
    std::string out;
    for (const int v : values) {
        out += (out.empty() ? "" : ",") + std::to_string(v);
    }
    return out;
}

std::string shown(const qmp::Options &o)
{
    return "geom=" + join(o.geom) + (o.geom_native ? " native" : "") +
           " amap=" + join(o.alloc_map) + " lmap=" + join(o.logic_map) + " job=" + join(o.job_geom);
}

// What argv holds now, with "|NULL" when argv[argc] is NULL.
std::string now(const Args &args)
{
    return args.now() + (args.terminated() ? "|NULL" : "|not NULL");
}

// Takes the options; "ok: options / argv" or "error STATUS: message / argv".
std::string take(Args &args)
{
    qmp::Options options;
    options.geom = {99}; // must be reset
    const QMP_status_t status = qmp::take_options(&args.argc, &args.pointer, &options);
    if (status != QMP_SUCCESS) {
        ck_assert_int_eq(QMP_get_error_number(nullptr), status);
        return "error " + std::to_string(status) + ": " + QMP_get_error_string(nullptr) + " / " +
               now(args);
    }
    return "ok: " + shown(options) + " / " + now(args);
}

const std::string invalid = "error " + std::to_string(QMP_INVALID_ARG) + ": ";

START_TEST(no_options)
{
    Args args{"prog", "input", "-v", "3"};
    ck_assert_text_eq(take(args), "ok: geom= amap= lmap= job= / prog input -v 3|NULL");
    Args alone{"prog"};
    ck_assert_text_eq(take(alone), "ok: geom= amap= lmap= job= / prog|NULL");
    // argv[0] is the program, never an option.
    Args named{"-qmp-geom", "2"};
    ck_assert_text_eq(take(named), "ok: geom= amap= lmap= job= / -qmp-geom 2|NULL");
    // No arguments at all.
    qmp::Options options;
    ck_assert_int_eq(qmp::take_options(nullptr, nullptr, &options), QMP_SUCCESS);
    int argc = 0;
    char **argv = nullptr;
    ck_assert_int_eq(qmp::take_options(&argc, &argv, &options), QMP_SUCCESS);
    ck_assert_text_eq(shown(options), "geom= amap= lmap= job=");
}
END_TEST

START_TEST(every_option_taken_out)
{
    Args args{"prog",     "-qmp-geom", "2",
              "2",        "input",     "-qmp-alloc-map",
              "1",        "0",         "-qmp-logic-map",
              "0",        "2",         "1",
              "-qmp-job", "2",         "1",
              "-v"};
    ck_assert_text_eq(take(args), "ok: geom=2,2 amap=1,0 lmap=0,2,1 job=2,1 / prog input -v|NULL");
    ck_assert_int_eq(args.argc, 3);
}
END_TEST

START_TEST(geom_native)
{
    Args args{"prog", "-qmp-geom", "native", "x"};
    ck_assert_text_eq(take(args), "ok: geom= native amap= lmap= job= / prog x|NULL");
    Args last{"prog", "-qmp-job", "4", "-qmp-geom", "native"};
    ck_assert_text_eq(take(last), "ok: geom= native amap= lmap= job=4 / prog|NULL");
}
END_TEST

START_TEST(values_are_the_arguments_starting_with_a_digit)
{
    // As QMP: a number after the sizes is one more size.
    Args args{"prog", "-qmp-geom", "2", "2", "100", "-n", "5"};
    ck_assert_text_eq(take(args), "ok: geom=2,2,100 amap= lmap= job= / prog -n 5|NULL");
    // Leading zeros are digits.
    Args zeros{"prog", "-qmp-job", "02", "prog2"};
    ck_assert_text_eq(take(zeros), "ok: geom= amap= lmap= job=2 / prog prog2|NULL");
    // Options next to each other.
    Args packed{"prog", "-qmp-logic-map", "1", "0", "-qmp-alloc-map", "0"};
    ck_assert_text_eq(take(packed), "ok: geom= amap=0 lmap=1,0 job= / prog|NULL");
}
END_TEST

START_TEST(geom_errors)
{
    Args end{"prog", "-qmp-geom"};
    ck_assert_text_eq(take(end), invalid + "-qmp-geom: expected the allocated dimensions (whole "
                                           "numbers) or native, found end of arguments / prog "
                                           "-qmp-geom|NULL");
    Args word{"prog", "-qmp-geom", "foo", "x"};
    ck_assert_text_eq(take(word), invalid +
                                      "-qmp-geom: expected the allocated dimensions (whole "
                                      "numbers) or native, found \"foo\" / prog -qmp-geom foo "
                                      "x|NULL");
    Args option{"prog", "-qmp-geom", "-qmp-job", "2"};
    ck_assert_text_eq(take(option), invalid +
                                        "-qmp-geom: expected the allocated dimensions (whole "
                                        "numbers) or native, found \"-qmp-job\" / prog -qmp-geom "
                                        "-qmp-job 2|NULL");
    Args glued{"prog", "-qmp-geom", "2x2"};
    ck_assert_text_eq(take(glued), invalid + "-qmp-geom: expected the allocated dimensions (whole "
                                             "numbers) or native, found \"2x2\" / prog -qmp-geom "
                                             "2x2|NULL");
    Args huge{"prog", "-qmp-geom", "2", "99999999999"};
    ck_assert_text_eq(take(huge), invalid + "-qmp-geom: expected the allocated dimensions (whole "
                                            "numbers) or native, found \"99999999999\" / prog "
                                            "-qmp-geom 2 99999999999|NULL");
    Args zero{"prog", "-qmp-geom", "2", "0"};
    ck_assert_text_eq(take(zero), invalid + "-qmp-geom: expected whole numbers of at least 1, "
                                            "found 2 0 / prog -qmp-geom 2 0|NULL");
    Args negative{"prog", "-qmp-geom", "-2"};
    ck_assert_text_eq(take(negative), invalid +
                                          "-qmp-geom: expected the allocated dimensions (whole "
                                          "numbers) or native, found \"-2\" / prog -qmp-geom "
                                          "-2|NULL");
}
END_TEST

START_TEST(map_errors)
{
    Args native{"prog", "-qmp-alloc-map", "native"};
    ck_assert_text_eq(take(native), invalid +
                                        "-qmp-alloc-map: expected a permutation of the allocated "
                                        "axes (0 1 ...), found \"native\" / prog -qmp-alloc-map "
                                        "native|NULL");
    Args twice{"prog", "-qmp-alloc-map", "0", "0"};
    ck_assert_text_eq(take(twice), invalid + "-qmp-alloc-map: expected a permutation of 0..1, "
                                             "found 0 0 / prog -qmp-alloc-map 0 0|NULL");
    Args range{"prog", "-qmp-logic-map", "1", "2"};
    ck_assert_text_eq(take(range), invalid + "-qmp-logic-map: expected a permutation of 0..1, "
                                             "found 1 2 / prog -qmp-logic-map 1 2|NULL");
    Args end{"prog", "-qmp-logic-map"};
    ck_assert_text_eq(take(end), invalid +
                                     "-qmp-logic-map: expected a permutation of the logical axes "
                                     "(0 1 ...), found end of arguments / prog "
                                     "-qmp-logic-map|NULL");
    Args negative{"prog", "-qmp-logic-map", "-1", "0"};
    ck_assert_text_eq(take(negative), invalid +
                                          "-qmp-logic-map: expected a permutation of the logical "
                                          "axes (0 1 ...), found \"-1\" / prog -qmp-logic-map -1 "
                                          "0|NULL");
    Args junk{"prog", "-qmp-alloc-map", "1", "0,"};
    ck_assert_text_eq(take(junk), invalid +
                                      "-qmp-alloc-map: expected a permutation of the allocated "
                                      "axes (0 1 ...), found \"0,\" / prog -qmp-alloc-map 1 "
                                      "0,|NULL");
}
END_TEST

START_TEST(job_errors)
{
    Args end{"prog", "-qmp-job"};
    ck_assert_text_eq(take(end), invalid + "-qmp-job: expected the job geometry (whole numbers), "
                                           "found end of arguments / prog -qmp-job|NULL");
    Args native{"prog", "-qmp-job", "native"};
    ck_assert_text_eq(take(native), invalid +
                                        "-qmp-job: expected the job geometry (whole numbers), "
                                        "found \"native\" / prog -qmp-job native|NULL");
    Args zero{"prog", "-qmp-job", "0"};
    ck_assert_text_eq(take(zero), invalid + "-qmp-job: expected whole numbers of at least 1, "
                                            "found 0 / prog -qmp-job 0|NULL");
}
END_TEST

START_TEST(an_option_given_twice)
{
    Args args{"prog", "-qmp-geom", "2", "-qmp-geom", "4"};
    ck_assert_text_eq(take(args), invalid +
                                      "-qmp-geom: expected the option once, found it again at "
                                      "argument 3 (first at argument 1) / prog -qmp-geom 2 "
                                      "-qmp-geom 4|NULL");
    Args job{"prog", "-qmp-job", "2", "x", "-qmp-job", "2"};
    ck_assert_text_eq(take(job), invalid + "-qmp-job: expected the option once, found it again at "
                                           "argument 4 (first at argument 1) / prog -qmp-job 2 x "
                                           "-qmp-job 2|NULL");
}
END_TEST

START_TEST(nothing_taken_when_a_later_option_is_bad)
{
    Args args{"prog", "-qmp-geom", "2", "2", "in", "-qmp-alloc-map", "1", "0", "-qmp-job", "x"};
    ck_assert_text_eq(take(args), invalid +
                                      "-qmp-job: expected the job geometry (whole numbers), "
                                      "found \"x\" / prog -qmp-geom 2 2 in -qmp-alloc-map 1 0 "
                                      "-qmp-job x|NULL");
    ck_assert_int_eq(args.argc, 10);
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("qmp_options");
    TCase *tcase = tcase_create("options");
    tcase_add_test(tcase, no_options);
    tcase_add_test(tcase, every_option_taken_out);
    tcase_add_test(tcase, geom_native);
    tcase_add_test(tcase, values_are_the_arguments_starting_with_a_digit);
    tcase_add_test(tcase, geom_errors);
    tcase_add_test(tcase, map_errors);
    tcase_add_test(tcase, job_errors);
    tcase_add_test(tcase, an_option_given_twice);
    tcase_add_test(tcase, nothing_taken_when_a_later_option_is_bad);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// What every Check test program of Meridian needs, whatever it tests:
// message capture and assertions on it, scratch directories (one per test,
// also its HOME), an environment free of the caller's MCA settings, and a
// suite runner that forks each test.
//
// The test directories build their own fixtures from these pieces (see
// test/params/param_test_support.hpp, test/mca/mca_test_support.hpp): the
// parent process only makes directories and edits the environment, each
// test's own process captures messages and touches libmeridian.
#ifndef MERIDIAN_TEST_SUPPORT_MERIDIAN_TEST_HPP
#define MERIDIAN_TEST_SUPPORT_MERIDIAN_TEST_HPP

#include <check.h>
// Check's deprecated fail() macro would rewrite std::basic_ios::fail() in any
// standard header included after this one.
#undef fail

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/util/output.h>

namespace meridian_test
{

// ---------------------------------------------------------------- messages

struct Message {
    meridian_severity_t severity;
    std::string text;
};

// From now on every message goes to messages() instead of stderr; what was
// captured before is dropped.  Call from a checked fixture.
void capture_messages();
// Give messages back to the default sink (stderr).
void stop_capturing_messages();

// Every message reported since capture_messages(), in order.
std::vector<Message> &messages();
void clear_messages();

// Empty when the captured messages are exactly `expected` (severity and full
// text, verbose ones included); otherwise both lists, for the failure report.
std::string compare_messages(std::initializer_list<Message> expected);

// ---------------------------------------------------------------- directories

// Every directory made here is stem.XXXXXX (mkdtemp) with mode 0755, so that
// a test that drops root can still read it; a test that cannot have one is
// aborted.

// Unchecked fixture halves (parent process): the directory under $TMPDIR
// (or /tmp) that the tests' scratch directories live in, and its removal
// with everything in it.
void make_scratch_root(std::string_view stem);
void remove_scratch_root();

// Checked fixture half (the test's process): a fresh scratch directory under
// the root, made $HOME so that nothing of the user's home is read.
void make_scratch(std::string_view stem);
// This test's scratch directory (also $HOME unless the test changes it).
const std::string &scratch();

// ---------------------------------------------------------------- environment

// The environment variable that sets a parameter (prefix from
// meridian_mca_base_env_prefix(), never hard-coded).
std::string env_name(std::string_view param);
void set_param_env(std::string_view param, const std::string &value);
void unset_param_env(std::string_view param);

// Unset every variable with the MCA environment prefix the caller of the
// tests had set (they would change what the tests see), and read no param
// files (mca_base_param_files=none).
void isolate_mca_environment();

// ---------------------------------------------------------------- parameters

// A parameter's current value as text, "<unregistered>" when unknown.
std::string value_of(const std::string &full_name);

// ---------------------------------------------------------------- components

// The tail of "no FW component is available: ..." naming the framework's
// components other than `chosen` as not selected ("; not selected: auto"), or
// "" when there are none: a static build has built-in components a DSO
// build may not.
std::string not_selected_tail(const mca_base_framework_t &framework, std::string_view chosen);

// ---------------------------------------------------------------- running

// main() of every test program: runs the suite with each test in a process
// of its own, whatever CK_FORK says.
int run_suite(Suite *suite);

} // namespace meridian_test

// Assert the captured messages, reporting the difference at the caller's line.
#define ck_assert_messages(...)                                                                    \
    do {                                                                                           \
        const std::string ck_diff_ = meridian_test::compare_messages({__VA_ARGS__});               \
        ck_assert_msg(ck_diff_.empty(), "%s", ck_diff_.c_str());                                   \
    } while (0)

#define ck_assert_no_messages()                                                                    \
    do {                                                                                           \
        const std::string ck_diff_ = meridian_test::compare_messages({});                          \
        ck_assert_msg(ck_diff_.empty(), "%s", ck_diff_.c_str());                                   \
    } while (0)

// Compare strings (std::string, std::string_view or C), both shown on
// failure.  The values are copied first: ck_assert_str_eq would keep pointers
// into temporaries.
#define ck_assert_text_eq(actual, expected)                                                        \
    do {                                                                                           \
        const std::string ck_actual_(actual);                                                      \
        const std::string ck_expected_(expected);                                                  \
        ck_assert_msg(ck_actual_ == ck_expected_, "%s is\n  \"%s\"\nexpected\n  \"%s\"", #actual,  \
                      ck_actual_.c_str(), ck_expected_.c_str());                                   \
    } while (0)

// An expected message, for ck_assert_messages.  (clang-format would spread
// each of these over five lines.)
// clang-format off
#define ERROR_MSG(text) meridian_test::Message{MERIDIAN_SEVERITY_ERROR, (text)}
#define WARNING_MSG(text) meridian_test::Message{MERIDIAN_SEVERITY_WARNING, (text)}
#define NOTICE_MSG(text) meridian_test::Message{MERIDIAN_SEVERITY_NOTICE, (text)}
#define VERBOSE_MSG(text) meridian_test::Message{MERIDIAN_SEVERITY_VERBOSE, (text)}
// clang-format on

#endif

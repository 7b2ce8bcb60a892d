// Shared pieces of the parameter unit tests: message capture, scratch
// directories, environment names and short ways to read a parameter back.
//
// Every test runs in its own process (Check's fork mode), so the registry and
// the message sink start empty; the parent process never touches libmeridian.
#ifndef MERIDIAN_TEST_PARAMS_PARAM_TEST_SUPPORT_HPP
#define MERIDIAN_TEST_PARAMS_PARAM_TEST_SUPPORT_HPP

#include <check.h>
// Check's deprecated fail() macro would rewrite std::basic_ios::fail() in any
// standard header included after this one.
#undef fail

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "opal/util/output.h"

namespace param_test
{

struct Message {
    meridian_severity_t severity;
    std::string text;
};

// Every message reported since the test's setup, in order.
std::vector<Message> &messages();
void clear_messages();

// Empty when the captured messages are exactly `expected` (severity and full
// text); otherwise both lists, for the failure report.
std::string compare_messages(std::initializer_list<Message> expected);

// Checked fixture: captures messages, gives the test a scratch directory as
// HOME, reads no param files and finds no component DSOs.
void setup();
void teardown();

// Unchecked fixtures (parent process): the directory the scratch
// directories live in, removed with everything in it afterwards.
void setup_root();
void teardown_root();

// This test's scratch directory, and a file written in it (returns its path).
const std::string &scratch();
std::string write_file(const std::string &name, std::string_view contents);

// Environment variable that sets a parameter (prefix from mca_base_env_prefix()).
std::string env_name(std::string_view param);
void set_param_env(std::string_view param, const std::string &value);
void unset_param_env(std::string_view param);

// A parameter's current value as text, "<unregistered>" when unknown.
std::string value_of(const std::string &full_name);
// Param::source().describe() of a registered parameter.
std::string source_of(const std::string &full_name);

// Runs mca_base_cmdline_apply on a copy of args (args[0] is the program) and
// keeps what is left in `left`.
struct CommandLine {
    int status = 0;
    std::vector<std::string> left;
};
CommandLine apply_command_line(const std::vector<std::string> &args);

// main() of every test program: runs the suite in fork mode.
int run_suite(Suite *suite);

// A test case with the standard fixtures.
TCase *make_tcase(const char *name);

} // namespace param_test

// Assert the captured messages, reporting the difference at the caller's line.
#define ck_assert_messages(...)                                                                    \
    do {                                                                                           \
        const std::string ck_diff_ = param_test::compare_messages({__VA_ARGS__});                  \
        ck_assert_msg(ck_diff_.empty(), "%s", ck_diff_.c_str());                                   \
    } while (0)

// String equality for std::string expressions.  ck_assert_str_eq keeps only
// the char pointers, which dangle once a temporary std::string is gone.
#define ck_assert_text_eq(actual, expected)                                                        \
    do {                                                                                           \
        const std::string ck_actual_ = (actual);                                                   \
        const std::string ck_expected_ = (expected);                                               \
        ck_assert_msg(ck_actual_ == ck_expected_, "%s is \"%s\", expected \"%s\"", #actual,        \
                      ck_actual_.c_str(), ck_expected_.c_str());                                   \
    } while (0)

#define ck_assert_no_messages()                                                                    \
    do {                                                                                           \
        const std::string ck_diff_ = param_test::compare_messages({});                             \
        ck_assert_msg(ck_diff_.empty(), "%s", ck_diff_.c_str());                                   \
    } while (0)

#define ERROR_MSG(text)                                                                            \
    param_test::Message                                                                            \
    {                                                                                              \
        MERIDIAN_SEVERITY_ERROR, (text)                                                            \
    }
#define WARNING_MSG(text)                                                                          \
    param_test::Message                                                                            \
    {                                                                                              \
        MERIDIAN_SEVERITY_WARNING, (text)                                                          \
    }

#endif

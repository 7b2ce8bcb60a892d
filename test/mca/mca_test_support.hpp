// Shared pieces of the component-loading and framework tests: the test-only
// frameworks, component directories filled with fixture DSOs, message
// capture and the hook-event log the fixtures write to.
//
// Every test runs in its own process (Check's fork mode, forced by
// run_suite): the loader, the registry and the frameworks start empty and a
// test may change the process (environment, effective user) freely.  The
// parent process never touches libmeridian.
#ifndef MERIDIAN_TEST_MCA_MCA_TEST_SUPPORT_HPP
#define MERIDIAN_TEST_MCA_MCA_TEST_SUPPORT_HPP

#include <check.h>
// check.h's deprecated fail() macro would break standard headers included
// after it (std::basic_ios::fail).
#undef fail

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "opal/mca/base/mca_base_framework.h"
#include "opal/util/output.h"
#include "test/mca/fixtures/testfw.h"

namespace mca_test {

// The test-only frameworks (see fixtures/testfw.h).  testfw's own hooks log
// "testfw register/open/close" events.  Each test's process starts with
// them unregistered and without static components.
extern mca_base_framework_t testfw;
extern mca_base_framework_t testmulti;

// ---------------------------------------------------------------- messages

struct Message {
    meridian_severity_t severity;
    std::string text;
};

// Every message reported since the test's setup, in order.
std::vector<Message> &messages();
void clear_messages();

// Empty when the captured messages are exactly `expected` (severity and full
// text, verbose ones included); otherwise both lists, for the failure report.
std::string compare_messages(std::initializer_list<Message> expected);

// ---------------------------------------------------------------- events

// Hook calls logged by the fixtures, as "framework/component event"
// ("testfw/alpha open"), and by testfw itself ("testfw open").
std::vector<std::string> &events();
int count_events(std::string_view event);

// ---------------------------------------------------------------- directories

// A fresh directory under the test's scratch area (mode 0755, so a test
// that drops root can still read it).
class ComponentDir {
public:
    explicit ComponentDir(std::string_view name);

    const std::string &path() const { return path_; }
    // path()/name
    std::string file(std::string_view name) const;

    // Copy fixtures/<fixture> in as `as` (default: the same name), mode 0644.
    std::string add(std::string_view fixture, std::string_view as = {}) const;
    std::string add_text(std::string_view name, std::string_view contents) const;
    std::string add_directory(std::string_view name) const;
    std::string add_symlink(std::string_view name, const std::string &target) const;

private:
    std::string path_;
};

// Where the built fixture DSOs are (the build tree's test/mca/fixtures).
std::string fixture_dir();
// The test's scratch directory (also $HOME unless a test changes it).
const std::string &scratch();

// ---------------------------------------------------------------- parameters

// Open the MCA base (core parameters registered) if needed and set a
// registered parameter through the API; fails the test when refused.
void set_param(const std::string &full_name, const std::string &value);
// The parameter's current value, "<unregistered>" when unknown.
std::string param_value(const std::string &full_name);
// mca_base_component_path = the directories, ':'-separated.
void use_component_path(std::initializer_list<std::string> directories);

// ---------------------------------------------------------------- frameworks

// "name=path" for each component of a registered framework, in the order
// found ("name=" for built-in ones), joined by ", ".
std::string components_of(const mca_base_framework_t &framework);
// Names of the components whose open succeeded, joined by ", ".
std::string opened_of(const mca_base_framework_t &framework);
// "component: reason" for each load failure, joined by "\n".
std::string failures_of(const mca_base_framework_t &framework);
// The module's name(), for a module of fixtures/testfw.h.
std::string module_name(const mca_base_module_t *module);
// Whether the DSO at path is mapped into the process now.
bool dso_is_loaded(const std::string &path);

// ---------------------------------------------------------------- running

// main() of every test program: runs the suite in fork mode, with the
// standard fixtures on every test case made by make_tcase.
int run_suite(Suite *suite);
TCase *make_tcase(const char *name);

}  // namespace mca_test

#define ck_assert_messages(...)                                                                    \
    do {                                                                                           \
        const std::string ck_diff_ = mca_test::compare_messages({__VA_ARGS__});                    \
        ck_assert_msg(ck_diff_.empty(), "%s", ck_diff_.c_str());                                   \
    } while (0)

#define ck_assert_no_messages()                                                                    \
    do {                                                                                           \
        const std::string ck_diff_ = mca_test::compare_messages({});                               \
        ck_assert_msg(ck_diff_.empty(), "%s", ck_diff_.c_str());                                   \
    } while (0)

// Compare strings (std::string or C), both shown on failure.  The values are
// copied first: ck_assert_str_eq would keep pointers into temporaries.
#define ck_assert_string(actual, expected)                                                         \
    do {                                                                                           \
        const std::string ck_actual_(actual);                                                      \
        const std::string ck_expected_(expected);                                                  \
        ck_assert_msg(ck_actual_ == ck_expected_, "%s is\n  \"%s\"\nexpected\n  \"%s\"",           \
                      #actual, ck_actual_.c_str(), ck_expected_.c_str());                          \
    } while (0)

#define ERROR_MSG(text) mca_test::Message{MERIDIAN_SEVERITY_ERROR, (text)}
#define WARNING_MSG(text) mca_test::Message{MERIDIAN_SEVERITY_WARNING, (text)}
#define NOTICE_MSG(text) mca_test::Message{MERIDIAN_SEVERITY_NOTICE, (text)}
#define VERBOSE_MSG(text) mca_test::Message{MERIDIAN_SEVERITY_VERBOSE, (text)}

#endif

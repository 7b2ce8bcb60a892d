// SPDX-License-Identifier: BSD-3-Clause
#include "test/support/meridian_test.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>

namespace meridian_test
{

namespace
{

std::vector<Message> captured;
std::string root_dir;    // made in the parent, shared by the forked tests
std::string scratch_dir; // this test's own

void capture(meridian_severity_t severity, const char *text, void *)
{
    captured.push_back(Message{severity, text});
}

const char *severity_name(meridian_severity_t severity)
{
    switch (severity) {
    case MERIDIAN_SEVERITY_ERROR:
        return "error";
    case MERIDIAN_SEVERITY_WARNING:
        return "warning";
    case MERIDIAN_SEVERITY_NOTICE:
        return "notice";
    case MERIDIAN_SEVERITY_VERBOSE:
        return "verbose";
    }
    return "?";
}

std::string dump(const std::vector<Message> &list)
{
    if (list.empty()) {
        return "  (none)\n";
    }
    std::string out;
    for (const auto &m : list) {
        out += "  ";
        out += severity_name(m.severity);
        out += ": ";
        out += m.text;
        out += "\n";
    }
    return out;
}

std::string make_temp_dir(const std::string &parent, std::string_view stem)
{
    std::string pattern = parent + "/" + std::string(stem) + ".XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        ck_abort_msg("cannot make a scratch directory under %s: %s", parent.c_str(),
                     std::strerror(errno));
    }
    ::chmod(pattern.c_str(), 0755);
    return pattern;
}

} // namespace

void capture_messages()
{
    captured.clear();
    meridian_set_message_sink(capture, nullptr);
}

void stop_capturing_messages()
{
    meridian_set_message_sink(nullptr, nullptr);
}

std::vector<Message> &messages()
{
    return captured;
}

void clear_messages()
{
    captured.clear();
}

std::string compare_messages(std::initializer_list<Message> expected)
{
    const std::vector<Message> want(expected);
    bool same = want.size() == captured.size();
    for (std::size_t i = 0; same && i < want.size(); ++i) {
        same = want[i].severity == captured[i].severity && want[i].text == captured[i].text;
    }
    return same ? std::string()
                : "messages differ\nexpected:\n" + dump(want) + "got:\n" + dump(captured);
}

void make_scratch_root(std::string_view stem)
{
    const char *tmp = std::getenv("TMPDIR");
    root_dir = make_temp_dir(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", stem);
}

void remove_scratch_root()
{
    std::error_code ignored;
    std::filesystem::remove_all(root_dir, ignored);
}

void make_scratch(std::string_view stem)
{
    // A test case made without the root fixture still gets a directory.
    scratch_dir = make_temp_dir(root_dir.empty() ? "/tmp" : root_dir, stem);
    ::setenv("HOME", scratch_dir.c_str(), 1);
}

const std::string &scratch()
{
    return scratch_dir;
}

std::string env_name(std::string_view param)
{
    return meridian_mca_base_env_prefix() + std::string(param);
}

void set_param_env(std::string_view param, const std::string &value)
{
    ::setenv(env_name(param).c_str(), value.c_str(), 1);
}

void unset_param_env(std::string_view param)
{
    ::unsetenv(env_name(param).c_str());
}

void isolate_mca_environment()
{
    const std::string prefix = meridian_mca_base_env_prefix();
    // Names first: unsetenv while walking environ would skip entries.
    std::vector<std::string> inherited;
    for (char **entry = environ; *entry != nullptr; ++entry) {
        const std::string_view text = *entry;
        if (text.starts_with(prefix)) {
            inherited.emplace_back(text.substr(0, text.find('=')));
        }
    }
    for (const auto &name : inherited) {
        ::unsetenv(name.c_str());
    }
    set_param_env("mca_base_param_files", "none");
}

std::string not_selected_tail(const mca_base_framework_t &framework, std::string_view chosen)
{
    std::string tail;
    for (const auto &view : meridian::mca::framework_components(framework)) {
        const std::string_view name = view.component->component_name;
        if (name != chosen) {
            tail += tail.empty() ? "; not selected: " : ", ";
            tail += name;
        }
    }
    return tail;
}

std::string value_of(const std::string &full_name)
{
    const int index = meridian_mca_base_param_find(full_name.c_str());
    if (index < 0) {
        return "<unregistered>";
    }
    const int length = meridian_mca_base_param_value_string(index, nullptr, 0);
    ck_assert_int_ge(length, 0);
    std::string text(static_cast<std::size_t>(length) + 1, '\0');
    meridian_mca_base_param_value_string(index, text.data(), text.size());
    text.resize(static_cast<std::size_t>(length));
    return text;
}

int run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    // Each test changes process-wide state (the registry, loaded DSOs, the
    // environment, the effective user), so it must have a process of its
    // own even when CK_FORK=no is in the environment.
    srunner_set_fork_status(runner, CK_FORK);
    srunner_run_all(runner, CK_NORMAL);
    const int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

} // namespace meridian_test

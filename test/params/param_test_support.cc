#include "test/params/param_test_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "opal/mca/base/mca_base.h"
#include "opal/mca/base/mca_base_param.h"
#include "opal/mca/base/param_registry.hpp"

namespace param_test
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

std::string make_temp_dir(const std::string &parent)
{
    std::string pattern = parent + "/params.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        ck_abort_msg("cannot make a scratch directory under %s", parent.c_str());
    }
    return pattern;
}

} // namespace

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

void setup_root()
{
    const char *tmp = std::getenv("TMPDIR");
    root_dir = make_temp_dir(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
}

void teardown_root()
{
    std::error_code ignored;
    std::filesystem::remove_all(root_dir, ignored);
}

void setup()
{
    captured.clear();
    meridian_set_message_sink(capture, nullptr);
    scratch_dir = make_temp_dir(root_dir.empty() ? "/tmp" : root_dir);
    // Nothing from the user running the tests may leak in: no HOME files, no
    // system param files, no installed components.
    setenv("HOME", scratch_dir.c_str(), 1);
    set_param_env("mca_base_param_files", "none");
    set_param_env("mca_base_override_param_file", "none");
    set_param_env("mca_base_component_path", scratch_dir);
}

void teardown()
{
    meridian_set_message_sink(nullptr, nullptr);
}

const std::string &scratch()
{
    return scratch_dir;
}

std::string write_file(const std::string &name, std::string_view contents)
{
    const std::string path = scratch_dir + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << contents;
    out.close();
    ck_assert_msg(out.good(), "cannot write %s", path.c_str());
    return path;
}

std::string env_name(std::string_view param)
{
    return mca_base_env_prefix() + std::string(param);
}

void set_param_env(std::string_view param, const std::string &value)
{
    setenv(env_name(param).c_str(), value.c_str(), 1);
}

void unset_param_env(std::string_view param)
{
    unsetenv(env_name(param).c_str());
}

std::string value_of(const std::string &full_name)
{
    const int index = mca_base_param_find(full_name.c_str());
    if (index < 0) {
        return "<unregistered>";
    }
    const int length = mca_base_param_value_string(index, nullptr, 0);
    ck_assert_int_ge(length, 0);
    std::string text(static_cast<std::size_t>(length) + 1, '\0');
    mca_base_param_value_string(index, text.data(), text.size());
    text.resize(static_cast<std::size_t>(length));
    return text;
}

std::string source_of(const std::string &full_name)
{
    auto &registry = meridian::mca::ParamRegistry::instance();
    const auto index = registry.find(full_name);
    ck_assert_msg(index.has_value(), "%s is not registered", full_name.c_str());
    return registry.param(*index)->source().describe();
}

CommandLine apply_command_line(const std::vector<std::string> &args)
{
    // argv as a program gets it: writable strings, NULL-terminated.
    std::vector<std::string> storage(args);
    std::vector<char *> argv;
    for (auto &arg : storage) {
        argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    int argc = static_cast<int>(args.size());
    char **argv_pointer = argv.data();
    CommandLine result;
    result.status = mca_base_cmdline_apply(&argc, &argv_pointer);
    ck_assert_ptr_eq(argv_pointer, argv.data());
    ck_assert_ptr_null(argv_pointer[argc]);
    for (int i = 0; i < argc; ++i) {
        result.left.emplace_back(argv_pointer[i]);
    }
    return result;
}

TCase *make_tcase(const char *name)
{
    TCase *tcase = tcase_create(name);
    tcase_add_unchecked_fixture(tcase, setup_root, teardown_root);
    tcase_add_checked_fixture(tcase, setup, teardown);
    return tcase;
}

int run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    // Each test must start with an empty registry: insist on fork mode even
    // when CK_FORK=no is in the environment.
    srunner_set_fork_status(runner, CK_FORK);
    srunner_run_all(runner, CK_NORMAL);
    const int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

} // namespace param_test

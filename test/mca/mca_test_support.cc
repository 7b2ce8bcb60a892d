// SPDX-License-Identifier: BSD-3-Clause
#include "test/mca/mca_test_support.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>

#ifndef MCA_TEST_FIXTURE_DIR
#error "build with -DMCA_TEST_FIXTURE_DIR=... (set by test/mca/Makefile.am)"
#endif

namespace fs = std::filesystem;

namespace mca_test
{

using namespace meridian_test;

namespace
{

std::vector<std::string> logged;

std::string join(const std::vector<std::string> &items, std::string_view separator)
{
    std::string out;
    for (const auto &item : items) {
        if (!out.empty()) {
            out += separator;
        }
        out += item;
    }
    return out;
}

void log_event(std::string text)
{
    logged.push_back(std::move(text));
}

int testfw_register(mca_base_framework_t *)
{
    log_event("testfw register");
    return MERIDIAN_SUCCESS;
}

int testfw_open(mca_base_framework_t *)
{
    log_event("testfw open");
    return MERIDIAN_SUCCESS;
}

int testfw_close(mca_base_framework_t *)
{
    log_event("testfw close");
    return MERIDIAN_SUCCESS;
}

// Unchecked fixtures: run in the parent, once per test case.
void setup_root()
{
    make_scratch_root("meridian-mca-test");
    isolate_mca_environment();
}

void teardown_root()
{
    remove_scratch_root();
}

// Checked fixtures: run in each test's own process.
void setup()
{
    make_scratch("test");
    logged.clear();
    capture_messages();
}

void teardown()
{
    stop_capturing_messages();
}

} // namespace

mca_base_framework_t testfw = {
    "testfw",
    "Test-only single-select framework",
    {TESTFW_VERSION_MAJOR, TESTFW_VERSION_MINOR, TESTFW_VERSION_RELEASE},
    MCA_BASE_FRAMEWORK_FLAG_NONE,
    testfw_register,
    testfw_open,
    testfw_close,
    nullptr,
    0,
    nullptr,
};

mca_base_framework_t testmulti = {
    "testmulti",
    "Test-only multi-select framework",
    {TESTMULTI_VERSION_MAJOR, TESTMULTI_VERSION_MINOR, TESTMULTI_VERSION_RELEASE},
    MCA_BASE_FRAMEWORK_FLAG_MULTI_SELECT,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    0,
    nullptr,
};

std::vector<std::string> &events()
{
    return logged;
}

int count_events(std::string_view event)
{
    return static_cast<int>(std::count(logged.begin(), logged.end(), event));
}

ComponentDir::ComponentDir(std::string_view name) : path_(scratch() + "/" + std::string(name))
{
    std::error_code error;
    fs::create_directories(path_, error);
    ck_assert_msg(!error, "cannot make %s: %s", path_.c_str(), error.message().c_str());
    ::chmod(path_.c_str(), 0755);
}

std::string ComponentDir::file(std::string_view name) const
{
    return path_ + "/" + std::string(name);
}

std::string ComponentDir::add(std::string_view fixture, std::string_view as) const
{
    const std::string from = fixture_dir() + "/" + std::string(fixture);
    const std::string to = file(as.empty() ? fixture : as);
    std::error_code error;
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, error);
    ck_assert_msg(!error, "cannot copy fixture %s to %s: %s", from.c_str(), to.c_str(),
                  error.message().c_str());
    ::chmod(to.c_str(), 0644);
    return to;
}

std::string ComponentDir::add_text(std::string_view name, std::string_view contents) const
{
    const std::string to = file(name);
    std::ofstream out(to, std::ios::binary);
    out << contents;
    out.close();
    ck_assert_msg(static_cast<bool>(out), "cannot write %s", to.c_str());
    return to;
}

std::string ComponentDir::add_directory(std::string_view name) const
{
    const std::string to = file(name);
    ck_assert_msg(::mkdir(to.c_str(), 0755) == 0, "cannot make %s: %s", to.c_str(),
                  std::strerror(errno));
    return to;
}

std::string ComponentDir::add_symlink(std::string_view name, const std::string &target) const
{
    const std::string to = file(name);
    ck_assert_msg(::symlink(target.c_str(), to.c_str()) == 0, "cannot make %s: %s", to.c_str(),
                  std::strerror(errno));
    return to;
}

std::string fixture_dir()
{
    return MCA_TEST_FIXTURE_DIR;
}

void set_param(const std::string &full_name, const std::string &value)
{
    static bool base_open = false;
    if (!base_open) {
        ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
        base_open = true;
    }
    const int index = meridian_mca_base_param_find(full_name.c_str());
    ck_assert_msg(index >= 0, "MCA parameter %s is not registered", full_name.c_str());
    const int rc = meridian_mca_base_param_set_value(index, value.c_str());
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "setting %s to \"%s\" failed: %s", full_name.c_str(),
                  value.c_str(), meridian_strerror(rc));
}

void use_component_path(std::initializer_list<std::string> directories)
{
    set_param("mca_base_component_path", join(std::vector<std::string>(directories), ":"));
}

std::string components_of(const mca_base_framework_t &framework)
{
    std::vector<std::string> items;
    for (const auto &view : meridian::mca::framework_components(framework)) {
        items.push_back(std::string(view.component->component_name) + "=" + view.path);
    }
    return join(items, ", ");
}

std::string opened_of(const mca_base_framework_t &framework)
{
    std::vector<std::string> items;
    for (const auto &view : meridian::mca::framework_components(framework)) {
        if (view.opened) {
            items.emplace_back(view.component->component_name);
        }
    }
    return join(items, ", ");
}

std::string failures_of(const mca_base_framework_t &framework)
{
    std::vector<std::string> items;
    for (const auto &failure : meridian::mca::framework_failures(framework)) {
        items.push_back(failure.component + ": " + failure.reason);
    }
    return join(items, "\n");
}

std::string module_name(const mca_base_module_t *module)
{
    ck_assert_ptr_nonnull(module);
    return static_cast<const testfw_module_t *>(module)->name();
}

bool dso_is_loaded(const std::string &path)
{
    void *handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) {
        return false;
    }
    ::dlclose(handle);
    return true;
}

TCase *make_tcase(const char *name)
{
    TCase *tcase = tcase_create(name);
    tcase_add_unchecked_fixture(tcase, setup_root, teardown_root);
    tcase_add_checked_fixture(tcase, setup, teardown);
    tcase_set_timeout(tcase, 30);
    return tcase;
}

} // namespace mca_test

// The fixtures' hook log (fixtures/testfw.h); exported by -export-dynamic.
extern "C" void meridian_test_event(const char *framework, const char *component, const char *event)
{
    mca_test::events().push_back(std::string(framework) + "/" + component + " " + event);
}

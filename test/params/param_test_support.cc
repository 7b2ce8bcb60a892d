// SPDX-License-Identifier: BSD-3-Clause
#include "test/params/param_test_support.hpp"

#include <fstream>

#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/param_registry.hpp>

namespace param_test
{

using namespace meridian_test;

void setup_root()
{
    make_scratch_root("params");
    isolate_mca_environment();
}

void teardown_root()
{
    remove_scratch_root();
}

void setup()
{
    capture_messages();
    // Nothing from the user running the tests may leak in: no HOME files, no
    // system param files, no installed components.
    make_scratch("params");
    set_param_env("mca_base_param_files", "none");
    set_param_env("mca_base_override_param_file", "none");
    set_param_env("mca_base_component_path", scratch());
}

void teardown()
{
    stop_capturing_messages();
}

std::string write_file(const std::string &name, std::string_view contents)
{
    const std::string path = scratch() + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << contents;
    out.close();
    ck_assert_msg(out.good(), "cannot write %s", path.c_str());
    return path;
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
    result.status = meridian_mca_base_cmdline_apply(&argc, &argv_pointer);
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

} // namespace param_test

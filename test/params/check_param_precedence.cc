// SPDX-License-Identifier: BSD-3-Clause
// The precedence table, with every source:
//   default < system file < user file < --tune files < environment
//           < command line < api < override file
// One parameter is set from all of them; the sources are then taken away one
// at a time from the top, and the value and its described source follow.
#include <string>
#include <vector>

#include "test/params/param_test_support.hpp"
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/error.h>

using namespace meridian_test;
using namespace param_test;

namespace
{

const char *const name = "ptest_prec_where";

// Highest first: removing the top i sources leaves sources[i] as the winner.
enum Source { override_file, api, command_line, environment, tune, user, system_file, none, count };

struct Files {
    std::string system_path, user_path, tune_path, override_path;
};

// Each file sets the parameter on a different line, so the line in the
// source description is checked too.
Files write_files()
{
    Files f;
    f.system_path = write_file("system.conf", "# system-wide\n\nptest_prec_where = system\n");
    f.user_path = write_file("user.conf", "ptest_prec_where = user\n");
    f.tune_path = write_file("tune.conf", "# tuning\n#\n\nptest_prec_where = tune\n");
    f.override_path =
        write_file("override.conf", "# site policy\n\n\n\n\nptest_prec_where = override\n");
    return f;
}

std::string expected_source(Source winner, const Files &f)
{
    switch (winner) {
    case override_file:
        return "override file (" + f.override_path + ":6)";
    case api:
        return "api";
    case command_line:
        return "command line";
    case environment:
        return "environment";
    case tune:
        return "file (" + f.tune_path + ":4)";
    case user:
        return "file (" + f.user_path + ":1)";
    case system_file:
        return "file (" + f.system_path + ":3)";
    default:
        return "default";
    }
}

const char *expected_value(Source winner)
{
    const char *const values[] = {"override", "api",  "cmdline", "environment",
                                  "tune",     "user", "system",  "default"};
    return values[winner];
}

int register_where(const char **storage)
{
    *storage = "default";
    const int index = meridian_mca_base_param_register("ptest", "prec", "where", "which source won",
                                                       MCA_BASE_PARAM_TYPE_STRING, nullptr, 1,
                                                       MCA_BASE_PARAM_FLAG_NONE, storage);
    ck_assert_int_ge(index, 0);
    return index;
}

} // namespace

// _i sources removed from the top; everything below them is present.
START_TEST(highest_remaining_source_wins)
{
    const auto removed = static_cast<Source>(_i);
    const auto present = [&](Source s) { return s >= removed; };
    const Files f = write_files();

    std::string files;
    if (present(system_file)) {
        files = f.system_path;
    }
    if (present(user)) {
        files += (files.empty() ? "" : ":") + f.user_path;
    }
    set_param_env("mca_base_param_files", files.empty() ? "none" : files);
    set_param_env("mca_base_override_param_file",
                  present(override_file) ? f.override_path : "none");
    if (present(environment)) {
        set_param_env(name, "environment");
    }
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);

    const char *where = nullptr;
    const int index = register_where(&where);

    std::vector<std::string> args = {"prog", "first"};
    if (present(tune)) {
        args.insert(args.end(), {"--tune", f.tune_path});
    }
    if (present(command_line)) {
        args.insert(args.end(), {"--mca", name, "cmdline"});
    }
    args.push_back("last");
    const CommandLine cl = apply_command_line(args);
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (std::vector<std::string>{"prog", "first", "last"}));

    if (present(api)) {
        ck_assert_int_eq(meridian_mca_base_param_set_value(index, "api"), MERIDIAN_SUCCESS);
    }

    ck_assert_str_eq(where, expected_value(removed));
    ck_assert_text_eq(value_of(name), expected_value(removed));
    ck_assert_text_eq(source_of(name), expected_source(removed, f));
    ck_assert_no_messages();
}
END_TEST

// The same table in one process: each source goes while the others stay, so
// the parameter is resolved again every time.
START_TEST(removing_sources_in_turn)
{
    using meridian::mca::ParamRegistry;
    using meridian::mca::SourceKind;
    auto &registry = ParamRegistry::instance();
    const Files f = write_files();
    set_param_env("mca_base_param_files", f.system_path + ":" + f.user_path);
    set_param_env("mca_base_override_param_file", f.override_path);
    set_param_env(name, "environment");
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const CommandLine cl =
        apply_command_line({"prog", "--tune", f.tune_path, "--mca", name, "cmdline", "--", "x"});
    ck_assert_int_eq(cl.status, MERIDIAN_SUCCESS);
    ck_assert(cl.left == (std::vector<std::string>{"prog", "--", "x"}));
    const char *where = nullptr;
    const int index = register_where(&where);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "api"), MERIDIAN_SUCCESS);

    const auto expect = [&](Source winner) {
        ck_assert_str_eq(where, expected_value(winner));
        ck_assert_text_eq(value_of(name), expected_value(winner));
        ck_assert_text_eq(source_of(name), expected_source(winner, f));
    };
    expect(override_file);
    registry.remove_settings(SourceKind::override_file);
    expect(api);
    registry.remove_settings(SourceKind::api);
    expect(command_line);
    registry.remove_settings(SourceKind::command_line);
    expect(environment);
    registry.remove_settings(SourceKind::environment);
    expect(tune);
    registry.remove_settings(SourceKind::tune_file);
    expect(user);

    // The param files are read again when the list changes (the command
    // line is where that happens); drop the user file, then the system one.
    ck_assert_int_eq(meridian_mca_base_param_set_value(
                         meridian_mca_base_param_find("mca_base_override_param_file"), "none"),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(
        meridian_mca_base_param_set_value(meridian_mca_base_param_find("mca_base_param_files"),
                                          f.system_path.c_str()),
        MERIDIAN_SUCCESS);
    ck_assert_int_eq(apply_command_line({"prog"}).status, MERIDIAN_SUCCESS);
    expect(system_file);
    ck_assert_int_eq(meridian_mca_base_param_set_value(
                         meridian_mca_base_param_find("mca_base_param_files"), "none"),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(apply_command_line({"prog"}).status, MERIDIAN_SUCCESS);
    expect(none);
    ck_assert_no_messages();
}
END_TEST

// Within one kind of source the later file wins: --tune a,b and a list of
// param files.
START_TEST(later_files_of_one_kind_win)
{
    const std::string a = write_file("a.conf", "ptest_prec_where = from-a\n");
    const std::string b = write_file("b.conf", "ptest_prec_where = from-b\n");
    set_param_env("mca_base_param_files", b + ":" + a);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const char *where = nullptr;
    register_where(&where);
    ck_assert_str_eq(where, "from-a");
    ck_assert_text_eq(source_of(name), "file (" + a + ":1)");
    ck_assert_int_eq(apply_command_line({"prog", "--tune", a + "," + b}).status, MERIDIAN_SUCCESS);
    ck_assert_str_eq(where, "from-b");
    ck_assert_text_eq(source_of(name), "file (" + b + ":1)");
    ck_assert_no_messages();
}
END_TEST

// An override file beats even the program: set_value succeeds, the value
// does not move until the override is gone.
START_TEST(override_file_beats_api)
{
    const Files f = write_files();
    set_param_env("mca_base_override_param_file", f.override_path);
    ck_assert_int_eq(meridian_mca_base_open(), MERIDIAN_SUCCESS);
    const char *where = nullptr;
    const int index = register_where(&where);
    ck_assert_int_eq(meridian_mca_base_param_set_value(index, "api"), MERIDIAN_SUCCESS);
    ck_assert_str_eq(where, "override");
    ck_assert_text_eq(source_of(name), expected_source(override_file, f));
    ck_assert_no_messages();
}
END_TEST

int main()
{
    Suite *suite = suite_create("param_precedence");
    TCase *table = make_tcase("table");
    tcase_add_loop_test(table, highest_remaining_source_wins, override_file, count);
    tcase_add_test(table, removing_sources_in_turn);
    tcase_add_test(table, later_files_of_one_kind_win);
    tcase_add_test(table, override_file_beats_api);
    suite_add_tcase(suite, table);
    return run_suite(suite);
}

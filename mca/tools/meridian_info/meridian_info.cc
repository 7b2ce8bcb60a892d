// SPDX-License-Identifier: BSD-3-Clause
// meridian_info: Meridian's frameworks, components and parameters, and where
// every parameter's value comes from.
//
// It registers the frameworks (which loads their components and registers
// every parameter) but never opens them: showing must not depend on a
// component being usable on this host.  Errors are reported as they are met;
// everything is still printed, and the exit status is then 1.  A mistake in
// the command line is found before anything is read: exit status 2.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <variant>

#include "mca/tools/meridian_info/build_report.hpp"
#include "mca/tools/meridian_info/formats.hpp"
#include "mca/tools/meridian_info/install_dirs.hpp"
#include "mca/tools/meridian_info/options.hpp"
#include "mca/tools/meridian_info/report.hpp"
#include "mca/tools/tool_main.hpp"
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/framework.hpp>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

using namespace meridian;
using tools::write_out;

// The MCA base and the registered frameworks for the tool's lifetime.
// Read every source and register (never open) every framework: registration
// loads the components and registers all their parameters.  Nothing is closed
// afterwards: the tool exits right after printing, and unloading every
// component first would only cost time (a quarter of the run with a hundred
// DSOs).
void register_everything(mca_base_framework_t *const *frameworks)
{
    // A source that cannot be read is reported by the library; what could
    // be read is still shown.
    (void)meridian_mca_base_open();
    for (auto *const *fw = frameworks; *fw != nullptr; ++fw) {
        if (const int rc = meridian_mca_base_framework_register(*fw); rc != MERIDIAN_SUCCESS) {
            report_error(std::string("framework ") + (*fw)->name +
                         " could not be registered: " + meridian_strerror(rc));
        }
    }
    (void)meridian_mca_base_check_params();
    // What opening would refuse, said now, since the tool never opens.
    for (auto *const *fw = frameworks; *fw != nullptr; ++fw) {
        if (!mca::framework_is_registered((*fw)->name)) {
            continue;
        }
        if (auto valid = mca::validate_selection(**fw); !valid) {
            report_error(valid.error().message);
        }
    }
}

using tools::exit_failure;
using tools::exit_status;
using tools::exit_usage;

} // namespace

int main(int argc, char **argv)
{
    // Learned before the library takes --mca and --tune out of argv: what this
    // command line sets is shown whatever its level.
    const auto set_here = info::names_set_on_command_line(argc, argv);
    const tools::ToolCommandLine<info::Options> tool = {
        .name = "meridian_info",
        .parse_options = info::parse_options,
        .usage_text = info::usage_text,
        .errors_fail_answers = true,
    };
    const auto command_line = tools::read_command_line(argc, argv, tool);
    if (const int *status = std::get_if<int>(&command_line)) {
        return *status;
    }
    const info::Options &options = std::get<info::Options>(command_line);
    // The build and the configured directories need no component: nothing
    // is loaded.
    if (options.config) {
        std::string out;
        info::write_build_report(options.format, out);
        return write_out(out) ? exit_status() : exit_failure;
    }
    if (!options.path_names.empty()) {
        std::string out;
        info::write_install_dirs(options.path_names, options.format, out);
        return write_out(out) ? exit_status() : exit_failure;
    }

    mca_base_framework_t *const *frameworks = meridian_builtin_frameworks();
    register_everything(frameworks);
    // A --param name is a bad option value, though only the registered
    // frameworks can tell.
    if (auto scopes = info::check_scopes(options.scopes, frameworks); !scopes) {
        report_error(scopes.error().message);
        return exit_usage;
    }
    const auto report = info::build_report(options, frameworks, set_here);
    std::string out;
    out.reserve(1 << 16);
    switch (options.format) {
    case info::Format::text:
        info::write_text(report, out);
        break;
    case info::Format::parsable:
        info::write_parsable(report, out);
        break;
    case info::Format::json:
        info::write_json(report, out);
        break;
    }
    if (!write_out(out)) {
        return exit_failure;
    }
    return exit_status();
}

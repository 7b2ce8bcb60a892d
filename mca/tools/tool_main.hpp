// SPDX-License-Identifier: BSD-3-Clause
// What every Meridian tool's main shares: reading its command line up to
// the answers that need no Meridian (--help, --version), then running its
// own work inside a MeridianSession, and the exit status that comes of it.
#ifndef MERIDIAN_TOOLS_TOOL_MAIN_HPP
#define MERIDIAN_TOOLS_TOOL_MAIN_HPP

#include <string>
#include <utility>
#include <variant>

#include "mca/tools/tool_command_line.hpp"
#include "mca/tools/tool_session.hpp"
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/output.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::tools
{

// A tool as read_command_line needs it.  Options has `help` and `version`.
template <typename Options> struct ToolCommandLine {
    const char *name; // the program, as --version names it
    Result<Options> (*parse_options)(int argc, const char *const *argv);
    std::string (*usage_text)();
    // Whether an error reported before --help or --version is answered fails
    // the answer too, as meridian_info fails every answer given after one.
    bool errors_fail_answers;
};

// The status to exit with after a run that returned `status`: an error
// reported on the way (a component that could not be loaded, say) fails
// the run even when an answer could be given.
inline int exit_status(int status = exit_success)
{
    return status != exit_success       ? status
           : meridian_error_count() > 0 ? exit_failure
                                        : exit_success;
}

// Meridian's --mca / --tune applied, then the tool's own options parsed (a
// mistake is reported: exit_usage) and --help or --version answered.  The
// options to run with, or the status main returns at once.
template <typename Options>
std::variant<Options, int> read_command_line(int &argc, char **&argv,
                                             const ToolCommandLine<Options> &tool)
{
    if (const int status = apply_meridian_options(argc, argv); status != exit_success) {
        return status;
    }
    auto options = tool.parse_options(argc, argv);
    if (!options) {
        report_error(options.error().message);
        return exit_usage;
    }
    if (options->help || options->version) {
        const std::string text =
            options->help ? tool.usage_text()
                          : std::string(tool.name) + " (Meridian) " + meridian_version() + "\n";
        if (!write_out(text)) {
            return exit_failure;
        }
        return tool.errors_fail_answers ? exit_status() : exit_success;
    }
    return std::move(*options);
}

// A whole main for a tool whose work needs Meridian started:
// read_command_line, then `run(options)` in a MeridianSession; its status
// is the exit status unless an error was reported on the way.
template <typename Options, typename Run>
int run_tool(int argc, char **argv, const ToolCommandLine<Options> &tool, Run run)
{
    const auto command_line = read_command_line(argc, argv, tool);
    if (const int *status = std::get_if<int>(&command_line)) {
        return *status;
    }
    const MeridianSession session;
    if (!session.ok()) {
        return exit_failure; // reported by the library
    }
    return exit_status(run(std::get<Options>(command_line)));
}

} // namespace meridian::tools

#endif

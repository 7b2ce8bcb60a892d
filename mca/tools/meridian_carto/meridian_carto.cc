// SPDX-License-Identifier: BSD-3-Clause
// meridian_carto: the host's map (the carto framework's graph of processors,
// memory nodes and ports) as carto text, DOT or JSON; distance lists and
// shortest paths in it.
//
// The command line is judged before anything is mapped, so a mistake in it
// costs nothing and gets its own exit status (2); the map is made by the
// carto base, whose component says what went wrong when it cannot (1).
#include <string>

#include "mca/tools/meridian_carto/commands.hpp"
#include "mca/tools/meridian_carto/options.hpp"
#include "mca/tools/tool_main.hpp"

int main(int argc, char **argv)
{
    using namespace meridian;
    const tools::ToolCommandLine<carto_tool::Options> tool = {
        .name = "meridian_carto",
        .parse_options = carto_tool::parse_options,
        .usage_text = carto_tool::usage_text,
        .errors_fail_answers = false,
    };
    return tools::run_tool(argc, argv, tool, [](const carto_tool::Options &options) {
        // What could be answered is written, whatever the status.
        std::string out;
        const int status = carto_tool::run_command(options, out);
        return tools::write_out(out) ? status : tools::exit_failure;
    });
}

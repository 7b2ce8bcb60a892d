// SPDX-License-Identifier: BSD-3-Clause
// meridian_carto's own command line: a command and its arguments, --type,
// --format, --help, --version (Meridian's --mca / --tune are taken out by the
// library before these are parsed).
#ifndef MERIDIAN_TOOLS_CARTO_OPTIONS_HPP
#define MERIDIAN_TOOLS_CARTO_OPTIONS_HPP

#include <optional>
#include <string>
#include <vector>

#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::carto_tool
{

enum class Command { graph, distance, path, vertices };

enum class GraphFormat { carto, dot, json };

struct Options {
    Command command = Command::graph;
    // The command's vertex arguments: FROM for distance, A and B for path.
    std::vector<std::string> vertices;
    // --type: no value means ALL.
    std::optional<TypeMask> types;
    GraphFormat format = GraphFormat::carto;
    bool help = false;
    bool version = false;
};

// Parse argv (argv[0] is the program).  Every error is a mistake in the
// command line (the tool exits 2 for it); its message names what is wrong,
// what was expected, and points to --help.
Result<Options> parse_options(int argc, const char *const *argv);

// The --help text.
std::string usage_text();

} // namespace meridian::carto_tool

#endif

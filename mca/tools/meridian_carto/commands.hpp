// SPDX-License-Identifier: BSD-3-Clause
// meridian_carto's commands, answered from the host's map.
#ifndef MERIDIAN_TOOLS_CARTO_COMMANDS_HPP
#define MERIDIAN_TOOLS_CARTO_COMMANDS_HPP

#include <cstddef>
#include <string>

#include "mca/tools/meridian_carto/options.hpp"
#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::carto_tool
{

// Map the host (the carto framework selects its component) and answer the
// command, appending the answer to out.  Returns the exit status: 0, or 1
// when the answer cannot be given -- an error was then reported (no
// component could map the host, an unknown vertex...), except for a path
// that does not exist, whose answer "no path from A to B" is in out.
int run_command(const Options &options, std::string &out);

// The vertex with this name, or MERIDIAN_ERR_NOT_FOUND with a message that
// suggests the closest name and lists the vertices (in name order, the first
// list_limit of them, then how many more).
Result<VertexId> find_vertex(const WeightedGraph &graph, const std::string &name,
                             std::size_t list_limit = 20);

} // namespace meridian::carto_tool

#endif

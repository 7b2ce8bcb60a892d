// SPDX-License-Identifier: BSD-3-Clause
// carto_file's second step: a parsed carto description (carto_parser.hpp)
// into the graph the carto base keeps.  Shared by the component's map_host
// and the tests, so that both build graphs the same way.
#ifndef MERIDIAN_COMPONENTS_CARTO_FILE_CARTO_GRAPH_BUILD_HPP
#define MERIDIAN_COMPONENTS_CARTO_FILE_CARTO_GRAPH_BUILD_HPP

#include <string_view>

#include "components/carto_file/carto_parser.hpp"
#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::carto
{

// Add the description's vertices (in order, with their types) and then its
// edges (in order) to graph.  The parser already refused duplicates and
// unknown names, so what can still fail is the graph's own limits; such an
// error names the place in the file the vertex or edge came from:
// "PATH:LINE:COLUMN: <the graph's message>" (path names the file, as for the
// parser).  On error the graph holds what was added before it: callers
// discard it (map_host's contract).
Status add_to_graph(const CartoDescription &description, std::string_view path,
                    WeightedGraph &graph);

} // namespace meridian::carto

#endif

// SPDX-License-Identifier: BSD-3-Clause
// The ways meridian_carto writes a graph besides carto text (which is the
// base's format_carto_text).  Each appends to a string the caller writes once.
#ifndef MERIDIAN_TOOLS_CARTO_FORMATS_HPP
#define MERIDIAN_TOOLS_CARTO_FORMATS_HPP

#include <string>
#include <string_view>

#include <meridian/opal/class/weighted_graph.hpp>

namespace meridian::carto_tool
{

// A Graphviz digraph: a node per vertex (labelled with its name, shaped and
// filled by its type), then an edge per directed edge labelled with its
// weight, both in the graph's order.  A pair u -> v, v -> u of the same
// weight is drawn once, two-headed (dir=both); of parallel edges, the
// lightest (the one every query uses) is drawn.  Any name is safe: names
// that are not plain words get an escaped node ID and an HTML label.
void write_dot(const WeightedGraph &graph, std::string_view component, std::string &out);

// {"component": C, "vertices": [{"name": N, "type": T}, ...],
//  "edges": [{"from": N, "to": N, "weight": W}, ...]}: every vertex and every
// directed edge, in the graph's order (edges grouped by source vertex).
void write_json(const WeightedGraph &graph, std::string_view component, std::string &out);

} // namespace meridian::carto_tool

#endif

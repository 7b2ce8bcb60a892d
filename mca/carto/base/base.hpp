// SPDX-License-Identifier: BSD-3-Clause
// The carto framework's API for C++ callers: the host's map as a
// meridian::WeightedGraph (opal/class/weighted_graph.hpp), whose members
// answer the queries (find, distance_list, shortest_path, subgraph).  C
// callers have the same in mca/carto/base/base.h.
//
//   auto graph = meridian::carto::host_graph();        // maps the host once
//   if (!graph) { ... graph.error().message() ... }
//   auto from = (*graph)->vertex_named("Slot1");
//   auto list = (*graph)->distance_list(*from, meridian::type_mask(VertexType::mem));
//
// The map is made the first time it is asked for: the carto framework is
// opened if nobody has, its component selected and asked to map the host.
// It lives until the framework's last close.  The first call must not race
// with another; once mapped, the graph may be read from several threads.
#ifndef MERIDIAN_MCA_CARTO_BASE_HPP
#define MERIDIAN_MCA_CARTO_BASE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <optional>
#include <string>
#include <string_view>

#include <meridian/mca/carto/carto.h>
#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/result.hpp>

// The C handle is the graph itself, so the C and C++ APIs share one object.
struct mca_carto_graph {
    meridian::WeightedGraph graph;
};

namespace meridian::carto
{

// The host's whole graph.  The pointer stays valid until the carto
// framework's last close.  Errors: no component accepts, the component
// failed to map the host (its message was reported).
Result<const WeightedGraph *> host_graph();

// A copy of the graph of some types: their vertices plus every processor,
// and the edges among them (WeightedGraph::subgraph).  all_vertex_types gives
// the whole graph.
Result<WeightedGraph> host_graph(TypeMask types);

// The name of the component that mapped the host, if it is mapped.
std::optional<std::string_view> selected_component();

// Forget the map (the framework's close does this); the next query maps the
// host again.
void forget_host_graph();

// ------------------------------------------------------------ type names

// "SLOT", "MEM", "ETH", "IB", "OTHER" or "ALL" (in any case) as a mask; no
// value for anything else.
std::optional<TypeMask> parse_type_name(std::string_view name);
// The names parse_type_name accepts, for messages: "SLOT, MEM, ETH, IB, OTHER, ALL".
std::string_view type_name_choices();

// The type a vertex's name gives it in the seed's adjacency format: MEM<n>
// memory and Slot<n> a processor (<n> one or more digits, either prefix in
// any case); a port is ETH when its name starts with eth, en or Eth, IB when
// it starts with ib, mthca, mlx, hfi or MTHCA; anything else is OTHER.
VertexType vertex_type_from_name(std::string_view name);

// ------------------------------------------------------------ carto text

// Whether a name can be written in carto text: ASCII letters, digits, '_',
// '-' and '.', not empty, and not one of the words EDGE, BRANCH, BRANCH_BI_DIR.
bool is_carto_name(std::string_view name);

// The graph as carto text that carto_file reads back to the same vertices
// (names, types, order) and edges (from, to, weight, grouped by source in
// vertex order).  The seed's adjacency format when every vertex's name gives
// its type (vertex_type_from_name); Open MPI 1.3's format otherwise, whose
// EDGE lines state each type.  MERIDIAN_ERR_BAD_PARAM, saying which vertex,
// for a graph no carto text can hold: no vertices, or a name that
// is_carto_name refuses.
Result<std::string> format_carto_text(const WeightedGraph &graph);

} // namespace meridian::carto

#endif

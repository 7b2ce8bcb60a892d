// SPDX-License-Identifier: BSD-3-Clause
// meridian_carto graph --format json.
#include <nlohmann/json.hpp>

#include "mca/tools/meridian_carto/formats.hpp"

namespace meridian::carto_tool
{

namespace
{

// Keys keep the order they are written in, as the help text shows them.
using Json = nlohmann::ordered_json;

// A component may name a vertex with any bytes; replacing what is not UTF-8
// beats refusing to print.
std::string dump(const Json &value)
{
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

} // namespace

void write_json(const WeightedGraph &graph, std::string_view component, std::string &out)
{
    // One vertex or edge a line: a host's graph stays readable and greppable,
    // where a fully indented document would spread each over five lines.
    out += "{\n  \"component\": " + dump(component) + ",\n  \"vertices\": [";
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        out += v == 0 ? "\n    " : ",\n    ";
        out += dump(Json{{"name", graph.name(v)}, {"type", vertex_type_name(graph.type(v))}});
    }
    out += graph.vertex_count() == 0 ? "],\n  \"edges\": [" : "\n  ],\n  \"edges\": [";
    bool first = true;
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        for (const OutEdge &edge : graph.out_edges(v)) {
            out += first ? "\n    " : ",\n    ";
            first = false;
            out += dump(Json{
                {"from", graph.name(v)}, {"to", graph.name(edge.target)}, {"weight", edge.weight}});
        }
    }
    out += first ? "]\n}\n" : "\n  ]\n}\n";
}

} // namespace meridian::carto_tool

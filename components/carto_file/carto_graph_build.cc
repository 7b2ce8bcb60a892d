// SPDX-License-Identifier: BSD-3-Clause
#include "components/carto_file/carto_graph_build.hpp"

#include <string>

namespace meridian::carto
{

namespace
{

Error located(std::string_view path, std::size_t line, std::size_t column, const Error &error)
{
    std::string where(path);
    // Vertices and edges made by a program rather than read have no place.
    if (line != 0) {
        where += ":" + std::to_string(line) + ":" + std::to_string(column);
    }
    return make_error(error.status, where + ": " + error.message);
}

} // namespace

Status add_to_graph(const CartoDescription &description, std::string_view path,
                    WeightedGraph &graph)
{
    for (const CartoVertex &vertex : description.vertices) {
        const auto added = graph.add_vertex(vertex.name, static_cast<VertexType>(vertex.type));
        if (!added) {
            return located(path, vertex.line, vertex.column, added.error());
        }
    }
    for (const CartoEdge &edge : description.edges) {
        const Status added = graph.add_edge(edge.from, edge.to, edge.weight);
        if (!added) {
            return located(path, edge.line, edge.column, added.error());
        }
    }
    return success();
}

} // namespace meridian::carto

// SPDX-License-Identifier: BSD-3-Clause
#include "mca/tools/meridian_carto/commands.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "mca/tools/meridian_carto/formats.hpp"
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::carto_tool
{

namespace
{

int fail(const Error &error)
{
    report_error(error.message);
    return 1;
}

int graph_command(const WeightedGraph &whole, const Options &options, std::string &out)
{
    const std::string_view component = carto::selected_component().value_or("unknown");
    // The graph of an interconnect is a copy; the whole graph is used in place.
    WeightedGraph part;
    const WeightedGraph *graph = &whole;
    if (options.types && *options.types != all_vertex_types) {
        auto sub = whole.subgraph(*options.types);
        if (!sub) {
            return fail(sub.error());
        }
        part = std::move(*sub);
        graph = &part;
    }
    switch (options.format) {
    case GraphFormat::carto: {
        auto text = carto::format_carto_text(*graph);
        if (!text) {
            return fail(text.error());
        }
        out += *text;
        break;
    }
    case GraphFormat::dot:
        write_dot(*graph, component, out);
        break;
    case GraphFormat::json:
        write_json(*graph, component, out);
        break;
    }
    return 0;
}

int distance_command(const WeightedGraph &graph, const Options &options, std::string &out)
{
    const auto from = find_vertex(graph, options.vertices.at(0));
    if (!from) {
        return fail(from.error());
    }
    const auto list = graph.distance_list(*from, options.types.value_or(all_vertex_types));
    if (!list) {
        return fail(list.error());
    }
    for (const VertexDistance &line : *list) {
        out += graph.name(line.vertex);
        out += ' ';
        out += line.distance ? to_string(*line.distance) : std::string("unreachable");
        out += '\n';
    }
    return 0;
}

int path_command(const WeightedGraph &graph, const Options &options, std::string &out)
{
    const auto a = find_vertex(graph, options.vertices.at(0));
    if (!a) {
        return fail(a.error());
    }
    const auto b = find_vertex(graph, options.vertices.at(1));
    if (!b) {
        return fail(b.error());
    }
    const auto path = graph.shortest_path(*a, *b);
    if (!path) {
        return fail(path.error());
    }
    if (!path->has_value()) {
        // An answer, not an error: standard output, and a status a script can test.
        out += "no path from " + std::string(graph.name(*a)) + " to " +
               std::string(graph.name(*b)) + "\n";
        return 1;
    }
    for (std::size_t i = 0; i < (*path)->vertices.size(); ++i) {
        if (i > 0) {
            out += " -> ";
        }
        out += graph.name((*path)->vertices[i]);
    }
    out += "\nlength " + to_string((*path)->length) + "\n";
    return 0;
}

int vertices_command(const WeightedGraph &graph, const Options &options, std::string &out)
{
    const TypeMask mask = options.types.value_or(all_vertex_types);
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        if ((type_mask(graph.type(v)) & mask) == 0) {
            continue;
        }
        out += graph.name(v);
        out += ' ';
        out += vertex_type_name(graph.type(v));
        out += '\n';
    }
    return 0;
}

} // namespace

Result<VertexId> find_vertex(const WeightedGraph &graph, const std::string &name,
                             std::size_t list_limit)
{
    auto found = graph.vertex_named(name);
    if (found) {
        return found;
    }
    // Only on this path: the names in order, just the ones shown sorted.
    std::vector<VertexId> ids(graph.vertex_count());
    std::iota(ids.begin(), ids.end(), VertexId{0});
    const std::size_t shown = std::min(list_limit, ids.size());
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(shown), ids.end(),
                      [&graph](VertexId x, VertexId y) {
                          return compare_vertex_names(graph.name(x), graph.name(y)) < 0;
                      });
    std::string message = found.error().message;
    if (ids.empty()) {
        message += "; the graph has no vertices";
    } else {
        message += "; the vertices are: ";
        for (std::size_t i = 0; i < shown; ++i) {
            message += i == 0 ? "" : ", ";
            message += graph.name(ids[i]);
        }
        if (shown < ids.size()) {
            message += ", ... (" + std::to_string(ids.size() - shown) +
                       " more; meridian_carto vertices lists them all)";
        }
    }
    return make_error(found.error().status, message);
}

int run_command(const Options &options, std::string &out)
{
    const auto graph = carto::host_graph();
    if (!graph) {
        // The cause (no component, a bad file...) was reported as it was met.
        return fail(graph.error());
    }
    switch (options.command) {
    case Command::graph:
        return graph_command(**graph, options, out);
    case Command::distance:
        return distance_command(**graph, options, out);
    case Command::path:
        return path_command(**graph, options, out);
    case Command::vertices:
        return vertices_command(**graph, options, out);
    }
    return 1;
}

} // namespace meridian::carto_tool

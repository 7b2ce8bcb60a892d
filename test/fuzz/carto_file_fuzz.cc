// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for carto_file's parser (components/carto_file/
// carto_parser.*).  Besides "nothing crashes", it checks what the parser
// promises for any input:
//   - an error is one line "fuzz.carto:LINE:COLUMN: expected ..., found ...",
//     at a line and column that exist in the input (or 1:1);
//   - a description has vertices, and every edge joins declared vertices;
//   - it builds a graph (carto_graph_build.hpp, as the component does), which
//     the base's writer (format_carto_text) always takes, in the adjacency
//     format exactly when every name gives its vertex's type, and whose text
//     reads back to the same graph (vertices, types, each vertex's edges in
//     order; so the same distances) and writes the same text again.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: components/carto_file/carto_parser.cc components/carto_file/carto_graph_build.cc
// fuzz-sources: mca/carto/base/carto_base_text.cc opal/class/weighted_graph.cc opal/util/strings.cc
// fuzz-sources: opal/util/read_file.cc
// mca/carto/base/carto_base_graph.cc opal/util/output.cc opal/util/error.cc opal/util/c_boundary.cc
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>

#include "components/carto_file/carto_graph_build.hpp"
#include "components/carto_file/carto_parser.hpp"
#include "fuzz_support.hpp"
#include <meridian/mca/carto/base/base.hpp>

namespace
{

using meridian::VertexId;
using meridian::WeightedGraph;
using meridian::carto::CartoDescription;
using meridian::carto::CartoFormat;

constexpr std::string_view path = "fuzz.carto";

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("carto_file_fuzz", promise);
}

void check_error(const std::string &message, std::string_view input)
{
    if (message.find('\n') != std::string::npos) {
        broken("one line per error: " + message);
    }
    if (message.rfind(std::string(path) + ":", 0) != 0) {
        broken("the error names the file: " + message);
    }
    std::size_t pos = path.size() + 1;
    const std::size_t line = meridian::fuzz::read_number(message, pos);
    if (line == 0 || pos >= message.size() || message[pos] != ':') {
        broken("the error gives a line: " + message);
    }
    ++pos;
    const std::size_t column = meridian::fuzz::read_number(message, pos);
    if (column == 0 || message.compare(pos, 11, ": expected ") != 0 ||
        message.find(", found ", pos) == std::string::npos) {
        broken("the error reads LINE:COLUMN: expected ..., found ...: " + message);
    }
    // The line exists, and the column is on it or just past its end.
    std::size_t line_start = 0;
    for (std::size_t n = 1; n < line; ++n) {
        const std::size_t newline = input.find('\n', line_start);
        if (newline == std::string_view::npos) {
            broken("the error's line exists: " + message);
        }
        line_start = newline + 1;
    }
    const std::size_t line_end = std::min(input.find('\n', line_start), input.size());
    if (column > line_end - line_start + 1) {
        broken("the error's column is on its line: " + message);
    }
}

void check_description(const CartoDescription &description)
{
    if (description.vertices.empty()) {
        broken("a description has vertices");
    }
    std::unordered_set<std::string> names;
    for (const auto &vertex : description.vertices) {
        if (!names.insert(vertex.name).second) {
            broken("each vertex once: " + vertex.name);
        }
    }
    for (const auto &edge : description.edges) {
        if (!names.contains(edge.from) || !names.contains(edge.to)) {
            broken("edges join declared vertices: " + edge.from + " -> " + edge.to);
        }
    }
}

WeightedGraph graph_of(const CartoDescription &description)
{
    WeightedGraph graph;
    const auto built = meridian::carto::add_to_graph(description, path, graph);
    if (!built) {
        broken("a description builds a graph: " + built.error().message);
    }
    return graph;
}

// The same graph: vertices in order with their types, each vertex's edges in
// order (a parsed graph has no parallel edges for the writer to merge).
bool same_graph(const WeightedGraph &original, const WeightedGraph &copy)
{
    if (original.vertex_count() != copy.vertex_count() ||
        original.edge_count() != copy.edge_count()) {
        return false;
    }
    for (VertexId v = 0; v < original.vertex_count(); ++v) {
        if (original.name(v) != copy.name(v) || original.type(v) != copy.type(v)) {
            return false;
        }
        const auto ours = original.out_edges(v);
        const auto theirs = copy.out_edges(v);
        if (ours.size() != theirs.size()) {
            return false;
        }
        for (std::size_t k = 0; k < ours.size(); ++k) {
            if (ours[k].target != theirs[k].target || ours[k].weight != theirs[k].weight) {
                return false;
            }
        }
    }
    return true;
}

bool names_give_types(const WeightedGraph &graph)
{
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        if (meridian::carto::vertex_type_from_name(graph.name(v)) != graph.type(v)) {
            return false;
        }
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const CartoFormat format = meridian::carto::detect_carto_format(input);
    const auto parsed = meridian::carto::parse_carto(path, input);
    if (!parsed) {
        check_error(parsed.error().message, input);
        return 0;
    }
    if (parsed->format != format) {
        broken("the parser reads the format detected");
    }
    check_description(*parsed);

    const WeightedGraph graph = graph_of(*parsed);
    const auto written = meridian::carto::format_carto_text(graph);
    if (!written) {
        broken("the writer takes what the parser gives: " + written.error().message);
    }
    const CartoFormat expected =
        names_give_types(graph) ? CartoFormat::adjacency : CartoFormat::open_mpi;
    if (meridian::carto::detect_carto_format(*written) != expected) {
        broken("the writer uses the adjacency format exactly when names give the types:\n" +
               *written);
    }
    const auto again = meridian::carto::parse_carto(path, *written);
    if (!again) {
        broken("written text reads back: " + again.error().message + "\n" + *written);
    }
    const WeightedGraph copy = graph_of(*again);
    if (!same_graph(graph, copy)) {
        broken("written text reads back the same graph:\n" + *written);
    }
    const auto rewritten = meridian::carto::format_carto_text(copy);
    if (!rewritten || *rewritten != *written) {
        broken("writing is stable:\n" + *written);
    }
    return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// meridian_carto graph --format dot: a picture of the graph with Graphviz.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "mca/tools/meridian_carto/formats.hpp"

namespace meridian::carto_tool
{

namespace
{

struct NodeStyle {
    std::string_view shape;
    std::string_view fill;
};

// Shapes tell the kinds apart in print, colours on screen.
NodeStyle style_of(VertexType type)
{
    switch (type) {
    case VertexType::slot:
        return {"box", "#a6cee3"};
    case VertexType::mem:
        return {"cylinder", "#fdbf6f"};
    case VertexType::eth:
        return {"ellipse", "#b2df8a"};
    case VertexType::ib:
        return {"hexagon", "#cab2d6"};
    case VertexType::other:
        break;
    }
    return {"octagon", "#d9d9d9"};
}

// The length of the UTF-8 sequence a byte starts; 0 for one that starts none.
std::size_t sequence_length(unsigned char lead)
{
    if (lead < 0x80) {
        return 1;
    }
    if ((lead & 0xe0) == 0xc0) {
        return 2;
    }
    if ((lead & 0xf0) == 0xe0) {
        return 3;
    }
    return (lead & 0xf8) == 0xf0 ? 4 : 0;
}

// Whether text is UTF-8 (what Graphviz reads by default), as far as the
// shape of its sequences goes.
bool is_utf8(std::string_view text)
{
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = sequence_length(static_cast<unsigned char>(text[i]));
        if (length == 0 || length > text.size() - i) {
            return false;
        }
        for (std::size_t k = 1; k < length; ++k) {
            if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) {
                return false;
            }
        }
        i += length;
    }
    return true;
}

bool is_control(unsigned char byte)
{
    return byte < 0x20 || byte == 0x7f;
}

// A name DOT can carry as it is in a quoted string.  '%' is left out so that
// the escaped IDs of other names (which all contain one) never meet these.
bool is_plain(std::string_view name)
{
    for (const char c : name) {
        if (is_control(static_cast<unsigned char>(c)) || c == '"' || c == '\\' || c == '%') {
            return false;
        }
    }
    return is_utf8(name);
}

// %XX, as in a URL.
std::string percent_code(unsigned char byte)
{
    constexpr std::string_view hex = "0123456789ABCDEF";
    return {'%', hex[byte >> 4], hex[byte & 0xf]};
}

// DOT's quoted strings have no escape for a backslash before the closing
// quote, so a name that is not plain gets an ID with %XX for such bytes.
std::string node_id(std::string_view name)
{
    std::string id = "\"";
    if (is_plain(name)) {
        id += name;
    } else {
        for (const char c : name) {
            const auto u = static_cast<unsigned char>(c);
            if (is_control(u) || u >= 0x80 || c == '"' || c == '\\' || c == '%') {
                id += percent_code(u);
            } else {
                id += c;
            }
        }
    }
    return id + "\"";
}

// The name as it is, for the picture: a quoted string when plain, an HTML
// label with character references otherwise (bytes that are not UTF-8 are
// shown as Latin-1).
std::string node_label(std::string_view name)
{
    if (is_plain(name)) {
        return "\"" + std::string(name) + "\"";
    }
    const bool utf8 = is_utf8(name);
    std::string label = "<";
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\\' || is_control(u) ||
            (u >= 0x80 && !utf8)) {
            label += "&#" + std::to_string(u) + ";";
        } else {
            label += c;
        }
    }
    return label + ">";
}

// The lightest edge of each ordered pair, and whether it is drawn yet.
struct PairState {
    std::uint64_t weight;
    bool drawn = false;
};

std::uint64_t pair_key(VertexId from, VertexId to)
{
    return (static_cast<std::uint64_t>(from) << 32) | to;
}

// The package (Slot vertex) each vertex is drawn in: a Slot is its own; any
// other vertex goes with the Slot of its lightest edge either way (the Slot
// first in the graph's order on a tie); one with no edge to a Slot is drawn
// outside every package.
constexpr VertexId no_package = static_cast<VertexId>(-1);

std::vector<VertexId> package_of(const WeightedGraph &graph)
{
    const VertexId count = graph.vertex_count();
    std::vector<VertexId> package(count, no_package);
    std::vector<std::uint64_t> nearest(count, 0);
    const auto offer = [&](VertexId device, VertexId slot, std::uint64_t weight) {
        if (graph.type(device) == VertexType::slot || graph.type(slot) != VertexType::slot) {
            return;
        }
        if (package[device] == no_package || weight < nearest[device] ||
            (weight == nearest[device] && slot < package[device])) {
            package[device] = slot;
            nearest[device] = weight;
        }
    };
    for (VertexId v = 0; v < count; ++v) {
        if (graph.type(v) == VertexType::slot) {
            package[v] = v;
        }
        for (const OutEdge &edge : graph.out_edges(v)) {
            offer(v, edge.target, edge.weight);
            offer(edge.target, v, edge.weight);
        }
    }
    return package;
}

void write_vertex(const WeightedGraph &graph, VertexId v, const std::string &id,
                  std::string_view indent, std::string &out)
{
    const NodeStyle style = style_of(graph.type(v));
    out += indent;
    out += id + " [label=" + node_label(graph.name(v)) + ", shape=";
    out += style.shape;
    out += ", fillcolor=\"";
    out += style.fill;
    out += "\"];\n";
}

// What the shapes, colours and edge labels mean, for the kinds this graph
// has, in a column beside the map (invisible edges stack its entries).  Its
// node IDs begin with '%', which no vertex's ID can (see is_plain).
void write_legend(const WeightedGraph &graph, std::string &out)
{
    struct Kind {
        VertexType type;
        std::string_view id;
        std::string_view meaning;
    };
    static constexpr Kind kinds[] = {
        {VertexType::slot, "\"%legend-slot\"", "processor package (Slot)"},
        {VertexType::mem, "\"%legend-mem\"", "memory node (MEM)"},
        {VertexType::eth, "\"%legend-eth\"", "Ethernet port (ETH)"},
        {VertexType::ib, "\"%legend-ib\"", "InfiniBand port (IB)"},
        {VertexType::other, "\"%legend-other\"", "other device"},
    };
    std::vector<bool> present(std::size(kinds), false);
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        for (std::size_t k = 0; k < std::size(kinds); ++k) {
            present[k] = present[k] || graph.type(v) == kinds[k].type;
        }
    }
    out += "    subgraph \"cluster_%legend\" {\n"
           "        label=\"legend\"; style=\"rounded,dashed\"; color=\"#999999\";\n";
    std::string_view previous;
    for (std::size_t k = 0; k < std::size(kinds); ++k) {
        if (!present[k]) {
            continue;
        }
        const NodeStyle style = style_of(kinds[k].type);
        out += "        ";
        out += kinds[k].id;
        out += " [label=\"";
        out += kinds[k].meaning;
        out += "\", shape=";
        out += style.shape;
        out += ", fillcolor=\"";
        out += style.fill;
        out += "\"];\n";
        if (!previous.empty()) {
            out += "        ";
            out += previous;
            out += " -> ";
            out += kinds[k].id;
            out += " [style=invis];\n";
        }
        previous = kinds[k].id;
    }
    out += "        \"%legend-notes\" [shape=plaintext, style=\"\", label=\"edge label: distance "
           "(smaller is nearer)\\lframe: a processor package\\land what is nearest to it\\l\"];\n"
           "        ";
    out += previous;
    out += " -> \"%legend-notes\" [style=invis];\n"
           "    }\n";
}

} // namespace

void write_dot(const WeightedGraph &graph, std::string_view component, std::string &out)
{
    out += "// The host's carto graph, mapped by the carto component \"";
    out += component;
    out += "\".\n// Draw it with Graphviz: dot -Tsvg -o carto.svg\n"
           "digraph carto {\n"
           "    graph [fontname=\"Helvetica\"];\n"
           "    node [style=filled, fontname=\"Helvetica\"];\n"
           "    edge [fontname=\"Helvetica\", fontsize=10];\n";
    std::vector<std::string> ids;
    ids.reserve(graph.vertex_count());
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        ids.push_back(node_id(graph.name(v)));
    }
    // A vertex belongs to the subgraph it is first declared in: each
    // package's vertices are declared inside its cluster.
    const std::vector<VertexId> package = package_of(graph);
    std::size_t clusters = 0;
    for (VertexId slot = 0; slot < graph.vertex_count(); ++slot) {
        if (package[slot] != slot) {
            continue;
        }
        out += "    subgraph \"cluster_%package" + std::to_string(clusters++) +
               "\" {\n        label=" + node_label("package " + std::string(graph.name(slot))) +
               "; style=rounded; color=\"#7f7f7f\";\n";
        for (VertexId v = 0; v < graph.vertex_count(); ++v) {
            if (package[v] == slot) {
                write_vertex(graph, v, ids[v], "        ", out);
            }
        }
        out += "    }\n";
    }
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        if (package[v] == no_package) {
            write_vertex(graph, v, ids[v], "    ", out);
        }
    }
    if (graph.vertex_count() > 0) {
        write_legend(graph, out);
    }

    std::unordered_map<std::uint64_t, PairState> pairs;
    pairs.reserve(graph.edge_count());
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        for (const OutEdge &edge : graph.out_edges(v)) {
            const auto [at, added] =
                pairs.try_emplace(pair_key(v, edge.target), PairState{edge.weight});
            if (!added && edge.weight < at->second.weight) {
                at->second.weight = edge.weight;
            }
        }
    }
    // In the graph's order: a pair is drawn where its first edge is.
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        for (const OutEdge &edge : graph.out_edges(v)) {
            PairState &pair = pairs.at(pair_key(v, edge.target));
            if (pair.drawn) {
                continue;
            }
            pair.drawn = true;
            bool both = false;
            if (edge.target != v) {
                const auto back = pairs.find(pair_key(edge.target, v));
                if (back != pairs.end() && !back->second.drawn &&
                    back->second.weight == pair.weight) {
                    back->second.drawn = true;
                    both = true;
                }
            }
            out += "    " + ids[v] + " -> " + ids[edge.target] + " [label=\"" +
                   std::to_string(pair.weight) + (both ? "\", dir=both];\n" : "\"];\n");
        }
    }
    out += "}\n";
}

} // namespace meridian::carto_tool

// SPDX-License-Identifier: BSD-3-Clause
// Type names, the naming rule of the adjacency format, and the carto text
// writer (base.hpp).
#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::carto
{
namespace
{

char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool same_ignoring_case(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](char x, char y) { return lower(x) == lower(y); });
}

bool all_digits(std::string_view text)
{
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct TypeName {
    std::string_view name;
    TypeMask mask;
};

constexpr std::array<TypeName, 6> type_names = {{
    {"SLOT", type_mask(VertexType::slot)},
    {"MEM", type_mask(VertexType::mem)},
    {"ETH", type_mask(VertexType::eth)},
    {"IB", type_mask(VertexType::ib)},
    {"OTHER", type_mask(VertexType::other)},
    {"ALL", all_vertex_types},
}};

// Open MPI 1.3's EDGE type words, as its own example files spelled them.
std::string_view open_mpi_type_word(VertexType type)
{
    switch (type) {
    case VertexType::slot:
        return "slot";
    case VertexType::mem:
        return "Memory";
    case VertexType::eth:
        return "Ethernet";
    case VertexType::ib:
        return "Infiniband";
    case VertexType::other:
        break;
    }
    return "Other";
}

} // namespace

std::optional<TypeMask> parse_type_name(std::string_view name)
{
    for (const TypeName &entry : type_names) {
        if (same_ignoring_case(name, entry.name)) {
            return entry.mask;
        }
    }
    return std::nullopt;
}

std::string_view type_name_choices()
{
    return "SLOT, MEM, ETH, IB, OTHER, ALL";
}

VertexType vertex_type_from_name(std::string_view name)
{
    const auto numbered = [name](std::string_view prefix) {
        return name.size() > prefix.size() &&
               same_ignoring_case(name.substr(0, prefix.size()), prefix) &&
               all_digits(name.substr(prefix.size()));
    };
    if (numbered("MEM")) {
        return VertexType::mem;
    }
    if (numbered("Slot")) {
        return VertexType::slot;
    }
    for (const std::string_view prefix : {"eth", "en", "Eth"}) {
        if (name.starts_with(prefix)) {
            return VertexType::eth;
        }
    }
    for (const std::string_view prefix : {"ib", "mthca", "mlx", "hfi", "MTHCA"}) {
        if (name.starts_with(prefix)) {
            return VertexType::ib;
        }
    }
    return VertexType::other;
}

bool is_carto_name(std::string_view name)
{
    if (name.empty() || name == "EDGE" || name == "BRANCH" || name == "BRANCH_BI_DIR") {
        return false;
    }
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
    });
}

Result<std::string> format_carto_text(const WeightedGraph &graph)
{
    const auto refuse = [](const std::string &why) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "cannot write the carto graph as carto text: " + why);
    };
    if (graph.vertex_count() == 0) {
        return refuse("it has no vertices (a carto file needs at least one)");
    }
    bool names_give_types = true;
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        if (!is_carto_name(graph.name(v))) {
            return refuse("the vertex name " + util::quoted(graph.name(v)) +
                          " is not one carto text can hold (letters, digits, '_', '-', '.'; "
                          "not EDGE, BRANCH or BRANCH_BI_DIR)");
        }
        names_give_types =
            names_give_types && vertex_type_from_name(graph.name(v)) == graph.type(v);
    }

    std::string text;
    if (names_give_types) {
        text = "# carto graph, adjacency format: a vertex in column 1, then its edges as\n"
               "# NAME:WEIGHT entries; an indented line continues the list above it.\n";
    } else {
        // Some name does not give its vertex's type, so the types are stated.
        text = "# carto graph, Open MPI 1.3 format: EDGE <type> <vertex>, then\n"
               "# BRANCH <from> <to>:<weight> ... for the directed edges.\n";
        for (VertexId v = 0; v < graph.vertex_count(); ++v) {
            text += "EDGE ";
            text += open_mpi_type_word(graph.type(v));
            text += ' ';
            text += graph.name(v);
            text += '\n';
        }
    }
    // Long lists wrap onto indented lines, a few entries each, to stay readable.
    constexpr std::size_t entries_per_line = 8;
    // A carto file gives an edge once: of parallel edges, the lightest (the
    // one every query uses) is written, where the first of them was.
    std::unordered_map<VertexId, std::size_t> position;
    std::vector<OutEdge> kept;
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        position.clear();
        kept.clear();
        for (const OutEdge &edge : graph.out_edges(v)) {
            const auto [at, added] = position.emplace(edge.target, kept.size());
            if (added) {
                kept.push_back(edge);
            } else {
                kept[at->second].weight = std::min(kept[at->second].weight, edge.weight);
            }
        }
        if (!names_give_types && kept.empty()) {
            continue; // the EDGE line declared it
        }
        if (!names_give_types) {
            text += "BRANCH ";
        }
        text += graph.name(v);
        for (std::size_t k = 0; k < kept.size(); ++k) {
            if (names_give_types) {
                text += k == 0 ? " " : k % entries_per_line == 0 ? ",\n    " : ", ";
            } else {
                // Open MPI's statements are one line each.
                text += ' ';
            }
            text += graph.name(kept[k].target);
            text += ':';
            text += std::to_string(kept[k].weight);
        }
        text += '\n';
    }
    return text;
}

} // namespace meridian::carto

// A plain switch with nothing to throw, so it needs no C boundary guard.
extern "C" const char *meridian_mca_carto_type_name(unsigned int types)
{
    switch (types) {
    case MCA_CARTO_SLOT:
        return "SLOT";
    case MCA_CARTO_MEM:
        return "MEM";
    case MCA_CARTO_ETH:
        return "ETH";
    case MCA_CARTO_IB:
        return "IB";
    case MCA_CARTO_OTHER:
        return "OTHER";
    case MCA_CARTO_ALL:
        return "ALL";
    default:
        return nullptr;
    }
}

// SPDX-License-Identifier: BSD-3-Clause
// The weighted graph carto keeps (opal/class/weighted_graph.hpp): the seed's
// figure 3 distances, name order, unreachable vertices, direction, errors
// with their messages, paths, per-interconnect subgraphs, lengths past 2^64, the
// lazy CSR merge, copies, threads, and Dijkstra against Bellman-Ford on
// random graphs.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test/support/meridian_test.hpp"
#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/error.h>

using meridian::all_vertex_types;
using meridian::Path;
using meridian::TypeMask;
using meridian::VertexDistance;
using meridian::VertexId;
using meridian::VertexType;
using meridian::WeightedGraph;

namespace
{

constexpr std::uint64_t max_u64 = std::numeric_limits<std::uint64_t>::max();

// ---------------------------------------------------------------- helpers

VertexId add(WeightedGraph &graph, const char *name, VertexType type)
{
    auto id = graph.add_vertex(name, type);
    ck_assert_msg(id.ok(), "add_vertex(%s): %s", name, id.ok() ? "" : id.error().message.c_str());
    return *id;
}

void connect(WeightedGraph &graph, const char *from, const char *to, std::uint64_t weight)
{
    const auto done = graph.add_edge(std::string_view(from), std::string_view(to), weight);
    ck_assert_msg(done.ok(), "add_edge(%s, %s): %s", from, to,
                  done.ok() ? "" : done.error().message.c_str());
}

VertexId id_of(const WeightedGraph &graph, const char *name)
{
    const auto id = graph.find(name);
    ck_assert_msg(id.has_value(), "no vertex %s", name);
    return *id;
}

// A distance list as text, "NAME DISTANCE" or "NAME unreachable" per line,
// so a failure shows the whole list.
std::string list_text(const WeightedGraph &graph, const std::vector<VertexDistance> &list)
{
    std::string text;
    for (const VertexDistance &entry : list) {
        text += std::string(graph.name(entry.vertex)) + " " +
                (entry.distance ? to_string(*entry.distance) : std::string("unreachable")) + "\n";
    }
    return text;
}

std::string distance_text(const WeightedGraph &graph, const char *from, TypeMask mask)
{
    const auto list = graph.distance_list(id_of(graph, from), mask);
    ck_assert_msg(list.ok(), "distance_list: %s", list.ok() ? "" : list.error().message.c_str());
    return list_text(graph, *list);
}

std::string path_text(const WeightedGraph &graph, const Path &path)
{
    std::string text;
    for (const VertexId v : path.vertices) {
        text += std::string(graph.name(v)) + " ";
    }
    return text + to_string(path.length);
}

std::string out_edges_text(const WeightedGraph &graph, const char *from)
{
    std::string text;
    for (const meridian::OutEdge &edge : graph.out_edges(id_of(graph, from))) {
        text += std::string(graph.name(edge.target)) + ":" + std::to_string(edge.weight) + " ";
    }
    return text;
}

template <typename T>
void expect_error(const meridian::Result<T> &result, int status, const std::string &message)
{
    ck_assert_msg(!result.ok(), "expected the error \"%s\"", message.c_str());
    ck_assert_int_eq(result.error().status, status);
    ck_assert_text_eq(result.error().message, message);
}

// The seed's figure 3 (seed 004, 2.1.1): each line a vertex, then the
// vertices it connects to with the edge's weight.
struct AdjacencyLine {
    const char *vertex;
    VertexType type;
    std::vector<std::pair<const char *, std::uint64_t>> edges;
};

WeightedGraph figure3()
{
    const std::vector<AdjacencyLine> lines = {
        {"MEM0", VertexType::mem, {{"Slot0", 0}}},
        {"Eth0", VertexType::eth, {{"Slot0", 1}}},
        {"MTHCA0", VertexType::ib, {{"Slot0", 1}}},
        {"Slot0",
         VertexType::slot,
         {{"Eth0", 1}, {"MTHCA0", 1}, {"MEM0", 0}, {"Slot2", 1}, {"Slot1", 1}}},
        {"Slot1", VertexType::slot, {{"MEM1", 0}, {"Slot0", 1}, {"Slot3", 1}}},
        {"MEM1", VertexType::mem, {{"Slot1", 0}}},
        {"Slot2", VertexType::slot, {{"MEM2", 0}, {"Slot0", 1}, {"Slot3", 1}}},
        {"MEM2", VertexType::mem, {{"Slot2", 0}}},
        {"Slot3",
         VertexType::slot,
         {{"Eth1", 1}, {"MEM3", 0}, {"MTHCA1", 1}, {"Slot1", 1}, {"Slot2", 1}}},
        {"Eth1", VertexType::eth, {{"Slot3", 1}}},
        {"MEM3", VertexType::mem, {{"Slot3", 0}}},
        {"MTHCA1", VertexType::ib, {{"Slot3", 1}}},
    };
    WeightedGraph graph;
    for (const AdjacencyLine &line : lines) {
        add(graph, line.vertex, line.type);
    }
    for (const AdjacencyLine &line : lines) {
        for (const auto &[to, weight] : line.edges) {
            connect(graph, line.vertex, to, weight);
        }
    }
    return graph;
}

// Exact sums for the reference, in the compiler's 128-bit integer rather than
// the library's two words: a check that does not share the code it checks.
__extension__ typedef unsigned __int128 Wide;

std::string wide_text(Wide value)
{
    std::string digits;
    do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
        value /= 10;
    } while (value != 0);
    return digits;
}

std::string length_text(const std::optional<Wide> &length)
{
    return length ? wide_text(*length) : std::string("unreachable");
}

std::string length_text(const std::optional<meridian::PathLength> &length)
{
    return length ? to_string(*length) : std::string("unreachable");
}

// Bellman-Ford with exact sums: the reference for Dijkstra.
std::vector<std::optional<Wide>> bellman_ford(const WeightedGraph &graph, VertexId source)
{
    std::vector<std::optional<Wide>> distance(graph.vertex_count());
    distance[source] = 0;
    for (std::size_t round = 0; round < graph.vertex_count(); ++round) {
        bool changed = false;
        for (VertexId v = 0; v < graph.vertex_count(); ++v) {
            if (!distance[v]) {
                continue;
            }
            for (const meridian::OutEdge &edge : graph.out_edges(v)) {
                const Wide sum = *distance[v] + edge.weight;
                if (!distance[edge.target] || sum < *distance[edge.target]) {
                    distance[edge.target] = sum;
                    changed = true;
                }
            }
        }
        if (!changed) {
            break;
        }
    }
    return distance;
}

} // namespace

// ---------------------------------------------------------------- the seed

START_TEST(figure3_memory_nodes_from_slot1)
{
    const WeightedGraph graph = figure3();
    ck_assert_uint_eq(graph.vertex_count(), 12);
    ck_assert_uint_eq(graph.edge_count(), 24);
    // The seed's example, 2.3.4: running on slot 1, the memory nodes are
    // MEM1:0, MEM0:1, MEM3:1, MEM2:2.
    ck_assert_text_eq(distance_text(graph, "Slot1", type_mask(VertexType::mem)),
                      "MEM1 0\nMEM0 1\nMEM3 1\nMEM2 2\n");
}
END_TEST

START_TEST(figure3_every_vertex_from_slot1)
{
    const WeightedGraph graph = figure3();
    // The source itself is listed (distance 0) since its type is asked for.
    ck_assert_text_eq(distance_text(graph, "Slot1", all_vertex_types),
                      "MEM1 0\nSlot1 0\n"
                      "MEM0 1\nMEM3 1\nSlot0 1\nSlot3 1\n"
                      "Eth0 2\nEth1 2\nMEM2 2\nMTHCA0 2\nMTHCA1 2\nSlot2 2\n");
    ck_assert_text_eq(distance_text(graph, "Slot1", VertexType::eth | VertexType::ib),
                      "Eth0 2\nEth1 2\nMTHCA0 2\nMTHCA1 2\n");
    // Not listed when its type is not asked for.
    ck_assert_text_eq(distance_text(graph, "MEM0", type_mask(VertexType::mem)),
                      "MEM0 0\nMEM1 1\nMEM2 1\nMEM3 2\n");
    ck_assert_text_eq(distance_text(graph, "Eth0", type_mask(VertexType::mem)),
                      "MEM0 1\nMEM1 2\nMEM2 2\nMEM3 3\n");
    ck_assert_text_eq(distance_text(graph, "Slot1", 0), "");
}
END_TEST

START_TEST(figure3_find_and_accessors)
{
    const WeightedGraph graph = figure3();
    const VertexId slot3 = id_of(graph, "Slot3");
    ck_assert_uint_eq(slot3, 8); // ids in the order added
    ck_assert_text_eq(graph.name(slot3), "Slot3");
    ck_assert(graph.type(slot3) == VertexType::slot);
    ck_assert(graph.type(id_of(graph, "MTHCA1")) == VertexType::ib);
    ck_assert(!graph.find("slot3").has_value()); // names are case-sensitive
    ck_assert(!graph.find("").has_value());
    ck_assert_text_eq(out_edges_text(graph, "Slot3"), "Eth1:1 MEM3:0 MTHCA1:1 Slot1:1 Slot2:1 ");
    ck_assert_text_eq(out_edges_text(graph, "MEM3"), "Slot3:0 ");
    const auto named = graph.vertex_named("MEM2");
    ck_assert(named.ok());
    ck_assert_uint_eq(*named, 7);
}
END_TEST

// ---------------------------------------------------------------- order

START_TEST(equal_distances_go_by_name_in_natural_order)
{
    WeightedGraph graph;
    add(graph, "hub", VertexType::other);
    for (const char *name : {"Slot10", "Slot2", "Slot1", "MEM9", "MEM10", "eth0", "Eth0"}) {
        add(graph, name, name[0] == 'S' ? VertexType::slot : VertexType::mem);
        connect(graph, "hub", name, 3);
    }
    ck_assert_text_eq(distance_text(graph, "hub", all_vertex_types),
                      "hub 0\nEth0 3\nMEM9 3\nMEM10 3\nSlot1 3\nSlot2 3\nSlot10 3\neth0 3\n");
}
END_TEST

START_TEST(name_order_is_natural_and_total)
{
    using meridian::compare_vertex_names;
    ck_assert_int_lt(compare_vertex_names("Slot2", "Slot10"), 0);
    ck_assert_int_gt(compare_vertex_names("Slot10", "Slot2"), 0);
    ck_assert_int_lt(compare_vertex_names("MEM01", "MEM1"), 0); // equal numbers: bytes decide
    ck_assert_int_lt(compare_vertex_names("a007", "a7"), 0);
    ck_assert_int_lt(compare_vertex_names("a", "a0"), 0);
    ck_assert_int_lt(compare_vertex_names("x9y", "x10"), 0);
    ck_assert_int_lt(compare_vertex_names("X1", "x1"), 0);
    ck_assert_int_lt(compare_vertex_names("ib0", "ib0.1"), 0);
    ck_assert_int_eq(compare_vertex_names("MTHCA1", "MTHCA1"), 0);
    ck_assert_int_eq(compare_vertex_names("", ""), 0);
    ck_assert_int_lt(compare_vertex_names("", "0"), 0);

    // A total order: antisymmetric, zero only for equal strings, transitive.
    std::mt19937 random(7);
    const std::string alphabet = "a0019/";
    std::vector<std::string> names;
    for (int i = 0; i < 60; ++i) {
        std::string name;
        const int length = static_cast<int>(random() % 5);
        for (int k = 0; k < length; ++k) {
            name += alphabet[random() % alphabet.size()];
        }
        names.push_back(name);
    }
    const auto sign = [](int value) { return (value > 0) - (value < 0); };
    for (const std::string &a : names) {
        for (const std::string &b : names) {
            const int ab = compare_vertex_names(a, b);
            ck_assert_int_eq(sign(ab), -sign(compare_vertex_names(b, a)));
            ck_assert_msg((ab == 0) == (a == b), "\"%s\" vs \"%s\"", a.c_str(), b.c_str());
            for (const std::string &c : names) {
                if (ab < 0 && compare_vertex_names(b, c) < 0) {
                    ck_assert_msg(compare_vertex_names(a, c) < 0, "%s < %s < %s", a.c_str(),
                                  b.c_str(), c.c_str());
                }
            }
        }
    }
}
END_TEST

START_TEST(unreachable_vertices_come_last_by_name)
{
    WeightedGraph graph;
    add(graph, "Slot0", VertexType::slot);
    add(graph, "MEM3", VertexType::mem); // nothing leads here
    add(graph, "MEM0", VertexType::mem);
    add(graph, "MEM2", VertexType::mem); // nor here
    add(graph, "MEM1", VertexType::mem);
    connect(graph, "Slot0", "MEM1", 7);
    connect(graph, "Slot0", "MEM0", 9);
    connect(graph, "MEM3", "Slot0", 1); // away from the source only
    const auto list = graph.distance_list(id_of(graph, "Slot0"), type_mask(VertexType::mem));
    ck_assert(list.ok());
    ck_assert_text_eq(list_text(graph, *list),
                      "MEM1 7\nMEM0 9\nMEM2 unreachable\nMEM3 unreachable\n");
    ck_assert(!(*list)[2].distance.has_value()); // no magic number: no value at all
    const auto distances = graph.shortest_distances(id_of(graph, "Slot0"));
    ck_assert(distances.ok());
    ck_assert_uint_eq(distances->size(), 5);
    ck_assert(!(*distances)[id_of(graph, "MEM3")].has_value());
    ck_assert_uint_eq((*distances)[id_of(graph, "MEM0")]->saturated(), 9);
}
END_TEST

START_TEST(edges_are_directed)
{
    WeightedGraph graph;
    add(graph, "Slot0", VertexType::slot);
    add(graph, "eth0", VertexType::eth);
    connect(graph, "Slot0", "eth0", 4);
    ck_assert_text_eq(distance_text(graph, "Slot0", all_vertex_types), "Slot0 0\neth0 4\n");
    ck_assert_text_eq(distance_text(graph, "eth0", all_vertex_types),
                      "eth0 0\nSlot0 unreachable\n");
    connect(graph, "eth0", "Slot0", 6); // the way back may weigh otherwise
    ck_assert_text_eq(distance_text(graph, "eth0", all_vertex_types), "eth0 0\nSlot0 6\n");
    ck_assert_text_eq(distance_text(graph, "Slot0", all_vertex_types), "Slot0 0\neth0 4\n");
}
END_TEST

START_TEST(parallel_edges_and_loops_use_the_lightest)
{
    WeightedGraph graph;
    add(graph, "a", VertexType::slot);
    add(graph, "b", VertexType::slot);
    connect(graph, "a", "b", 9);
    connect(graph, "a", "b", 2);
    connect(graph, "a", "a", 0);
    connect(graph, "b", "b", 5);
    ck_assert_uint_eq(graph.edge_count(), 4);
    ck_assert_text_eq(out_edges_text(graph, "a"), "b:9 b:2 a:0 ");
    ck_assert_text_eq(distance_text(graph, "a", all_vertex_types), "a 0\nb 2\n");
}
END_TEST

// ---------------------------------------------------------------- errors

START_TEST(duplicate_vertex_is_an_error)
{
    WeightedGraph graph = figure3();
    expect_error(graph.add_vertex("Slot0", VertexType::slot), MERIDIAN_ERR_EXISTS,
                 "duplicate vertex \"Slot0\" (already added as SLOT)");
    expect_error(graph.add_vertex("MEM2", VertexType::eth), MERIDIAN_ERR_EXISTS,
                 "duplicate vertex \"MEM2\" (already added as MEM)");
    ck_assert_uint_eq(graph.vertex_count(), 12); // unchanged
    ck_assert(graph.type(id_of(graph, "MEM2")) == VertexType::mem);
}
END_TEST

START_TEST(bad_vertex_name_or_type_is_an_error)
{
    WeightedGraph graph;
    expect_error(graph.add_vertex("", VertexType::slot), MERIDIAN_ERR_BAD_PARAM,
                 "empty vertex name");
    expect_error(graph.add_vertex("x", static_cast<VertexType>(0x3)), MERIDIAN_ERR_BAD_PARAM,
                 "bad vertex type 0x3 for \"x\": expected one of SLOT (0x1), MEM (0x2), "
                 "ETH (0x4), IB (0x8), OTHER (0x10)");
    expect_error(graph.add_vertex("x", static_cast<VertexType>(0x20)), MERIDIAN_ERR_BAD_PARAM,
                 "bad vertex type 0x20 for \"x\": expected one of SLOT (0x1), MEM (0x2), "
                 "ETH (0x4), IB (0x8), OTHER (0x10)");
    expect_error(graph.add_vertex("x", static_cast<VertexType>(0)), MERIDIAN_ERR_BAD_PARAM,
                 "bad vertex type 0x0 for \"x\": expected one of SLOT (0x1), MEM (0x2), "
                 "ETH (0x4), IB (0x8), OTHER (0x10)");
    // Control characters are shown escaped.
    expect_error(graph.add_vertex("a\nb", static_cast<VertexType>(0)), MERIDIAN_ERR_BAD_PARAM,
                 "bad vertex type 0x0 for \"a\\x0ab\": expected one of SLOT (0x1), MEM (0x2), "
                 "ETH (0x4), IB (0x8), OTHER (0x10)");
    ck_assert_uint_eq(graph.vertex_count(), 0);
    ck_assert_text_eq(meridian::vertex_type_name(VertexType::slot), "SLOT");
    ck_assert_text_eq(meridian::vertex_type_name(VertexType::mem), "MEM");
    ck_assert_text_eq(meridian::vertex_type_name(VertexType::eth), "ETH");
    ck_assert_text_eq(meridian::vertex_type_name(VertexType::ib), "IB");
    ck_assert_text_eq(meridian::vertex_type_name(VertexType::other), "OTHER");
    ck_assert_text_eq(meridian::vertex_type_name(static_cast<VertexType>(6)), "?");
}
END_TEST

START_TEST(unknown_vertex_is_an_error)
{
    WeightedGraph graph;
    add(graph, "Slot0", VertexType::slot);
    expect_error(graph.add_edge(0, 1, 1), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 1 (the graph has 1 vertex)");
    add(graph, "MEM0", VertexType::mem);
    expect_error(graph.add_edge(7, 0, 1), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 7 (the graph has 2 vertices)");
    expect_error(graph.add_edge(std::string_view("Slot0"), std::string_view("Slot9"), 1),
                 MERIDIAN_ERR_NOT_FOUND, "unknown vertex \"Slot9\" (did you mean \"Slot0\"?)");
    expect_error(graph.add_edge(std::string_view("ib0"), std::string_view("MEM0"), 1),
                 MERIDIAN_ERR_NOT_FOUND, "unknown vertex \"ib0\"");
    expect_error(graph.vertex_named("mem0"), MERIDIAN_ERR_NOT_FOUND,
                 "unknown vertex \"mem0\" (did you mean \"MEM0\"?)");
    ck_assert_uint_eq(graph.edge_count(), 0); // nothing half-added

    expect_error(graph.distance_list(2, all_vertex_types), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 2 (the graph has 2 vertices)");
    expect_error(graph.shortest_distances(2), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 2 (the graph has 2 vertices)");
    expect_error(graph.shortest_path(0, 9), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 9 (the graph has 2 vertices)");
    expect_error(graph.shortest_path(5, 0), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 5 (the graph has 2 vertices)");
}
END_TEST

START_TEST(bad_type_mask_is_an_error)
{
    const WeightedGraph graph = figure3();
    const char *const message = "bad vertex type mask 0x20: expected an OR of SLOT (0x1), "
                                "MEM (0x2), ETH (0x4), IB (0x8), OTHER (0x10)";
    expect_error(graph.distance_list(0, 0x20), MERIDIAN_ERR_BAD_PARAM, message);
    expect_error(graph.subgraph(0x21), MERIDIAN_ERR_BAD_PARAM,
                 "bad vertex type mask 0x21: expected an OR of SLOT (0x1), MEM (0x2), "
                 "ETH (0x4), IB (0x8), OTHER (0x10)");
}
END_TEST

// ---------------------------------------------------------------- paths

START_TEST(shortest_path_and_its_length)
{
    const WeightedGraph graph = figure3();
    const auto path = graph.shortest_path(id_of(graph, "Slot1"), id_of(graph, "Eth0"));
    ck_assert(path.ok());
    ck_assert(path->has_value());
    ck_assert_text_eq(path_text(graph, **path), "Slot1 Slot0 Eth0 2");

    const auto memory = graph.shortest_path(id_of(graph, "MEM0"), id_of(graph, "MEM1"));
    ck_assert(memory.ok() && memory->has_value());
    ck_assert_text_eq(path_text(graph, **memory), "MEM0 Slot0 Slot1 MEM1 1");

    const auto itself = graph.shortest_path(id_of(graph, "MEM3"), id_of(graph, "MEM3"));
    ck_assert(itself.ok() && itself->has_value());
    ck_assert_text_eq(path_text(graph, **itself), "MEM3 0");
}
END_TEST

START_TEST(no_path_is_no_value)
{
    WeightedGraph graph;
    add(graph, "Slot0", VertexType::slot);
    add(graph, "Slot1", VertexType::slot);
    add(graph, "MEM0", VertexType::mem);
    connect(graph, "Slot1", "Slot0", 1);
    const auto path = graph.shortest_path(0, 1);
    ck_assert(path.ok());
    ck_assert(!path->has_value());
    const auto isolated = graph.shortest_path(2, 0);
    ck_assert(isolated.ok());
    ck_assert(!isolated->has_value());
}
END_TEST

// ---------------------------------------------------------------- subgraphs

START_TEST(infiniband_graph_keeps_slots_and_ports)
{
    const WeightedGraph graph = figure3();
    const auto ib = graph.subgraph(type_mask(VertexType::ib));
    ck_assert(ib.ok());
    std::string names;
    for (VertexId v = 0; v < ib->vertex_count(); ++v) {
        names += std::string(ib->name(v)) + " ";
    }
    // No memory nodes, no Ethernet ports; the order of the whole graph.
    ck_assert_text_eq(names, "MTHCA0 Slot0 Slot1 Slot2 Slot3 MTHCA1 ");
    ck_assert_uint_eq(ib->edge_count(), 12);
    ck_assert_text_eq(out_edges_text(*ib, "Slot0"), "MTHCA0:1 Slot2:1 Slot1:1 ");
    ck_assert_text_eq(out_edges_text(*ib, "Slot3"), "MTHCA1:1 Slot1:1 Slot2:1 ");
    ck_assert_text_eq(out_edges_text(*ib, "MTHCA1"), "Slot3:1 ");
    ck_assert(!ib->find("MEM0").has_value());
    ck_assert(!ib->find("Eth1").has_value());
    ck_assert_text_eq(distance_text(*ib, "Slot1", type_mask(VertexType::ib)),
                      "MTHCA0 2\nMTHCA1 2\n");
}
END_TEST

START_TEST(memory_and_ethernet_graphs)
{
    const WeightedGraph graph = figure3();
    const auto mem = graph.subgraph(type_mask(VertexType::mem));
    ck_assert(mem.ok());
    ck_assert_uint_eq(mem->vertex_count(), 8);
    ck_assert_uint_eq(mem->edge_count(), 16);
    ck_assert(!mem->find("MTHCA0").has_value());
    ck_assert_text_eq(distance_text(*mem, "Slot1", type_mask(VertexType::mem)),
                      "MEM1 0\nMEM0 1\nMEM3 1\nMEM2 2\n");

    const auto eth = graph.subgraph(type_mask(VertexType::eth));
    ck_assert(eth.ok());
    ck_assert_uint_eq(eth->vertex_count(), 6);
    ck_assert_uint_eq(eth->edge_count(), 12);
    ck_assert_text_eq(out_edges_text(*eth, "Slot0"), "Eth0:1 Slot2:1 Slot1:1 ");

    const auto slots = graph.subgraph(0); // the processors alone
    ck_assert(slots.ok());
    ck_assert_uint_eq(slots->vertex_count(), 4);
    ck_assert_uint_eq(slots->edge_count(), 8);

    const auto all = graph.subgraph(all_vertex_types);
    ck_assert(all.ok());
    ck_assert_uint_eq(all->vertex_count(), 12);
    ck_assert_uint_eq(all->edge_count(), 24);
    ck_assert_text_eq(distance_text(*all, "Slot1", all_vertex_types),
                      distance_text(graph, "Slot1", all_vertex_types));
}
END_TEST

START_TEST(subgraph_drops_paths_through_removed_vertices)
{
    // A slot reaches a port only through a memory node: not in the IB graph.
    WeightedGraph graph;
    add(graph, "Slot0", VertexType::slot);
    add(graph, "MEM0", VertexType::mem);
    add(graph, "ib0", VertexType::ib);
    connect(graph, "Slot0", "MEM0", 1);
    connect(graph, "MEM0", "ib0", 1);
    ck_assert_text_eq(distance_text(graph, "Slot0", type_mask(VertexType::ib)), "ib0 2\n");
    const auto ib = graph.subgraph(type_mask(VertexType::ib));
    ck_assert(ib.ok());
    ck_assert_uint_eq(ib->edge_count(), 0);
    ck_assert_text_eq(distance_text(*ib, "Slot0", type_mask(VertexType::ib)), "ib0 unreachable\n");
}
END_TEST

// ---------------------------------------------------------------- overflow

START_TEST(distances_past_uint64_are_exact)
{
    WeightedGraph graph;
    for (const char *name : {"a", "b", "c", "d", "e", "f"}) {
        add(graph, name, VertexType::other);
    }
    connect(graph, "a", "b", max_u64);
    connect(graph, "b", "c", 1);                      // 2^64
    connect(graph, "a", "d", std::uint64_t(1) << 63); // 2^63 + 2^63 = 2^64
    connect(graph, "d", "e", (std::uint64_t(1) << 63) + 1);
    connect(graph, "a", "f", max_u64); // heavy direct edge ...
    connect(graph, "d", "f", 5);       // ... loses to 2^63 + 5
    ck_assert_text_eq(distance_text(graph, "a", all_vertex_types),
                      "a 0\n"
                      "d 9223372036854775808\n"
                      "f 9223372036854775813\n"
                      "b 18446744073709551615\nc 18446744073709551616\ne 18446744073709551617\n");
    const auto list = graph.distance_list(id_of(graph, "a"), all_vertex_types);
    ck_assert(list.ok());
    ck_assert((*list)[3].distance->fits_uint64());
    ck_assert(!(*list)[4].distance->fits_uint64());
    ck_assert_uint_eq((*list)[4].distance->saturated(), max_u64);
    // Past 2^64, but reachable: not confused with "no path".
    const auto path = graph.shortest_path(id_of(graph, "a"), id_of(graph, "c"));
    ck_assert(path.ok() && path->has_value());
    ck_assert_text_eq(path_text(graph, **path), "a b c 18446744073709551616");
    const auto back = graph.shortest_path(id_of(graph, "c"), id_of(graph, "a"));
    ck_assert(back.ok() && !back->has_value());
}
END_TEST

// Lengths past 2^64 sort by their true value, not by name at a common cap.
START_TEST(distances_past_uint64_sort_by_length)
{
    WeightedGraph graph;
    for (const char *name : {"a", "b", "c", "z"}) {
        add(graph, name, VertexType::other);
    }
    connect(graph, "a", "b", max_u64 - 1);
    connect(graph, "b", "c", 3); // 2^64 + 1
    connect(graph, "a", "z", max_u64);
    ck_assert_text_eq(
        distance_text(graph, "a", all_vertex_types),
        "a 0\nb 18446744073709551614\nz 18446744073709551615\nc 18446744073709551617\n");
}
END_TEST

// Two paths past 2^64: the shorter one is taken, whichever was met first.
START_TEST(paths_past_uint64_are_shortest)
{
    WeightedGraph graph;
    for (const char *name : {"a", "x", "y", "y2", "t"}) {
        add(graph, name, VertexType::other);
    }
    connect(graph, "a", "x", max_u64);
    connect(graph, "x", "t", 5);                       // 2^64 + 4
    connect(graph, "a", "y", std::uint64_t(1) << 63);  // 2^63
    connect(graph, "y", "y2", std::uint64_t(1) << 63); // 2^64
    connect(graph, "y2", "t", 1);                      // 2^64 + 1
    const auto path = graph.shortest_path(id_of(graph, "a"), id_of(graph, "t"));
    ck_assert(path.ok() && path->has_value());
    ck_assert_text_eq(path_text(graph, **path), "a y y2 t 18446744073709551617");
    // The largest: 2^32 - 1 edges of 2^64 - 1 would pass 2^95; a long chain
    // of heavy edges shows the words carry.
    WeightedGraph chain;
    std::string previous = "v0";
    add(chain, "v0", VertexType::other);
    for (int i = 1; i <= 1000; ++i) {
        const std::string name = "v" + std::to_string(i);
        add(chain, name.c_str(), VertexType::other);
        connect(chain, previous.c_str(), name.c_str(), max_u64);
        previous = name;
    }
    const auto far = chain.shortest_path(id_of(chain, "v0"), id_of(chain, "v1000"));
    ck_assert(far.ok() && far->has_value());
    ck_assert_text_eq(to_string((*far)->length), "18446744073709551615000"); // 1000 * (2^64 - 1)
}
END_TEST

// PathLength's decimal text at the word boundaries.
START_TEST(path_length_text)
{
    ck_assert_text_eq(to_string(meridian::PathLength()), "0");
    ck_assert_text_eq(to_string(meridian::PathLength(max_u64)), "18446744073709551615");
    meridian::PathLength length(max_u64);
    length += 1;
    ck_assert_text_eq(to_string(length), "18446744073709551616");
    ck_assert(!length.fits_uint64());
    ck_assert(meridian::PathLength(max_u64) < length);
    length += max_u64;
    ck_assert_text_eq(to_string(length), "36893488147419103231");
    // 10^20: chunks of nine zeros inside the number keep their zeros.
    constexpr std::uint64_t ten_to_19 = 10000000000000000000ULL;
    meridian::PathLength round(ten_to_19);
    for (int i = 0; i < 9; ++i) {
        round += ten_to_19;
    }
    ck_assert_text_eq(to_string(round), "100000000000000000000");
}
END_TEST

// ---------------------------------------------------------------- edge cases

START_TEST(empty_graph)
{
    const WeightedGraph graph;
    ck_assert_uint_eq(graph.vertex_count(), 0);
    ck_assert_uint_eq(graph.edge_count(), 0);
    ck_assert(!graph.find("Slot0").has_value());
    expect_error(graph.vertex_named("Slot0"), MERIDIAN_ERR_NOT_FOUND, "unknown vertex \"Slot0\"");
    expect_error(graph.distance_list(0, all_vertex_types), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 0 (the graph has 0 vertices)");
    expect_error(graph.shortest_path(0, 0), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 0 (the graph has 0 vertices)");
    const auto sub = graph.subgraph(all_vertex_types);
    ck_assert(sub.ok());
    ck_assert_uint_eq(sub->vertex_count(), 0);
    WeightedGraph copy = graph;
    expect_error(copy.add_edge(0, 0, 1), MERIDIAN_ERR_NOT_FOUND,
                 "no vertex with id 0 (the graph has 0 vertices)");
}
END_TEST

START_TEST(edges_added_between_queries_keep_their_order)
{
    // Out of order sources (the merge sorts them) and in order (the merge
    // leaves them in place), with queries in between.
    WeightedGraph graph;
    for (const char *name : {"v0", "v1", "v2", "v3"}) {
        add(graph, name, VertexType::slot);
    }
    connect(graph, "v2", "v3", 1);
    connect(graph, "v0", "v1", 1);
    connect(graph, "v2", "v0", 7);
    ck_assert_text_eq(out_edges_text(graph, "v2"), "v3:1 v0:7 ");
    connect(graph, "v1", "v2", 1);
    connect(graph, "v0", "v2", 5);
    ck_assert_text_eq(out_edges_text(graph, "v0"), "v1:1 v2:5 ");
    ck_assert_text_eq(distance_text(graph, "v0", all_vertex_types), "v0 0\nv1 1\nv2 2\nv3 3\n");
    add(graph, "v4", VertexType::mem); // after the merge: no edges yet
    ck_assert_text_eq(out_edges_text(graph, "v4"), "");
    connect(graph, "v3", "v4", 2); // the last vertex: appended in place
    connect(graph, "v4", "v0", 2);
    ck_assert_text_eq(out_edges_text(graph, "v3"), "v4:2 ");
    ck_assert_text_eq(distance_text(graph, "v0", all_vertex_types),
                      "v0 0\nv1 1\nv2 2\nv3 3\nv4 5\n");
    ck_assert_uint_eq(graph.edge_count(), 7);
}
END_TEST

START_TEST(copies_are_independent_and_moves_empty_the_source)
{
    WeightedGraph original = figure3();
    WeightedGraph copy = original;
    add(copy, "MEM9", VertexType::mem);
    connect(copy, "Slot1", "MEM9", 0);
    ck_assert_uint_eq(original.vertex_count(), 12);
    ck_assert(!original.find("MEM9").has_value());
    ck_assert_text_eq(distance_text(original, "Slot1", type_mask(VertexType::mem)),
                      "MEM1 0\nMEM0 1\nMEM3 1\nMEM2 2\n");
    ck_assert_text_eq(distance_text(copy, "Slot1", type_mask(VertexType::mem)),
                      "MEM1 0\nMEM9 0\nMEM0 1\nMEM3 1\nMEM2 2\n");

    WeightedGraph moved = std::move(copy);
    ck_assert_uint_eq(moved.vertex_count(), 13);
    ck_assert_uint_eq(copy.vertex_count(), 0); // NOLINT(bugprone-use-after-move): documented
    ck_assert_uint_eq(copy.edge_count(), 0);
    ck_assert(!copy.find("Slot1").has_value());
    add(copy, "Slot1", VertexType::slot); // a moved-from graph is usable, empty
    ck_assert_uint_eq(copy.vertex_count(), 1);

    original = moved;
    ck_assert_uint_eq(original.vertex_count(), 13);
    ck_assert_text_eq(distance_text(original, "Slot1", type_mask(VertexType::mem)),
                      "MEM1 0\nMEM9 0\nMEM0 1\nMEM3 1\nMEM2 2\n");
}
END_TEST

START_TEST(first_queries_from_several_threads)
{
    // The first queries after adding edges merge them; several at once must
    // all see the merged graph.
    WeightedGraph graph;
    const int size = 2000;
    for (int v = 0; v < size; ++v) {
        add(graph, ("v" + std::to_string(v)).c_str(), VertexType::slot);
    }
    for (int v = size - 1; v > 0; --v) { // out of order: the merge moves edges
        ck_assert(graph.add_edge(static_cast<VertexId>(v - 1), static_cast<VertexId>(v), 1).ok());
    }
    std::vector<std::string> answers(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < answers.size(); ++t) {
        threads.emplace_back([&graph, &answers, t] {
            const auto list = graph.distance_list(0, all_vertex_types);
            answers[t] = list.ok() ? list_text(graph, *list) : list.error().message;
        });
    }
    for (std::thread &thread : threads) {
        thread.join();
    }
    for (const std::string &answer : answers) {
        ck_assert_text_eq(answer, answers[0]);
    }
    ck_assert_text_eq(answers[0].substr(0, 15), "v0 0\nv1 1\nv2 2\n");
    ck_assert_text_eq(distance_text(graph, "v0", all_vertex_types), answers[0]);
}
END_TEST

// ---------------------------------------------------------------- reference

START_TEST(dijkstra_agrees_with_bellman_ford_on_random_graphs)
{
    std::mt19937_64 random(20240601);
    const VertexType types[] = {VertexType::slot, VertexType::mem, VertexType::eth, VertexType::ib,
                                VertexType::other};
    for (int round = 0; round < 150; ++round) {
        const auto vertices = static_cast<VertexId>(1 + random() % 40);
        const std::size_t edges = random() % (vertices * 4 + 1);
        // Small weights make ties; a few huge ones make sums past 2^64.
        const bool huge = round % 5 == 0;
        WeightedGraph graph;
        for (VertexId v = 0; v < vertices; ++v) {
            add(graph, ("n" + std::to_string(random() % 1000) + "_" + std::to_string(v)).c_str(),
                types[random() % 5]);
        }
        for (std::size_t e = 0; e < edges; ++e) {
            const std::uint64_t weight =
                huge && random() % 3 == 0 ? max_u64 - random() % 3 : random() % 4;
            ck_assert(graph
                          .add_edge(static_cast<VertexId>(random() % vertices),
                                    static_cast<VertexId>(random() % vertices), weight)
                          .ok());
        }
        for (VertexId source = 0; source < vertices; ++source) {
            const auto expected = bellman_ford(graph, source);
            const auto got = graph.shortest_distances(source);
            ck_assert(got.ok());
            for (VertexId v = 0; v < vertices; ++v) {
                ck_assert_msg(length_text((*got)[v]) == length_text(expected[v]),
                              "round %d, %u -> %u: %s, expected %s", round, source, v,
                              length_text((*got)[v]).c_str(), length_text(expected[v]).c_str());
            }
            // The list: every vertex of the mask once, in the documented order.
            const TypeMask mask = static_cast<TypeMask>(random() % 32);
            const auto list = graph.distance_list(source, mask);
            ck_assert(list.ok());
            std::size_t of_mask = 0;
            for (VertexId v = 0; v < vertices; ++v) {
                of_mask += (type_mask(graph.type(v)) & mask) != 0 ? 1 : 0;
            }
            ck_assert_uint_eq(list->size(), of_mask);
            for (std::size_t i = 0; i < list->size(); ++i) {
                const VertexDistance &entry = (*list)[i];
                ck_assert((type_mask(graph.type(entry.vertex)) & mask) != 0);
                ck_assert(length_text(entry.distance) == length_text(expected[entry.vertex]));
                if (i == 0) {
                    continue;
                }
                const VertexDistance &before = (*list)[i - 1];
                const bool ordered =
                    before.distance && !entry.distance
                        ? true
                        : (before.distance == entry.distance
                               ? meridian::compare_vertex_names(graph.name(before.vertex),
                                                                graph.name(entry.vertex)) < 0
                               : before.distance && *before.distance < *entry.distance);
                ck_assert_msg(ordered, "round %d: %s", round, list_text(graph, *list).c_str());
            }
            // A path to a random vertex: real edges, summing to the distance.
            const auto target = static_cast<VertexId>(random() % vertices);
            const auto path = graph.shortest_path(source, target);
            ck_assert(path.ok());
            ck_assert(path->has_value() == expected[target].has_value());
            if (!path->has_value()) {
                continue;
            }
            const Path &p = **path;
            ck_assert_text_eq(to_string(p.length), wide_text(*expected[target]));
            ck_assert_uint_eq(p.vertices.front(), source);
            ck_assert_uint_eq(p.vertices.back(), target);
            Wide sum = 0;
            for (std::size_t i = 0; i + 1 < p.vertices.size(); ++i) {
                std::optional<std::uint64_t> lightest;
                for (const meridian::OutEdge &edge : graph.out_edges(p.vertices[i])) {
                    if (edge.target == p.vertices[i + 1] &&
                        (!lightest || edge.weight < *lightest)) {
                        lightest = edge.weight;
                    }
                }
                ck_assert_msg(lightest.has_value(), "round %d: no edge on the path", round);
                sum += *lightest;
            }
            ck_assert_text_eq(wide_text(sum), to_string(p.length));
        }
    }
}
END_TEST

int main()
{
    Suite *suite = suite_create("weighted_graph");
    TCase *seed = tcase_create("seed");
    tcase_add_test(seed, figure3_memory_nodes_from_slot1);
    tcase_add_test(seed, figure3_every_vertex_from_slot1);
    tcase_add_test(seed, figure3_find_and_accessors);
    suite_add_tcase(suite, seed);

    TCase *order = tcase_create("order");
    tcase_add_test(order, equal_distances_go_by_name_in_natural_order);
    tcase_add_test(order, name_order_is_natural_and_total);
    tcase_add_test(order, unreachable_vertices_come_last_by_name);
    tcase_add_test(order, edges_are_directed);
    tcase_add_test(order, parallel_edges_and_loops_use_the_lightest);
    suite_add_tcase(suite, order);

    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, duplicate_vertex_is_an_error);
    tcase_add_test(errors, bad_vertex_name_or_type_is_an_error);
    tcase_add_test(errors, unknown_vertex_is_an_error);
    tcase_add_test(errors, bad_type_mask_is_an_error);
    suite_add_tcase(suite, errors);

    TCase *paths = tcase_create("paths");
    tcase_add_test(paths, shortest_path_and_its_length);
    tcase_add_test(paths, no_path_is_no_value);
    suite_add_tcase(suite, paths);

    TCase *subgraphs = tcase_create("subgraphs");
    tcase_add_test(subgraphs, infiniband_graph_keeps_slots_and_ports);
    tcase_add_test(subgraphs, memory_and_ethernet_graphs);
    tcase_add_test(subgraphs, subgraph_drops_paths_through_removed_vertices);
    suite_add_tcase(suite, subgraphs);

    TCase *edge_cases = tcase_create("edge cases");
    tcase_add_test(edge_cases, distances_past_uint64_are_exact);
    tcase_add_test(edge_cases, distances_past_uint64_sort_by_length);
    tcase_add_test(edge_cases, paths_past_uint64_are_shortest);
    tcase_add_test(edge_cases, path_length_text);
    tcase_add_test(edge_cases, empty_graph);
    tcase_add_test(edge_cases, edges_added_between_queries_keep_their_order);
    tcase_add_test(edge_cases, copies_are_independent_and_moves_empty_the_source);
    tcase_add_test(edge_cases, first_queries_from_several_threads);
    suite_add_tcase(suite, edge_cases);

    TCase *reference = tcase_create("reference");
    // Sanitizer builds run this several times slower.
    tcase_set_timeout(reference, 120);
    tcase_add_test(reference, dijkstra_agrees_with_bellman_ford_on_random_graphs);
    suite_add_tcase(suite, reference);

    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// The round trip a user makes with meridian_carto and carto_file: carto text
// -> parser -> graph (add_to_graph, as the component builds it) -> the base's
// writer (format_carto_text) -> parser -> graph.  Both graphs must have the
// same vertices, types and edges and give the same distance list from every
// vertex.  Also how a file's format is told.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "components/carto_file/carto_graph_build.hpp"
#include "test/carto_file/carto_test_support.hpp"
#include <meridian/mca/carto/base/base.hpp>

using meridian::VertexId;
using meridian::VertexType;
using meridian::WeightedGraph;
using meridian::carto::CartoDescription;
using meridian::carto::CartoFormat;
using meridian::carto::detect_carto_format;
using meridian::carto::format_carto_text;
using meridian::carto::read_carto_file;
using namespace carto_test;

namespace
{

// The graph carto_file builds from a parse (fails the test on an error).
WeightedGraph graph_of(const Result<CartoDescription> &parsed)
{
    ck_assert_text_eq(error_of(parsed), "parsed without error");
    WeightedGraph graph;
    const auto built = meridian::carto::add_to_graph(*parsed, test_path, graph);
    ck_assert_msg(built.ok(), "%s", built.ok() ? "" : built.error().message.c_str());
    return graph;
}

// One line per vertex, in order: "NAME TYPE:" and its out-edges in order.
std::string structure_of(const WeightedGraph &graph)
{
    std::string out;
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        out += std::string(graph.name(v)) + " " +
               std::string(meridian::vertex_type_name(graph.type(v))) + ":";
        for (const auto &edge : graph.out_edges(v)) {
            out += " " + std::string(graph.name(edge.target)) + ":" + std::to_string(edge.weight);
        }
        out += '\n';
    }
    return out;
}

// The distance list to every vertex from each vertex in turn: "FROM: NAME
// DISTANCE, ..." with "-" for an unreachable vertex, in the list's order.
std::string distances_of(const WeightedGraph &graph)
{
    std::string out;
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        const auto list = graph.distance_list(v, meridian::all_vertex_types);
        ck_assert_msg(list.ok(), "no distance list from %s", graph.name(v).data());
        out += std::string(graph.name(v)) + ":";
        for (const auto &entry : *list) {
            out += " " + std::string(graph.name(entry.vertex)) + " " +
                   (entry.distance ? to_string(*entry.distance) : std::string("-")) + ",";
        }
        out += '\n';
    }
    return out;
}

// The text without its comment lines (the writer's header is its own affair).
std::string without_comments(std::string_view text)
{
    std::string out;
    while (!text.empty()) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        if (!line.starts_with("#")) {
            out += line;
            out += '\n';
        }
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    return out;
}

// Write graph as carto text, read it back, and check that nothing changed;
// returns the text, for checks of its own.
std::string round_trip(const WeightedGraph &graph)
{
    const auto text = format_carto_text(graph);
    ck_assert_msg(text.ok(), "%s", text.ok() ? "" : text.error().message.c_str());
    const WeightedGraph again = graph_of(parse(*text));
    ck_assert_text_eq(structure_of(again), structure_of(graph));
    ck_assert_text_eq(distances_of(again), distances_of(graph));
    // And once more: what was read back writes the same text.
    const auto rewritten = format_carto_text(again);
    ck_assert_text_eq(rewritten.ok() ? *rewritten : rewritten.error().message, *text);
    return *text;
}

} // namespace

START_TEST(figure3_round_trip)
{
    const WeightedGraph graph = graph_of(read_carto_file(contrib_file("figure3.carto")));
    ck_assert_uint_eq(graph.vertex_count(), 12);
    ck_assert_uint_eq(graph.edge_count(), 24);
    const std::string text = round_trip(graph);
    // Every name gives its type, so the text is in the adjacency format, the
    // vertices in the file's order with their lists in the file's order.
    ck_assert(detect_carto_format(text) == CartoFormat::adjacency);
    ck_assert_text_eq(without_comments(text), "MEM0 Slot0:0\n"
                                              "Eth0 Slot0:1\n"
                                              "MTHCA0 Slot0:1\n"
                                              "Slot0 Eth0:1, MTHCA0:1, MEM0:0, Slot2:1, Slot1:1\n"
                                              "Slot1 MEM1:0, Slot0:1, Slot3:1\n"
                                              "MEM1 Slot1:0\n"
                                              "Slot2 MEM2:0, Slot0:1, Slot3:1\n"
                                              "MEM2 Slot2:0\n"
                                              "Slot3 Eth1:1, MEM3:0, MTHCA1:1, Slot1:1, Slot2:1\n"
                                              "Eth1 Slot3:1\n"
                                              "MEM3 Slot3:0\n"
                                              "MTHCA1 Slot3:1\n");
    // The distances compared are the real ones: the seed's example among them.
    const std::string distances = distances_of(graph);
    ck_assert_msg(distances.find("\nSlot1: MEM1 0, Slot1 0, MEM0 1, MEM3 1, Slot0 1, Slot3 1, "
                                 "Eth0 2, Eth1 2, MEM2 2, MTHCA0 2, MTHCA1 2, Slot2 2,\n") !=
                      std::string::npos,
                  "distances from Slot1:\n%s", distances.c_str());
}
END_TEST

START_TEST(open_mpi_file_round_trip)
{
    // ompi13.carto states types its names give anyway: it comes back in the
    // adjacency format, each vertex's edges in their order in the file.
    const WeightedGraph graph = graph_of(read_carto_file(contrib_file("ompi13.carto")));
    ck_assert_uint_eq(graph.vertex_count(), 12);
    ck_assert_uint_eq(graph.edge_count(), 24);
    const std::string text = round_trip(graph);
    ck_assert(detect_carto_format(text) == CartoFormat::adjacency);
    ck_assert_text_eq(without_comments(text),
                      "Slot0 MEM0:0, Eth0:1, MTHCA0:1, Slot1:1, Slot2:1\n"
                      "Slot1 MEM1:0, Slot0:1, Slot3:1\n"
                      "Slot2 MEM2:0, Slot0:1, Slot3:1\n"
                      "Slot3 MEM3:0, Eth1:1, MTHCA1:1, Slot1:1, Slot2:1\n"
                      "MEM0 Slot0:0\nMEM1 Slot1:0\nMEM2 Slot2:0\nMEM3 Slot3:0\n"
                      "Eth0 Slot0:1\nEth1 Slot3:1\n"
                      "MTHCA0 Slot0:1\nMTHCA1 Slot3:1\n");
    // The same host as figure 3: the same distances, vertex by vertex.
    const WeightedGraph figure = graph_of(read_carto_file(contrib_file("figure3.carto")));
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        const auto ours = graph.distance_list(v, meridian::all_vertex_types);
        const auto theirs =
            figure.distance_list(*figure.find(graph.name(v)), meridian::all_vertex_types);
        ck_assert_uint_eq(ours->size(), theirs->size());
        for (std::size_t i = 0; i < ours->size(); ++i) {
            ck_assert_text_eq(graph.name((*ours)[i].vertex), figure.name((*theirs)[i].vertex));
            ck_assert(((*ours)[i].distance) == ((*theirs)[i].distance));
        }
    }
}
END_TEST

START_TEST(types_names_do_not_give_come_back_in_open_mpi_format)
{
    // numa0 is memory and cpu0 a processor by their EDGE lines only, and
    // Slot9 is declared Other against its name: the adjacency format could
    // not say so, so the writer states the types.  lonely has no edges at all
    // and island0/island1 are cut off from the rest: unreachable both ways.
    const auto parsed = parse("EDGE Memory numa0\n"
                              "EDGE slot cpu0\n"
                              "EDGE Infiniband hca\n"
                              "EDGE Ethernet Eth0\n"
                              "EDGE Other Slot9\n"
                              "EDGE Other lonely\n"
                              "EDGE Memory island0\n"
                              "EDGE Other island1\n"
                              "BRANCH_BI_DIR cpu0 numa0:10 hca:20\n"
                              "BRANCH cpu0 Eth0:5\n"
                              "BRANCH Slot9 cpu0:7\n"
                              "BRANCH_BI_DIR island0 island1:3\n");
    const WeightedGraph graph = graph_of(parsed);
    const std::string text = round_trip(graph);
    ck_assert(detect_carto_format(text) == CartoFormat::open_mpi);
    const auto again = parse(text);
    ck_assert_text_eq(vertices_of(again), "numa0 MEM\ncpu0 SLOT\nhca IB\nEth0 ETH\nSlot9 OTHER\n"
                                          "lonely OTHER\nisland0 MEM\nisland1 OTHER\n");
    // Unreachable vertices stay unreachable after the trip.
    const std::string distances = distances_of(graph);
    ck_assert_msg(distances.find("\ncpu0: cpu0 0, Eth0 5, numa0 10, hca 20, Slot9 -, "
                                 "island0 -, island1 -, lonely -,\n") != std::string::npos,
                  "distances:\n%s", distances.c_str());
    ck_assert_msg(distances.find("\nlonely: lonely 0, Eth0 -, Slot9 -, cpu0 -, hca -, "
                                 "island0 -, island1 -, numa0 -,\n") != std::string::npos,
                  "distances:\n%s", distances.c_str());
}
END_TEST

START_TEST(long_lists_big_weights_and_vertices_without_edges)
{
    // A graph made by a program, not read: vertices without edges, a list
    // longer than a line, the largest weight, a self-loop.
    WeightedGraph graph;
    ck_assert(graph.add_vertex("Slot0", VertexType::slot).ok());
    ck_assert(graph.add_vertex("lo", VertexType::other).ok());
    for (int i = 0; i < 20; ++i) {
        const std::string name = "MEM" + std::to_string(i);
        ck_assert(graph.add_vertex(name, VertexType::mem).ok());
        ck_assert(graph.add_edge("Slot0", name, static_cast<std::uint64_t>(i) * 1000).ok());
    }
    ck_assert(graph.add_edge("MEM19", "Slot0", std::numeric_limits<std::uint64_t>::max()).ok());
    ck_assert(graph.add_edge("MEM3", "MEM3", 4).ok());
    ck_assert(graph.add_vertex("mlx5_0", VertexType::ib).ok());
    ck_assert(graph.add_edge("mlx5_0", "MEM19", std::numeric_limits<std::uint64_t>::max()).ok());
    const std::string text = round_trip(graph);
    ck_assert(detect_carto_format(text) == CartoFormat::adjacency);
    // Path lengths are exact past 2^64 rather than wrapped, before and after the trip.
    const auto from_ib =
        graph.distance_list(*graph.find("mlx5_0"), meridian::type_mask(VertexType::slot));
    ck_assert_uint_eq(from_ib->size(), 1);
    ck_assert(from_ib->front().distance.has_value());
    ck_assert_text_eq(to_string(*from_ib->front().distance), "36893488147419103230"); // 2^65 - 2
}
END_TEST

START_TEST(format_detection)
{
    struct Case {
        std::string text;
        CartoFormat format;
    };
    const Case cases[] = {
        {"", CartoFormat::adjacency},
        {"# only a comment\n", CartoFormat::adjacency},
        {"Slot0 MEM0:0\nMEM0\n", CartoFormat::adjacency},
        {"# EDGE slot a\nSlot0\n", CartoFormat::adjacency},
        {"edge slot a\n", CartoFormat::adjacency},
        {"EDGES\n", CartoFormat::adjacency},
        {"Slot0 // a comment?\n", CartoFormat::adjacency},
        {"EDGE slot a\n", CartoFormat::open_mpi},
        {"\n  \t# comment\n\n   BRANCH a b:1\n", CartoFormat::open_mpi},
        {"BRANCH_BI_DIR a b:1\n", CartoFormat::open_mpi},
        {"EDGE:\n", CartoFormat::open_mpi},
        {"// comment\nSlot0\n", CartoFormat::open_mpi},
        {"/* comment */ Slot0\n", CartoFormat::open_mpi},
        {"# first\n/* unterminated\n", CartoFormat::open_mpi},
        // A byte order mark is not the first thing in the file.
        {"\xef\xbb\xbf# a comment\nEDGE Socket a\n", CartoFormat::open_mpi},
        {"\xef\xbb\xbf// comment\n", CartoFormat::open_mpi},
        {"\xef\xbb\xbfSlot0 MEM0:0\nMEM0\n", CartoFormat::adjacency},
    };
    for (const Case &c : cases) {
        ck_assert_msg(detect_carto_format(c.text) == c.format, "wrong format for \"%s\"",
                      c.text.c_str());
        // The parser reads each in the format detected.
        const auto parsed = parse(c.text);
        ck_assert_msg(!parsed || parsed->format == c.format, "parsed \"%s\" in the other format",
                      c.text.c_str());
    }
    // So a file in one format fails in the other's terms.
    ck_assert_text_eq(error_of(parse("// comment\nSlot0\n")),
                      "t.carto:2:1: expected EDGE, BRANCH or BRANCH_BI_DIR, found \"Slot0\"");
    ck_assert_text_eq(error_of(parse("Slot0\nEDGE slot a\n")),
                      "t.carto:2:1: expected a vertex name (EDGE, BRANCH and BRANCH_BI_DIR are "
                      "reserved), found \"EDGE\"");
}
END_TEST

int main()
{
    Suite *suite = suite_create("carto_round_trip");
    TCase *trip = make_tcase("round_trip");
    tcase_add_test(trip, figure3_round_trip);
    tcase_add_test(trip, open_mpi_file_round_trip);
    tcase_add_test(trip, types_names_do_not_give_come_back_in_open_mpi_format);
    tcase_add_test(trip, long_lists_big_weights_and_vertices_without_edges);
    suite_add_tcase(suite, trip);

    TCase *detection = make_tcase("detection");
    tcase_add_test(detection, format_detection);
    suite_add_tcase(suite, detection);
    return meridian_test::run_suite(suite);
}

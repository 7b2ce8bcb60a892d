// SPDX-License-Identifier: BSD-3-Clause
// meridian_carto's DOT writer (mca/tools/meridian_carto/dot.cc, compiled in
// through dot_for_tests.cc) on what no carto file can hold: names with
// quotes, backslashes, '%', control characters and non-UTF-8 bytes, loops,
// parallel edges.  The output is pinned exactly, and when Graphviz's dot is
// installed it must read it back with the same nodes, labels and edges.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "mca/tools/meridian_carto/formats.hpp"
#include "test/support/meridian_test.hpp"

using meridian::VertexType;
using meridian::WeightedGraph;
using meridian::carto_tool::write_dot;

namespace
{

void add_vertex(WeightedGraph &graph, std::string_view name, VertexType type)
{
    const auto added = graph.add_vertex(name, type);
    ck_assert_msg(added.ok(), "%s", added.ok() ? "" : added.error().message.c_str());
}

void add_edge(WeightedGraph &graph, std::string_view from, std::string_view to, std::uint64_t w)
{
    const auto added = graph.add_edge(from, to, w);
    ck_assert_msg(added.ok(), "%s", added.ok() ? "" : added.error().message.c_str());
}

std::string dot_of(const WeightedGraph &graph)
{
    std::string out;
    write_dot(graph, "test", out);
    return out;
}

const std::string header = "// The host's carto graph, mapped by the carto component \"test\".\n"
                           "// Draw it with Graphviz: dot -Tsvg -o carto.svg\n"
                           "digraph carto {\n"
                           "    graph [fontname=\"Helvetica\"];\n"
                           "    node [style=filled, fontname=\"Helvetica\"];\n"
                           "    edge [fontname=\"Helvetica\", fontsize=10];\n";

// The legend's lines for the kinds a graph has, in the writer's order
// (slot, mem, eth, ib, other), each entry stacked under the one before.
std::string legend_of(std::initializer_list<std::string_view> kinds)
{
    struct Entry {
        std::string_view kind, id, line;
    };
    static constexpr Entry entries[] = {
        {"slot", "\"%legend-slot\"",
         "\"%legend-slot\" [label=\"processor package (Slot)\", shape=box, "
         "fillcolor=\"#a6cee3\"];"},
        {"mem", "\"%legend-mem\"",
         "\"%legend-mem\" [label=\"memory node (MEM)\", shape=cylinder, fillcolor=\"#fdbf6f\"];"},
        {"eth", "\"%legend-eth\"",
         "\"%legend-eth\" [label=\"Ethernet port (ETH)\", shape=ellipse, fillcolor=\"#b2df8a\"];"},
        {"ib", "\"%legend-ib\"",
         "\"%legend-ib\" [label=\"InfiniBand port (IB)\", shape=hexagon, fillcolor=\"#cab2d6\"];"},
        {"other", "\"%legend-other\"",
         "\"%legend-other\" [label=\"other device\", shape=octagon, fillcolor=\"#d9d9d9\"];"},
    };
    std::string out = "    subgraph \"cluster_%legend\" {\n"
                      "        label=\"legend\"; style=\"rounded,dashed\"; color=\"#999999\";\n";
    std::string_view previous;
    for (const Entry &entry : entries) {
        if (std::find(kinds.begin(), kinds.end(), entry.kind) == kinds.end()) {
            continue;
        }
        out += "        " + std::string(entry.line) + "\n";
        if (!previous.empty()) {
            out += "        " + std::string(previous) + " -> " + std::string(entry.id) +
                   " [style=invis];\n";
        }
        previous = entry.id;
    }
    out += "        \"%legend-notes\" [shape=plaintext, style=\"\", label=\"edge label: distance "
           "(smaller is nearer)\\lframe: a processor package\\land what is nearest to it\\l\"];\n"
           "        " +
           std::string(previous) +
           " -> \"%legend-notes\" [style=invis];\n"
           "    }\n";
    return out;
}

// Whether Graphviz's dot is on the PATH.
bool have_dot()
{
    return std::system("command -v dot >/dev/null 2>&1") == 0;
}

// dot -Tcanon of the text: Graphviz's own reading of it, or "" when dot
// refused it (its messages are then on the test's standard error).
std::string canon_of(const std::string &text)
{
    const std::string in = meridian_test::scratch() + "/graph.dot";
    const std::string canon = meridian_test::scratch() + "/canon.dot";
    std::ofstream(in, std::ios::binary) << text;
    const std::string command = "dot -Tcanon '" + in + "' >'" + canon + "'";
    if (std::system(command.c_str()) != 0) {
        return "";
    }
    std::ifstream file(canon, std::ios::binary);
    std::ostringstream read;
    read << file.rdbuf();
    return read.str();
}

void scratch_fixture()
{
    meridian_test::make_scratch("check_carto_dot");
}

} // namespace

START_TEST(plain_names_are_their_own_ids_and_labels)
{
    WeightedGraph graph;
    add_vertex(graph, "Slot0", VertexType::slot);
    add_vertex(graph, "MEM0", VertexType::mem);
    add_vertex(graph, "eth0", VertexType::eth);
    add_vertex(graph, "mlx5_0", VertexType::ib);
    add_vertex(graph, "gpu<0> node", VertexType::other);
    add_edge(graph, "Slot0", "MEM0", 0);
    add_edge(graph, "MEM0", "Slot0", 0);
    // MEM0 is drawn in Slot0's package; the others, with no edge to a
    // package, outside every one.
    ck_assert_text_eq(
        dot_of(graph),
        header +
            "    subgraph \"cluster_%package0\" {\n"
            "        label=\"package Slot0\"; style=rounded; color=\"#7f7f7f\";\n"
            "        \"Slot0\" [label=\"Slot0\", shape=box, fillcolor=\"#a6cee3\"];\n"
            "        \"MEM0\" [label=\"MEM0\", shape=cylinder, fillcolor=\"#fdbf6f\"];\n"
            "    }\n"
            "    \"eth0\" [label=\"eth0\", shape=ellipse, fillcolor=\"#b2df8a\"];\n"
            "    \"mlx5_0\" [label=\"mlx5_0\", shape=hexagon, fillcolor=\"#cab2d6\"];\n"
            "    \"gpu<0> node\" [label=\"gpu<0> node\", shape=octagon, "
            "fillcolor=\"#d9d9d9\"];\n" +
            legend_of({"slot", "mem", "eth", "ib", "other"}) +
            "    \"Slot0\" -> \"MEM0\" [label=\"0\", dir=both];\n"
            "}\n");
}
END_TEST

START_TEST(edges_pairs_loops_and_parallel_edges)
{
    WeightedGraph graph;
    add_vertex(graph, "Slot0", VertexType::slot);
    add_vertex(graph, "Slot1", VertexType::slot);
    add_vertex(graph, "MEM0", VertexType::mem);
    // Different weights each way: two edges.
    add_edge(graph, "Slot0", "Slot1", 1);
    add_edge(graph, "Slot1", "Slot0", 3);
    // Parallel edges: the lightest is drawn, where the first was; its
    // reverse has that weight, so the pair is one two-headed edge.
    add_edge(graph, "MEM0", "Slot0", 7);
    add_edge(graph, "MEM0", "Slot1", 2);
    add_edge(graph, "MEM0", "Slot0", 4);
    add_edge(graph, "Slot0", "MEM0", 4);
    // A loop, and one way only.
    add_edge(graph, "Slot1", "Slot1", 5);
    // MEM0's lightest edge to a package is to Slot1 (2): it is drawn there.
    ck_assert_text_eq(
        dot_of(graph),
        header +
            "    subgraph \"cluster_%package0\" {\n"
            "        label=\"package Slot0\"; style=rounded; color=\"#7f7f7f\";\n"
            "        \"Slot0\" [label=\"Slot0\", shape=box, fillcolor=\"#a6cee3\"];\n"
            "    }\n"
            "    subgraph \"cluster_%package1\" {\n"
            "        label=\"package Slot1\"; style=rounded; color=\"#7f7f7f\";\n"
            "        \"Slot1\" [label=\"Slot1\", shape=box, fillcolor=\"#a6cee3\"];\n"
            "        \"MEM0\" [label=\"MEM0\", shape=cylinder, fillcolor=\"#fdbf6f\"];\n"
            "    }\n" +
            legend_of({"slot", "mem"}) +
            "    \"Slot0\" -> \"Slot1\" [label=\"1\"];\n"
            "    \"Slot0\" -> \"MEM0\" [label=\"4\", dir=both];\n"
            "    \"Slot1\" -> \"Slot0\" [label=\"3\"];\n"
            "    \"Slot1\" -> \"Slot1\" [label=\"5\"];\n"
            "    \"MEM0\" -> \"Slot1\" [label=\"2\"];\n"
            "}\n");
}
END_TEST

START_TEST(other_names_get_escaped_ids_and_html_labels)
{
    WeightedGraph graph;
    add_vertex(graph, "q\"b\\", VertexType::other);        // ends in a backslash
    add_vertex(graph, "50%", VertexType::eth);             // '%' marks escaped IDs
    add_vertex(graph, "50%25", VertexType::eth);           // so this one cannot meet 50%
    add_vertex(graph, "tab\there&<x>", VertexType::other); // control and HTML characters
    add_vertex(graph,
               "n\xc3\xa9"
               "e%",
               VertexType::other);                 // UTF-8 stays as it is in the label
    add_vertex(graph, "l\xe9", VertexType::other); // Latin-1: not UTF-8
    add_edge(graph, "q\"b\\", "50%", 1);
    add_edge(graph, "50%", "q\"b\\", 1);
    ck_assert_text_eq(
        dot_of(graph),
        header +
            "    \"q%22b%5C\" [label=<q&#34;b&#92;>, shape=octagon, fillcolor=\"#d9d9d9\"];\n"
            "    \"50%25\" [label=<50%>, shape=ellipse, fillcolor=\"#b2df8a\"];\n"
            "    \"50%2525\" [label=<50%25>, shape=ellipse, fillcolor=\"#b2df8a\"];\n"
            "    \"tab%09here&<x>\" [label=<tab&#9;here&#38;&#60;x&#62;>, shape=octagon, "
            "fillcolor=\"#d9d9d9\"];\n"
            "    \"n%C3%A9e%25\" [label=<n\xc3\xa9"
            "e%>, shape=octagon, fillcolor=\"#d9d9d9\"];\n"
            "    \"l%E9\" [label=<l&#233;>, shape=octagon, fillcolor=\"#d9d9d9\"];\n" +
            legend_of({"eth", "other"}) +
            "    \"q%22b%5C\" -> \"50%25\" [label=\"1\", dir=both];\n"
            "}\n");
}
END_TEST

// A package's frame is labelled with its processor's name (escaped like any
// label).  A device goes with the package of its lightest edge, whichever
// way the edge runs, and with the package first in the graph's order when
// two are as near.
START_TEST(devices_are_framed_with_their_nearest_package)
{
    WeightedGraph graph;
    add_vertex(graph, "Slot0", VertexType::slot);
    add_vertex(graph, "S\"1", VertexType::slot);
    add_vertex(graph, "ib0", VertexType::ib);
    add_vertex(graph, "eth0", VertexType::eth);
    add_vertex(graph, "MEM0", VertexType::mem);
    add_edge(graph, "ib0", "S\"1", 3);
    add_edge(graph, "ib0", "Slot0", 3);
    add_edge(graph, "eth0", "Slot0", 9);
    add_edge(graph, "eth0", "S\"1", 1);
    add_edge(graph, "S\"1", "MEM0", 0);
    ck_assert_text_eq(
        dot_of(graph),
        header +
            "    subgraph \"cluster_%package0\" {\n"
            "        label=\"package Slot0\"; style=rounded; color=\"#7f7f7f\";\n"
            "        \"Slot0\" [label=\"Slot0\", shape=box, fillcolor=\"#a6cee3\"];\n"
            "        \"ib0\" [label=\"ib0\", shape=hexagon, fillcolor=\"#cab2d6\"];\n"
            "    }\n"
            "    subgraph \"cluster_%package1\" {\n"
            "        label=<package S&#34;1>; style=rounded; color=\"#7f7f7f\";\n"
            "        \"S%221\" [label=<S&#34;1>, shape=box, fillcolor=\"#a6cee3\"];\n"
            "        \"eth0\" [label=\"eth0\", shape=ellipse, fillcolor=\"#b2df8a\"];\n"
            "        \"MEM0\" [label=\"MEM0\", shape=cylinder, fillcolor=\"#fdbf6f\"];\n"
            "    }\n" +
            legend_of({"slot", "mem", "eth", "ib"}) +
            "    \"S%221\" -> \"MEM0\" [label=\"0\"];\n"
            "    \"ib0\" -> \"S%221\" [label=\"3\"];\n"
            "    \"ib0\" -> \"Slot0\" [label=\"3\"];\n"
            "    \"eth0\" -> \"Slot0\" [label=\"9\"];\n"
            "    \"eth0\" -> \"S%221\" [label=\"1\"];\n"
            "}\n");
}
END_TEST

START_TEST(an_empty_graph_is_an_empty_digraph)
{
    ck_assert_text_eq(dot_of(WeightedGraph()), header + "}\n");
}
END_TEST

// Graphviz reads the odd names back: one node per vertex, with its label.
START_TEST(graphviz_reads_every_name)
{
    if (!have_dot()) {
        std::puts("dot (Graphviz) is not installed: not checked");
        return;
    }
    WeightedGraph graph;
    add_vertex(graph, "q\"b\\", VertexType::other);
    add_vertex(graph, "50%", VertexType::eth);
    add_vertex(graph, "tab\there&<x>", VertexType::other);
    add_vertex(graph, "Slot0", VertexType::slot);
    add_edge(graph, "q\"b\\", "50%", 1);
    add_edge(graph, "50%", "q\"b\\", 1);
    add_edge(graph, "Slot0", "tab\there&<x>", 2);
    const std::string canon = canon_of(dot_of(graph));
    ck_assert_msg(!canon.empty(), "dot refused the output");
    for (const char *line :
         {"\"q%22b%5C\"\t[fillcolor=\"#d9d9d9\",", "label=<q&#34;b&#92;>,",
          "label=<tab&#9;here&#38;&#60;x&#62;>,", "\"q%22b%5C\" -> \"50%25\"\t[dir=both,",
          "Slot0 -> \"tab%09here&<x>\"", "subgraph \"cluster_%package0\" {",
          "label=\"package Slot0\",", "subgraph \"cluster_%legend\" {"}) {
        ck_assert_msg(canon.find(line) != std::string::npos, "dot -Tcanon has no %s in:\n%s", line,
                      canon.c_str());
    }
}
END_TEST

int main()
{
    meridian_test::isolate_mca_environment();
    meridian_test::make_scratch_root("check_carto_dot");
    Suite *suite = suite_create("carto_dot");
    TCase *dot = tcase_create("dot");
    tcase_add_checked_fixture(dot, scratch_fixture, nullptr);
    tcase_add_test(dot, plain_names_are_their_own_ids_and_labels);
    tcase_add_test(dot, edges_pairs_loops_and_parallel_edges);
    tcase_add_test(dot, other_names_get_escaped_ids_and_html_labels);
    tcase_add_test(dot, devices_are_framed_with_their_nearest_package);
    tcase_add_test(dot, an_empty_graph_is_an_empty_digraph);
    tcase_add_test(dot, graphviz_reads_every_name);
    suite_add_tcase(suite, dot);
    const int status = meridian_test::run_suite(suite);
    meridian_test::remove_scratch_root();
    return status;
}

// SPDX-License-Identifier: BSD-3-Clause
// The carto base (mca/carto/base): the C API over graphs (building, distance
// lists with unreachable vertices, paths, finding, type names, errors with
// their messages), the carto text writer in both formats, and the host map's
// life: made once by the selected component, dropped when the component
// fails, forgotten at the framework's close.  The host map is driven by a
// fixture component (fixtures/carto_fixture.c).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "test/support/meridian_test.hpp"
#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/error.h>

namespace
{

// ---------------------------------------------------------------- helpers

void add_vertex(mca_carto_graph_t *graph, const char *name, mca_carto_vertex_type_t type)
{
    const int rc = meridian_mca_carto_graph_add_vertex(graph, name, type);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "add_vertex(%s): %s", name, meridian_strerror(rc));
}

void add_link(mca_carto_graph_t *graph, const char *a, const char *b, std::uint64_t weight)
{
    int rc = meridian_mca_carto_graph_add_edge(graph, a, b, weight);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "add_edge(%s, %s): %s", a, b, meridian_strerror(rc));
    rc = meridian_mca_carto_graph_add_edge(graph, b, a, weight);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "add_edge(%s, %s): %s", b, a, meridian_strerror(rc));
}

// The seed's figure 3 (contrib/carto/figure3.carto), built through the C API.
mca_carto_graph_t *figure3()
{
    mca_carto_graph_t *graph = meridian_mca_carto_graph_new();
    ck_assert_ptr_nonnull(graph);
    for (const char *name : {"Slot0", "Slot1", "Slot2", "Slot3"}) {
        add_vertex(graph, name, MCA_CARTO_SLOT);
    }
    for (const char *name : {"MEM0", "MEM1", "MEM2", "MEM3"}) {
        add_vertex(graph, name, MCA_CARTO_MEM);
    }
    add_vertex(graph, "Eth0", MCA_CARTO_ETH);
    add_vertex(graph, "Eth1", MCA_CARTO_ETH);
    add_vertex(graph, "MTHCA0", MCA_CARTO_IB);
    add_vertex(graph, "MTHCA1", MCA_CARTO_IB);
    add_link(graph, "Slot0", "MEM0", 0);
    add_link(graph, "Slot1", "MEM1", 0);
    add_link(graph, "Slot2", "MEM2", 0);
    add_link(graph, "Slot3", "MEM3", 0);
    add_link(graph, "Slot0", "Slot1", 1);
    add_link(graph, "Slot0", "Slot2", 1);
    add_link(graph, "Slot1", "Slot3", 1);
    add_link(graph, "Slot2", "Slot3", 1);
    add_link(graph, "Slot0", "Eth0", 1);
    add_link(graph, "Slot0", "MTHCA0", 1);
    add_link(graph, "Slot3", "Eth1", 1);
    add_link(graph, "Slot3", "MTHCA1", 1);
    return graph;
}

// A distance list as "NAME DISTANCE" / "NAME unreachable" lines.
std::string distances(const mca_carto_graph_t *graph, const char *from, unsigned int types)
{
    mca_carto_distance_t *list = nullptr;
    std::size_t count = 0;
    const int rc = meridian_mca_carto_graph_distance_list(graph, from, types, &list, &count);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "distance_list(%s): %s", from, meridian_strerror(rc));
    std::string text;
    for (std::size_t i = 0; i < count; ++i) {
        text += list[i].vertex;
        text += list[i].reachable != 0 ? " " + std::to_string(list[i].distance) : " unreachable";
        if (list[i].beyond_uint64 != 0) {
            ck_assert_uint_eq(list[i].distance, UINT64_MAX);
            text += " (more)";
        }
        if (list[i].reachable == 0) {
            ck_assert_uint_eq(list[i].distance, 0);
        }
        text += '\n';
    }
    meridian_mca_carto_distance_list_free(list, count);
    return text;
}

std::string path_text(const mca_carto_graph_t *graph, const char *a, const char *b)
{
    mca_carto_path_t *path = nullptr;
    const int rc = meridian_mca_carto_graph_shortest_path(graph, a, b, &path);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "shortest_path(%s, %s): %s", a, b, meridian_strerror(rc));
    std::string text = path->reachable != 0 ? "length " + std::to_string(path->length) : "none";
    if (path->beyond_uint64 != 0) {
        ck_assert_uint_eq(path->length, UINT64_MAX);
        text += " (more)";
    }
    text += path->reachable != 0 ? ":" : "";
    for (std::size_t i = 0; i < path->count; ++i) {
        text += ' ';
        text += path->vertices[i];
    }
    meridian_mca_carto_path_free(path);
    return text;
}

// Unchecked (parent, once per test case) and checked (each test's process).
void setup_root()
{
    meridian_test::make_scratch_root("meridian-carto-base-test");
    meridian_test::isolate_mca_environment();
}

void teardown_root()
{
    meridian_test::remove_scratch_root();
}

void setup_capture()
{
    meridian_test::make_scratch("carto_base");
    meridian_test::capture_messages();
}

// ---------------------------------------------------------------- C API

START_TEST(seed_distance_list_through_c)
{
    mca_carto_graph_t *graph = figure3();
    ck_assert_text_eq(distances(graph, "Slot1", MCA_CARTO_MEM), "MEM1 0\nMEM0 1\nMEM3 1\nMEM2 2\n");
    // Two types at once, and the source listed when its type is asked for.
    ck_assert_text_eq(distances(graph, "Slot1", MCA_CARTO_ETH | MCA_CARTO_IB),
                      "Eth0 2\nEth1 2\nMTHCA0 2\nMTHCA1 2\n");
    ck_assert_text_eq(distances(graph, "Slot1", MCA_CARTO_SLOT),
                      "Slot1 0\nSlot0 1\nSlot3 1\nSlot2 2\n");
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(graph), 12);
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(graph), 24);
    meridian_mca_carto_graph_free(graph);
    ck_assert_no_messages();
}
END_TEST

START_TEST(unreachable_vertices_come_last)
{
    mca_carto_graph_t *graph = meridian_mca_carto_graph_new();
    add_vertex(graph, "Slot0", MCA_CARTO_SLOT);
    add_vertex(graph, "MEM10", MCA_CARTO_MEM);
    add_vertex(graph, "MEM2", MCA_CARTO_MEM);
    add_vertex(graph, "MEM1", MCA_CARTO_MEM);
    add_vertex(graph, "MEM0", MCA_CARTO_MEM);
    // MEM1 reaches Slot0 but not the other way: edges are directed.
    ck_assert_int_eq(meridian_mca_carto_graph_add_edge(graph, "Slot0", "MEM0", 5),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_carto_graph_add_edge(graph, "MEM1", "Slot0", 1),
                     MERIDIAN_SUCCESS);
    ck_assert_text_eq(distances(graph, "Slot0", MCA_CARTO_MEM),
                      "MEM0 5\nMEM1 unreachable\nMEM2 unreachable\nMEM10 unreachable\n");
    ck_assert_text_eq(path_text(graph, "MEM1", "MEM0"), "length 6: MEM1 Slot0 MEM0");
    ck_assert_text_eq(path_text(graph, "MEM0", "MEM1"), "none");
    ck_assert_text_eq(path_text(graph, "MEM2", "MEM2"), "length 0: MEM2");
    meridian_mca_carto_graph_free(graph);
    ck_assert_no_messages();
}
END_TEST

// Sums past UINT64_MAX: the field says so, the list keeps their true order.
START_TEST(lengths_past_uint64_are_flagged)
{
    mca_carto_graph_t *graph = meridian_mca_carto_graph_new();
    ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(graph, "Slot0", MCA_CARTO_SLOT),
                     MERIDIAN_SUCCESS);
    for (const char *name : {"MEM0", "MEM1", "MEM2"}) {
        ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(graph, name, MCA_CARTO_MEM),
                         MERIDIAN_SUCCESS);
    }
    ck_assert_int_eq(meridian_mca_carto_graph_add_edge(graph, "Slot0", "MEM2", UINT64_MAX),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_carto_graph_add_edge(graph, "Slot0", "MEM1", UINT64_MAX - 1),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_carto_graph_add_edge(graph, "MEM1", "MEM0", 2), MERIDIAN_SUCCESS);
    ck_assert_text_eq(distances(graph, "Slot0", MCA_CARTO_MEM),
                      "MEM1 18446744073709551614\nMEM2 18446744073709551615\n"
                      "MEM0 18446744073709551615 (more)\n");
    ck_assert_text_eq(path_text(graph, "Slot0", "MEM0"),
                      "length 18446744073709551615 (more): Slot0 MEM1 MEM0");
    ck_assert_text_eq(path_text(graph, "Slot0", "MEM2"), "length 18446744073709551615: Slot0 MEM2");
    meridian_mca_carto_graph_free(graph);
    ck_assert_no_messages();
}
END_TEST

START_TEST(answers_outlive_the_graph)
{
    mca_carto_graph_t *graph = figure3();
    mca_carto_distance_t *list = nullptr;
    std::size_t count = 0;
    ck_assert_int_eq(
        meridian_mca_carto_graph_distance_list(graph, "Slot0", MCA_CARTO_IB, &list, &count),
        MERIDIAN_SUCCESS);
    mca_carto_path_t *path = nullptr;
    ck_assert_int_eq(meridian_mca_carto_graph_shortest_path(graph, "Eth0", "MTHCA1", &path),
                     MERIDIAN_SUCCESS);
    meridian_mca_carto_graph_free(graph);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(list[0].vertex, "MTHCA0");
    ck_assert_int_eq(list[0].type, MCA_CARTO_IB);
    ck_assert_uint_eq(list[0].distance, 1);
    ck_assert_str_eq(list[1].vertex, "MTHCA1");
    ck_assert_uint_eq(list[1].distance, 3);
    ck_assert_uint_eq(path->length, 4);
    ck_assert_uint_eq(path->count, 5);
    ck_assert_str_eq(path->vertices[0], "Eth0");
    ck_assert_str_eq(path->vertices[4], "MTHCA1");
    meridian_mca_carto_distance_list_free(list, count);
    meridian_mca_carto_path_free(path);
}
END_TEST

START_TEST(vertices_by_index_and_name)
{
    mca_carto_graph_t *graph = figure3();
    std::size_t index = 99;
    ck_assert_int_eq(meridian_mca_carto_graph_find_vertex(graph, "MTHCA1", &index),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(index, 11);
    ck_assert_str_eq(meridian_mca_carto_graph_vertex_name(graph, index), "MTHCA1");
    ck_assert_int_eq(meridian_mca_carto_graph_vertex_type(graph, index), MCA_CARTO_IB);
    ck_assert_int_eq(meridian_mca_carto_graph_vertex_type(graph, 4), MCA_CARTO_MEM);
    // Looking for a vertex that is not there is not an error.
    ck_assert_int_eq(meridian_mca_carto_graph_find_vertex(graph, "mthca1", &index),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_uint_eq(index, 11);
    ck_assert_ptr_null(meridian_mca_carto_graph_vertex_name(graph, 12));
    ck_assert_int_eq(meridian_mca_carto_graph_vertex_type(graph, 12), 0);
    ck_assert_ptr_null(meridian_mca_carto_graph_vertex_name(nullptr, 0));
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(nullptr), 0);
    meridian_mca_carto_graph_free(graph);
    meridian_mca_carto_graph_free(nullptr);
    ck_assert_no_messages();
}
END_TEST

START_TEST(errors_are_reported_with_their_reason)
{
    mca_carto_graph_t *graph = figure3();
    mca_carto_distance_t *list = reinterpret_cast<mca_carto_distance_t *>(&graph);
    std::size_t count = 7;
    ck_assert_int_eq(
        meridian_mca_carto_graph_distance_list(graph, "slot1", MCA_CARTO_MEM, &list, &count),
        MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(meridian_mca_carto_graph_distance_list(graph, "Slot1", 0x20, &list, &count),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_carto_graph_distance_list(graph, "Slot1", 0, &list, &count),
                     MERIDIAN_ERR_BAD_PARAM);
    mca_carto_path_t *path = nullptr;
    ck_assert_int_eq(meridian_mca_carto_graph_shortest_path(graph, "Slot0", "MEM7", &path),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(path);
    ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(graph, "MEM0", MCA_CARTO_MEM),
                     MERIDIAN_ERR_EXISTS);
    ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(graph, "X", MCA_CARTO_ALL),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_carto_graph_add_edge(graph, "Slot0", "Slot9", 1),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(graph, nullptr, MCA_CARTO_MEM),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(graph), 12);
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(graph), 24);
    ck_assert_messages(
        ERROR_MSG("unknown vertex \"slot1\" (did you mean \"Slot1\"?)"),
        ERROR_MSG(
            "bad carto vertex type mask 0x20: expected an OR of MCA_CARTO_SLOT, MCA_CARTO_MEM, "
            "MCA_CARTO_ETH, MCA_CARTO_IB, MCA_CARTO_OTHER (or MCA_CARTO_ALL)"),
        ERROR_MSG(
            "bad carto vertex type mask 0x0: expected an OR of MCA_CARTO_SLOT, MCA_CARTO_MEM, "
            "MCA_CARTO_ETH, MCA_CARTO_IB, MCA_CARTO_OTHER (or MCA_CARTO_ALL)"),
        ERROR_MSG("unknown vertex \"MEM7\" (did you mean \"MEM0\"?)"),
        ERROR_MSG("duplicate vertex \"MEM0\" (already added as MEM)"),
        ERROR_MSG(
            "bad vertex type 0x1f for \"X\": expected one of SLOT (0x1), MEM (0x2), ETH (0x4), "
            "IB (0x8), OTHER (0x10)"),
        ERROR_MSG("unknown vertex \"Slot9\" (did you mean \"Slot0\"?)"));
    meridian_mca_carto_graph_free(graph);
}
END_TEST

START_TEST(type_names_both_ways)
{
    ck_assert_str_eq(meridian_mca_carto_type_name(MCA_CARTO_SLOT), "SLOT");
    ck_assert_str_eq(meridian_mca_carto_type_name(MCA_CARTO_OTHER), "OTHER");
    ck_assert_str_eq(meridian_mca_carto_type_name(MCA_CARTO_ALL), "ALL");
    ck_assert_ptr_null(meridian_mca_carto_type_name(MCA_CARTO_MEM | MCA_CARTO_IB));
    ck_assert_uint_eq(meridian_mca_carto_type_from_name("ib"), MCA_CARTO_IB);
    ck_assert_uint_eq(meridian_mca_carto_type_from_name("Mem"), MCA_CARTO_MEM);
    ck_assert_uint_eq(meridian_mca_carto_type_from_name("all"), MCA_CARTO_ALL);
    ck_assert_uint_eq(meridian_mca_carto_type_from_name("NIC"), 0);
    ck_assert_uint_eq(meridian_mca_carto_type_from_name(nullptr), 0);
    ck_assert_text_eq(meridian::carto::type_name_choices(), "SLOT, MEM, ETH, IB, OTHER, ALL");
}
END_TEST

START_TEST(names_give_types)
{
    using meridian::VertexType;
    using meridian::carto::vertex_type_from_name;
    const std::pair<const char *, VertexType> cases[] = {
        {"MEM0", VertexType::mem},    {"mem12", VertexType::mem},     {"MEM", VertexType::other},
        {"MEM1a", VertexType::other}, {"Slot3", VertexType::slot},    {"SLOT3", VertexType::slot},
        {"eth0", VertexType::eth},    {"enp3s0", VertexType::eth},    {"Eth1", VertexType::eth},
        {"ETH1", VertexType::other},  {"ib0", VertexType::ib},        {"mlx5_0", VertexType::ib},
        {"hfi1_0", VertexType::ib},   {"MTHCA0", VertexType::ib},     {"mthca1", VertexType::ib},
        {"wlan0", VertexType::other}, {"Socket0", VertexType::other},
    };
    for (const auto &[name, type] : cases) {
        ck_assert_msg(vertex_type_from_name(name) == type, "%s gives %s", name,
                      std::string(meridian::vertex_type_name(vertex_type_from_name(name))).c_str());
    }
}
END_TEST

// ---------------------------------------------------------------- carto text

START_TEST(text_in_the_adjacency_format)
{
    mca_carto_graph_t *graph = figure3();
    const auto text = meridian::carto::format_carto_text(graph->graph);
    ck_assert_msg(text.ok(), "%s", text.ok() ? "" : text.error().message.c_str());
    ck_assert_text_eq(*text,
                      "# carto graph, adjacency format: a vertex in column 1, then its edges as\n"
                      "# NAME:WEIGHT entries; an indented line continues the list above it.\n"
                      "Slot0 MEM0:0, Slot1:1, Slot2:1, Eth0:1, MTHCA0:1\n"
                      "Slot1 MEM1:0, Slot0:1, Slot3:1\n"
                      "Slot2 MEM2:0, Slot0:1, Slot3:1\n"
                      "Slot3 MEM3:0, Slot1:1, Slot2:1, Eth1:1, MTHCA1:1\n"
                      "MEM0 Slot0:0\n"
                      "MEM1 Slot1:0\n"
                      "MEM2 Slot2:0\n"
                      "MEM3 Slot3:0\n"
                      "Eth0 Slot0:1\n"
                      "Eth1 Slot3:1\n"
                      "MTHCA0 Slot0:1\n"
                      "MTHCA1 Slot3:1\n");
    meridian_mca_carto_graph_free(graph);
}
END_TEST

START_TEST(text_in_open_mpi_format_when_names_do_not_give_types)
{
    meridian::WeightedGraph graph;
    using meridian::VertexType;
    ck_assert(graph.add_vertex("Slot0", VertexType::slot).ok());
    ck_assert(graph.add_vertex("nic0", VertexType::eth).ok()); // its name says OTHER
    ck_assert(graph.add_vertex("MEM0", VertexType::mem).ok());
    ck_assert(graph.add_vertex("hca0", VertexType::ib).ok());
    ck_assert(graph.add_edge(0, 1, 7).ok());
    ck_assert(graph.add_edge(0, 1, 3).ok()); // parallel: the lightest is written
    ck_assert(graph.add_edge(0, 2, 1).ok());
    ck_assert(graph.add_edge(1, 0, 3).ok());
    const auto text = meridian::carto::format_carto_text(graph);
    ck_assert_msg(text.ok(), "%s", text.ok() ? "" : text.error().message.c_str());
    ck_assert_text_eq(*text, "# carto graph, Open MPI 1.3 format: EDGE <type> <vertex>, then\n"
                             "# BRANCH <from> <to>:<weight> ... for the directed edges.\n"
                             "EDGE slot Slot0\n"
                             "EDGE Ethernet nic0\n"
                             "EDGE Memory MEM0\n"
                             "EDGE Infiniband hca0\n"
                             "BRANCH Slot0 nic0:3 MEM0:1\n"
                             "BRANCH nic0 Slot0:3\n");
}
END_TEST

START_TEST(text_refuses_what_carto_files_cannot_hold)
{
    meridian::WeightedGraph graph;
    auto text = meridian::carto::format_carto_text(graph);
    ck_assert(!text.ok());
    ck_assert_text_eq(
        text.error().message,
        "cannot write the carto graph as carto text: it has no vertices (a carto file "
        "needs at least one)");
    ck_assert(graph.add_vertex("Slot0", meridian::VertexType::slot).ok());
    ck_assert(graph.add_vertex("my nic", meridian::VertexType::eth).ok());
    text = meridian::carto::format_carto_text(graph);
    ck_assert(!text.ok());
    ck_assert_int_eq(text.error().status, MERIDIAN_ERR_BAD_PARAM);
    ck_assert_text_eq(
        text.error().message,
        "cannot write the carto graph as carto text: the vertex name \"my nic\" is not "
        "one carto text can hold (letters, digits, '_', '-', '.'; not EDGE, BRANCH or "
        "BRANCH_BI_DIR)");
    ck_assert(!meridian::carto::is_carto_name("BRANCH"));
    ck_assert(meridian::carto::is_carto_name("mlx5_0.port-1"));
}
END_TEST

// ---------------------------------------------------------------- host map

void use_fixture(const char *mode)
{
    meridian_test::set_param_env("carto", "fixture");
    meridian_test::set_param_env("carto_fixture_mode", mode);
    meridian_test::set_param_env("mca_base_component_path", CARTO_FIXTURE_DIR);
    const int rc = meridian_init(nullptr, nullptr);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "meridian_init: %s", meridian_strerror(rc));
}

START_TEST(host_map_is_made_once_and_copied_out)
{
    use_fixture("ok");
    ck_assert_ptr_null(meridian_mca_carto_base_selected_component());
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&meridian_carto_base_framework), 0);
    mca_carto_graph_t *whole = nullptr;
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &whole),
                     MERIDIAN_SUCCESS);
    ck_assert_str_eq(meridian_mca_carto_base_selected_component(), "fixture");
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&meridian_carto_base_framework), 1);
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(whole), 4);
    ck_assert_text_eq(distances(whole, "Slot0", MCA_CARTO_ALL),
                      "Slot0 0\nMEM0 1\neth0 2\nMEM9 unreachable\n");
    // The copy is the caller's: changing it leaves the map alone.
    ck_assert_int_eq(meridian_mca_carto_graph_add_vertex(whole, "Slot1", MCA_CARTO_SLOT),
                     MERIDIAN_SUCCESS);
    meridian_mca_carto_graph_free(whole);

    mca_carto_graph_t *mem = nullptr;
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_MEM, &mem), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(mem), 3); // Slot0, MEM0, MEM9
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(mem), 2);
    std::size_t index = 0;
    ck_assert_int_eq(meridian_mca_carto_graph_find_vertex(mem, "eth0", &index),
                     MERIDIAN_ERR_NOT_FOUND);
    meridian_mca_carto_graph_free(mem);

    // C++: the same map, by pointer.
    const auto map = meridian::carto::host_graph();
    ck_assert(map.ok());
    ck_assert_uint_eq((*map)->vertex_count(), 4);
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(0x40, &mem), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(mem);
    ck_assert_messages(
        ERROR_MSG("bad carto vertex type mask 0x40: expected an OR of MCA_CARTO_SLOT, "
                  "MCA_CARTO_MEM, MCA_CARTO_ETH, MCA_CARTO_IB, MCA_CARTO_OTHER (or "
                  "MCA_CARTO_ALL)"));

    // The framework the base opened is closed by finalize, and the map forgotten.
    ck_assert_int_eq(meridian_finalize(), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_base_framework_is_open(&meridian_carto_base_framework), 0);
    ck_assert_ptr_null(meridian_mca_carto_base_selected_component());
}
END_TEST

START_TEST(a_failed_map_is_dropped_and_reported_once)
{
    use_fixture("fail");
    mca_carto_graph_t *graph = reinterpret_cast<mca_carto_graph_t *>(&graph);
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &graph),
                     MERIDIAN_ERR_IO);
    ck_assert_ptr_null(graph);
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_ERR_IO);
    ck_assert_ptr_null(meridian_mca_carto_base_selected_component());
    ck_assert_messages(ERROR_MSG("fixture: the host is on fire"));
    const auto map = meridian::carto::host_graph();
    ck_assert(!map.ok());
    ck_assert_text_eq(map.error().message,
                      "the carto component \"fixture\" could not map the host: " +
                          std::string(meridian_strerror(MERIDIAN_ERR_IO)));

    // After the last close (here finalize's) the next query maps again.
    ck_assert_int_eq(meridian_finalize(), MERIDIAN_SUCCESS);
    use_fixture("ok");
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_str_eq(meridian_mca_carto_base_selected_component(), "fixture");
    meridian_finalize();
}
END_TEST

START_TEST(no_component_accepts)
{
    use_fixture("decline");
    mca_carto_graph_t *graph = nullptr;
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &graph),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &graph),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_messages(
        ERROR_MSG("no carto component is available: fixture declined (" +
                  std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) + ")" +
                  meridian_test::not_selected_tail(meridian_carto_base_framework, "fixture")));
    meridian_finalize();
}
END_TEST

Suite *suite()
{
    Suite *s = suite_create("carto_base");
    TCase *api = tcase_create("c_api");
    tcase_add_unchecked_fixture(api, setup_root, teardown_root);
    tcase_add_checked_fixture(api, setup_capture, nullptr);
    tcase_add_test(api, seed_distance_list_through_c);
    tcase_add_test(api, unreachable_vertices_come_last);
    tcase_add_test(api, lengths_past_uint64_are_flagged);
    tcase_add_test(api, answers_outlive_the_graph);
    tcase_add_test(api, vertices_by_index_and_name);
    tcase_add_test(api, errors_are_reported_with_their_reason);
    tcase_add_test(api, type_names_both_ways);
    tcase_add_test(api, names_give_types);
    suite_add_tcase(s, api);
    TCase *text = tcase_create("carto_text");
    tcase_add_test(text, text_in_the_adjacency_format);
    tcase_add_test(text, text_in_open_mpi_format_when_names_do_not_give_types);
    tcase_add_test(text, text_refuses_what_carto_files_cannot_hold);
    suite_add_tcase(s, text);
    TCase *host = tcase_create("host_map");
    tcase_add_unchecked_fixture(host, setup_root, teardown_root);
    tcase_add_checked_fixture(host, setup_capture, nullptr);
    tcase_add_test(host, host_map_is_made_once_and_copied_out);
    tcase_add_test(host, a_failed_map_is_dropped_and_reported_once);
    tcase_add_test(host, no_component_accepts);
    suite_add_tcase(s, host);
    return s;
}

} // namespace

int main()
{
    return meridian_test::run_suite(suite());
}

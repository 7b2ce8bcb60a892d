// SPDX-License-Identifier: BSD-3-Clause
// The file carto component through the framework, as a user runs it: MCA
// parameters in the environment, meridian_init, then the carto base's C API
// (mca/carto/base/base.h).  The component is found in the build tree
// (CARTO_FILE_COMPONENT_DIR), or is built into libmeridian (--disable-dlopen).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test/carto_file/carto_test_support.hpp"
#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/error.h>

using namespace carto_test;
using meridian_test::messages;

namespace
{

using Setting = std::pair<std::string, std::string>;

// Each test's process: no inherited MCA settings, no param files, the
// component from the build tree, messages captured.
void isolate()
{
    meridian_test::isolate_mca_environment();
    meridian_test::set_param_env("mca_base_component_path", CARTO_FILE_COMPONENT_DIR);
    meridian_test::capture_messages();
}

void finish()
{
    meridian_finalize();
}

// Start Meridian with these parameters set in the environment.
void start(const std::vector<Setting> &settings)
{
    for (const auto &[name, value] : settings) {
        meridian_test::set_param_env(name, value);
    }
    ck_assert_int_eq(meridian_init(nullptr, nullptr), MERIDIAN_SUCCESS);
}

void start_with_file(const std::string &path)
{
    start({{"carto_file_path", path}});
}

// Owns what the C API hands out.
struct GraphHandle {
    mca_carto_graph_t *graph = nullptr;
    GraphHandle() = default;
    GraphHandle(const GraphHandle &) = delete;
    GraphHandle &operator=(const GraphHandle &) = delete;
    ~GraphHandle() { meridian_mca_carto_graph_free(graph); }
};

// The host graph of some types; fails the test when there is none.
void get_graph(unsigned int types, GraphHandle &handle)
{
    const int rc = meridian_mca_carto_base_get_host_graph(types, &handle.graph);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "no host graph: %s", meridian_strerror(rc));
    ck_assert_ptr_nonnull(handle.graph);
}

// A graph as text: one line per vertex in order, "NAME TYPE:" and its edges.
std::string structure_of(const mca_carto_graph_t *graph)
{
    std::string out;
    for (size_t i = 0; i < meridian_mca_carto_graph_vertex_count(graph); ++i) {
        out += meridian_mca_carto_graph_vertex_name(graph, i);
        out += " ";
        out += meridian_mca_carto_type_name(meridian_mca_carto_graph_vertex_type(graph, i));
        out += ":";
        // The C handle is the C++ graph (base.hpp), which lists the edges.
        const meridian::WeightedGraph &cxx = graph->graph;
        for (const auto &edge : cxx.out_edges(static_cast<meridian::VertexId>(i))) {
            out += " " + std::string(cxx.name(edge.target)) + ":" + std::to_string(edge.weight);
        }
        out += "\n";
    }
    return out;
}

// The distance list of the host's graph from a vertex, one "NAME DISTANCE"
// line each ("NAME unreachable"), or "error: <status>".
std::string distances(const char *from, unsigned int types)
{
    GraphHandle host;
    const int got = meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &host.graph);
    if (got != MERIDIAN_SUCCESS) {
        ck_assert_ptr_null(host.graph);
        return std::string("error: ") + meridian_strerror(got);
    }
    mca_carto_distance_t *list = nullptr;
    size_t count = 0;
    const int rc = meridian_mca_carto_graph_distance_list(host.graph, from, types, &list, &count);
    if (rc != MERIDIAN_SUCCESS) {
        ck_assert_ptr_null(list);
        ck_assert_uint_eq(count, 0);
        return std::string("error: ") + meridian_strerror(rc);
    }
    std::string out;
    for (size_t i = 0; i < count; ++i) {
        ck_assert_msg((list[i].type & types) != 0, "%s is not of the types asked for",
                      list[i].vertex);
        out += list[i].vertex;
        if (list[i].reachable) {
            out += " " + std::to_string(list[i].distance);
        } else {
            // Unreachable is a flag, never a distance.
            ck_assert_uint_eq(list[i].distance, 0);
            out += " unreachable";
        }
        out += "\n";
    }
    meridian_mca_carto_distance_list_free(list, count);
    return out;
}

// The shortest path as "A -> B -> C (LENGTH)", "unreachable" or "error: ...".
std::string path_between(const char *a, const char *b)
{
    GraphHandle host;
    get_graph(MCA_CARTO_ALL, host);
    mca_carto_path_t *path = nullptr;
    const int rc = meridian_mca_carto_graph_shortest_path(host.graph, a, b, &path);
    if (rc != MERIDIAN_SUCCESS) {
        ck_assert_ptr_null(path);
        return std::string("error: ") + meridian_strerror(rc);
    }
    std::string out;
    if (!path->reachable) {
        ck_assert_uint_eq(path->count, 0);
        out = "unreachable";
    } else {
        for (size_t i = 0; i < path->count; ++i) {
            out += (i == 0 ? "" : " -> ") + std::string(path->vertices[i]);
        }
        out += " (" + std::to_string(path->length) + ")";
    }
    meridian_mca_carto_path_free(path);
    return out;
}

// Only the component's own messages (the framework's verbose output around
// them depends on the build: DSO or built in).
std::vector<std::string> component_messages()
{
    std::vector<std::string> out;
    for (const auto &message : messages()) {
        if (message.text.starts_with("carto_file: ") ||
            message.text.starts_with("carto: carto_file: ")) {
            out.push_back(message.text);
        }
    }
    return out;
}

const std::string figure3 = contrib_file("figure3.carto");

// A host with Linux port names: types from names (eth*, en*, ib*, mlx*, hfi*).
const char *const linux_ports = "Slot0 MEM0:0, Slot1:10, eth0:1, enp3s0:2, mlx5_0:1\n"
                                "Slot1 MEM1:0, Slot0:10, ib0:1, hfi1_0:2, lo:0\n"
                                "MEM0 Slot0:0\n"
                                "MEM1 Slot1:0\n"
                                "eth0 Slot0:1\n"
                                "enp3s0 Slot0:2, eth0:5\n"
                                "mlx5_0 Slot0:1, ib0:3\n"
                                "ib0 Slot1:1\n"
                                "hfi1_0 Slot1:2\n"
                                "lo Slot1:0\n";

} // namespace

// ---------------------------------------------------------------- parameters

START_TEST(parameters_registered)
{
    start({});
    // meridian_init loads a framework's components when it opens (or when a
    // setting names one it does not have); registering the framework in
    // full loads them now.
    ck_assert_int_eq(meridian_mca_base_framework_register(&meridian_carto_base_framework),
                     MERIDIAN_SUCCESS);
    auto &registry = meridian::mca::ParamRegistry::instance();
    const auto path_index = registry.find("carto_file_path");
    ck_assert_msg(path_index.has_value(), "carto_file_path is not registered");
    const auto *path = registry.param(*path_index);
    ck_assert(path->type() == meridian::mca::ParamType::string);
    ck_assert_msg(!path->is_set(), "carto_file_path is set by default");
    ck_assert_text_eq(meridian_test::value_of("carto_file_path"), "");
    // The help says that both formats are read.
    ck_assert_msg(path->help().find("adjacency format") != std::string::npos &&
                      path->help().find("Open MPI 1.3") != std::string::npos,
                  "help: %s", path->help().c_str());
    ck_assert_int_eq(path->flags() & MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN,
                     MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN);

    const auto priority_index = registry.find("carto_file_priority");
    ck_assert_msg(priority_index.has_value(), "carto_file_priority is not registered");
    const auto *priority = registry.param(*priority_index);
    ck_assert(priority->type() == meridian::mca::ParamType::integer);
    ck_assert_text_eq(meridian_test::value_of("carto_file_priority"), "50");
    ck_assert(priority->rules().min == 0.0);
    ck_assert(priority->rules().max == 100.0);
    ck_assert_no_messages();
}
END_TEST

START_TEST(priority_is_offered)
{
    start({{"carto_file_path", figure3}, {"carto", "file"}, {"carto_file_priority", "77"}});
    ck_assert_int_eq(meridian_mca_base_framework_open(&meridian_carto_base_framework),
                     MERIDIAN_SUCCESS);
    mca_base_selected_t offers[4];
    size_t count = 0;
    ck_assert_int_eq(
        meridian_mca_base_select_all(&meridian_carto_base_framework, offers, 4, &count),
        MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(offers[0].component->component_name, "file");
    ck_assert_int_eq(offers[0].priority, 77);
    ck_assert_int_eq(meridian_mca_base_framework_close(&meridian_carto_base_framework),
                     MERIDIAN_SUCCESS);
    ck_assert_no_messages();
}
END_TEST

START_TEST(priority_out_of_bounds_is_refused)
{
    start({{"carto_file_path", figure3}, {"carto_file_priority", "101"}});
    // Told when the component loads (carto opens, or registers in full).
    ck_assert_no_messages();
    ck_assert_int_eq(meridian_mca_base_framework_register(&meridian_carto_base_framework),
                     MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_test::value_of("carto_file_priority"), "50");
    // Refused with the reason; the default stays.
    ck_assert_messages(ERROR_MSG("bad value \"101\" for MCA parameter carto_file_priority from "
                                 "environment variable " +
                                 meridian_test::env_name("carto_file_priority") +
                                 ": expected an integer between 0 and 100"));
}
END_TEST

// ---------------------------------------------------------------- the seed's example

START_TEST(figure3_slot1_to_memory)
{
    start_with_file(figure3);
    // The seed (004, 2.3.4): running on slot 1, the memory nodes are MEM1:0,
    // MEM0:1, MEM3:1, MEM2:2, in that order.
    ck_assert_text_eq(distances("Slot1", MCA_CARTO_MEM), "MEM1 0\nMEM0 1\nMEM3 1\nMEM2 2\n");
    ck_assert_str_eq(meridian_mca_carto_base_selected_component(), "file");
    ck_assert_no_messages();
}
END_TEST

START_TEST(figure3_whole_graph)
{
    start_with_file(figure3);
    GraphHandle all;
    get_graph(MCA_CARTO_ALL, all);
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(all.graph), 24);
    ck_assert_text_eq(structure_of(all.graph),
                      "MEM0 MEM: Slot0:0\n"
                      "Eth0 ETH: Slot0:1\n"
                      "MTHCA0 IB: Slot0:1\n"
                      "Slot0 SLOT: Eth0:1 MTHCA0:1 MEM0:0 Slot2:1 Slot1:1\n"
                      "Slot1 SLOT: MEM1:0 Slot0:1 Slot3:1\n"
                      "MEM1 MEM: Slot1:0\n"
                      "Slot2 SLOT: MEM2:0 Slot0:1 Slot3:1\n"
                      "MEM2 MEM: Slot2:0\n"
                      "Slot3 SLOT: Eth1:1 MEM3:0 MTHCA1:1 Slot1:1 Slot2:1\n"
                      "Eth1 ETH: Slot3:1\n"
                      "MEM3 MEM: Slot3:0\n"
                      "MTHCA1 IB: Slot3:1\n");
    // Every type from Slot1, nearest first, ties by name.
    ck_assert_text_eq(distances("Slot1", MCA_CARTO_ALL),
                      "MEM1 0\nSlot1 0\nMEM0 1\nMEM3 1\nSlot0 1\nSlot3 1\n"
                      "Eth0 2\nEth1 2\nMEM2 2\nMTHCA0 2\nMTHCA1 2\nSlot2 2\n");
    ck_assert_text_eq(distances("Slot1", MCA_CARTO_SLOT), "Slot1 0\nSlot0 1\nSlot3 1\nSlot2 2\n");
    ck_assert_text_eq(distances("MEM2", MCA_CARTO_ETH | MCA_CARTO_IB),
                      "Eth0 2\nEth1 2\nMTHCA0 2\nMTHCA1 2\n");
    ck_assert_no_messages();
}
END_TEST

// ---------------------------------------------------------------- type filtering

START_TEST(memory_graph)
{
    start_with_file(figure3);
    GraphHandle mem;
    get_graph(MCA_CARTO_MEM, mem);
    // The memory nodes plus the processors, in the file's order, and only
    // the edges among them: no ports, no edge to or from a port.
    ck_assert_text_eq(structure_of(mem.graph), "MEM0 MEM: Slot0:0\n"
                                               "Slot0 SLOT: MEM0:0 Slot2:1 Slot1:1\n"
                                               "Slot1 SLOT: MEM1:0 Slot0:1 Slot3:1\n"
                                               "MEM1 MEM: Slot1:0\n"
                                               "Slot2 SLOT: MEM2:0 Slot0:1 Slot3:1\n"
                                               "MEM2 MEM: Slot2:0\n"
                                               "Slot3 SLOT: MEM3:0 Slot1:1 Slot2:1\n"
                                               "MEM3 MEM: Slot3:0\n");
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(mem.graph), 16);
    // A port is not in it, so a distance list from one is refused.
    size_t index = 0;
    ck_assert_int_eq(meridian_mca_carto_graph_find_vertex(mem.graph, "Eth0", &index),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_no_messages();
}
END_TEST

START_TEST(port_graphs)
{
    const std::string path = write_scratch_file("ports.carto", linux_ports);
    start_with_file(path);
    GraphHandle all;
    get_graph(MCA_CARTO_ALL, all);
    ck_assert_text_eq(structure_of(all.graph),
                      "Slot0 SLOT: MEM0:0 Slot1:10 eth0:1 enp3s0:2 mlx5_0:1\n"
                      "Slot1 SLOT: MEM1:0 Slot0:10 ib0:1 hfi1_0:2 lo:0\n"
                      "MEM0 MEM: Slot0:0\n"
                      "MEM1 MEM: Slot1:0\n"
                      "eth0 ETH: Slot0:1\n"
                      "enp3s0 ETH: Slot0:2 eth0:5\n"
                      "mlx5_0 IB: Slot0:1 ib0:3\n"
                      "ib0 IB: Slot1:1\n"
                      "hfi1_0 IB: Slot1:2\n"
                      "lo OTHER: Slot1:0\n");

    GraphHandle eth;
    get_graph(MCA_CARTO_ETH, eth);
    ck_assert_text_eq(structure_of(eth.graph), "Slot0 SLOT: Slot1:10 eth0:1 enp3s0:2\n"
                                               "Slot1 SLOT: Slot0:10\n"
                                               "eth0 ETH: Slot0:1\n"
                                               "enp3s0 ETH: Slot0:2 eth0:5\n");
    GraphHandle ib;
    get_graph(MCA_CARTO_IB, ib);
    ck_assert_text_eq(structure_of(ib.graph), "Slot0 SLOT: Slot1:10 mlx5_0:1\n"
                                              "Slot1 SLOT: Slot0:10 ib0:1 hfi1_0:2\n"
                                              "mlx5_0 IB: Slot0:1 ib0:3\n"
                                              "ib0 IB: Slot1:1\n"
                                              "hfi1_0 IB: Slot1:2\n");
    GraphHandle other;
    get_graph(MCA_CARTO_OTHER, other);
    ck_assert_text_eq(structure_of(other.graph), "Slot0 SLOT: Slot1:10\n"
                                                 "Slot1 SLOT: Slot0:10 lo:0\n"
                                                 "lo OTHER: Slot1:0\n");
    // The NICs nearest a process on Slot1, by type.
    ck_assert_text_eq(distances("Slot1", MCA_CARTO_IB), "ib0 1\nhfi1_0 2\nmlx5_0 11\n");
    ck_assert_text_eq(distances("Slot1", MCA_CARTO_ETH), "eth0 11\nenp3s0 12\n");
    ck_assert_no_messages();
}
END_TEST

// ---------------------------------------------------------------- reachability

START_TEST(unreachable_vertices_come_last_in_name_order)
{
    // Edges are directed: MEM2 points at Slot0 but nothing reaches it.
    // MEM10 and mem3 are not connected at all.
    const std::string path = write_scratch_file("islands.carto", "Slot0 MEM0:1, Slot1:5\n"
                                                                 "Slot1 MEM1:1\n"
                                                                 "MEM0\n"
                                                                 "MEM10\n"
                                                                 "MEM1\n"
                                                                 "MEM2 Slot0:1\n"
                                                                 "mem3\n"
                                                                 "Slot2 MEM10:0\n");
    start_with_file(path);
    ck_assert_text_eq(distances("Slot0", MCA_CARTO_MEM), "MEM0 1\n"
                                                         "MEM1 6\n"
                                                         "MEM2 unreachable\n"
                                                         "MEM10 unreachable\n"
                                                         "mem3 unreachable\n");
    ck_assert_text_eq(distances("mem3", MCA_CARTO_ALL), "mem3 0\n"
                                                        "MEM0 unreachable\n"
                                                        "MEM1 unreachable\n"
                                                        "MEM2 unreachable\n"
                                                        "MEM10 unreachable\n"
                                                        "Slot0 unreachable\n"
                                                        "Slot1 unreachable\n"
                                                        "Slot2 unreachable\n");
    ck_assert_text_eq(path_between("Slot0", "MEM2"), "unreachable");
    ck_assert_text_eq(path_between("MEM2", "MEM1"), "MEM2 -> Slot0 -> Slot1 -> MEM1 (7)");
    ck_assert_no_messages();
}
END_TEST

// ---------------------------------------------------------------- paths and names

START_TEST(shortest_path_and_its_length)
{
    start_with_file(figure3);
    ck_assert_text_eq(path_between("MEM1", "MTHCA0"), "MEM1 -> Slot1 -> Slot0 -> MTHCA0 (2)");
    ck_assert_text_eq(path_between("Eth1", "MEM3"), "Eth1 -> Slot3 -> MEM3 (1)");
    ck_assert_text_eq(path_between("Slot2", "Slot2"), "Slot2 (0)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(find_vertex)
{
    start_with_file(figure3);
    GraphHandle all;
    get_graph(MCA_CARTO_ALL, all);
    size_t index = 99;
    ck_assert_int_eq(meridian_mca_carto_graph_find_vertex(all.graph, "Slot3", &index),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(index, 8); // the ninth vertex of the file
    ck_assert_str_eq(meridian_mca_carto_graph_vertex_name(all.graph, index), "Slot3");
    ck_assert_int_eq(meridian_mca_carto_graph_vertex_type(all.graph, index), MCA_CARTO_SLOT);
    ck_assert_int_eq(meridian_mca_carto_graph_find_vertex(all.graph, "MTHCA1", &index),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(index, 11);
    ck_assert_int_eq(meridian_mca_carto_graph_vertex_type(all.graph, index), MCA_CARTO_IB);
    // Looking for a name that is not there is not an error: no message.
    ck_assert_int_eq(meridian_mca_carto_graph_find_vertex(all.graph, "Slot4", &index),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_no_messages();
}
END_TEST

START_TEST(unknown_vertex_names_the_closest)
{
    start_with_file(figure3);
    ck_assert_text_eq(distances("slot1", MCA_CARTO_MEM), "error: not found");
    ck_assert_messages(ERROR_MSG("unknown vertex \"slot1\" (did you mean \"Slot1\"?)"));
    meridian_test::clear_messages();
    ck_assert_text_eq(distances("MTHCA2", MCA_CARTO_MEM), "error: not found");
    ck_assert_messages(ERROR_MSG("unknown vertex \"MTHCA2\" (did you mean \"MTHCA0\"?)"));
    meridian_test::clear_messages();
    ck_assert_text_eq(path_between("Slot0", "Eht0"), "error: not found");
    ck_assert_messages(ERROR_MSG("unknown vertex \"Eht0\" (did you mean \"Eth0\"?)"));
}
END_TEST

// ---------------------------------------------------------------- declining

START_TEST(no_path_declines)
{
    // Only the file component may be selected, and it has no file to read.
    start({{"carto", "file"}, {"carto_base_verbose", "info"}});
    ck_assert_int_eq(meridian_mca_base_framework_open(&meridian_carto_base_framework),
                     MERIDIAN_SUCCESS);
    meridian_test::clear_messages();
    mca_base_module_t *module = nullptr;
    const mca_base_component_t *component = nullptr;
    ck_assert_int_eq(meridian_mca_base_select(&meridian_carto_base_framework, &module, &component),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(component);
    // Why, at verbosity info, and that nothing was left.
    ck_assert_messages(
        VERBOSE_MSG("carto: carto_file: declining: carto_file_path is not set, so "
                    "there is no carto file to read"),
        VERBOSE_MSG("carto: component file declines (" +
                    std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) + ")"),
        ERROR_MSG("no carto component is available: file declined (" +
                  std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) + ")" +
                  meridian_test::not_selected_tail(meridian_carto_base_framework, "file")));
    ck_assert_int_eq(meridian_mca_base_framework_close(&meridian_carto_base_framework),
                     MERIDIAN_SUCCESS);
}
END_TEST

START_TEST(no_path_no_map)
{
    // An empty value is no path either; the user's queries answer the error.
    start({{"carto", "file"}, {"carto_file_path", ""}});
    GraphHandle host;
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &host.graph),
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(host.graph);
    ck_assert_ptr_null(meridian_mca_carto_base_selected_component());
    ck_assert_messages(
        ERROR_MSG("no carto component is available: file declined (" +
                  std::string(meridian_strerror(MERIDIAN_ERR_NOT_AVAILABLE)) + ")" +
                  meridian_test::not_selected_tail(meridian_carto_base_framework, "file")));
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_ERR_NOT_FOUND);
}
END_TEST

START_TEST(path_set_accepts)
{
    start({{"carto", "file"}, {"carto_file_path", figure3}, {"carto_base_verbose", "info"}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_str_eq(meridian_mca_carto_base_selected_component(), "file");
    // The query did not read the file: the framework says it mapped the host
    // only after selecting.
    std::vector<std::string> texts;
    for (const auto &message : messages()) {
        texts.push_back(message.text);
    }
    const auto offered = std::find(texts.begin(), texts.end(),
                                   "carto: component file offers a module with priority 50");
    ck_assert_msg(offered != texts.end(), "no offer among the messages");
    ck_assert_msg(std::find(offered, texts.end(),
                            "carto: component file mapped the host: 12 vertices, 24 edges") !=
                      texts.end(),
                  "the map is not reported after the offer");
    ck_assert(component_messages().empty());
}
END_TEST

// ---------------------------------------------------------------- bad files

START_TEST(bad_file_through_the_framework)
{
    const std::string path = write_scratch_file("bad.carto", "# a host\n"
                                                             "Slot0 MEM0:0\n"
                                                             "MEM0  Slot0 0\n");
    start_with_file(path);
    ck_assert_text_eq(distances("Slot0", MCA_CARTO_MEM), "error: bad parameter");
    ck_assert_messages(ERROR_MSG("carto_file: " + path +
                                 ":3:13: expected ':' and a weight after Slot0, found \"0\""));
    // Reported once: every later query answers the same error quietly.
    meridian_test::clear_messages();
    GraphHandle host;
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_MEM, &host.graph),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(host.graph);
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(meridian_mca_carto_base_selected_component());
    ck_assert_no_messages();
}
END_TEST

START_TEST(unknown_vertex_in_file)
{
    const std::string path = write_scratch_file(
        "typo.carto", "EDGE slot Slot0\nEDGE Memory MEM0\nBRANCH Slot0 MEMO:0\n");
    start_with_file(path);
    GraphHandle host;
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &host.graph),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("carto_file: " + path +
                                 ":3:14: expected a declared vertex, found \"MEMO\" (no line "
                                 "declares it; did you mean MEM0?)"));
}
END_TEST

START_TEST(missing_file)
{
    const std::string path = meridian_test::scratch() + "/no-such.carto";
    start_with_file(path);
    GraphHandle host;
    ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(MCA_CARTO_ALL, &host.graph),
                     MERIDIAN_ERR_IO);
    ck_assert_messages(ERROR_MSG("carto_file: " + path + ": No such file or directory"));
}
END_TEST

START_TEST(empty_file)
{
    const std::string path = write_scratch_file("empty.carto", "");
    start_with_file(path);
    ck_assert_text_eq(distances("Slot0", MCA_CARTO_ALL), "error: bad parameter");
    ck_assert_messages(ERROR_MSG("carto_file: " + path +
                                 ":1:1: expected at least one vertex, found an empty file"));
}
END_TEST

// ---------------------------------------------------------------- Open MPI's format

START_TEST(open_mpi_format)
{
    start_with_file(contrib_file("ompi13.carto"));
    ck_assert_text_eq(distances("Slot1", MCA_CARTO_MEM), "MEM1 0\nMEM0 1\nMEM3 1\nMEM2 2\n");
    ck_assert_text_eq(path_between("MEM1", "MTHCA0"), "MEM1 -> Slot1 -> Slot0 -> MTHCA0 (2)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(open_mpi_types_are_the_edge_lines)
{
    // Names that say nothing: the EDGE lines give the types.
    const std::string path =
        write_scratch_file("typed.carto", "// two sockets, a NUMA node each, one HCA\n"
                                          "EDGE Socket cpu0\n"
                                          "EDGE Socket cpu1\n"
                                          "EDGE Memory numa0\n"
                                          "EDGE Memory numa1\n"
                                          "EDGE Infiniband hca\n"
                                          "BRANCH_BI_DIR cpu0 numa0:0 cpu1:4 hca:1\n"
                                          "BRANCH_BI_DIR cpu1 numa1:0 /* far */\n");
    start_with_file(path);
    GraphHandle mem;
    get_graph(MCA_CARTO_MEM, mem);
    ck_assert_text_eq(structure_of(mem.graph), "cpu0 SLOT: numa0:0 cpu1:4\n"
                                               "cpu1 SLOT: cpu0:4 numa1:0\n"
                                               "numa0 MEM: cpu0:0\n"
                                               "numa1 MEM: cpu1:0\n");
    ck_assert_text_eq(distances("cpu1", MCA_CARTO_MEM), "numa1 0\nnuma0 4\n");
    ck_assert_text_eq(distances("numa1", MCA_CARTO_IB), "hca 5\n");
    ck_assert_no_messages();
}
END_TEST

namespace
{

TCase *component_tcase(const char *name)
{
    TCase *tcase = make_tcase(name);
    tcase_add_checked_fixture(tcase, isolate, finish);
    return tcase;
}

} // namespace

int main()
{
    Suite *suite = suite_create("carto_file_component");
    TCase *params = component_tcase("parameters");
    tcase_add_test(params, parameters_registered);
    tcase_add_test(params, priority_is_offered);
    tcase_add_test(params, priority_out_of_bounds_is_refused);
    suite_add_tcase(suite, params);

    TCase *seed = component_tcase("figure3");
    tcase_add_test(seed, figure3_slot1_to_memory);
    tcase_add_test(seed, figure3_whole_graph);
    suite_add_tcase(suite, seed);

    TCase *types = component_tcase("types");
    tcase_add_test(types, memory_graph);
    tcase_add_test(types, port_graphs);
    suite_add_tcase(suite, types);

    TCase *queries = component_tcase("queries");
    tcase_add_test(queries, unreachable_vertices_come_last_in_name_order);
    tcase_add_test(queries, shortest_path_and_its_length);
    tcase_add_test(queries, find_vertex);
    tcase_add_test(queries, unknown_vertex_names_the_closest);
    suite_add_tcase(suite, queries);

    TCase *selection = component_tcase("selection");
    tcase_add_test(selection, no_path_declines);
    tcase_add_test(selection, no_path_no_map);
    tcase_add_test(selection, path_set_accepts);
    suite_add_tcase(suite, selection);

    TCase *bad = component_tcase("bad_files");
    tcase_add_test(bad, bad_file_through_the_framework);
    tcase_add_test(bad, unknown_vertex_in_file);
    tcase_add_test(bad, missing_file);
    tcase_add_test(bad, empty_file);
    suite_add_tcase(suite, bad);

    TCase *ompi = component_tcase("open_mpi");
    tcase_add_test(ompi, open_mpi_format);
    tcase_add_test(ompi, open_mpi_types_are_the_edge_lines);
    suite_add_tcase(suite, ompi);
    return meridian_test::run_suite(suite);
}

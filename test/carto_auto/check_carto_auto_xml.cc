// SPDX-License-Identifier: BSD-3-Clause
// carto_auto on hand-written hwloc XML topologies (carto_auto_xml), through
// the carto framework as a program uses it: the exact vertices, types, edges
// and distance lists the weight rule of components/carto_auto/README.md
// gives, with NUMA distances and without, and the framework's selection.
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "test/carto_auto/carto_auto_test.hpp"
#include <meridian/opal/util/error.h>

using namespace carto_auto_test;
using meridian::type_mask;
using meridian::VertexType;

namespace
{

constexpr unsigned slot = MCA_CARTO_SLOT;
constexpr unsigned mem = MCA_CARTO_MEM;
constexpr unsigned eth = MCA_CARTO_ETH;
constexpr unsigned ib = MCA_CARTO_IB;
constexpr unsigned all = MCA_CARTO_ALL;

} // namespace

// contrib/carto/auto-2pkg-ib.xml: two packages with a NUMA node each and
// hwloc's latency matrix 10/21; eth0 under package 0, the HCA mlx5_0 and its
// IPoIB interface ib0 under package 1.
START_TEST(two_packages_with_numa_latencies)
{
    init_with({{"carto_auto_xml", contrib_xml("auto-2pkg-ib.xml")}});

    ck_assert_text_eq(structure_of(host_graph()),
                      "Slot0 SLOT: Slot1:21 MEM0:10 MEM1:21 eth0:10\n"
                      "Slot1 SLOT: Slot0:21 MEM0:21 MEM1:10 mlx5_0:10 ib0:10\n"
                      "MEM0 MEM: Slot0:10 Slot1:21 eth0:10\n"
                      "MEM1 MEM: Slot0:21 Slot1:10 mlx5_0:10 ib0:10\n"
                      "eth0 ETH: Slot0:10 MEM0:10\n"
                      "mlx5_0 IB: Slot1:10 MEM1:10\n"
                      "ib0 IB: Slot1:10 MEM1:10\n");
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "auto");

    // The same through the C API, as a C program asks.
    const CGraph graph = host_graph_c(all);
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(graph.get()), 7);
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(graph.get()), 22);
    // From Slot0 its own memory and its own NIC are nearest; package 1's
    // ports are a package away (21 + 10), in name order on the tie.
    ck_assert_text_eq(distances_of(graph.get(), "Slot0", all),
                      "Slot0 0, MEM0 10, eth0 10, MEM1 21, Slot1 21, ib0 31, mlx5_0 31");
    ck_assert_text_eq(distances_of(graph.get(), "Slot0", mem), "MEM0 10, MEM1 21");
    ck_assert_text_eq(distances_of(graph.get(), "Slot0", eth), "eth0 10");
    ck_assert_text_eq(distances_of(graph.get(), "Slot0", ib), "ib0 31, mlx5_0 31");
    ck_assert_text_eq(distances_of(graph.get(), "Slot1", all),
                      "Slot1 0, MEM1 10, ib0 10, mlx5_0 10, MEM0 21, Slot0 21, eth0 31");
    ck_assert_text_eq(distances_of(graph.get(), "Slot1", eth), "eth0 31");
    ck_assert_text_eq(distances_of(graph.get(), "MEM1", slot), "Slot1 10, Slot0 21");
    // From a port: the memory by its own package first.
    ck_assert_text_eq(distances_of(graph.get(), "eth0", mem), "MEM0 10, MEM1 31");
    ck_assert_text_eq(distances_of(graph.get(), "eth0", ib), "ib0 41, mlx5_0 41");
    ck_assert_text_eq(distances_of(graph.get(), "ib0", slot), "Slot1 10, Slot0 31");
    ck_assert_text_eq(distances_of(graph.get(), "mlx5_0", eth | ib), "mlx5_0 0, ib0 20, eth0 41");
    ck_assert_no_messages();
}
END_TEST

// The graph of one interconnect: its ports plus the processors (seed 004, 2.3.3).
START_TEST(graph_of_one_interconnect)
{
    init_with({{"carto_auto_xml", contrib_xml("auto-2pkg-ib.xml")}});

    const CGraph ib_graph = host_graph_c(ib);
    ck_assert_text_eq(vertices_of(ib_graph.get()), "Slot0 SLOT\nSlot1 SLOT\nmlx5_0 IB\nib0 IB\n");
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(ib_graph.get()), 6);
    ck_assert_text_eq(distances_of(ib_graph.get(), "Slot0", all),
                      "Slot0 0, Slot1 21, ib0 31, mlx5_0 31");

    const CGraph mem_graph = host_graph_c(mem);
    ck_assert_text_eq(vertices_of(mem_graph.get()), "Slot0 SLOT\nSlot1 SLOT\nMEM0 MEM\nMEM1 MEM\n");
    ck_assert_uint_eq(meridian_mca_carto_graph_edge_count(mem_graph.get()), 10);

    // No port of package 0 in the ETH graph but eth0: package 1 reaches it
    // through package 0 only.
    const auto eth_graph = meridian::carto::host_graph(type_mask(VertexType::eth));
    ck_assert(eth_graph.ok());
    ck_assert_text_eq(structure_of(*eth_graph), "Slot0 SLOT: Slot1:21 eth0:10\n"
                                                "Slot1 SLOT: Slot0:21\n"
                                                "eth0 ETH: Slot0:10\n");
    ck_assert_no_messages();
}
END_TEST

// test/carto_auto/hierarchy.xml: no latency matrix, so the weights come from
// the tree: 10 * (1 + hops).  Package 0 has two groups with a NUMA node each
// (eth0 in group 0), package 1 one NUMA node with hfi1_0 and ib0 (no
// address: IB by its name); p2p1 hangs off the machine itself.
START_TEST(hierarchy_weights_without_numa_latencies)
{
    init_with({{"carto_auto_xml", test_xml("hierarchy.xml")}});

    ck_assert_text_eq(structure_of(host_graph()),
                      "Slot0 SLOT: Slot1:30 MEM0:10 MEM1:10 MEM2:30 eth0:10 p2p1:20\n"
                      "Slot1 SLOT: Slot0:30 MEM0:40 MEM1:40 MEM2:10 hfi1_0:10 ib0:10 p2p1:20\n"
                      "MEM0 MEM: Slot0:10 Slot1:40 eth0:10\n"
                      "MEM1 MEM: Slot0:10 Slot1:40\n"
                      "MEM2 MEM: Slot0:30 Slot1:10 hfi1_0:10 ib0:10 p2p1:20\n"
                      "eth0 ETH: Slot0:10 MEM0:10\n"
                      "hfi1_0 IB: Slot1:10 MEM2:10\n"
                      "ib0 IB: Slot1:10 MEM2:10\n"
                      "p2p1 ETH: Slot0:20 Slot1:20 MEM2:20\n");

    const CGraph graph = host_graph_c(all);
    ck_assert_text_eq(
        distances_of(graph.get(), "Slot0", all),
        "Slot0 0, MEM0 10, MEM1 10, eth0 10, p2p1 20, MEM2 30, Slot1 30, hfi1_0 40, ib0 40");
    ck_assert_text_eq(
        distances_of(graph.get(), "Slot1", all),
        "Slot1 0, MEM2 10, hfi1_0 10, ib0 10, p2p1 20, Slot0 30, MEM0 40, MEM1 40, eth0 40");
    // A NIC inside the package is nearer than one of the whole machine,
    // which is nearer than one of the other package.
    ck_assert_text_eq(distances_of(graph.get(), "Slot0", eth), "eth0 10, p2p1 20");
    ck_assert_text_eq(distances_of(graph.get(), "Slot1", eth), "p2p1 20, eth0 40");
    ck_assert_text_eq(distances_of(graph.get(), "Slot0", ib), "hfi1_0 40, ib0 40");
    // Ports see the memory of their own group, package, machine first.
    ck_assert_text_eq(distances_of(graph.get(), "eth0", mem), "MEM0 10, MEM1 20, MEM2 40");
    ck_assert_text_eq(distances_of(graph.get(), "p2p1", mem), "MEM2 20, MEM0 30, MEM1 30");
    ck_assert_text_eq(distances_of(graph.get(), "p2p1", slot), "Slot0 20, Slot1 20");
    ck_assert_text_eq(
        distances_of(graph.get(), "MEM1", all),
        "MEM1 0, Slot0 10, MEM0 20, eth0 20, p2p1 30, MEM2 40, Slot1 40, hfi1_0 50, ib0 50");
    ck_assert_no_messages();
}
END_TEST

// test/carto_auto/ring4.xml: the host of the carto seed's figures 1-3, four
// packages in a ring.  From Slot1 the memory comes in the seed's order
// (MEM1, then MEM0 and MEM3, then MEM2), here in hwloc's latency units.
START_TEST(seed_figure_ring_of_four_packages)
{
    init_with({{"carto_auto_xml", test_xml("ring4.xml")}});

    ck_assert_text_eq(
        structure_of(host_graph()),
        "Slot0 SLOT: Slot1:20 Slot2:20 Slot3:30 MEM0:10 MEM1:20 MEM2:20 MEM3:30 Eth0:10 MTHCA0:10\n"
        "Slot1 SLOT: Slot0:20 Slot2:30 Slot3:20 MEM0:20 MEM1:10 MEM2:30 MEM3:20\n"
        "Slot2 SLOT: Slot0:20 Slot1:30 Slot3:20 MEM0:20 MEM1:30 MEM2:10 MEM3:20\n"
        "Slot3 SLOT: Slot0:30 Slot1:20 Slot2:20 MEM0:30 MEM1:20 MEM2:20 MEM3:10 Eth1:10 MTHCA1:10\n"
        "MEM0 MEM: Slot0:10 Slot1:20 Slot2:20 Slot3:30 Eth0:10 MTHCA0:10\n"
        "MEM1 MEM: Slot0:20 Slot1:10 Slot2:30 Slot3:20\n"
        "MEM2 MEM: Slot0:20 Slot1:30 Slot2:10 Slot3:20\n"
        "MEM3 MEM: Slot0:30 Slot1:20 Slot2:20 Slot3:10 Eth1:10 MTHCA1:10\n"
        "Eth0 ETH: Slot0:10 MEM0:10\n"
        "MTHCA0 IB: Slot0:10 MEM0:10\n"
        "Eth1 ETH: Slot3:10 MEM3:10\n"
        "MTHCA1 IB: Slot3:10 MEM3:10\n");

    const CGraph graph = host_graph_c(all);
    ck_assert_text_eq(distances_of(graph.get(), "Slot1", mem),
                      "MEM1 10, MEM0 20, MEM3 20, MEM2 30");
    ck_assert_text_eq(distances_of(graph.get(), "Slot0", eth), "Eth0 10, Eth1 40");
    ck_assert_text_eq(distances_of(graph.get(), "Slot1", ib), "MTHCA0 30, MTHCA1 30");
    ck_assert_text_eq(distances_of(graph.get(), "Slot2", eth | ib),
                      "Eth0 30, Eth1 30, MTHCA0 30, MTHCA1 30");
    ck_assert_text_eq(distances_of(graph.get(), "Slot3", slot),
                      "Slot3 0, Slot1 20, Slot2 20, Slot0 30");
    ck_assert_no_messages();
}
END_TEST

// test/carto_auto/nopackage.xml: hwloc found no package, so the machine is
// the one processor, Slot0.
START_TEST(machine_without_packages_is_slot0)
{
    init_with({{"carto_auto_xml", test_xml("nopackage.xml")}});
    ck_assert_text_eq(structure_of(host_graph()), "Slot0 SLOT: MEM0:10 enp1s0:10\n"
                                                  "MEM0 MEM: Slot0:10 enp1s0:10\n"
                                                  "enp1s0 ETH: Slot0:10 MEM0:10\n");
    ck_assert_no_messages();
}
END_TEST

// An XML file hwloc reads when linked as usual (here: attributes in single
// quotes, which its libxml2 importer takes and its minimal one does not) is
// read by carto_auto too, although a component's libhwloc is loaded
// RTLD_LOCAL, out of reach of hwloc's plugins unless carto_auto helps.
START_TEST(reads_what_hwloc_reads)
{
    const std::string path = test_xml("single-quotes.xml");
    const std::string command = std::string(HWLOC_ACCEPTS) + " '" + path + "'";
    const int status = std::system(command.c_str());
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "%s failed to run",
                  command.c_str());
    init_with({{"carto_auto_xml", path}});
    if (WEXITSTATUS(status) == 1) {
        // This hwloc has no libxml2 importer: carto_auto cannot do better.
        mca_carto_graph_t *graph = nullptr;
        ck_assert_int_eq(meridian_mca_carto_base_get_host_graph(all, &graph),
                         MERIDIAN_ERR_BAD_PARAM);
        return;
    }
    ck_assert_text_eq(structure_of(host_graph()), "Slot0 SLOT: MEM0:10 enp1s0:10\n"
                                                  "MEM0 MEM: Slot0:10 enp1s0:10\n"
                                                  "enp1s0 ETH: Slot0:10 MEM0:10\n");
    ck_assert_no_messages();
}
END_TEST

// The C++ API's paths: lengths are those of the distance lists.
START_TEST(shortest_paths_through_the_cxx_api)
{
    init_with({{"carto_auto_xml", test_xml("hierarchy.xml")}});
    const meridian::WeightedGraph &graph = host_graph();

    const auto from = graph.vertex_named("eth0");
    const auto to = graph.vertex_named("MEM1");
    ck_assert(from.ok() && to.ok());
    const auto path = graph.shortest_path(*from, *to);
    ck_assert(path.ok() && path->has_value());
    std::string names;
    for (const meridian::VertexId v : (*path)->vertices) {
        names += (names.empty() ? "" : " ") + std::string(graph.name(v));
    }
    ck_assert_text_eq(names, "eth0 Slot0 MEM1");
    ck_assert_uint_eq((*path)->length.saturated(), 20);

    // The machine's NIC is no shortcut between the packages.
    const auto slot0 = graph.vertex_named("Slot0");
    const auto slot1 = graph.vertex_named("Slot1");
    const auto across = graph.shortest_path(*slot0, *slot1);
    ck_assert(across.ok() && across->has_value());
    ck_assert_uint_eq((*across)->length.saturated(), 30);
    ck_assert_uint_eq((*across)->vertices.size(), 2);
    ck_assert_no_messages();
}
END_TEST

// Without a carto file, the framework selects carto_auto by itself; naming
// it works too; its priority is a parameter (carto_file offers 50 when it
// has a path).
START_TEST(selected_by_default)
{
    init_with({{"carto_auto_xml", test_xml("nopackage.xml")}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "auto");
    // Registered when carto opened (to select), with the setting waiting.
    ck_assert_text_eq(meridian_test::value_of("carto_auto_priority"), "20");
    ck_assert_no_messages();
}
END_TEST

START_TEST(selected_by_name)
{
    init_with({{"carto", "auto"}, {"carto_auto_xml", test_xml("nopackage.xml")}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "auto");
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(host_graph_c(all).get()), 3);
    ck_assert_no_messages();
}
END_TEST

// The carto requirements' name for it: "carto autodetect" (an alias the
// component declares) selects it, "^autodetect" leaves it out.
START_TEST(selected_as_autodetect)
{
    const std::string file = write_scratch_file("host.carto", "Slot0 MEM0:1\nMEM0 Slot0:1\n");
    init_with({{"carto", "autodetect"},
               {"carto_file_path", file},
               {"carto_auto_xml", test_xml("nopackage.xml")}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "auto");
    ck_assert_uint_eq(meridian_mca_carto_graph_vertex_count(host_graph_c(all).get()), 3);
    ck_assert_no_messages();
}
END_TEST

START_TEST(excluded_as_autodetect)
{
    const std::string file = write_scratch_file("host.carto", "Slot0 MEM0:1\nMEM0 Slot0:1\n");
    init_with({{"carto", "^autodetect"},
               {"carto_file_path", file},
               {"carto_auto_priority", "90"},
               {"carto_auto_xml", test_xml("nopackage.xml")}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "file");
    ck_assert_no_messages();
}
END_TEST

START_TEST(a_misspelt_name_lists_the_alias)
{
    init_with({{"carto", "autodetct"}, {"carto_auto_xml", test_xml("nopackage.xml")}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(meridian_mca_carto_base_selected_component());
    const std::string variable = meridian_test::env_name("carto");
    ck_assert_messages(
        ERROR_MSG("MCA parameter carto (from environment variable " + variable +
                  ") names component \"autodetct\", which is not available; available carto "
                  "components: auto (also: autodetect), file (did you mean autodetect?)"));
}
END_TEST

START_TEST(priority_outranks_a_carto_file)
{
    const std::string file = write_scratch_file("host.carto", "Slot0 MEM0:1\nMEM0 Slot0:1\n");
    init_with({{"carto_file_path", file},
               {"carto_auto_xml", test_xml("nopackage.xml")},
               {"carto_auto_priority", "60"}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "auto");
    ck_assert_no_messages();
}
END_TEST

START_TEST(a_carto_file_outranks_it_by_default)
{
    const std::string file = write_scratch_file("host.carto", "Slot0 MEM0:1\nMEM0 Slot0:1\n");
    init_with({{"carto_file_path", file}, {"carto_auto_xml", test_xml("nopackage.xml")}});
    ck_assert_int_eq(meridian_mca_carto_base_select(), MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "file");
    ck_assert_no_messages();
}
END_TEST

int main()
{
    Suite *suite = suite_create("carto_auto_xml");
    TCase *maps = make_tcase("maps");
    tcase_add_test(maps, two_packages_with_numa_latencies);
    tcase_add_test(maps, graph_of_one_interconnect);
    tcase_add_test(maps, hierarchy_weights_without_numa_latencies);
    tcase_add_test(maps, seed_figure_ring_of_four_packages);
    tcase_add_test(maps, machine_without_packages_is_slot0);
    tcase_add_test(maps, reads_what_hwloc_reads);
    tcase_add_test(maps, shortest_paths_through_the_cxx_api);
    suite_add_tcase(suite, maps);

    TCase *selection = make_tcase("selection");
    tcase_add_test(selection, selected_by_default);
    tcase_add_test(selection, selected_by_name);
    tcase_add_test(selection, selected_as_autodetect);
    tcase_add_test(selection, excluded_as_autodetect);
    tcase_add_test(selection, a_misspelt_name_lists_the_alias);
    tcase_add_test(selection, priority_outranks_a_carto_file);
    tcase_add_test(selection, a_carto_file_outranks_it_by_default);
    suite_add_tcase(suite, selection);
    return run_carto_auto_suite(suite);
}

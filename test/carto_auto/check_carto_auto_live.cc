// SPDX-License-Identifier: BSD-3-Clause
// carto_auto on the machine the tests run on (carto_auto_xml unset): what
// is true of any machine, checked against hwloc's own view of it.
#include <string>

#include "test/carto_auto/carto_auto_test.hpp"
#include <meridian/opal/util/error.h>

using namespace carto_auto_test;

// hwloc's header is there only when carto_auto could be built.
#if CARTO_AUTO_BUILT
#include <hwloc.h>

namespace
{

// How many objects of a type hwloc sees here, I/O devices kept as
// carto_auto keeps them.
struct HwlocCounts {
    int packages = 0;
    int numa_nodes = 0;
    int ports = 0; // network and OpenFabrics OS devices
};

HwlocCounts count_with_hwloc()
{
    hwloc_topology_t topology = nullptr;
    ck_assert_int_eq(hwloc_topology_init(&topology), 0);
    hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_ALL);
    // The discovery components carto_auto skips (its README): none finds a
    // NIC that the others miss, and libpciaccess's leaks would fail an
    // ASan build.
    for (const char *name : {"gl", "opencl", "cuda", "nvml", "rsmi", "levelzero", "pci"}) {
        hwloc_topology_set_components(topology, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, name);
    }
    ck_assert_int_eq(hwloc_topology_load(topology), 0);
    HwlocCounts counts;
    counts.packages = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE);
    counts.numa_nodes = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    for (hwloc_obj_t osdev = nullptr; (osdev = hwloc_get_next_osdev(topology, osdev)) != nullptr;) {
#if HWLOC_API_VERSION >= 0x00030000
        counts.ports += (osdev->attr->osdev.types &
                         (HWLOC_OBJ_OSDEV_NETWORK | HWLOC_OBJ_OSDEV_OPENFABRICS)) != 0;
#else
        counts.ports += osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
                        osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
#endif
    }
    hwloc_topology_destroy(topology);
    return counts;
}

int count_of(const meridian::WeightedGraph &graph, meridian::VertexType type)
{
    int count = 0;
    for (meridian::VertexId v = 0; v < graph.vertex_count(); ++v) {
        count += graph.type(v) == type;
    }
    return count;
}

} // namespace

START_TEST(this_machine)
{
    init_with({});
    const meridian::WeightedGraph &graph = host_graph();
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "auto");

    const HwlocCounts hwloc = count_with_hwloc();
    const int slots = count_of(graph, meridian::VertexType::slot);
    const int mems = count_of(graph, meridian::VertexType::mem);
    ck_assert_int_ge(slots, 1);
    ck_assert_int_ge(mems, 1);
    ck_assert_int_eq(slots, hwloc.packages > 0 ? hwloc.packages : 1);
    ck_assert_int_eq(mems, hwloc.numa_nodes);
    ck_assert_int_eq(count_of(graph, meridian::VertexType::eth) +
                         count_of(graph, meridian::VertexType::ib),
                     hwloc.ports);
    ck_assert_int_eq(count_of(graph, meridian::VertexType::other), 0);

    // Every processor reaches every memory node ...
    const auto mem_mask = meridian::type_mask(meridian::VertexType::mem);
    for (int s = 0; s < slots; ++s) {
        const std::string name = "Slot" + std::to_string(s);
        const auto from = graph.vertex_named(name);
        ck_assert_msg(from.ok(), "no vertex %s", name.c_str());
        const auto list = graph.distance_list(*from, mem_mask);
        ck_assert(list.ok());
        ck_assert_uint_eq(list->size(), static_cast<std::size_t>(mems));
        for (const meridian::VertexDistance &entry : *list) {
            ck_assert_msg(entry.distance.has_value(), "%s does not reach %s", name.c_str(),
                          graph.name(entry.vertex).data());
        }
    }
    // ... and every vertex reaches every other one.
    for (meridian::VertexId v = 0; v < graph.vertex_count(); ++v) {
        const auto list = graph.distance_list(v, meridian::all_vertex_types);
        ck_assert(list.ok());
        for (const meridian::VertexDistance &entry : *list) {
            ck_assert_msg(entry.distance.has_value(), "%s does not reach %s", graph.name(v).data(),
                          graph.name(entry.vertex).data());
        }
    }
    ck_assert_no_messages();
}
END_TEST

// An empty carto_auto_xml is this machine too.
START_TEST(empty_xml_parameter_is_this_machine)
{
    init_with({{"carto_auto_xml", ""}});
    const meridian::WeightedGraph &graph = host_graph();
    ck_assert_int_eq(count_of(graph, meridian::VertexType::mem), count_with_hwloc().numa_nodes);
    ck_assert_no_messages();
}
END_TEST

#endif

int main()
{
    Suite *suite = suite_create("carto_auto_live");
#if CARTO_AUTO_BUILT
    TCase *live = make_tcase("live");
    tcase_add_test(live, this_machine);
    tcase_add_test(live, empty_xml_parameter_is_this_machine);
    suite_add_tcase(suite, live);
#endif
    return run_carto_auto_suite(suite);
}

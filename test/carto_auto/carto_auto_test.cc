// SPDX-License-Identifier: BSD-3-Clause
#include "test/carto_auto/carto_auto_test.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/error.h>

namespace carto_auto_test
{
namespace
{

using meridian::VertexId;
using meridian::WeightedGraph;

void setup()
{
    // make check names the build tree's component directories; every other
    // MCA setting of the caller's would change what the tests see.
    const char *inherited = std::getenv(meridian_test::env_name("mca_base_component_path").c_str());
    const std::string component_path = inherited != nullptr ? inherited : "";
    meridian_test::isolate_mca_environment();
    if (!component_path.empty()) {
        meridian_test::set_param_env("mca_base_component_path", component_path);
    }
    meridian_test::make_scratch("test");
    meridian_test::capture_messages();
}

void teardown()
{
    meridian_finalize();
}

std::string distance_entry(std::string_view name, bool reachable, std::uint64_t distance)
{
    return std::string(name) + (reachable ? " " + std::to_string(distance) : " unreachable");
}

} // namespace

std::string test_xml(std::string_view name)
{
    return std::string(CARTO_AUTO_TEST_DIR) + "/" + std::string(name);
}

std::string contrib_xml(std::string_view name)
{
    return std::string(CARTO_CONTRIB_DIR) + "/" + std::string(name);
}

TCase *make_tcase(const char *name)
{
    TCase *tcase = tcase_create(name);
    tcase_add_unchecked_fixture(
        tcase, [] { meridian_test::make_scratch_root("carto-auto-test"); },
        meridian_test::remove_scratch_root);
    tcase_add_checked_fixture(tcase, setup, teardown);
    return tcase;
}

void init_with(std::initializer_list<std::pair<std::string_view, std::string>> params)
{
    for (const auto &[name, value] : params) {
        meridian_test::set_param_env(name, value);
    }
    const int rc = meridian_init(nullptr, nullptr);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "meridian_init: %s", meridian_strerror(rc));
    ck_assert_no_messages();
}

CGraph host_graph_c(unsigned types)
{
    mca_carto_graph_t *graph = nullptr;
    const int rc = meridian_mca_carto_base_get_host_graph(types, &graph);
    ck_assert_msg(rc == MERIDIAN_SUCCESS, "meridian_mca_carto_base_get_host_graph(0x%x): %s\n%s",
                  types, meridian_strerror(rc), meridian_test::compare_messages({}).c_str());
    ck_assert_ptr_nonnull(graph);
    return CGraph(graph);
}

std::string vertices_of(const mca_carto_graph_t *graph)
{
    std::string out;
    for (std::size_t i = 0; i < meridian_mca_carto_graph_vertex_count(graph); ++i) {
        out += std::string(meridian_mca_carto_graph_vertex_name(graph, i)) + " " +
               meridian_mca_carto_type_name(meridian_mca_carto_graph_vertex_type(graph, i)) + "\n";
    }
    return out;
}

std::string distances_of(const mca_carto_graph_t *graph, const char *from, unsigned types)
{
    mca_carto_distance_t *list = nullptr;
    std::size_t count = 0;
    const int rc = meridian_mca_carto_graph_distance_list(graph, from, types, &list, &count);
    if (rc != MERIDIAN_SUCCESS) {
        return "error " + std::to_string(rc);
    }
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
        out += (i == 0 ? "" : ", ") +
               distance_entry(list[i].vertex, list[i].reachable != 0, list[i].distance);
    }
    meridian_mca_carto_distance_list_free(list, count);
    return out;
}

const WeightedGraph &host_graph()
{
    const auto graph = meridian::carto::host_graph();
    ck_assert_msg(graph.ok(), "host_graph(): %s\n%s",
                  graph.ok() ? "" : graph.error().message.c_str(),
                  meridian_test::compare_messages({}).c_str());
    return **graph;
}

std::string structure_of(const WeightedGraph &graph)
{
    std::string out;
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        out += std::string(graph.name(v)) + " " +
               std::string(meridian::vertex_type_name(graph.type(v))) + ":";
        for (const meridian::OutEdge &edge : graph.out_edges(v)) {
            out += " " + std::string(graph.name(edge.target)) + ":" + std::to_string(edge.weight);
        }
        out += "\n";
    }
    return out;
}

std::string distances_of(const WeightedGraph &graph, std::string_view from,
                         meridian::TypeMask types)
{
    const auto source = graph.vertex_named(from);
    if (!source) {
        return "error: " + source.error().message;
    }
    const auto list = graph.distance_list(*source, types);
    if (!list) {
        return "error: " + list.error().message;
    }
    std::string out;
    for (const meridian::VertexDistance &entry : *list) {
        out += (out.empty() ? "" : ", ") +
               distance_entry(graph.name(entry.vertex), entry.distance.has_value(),
                              entry.distance ? entry.distance->saturated() : 0);
    }
    return out;
}

std::string all_distances_of(const WeightedGraph &graph)
{
    const std::vector<std::pair<std::string, meridian::TypeMask>> masks = {
        {"SLOT", meridian::type_mask(meridian::VertexType::slot)},
        {"MEM", meridian::type_mask(meridian::VertexType::mem)},
        {"ETH", meridian::type_mask(meridian::VertexType::eth)},
        {"IB", meridian::type_mask(meridian::VertexType::ib)},
        {"OTHER", meridian::type_mask(meridian::VertexType::other)},
        {"ALL", meridian::all_vertex_types},
    };
    std::string out;
    for (VertexId v = 0; v < graph.vertex_count(); ++v) {
        for (const auto &[name, mask] : masks) {
            out += std::string(graph.name(v)) + " " + name + ": " +
                   distances_of(graph, graph.name(v), mask) + "\n";
        }
    }
    return out;
}

std::string write_scratch_file(const std::string &name, std::string_view contents)
{
    const std::string path = meridian_test::scratch() + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    ck_assert_msg(out.good(), "cannot write %s", path.c_str());
    return path;
}

int run_carto_auto_suite(Suite *suite)
{
#if CARTO_AUTO_BUILT
    return meridian_test::run_suite(suite);
#else
    std::puts("carto_auto is not built (configure found no hwloc): skipped");
    srunner_free(srunner_create(suite)); // the runner owns and frees the suite
    return 77;
#endif
}

} // namespace carto_auto_test

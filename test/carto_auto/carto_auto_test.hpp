// SPDX-License-Identifier: BSD-3-Clause
// What the carto_auto tests share: the topologies they map, starting
// Meridian the way a program does (parameters in the environment), and the
// host graph written out as text that one ck_assert_text_eq compares whole.
#ifndef MERIDIAN_TEST_CARTO_AUTO_CARTO_AUTO_TEST_HPP
#define MERIDIAN_TEST_CARTO_AUTO_CARTO_AUTO_TEST_HPP

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "test/support/meridian_test.hpp"
#include <meridian/mca/carto/base/base.h>
#include <meridian/mca/carto/base/base.hpp>

namespace carto_auto_test
{

// A topology of this directory (test/carto_auto/NAME) or of contrib/carto.
std::string test_xml(std::string_view name);
std::string contrib_xml(std::string_view name);

// A test case whose tests each run with a scratch HOME, no MCA settings but
// the component path make check gives (mca_base_component_path), and their
// messages captured.
TCase *make_tcase(const char *name);

// meridian_init with these parameters set in the environment (fails the
// test unless it succeeds without a message).
void init_with(std::initializer_list<std::pair<std::string_view, std::string>> params);

// ------------------------------------------------------------ C API

struct CGraphDeleter {
    void operator()(mca_carto_graph_t *graph) const { meridian_mca_carto_graph_free(graph); }
};
using CGraph = std::unique_ptr<mca_carto_graph_t, CGraphDeleter>;

// meridian_mca_carto_base_get_host_graph(types), which must succeed.
CGraph host_graph_c(unsigned types);

// "NAME TYPE" per vertex, one line each, in order.
std::string vertices_of(const mca_carto_graph_t *graph);

// meridian_mca_carto_graph_distance_list(from, types) as "NAME DISTANCE, ..." in the
// list's order ("NAME unreachable" for an unreachable one), or the error
// code as "error N".
std::string distances_of(const mca_carto_graph_t *graph, const char *from, unsigned types);

// ------------------------------------------------------------ C++ API

// meridian::carto::host_graph(), which must succeed.
const meridian::WeightedGraph &host_graph();

// "NAME TYPE: TARGET:WEIGHT ..." per vertex, one line each, in order, with
// its out-edges in order.
std::string structure_of(const meridian::WeightedGraph &graph);

// The distance list as distances_of above.
std::string distances_of(const meridian::WeightedGraph &graph, std::string_view from,
                         meridian::TypeMask types);

// Every distance list: from each vertex to each single type and to all, one
// line each ("FROM TYPE: ...").
std::string all_distances_of(const meridian::WeightedGraph &graph);

// A file in the test's scratch directory.
std::string write_scratch_file(const std::string &name, std::string_view contents);

// Run the suite, or skip it (77) when carto_auto was not built (no hwloc).
int run_carto_auto_suite(Suite *suite);

} // namespace carto_auto_test

#endif

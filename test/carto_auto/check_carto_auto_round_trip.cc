// SPDX-License-Identifier: BSD-3-Clause
// The round trip a user makes to freeze a host's map: carto_auto maps the
// host (this machine, or an XML topology), format_carto_text writes it as
// carto text, carto_file reads that back (carto_file_path), and every
// distance list, from every vertex to every type, comes out the same, as do
// the vertices, their types and the edges.
#include <string>

#include "test/carto_auto/carto_auto_test.hpp"
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/error.h>

using namespace carto_auto_test;

namespace
{

struct Snapshot {
    std::string structure;
    std::string distances;
};

Snapshot snapshot_of(const meridian::WeightedGraph &graph)
{
    return Snapshot{structure_of(graph), all_distances_of(graph)};
}

// Maps the host with carto_auto (xml empty: this machine), writes the carto
// text, then has carto_file read it in a second start of Meridian.
void round_trip(const std::string &xml)
{
    init_with({{"carto_auto_xml", xml}});
    const meridian::WeightedGraph &mapped = host_graph();
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "auto");
    const Snapshot before = snapshot_of(mapped);
    const auto text = meridian::carto::format_carto_text(mapped);
    ck_assert_msg(text.ok(), "format_carto_text: %s",
                  text.ok() ? "" : text.error().message.c_str());
    const std::string file = write_scratch_file("host.carto", *text);
    ck_assert_int_eq(meridian_finalize(), MERIDIAN_SUCCESS);

    // A second start, as the next run of the program would make it.
    init_with({{"carto_file_path", file}});
    const meridian::WeightedGraph &read = host_graph();
    ck_assert_text_eq(meridian_mca_carto_base_selected_component(), "file");
    const Snapshot after = snapshot_of(read);
    ck_assert_text_eq(after.structure, before.structure);
    ck_assert_text_eq(after.distances, before.distances);
    ck_assert_no_messages();
}

} // namespace

START_TEST(two_packages_with_numa_latencies)
{
    round_trip(contrib_xml("auto-2pkg-ib.xml"));
}
END_TEST

// p2p1 is ETH although its name says nothing: the text is then Open MPI's
// format, whose EDGE lines carry the types.
START_TEST(hierarchy_weights)
{
    round_trip(test_xml("hierarchy.xml"));
}
END_TEST

START_TEST(ring_of_four_packages)
{
    round_trip(test_xml("ring4.xml"));
}
END_TEST

START_TEST(machine_without_packages)
{
    round_trip(test_xml("nopackage.xml"));
}
END_TEST

START_TEST(this_machine)
{
    round_trip("");
}
END_TEST

int main()
{
    Suite *suite = suite_create("carto_auto_round_trip");
    TCase *trips = make_tcase("round_trip");
    tcase_add_test(trips, two_packages_with_numa_latencies);
    tcase_add_test(trips, hierarchy_weights);
    tcase_add_test(trips, ring_of_four_packages);
    tcase_add_test(trips, machine_without_packages);
    tcase_add_test(trips, this_machine);
    suite_add_tcase(suite, trips);
    return run_carto_auto_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// coord_torus through the framework: physical positions from the fabric
// (NIC coord, node coord, or fabric order laid out with dimension 0
// fastest), wrap-around Manhattan costs on tori, meshes and mixed periodic
// lists, coord_torus_shape for planes without a shape, the logical view in
// rank order, every refusal with its full message, and a fabric where the
// torus places one plane and coord_tcp the other.
#include <string>

#include "test/coord/coord_test_support.hpp"
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/mca/base/mca_base.h>
#include <meridian/opal/util/error.h>

using namespace coord_test;
using meridian_test::messages;

namespace
{

constexpr auto physical = MERIDIAN_COORD_PHYSICAL_VIEW;
constexpr auto logical = MERIDIAN_COORD_LOGICAL_VIEW;

// A plane line, then `count` nodes n00, n01, ... with one NIC ib0 each.
std::string torus_fabric(const std::string &plane_line, int count, const std::string &extra = {})
{
    std::string text = plane_line + "\n";
    for (int i = 0; i < count; ++i) {
        const std::string name = (i < 10 ? "n0" : "n") + std::to_string(i);
        text += "node " + name + "\n";
    }
    text += extra;
    for (int i = 0; i < count; ++i) {
        const std::string name = (i < 10 ? "n0" : "n") + std::to_string(i);
        text += "nic " + name + " ib0 plane=ib\n";
    }
    return text;
}

// Place `count` nodes on the plane, one rank per node in fabric order.
void place_nodes(const std::string &plane_line, int count)
{
    const auto fabric = fabric_of(torus_fabric(plane_line, count));
    std::string hosts;
    for (int i = 0; i < count; ++i) {
        hosts += (i > 0 ? "," : "") + std::string(i < 10 ? "n0" : "n") + std::to_string(i) + ":1";
    }
    place(fabric, job_of(*fabric, hosts, meridian::fabric::Binding::none));
}

START_TEST(torus_wraps_around)
{
    start();
    place_nodes("plane ib type=infiniband shape=8x4", 32);
    // Fabric order, dimension 0 fastest: rank k (node k) at (k%8, k/8).
    ck_assert_text_eq(coords_of(0, "ib", physical), "ib:physical:(0,0)");
    ck_assert_text_eq(coords_of(7, "ib", physical), "ib:physical:(7,0)");
    ck_assert_text_eq(coords_of(8, "ib", physical), "ib:physical:(0,1)");
    ck_assert_text_eq(coords_of(31, "ib", physical), "ib:physical:(7,3)");
    ck_assert_text_eq(cost_of(0, 7), "1");  // (0,0)-(7,0) around the ring
    ck_assert_text_eq(cost_of(0, 4), "4");  // halfway
    ck_assert_text_eq(cost_of(0, 24), "1"); // (0,0)-(0,3)
    ck_assert_text_eq(cost_of(0, 31), "2"); // (0,0)-(7,3)
    ck_assert_text_eq(cost_of(3, 29), "3"); // (3,0)-(5,3): 2, and 3 the short way round is 1
    ck_assert_text_eq(shape_of("ib", physical), "8x4");
    ck_assert_text_eq(shape_of("ib", logical), "8x4");
    ck_assert_no_messages();
}
END_TEST

START_TEST(mesh_does_not_wrap)
{
    start();
    place_nodes("plane ib type=infiniband shape=8x4 periodic=no", 32);
    ck_assert_text_eq(cost_of(0, 7), "7");
    ck_assert_text_eq(cost_of(0, 24), "3");
    ck_assert_text_eq(cost_of(0, 31), "10");
    ck_assert_text_eq(cost_of(31, 0), "10");
}
END_TEST

START_TEST(periodic_per_dimension)
{
    start();
    place_nodes("plane ib type=infiniband shape=8x4 periodic=1,0", 32);
    ck_assert_text_eq(cost_of(0, 7), "1");  // dimension 0 wraps
    ck_assert_text_eq(cost_of(0, 24), "3"); // dimension 1 does not
    ck_assert_text_eq(cost_of(0, 31), "4");
}
END_TEST

START_TEST(shape_parameter_places_planes_without_one)
{
    start({{"coord_torus_shape", "4x2"}, {"coord_torus_periodic", "0,1"}});
    place_nodes("plane ib type=infiniband", 8);
    ck_assert_text_eq(coords_of(5, "ib", physical), "ib:physical:(1,1)");
    ck_assert_text_eq(cost_of(0, 3), "3"); // (0,0)-(3,0): a mesh in dimension 0
    ck_assert_text_eq(cost_of(0, 4), "1"); // (0,0)-(0,1)
    ck_assert_text_eq(shape_of("ib", physical), "4x2");
    const auto *context = meridian::coord::context();
    ck_assert_text_eq(context->planes[0].component, "torus");
}
END_TEST

START_TEST(fabric_shape_wins_over_parameter)
{
    start({{"coord_torus_shape", "4x2"}});
    place_nodes("plane ib type=infiniband shape=8x4", 8);
    ck_assert_text_eq(shape_of("ib", physical), "8x4");
    ck_assert_text_eq(cost_of(0, 7), "1");
}
END_TEST

START_TEST(positions_from_nic_and_node_coords)
{
    start();
    const auto fabric = fabric_of(R"(plane ib type=infiniband shape=8x4
node a coord=7,0
node b coord=0,0
node c coord=3,3
nic a ib0 plane=ib
nic b ib0 plane=ib
nic c ib0 plane=ib coord=4,2
)");
    place(fabric, job_of(*fabric, "a:1,b:1,c:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(coords_of(0, "ib", physical), "ib:physical:(7,0)");
    ck_assert_text_eq(coords_of(1, "ib", physical), "ib:physical:(0,0)");
    ck_assert_text_eq(coords_of(2, "ib", physical), "ib:physical:(4,2)"); // the NIC's own
    ck_assert_text_eq(cost_of(0, 1), "1");
    ck_assert_text_eq(cost_of(1, 2), "6"); // (0,0)-(4,2): 4 + 2
}
END_TEST

START_TEST(logical_view_in_rank_order)
{
    start();
    const auto fabric = fabric_of(torus_fabric("plane ib type=infiniband shape=4x2", 8));
    // The job's nodes in order of first rank: n05, n02, n00; then the
    // plane's other nodes in fabric order: n01, n03, n04, n06, n07.
    place(fabric, job_of(*fabric, "n05:2,n02:1,n00:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(coords_of(0), "ib:logical:(0,0)");
    ck_assert_text_eq(coords_of(1), "ib:logical:(0,0)"); // same node
    ck_assert_text_eq(coords_of(2), "ib:logical:(1,0)");
    ck_assert_text_eq(coords_of(3), "ib:logical:(2,0)");
    ck_assert_text_eq(coords_of(0, "", MERIDIAN_COORD_VIEW_UNDEF), "ib:logical:(0,0)");
    // Physical stays in fabric order.
    ck_assert_text_eq(coords_of(0, "ib", physical), "ib:physical:(1,1)");
    ck_assert_text_eq(coords_of(2, "ib", physical), "ib:physical:(2,0)");
    ck_assert_text_eq(coords_of(3, "ib", physical), "ib:physical:(0,0)");
    const auto *context = meridian::coord::context();
    const auto logical_of = [&](std::string_view node) {
        return meridian::format_coord([&] {
            const auto span = meridian::coord::nic_coordinate(*context, nic_index(node, "ib0"),
                                                              MERIDIAN_COORD_LOGICAL_VIEW);
            return std::vector<std::uint32_t>(span.begin(), span.end());
        }());
    };
    ck_assert_text_eq(logical_of("n01"), "(3,0)");
    ck_assert_text_eq(logical_of("n03"), "(0,1)");
    ck_assert_text_eq(logical_of("n07"), "(3,1)");
    // The cost stays physical: n05 (1,1) to n00 (0,0).
    ck_assert_text_eq(cost_of(0, 3), "2");
}
END_TEST

START_TEST(more_nodes_than_positions)
{
    start({{"coord_torus_shape", "4x2"}});
    const auto fabric = fabric_of(torus_fabric("plane ib type=infiniband", 9));
    const auto placed = meridian::coord::set_context(fabric, nullptr);
    ck_assert(!placed.ok());
    ck_assert_text_eq(placed.error().message,
                      "the coord component \"torus\" could not place plane \"ib\": " +
                          std::string(meridian_strerror(MERIDIAN_ERR_BAD_PARAM)));
    ck_assert_messages(
        ERROR_MSG("coord_torus: plane \"ib\": 9 nodes, but the shape 4x2 has only 8 positions"));
    ck_assert_ptr_null(meridian::coord::context());
}
END_TEST

START_TEST(position_outside_the_parameter_shape)
{
    start({{"coord_torus_shape", "4x2"}});
    const auto fabric = fabric_of(R"(plane ib type=infiniband
node a coord=4,0
nic a ib0 plane=ib
)");
    ck_assert(!meridian::coord::set_context(fabric, nullptr).ok());
    ck_assert_messages(ERROR_MSG("coord_torus: plane \"ib\": a:ib0 is at (4,0) (coord of node a), "
                                 "outside the shape 4x2"));
}
END_TEST

START_TEST(position_with_wrong_dimensions)
{
    start({{"coord_torus_shape", "4x2x2"}});
    const auto fabric = fabric_of(R"(plane ib type=infiniband
node a
nic a ib0 plane=ib coord=1,1
)");
    ck_assert(!meridian::coord::set_context(fabric, nullptr).ok());
    ck_assert_messages(ERROR_MSG("coord_torus: plane \"ib\": a:ib0 is at (1,1) (coord of NIC "
                                 "a:ib0), which has 2 values, but the shape 4x2x2 has 3 "
                                 "dimensions"));
}
END_TEST

START_TEST(two_nodes_on_one_position)
{
    start({{"coord_torus_shape", "4x2"}});
    // b is laid out at its fabric place 1, (1,0), where a says it is.
    const auto fabric = fabric_of(R"(plane ib type=infiniband
node a coord=1,0
node b
nic a ib0 plane=ib
nic a ib1 plane=ib
nic b ib0 plane=ib
)");
    // A provider (the in-job pipeline, in a process started alone) would
    // place this host's own network on the next query: a placement asked for
    // is the answer even when it fails, so it never runs.
    static bool provider_ran = false;
    meridian::coord::set_context_provider(+[] { provider_ran = true; });
    ck_assert(!meridian::coord::set_context(fabric, nullptr).ok());
    ck_assert_messages(ERROR_MSG("coord_torus: plane \"ib\": nodes a and b are both at (1,0)"));
    const auto queried = meridian::coord::coordinates(0, {}, MERIDIAN_COORD_LOGICAL_VIEW);
    ck_assert(!queried);
    ck_assert_text_eq(queried.error().message,
                      "no network coordinates for the job: the coord component \"torus\" could "
                      "not place plane \"ib\": bad parameter");
    ck_assert(!provider_ran);
}
END_TEST

START_TEST(bad_shape_parameter)
{
    start({{"coord_torus_shape", "8x4y"}});
    const auto fabric = fabric_of(torus_fabric("plane ib type=infiniband", 2));
    const auto placed = meridian::coord::set_context(fabric, nullptr);
    ck_assert(!placed.ok());
    ck_assert_int_eq(placed.error().status, MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("coord_torus: coord_torus_shape:4: expected \"x\" or the end of "
                                 "the shape, found \"y\""));
}
END_TEST

START_TEST(bad_periodic_parameter)
{
    start({{"coord_torus_shape", "8x4"}, {"coord_torus_periodic", "1,1,1"}});
    const auto fabric = fabric_of(torus_fabric("plane ib type=infiniband", 2));
    ck_assert(!meridian::coord::set_context(fabric, nullptr).ok());
    ck_assert_messages(ERROR_MSG("coord_torus: coord_torus_periodic:4: expected the end after 2 "
                                 "dimensions (shape 8x4), found \",1\""));
}
END_TEST

START_TEST(torus_and_tcp_share_a_fabric)
{
    start();
    const auto fabric = fabric_of(R"(plane eth cidr=10.0.0.0/24
switch s0 plane=eth
plane ib type=infiniband shape=4
node a
node b
nic a eth0 plane=eth address=10.0.0.1 switch=s0
nic a ib0 plane=ib
nic b eth0 plane=eth address=10.0.0.2 switch=s0
nic b ib0 plane=ib coord=3
)");
    place(fabric, job_of(*fabric, "a:1,b:1", meridian::fabric::Binding::none));
    const auto *context = meridian::coord::context();
    ck_assert_text_eq(context->planes[0].component, "tcp");
    ck_assert_text_eq(context->planes[1].component, "torus");
    ck_assert_text_eq(coords_of(1), "eth:logical:(0,0,0) ib:logical:(1)");
    // Physical for every plane: only the torus has it.
    ck_assert_text_eq(coords_of(1, "", physical), "ib:physical:(3)");
    const auto dims = meridian::coord::dims("", physical);
    ck_assert(dims.ok());
    ck_assert_text_eq(joined(*dims), "0,1");
    // eth: 2 hops through s0; ib: (0)-(3) on a ring of 4 is 1.
    ck_assert_text_eq(cost_of(0, 1), "1");
    ck_assert_uint_eq(nic_hops("a:eth0", "b:eth0"), 2);
    ck_assert_uint_eq(nic_hops("a:ib0", "b:ib0"), 1);
    ck_assert_no_messages();
}
END_TEST

START_TEST(only_torus_selected_leaves_a_plane)
{
    start({{"coord", "torus"}});
    const auto fabric = fabric_of(R"(plane eth
plane ib type=infiniband shape=2
node a
nic a eth0 plane=eth
nic a ib0 plane=ib
)");
    const auto placed = meridian::coord::set_context(fabric, nullptr);
    ck_assert(!placed.ok());
    ck_assert_int_eq(placed.error().status, MERIDIAN_ERR_NOT_FOUND);
    ck_assert_text_eq(placed.error().message,
                      "no coord component places plane \"eth\" (active: torus)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(parameters_registered)
{
    start({{"coord_torus_shape", "8x4x4x4"}});
    // Set for a component that is there: it loads, and takes the value,
    // when coord opens (here, registered in full), not at meridian_init.
    ck_assert_text_eq(meridian_test::value_of("coord_torus_shape"), "<unregistered>");
    ck_assert_int_eq(meridian_mca_base_framework_register(&meridian_coord_base_framework),
                     MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_test::value_of("coord_torus_shape"), "8x4x4x4");
    ck_assert_text_eq(meridian_test::value_of("coord_torus_periodic"), "yes");
    ck_assert_text_eq(meridian_test::value_of("coord_torus_priority"), "40");
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("coord_torus");
    TCase *cost = make_tcase("cost");
    tcase_add_test(cost, torus_wraps_around);
    tcase_add_test(cost, mesh_does_not_wrap);
    tcase_add_test(cost, periodic_per_dimension);
    tcase_add_test(cost, shape_parameter_places_planes_without_one);
    tcase_add_test(cost, fabric_shape_wins_over_parameter);
    tcase_add_test(cost, positions_from_nic_and_node_coords);
    suite_add_tcase(suite, cost);

    TCase *views = make_tcase("views");
    tcase_add_test(views, logical_view_in_rank_order);
    tcase_add_test(views, torus_and_tcp_share_a_fabric);
    suite_add_tcase(suite, views);

    TCase *refused = make_tcase("refused");
    tcase_add_test(refused, more_nodes_than_positions);
    tcase_add_test(refused, position_outside_the_parameter_shape);
    tcase_add_test(refused, position_with_wrong_dimensions);
    tcase_add_test(refused, two_nodes_on_one_position);
    tcase_add_test(refused, bad_shape_parameter);
    tcase_add_test(refused, bad_periodic_parameter);
    tcase_add_test(refused, only_torus_selected_leaves_a_plane);
    suite_add_tcase(suite, refused);

    TCase *params = make_tcase("parameters");
    tcase_add_test(params, parameters_registered);
    suite_add_tcase(suite, params);
    return meridian_test::run_suite(suite);
}

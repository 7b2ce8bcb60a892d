// SPDX-License-Identifier: BSD-3-Clause
// The coord base's C++ queries (mca/coord/base/base.hpp) on a fabric placed
// by coord_tcp and coord_torus: views (logical by default, UNDEF = logical,
// physical where a module gives it, other values passed through), dims,
// shape, planes, NICs, endpoints from the datastore, query() by key (a NIC
// as a qualifier; NICs and shapes of every plane when no plane is given),
// the tables' refusals, and a failed set_context keeping the old context.
#include <string>
#include <vector>

#include "test/coord/coord_test_support.hpp"
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>

using namespace coord_test;
using meridian_test::messages;
namespace coord = meridian::coord;

namespace
{

constexpr std::string_view mixed = R"(fabric lab
plane eth cidr=10.0.0.0/24
switch s0 plane=eth
switch s1 plane=eth
plane ib type=infiniband shape=4x2
node a packages=2 cores=2
node b packages=2 cores=2
nic a eth0 plane=eth address=10.0.0.1 switch=s0 package=1
nic a ib0 plane=ib package=0
nic b eth0 plane=eth address=10.0.0.2 switch=s1 package=0
nic b ib0 plane=ib package=0
)";

void place_mixed()
{
    start();
    const auto fabric = fabric_of(mixed);
    place(fabric, job_of(*fabric, "a:2,b:2"));
}

START_TEST(no_context_yet)
{
    start();
    const std::string expected = "error -11: no network coordinates yet: no fabric and job have "
                                 "been placed (coord set_context)";
    ck_assert_text_eq(coords_of(0), expected);
    ck_assert_text_eq(cost_of(0, 1), expected);
    ck_assert_text_eq(shape_of("eth"), expected);
    ck_assert(coord::planes().empty());
    ck_assert_ptr_null(coord::context());
}
END_TEST

START_TEST(views)
{
    place_mixed();
    // Rank 0: package 0, ib0 nearest; rank 1: package 1, eth0 nearest.
    ck_assert_text_eq(coords_of(0), "ib:logical:(0,0) eth:logical:(0,0,0)");
    ck_assert_text_eq(coords_of(1), "eth:logical:(0,0,0) ib:logical:(0,0)");
    ck_assert_text_eq(coords_of(0, "", MERIDIAN_COORD_VIEW_UNDEF),
                      "ib:logical:(0,0) eth:logical:(0,0,0)");
    ck_assert_text_eq(coords_of(2, "", MERIDIAN_COORD_PHYSICAL_VIEW), "ib:physical:(1,0)");
    ck_assert_text_eq(coords_of(2, "ib", MERIDIAN_COORD_PHYSICAL_VIEW), "ib:physical:(1,0)");
    ck_assert_text_eq(coords_of(2, "eth", MERIDIAN_COORD_PHYSICAL_VIEW),
                      "error -6: plane \"eth\" has no coordinates in view physical (coord "
                      "component \"tcp\" gives: logical)");
    ck_assert_text_eq(coords_of(2, "ib", 0x7f),
                      "error -6: plane \"ib\" has no coordinates in view 127 (coord component "
                      "\"torus\" gives: physical, logical)");
    ck_assert_text_eq(coords_of(2, "", 0x7f),
                      "error -6: no plane of rank 2 (node b) has coordinates in view 127");
    // The coordinate's other fields: the plane's type and name.
    const auto coords = coord::coordinates(2);
    ck_assert(coords.ok());
    ck_assert_uint_eq(coords->size(), 2);
    ck_assert_text_eq((*coords)[0].fabric, "ethernet");
    ck_assert_text_eq((*coords)[0].plane, "eth");
    ck_assert_uint_eq((*coords)[0].view, MERIDIAN_COORD_LOGICAL_VIEW);
    ck_assert_text_eq((*coords)[1].fabric, "infiniband");
    ck_assert_no_messages();
}
END_TEST

START_TEST(other_view_values_pass_through)
{
    // A module may fill any view; the base keeps the value as given.
    start();
    const auto fabric = fabric_of(mixed);
    mca_coord_context context;
    context.fabric = fabric;
    context.planes.resize(fabric->planes().size());
    context.nic_slot.assign(fabric->nics().size(), 0);
    for (const auto &plane : fabric->planes()) {
        for (std::uint32_t k = 0; k < plane.nics.size(); ++k) {
            context.nic_slot[plane.nics[k]] = k;
        }
    }
    context.placing = 1;
    const std::uint32_t shape[1] = {5};
    const std::uint32_t at[1] = {4};
    const auto ib0 = *fabric->find_nic(*fabric->find_node("b"), "ib0");
    ck_assert_int_eq(meridian_mca_coord_context_set_shape(&context, 1, 0x7f, shape, 1),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_coord_context_set_nic(&context, ib0, 0x7f, at, 1),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(context.planes[1].views.size(), 1);
    ck_assert_uint_eq(context.planes[1].views[0], 0x7f);
    const auto span = coord::nic_coordinate(context, ib0, 0x7f);
    ck_assert_uint_eq(span.size(), 1);
    ck_assert_uint_eq(span[0], 4);
    ck_assert(coord::nic_coordinate(context, ib0, MERIDIAN_COORD_LOGICAL_VIEW).empty());
    // ... and so does the C struct.
    meridian::Coordinate c{"infiniband", "ib", 0x7f, {4}};
    meridian_coord_t out;
    meridian_coord_construct(&out);
    ck_assert_int_eq(meridian::to_c(c, &out), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(out.view, 0x7f);
    ck_assert(meridian::from_c(out) == c);
    meridian_coord_destruct(&out);
    ck_assert_no_messages();
}
END_TEST

START_TEST(table_refusals)
{
    start();
    const auto fabric = fabric_of(mixed);
    mca_coord_context context;
    context.fabric = fabric;
    context.planes.resize(fabric->planes().size());
    context.nic_slot = {0, 0, 1, 1};
    context.placing = 0;
    const auto a_eth0 = *fabric->find_nic(*fabric->find_node("a"), "eth0");
    const auto a_ib0 = *fabric->find_nic(*fabric->find_node("a"), "ib0");
    const std::uint32_t shape[2] = {2, 2};
    const std::uint32_t at[2] = {1, 2};
    ck_assert_int_eq(meridian_mca_coord_context_set_shape(&context, 1, 1, shape, 2),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_coord_context_set_nic(&context, a_eth0, 1, at, 2),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_coord_context_set_shape(&context, 0, 1, shape, 2),
                     MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_coord_context_set_nic(&context, a_ib0, 1, at, 2),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_coord_context_set_nic(&context, a_eth0, 1, at, 1),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_coord_context_set_nic(&context, a_eth0, 1, at, 2),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_coord_context_set_nic(&context, 9, 1, at, 2),
                     MERIDIAN_ERR_BAD_PARAM);
    const std::uint32_t empty[2] = {2, 0};
    ck_assert_int_eq(meridian_mca_coord_context_set_shape(&context, 0, 2, empty, 2),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG("coord set the shape of plane index 1, which is not the plane being placed"),
        ERROR_MSG("coord set a logical coordinate of NIC a:eth0 before the logical shape of "
                  "plane \"eth\""),
        ERROR_MSG("coord set a coordinate of NIC a:ib0, which is on plane \"ib\", not on the "
                  "plane being placed \"eth\""),
        ERROR_MSG("coord gave NIC a:eth0 1 logical coordinates, but plane \"eth\" has 2 "
                  "dimensions (shape 2x2)"),
        ERROR_MSG("coord put NIC a:eth0 at logical (1,2), outside the shape 2x2 of plane \"eth\""),
        ERROR_MSG("coord set a coordinate of NIC index 9, but the fabric has 4 NICs"),
        ERROR_MSG("coord gave plane \"eth\" the physical shape 2x0, with an empty dimension 2"));
}
END_TEST

START_TEST(dims_shape_planes_nics)
{
    place_mixed();
    ck_assert_text_eq(joined(coord::planes()), "eth,ib");
    auto dims = coord::dims();
    ck_assert(dims.ok());
    ck_assert_text_eq(joined(*dims), "3,2");
    dims = coord::dims("ib", MERIDIAN_COORD_PHYSICAL_VIEW);
    ck_assert(dims.ok());
    ck_assert_text_eq(joined(*dims), "2");
    dims = coord::dims("10.0.0.0/24");
    ck_assert(dims.ok());
    ck_assert_text_eq(joined(*dims), "3");
    ck_assert_text_eq(shape_of("eth"), "2x2x1");
    ck_assert_text_eq(shape_of("ib"), "4x2");
    ck_assert_text_eq(shape_of(""), "error -3: pmix.net.shape needs a plane when the fabric has 2 "
                                    "(planes: eth, ib)");
    ck_assert_text_eq(shape_of("nope"), "error -4: unknown plane \"nope\" (planes: eth, ib)");
    auto nics = coord::nics("ib");
    ck_assert(nics.ok());
    ck_assert_uint_eq(nics->size(), 1);
    ck_assert_text_eq(joined(nics->front()), "a:ib0,b:ib0");
    nics = coord::nics();
    ck_assert(nics.ok());
    ck_assert_uint_eq(nics->size(), 2);
    ck_assert_text_eq(joined((*nics)[0]), "eth,a:eth0,b:eth0");
    ck_assert_text_eq(joined((*nics)[1]), "ib,a:ib0,b:ib0");
    ck_assert_no_messages();
}
END_TEST

START_TEST(query_by_key)
{
    place_mixed();
    coord::Qualifiers q;
    auto value = coord::query(coord::key_coordinate, 1, q);
    ck_assert(value.ok());
    ck_assert_uint_eq(std::get<std::vector<meridian::Coordinate>>(*value).size(), 2);
    q.plane = "ib";
    q.view = MERIDIAN_COORD_PHYSICAL_VIEW;
    value = coord::query(coord::key_coordinate, 3, q);
    ck_assert(value.ok());
    const auto &c = std::get<std::vector<meridian::Coordinate>>(*value);
    ck_assert_text_eq(meridian::format_coord(c.at(0).coord), "(1,0)");
    value = coord::query(coord::key_shape, 0, q);
    ck_assert_text_eq(joined(std::get<std::vector<std::uint32_t>>(*value)), "4,2");
    value = coord::query(coord::key_dims, 0, q);
    ck_assert_text_eq(joined(std::get<std::vector<std::uint32_t>>(*value)), "2");
    value = coord::query(coord::key_view, 0, coord::Qualifiers{"", MERIDIAN_COORD_VIEW_UNDEF, 0});
    ck_assert_uint_eq(std::get<std::uint64_t>(*value), MERIDIAN_COORD_LOGICAL_VIEW);
    value = coord::query(coord::key_plane, 0, {});
    ck_assert_text_eq(joined(std::get<std::vector<std::string>>(*value)), "eth,ib");
    value = coord::query(coord::key_nic, 0, coord::Qualifiers{"eth"});
    ck_assert_text_eq(joined(std::get<std::vector<std::string>>(*value)), "a:eth0,b:eth0");
    value = coord::query(coord::key_cost, 0, coord::Qualifiers{"", 1, 2});
    ck_assert(value.ok());
    // eth: s0 to s1 is 4; ib: (0,0) to (1,0) is 1.
    ck_assert_uint_eq(std::get<std::uint64_t>(*value), 1);
    value = coord::query("pmix.net.bogus", 0, {});
    ck_assert(!value.ok());
    ck_assert_int_eq(value.error().status, MERIDIAN_ERR_NOT_FOUND);
    ck_assert_text_eq(value.error().message,
                      "unknown coord key \"pmix.net.bogus\" (keys: pmix.net.coord, pmix.net.view, "
                      "pmix.net.dims, pmix.net.plane, pmix.net.nic, pmix.net.endpt, "
                      "pmix.net.shape, meridian.net.cost)");
}
END_TEST

std::string value_text(const meridian::Result<meridian::datastore::Value> &value)
{
    if (!value) {
        return "error " + std::to_string(value.error().status) + ": " + value.error().message;
    }
    return meridian::datastore::format_value(*value);
}

std::string query_text(std::string_view key, std::uint32_t rank, const coord::Qualifiers &q)
{
    return value_text(coord::query(key, rank, q));
}

coord::Qualifiers on_nic(std::string nic, meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW,
                         std::string plane = {})
{
    coord::Qualifiers q;
    q.nic = std::move(nic);
    q.view = view;
    q.plane = std::move(plane);
    return q;
}

// No plane: each plane's NICs and shape, keyed by the plane's name (PMIx:
// arrays that start with the plane's ID).
START_TEST(every_plane_without_a_plane)
{
    place_mixed();
    auto value = coord::query(coord::key_nic, 0, {});
    ck_assert(value.ok());
    const auto &lists = std::get<meridian::datastore::InfoList>(*value);
    ck_assert_uint_eq(lists.size(), 2);
    ck_assert_text_eq(lists[0].key, "eth");
    ck_assert_text_eq(joined(std::get<std::vector<std::string>>(lists[0].value)), "a:eth0,b:eth0");
    ck_assert_text_eq(lists[1].key, "ib");
    ck_assert_text_eq(joined(std::get<std::vector<std::string>>(lists[1].value)), "a:ib0,b:ib0");
    ck_assert_text_eq(query_text(coord::key_shape, 0, {}), "{eth=[2,2,1], ib=[4,2]}");
    // A plane without the view: an empty shape, as dims gives 0.
    coord::Qualifiers physical;
    physical.view = MERIDIAN_COORD_PHYSICAL_VIEW;
    ck_assert_text_eq(query_text(coord::key_shape, 0, physical), "{eth=[], ib=[4,2]}");
    ck_assert_text_eq(query_text(coord::key_dims, 0, physical), "[0,2]");
    auto all = coord::shapes(MERIDIAN_COORD_PHYSICAL_VIEW);
    ck_assert(all.ok());
    ck_assert_uint_eq(all->size(), 2);
    ck_assert(all->front().empty());
    ck_assert_text_eq(joined(all->back()), "4,2");
    all = coord::shapes(MERIDIAN_COORD_VIEW_UNDEF);
    ck_assert(all.ok());
    ck_assert_text_eq(joined((*all)[0]) + " " + joined((*all)[1]), "2,2,1 4,2");
    all = coord::shapes(0x7f);
    ck_assert_int_eq(all.error().status, MERIDIAN_ERR_NOT_SUPPORTED);
    ck_assert_text_eq(all.error().message, "no plane has coordinates in view 127");
    coord::Qualifiers odd;
    odd.view = 0x7f;
    ck_assert_text_eq(query_text(coord::key_shape, 0, odd),
                      "error -6: no plane has coordinates in view 127");
    // A plane given: as before.
    ck_assert_text_eq(query_text(coord::key_shape, 0, coord::Qualifiers{"ib"}), "[4,2]");
    ck_assert_text_eq(query_text(coord::key_nic, 0, coord::Qualifiers{"ib"}),
                      "[\"a:ib0\",\"b:ib0\"]");
    ck_assert_no_messages();
}
END_TEST

START_TEST(one_plane_without_a_plane)
{
    // Even one plane answers per plane when none is named.
    start();
    const auto fabric = fabric_of("plane eth cidr=10.0.0.0/24\nswitch s0 plane=eth\nnode a\n"
                                  "nic a eth0 plane=eth address=10.0.0.1 switch=s0\n");
    place(fabric, job_of(*fabric, "a:1"));
    ck_assert_text_eq(query_text(coord::key_nic, 0, {}), "{eth=[\"a:eth0\"]}");
    ck_assert_text_eq(query_text(coord::key_shape, 0, {}), "{eth=[1,1,1]}");
    ck_assert_text_eq(shape_of(""), "1x1x1");
    ck_assert_no_messages();
}
END_TEST

START_TEST(nic_as_qualifier)
{
    place_mixed();
    // Full names, and a name alone on the asking rank's node (rank 2: b).
    ck_assert_text_eq(
        query_text(coord::key_coordinate, 0, on_nic("b:ib0", MERIDIAN_COORD_PHYSICAL_VIEW)),
        "[{fabric=\"infiniband\", plane=\"ib\", view=physical, coord=(1,0)}]");
    ck_assert_text_eq(query_text(coord::key_coordinate, 2, on_nic("ib0")),
                      query_text(coord::key_coordinate, 0, on_nic("b:ib0")));
    ck_assert_text_eq(query_text(coord::key_coordinate, 0, on_nic("a:eth0", 0, "eth")),
                      "[{fabric=\"ethernet\", plane=\"eth\", view=logical, coord=(0,0,0)}]");
    auto one = coord::coordinate_of_nic("eth0", 3);
    ck_assert(one.ok());
    ck_assert_text_eq(one->plane, "eth");
    ck_assert_text_eq(meridian::format_coord(one->coord), "(0,1,0)");
    // dims, shape, plane, nic: the NIC's plane's, the NIC's own name.
    ck_assert_text_eq(query_text(coord::key_dims, 0, on_nic("a:eth0")), "[3]");
    ck_assert_text_eq(query_text(coord::key_dims, 0, on_nic("ib0", MERIDIAN_COORD_PHYSICAL_VIEW)),
                      "[2]");
    ck_assert_text_eq(
        query_text(coord::key_shape, 0, on_nic("a:ib0", MERIDIAN_COORD_PHYSICAL_VIEW)), "[4,2]");
    ck_assert_text_eq(query_text(coord::key_shape, 1, on_nic("eth0")), "[2,2,1]");
    ck_assert_text_eq(query_text(coord::key_plane, 0, on_nic("b:ib0")), "[\"ib\"]");
    ck_assert_text_eq(query_text(coord::key_nic, 3, on_nic("eth0")), "[\"b:eth0\"]");
    ck_assert_text_eq(query_text(coord::key_view, 0, on_nic("a:ib0", MERIDIAN_COORD_VIEW_UNDEF)),
                      "1");
    ck_assert_no_messages();

    // A plane without the view, a plane that is not the NIC's, the cost.
    ck_assert_text_eq(
        query_text(coord::key_coordinate, 0, on_nic("a:eth0", MERIDIAN_COORD_PHYSICAL_VIEW)),
        "error -6: plane \"eth\" has no coordinates in view physical (coord component \"tcp\" "
        "gives: logical)");
    ck_assert_text_eq(
        query_text(coord::key_shape, 0, on_nic("eth0", MERIDIAN_COORD_PHYSICAL_VIEW)),
        "error -6: plane \"eth\" has no coordinates in view physical (coord component \"tcp\" "
        "gives: logical)");
    ck_assert_text_eq(query_text(coord::key_dims, 0, on_nic("a:eth0", 0, "ib")),
                      "error -3: NIC a:eth0 is on plane \"eth\", not on plane \"ib\"");
    ck_assert_text_eq(query_text(coord::key_dims, 0, on_nic("a:eth0", 0, "nope")),
                      "error -4: unknown plane \"nope\" (planes: eth, ib)");
    auto cost = on_nic("a:eth0");
    cost.peer = 2;
    ck_assert_text_eq(query_text(coord::key_cost, 0, cost),
                      "error -3: meridian.net.cost takes no NIC (\"a:eth0\"): the cost is over "
                      "each process's nearest NIC on each plane both have one on");
    ck_assert_text_eq(query_text(coord::key_plane, 9, on_nic("a:eth0")),
                      "error -3: rank 9 is not in job \"meridian\" (4 processes)");
}
END_TEST

START_TEST(unknown_nics)
{
    place_mixed();
    // Close names: the NICs of the node named (or nearly named) and of the
    // asking rank's node, nearest spelling first.
    ck_assert_text_eq(query_text(coord::key_coordinate, 0, on_nic("a:eht0")),
                      "error -4: unknown NIC \"a:eht0\" (close: a:eth0, a:ib0)");
    ck_assert_text_eq(query_text(coord::key_coordinate, 2, on_nic("ib1")),
                      "error -4: unknown NIC \"ib1\" (close: b:ib0, b:eth0)");
    ck_assert_text_eq(query_text(coord::key_plane, 0, on_nic("bb:ib0")),
                      "error -4: unknown NIC \"bb:ib0\" (close: b:ib0, a:ib0, b:eth0, a:eth0)");
    ck_assert_text_eq(query_text(coord::key_nic, 0, on_nic("a:")),
                      "error -4: unknown NIC \"a:\" (close: a:ib0, a:eth0)");
    // Nothing near it, and no process to take a name alone from.
    auto found = coord::find_nic("zzzzzz:q", 99);
    ck_assert_int_eq(found.error().status, MERIDIAN_ERR_NOT_FOUND);
    ck_assert_text_eq(found.error().message,
                      "unknown NIC \"zzzzzz:q\" (no NIC is named like it; NICs are named "
                      "NODE:NIC as pmix.net.nic lists them)");
    found = coord::find_nic("b:eth0", 99); // a full name needs no process
    ck_assert(found.ok());
    ck_assert_text_eq(coord::nic_name(*coord::context()->fabric, *found), "b:eth0");
    ck_assert_no_messages();
}
END_TEST

START_TEST(nic_names_with_colons)
{
    // Node and NIC names may hold ':' (mlx5_0:1): every split is tried.
    start();
    const auto fabric = fabric_of("plane p\nnode x\nnode x:y\nnode n\nnic x y:z plane=p\n"
                                  "nic x:y z plane=p\nnic n mlx5_0:1 plane=p\n");
    place(fabric, job_of(*fabric, "n:1,x:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(query_text(coord::key_nic, 0, on_nic("mlx5_0:1")), "[\"n:mlx5_0:1\"]");
    ck_assert_text_eq(query_text(coord::key_nic, 0, on_nic("n:mlx5_0:1")), "[\"n:mlx5_0:1\"]");
    ck_assert_text_eq(query_text(coord::key_nic, 1, on_nic("y:z")), "[\"x:y:z\"]");
    // Found by its name alone, it is not looked up again by its full name
    // (which is ambiguous).
    ck_assert_text_eq(query_text(coord::key_coordinate, 1, on_nic("y:z")),
                      "[{fabric=\"ethernet\", plane=\"p\", view=logical, coord=(0,0,0)}]");
    ck_assert_text_eq(query_text(coord::key_endpoint, 1, on_nic("y:z")), "[]");
    ck_assert_text_eq(query_text(coord::key_nic, 0, on_nic("x:y:z")),
                      "error -3: NIC name \"x:y:z\" is ambiguous: it names NIC \"y:z\" of "
                      "node \"x\" and NIC \"z\" of node \"x:y\"");
    ck_assert_no_messages();
}
END_TEST

START_TEST(endpoints_on_a_nic)
{
    place_mixed();
    auto store = meridian::datastore::store();
    ck_assert(store.ok());
    const std::string nspace = coord::context()->job->nspace;
    ck_assert(
        (*store)
            ->store({nspace, 0}, coord::key_endpoint,
                    std::vector<std::string>{"10.0.0.1:32000", "10.0.0.9:32000", "10.0.0.1:32001"})
            .ok());
    ck_assert((*store)
                  ->store({nspace, 3}, coord::key_endpoint,
                          std::vector<std::string>{"10.0.0.2:32000", "b-eth0:32001"})
                  .ok());
    // Those on the NIC's address, in order.
    auto on = coord::endpoints_on_nic(0, "a:eth0");
    ck_assert(on.ok());
    ck_assert_text_eq(joined(*on), "10.0.0.1:32000,10.0.0.1:32001");
    ck_assert_text_eq(query_text(coord::key_endpoint, 0, on_nic("eth0")),
                      "[\"10.0.0.1:32000\",\"10.0.0.1:32001\"]");
    // No endpoints at all: none on any NIC.
    ck_assert_text_eq(query_text(coord::key_endpoint, 1, on_nic("ib0")), "[]");
    ck_assert_no_messages();
    // What cannot be known, and what cannot be.
    ck_assert_text_eq(query_text(coord::key_endpoint, 0, on_nic("ib0")),
                      "error -6: which endpoints of rank 0 are on NIC a:ib0 cannot be known: "
                      "endpoints are ADDRESS:PORT, and the NIC has no address in the fabric");
    ck_assert_text_eq(query_text(coord::key_endpoint, 3, on_nic("eth0")),
                      "error -6: which NIC the endpoint \"b-eth0:32001\" of rank 3 is on cannot "
                      "be known: it is not IPV4-ADDRESS:PORT");
    ck_assert_text_eq(query_text(coord::key_endpoint, 0, on_nic("b:eth0")),
                      "error -3: NIC b:eth0 is not on rank 0's node a: a process has endpoints "
                      "only on its own node's NICs");
    const auto none = coord::endpoints_on_nic(7, "a:eth0");
    ck_assert_int_eq(none.error().status, MERIDIAN_ERR_BAD_PARAM);
    ck_assert_text_eq(none.error().message, "rank 7 is not in job \"meridian\" (4 processes)");
}
END_TEST

START_TEST(endpoints_from_the_datastore)
{
    place_mixed();
    auto store = meridian::datastore::store();
    ck_assert(store.ok());
    const std::string nspace = coord::context()->job->nspace;
    ck_assert((*store)
                  ->store({nspace, 2}, coord::key_endpoint,
                          std::vector<std::string>{"10.0.0.2:32000", "10.0.0.2:32001"})
                  .ok());
    auto endpoints = coord::endpoints(2);
    ck_assert(endpoints.ok());
    ck_assert_text_eq(joined(*endpoints), "10.0.0.2:32000,10.0.0.2:32001");
    endpoints = coord::endpoints(0); // pnet assigned none
    ck_assert(endpoints.ok());
    ck_assert(endpoints->empty());
    ck_assert((*store)->store({nspace, 1}, coord::key_endpoint, std::uint64_t{5}).ok());
    endpoints = coord::endpoints(1);
    ck_assert(!endpoints.ok());
    ck_assert_text_eq(endpoints.error().message,
                      "pmix.net.endpt of rank 1 is uint64, expected a string array");
    endpoints = coord::endpoints(4);
    ck_assert_text_eq(endpoints.error().message, "rank 4 is not in job \"meridian\" (4 processes)");
}
END_TEST

START_TEST(failed_set_context_keeps_the_old_one)
{
    start({{"coord_torus_shape", "2"}});
    const auto good =
        fabric_of("plane ib\nnode a\nnode b\nnic a ib0 plane=ib\nnic b ib0 plane=ib\n");
    place(good, job_of(*good, "a:1,b:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(coords_of(1, "ib", MERIDIAN_COORD_PHYSICAL_VIEW), "ib:physical:(1)");
    const auto bad = fabric_of("plane ib\nnode a\nnode b\nnode c\nnic a ib0 plane=ib\nnic b ib0 "
                               "plane=ib\nnic c ib0 plane=ib\n");
    ck_assert(!coord::set_context(bad, nullptr).ok());
    ck_assert_messages(
        ERROR_MSG("coord_torus: plane \"ib\": 3 nodes, but the shape 2 has only 2 positions"));
    ck_assert_ptr_eq(coord::context()->fabric.get(), good.get());
    ck_assert_text_eq(coords_of(1, "ib", MERIDIAN_COORD_PHYSICAL_VIEW), "ib:physical:(1)");
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("coord_queries");
    TCase *tcase = make_tcase("queries");
    tcase_add_test(tcase, no_context_yet);
    tcase_add_test(tcase, views);
    tcase_add_test(tcase, other_view_values_pass_through);
    tcase_add_test(tcase, table_refusals);
    tcase_add_test(tcase, dims_shape_planes_nics);
    tcase_add_test(tcase, query_by_key);
    tcase_add_test(tcase, every_plane_without_a_plane);
    tcase_add_test(tcase, one_plane_without_a_plane);
    tcase_add_test(tcase, nic_as_qualifier);
    tcase_add_test(tcase, unknown_nics);
    tcase_add_test(tcase, nic_names_with_colons);
    tcase_add_test(tcase, endpoints_on_a_nic);
    tcase_add_test(tcase, endpoints_from_the_datastore);
    tcase_add_test(tcase, failed_set_context_keeps_the_old_one);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

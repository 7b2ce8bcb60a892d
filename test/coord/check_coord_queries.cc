// The coord base's C++ queries (mca/coord/base/base.hpp) on a fabric placed
// by coord_tcp and coord_torus: views (logical by default, UNDEF = logical,
// physical where a module gives it, other values passed through), dims,
// shape, planes, NICs, endpoints from the datastore, query() by key, the
// tables' refusals, and a failed set_context keeping the old context.
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
    value = coord::query(coord::key_nic, 0, {});
    ck_assert_text_eq(value.error().message,
                      "pmix.net.nic needs a plane when the fabric has 2 (planes: eth, ib)");
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
    tcase_add_test(tcase, endpoints_from_the_datastore);
    tcase_add_test(tcase, failed_set_context_keeps_the_old_one);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// The coord base's C API (mca/coord/base/base.h): every call's answer (a
// NIC as a qualifier, every plane's NICs and shapes among them), that what it
// hands out is the caller's to free (run under ASan/LSan in CI), and that
// errors are reported and leave the outputs empty.
#include <cstdlib>
#include <string>

#include "test/coord/coord_test_support.hpp"
#include <meridian/mca/coord/base/base.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>

using namespace coord_test;
using meridian_test::messages;

namespace
{

constexpr std::string_view fabric_text = R"(plane eth cidr=10.0.0.0/24
switch s0 plane=eth
plane ib type=infiniband shape=4x2 periodic=no
node a
node b
nic a eth0 plane=eth address=10.0.0.1 switch=s0
nic a ib0 plane=ib
nic b eth0 plane=eth address=10.0.0.2 switch=s0
nic b ib0 plane=ib coord=3,1
)";

void place_fabric()
{
    start();
    const auto fabric = fabric_of(fabric_text);
    place(fabric, job_of(*fabric, "a:1,b:1", meridian::fabric::Binding::none));
}

std::string strings(char **list, size_t count)
{
    std::string text;
    for (size_t i = 0; i < count; ++i) {
        text += (i > 0 ? "," : "") + std::string(list[i]);
    }
    return text;
}

void free_strings(char **list, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        std::free(list[i]);
    }
    std::free(list);
}

START_TEST(coordinates)
{
    place_fabric();
    meridian_coord_t *coords = nullptr;
    size_t count = 0;
    ck_assert_int_eq(
        meridian_coord_get_coordinates(1, nullptr, MERIDIAN_COORD_VIEW_UNDEF, &coords, &count),
        MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(coords[0].fabric, "ethernet");
    ck_assert_str_eq(coords[0].plane, "eth");
    ck_assert_uint_eq(coords[0].view, MERIDIAN_COORD_LOGICAL_VIEW);
    ck_assert_uint_eq(coords[0].dims, 3);
    ck_assert_uint_eq(coords[0].coord[0], 0);
    ck_assert_uint_eq(coords[0].coord[1], 0);
    ck_assert_uint_eq(coords[0].coord[2], 0);
    ck_assert_str_eq(coords[1].plane, "ib");
    ck_assert_uint_eq(coords[1].dims, 2);
    ck_assert_uint_eq(coords[1].coord[0], 1); // logical: b is the job's second node
    meridian_coord_free(coords, count);

    ck_assert_int_eq(
        meridian_coord_get_coordinates(1, "ib", MERIDIAN_COORD_PHYSICAL_VIEW, &coords, &count),
        MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 1);
    ck_assert_uint_eq(coords[0].view, MERIDIAN_COORD_PHYSICAL_VIEW);
    ck_assert_uint_eq(coords[0].coord[0], 3);
    ck_assert_uint_eq(coords[0].coord[1], 1);
    meridian_coord_free(coords, count);
    ck_assert_no_messages();
}
END_TEST

START_TEST(dims_shape_planes_nics_cost)
{
    place_fabric();
    uint32_t *values = nullptr;
    size_t count = 0;
    ck_assert_int_eq(meridian_coord_get_dims(nullptr, MERIDIAN_COORD_LOGICAL_VIEW, &values, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_uint_eq(values[0], 3);
    ck_assert_uint_eq(values[1], 2);
    std::free(values);
    ck_assert_int_eq(meridian_coord_get_shape("ib", MERIDIAN_COORD_PHYSICAL_VIEW, &values, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_uint_eq(values[0], 4);
    ck_assert_uint_eq(values[1], 2);
    std::free(values);

    char **list = nullptr;
    ck_assert_int_eq(meridian_coord_get_planes(&list, &count), MERIDIAN_SUCCESS);
    ck_assert_text_eq(strings(list, count), "eth,ib");
    free_strings(list, count);
    ck_assert_int_eq(meridian_coord_get_nics("eth", &list, &count), MERIDIAN_SUCCESS);
    ck_assert_text_eq(strings(list, count), "a:eth0,b:eth0");
    free_strings(list, count);

    uint64_t cost = 99;
    // eth: one switch, 2 hops; ib: a mesh, (0,0)-(3,1) is 4.
    ck_assert_int_eq(meridian_coord_get_cost(0, 1, &cost), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(cost, 2);
    ck_assert_int_eq(meridian_coord_get_cost(1, 1, &cost), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(cost, 0);
    ck_assert_no_messages();
}
END_TEST

START_TEST(endpoints)
{
    place_fabric();
    auto store = meridian::datastore::store();
    ck_assert(store.ok());
    ck_assert((*store)
                  ->store({"meridian", 1}, MERIDIAN_NETWORK_ENDPT,
                          std::vector<std::string>{"10.0.0.2:32000"})
                  .ok());
    char **list = nullptr;
    size_t count = 0;
    ck_assert_int_eq(meridian_coord_get_endpoints(1, &list, &count), MERIDIAN_SUCCESS);
    ck_assert_text_eq(strings(list, count), "10.0.0.2:32000");
    free_strings(list, count);
    ck_assert_int_eq(meridian_coord_get_endpoints(0, &list, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 0);
    ck_assert_ptr_null(list);
}
END_TEST

START_TEST(errors_are_reported_and_outputs_empty)
{
    place_fabric();
    meridian_coord_t *coords = reinterpret_cast<meridian_coord_t *>(0x1);
    size_t count = 7;
    ck_assert_int_eq(
        meridian_coord_get_coordinates(0, "eth", MERIDIAN_COORD_PHYSICAL_VIEW, &coords, &count),
        MERIDIAN_ERR_NOT_SUPPORTED);
    ck_assert_ptr_null(coords);
    ck_assert_uint_eq(count, 0);
    uint32_t *values = reinterpret_cast<uint32_t *>(0x1);
    ck_assert_int_eq(
        meridian_coord_get_shape(nullptr, MERIDIAN_COORD_LOGICAL_VIEW, &values, &count),
        MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(values);
    char **list = nullptr;
    ck_assert_int_eq(meridian_coord_get_nics("nope", &list, &count), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(list);
    uint64_t cost = 5;
    ck_assert_int_eq(meridian_coord_get_cost(0, 2, &cost), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_coord_get_cost(0, 1, nullptr), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_coord_get_planes(nullptr, &count), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG("plane \"eth\" has no coordinates in view physical (coord component \"tcp\" "
                  "gives: logical)"),
        ERROR_MSG("pmix.net.shape needs a plane when the fabric has 2 (planes: eth, ib)"),
        ERROR_MSG("unknown plane \"nope\" (planes: eth, ib)"),
        ERROR_MSG("rank 2 is not in job \"meridian\" (2 processes)"),
        ERROR_MSG("meridian_coord_get_cost: cost is NULL"),
        ERROR_MSG("meridian_coord_get_planes: planes is NULL"));
}
END_TEST

START_TEST(every_plane)
{
    place_fabric();
    meridian_coord_plane_nics_t *lists = nullptr;
    size_t count = 0;
    ck_assert_int_eq(meridian_coord_get_plane_nics(&lists, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(lists[0].plane, "eth");
    ck_assert_text_eq(strings(lists[0].nics, lists[0].count), "a:eth0,b:eth0");
    ck_assert_str_eq(lists[1].plane, "ib");
    ck_assert_text_eq(strings(lists[1].nics, lists[1].count), "a:ib0,b:ib0");
    meridian_coord_plane_nics_free(lists, count);

    meridian_coord_plane_shape_t *shapes = nullptr;
    ck_assert_int_eq(meridian_coord_get_shapes(MERIDIAN_COORD_VIEW_UNDEF, &shapes, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(shapes[0].plane, "eth");
    ck_assert_uint_eq(shapes[0].dims, 3);
    ck_assert_str_eq(shapes[1].plane, "ib");
    ck_assert_uint_eq(shapes[1].dims, 2);
    meridian_coord_plane_shapes_free(shapes, count);
    // eth has no physical view: no shape, as get_dims gives 0.
    ck_assert_int_eq(meridian_coord_get_shapes(MERIDIAN_COORD_PHYSICAL_VIEW, &shapes, &count),
                     MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 2);
    ck_assert_str_eq(shapes[0].plane, "eth");
    ck_assert_uint_eq(shapes[0].dims, 0);
    ck_assert_ptr_null(shapes[0].shape);
    ck_assert_uint_eq(shapes[1].dims, 2);
    ck_assert_uint_eq(shapes[1].shape[0], 4);
    ck_assert_uint_eq(shapes[1].shape[1], 2);
    meridian_coord_plane_shapes_free(shapes, count);
    meridian_coord_plane_shapes_free(nullptr, 0);
    meridian_coord_plane_nics_free(nullptr, 0);
    ck_assert_no_messages();

    shapes = reinterpret_cast<meridian_coord_plane_shape_t *>(0x1);
    ck_assert_int_eq(meridian_coord_get_shapes(0x7f, &shapes, &count), MERIDIAN_ERR_NOT_SUPPORTED);
    ck_assert_ptr_null(shapes);
    ck_assert_uint_eq(count, 0);
    char **list = nullptr;
    ck_assert_int_eq(meridian_coord_get_nics(nullptr, &list, &count), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(list);
    ck_assert_int_eq(meridian_coord_get_plane_nics(nullptr, &count), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(ERROR_MSG("no plane has coordinates in view 127"),
                       ERROR_MSG("meridian_coord_get_nics needs a plane when the fabric has 2 "
                                 "(planes: eth, ib); meridian_coord_get_plane_nics gives each "
                                 "plane's NICs"),
                       ERROR_MSG("meridian_coord_get_plane_nics: planes is NULL"));
}
END_TEST

START_TEST(nics_of_the_only_plane)
{
    start();
    const auto fabric = fabric_of("plane ib shape=2\nnode a\nnode b\nnic a ib0 plane=ib\n"
                                  "nic b ib0 plane=ib\n");
    place(fabric, job_of(*fabric, "a:1,b:1", meridian::fabric::Binding::none));
    char **list = nullptr;
    size_t count = 0;
    ck_assert_int_eq(meridian_coord_get_nics(nullptr, &list, &count), MERIDIAN_SUCCESS);
    ck_assert_text_eq(strings(list, count), "a:ib0,b:ib0");
    free_strings(list, count);
    meridian_coord_plane_nics_t *lists = nullptr;
    ck_assert_int_eq(meridian_coord_get_plane_nics(&lists, &count), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(lists[0].plane, "ib");
    ck_assert_text_eq(strings(lists[0].nics, lists[0].count), "a:ib0,b:ib0");
    meridian_coord_plane_nics_free(lists, count);
    ck_assert_no_messages();
}
END_TEST

START_TEST(one_nic)
{
    place_fabric();
    char *name = nullptr;
    char *plane = nullptr;
    ck_assert_int_eq(meridian_coord_get_nic(1, "ib0", &name, &plane), MERIDIAN_SUCCESS);
    ck_assert_str_eq(name, "b:ib0");
    ck_assert_str_eq(plane, "ib");
    std::free(name);
    std::free(plane);
    ck_assert_int_eq(meridian_coord_get_nic(0, "b:eth0", nullptr, &plane), MERIDIAN_SUCCESS);
    ck_assert_str_eq(plane, "eth");
    std::free(plane);

    meridian_coord_t *coord = nullptr;
    ck_assert_int_eq(
        meridian_coord_get_nic_coordinate(0, "b:ib0", MERIDIAN_COORD_PHYSICAL_VIEW, &coord),
        MERIDIAN_SUCCESS);
    ck_assert_str_eq(coord->fabric, "infiniband");
    ck_assert_str_eq(coord->plane, "ib");
    ck_assert_uint_eq(coord->view, MERIDIAN_COORD_PHYSICAL_VIEW);
    ck_assert_uint_eq(coord->dims, 2);
    ck_assert_uint_eq(coord->coord[0], 3);
    ck_assert_uint_eq(coord->coord[1], 1);
    meridian_coord_free(coord, 1);
    ck_assert_int_eq(
        meridian_coord_get_nic_coordinate(0, "eth0", MERIDIAN_COORD_VIEW_UNDEF, &coord),
        MERIDIAN_SUCCESS);
    ck_assert_str_eq(coord->plane, "eth");
    ck_assert_uint_eq(coord->view, MERIDIAN_COORD_LOGICAL_VIEW);
    ck_assert_uint_eq(coord->dims, 3);
    meridian_coord_free(coord, 1);

    uint32_t *shape = nullptr;
    size_t dims = 0;
    ck_assert_int_eq(
        meridian_coord_get_nic_shape(0, "ib0", MERIDIAN_COORD_PHYSICAL_VIEW, &shape, &dims),
        MERIDIAN_SUCCESS);
    ck_assert_uint_eq(dims, 2);
    ck_assert_uint_eq(shape[0], 4);
    ck_assert_uint_eq(shape[1], 2);
    std::free(shape);

    auto store = meridian::datastore::store();
    ck_assert(store.ok());
    ck_assert((*store)
                  ->store({"meridian", 1}, MERIDIAN_NETWORK_ENDPT,
                          std::vector<std::string>{"10.0.0.2:32000", "10.0.0.2:32001"})
                  .ok());
    char **list = nullptr;
    size_t count = 0;
    ck_assert_int_eq(meridian_coord_get_nic_endpoints(1, "eth0", &list, &count), MERIDIAN_SUCCESS);
    ck_assert_text_eq(strings(list, count), "10.0.0.2:32000,10.0.0.2:32001");
    free_strings(list, count);
    ck_assert_no_messages();
}
END_TEST

START_TEST(one_nic_errors)
{
    place_fabric();
    char *name = reinterpret_cast<char *>(0x1);
    ck_assert_int_eq(meridian_coord_get_nic(0, "a:eht0", &name, nullptr), MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(name);
    meridian_coord_t *coord = reinterpret_cast<meridian_coord_t *>(0x1);
    ck_assert_int_eq(
        meridian_coord_get_nic_coordinate(0, "a:eth0", MERIDIAN_COORD_PHYSICAL_VIEW, &coord),
        MERIDIAN_ERR_NOT_SUPPORTED);
    ck_assert_ptr_null(coord);
    uint32_t *shape = reinterpret_cast<uint32_t *>(0x1);
    size_t dims = 9;
    ck_assert_int_eq(
        meridian_coord_get_nic_shape(1, "", MERIDIAN_COORD_LOGICAL_VIEW, &shape, &dims),
        MERIDIAN_ERR_NOT_FOUND);
    ck_assert_ptr_null(shape);
    ck_assert_uint_eq(dims, 0);
    auto store = meridian::datastore::store();
    ck_assert(store.ok());
    ck_assert((*store)
                  ->store({"meridian", 1}, MERIDIAN_NETWORK_ENDPT,
                          std::vector<std::string>{"10.0.0.2:32000"})
                  .ok());
    char **list = nullptr;
    size_t count = 4;
    ck_assert_int_eq(meridian_coord_get_nic_endpoints(1, "ib0", &list, &count),
                     MERIDIAN_ERR_NOT_SUPPORTED);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(meridian_coord_get_nic_endpoints(1, "a:eth0", &list, &count),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(
        meridian_coord_get_nic_coordinate(0, nullptr, MERIDIAN_COORD_LOGICAL_VIEW, &coord),
        MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_coord_get_nic_endpoints(0, "a:eth0", nullptr, &count),
                     MERIDIAN_ERR_BAD_PARAM);
    ck_assert_messages(
        ERROR_MSG("unknown NIC \"a:eht0\" (close: a:eth0, a:ib0)"),
        ERROR_MSG("plane \"eth\" has no coordinates in view physical (coord component \"tcp\" "
                  "gives: logical)"),
        ERROR_MSG("unknown NIC \"\" (close: b:ib0, b:eth0)"),
        ERROR_MSG("which endpoints of rank 1 are on NIC b:ib0 cannot be known: endpoints are "
                  "ADDRESS:PORT, and the NIC has no address in the fabric"),
        ERROR_MSG("NIC a:eth0 is not on rank 1's node b: a process has endpoints only on its own "
                  "node's NICs"),
        ERROR_MSG("meridian_coord_get_nic_coordinate: nic is NULL"),
        ERROR_MSG("meridian_coord_get_nic_endpoints: endpoints is NULL"));
}
END_TEST

START_TEST(no_context)
{
    start();
    char **list = nullptr;
    size_t count = 3;
    ck_assert_int_eq(meridian_coord_get_planes(&list, &count), MERIDIAN_ERR_NOT_INITIALIZED);
    ck_assert_uint_eq(count, 0);
    ck_assert_messages(ERROR_MSG("no network coordinates yet: no fabric and job have been placed "
                                 "(coord set_context)"));
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("coord_c_api");
    TCase *tcase = make_tcase("c_api");
    tcase_add_test(tcase, coordinates);
    tcase_add_test(tcase, dims_shape_planes_nics_cost);
    tcase_add_test(tcase, endpoints);
    tcase_add_test(tcase, errors_are_reported_and_outputs_empty);
    tcase_add_test(tcase, every_plane);
    tcase_add_test(tcase, nics_of_the_only_plane);
    tcase_add_test(tcase, one_nic);
    tcase_add_test(tcase, one_nic_errors);
    tcase_add_test(tcase, no_context);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// Coordinates: the C struct is laid out like the seed's pmix_coord_t, its
// construct / destruct / create / free / copy calls, and the C++ value type.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#include "test/support/meridian_test.hpp"
#include <meridian/opal/class/coordinate.hpp>

using namespace meridian;

namespace
{

// pmix_coord_t as the seed (PMIx 4.0, "Network Coordinates") declares it.
typedef uint8_t seed_coord_view_t;
struct seed_pmix_coord_t {
    char *fabric;
    char *plane;
    seed_coord_view_t view;
    uint32_t *coord;
    size_t dims;
};

char *c_text(const char *text)
{
    char *copy = static_cast<char *>(std::malloc(std::strlen(text) + 1));
    std::strcpy(copy, text);
    return copy;
}

} // namespace

START_TEST(layout_matches_pmix_coord_t)
{
    ck_assert_uint_eq(sizeof(meridian_coord_t), sizeof(seed_pmix_coord_t));
    ck_assert_uint_eq(offsetof(meridian_coord_t, fabric), offsetof(seed_pmix_coord_t, fabric));
    ck_assert_uint_eq(offsetof(meridian_coord_t, plane), offsetof(seed_pmix_coord_t, plane));
    ck_assert_uint_eq(offsetof(meridian_coord_t, view), offsetof(seed_pmix_coord_t, view));
    ck_assert_uint_eq(offsetof(meridian_coord_t, coord), offsetof(seed_pmix_coord_t, coord));
    ck_assert_uint_eq(offsetof(meridian_coord_t, dims), offsetof(seed_pmix_coord_t, dims));
    ck_assert_uint_eq(sizeof(meridian_coord_view_t), 1);
    ck_assert_int_eq(MERIDIAN_COORD_VIEW_UNDEF, 0);
    ck_assert_int_eq(MERIDIAN_COORD_LOGICAL_VIEW, 1);
    ck_assert_int_eq(MERIDIAN_COORD_PHYSICAL_VIEW, 2);
}
END_TEST

START_TEST(construct_and_destruct)
{
    meridian_coord_t coord;
    std::memset(&coord, 0xa5, sizeof coord);
    MERIDIAN_COORD_CONSTRUCT(&coord);
    ck_assert_ptr_null(coord.fabric);
    ck_assert_ptr_null(coord.plane);
    ck_assert_ptr_null(coord.coord);
    ck_assert_uint_eq(coord.view, MERIDIAN_COORD_VIEW_UNDEF);
    ck_assert_uint_eq(coord.dims, 0);
    coord.fabric = c_text("ethernet");
    coord.plane = c_text("10.10.0.0/16");
    coord.coord = static_cast<uint32_t *>(std::malloc(3 * sizeof(uint32_t)));
    coord.dims = 3;
    coord.view = MERIDIAN_COORD_LOGICAL_VIEW;
    MERIDIAN_COORD_DESTRUCT(&coord); // frees (ASan checks) and constructs again
    ck_assert_ptr_null(coord.fabric);
    ck_assert_ptr_null(coord.coord);
    ck_assert_uint_eq(coord.dims, 0);
    MERIDIAN_COORD_DESTRUCT(&coord); // twice is harmless
    meridian_coord_construct(nullptr);
    meridian_coord_destruct(nullptr);
}
END_TEST

START_TEST(create_and_free)
{
    meridian_coord_t *coords = nullptr;
    MERIDIAN_COORD_CREATE(coords, 3);
    ck_assert_ptr_nonnull(coords);
    for (int i = 0; i < 3; ++i) {
        ck_assert_ptr_null(coords[i].fabric);
        ck_assert_uint_eq(coords[i].dims, 0);
        ck_assert_uint_eq(coords[i].view, MERIDIAN_COORD_VIEW_UNDEF);
    }
    coords[1].plane = c_text("p");
    coords[2].coord = static_cast<uint32_t *>(std::calloc(2, sizeof(uint32_t)));
    coords[2].dims = 2;
    MERIDIAN_COORD_FREE(coords, 3);
    ck_assert_ptr_null(meridian_coord_create(0));
    meridian_coord_free(nullptr, 4);
}
END_TEST

START_TEST(copy)
{
    meridian_coord_t src;
    meridian_coord_construct(&src);
    src.fabric = c_text("infiniband");
    src.view = 7; // a launcher's own view passes through untouched
    src.coord = static_cast<uint32_t *>(std::malloc(2 * sizeof(uint32_t)));
    src.coord[0] = 4;
    src.coord[1] = 9;
    src.dims = 2;
    meridian_coord_t dst;
    meridian_coord_construct(&dst);
    dst.plane = c_text("old contents are freed");
    ck_assert_int_eq(meridian_coord_copy(&dst, &src), MERIDIAN_SUCCESS);
    ck_assert_str_eq(dst.fabric, "infiniband");
    ck_assert_ptr_ne(dst.fabric, src.fabric);
    ck_assert_ptr_null(dst.plane);
    ck_assert_uint_eq(dst.view, 7);
    ck_assert_uint_eq(dst.dims, 2);
    ck_assert_ptr_ne(dst.coord, src.coord);
    ck_assert_uint_eq(dst.coord[1], 9);
    ck_assert_int_eq(meridian_coord_copy(&dst, &dst), MERIDIAN_SUCCESS);
    ck_assert_uint_eq(dst.coord[0], 4);
    ck_assert_int_eq(meridian_coord_copy(nullptr, &src), MERIDIAN_ERR_BAD_PARAM);
    meridian_coord_destruct(&src);
    meridian_coord_destruct(&dst);
}
END_TEST

START_TEST(cpp_value_type)
{
    Coordinate c;
    ck_assert_uint_eq(c.view, MERIDIAN_COORD_LOGICAL_VIEW); // logical by default
    c.fabric = "ethernet";
    c.plane = "data";
    c.coord = {1, 0, 2};
    meridian_coord_t out;
    meridian_coord_construct(&out);
    ck_assert_int_eq(to_c(c, &out), MERIDIAN_SUCCESS);
    ck_assert_str_eq(out.fabric, "ethernet");
    ck_assert_str_eq(out.plane, "data");
    ck_assert_uint_eq(out.view, MERIDIAN_COORD_LOGICAL_VIEW);
    ck_assert_uint_eq(out.dims, 3);
    ck_assert_uint_eq(out.coord[2], 2);
    ck_assert(from_c(out) == c);
    Coordinate empty;
    empty.view = 200;
    ck_assert_int_eq(to_c(empty, &out), MERIDIAN_SUCCESS); // frees the old contents
    ck_assert_str_eq(out.fabric, "");
    ck_assert_ptr_null(out.coord);
    ck_assert_uint_eq(out.view, 200);
    ck_assert(from_c(out) == empty);
    meridian_coord_destruct(&out);
    meridian_coord_t null_fields;
    meridian_coord_construct(&null_fields);
    const Coordinate from_null = from_c(null_fields);
    ck_assert(from_null.fabric.empty() && from_null.coord.empty());
    ck_assert_uint_eq(from_null.view, MERIDIAN_COORD_VIEW_UNDEF);

    ck_assert_text_eq(format_coord({1, 0, 2}), "(1,0,2)");
    ck_assert_text_eq(format_coord({}), "()");
    ck_assert_text_eq(view_name(MERIDIAN_COORD_LOGICAL_VIEW), "logical");
    ck_assert_text_eq(view_name(MERIDIAN_COORD_PHYSICAL_VIEW), "physical");
    ck_assert_text_eq(view_name(MERIDIAN_COORD_VIEW_UNDEF), "undef");
    ck_assert_text_eq(view_name(42), "42");
    meridian_coord_view_t view = 0;
    ck_assert(parse_view("Physical", &view) && view == MERIDIAN_COORD_PHYSICAL_VIEW);
    ck_assert(parse_view("LOGICAL", &view) && view == MERIDIAN_COORD_LOGICAL_VIEW);
    ck_assert(parse_view("undef", &view) && view == MERIDIAN_COORD_VIEW_UNDEF);
    ck_assert(parse_view("255", &view) && view == 255);
    ck_assert(!parse_view("256", &view));
    ck_assert(!parse_view("", &view));
    ck_assert(!parse_view("-1", &view));
    ck_assert(!parse_view("logic", &view));
    for (int v = 0; v < 256; ++v) {
        ck_assert(parse_view(view_name(static_cast<meridian_coord_view_t>(v)), &view));
        ck_assert_int_eq(view, v);
    }
}
END_TEST

int main()
{
    Suite *suite = suite_create("coordinate");
    TCase *tcase = tcase_create("coordinate");
    tcase_add_test(tcase, layout_matches_pmix_coord_t);
    tcase_add_test(tcase, construct_and_destruct);
    tcase_add_test(tcase, create_and_free);
    tcase_add_test(tcase, copy);
    tcase_add_test(tcase, cpp_value_type);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

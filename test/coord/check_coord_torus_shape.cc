// SPDX-License-Identifier: BSD-3-Clause
// coord_torus's parameter syntax and position arithmetic
// (components/coord_torus/coord_torus_shape.hpp): shapes, periodic lists,
// every parse error with its full message, row-major layout with dimension 0
// fastest, and wrap-around distances.
#include <string>
#include <vector>

#include "components/coord_torus/coord_torus_shape.hpp"
#include "test/coord/coord_test_support.hpp"

using namespace meridian::coord_torus;
using coord_test::joined;

namespace
{

std::string shape(std::string_view text)
{
    const auto parsed = parse_shape(text, "coord_torus_shape");
    return parsed ? format_shape(*parsed) : "error: " + parsed.error().message;
}

std::string periodic(std::string_view text, const std::vector<std::uint32_t> &dims)
{
    const auto parsed = parse_periodic(text, dims, "coord_torus_periodic");
    if (!parsed) {
        return "error: " + parsed.error().message;
    }
    std::string out;
    for (const bool wraps : *parsed) {
        out += wraps ? '1' : '0';
    }
    return out;
}

START_TEST(shapes)
{
    ck_assert_text_eq(shape("8x4x4x4"), "8x4x4x4");
    ck_assert_text_eq(shape("16"), "16");
    ck_assert_text_eq(shape(" 2X3 "), "2x3");
    ck_assert_text_eq(shape("65536x65535"), "65536x65535");
}
END_TEST

START_TEST(shape_errors)
{
    ck_assert_text_eq(shape(""), "error: coord_torus_shape:1: expected a dimension size (a whole "
                                 "number from 1), found end of text");
    ck_assert_text_eq(shape("8xAx4"), "error: coord_torus_shape:3: expected a dimension size (a "
                                      "whole number from 1), found \"A\"");
    ck_assert_text_eq(shape("8x4x"), "error: coord_torus_shape:5: expected a dimension size (a "
                                     "whole number from 1), found end of text");
    ck_assert_text_eq(shape("8x0x4"), "error: coord_torus_shape:3: expected a dimension size of "
                                      "at least 1, found \"0\"");
    ck_assert_text_eq(shape("8,4"), "error: coord_torus_shape:2: expected \"x\" or the end of the "
                                    "shape, found \",4\"");
    ck_assert_text_eq(shape("  8x4 y"), "error: coord_torus_shape:6: expected \"x\" or the end of "
                                        "the shape, found \" y\"");
    ck_assert_text_eq(shape("4294967296"), "error: coord_torus_shape:1: expected a dimension size "
                                           "of at most 4294967295, found \"4294967296\"");
    ck_assert_text_eq(shape("65536x65536"), "error: coord_torus_shape:1: expected a shape of at "
                                            "most 4294967295 positions, found \"65536x65536\"");
}
END_TEST

START_TEST(periodic_lists)
{
    ck_assert_text_eq(periodic("yes", {8, 4, 4}), "111");
    ck_assert_text_eq(periodic("NO", {8, 4, 4}), "000");
    ck_assert_text_eq(periodic("1,0,1", {8, 4, 4}), "101");
    ck_assert_text_eq(periodic(" 0,1 ", {8, 4}), "01");
    ck_assert_text_eq(periodic("1", {8}), "1");
}
END_TEST

START_TEST(periodic_errors)
{
    ck_assert_text_eq(periodic("maybe", {8, 4}),
                      "error: coord_torus_periodic:1: expected yes, no, or 1 or 0 for dimension 1 "
                      "of 2 (shape 8x4), found \"maybe\"");
    ck_assert_text_eq(periodic("1,2", {8, 4}),
                      "error: coord_torus_periodic:3: expected 1 or 0 for dimension 2 of 2 (shape "
                      "8x4), found \"2\"");
    ck_assert_text_eq(periodic("1", {8, 4}),
                      "error: coord_torus_periodic:2: expected \",\" and 1 or 0 for dimension 2 "
                      "of 2 (shape 8x4), found end of text");
    ck_assert_text_eq(periodic("1,0,1", {8, 4}),
                      "error: coord_torus_periodic:4: expected the end after 2 dimensions (shape "
                      "8x4), found \",1\"");
    ck_assert_text_eq(periodic("1,", {8, 4}),
                      "error: coord_torus_periodic:3: expected 1 or 0 for dimension 2 of 2 (shape "
                      "8x4), found end of text");
}
END_TEST

START_TEST(row_major_dimension_0_fastest)
{
    const std::vector<std::uint32_t> dims{8, 4};
    std::vector<std::uint32_t> at;
    position_of(0, dims, at);
    ck_assert_text_eq(joined(at), "0,0");
    position_of(1, dims, at);
    ck_assert_text_eq(joined(at), "1,0");
    position_of(8, dims, at);
    ck_assert_text_eq(joined(at), "0,1");
    position_of(31, dims, at);
    ck_assert_text_eq(joined(at), "7,3");
    for (std::uint64_t i = 0; i < 32; ++i) {
        position_of(i, dims, at);
        ck_assert_uint_eq(ordinal_of(at, dims), i);
    }
    ck_assert_uint_eq(position_count(std::vector<std::uint32_t>{8, 4, 4, 4}), 512);
}
END_TEST

START_TEST(wrap_around_distance)
{
    const std::vector<std::uint32_t> dims{8, 4};
    const std::vector<std::uint32_t> origin{0, 0};
    const std::vector<std::uint32_t> last_x{7, 0};
    const std::vector<std::uint32_t> far{4, 2};
    const std::vector<std::uint32_t> corner{7, 3};
    ck_assert_uint_eq(distance(origin, last_x, dims, {true, true}), 1);
    ck_assert_uint_eq(distance(origin, last_x, dims, {false, false}), 7);
    ck_assert_uint_eq(distance(origin, far, dims, {true, true}), 6);
    ck_assert_uint_eq(distance(origin, corner, dims, {true, true}), 2);
    ck_assert_uint_eq(distance(origin, corner, dims, {true, false}), 4);
    ck_assert_uint_eq(distance(origin, corner, dims, {false, true}), 8);
    ck_assert_uint_eq(distance(corner, corner, dims, {true, true}), 0);
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("coord_torus_shape");
    TCase *parse = tcase_create("parse");
    tcase_add_test(parse, shapes);
    tcase_add_test(parse, shape_errors);
    tcase_add_test(parse, periodic_lists);
    tcase_add_test(parse, periodic_errors);
    suite_add_tcase(suite, parse);
    TCase *math = tcase_create("arithmetic");
    tcase_add_test(math, row_major_dimension_0_fastest);
    tcase_add_test(math, wrap_around_distance);
    suite_add_tcase(suite, math);
    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// coord_torus's arithmetic and its parameters' syntax: a shape "8x4x4x4",
// which dimensions wrap ("yes", "no" or "1,0,1,1"), positions in row-major
// order with dimension 0 fastest, and the wrap-around Manhattan distance.
#ifndef MERIDIAN_COMPONENTS_COORD_TORUS_SHAPE_HPP
#define MERIDIAN_COMPONENTS_COORD_TORUS_SHAPE_HPP

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian::coord_torus
{

// Sizes 1..4294967295 joined by 'x' (or 'X'), at most 4294967295 positions in
// all; spaces around the text are ignored.  Errors (BAD_PARAM):
// "WHERE:COL: expected ..., found ...".
Result<std::vector<std::uint32_t>> parse_shape(std::string_view text, std::string_view where);

// "yes" (every dimension wraps), "no" (none: a mesh), or one 1/0 per
// dimension separated by commas.  Errors as for parse_shape.
Result<std::vector<bool>>
parse_periodic(std::string_view text, std::span<const std::uint32_t> shape, std::string_view where);

std::string format_shape(std::span<const std::uint32_t> shape); // "8x4x4x4"

// Positions in the shape (the product of its sizes, saturating at UINT64_MAX).
std::uint64_t position_count(std::span<const std::uint32_t> shape);

// The ordinal-th position, dimension 0 fastest: in 8x4, 0 -> (0,0), 1 -> (1,0),
// 8 -> (0,1).  out gets shape.size() values.
void position_of(std::uint64_t ordinal, std::span<const std::uint32_t> shape,
                 std::vector<std::uint32_t> &out);
// The inverse, for a position inside the shape.
std::uint64_t ordinal_of(std::span<const std::uint32_t> position,
                         std::span<const std::uint32_t> shape);

// Hops between two positions: per dimension |a-b|, or min(d, n-d) where it
// wraps around; summed.  periodic may be shorter than the shape (missing
// dimensions wrap).
std::uint64_t distance(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                       std::span<const std::uint32_t> shape, const std::vector<bool> &periodic);

} // namespace meridian::coord_torus

#endif

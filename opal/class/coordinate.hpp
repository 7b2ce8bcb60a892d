// SPDX-License-Identifier: BSD-3-Clause
// A network coordinate for C++: the value type behind meridian_coord_t.
#ifndef MERIDIAN_CLASS_COORDINATE_HPP
#define MERIDIAN_CLASS_COORDINATE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/class/coordinate.h>

namespace meridian
{

struct Coordinate {
    std::string fabric;
    std::string plane;
    meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW;
    std::vector<std::uint32_t> coord;

    bool operator==(const Coordinate &) const = default;
};

// "logical", "physical", "undef", or the number for any other view.
std::string view_name(meridian_coord_view_t view);
// The inverse of view_name (names in any case, or a number 0-255).
bool parse_view(std::string_view text, meridian_coord_view_t *view);
// "(1,0,2)"
std::string format_coord(const std::vector<std::uint32_t> &coord);

// Fill a constructed C coordinate (its old contents are freed).  Returns
// MERIDIAN_SUCCESS or MERIDIAN_ERR_OUT_OF_RESOURCE.
int to_c(const Coordinate &from, meridian_coord_t *to);
Coordinate from_c(const meridian_coord_t &from);

} // namespace meridian

#endif

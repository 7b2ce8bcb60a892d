// SPDX-License-Identifier: BSD-3-Clause
// Network coordinates: the C struct's life cycle (malloc/free, so that C
// callers may free what we hand out the PMIx way) and the C++ value type.
#include <meridian/opal/class/coordinate.h>

#include <cstdlib>
#include <cstring>

#include <meridian/opal/class/coordinate.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace
{

// strdup that keeps NULL as NULL; *ok turns false when memory runs out.
char *copy_text(const char *text, bool *ok)
{
    if (text == nullptr) {
        return nullptr;
    }
    const std::size_t size = std::strlen(text) + 1;
    auto *copy = static_cast<char *>(std::malloc(size));
    if (copy == nullptr) {
        *ok = false;
        return nullptr;
    }
    std::memcpy(copy, text, size);
    return copy;
}

char *copy_text(const std::string &text, bool *ok)
{
    auto *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy == nullptr) {
        *ok = false;
        return nullptr;
    }
    std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

uint32_t *copy_values(const uint32_t *values, size_t dims, bool *ok)
{
    if (dims == 0 || values == nullptr) {
        return nullptr;
    }
    auto *copy = static_cast<uint32_t *>(std::malloc(dims * sizeof(uint32_t)));
    if (copy == nullptr) {
        *ok = false;
        return nullptr;
    }
    std::memcpy(copy, values, dims * sizeof(uint32_t));
    return copy;
}

} // namespace

extern "C" {

void meridian_coord_construct(meridian_coord_t *coord)
{
    if (coord == nullptr) {
        return;
    }
    coord->fabric = nullptr;
    coord->plane = nullptr;
    coord->view = MERIDIAN_COORD_VIEW_UNDEF;
    coord->coord = nullptr;
    coord->dims = 0;
}

void meridian_coord_destruct(meridian_coord_t *coord)
{
    if (coord == nullptr) {
        return;
    }
    std::free(coord->fabric);
    std::free(coord->plane);
    std::free(coord->coord);
    meridian_coord_construct(coord);
}

meridian_coord_t *meridian_coord_create(size_t n)
{
    if (n == 0 || n > SIZE_MAX / sizeof(meridian_coord_t)) {
        return nullptr;
    }
    auto *coords = static_cast<meridian_coord_t *>(std::malloc(n * sizeof(meridian_coord_t)));
    if (coords == nullptr) {
        return nullptr;
    }
    for (size_t i = 0; i < n; ++i) {
        meridian_coord_construct(&coords[i]);
    }
    return coords;
}

void meridian_coord_free(meridian_coord_t *coords, size_t n)
{
    if (coords == nullptr) {
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        meridian_coord_destruct(&coords[i]);
    }
    std::free(coords);
}

int meridian_coord_copy(meridian_coord_t *dst, const meridian_coord_t *src)
{
    if (dst == nullptr || src == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    if (dst == src) {
        return MERIDIAN_SUCCESS;
    }
    // Build the copy aside so that src may alias parts of dst's old contents.
    bool ok = true;
    meridian_coord_t copy;
    copy.fabric = copy_text(src->fabric, &ok);
    copy.plane = copy_text(src->plane, &ok);
    copy.view = src->view;
    copy.coord = copy_values(src->coord, src->dims, &ok);
    copy.dims = copy.coord != nullptr ? src->dims : 0;
    meridian_coord_destruct(dst);
    if (!ok) {
        meridian_coord_destruct(&copy);
        return MERIDIAN_ERR_OUT_OF_RESOURCE;
    }
    *dst = copy;
    return MERIDIAN_SUCCESS;
}

} // extern "C"

namespace meridian
{

std::string view_name(meridian_coord_view_t view)
{
    switch (view) {
    case MERIDIAN_COORD_VIEW_UNDEF:
        return "undef";
    case MERIDIAN_COORD_LOGICAL_VIEW:
        return "logical";
    case MERIDIAN_COORD_PHYSICAL_VIEW:
        return "physical";
    default:
        return std::to_string(static_cast<unsigned>(view));
    }
}

bool parse_view(std::string_view text, meridian_coord_view_t *view)
{
    meridian_coord_view_t value = 0;
    if (util::iequals(text, "undef")) {
        value = MERIDIAN_COORD_VIEW_UNDEF;
    } else if (util::iequals(text, "logical")) {
        value = MERIDIAN_COORD_LOGICAL_VIEW;
    } else if (util::iequals(text, "physical")) {
        value = MERIDIAN_COORD_PHYSICAL_VIEW;
    } else {
        const auto number = text.size() <= 3 ? util::parse_uint(text, 0, 255) : std::nullopt;
        if (!number) {
            return false;
        }
        value = static_cast<meridian_coord_view_t>(*number);
    }
    if (view != nullptr) {
        *view = value;
    }
    return true;
}

std::string format_coord(const std::vector<std::uint32_t> &coord)
{
    std::string text = "(";
    for (std::size_t i = 0; i < coord.size(); ++i) {
        if (i > 0) {
            text += ',';
        }
        text += std::to_string(coord[i]);
    }
    text += ')';
    return text;
}

int to_c(const Coordinate &from, meridian_coord_t *to)
{
    if (to == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    bool ok = true;
    meridian_coord_t copy;
    copy.fabric = copy_text(from.fabric, &ok);
    copy.plane = copy_text(from.plane, &ok);
    copy.view = from.view;
    copy.coord = copy_values(from.coord.data(), from.coord.size(), &ok);
    copy.dims = copy.coord != nullptr ? from.coord.size() : 0;
    meridian_coord_destruct(to);
    if (!ok) {
        meridian_coord_destruct(&copy);
        return MERIDIAN_ERR_OUT_OF_RESOURCE;
    }
    *to = copy;
    return MERIDIAN_SUCCESS;
}

Coordinate from_c(const meridian_coord_t &from)
{
    Coordinate to;
    to.fabric = from.fabric != nullptr ? from.fabric : "";
    to.plane = from.plane != nullptr ? from.plane : "";
    to.view = from.view;
    if (from.coord != nullptr) {
        to.coord.assign(from.coord, from.coord + from.dims);
    }
    return to;
}

} // namespace meridian

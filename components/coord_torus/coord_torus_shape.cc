// SPDX-License-Identifier: BSD-3-Clause
// coord_torus's parameter parsers and position arithmetic.
#include "components/coord_torus/coord_torus_shape.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::coord_torus
{

namespace
{

// The text with its surrounding blanks off, and the column its first
// character had in the original (1-based).
struct Trimmed {
    std::string_view text;
    size_t first_column = 1;
};

Trimmed trimmed(std::string_view text)
{
    size_t begin = 0;
    while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin])) != 0) {
        ++begin;
    }
    size_t end = text.size();
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])) != 0) {
        --end;
    }
    return Trimmed{text.substr(begin, end - begin), begin + 1};
}

Error at(std::string_view where, size_t column, std::string_view expected, std::string found)
{
    return make_error(MERIDIAN_ERR_BAD_PARAM, std::string(where) + ":" + std::to_string(column) +
                                                  ": expected " + std::string(expected) +
                                                  ", found " + found);
}

// What was found from pos up to (not including) a stop character, quoted;
// "end of text" when nothing is left.
std::string found_from(std::string_view text, size_t pos, std::string_view stops)
{
    if (pos >= text.size()) {
        return "end of text";
    }
    size_t end = pos + 1;
    while (end < text.size() && stops.find(text[end]) == std::string_view::npos) {
        ++end;
    }
    return util::quoted(text.substr(pos, end - pos));
}

} // namespace

Result<std::vector<std::uint32_t>> parse_shape(std::string_view original, std::string_view where)
{
    const Trimmed t = trimmed(original);
    const std::string_view text = t.text;
    constexpr std::string_view size_expected = "a dimension size (a whole number from 1)";
    std::vector<std::uint32_t> shape;
    size_t pos = 0;
    while (true) {
        const size_t start = pos;
        std::uint64_t value = 0;
        bool too_big = false;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0) {
            value = value * 10 + static_cast<std::uint64_t>(text[pos] - '0');
            too_big = too_big || value > std::numeric_limits<std::uint32_t>::max();
            if (too_big) {
                value = 0; // keep scanning the digits without overflowing
            }
            ++pos;
        }
        const size_t column = t.first_column + start;
        if (pos == start) {
            return at(where, column, size_expected, found_from(text, start, "xX"));
        }
        const std::string digits(text.substr(start, pos - start));
        if (too_big) {
            return at(where, column, "a dimension size of at most 4294967295",
                      util::quoted(digits));
        }
        if (value == 0) {
            return at(where, column, "a dimension size of at least 1", util::quoted(digits));
        }
        shape.push_back(static_cast<std::uint32_t>(value));
        if (pos == text.size()) {
            break;
        }
        if (text[pos] != 'x' && text[pos] != 'X') {
            return at(where, t.first_column + pos, "\"x\" or the end of the shape",
                      found_from(text, pos, "xX"));
        }
        ++pos;
    }
    if (position_count(shape) > std::numeric_limits<std::uint32_t>::max()) {
        return at(where, t.first_column, "a shape of at most 4294967295 positions",
                  util::quoted(text));
    }
    return shape;
}

Result<std::vector<bool>> parse_periodic(std::string_view original,
                                         std::span<const std::uint32_t> shape,
                                         std::string_view where)
{
    const Trimmed t = trimmed(original);
    const std::string_view text = t.text;
    if (util::iequals(text, "yes")) {
        return std::vector<bool>(shape.size(), true);
    }
    if (util::iequals(text, "no")) {
        return std::vector<bool>(shape.size(), false);
    }
    const std::string of =
        " of " + std::to_string(shape.size()) + " (shape " + format_shape(shape) + ")";
    std::vector<bool> periodic;
    size_t pos = 0;
    while (true) {
        const size_t column = t.first_column + pos;
        const std::string expected =
            "yes, no, or 1 or 0 for dimension " + std::to_string(periodic.size() + 1) + of;
        if (pos < text.size() && (text[pos] == '1' || text[pos] == '0') &&
            (pos + 1 == text.size() || text[pos + 1] == ',')) {
            periodic.push_back(text[pos] == '1');
            ++pos;
        } else {
            return at(where, column,
                      periodic.empty()
                          ? expected
                          : "1 or 0 for dimension " + std::to_string(periodic.size() + 1) + of,
                      found_from(text, pos, ","));
        }
        if (pos == text.size()) {
            break;
        }
        // text[pos] is ','
        if (periodic.size() == shape.size()) {
            return at(where, t.first_column + pos,
                      "the end after " + std::to_string(shape.size()) + " dimensions (shape " +
                          format_shape(shape) + ")",
                      util::quoted(text.substr(pos)));
        }
        ++pos;
    }
    if (periodic.size() < shape.size()) {
        return at(where, t.first_column + text.size(),
                  "\",\" and 1 or 0 for dimension " + std::to_string(periodic.size() + 1) + of,
                  "end of text");
    }
    return periodic;
}

std::string format_shape(std::span<const std::uint32_t> shape)
{
    std::string text;
    for (size_t i = 0; i < shape.size(); ++i) {
        text += (i > 0 ? "x" : "") + std::to_string(shape[i]);
    }
    return text;
}

std::uint64_t position_count(std::span<const std::uint32_t> shape)
{
    std::uint64_t count = 1;
    for (const auto size : shape) {
        if (size != 0 && count > std::numeric_limits<std::uint64_t>::max() / size) {
            return std::numeric_limits<std::uint64_t>::max();
        }
        count *= size;
    }
    return count;
}

void position_of(std::uint64_t ordinal, std::span<const std::uint32_t> shape,
                 std::vector<std::uint32_t> &out)
{
    out.resize(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
        out[d] = static_cast<std::uint32_t>(ordinal % shape[d]);
        ordinal /= shape[d];
    }
}

std::uint64_t ordinal_of(std::span<const std::uint32_t> position,
                         std::span<const std::uint32_t> shape)
{
    std::uint64_t ordinal = 0;
    for (size_t d = shape.size(); d-- > 0;) {
        ordinal = ordinal * shape[d] + position[d];
    }
    return ordinal;
}

std::uint64_t distance(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                       std::span<const std::uint32_t> shape, const std::vector<bool> &periodic)
{
    std::uint64_t hops = 0;
    const size_t dims = std::min({a.size(), b.size(), shape.size()});
    for (size_t d = 0; d < dims; ++d) {
        const std::uint64_t diff = a[d] > b[d] ? a[d] - b[d] : b[d] - a[d];
        const bool wraps = d >= periodic.size() || periodic[d];
        hops += wraps ? std::min<std::uint64_t>(diff, shape[d] - diff) : diff;
    }
    return hops;
}

} // namespace meridian::coord_torus

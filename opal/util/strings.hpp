// SPDX-License-Identifier: BSD-3-Clause
// Small string helpers shared by every parser in the library.
#ifndef MERIDIAN_UTIL_STRINGS_HPP
#define MERIDIAN_UTIL_STRINGS_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <vector>

namespace meridian::util
{

// The white space of the C locale: space, \t, \n, \v, \f, \r.
bool is_space(char c);

std::string_view trim(std::string_view text);

// A piece of a text and where it starts in the whole (parsers report the
// column of what they did not understand).
struct Piece {
    std::string_view text;
    std::size_t offset = 0;
};
// The piece without its leading and trailing white space, its offset moved
// past what was cut.
Piece trim(Piece piece);
// Split on every occurrence of separator; empty pieces are kept.
std::vector<Piece> split_pieces(Piece whole, char separator);

// What a parser found where it expected something, for its message: the
// first character at or after offset that is not white space, as 'x', or
// "end of text".
std::string found_at(std::string_view text, std::size_t offset);
// A piece as found: quoted ("abc"), or when empty what stands where it is.
std::string found(std::string_view text, Piece piece);

// A whole number in [low, high] written with digits only (at most 10).
std::optional<std::uint32_t> parse_uint(std::string_view text, std::uint64_t low,
                                        std::uint64_t high);

// Split on every occurrence of separator; empty fields are kept.
std::vector<std::string> split(std::string_view text, char separator);

std::string join(const std::vector<std::string> &parts, std::string_view separator);

// Whole numbers in decimal, joined by separator: "1 2 3", "4x4x8".
template <std::ranges::input_range Numbers>
requires std::integral<std::ranges::range_value_t<Numbers>> std::string
join_numbers(const Numbers &numbers, std::string_view separator)
{
    std::string text;
    for (const auto number : numbers) {
        if (!text.empty()) {
            text += separator;
        }
        text += std::to_string(number);
    }
    return text;
}

bool iequals(std::string_view a, std::string_view b);

// ASCII lower case (names, not prose).
std::string to_lower(std::string_view text);

bool starts_with(std::string_view text, std::string_view prefix);

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to word, if it is close enough to be a plausible
// misspelling (at most a third of the word's length, and at least 2, edits).
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string> &candidates);

// The text without a leading UTF-8 byte order mark (some editors write one).
std::string_view skip_utf8_bom(std::string_view text);
// The length of the well-formed UTF-8 sequence at text[at] (at < size), or 0
// for none: a stray continuation byte, an overlong form, a surrogate, a code
// point beyond U+10FFFF, or a sequence cut short.
std::size_t utf8_length(std::string_view text, std::size_t at);

// Quote a value for a message: "value" with control characters, bytes that
// are not UTF-8 and the invisible byte order mark escaped (\x01, \xff, \ufeff).
std::string quoted(std::string_view text);

} // namespace meridian::util

#endif

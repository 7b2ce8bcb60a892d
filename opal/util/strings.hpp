// Small string helpers shared by every parser in the library.
#ifndef MERIDIAN_UTIL_STRINGS_HPP
#define MERIDIAN_UTIL_STRINGS_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meridian::util {

std::string_view trim(std::string_view text);

// Split on every occurrence of separator; empty fields are kept.
std::vector<std::string> split(std::string_view text, char separator);

std::string join(const std::vector<std::string> &parts, std::string_view separator);

bool iequals(std::string_view a, std::string_view b);

bool starts_with(std::string_view text, std::string_view prefix);

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to word, if it is close enough to be a plausible
// misspelling (at most a third of the word's length, and at least 2, edits).
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string> &candidates);

// Quote a value for a message: "value" with control characters escaped.
std::string quoted(std::string_view text);

}  // namespace meridian::util

#endif

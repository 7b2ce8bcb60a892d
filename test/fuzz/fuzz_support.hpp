// SPDX-License-Identifier: BSD-3-Clause
// What the fuzz targets share: how a target stops when the code under test
// breaks one of its promises, a small reader for numbers in the input, and
// what a refusal's text must be.
#ifndef MERIDIAN_TEST_FUZZ_SUPPORT_HPP
#define MERIDIAN_TEST_FUZZ_SUPPORT_HPP

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <meridian/opal/util/strings.hpp>

namespace meridian::fuzz
{

// Print "TARGET: broken promise: PROMISE" and abort, so that libFuzzer keeps
// the input (and the corpus run fails).
[[noreturn]] inline void broken(std::string_view target, const std::string &promise)
{
    std::fprintf(stderr, "%.*s: broken promise: %s\n", static_cast<int>(target.size()),
                 target.data(), promise.c_str());
    std::abort();
}

// Reads a decimal number of at most 18 digits at text[pos...], advancing
// pos; 0 when there is none.
inline std::size_t read_number(std::string_view text, std::size_t &pos)
{
    std::size_t value = 0;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && pos - start < 18) {
        value = value * 10 + static_cast<std::size_t>(text[pos] - '0');
        ++pos;
    }
    return pos == start ? 0 : value;
}

// Non-empty, printable ASCII or well-formed UTF-8, and no control character
// (so no line break).
inline bool one_printable_line(std::string_view text)
{
    if (text.empty()) {
        return false;
    }
    for (std::size_t at = 0; at < text.size();) {
        const auto c = static_cast<unsigned char>(text[at]);
        if (c < 0x20 || c == 0x7f) {
            return false;
        }
        if (c < 0x80) {
            ++at;
        } else if (const std::size_t length = meridian::util::utf8_length(text, at); length > 0) {
            at += length;
        } else {
            return false;
        }
    }
    return true;
}

} // namespace meridian::fuzz

#endif

// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/util/strings.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace meridian::util
{

bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && is_space(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && is_space(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

Piece trim(Piece piece)
{
    const std::string_view kept = trim(piece.text);
    return {kept, piece.offset + static_cast<std::size_t>(kept.data() - piece.text.data())};
}

std::vector<Piece> split_pieces(Piece whole, char separator)
{
    std::vector<Piece> pieces;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= whole.text.size(); ++i) {
        if (i == whole.text.size() || whole.text[i] == separator) {
            pieces.push_back({whole.text.substr(start, i - start), whole.offset + start});
            start = i + 1;
        }
    }
    return pieces;
}

std::string found_at(std::string_view text, std::size_t offset)
{
    while (offset < text.size() && is_space(text[offset])) {
        ++offset;
    }
    return offset >= text.size() ? "end of text" : "'" + std::string(1, text[offset]) + "'";
}

std::string found(std::string_view text, Piece piece)
{
    return piece.text.empty() ? found_at(text, piece.offset) : quoted(piece.text);
}

std::optional<std::uint32_t> parse_uint(std::string_view text, std::uint64_t low,
                                        std::uint64_t high)
{
    if (text.empty() || text.size() > 10) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (value < low || value > high) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(value);
}

std::vector<std::string> split(std::string_view text, char separator)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(separator, start);
        if (end == std::string_view::npos) {
            parts.emplace_back(text.substr(start));
            return parts;
        }
        parts.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
}

std::string join(const std::vector<std::string> &parts, std::string_view separator)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i != 0) {
            out += separator;
        }
        out += parts[i];
    }
    return out;
}

std::string to_lower(std::string_view text)
{
    std::string out(text);
    for (char &c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

bool starts_with(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

std::size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string> &candidates)
{
    const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (const auto &candidate : candidates) {
        const std::size_t d = edit_distance(word, candidate);
        if (d < best_distance || (d == best_distance && best && candidate < *best)) {
            best_distance = d;
            best = candidate;
        }
    }
    return best_distance <= limit ? best : std::nullopt;
}

std::string_view skip_utf8_bom(std::string_view text)
{
    constexpr std::string_view bom = "\xef\xbb\xbf";
    return text.substr(0, bom.size()) == bom ? text.substr(bom.size()) : text;
}

std::size_t utf8_length(std::string_view text, std::size_t at)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    std::size_t length = 0;
    unsigned int code = 0;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
        code = lead & 0x1fu;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        code = lead & 0x0fu;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        code = lead & 0x07u;
    } else {
        return 0;
    }
    if (at + length > text.size()) {
        return 0;
    }
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(at + i) & 0xc0u) != 0x80u) {
            return 0;
        }
        code = (code << 6) | (byte(at + i) & 0x3fu);
    }
    const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
    const bool surrogate = code >= 0xd800 && code <= 0xdfff;
    return overlong || surrogate || code > 0x10ffff ? 0 : length;
}

std::string quoted(std::string_view text)
{
    std::string out = "\"";
    char buf[16];
    for (std::size_t at = 0; at < text.size();) {
        const char c = text[at];
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
            ++at;
        } else if (u < 0x20 || u == 0x7f) {
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
            ++at;
        } else if (u < 0x80) {
            out += c;
            ++at;
        } else if (const std::size_t length = utf8_length(text, at); length == 0) {
            // Not UTF-8: the byte, visibly.
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
            ++at;
        } else if (text.substr(at, length) == "\xef\xbb\xbf") {
            out += "\\ufeff"; // a byte order mark, invisible in a terminal
            at += length;
        } else {
            out += text.substr(at, length);
            at += length;
        }
    }
    out += '"';
    return out;
}

} // namespace meridian::util

// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the MCA value parser (parse_value and format_value,
// opal/mca/base/param_value.*).  The first byte chooses the rules as a
// registration would make them: the type (its low three bits: bool, int,
// unsigned, size, double, string, enum, list), a lower and an upper bound
// for the number types (bits 3 and 4; each bound is one more byte, an index
// into a table of bounds or, past the table, the next 8 bytes as a double),
// and which names an enum or an int has (bit 5).  The rest is the text.
// Promises checked besides "nothing crashes":
//   - an error is one line, "expected " and the rules' expected_form;
//   - a value has the type's alternative; an accepted number lies within
//     its type's range (int, unsigned, size_t, a finite double) and within
//     the bounds, compared exactly (an int's name may stand for a value
//     outside them: "an integer between 0 and 100, or one of ..."); an enum
//     is one of its values; a list has no empty items, none with ',' or
//     blanks at either end; a string is the text as given;
//   - format_value's text of a value parses back to the same value.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: opal/mca/base/param_value.cc opal/util/strings.cc
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_support.hpp"
#include <meridian/opal/mca/base/param_value.hpp>

namespace
{

using meridian::mca::EnumValue;
using meridian::mca::ParamType;
using meridian::mca::ParamValue;
using meridian::mca::ValueRules;

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("param_value_fuzz", promise);
}

constexpr ParamType types[] = {
    ParamType::boolean, ParamType::integer, ParamType::unsigned_integer, ParamType::size,
    ParamType::real,    ParamType::string,  ParamType::enumeration,      ParamType::list,
};

// Bounds registrations use, the types' edges, and the edges of what a
// double holds exactly.
constexpr double bound_table[] = {
    0,
    1,
    -1,
    100,
    64,
    0.5,
    -2.5,
    1 << 30,
    2147483647.0,
    -2147483648.0,
    4294967295.0,
    9007199254740992.0,     // 2^53
    9007199254740994.0,     // 2^53 + 2
    9223372036854775808.0,  // 2^63
    18446744073709551616.0, // 2^64
    1e30,
    -1e30,
    std::numeric_limits<double>::max(),
};

// The verbosity levels, which every framework's verbose parameter names.
const std::vector<EnumValue> verbose_names = {{0, "none"},  {1, "error"},  {10, "warn"},
                                              {20, "info"}, {40, "debug"}, {100, "max"}};
const std::vector<EnumValue> transports = {{0, "tcp"}, {1, "ucx"}, {2, "ofi"}};
const std::vector<EnumValue> odd_values = {{-1, "auto"}, {7, "seven"}, {2147483647, "Max"}};

// Takes the next byte of the input; nullopt at its end.
std::optional<std::uint8_t> next_byte(std::string_view &input)
{
    if (input.empty()) {
        return std::nullopt;
    }
    const auto byte = static_cast<std::uint8_t>(input.front());
    input.remove_prefix(1);
    return byte;
}

std::optional<double> read_bound(std::string_view &input)
{
    const auto choice = next_byte(input);
    if (!choice) {
        return std::nullopt;
    }
    if (*choice < std::size(bound_table)) {
        return bound_table[*choice];
    }
    double raw = 0;
    if (input.size() < sizeof raw) {
        return std::nullopt;
    }
    std::memcpy(&raw, input.data(), sizeof raw);
    input.remove_prefix(sizeof raw);
    return raw;
}

// Whether n <= b (below = false: n >= b), compared exactly: a double cannot
// hold every 64-bit integer, so neither side is converted to the other's
// type unless it fits exactly.
template <typename Integer> bool exactly(Integer n, double b, bool below)
{
    if (std::isnan(b)) {
        return false;
    }
    const double low = static_cast<double>(std::numeric_limits<Integer>::min()); // exact
    const double past = std::ldexp(1.0, std::numeric_limits<Integer>::digits);   // max + 1
    if (below) {
        return b >= past || (b >= low && n <= static_cast<Integer>(std::floor(b)));
    }
    return b <= low || (b < past && n >= static_cast<Integer>(std::ceil(b)));
}

template <typename Integer> bool in_bounds(Integer n, const ValueRules &rules)
{
    return (!rules.min || exactly(n, *rules.min, false)) &&
           (!rules.max || exactly(n, *rules.max, true));
}

bool same_value(const ParamValue &a, const ParamValue &b)
{
    // A double compares with ==: 0 and -0 are the same setting.
    return static_cast<const meridian::mca::ParamVariant &>(a) ==
           static_cast<const meridian::mca::ParamVariant &>(b);
}

bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// The name the text gives, if it is one of the rules' names.
const EnumValue *named(const ValueRules &rules, std::string_view text)
{
    while (!text.empty() && blank(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && blank(text.back())) {
        text.remove_suffix(1);
    }
    for (const EnumValue &e : rules.enumerators) {
        if (e.name.size() == text.size() &&
            std::equal(text.begin(), text.end(), e.name.begin(), [](char x, char y) {
                return std::tolower(static_cast<unsigned char>(x)) ==
                       std::tolower(static_cast<unsigned char>(y));
            })) {
            return &e;
        }
    }
    return nullptr;
}

// The promises on one parsed value; whether its text must read back.
bool check_value(const ValueRules &rules, std::string_view text, const ParamValue &value)
{
    const std::string type(meridian::mca::type_name(rules.type));
    switch (rules.type) {
    case ParamType::boolean:
        if (!std::holds_alternative<bool>(value)) {
            broken("a bool is a bool");
        }
        return true;
    case ParamType::integer: {
        if (!std::holds_alternative<long long>(value)) {
            broken("an int is a long long");
        }
        const long long n = std::get<long long>(value);
        if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
            broken("an int fits an int: " + std::to_string(n) + " from '" + std::string(text) +
                   "'");
        }
        const EnumValue *name = named(rules, text);
        if (name != nullptr && name->value == n && !in_bounds(n, rules)) {
            return false; // a name outside the bounds is taken by name only
        }
        if (!in_bounds(n, rules)) {
            broken("an int lies within the bounds: " + std::to_string(n));
        }
        return true;
    }
    case ParamType::unsigned_integer:
    case ParamType::size: {
        if (!std::holds_alternative<unsigned long long>(value)) {
            broken("an accepted " + type + " is an unsigned long long");
        }
        const unsigned long long n = std::get<unsigned long long>(value);
        if (rules.type == ParamType::unsigned_integer && n > std::numeric_limits<unsigned>::max()) {
            broken("an unsigned fits an unsigned: " + std::to_string(n) + " from '" +
                   std::string(text) + "'");
        }
        if constexpr (sizeof(std::size_t) < sizeof(unsigned long long)) {
            if (n > std::numeric_limits<std::size_t>::max()) {
                broken("a size fits a size_t: " + std::to_string(n));
            }
        }
        if (!in_bounds(n, rules)) {
            broken("an accepted " + type + " lies within the bounds: " + std::to_string(n));
        }
        return true;
    }
    case ParamType::real: {
        if (!std::holds_alternative<double>(value)) {
            broken("a double is a double");
        }
        const double d = std::get<double>(value);
        if (!std::isfinite(d) || (rules.min && !(d >= *rules.min)) ||
            (rules.max && !(d <= *rules.max))) {
            broken("a double is finite and within the bounds");
        }
        return true;
    }
    case ParamType::string:
        if (!std::holds_alternative<std::string>(value) || std::get<std::string>(value) != text) {
            broken("a string is the text as given");
        }
        return true;
    case ParamType::enumeration: {
        if (!std::holds_alternative<long long>(value)) {
            broken("an enum is a long long");
        }
        const long long n = std::get<long long>(value);
        bool listed = false;
        for (const EnumValue &e : rules.enumerators) {
            listed = listed || e.value == n;
        }
        if (!listed) {
            broken("an enum is one of its values: " + std::to_string(n));
        }
        return true;
    }
    case ParamType::list:
        if (!std::holds_alternative<std::vector<std::string>>(value)) {
            broken("a list is a vector of strings");
        }
        for (const std::string &item : std::get<std::vector<std::string>>(value)) {
            if (item.empty() || item.find(',') != std::string::npos || blank(item.front()) ||
                blank(item.back())) {
                broken("a list's items are not empty, hold no ',' and no blanks at either end: '" +
                       item + "'");
            }
        }
        return true;
    }
    broken("a value of a known type");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    std::string_view input(reinterpret_cast<const char *>(data), size);
    const auto header = next_byte(input);
    if (!header) {
        return 0;
    }
    ValueRules rules;
    rules.type = types[*header & 7];
    const bool number = rules.type == ParamType::integer ||
                        rules.type == ParamType::unsigned_integer ||
                        rules.type == ParamType::size || rules.type == ParamType::real;
    // Bounds go with the number types only (ParamRegistry::set_bounds).
    if (number && (*header & 0x08) != 0) {
        rules.min = read_bound(input);
    }
    if (number && (*header & 0x10) != 0) {
        rules.max = read_bound(input);
    }
    if (rules.type == ParamType::enumeration) {
        rules.enumerators = (*header & 0x20) != 0 ? odd_values : transports;
    } else if (rules.type == ParamType::integer && (*header & 0x20) != 0) {
        rules.enumerators = verbose_names;
    }
    const std::string_view text = input;

    const auto parsed = meridian::mca::parse_value(rules, text);
    if (!parsed) {
        const std::string &message = parsed.error().message;
        if (message != "expected " + meridian::mca::expected_form(rules) ||
            message.find('\n') != std::string::npos) {
            broken("the error is one line, 'expected ' and the expected form: " + message);
        }
        return 0;
    }
    if (!check_value(rules, text, *parsed)) {
        return 0;
    }
    const std::string written = meridian::mca::format_value(rules, *parsed);
    const auto again = meridian::mca::parse_value(rules, written);
    if (!again) {
        broken("format_value's text parses: '" + written + "': " + again.error().message);
    }
    if (!same_value(*parsed, *again)) {
        broken("format_value's text reads back the same value: '" + written + "'");
    }
    return 0;
}

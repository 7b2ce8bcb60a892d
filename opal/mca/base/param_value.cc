// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/mca/base/param_value.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>

#include <meridian/opal/util/strings.hpp>

namespace meridian::mca
{

namespace
{

std::string number_text(double v)
{
    // Integral bounds print as integers, not as 2.14748e+09.
    if (std::nearbyint(v) == v && std::fabs(v) < 9.0e18) {
        return std::to_string(static_cast<long long>(v));
    }
    // 2^64, the double nearest the largest unsigned and size_t: the bound
    // of those types.  Larger values (a real parameter's) print as reals.
    constexpr double two_to_64 = 18446744073709551616.0;
    if (v == two_to_64) {
        return std::to_string(std::numeric_limits<unsigned long long>::max());
    }
    if (v >= 9.0e18 && v < two_to_64 && std::nearbyint(v) == v) {
        return std::to_string(static_cast<unsigned long long>(v));
    }
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
}

std::string enumerator_list(const std::vector<EnumValue> &enumerators)
{
    std::vector<std::string> names;
    for (const auto &e : enumerators) {
        names.push_back(e.name + " (" + std::to_string(e.value) + ")");
    }
    return util::join(names, ", ");
}

// Integer bounds implied by the storage type, narrowed by the rules.
std::pair<double, double> limits(const ValueRules &rules)
{
    double lo = 0;
    double hi = 0;
    switch (rules.type) {
    case ParamType::integer:
        lo = std::numeric_limits<int>::min();
        hi = std::numeric_limits<int>::max();
        break;
    case ParamType::unsigned_integer:
        hi = std::numeric_limits<unsigned>::max();
        break;
    case ParamType::size:
        hi = static_cast<double>(std::numeric_limits<std::size_t>::max());
        break;
    case ParamType::real:
        lo = -std::numeric_limits<double>::max();
        hi = std::numeric_limits<double>::max();
        break;
    default:
        break;
    }
    // Bounds narrow the type's range, never widen it (an int stays an int).
    // Written so that a NaN bound is kept (and refuses every value), where
    // std::max would drop it.
    if (rules.min && !(*rules.min <= lo)) {
        lo = *rules.min;
    }
    if (rules.max && !(*rules.max >= hi)) {
        hi = *rules.max;
    }
    return {lo, hi};
}

Error expected(const ValueRules &rules)
{
    return make_error(MERIDIAN_ERR_BAD_PARAM, "expected " + expected_form(rules));
}

// Decimal, or hexadecimal after 0x; an optional leading minus for signed.
std::optional<long long> parse_integer(std::string_view text, bool allow_negative)
{
    bool negative = false;
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        negative = text.front() == '-';
        if (negative && !allow_negative) {
            return std::nullopt;
        }
        text.remove_prefix(1);
    }
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    }
    if (text.empty() || text.front() == '-' || text.front() == '+') {
        return std::nullopt;
    }
    unsigned long long magnitude = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
    if (ec != std::errc{} || end != text.data() + text.size() ||
        magnitude > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
        return std::nullopt;
    }
    const auto value = static_cast<long long>(magnitude);
    return negative ? -value : value;
}

std::optional<unsigned long long> parse_size(std::string_view text)
{
    unsigned long long multiplier = 1;
    if (!text.empty() && std::isalpha(static_cast<unsigned char>(text.back()))) {
        switch (std::tolower(static_cast<unsigned char>(text.back()))) {
        case 'k':
            multiplier = 1ULL << 10;
            break;
        case 'm':
            multiplier = 1ULL << 20;
            break;
        case 'g':
            multiplier = 1ULL << 30;
            break;
        case 't':
            multiplier = 1ULL << 40;
            break;
        default:
            return std::nullopt;
        }
        text.remove_suffix(1);
    }
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) {
        return std::nullopt;
    }
    unsigned long long number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number, 10);
    if (ec != std::errc{} || end != text.data() + text.size() ||
        number > std::numeric_limits<unsigned long long>::max() / multiplier) {
        return std::nullopt;
    }
    return number * multiplier;
}

const EnumValue *find_enumerator(const std::vector<EnumValue> &enumerators, std::string_view text)
{
    for (const auto &e : enumerators) {
        if (util::iequals(e.name, text)) {
            return &e;
        }
    }
    return nullptr;
}

} // namespace

std::string_view type_name(ParamType type)
{
    switch (type) {
    case ParamType::boolean:
        return "bool";
    case ParamType::integer:
        return "int";
    case ParamType::unsigned_integer:
        return "unsigned";
    case ParamType::size:
        return "size";
    case ParamType::real:
        return "double";
    case ParamType::string:
        return "string";
    case ParamType::enumeration:
        return "enum";
    case ParamType::list:
        return "list";
    }
    return "string";
}

std::string expected_form(const ValueRules &rules)
{
    const auto [lo, hi] = limits(rules);
    switch (rules.type) {
    case ParamType::boolean:
        return "a boolean (1/0, true/false, yes/no, on/off)";
    case ParamType::integer: {
        std::string form = "an integer between " + number_text(lo) + " and " + number_text(hi);
        if (!rules.enumerators.empty()) {
            form += ", or one of " + enumerator_list(rules.enumerators);
        }
        return form;
    }
    case ParamType::unsigned_integer:
        return "an unsigned integer between " + number_text(lo) + " and " + number_text(hi);
    case ParamType::size: {
        std::string form = "a size in bytes, with an optional k, m, g or t suffix";
        if (rules.min || rules.max) {
            form += ", between " + number_text(lo) + " and " + number_text(hi);
        }
        return form;
    }
    case ParamType::real:
        if (rules.min || rules.max) {
            return "a number between " + number_text(lo) + " and " + number_text(hi);
        }
        return "a number";
    case ParamType::string:
        return "a string";
    case ParamType::enumeration:
        return "one of " + enumerator_list(rules.enumerators);
    case ParamType::list:
        return "a comma-separated list with no empty items";
    }
    return "a value";
}

Result<ParamValue> parse_value(const ValueRules &rules, std::string_view raw)
{
    const std::string_view text = util::trim(raw);
    const auto [lo, hi] = limits(rules);
    // long double holds every 64-bit integer and every double exactly, so an
    // integer is compared with the bounds as it is, not rounded to a double.
    // (copies under names of their own: Clang 14 captures no structured
    // binding, and Clang 19 warns of an init-capture that shadows one)
    const auto in_bounds = [&, low = lo, high = hi](long double v) {
        return v >= static_cast<long double>(low) && v <= static_cast<long double>(high);
    };

    switch (rules.type) {
    case ParamType::boolean: {
        static constexpr std::string_view truthy[] = {"1", "true", "yes", "on", "enabled"};
        static constexpr std::string_view falsy[] = {"0", "false", "no", "off", "disabled"};
        for (const auto word : truthy) {
            if (util::iequals(text, word)) {
                return ParamValue{true};
            }
        }
        for (const auto word : falsy) {
            if (util::iequals(text, word)) {
                return ParamValue{false};
            }
        }
        return expected(rules);
    }
    case ParamType::integer:
    case ParamType::enumeration: {
        if (const auto *e = find_enumerator(rules.enumerators, text)) {
            return ParamValue{static_cast<long long>(e->value)};
        }
        const auto number = parse_integer(text, true);
        if (!number) {
            return expected(rules);
        }
        if (rules.type == ParamType::enumeration) {
            for (const auto &e : rules.enumerators) {
                if (e.value == *number) {
                    return ParamValue{*number};
                }
            }
            return expected(rules);
        }
        if (!in_bounds(static_cast<long double>(*number))) {
            return expected(rules);
        }
        return ParamValue{*number};
    }
    case ParamType::unsigned_integer: {
        const auto number = parse_integer(text, false);
        if (!number || !in_bounds(static_cast<long double>(*number))) {
            return expected(rules);
        }
        return ParamValue{static_cast<unsigned long long>(*number)};
    }
    case ParamType::size: {
        const auto number = parse_size(text);
        if (!number || !in_bounds(static_cast<long double>(*number))) {
            return expected(rules);
        }
        return ParamValue{*number};
    }
    case ParamType::real: {
        if (text.empty()) {
            return expected(rules);
        }
        const std::string copy(text);
        char *end = nullptr;
        const double number = std::strtod(copy.c_str(), &end);
        if (end != copy.c_str() + copy.size() || !std::isfinite(number) || !in_bounds(number)) {
            return expected(rules);
        }
        return ParamValue{number};
    }
    // Taken as given: blanks a user quoted in a param file (or put in an
    // environment variable) are part of the value.
    case ParamType::string:
        return ParamValue{std::string(raw)};
    case ParamType::list: {
        std::vector<std::string> items;
        if (text.empty()) {
            return ParamValue{items};
        }
        for (const auto &item : util::split(text, ',')) {
            const auto trimmed = util::trim(item);
            if (trimmed.empty()) {
                return expected(rules);
            }
            items.emplace_back(trimmed);
        }
        return ParamValue{items};
    }
    }
    return expected(rules);
}

std::string format_value(const ValueRules &rules, const ParamValue &value)
{
    switch (rules.type) {
    case ParamType::boolean:
        return std::get<bool>(value) ? "true" : "false";
    case ParamType::integer:
        return std::to_string(std::get<long long>(value));
    case ParamType::enumeration: {
        const auto number = std::get<long long>(value);
        for (const auto &e : rules.enumerators) {
            if (e.value == number) {
                return e.name;
            }
        }
        return std::to_string(number);
    }
    case ParamType::unsigned_integer:
    case ParamType::size:
        return std::to_string(std::get<unsigned long long>(value));
    case ParamType::real:
        return number_text(std::get<double>(value));
    case ParamType::string:
        return std::get<std::string>(value);
    case ParamType::list:
        return util::join(std::get<std::vector<std::string>>(value), ",");
    }
    return {};
}

} // namespace meridian::mca

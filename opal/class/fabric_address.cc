// SPDX-License-Identifier: BSD-3-Clause
// IPv4 addresses and CIDR blocks, strictly: a typo must be an error, not a
// different network.
#include <meridian/opal/class/fabric_address.hpp>

#include <meridian/opal/util/strings.hpp>

namespace meridian::fabric
{

namespace
{

std::uint32_t mask_of(std::uint8_t prefix)
{
    return prefix == 0 ? 0u : ~0u << (32 - prefix);
}

// A decimal number of at most `max_digits` digits with no leading zero.
std::optional<std::uint32_t> parse_small_number(std::string_view text, std::size_t max_digits)
{
    if (text.size() > max_digits || (text.size() > 1 && text[0] == '0')) {
        return std::nullopt;
    }
    return util::parse_uint(text, 0, UINT32_MAX);
}

} // namespace

std::optional<std::uint32_t> parse_ipv4(std::string_view text)
{
    std::uint32_t address = 0;
    for (int part = 0; part < 4; ++part) {
        const std::size_t dot = text.find('.');
        if ((part < 3) != (dot != std::string_view::npos)) {
            return std::nullopt;
        }
        const auto value = parse_small_number(text.substr(0, dot), 3);
        if (!value || *value > 255) {
            return std::nullopt;
        }
        address = (address << 8) | *value;
        text = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    }
    return address;
}

std::string format_ipv4(std::uint32_t address)
{
    return std::to_string(address >> 24) + '.' + std::to_string((address >> 16) & 0xff) + '.' +
           std::to_string((address >> 8) & 0xff) + '.' + std::to_string(address & 0xff);
}

bool Cidr::contains(std::uint32_t address) const
{
    return (address & mask_of(prefix)) == network;
}

bool Cidr::contains(const Cidr &other) const
{
    return other.prefix >= prefix && contains(other.network);
}

bool Cidr::overlaps(const Cidr &other) const
{
    return contains(other) || other.contains(*this);
}

std::string Cidr::text() const
{
    return format_ipv4(network) + '/' + std::to_string(prefix);
}

std::optional<Cidr> parse_cidr(std::string_view text)
{
    const std::size_t slash = text.find('/');
    if (slash == std::string_view::npos) {
        return std::nullopt;
    }
    const auto address = parse_ipv4(text.substr(0, slash));
    const auto prefix = parse_small_number(text.substr(slash + 1), 2);
    if (!address || !prefix || *prefix > 32) {
        return std::nullopt;
    }
    Cidr cidr{*address, static_cast<std::uint8_t>(*prefix)};
    if ((*address & ~mask_of(cidr.prefix)) != 0) {
        return std::nullopt;
    }
    return cidr;
}

} // namespace meridian::fabric

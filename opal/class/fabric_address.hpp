// SPDX-License-Identifier: BSD-3-Clause
// IPv4 addresses and CIDR blocks, as fabric descriptions, port pools and
// allocation requests write them.
#ifndef MERIDIAN_CLASS_FABRIC_ADDRESS_HPP
#define MERIDIAN_CLASS_FABRIC_ADDRESS_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meridian::fabric
{

// Dotted quad "10.1.2.3" (no leading zeros beyond "0", each part 0-255).
std::optional<std::uint32_t> parse_ipv4(std::string_view text);
std::string format_ipv4(std::uint32_t address);
// 127.0.0.0/8: every host's own loopback, which reaches no other host.
constexpr bool is_loopback(std::uint32_t address)
{
    return (address >> 24) == 127;
}

struct Cidr {
    std::uint32_t network = 0; // host bits zero
    std::uint8_t prefix = 0;   // 0-32

    bool contains(std::uint32_t address) const;
    bool contains(const Cidr &other) const; // other is inside (or equal)
    bool overlaps(const Cidr &other) const;
    std::string text() const; // "10.10.0.0/16"
    bool operator==(const Cidr &) const = default;
};

// "A.B.C.D/N".  Host bits must be zero ("10.10.1.0/16" is refused, so a typo
// is not silently a different network).
std::optional<Cidr> parse_cidr(std::string_view text);

} // namespace meridian::fabric

#endif

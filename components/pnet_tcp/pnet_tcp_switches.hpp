// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's switch map: which Ethernet switch each address hangs off.  A
// host sees its interfaces, addresses and speeds, but not the switch at the
// other end of the cable (that takes LLDP, which few hosts run), so the site
// says it once, in pnet_tcp_switches:
//
//   NAME:ADDRESSES[;NAME:ADDRESSES...]
//
// ADDRESSES is a ',' list of addresses (10.77.0.3), ranges (10.77.0.1-
// 10.77.0.2) and subnets (10.78.0.0/24).  Example:
//
//   data0:10.77.0.1-10.77.0.2;data1:10.77.0.3-10.77.0.8;mgmt:10.78.0.0/24
//
// NAME is a fabric file's switch name (letters, digits, '_', '-', '.'; at
// most fabric::max_name_bytes, 255).  A switch may be named in several parts
// (they add up); an address may belong to one switch only.  Errors
// (MERIDIAN_ERR_BAD_PARAM) read "WHERE:COLUMN: expected ..., found ...".
#ifndef MERIDIAN_COMPONENTS_PNET_TCP_SWITCHES_HPP
#define MERIDIAN_COMPONENTS_PNET_TCP_SWITCHES_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/class/fabric_address.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet_tcp
{

struct AddressSpan {
    std::uint32_t first = 0; // host order, inclusive
    std::uint32_t last = 0;
    bool operator==(const AddressSpan &) const = default;
};

struct SwitchSpec {
    std::string name;
    std::vector<AddressSpan> spans; // as written
};

class SwitchMap
{
  public:
    // Switches in the order the text first names them (coord_tcp numbers a
    // plane's switches in this order on every host).
    const std::vector<SwitchSpec> &switches() const { return switches_; }
    bool empty() const { return switches_.empty(); }
    // The index of the switch `address` hangs off, if the map names one.
    std::optional<std::size_t> switch_of(std::uint32_t address) const;
    // Whether any address of switch `index` lies in `subnet`.
    bool touches(std::size_t index, const fabric::Cidr &subnet) const;

    static Result<SwitchMap> parse(std::string_view text, std::string_view where);

  private:
    std::vector<SwitchSpec> switches_;
};

// pnet_tcp_switches parsed (pnet_tcp_component.cc; once per open: the
// parameter cannot change while the framework is open).  Errors name the
// parameter and where it was set.
Result<SwitchMap> switch_map();

} // namespace meridian::pnet_tcp

#endif

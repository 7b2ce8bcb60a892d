// pnet/tcp's inventory: this host's IPv4 interfaces as a one-node fabric
// (or the fabric file), and its delivery into the launcher's fabric.
#ifndef MERIDIAN_COMPONENTS_PNET_TCP_INVENTORY_HPP
#define MERIDIAN_COMPONENTS_PNET_TCP_INVENTORY_HPP

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet_tcp
{

// The fabric text this node contributes: the fabric file when
// pnet_tcp_fabric_file is set, else host_fabric() formatted.
Result<std::string> inventory_text();
// This host as a one-node fabric: each UP IPv4 interface a NIC (loopback
// last), on a plane named by the CIDR of its subnet; speeds from sysfs,
// packages from carto, ports from pnet_tcp_static_ports.
Result<fabric::Fabric> host_fabric();
// A blob of inventory_text() from `node`, merged into `fabric`.  A one-node
// inventory is renamed to `node` (the launcher's name for the host).
Status deliver(std::string_view node, std::span<const std::uint8_t> blob, fabric::Fabric &fabric);

} // namespace meridian::pnet_tcp

#endif

// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's inventory: this host's IPv4 interfaces as a one-node fabric
// (or the fabric file), and its delivery into the launcher's fabric.
#ifndef MERIDIAN_COMPONENTS_PNET_TCP_INVENTORY_HPP
#define MERIDIAN_COMPONENTS_PNET_TCP_INVENTORY_HPP

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet_tcp
{

// The fabric text this node contributes: the fabric file when
// pnet_tcp_fabric_file is set, else host_fabric() formatted, its ports
// pnet_tcp_static_ports or, in a job, the job's claim in the host's port
// ledger (then the text begins with claim_marker, pnet_tcp_claim.hpp).
Result<std::string> inventory_text();
// This host as a one-node fabric: each UP IPv4 interface a NIC (loopback
// last), on a plane named by the CIDR of its subnet; speeds from sysfs,
// packages from carto, `ports` as its port pools.
Result<fabric::Fabric> host_fabric(std::vector<fabric::PortPoolSpec> ports);
// A blob of inventory_text() from `node`, merged into `fabric`.  A one-node
// inventory is renamed to `node` (the launcher's name for the host); one
// that is a claim makes `node` a claimed node (note_claimed_node).
Status deliver(std::string_view node, std::span<const std::uint8_t> blob, fabric::Fabric &fabric);

} // namespace meridian::pnet_tcp

#endif

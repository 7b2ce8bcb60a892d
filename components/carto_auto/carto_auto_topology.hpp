// SPDX-License-Identifier: BSD-3-Clause
// The hwloc topology carto_auto maps: this machine's, or one saved as XML
// (carto_auto_xml), loaded with its I/O devices.
#ifndef MERIDIAN_COMPONENTS_CARTO_AUTO_TOPOLOGY_HPP
#define MERIDIAN_COMPONENTS_CARTO_AUTO_TOPOLOGY_HPP

#include <hwloc.h>

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include <meridian/opal/util/result.hpp>

namespace meridian::carto_auto
{

struct TopologyDeleter {
    void operator()(hwloc_topology_t topology) const { hwloc_topology_destroy(topology); }
};
// hwloc_topology_t is a pointer to the opaque struct hwloc_topology.
using Topology = std::unique_ptr<std::remove_pointer_t<hwloc_topology_t>, TopologyDeleter>;

// Load the topology of this machine (xml_path empty) or of the hwloc XML file
// xml_path, keeping every I/O object (and skipping the hwloc discovery
// components it does not need, see the .cc).
// The error's message is complete, for the user, and names the file:
//   MERIDIAN_ERR_IO         the file cannot be read (the system's reason)
//   MERIDIAN_ERR_BAD_PARAM  hwloc rejects the file (cannot parse it, or
//                           finds the topology in it invalid)
//   MERIDIAN_ERR_NOT_AVAILABLE  the topology has no NUMA node
//   MERIDIAN_ERROR          hwloc cannot discover this machine
// A file is never silently replaced by this machine's topology.
Result<Topology> load_topology(const std::string &xml_path);

// How messages name the topology: "the hwloc XML topology \"PATH\"
// (carto_auto_xml)", or "this machine's topology (hwloc)".
std::string describe_source(std::string_view xml_path);

} // namespace meridian::carto_auto

#endif

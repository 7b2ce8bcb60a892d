// SPDX-License-Identifier: BSD-3-Clause
// From an hwloc topology to the host's map: which vertices, which edges, and
// their weights.  The rule is the one components/carto_auto/README.md
// documents (with a worked example); keep the two in step.
#ifndef MERIDIAN_COMPONENTS_CARTO_AUTO_MAP_HPP
#define MERIDIAN_COMPONENTS_CARTO_AUTO_MAP_HPP

#include <hwloc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::carto_auto
{

struct HostVertex {
    std::string name;
    VertexType type;
    std::string origin; // what hwloc object it stands for and why it has its type (verbose output)
};

struct HostEdge {
    std::size_t from; // indexes into HostMap::vertices
    std::size_t to;
    std::uint64_t weight;
};

struct HostMap {
    // Slot<n> for each package (n its logical index; Slot0 for the machine
    // when there is no package), then MEM<n> for each NUMA node, then every
    // network and OpenFabrics OS device, in hwloc's order.
    std::vector<HostVertex> vertices;
    // Grouped by source in vertex order; each source's targets in vertex order.
    std::vector<HostEdge> edges;
    // Where the weights came from, for verbose output.
    std::string weights;
};

// The map of a loaded topology that has at least one NUMA node.  Fails
// (MERIDIAN_ERR_EXISTS / MERIDIAN_ERR_BAD_PARAM, message naming source) when
// two vertices would have the same name or a device has no name.
Result<HostMap> map_topology(hwloc_topology_t topology, std::string_view source);

} // namespace meridian::carto_auto

#endif

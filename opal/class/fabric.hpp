// SPDX-License-Identifier: BSD-3-Clause
// The fabric: planes, subnets, switches, nodes and their NICs -- the network
// model that pnet allocates from and coord places on.  It comes from a fabric
// file (below), or is built from the inventory each node's pnet components
// collect.
//
// Fabric file: one statement per line; '#' starts a comment; blank lines are
// ignored; words are separated by spaces or tabs; KEY=VALUE attributes may
// come in any order, each at most once.  A name is letters, digits and
// "_-.:/" (so CIDRs and device names like mlx5_0:1 are names), at most
// max_name_bytes (255) long, as is a plane's TYPE.  Statements refer only to
// names defined on earlier lines.
//
//   fabric NAME                         the fabric's name (optional, at most
//                                       once, before any plane; default "fabric")
//   plane NAME [type=TYPE] [cidr=CIDR] [qos=LEVELS] [shape=DxDx...]
//              [periodic=yes|no|P,P,...]
//        a network plane.  TYPE: what moves on it, "ethernet" (default) or
//        any word ("infiniband", "opa").  cidr: the plane's address block
//        (requests may name the plane by it).  qos: number of QoS levels,
//        0..LEVELS-1 (default 1).  shape: the physical mesh/torus the plane
//        is wired as (e.g. 8x4x4x4); periodic: which dimensions wrap around
//        (default yes = all; a list gives 1/0 per dimension).
//   subnet CIDR plane=NAME              an IPv4 subnet of a plane.  A plane
//                                       with a cidr and no subnet lines is one
//                                       subnet.
//   switch NAME plane=NAME              a switch of a plane
//   node NAME [packages=N] [cores=N] [ports=POOLS] [coord=C,C,...]
//        a host.  packages (default 1) and cores (default = packages):
//        processors, for binding.  ports: the node's static port pools in
//        PMIx's syntax (port_ranges.hpp); without it the node uses the
//        launcher's default pools.  coord: its physical position on shaped
//        planes.
//   nic NODE NAME plane=NAME [address=IPv4] [switch=NAME] [speed=RATE]
//        [package=N] [coord=C,C,...]
//        a NIC of a node, named as that node names it (eth0, ib0, mlx5_0).
//        The address must lie in a subnet of the plane, and no other NIC may
//        have it (a loopback address, 127.0.0.0/8, is each node's own: no
//        other NIC of its node); switch must be on the same plane; speed is
//        a rate (10G, 25Gb/s, 100000 = Mbit/s); package is the processor it
//        hangs off (for NIC order by distance); coord overrides the node's
//        position for this NIC.
//
// Errors (MERIDIAN_ERR_BAD_PARAM, or MERIDIAN_ERR_IO for a file that cannot be
// read) read "PATH:LINE:COL: expected ..., found ..." or
// "PATH:LINE:COL: unknown plane \"x\" (defined: a, b)" and the like.
#ifndef MERIDIAN_CLASS_FABRIC_HPP
#define MERIDIAN_CLASS_FABRIC_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <meridian/opal/class/fabric_address.hpp>
#include <meridian/opal/class/port_ranges.hpp>
#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::fabric
{

using Index = std::uint32_t;
inline constexpr Index no_index = UINT32_MAX;

// The longest name a fabric file may give (fabric, plane, switch, node, NIC,
// a plane's type): far above a real host or device name, and what keeps a
// hostile file from filling every message and index with megabytes.
inline constexpr std::size_t max_name_bytes = 255;

struct Plane {
    std::string name;
    std::string type = "ethernet";
    std::optional<Cidr> cidr;
    std::uint32_t qos_levels = 1;
    std::vector<std::uint32_t> shape; // empty: not a mesh / torus
    std::vector<bool> periodic;       // one per shape dimension
    std::vector<Index> subnets;       // in order of definition
    std::vector<Index> switches;      // in order of definition
    std::vector<Index> nics;          // in order of definition

    bool operator==(const Plane &) const = default;
};

struct Subnet {
    Cidr cidr;
    Index plane = no_index;
    std::uint32_t index_in_plane = 0;

    bool operator==(const Subnet &) const = default;
};

struct Switch {
    std::string name;
    Index plane = no_index;
    std::uint32_t index_in_plane = 0;

    bool operator==(const Switch &) const = default;
};

struct Nic {
    std::string name;
    Index node = no_index;
    Index plane = no_index;
    Index subnet = no_index; // no_index: no address
    Index sw = no_index;     // no_index: switch unknown
    std::optional<std::uint32_t> address;
    std::uint64_t speed_mbps = 0;     // 0: unknown
    std::int32_t package = -1;        // -1: unknown
    std::vector<std::uint32_t> coord; // empty: the node's
    std::uint32_t index_on_node = 0;  // 0, 1, ... in order on its node

    bool operator==(const Nic &) const = default;
};

struct Node {
    std::string name;
    std::uint32_t packages = 1;
    std::uint32_t cores = 1;
    std::vector<PortPoolSpec> ports; // empty: the launcher's default pools
    std::vector<std::uint32_t> coord;
    std::vector<Index> nics;

    bool operator==(const Node &) const = default;
};

class Fabric
{
  public:
    std::string name = "fabric";

    std::span<const Plane> planes() const { return planes_; }
    std::span<const Subnet> subnets() const { return subnets_; }
    std::span<const Switch> switches() const { return switches_; }
    std::span<const Node> nodes() const { return nodes_; }
    std::span<const Nic> nics() const { return nics_; }

    // A plane by its name or its cidr text; a node or switch by name; a
    // node's NIC by its name.  O(1) average.
    std::optional<Index> find_plane(std::string_view name_or_cidr) const;
    std::optional<Index> find_node(std::string_view name) const;
    std::optional<Index> find_switch(std::string_view name) const;
    std::optional<Index> find_nic(Index node, std::string_view name) const;

    // Building (the parser and inventory delivery use these).  Each checks
    // what the file format above says and returns the error message without
    // a position (the parser prefixes it); on error nothing is added.
    Result<Index> add_plane(Plane plane); // subnets/switches/nics ignored
    Result<Index> add_subnet(Cidr cidr, Index plane);
    Result<Index> add_switch(std::string name, Index plane);
    Result<Index> add_node(Node node); // nics ignored
    Result<Index> add_nic(Nic nic);    // subnet found from the address
    // Copy every plane, subnet, switch, node and NIC of `other` that this
    // fabric lacks (planes/switches/subnets matched by name, nodes by name;
    // a node already here keeps its own description).
    Status merge(const Fabric &other);

    // The node's map in carto terms: Slot<p> for each package (linked to each
    // other with weight 20 both ways) and each NIC under its own name, linked
    // to its package's Slot with weight 10 both ways (to every Slot with 10
    // when its package is unknown).
    WeightedGraph node_graph(Index node) const;
    // The node's NICs ordered by the carto distance of node_graph from
    // Slot<package>, nearest first, ties in NIC order; package -1 (unbound):
    // NIC order.  Nodes of the same shape share one cached answer.
    std::span<const Index> nics_by_distance(Index node, std::int32_t package) const;

  private:
    // The NIC that has `address` where a NIC of `node` would clash with it:
    // anywhere, or on `node` alone for a loopback address.
    std::optional<Index> nic_with_address(Index node, std::uint32_t address) const;

    std::vector<Plane> planes_;
    std::vector<Subnet> subnets_;
    std::vector<Switch> switches_;
    std::vector<Node> nodes_;
    std::vector<Nic> nics_;
    std::unordered_map<std::string, Index> plane_index_; // names and cidr texts
    std::unordered_map<std::string, Index> node_index_;
    std::unordered_map<std::string, Index> switch_index_;
    // Per plane: its subnets by network address, to find an address's subnet
    // and overlaps in O(log subnets).
    std::vector<std::map<std::uint32_t, Index>> subnet_by_network_;
    // NICs by address: no two NICs of a fabric share one, but for loopback
    // addresses (127.0.0.0/8), unique on their node only and not kept here.
    std::unordered_map<std::uint32_t, Index> nic_by_address_;
    struct OrderCache;
    std::shared_ptr<OrderCache> order_cache_; // filled lazily; copies share
};

// Whether `text` is a name a fabric file can give: 1 to max_name_bytes
// letters, digits and "_-.:/".
bool is_fabric_name(std::string_view text);

// Parse fabric text; `origin` is the path (or "<string>") used in messages.
Result<Fabric> parse_fabric(std::string_view text, std::string_view origin);
Result<Fabric> read_fabric_file(const std::string &path);
// Fabric text that parse_fabric reads back to an equal fabric.
std::string format_fabric(const Fabric &fabric);

// A rate: a number with an optional unit, in Mbit/s.  Units: bps, Kbps,
// Mbps, Gbps, Tbps (also b/s, Kb/s, ...; bits), B/s, KB/s, MB/s, GB/s, TB/s
// (bytes: x8), or just K, M, G, T (bits).  A bare number is Mbit/s, PMIx's
// unit.  Decimal prefixes (1G = 1000M).  Case matters only for b/B.
std::optional<double> parse_rate_mbps(std::string_view text);
std::string format_rate_mbps(double mbps); // "10 Gb/s", "250 Mb/s"

} // namespace meridian::fabric

#endif

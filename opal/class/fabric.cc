// SPDX-License-Identifier: BSD-3-Clause
// The fabric model: building it with its checks, merging, the per-node
// carto view and the NIC order by distance, and rates.
#include <meridian/opal/class/fabric.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <mutex>

#include <meridian/opal/util/strings.hpp>

namespace meridian::fabric
{

namespace
{

std::string shape_text(const std::vector<std::uint32_t> &shape)
{
    std::string text;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) {
            text += 'x';
        }
        text += std::to_string(shape[i]);
    }
    return text;
}

std::string coord_text(const std::vector<std::uint32_t> &coord)
{
    std::string text;
    for (std::size_t i = 0; i < coord.size(); ++i) {
        if (i > 0) {
            text += ',';
        }
        text += std::to_string(coord[i]);
    }
    return text;
}

// "Slot<digits>" would clash with the processors of node_graph.
bool is_slot_name(std::string_view name)
{
    if (name.size() <= 4 || name.substr(0, 4) != "Slot") {
        return false;
    }
    for (const char c : name.substr(4)) {
        if (c < '0' || c > '9') {
            return false;
        }
    }
    return true;
}

VertexType nic_vertex_type(std::string_view plane_type)
{
    if (util::iequals(plane_type, "ethernet")) {
        return VertexType::eth;
    }
    if (util::iequals(plane_type, "infiniband") || util::iequals(plane_type, "ib")) {
        return VertexType::ib;
    }
    return VertexType::other;
}

Error bad(std::string message)
{
    return make_error(MERIDIAN_ERR_BAD_PARAM, std::move(message));
}

} // namespace

// NIC orders by distance, shared by every node of one shape (its package
// count and the package of each NIC in order), since the distances depend on
// nothing else.  Answers that are not plain NIC order are materialized per
// (node, package) once, in chunks that never move, so a call after the first
// for its node is a lock and a few array reads (no hashing: a job asks once
// per process and request, 10^6 times and more).
struct Fabric::OrderCache {
    static constexpr std::uint32_t unknown = UINT32_MAX;
    static constexpr std::size_t chunk_size = 1 << 16;

    struct ShapeOrders {
        std::vector<std::vector<std::uint32_t>> by_package; // local NIC order; empty: not yet
        std::vector<bool> identity;                         // the order is NIC order
    };

    std::mutex mutex;
    bool used = false;
    std::unordered_map<std::string, std::uint32_t> shape_ids;
    std::vector<ShapeOrders> shapes;
    std::vector<std::uint32_t> node_shape;       // per node, unknown until asked
    std::vector<std::uint32_t> node_answers;     // per node: its first entry in answers, or unknown
    std::vector<std::span<const Index>> answers; // per node asked: one per package (empty: not yet)
    std::vector<std::unique_ptr<Index[]>> chunks;
    std::size_t chunk_used = chunk_size;

    std::span<const Index> store(const std::vector<Index> &order)
    {
        if (order.size() > chunk_size - chunk_used) {
            chunks.push_back(std::make_unique<Index[]>(std::max(chunk_size, order.size())));
            chunk_used = 0;
        }
        Index *place = chunks.back().get() + chunk_used;
        std::copy(order.begin(), order.end(), place);
        chunk_used += order.size();
        return {place, order.size()};
    }
};

std::optional<Index> Fabric::find_plane(std::string_view name_or_cidr) const
{
    const auto found = plane_index_.find(std::string(name_or_cidr));
    return found == plane_index_.end() ? std::nullopt : std::optional<Index>(found->second);
}

std::optional<Index> Fabric::find_node(std::string_view node_name) const
{
    const auto found = node_index_.find(std::string(node_name));
    return found == node_index_.end() ? std::nullopt : std::optional<Index>(found->second);
}

std::optional<Index> Fabric::find_switch(std::string_view switch_name) const
{
    const auto found = switch_index_.find(std::string(switch_name));
    return found == switch_index_.end() ? std::nullopt : std::optional<Index>(found->second);
}

std::optional<Index> Fabric::find_nic(Index node, std::string_view nic_name) const
{
    if (node >= nodes_.size()) {
        return std::nullopt;
    }
    for (const Index nic : nodes_[node].nics) {
        if (nics_[nic].name == nic_name) {
            return nic;
        }
    }
    return std::nullopt;
}

// A mutation makes the cached orders stale for this fabric only: a copy that
// shares the cache keeps it.
#define MERIDIAN_FABRIC_CHANGED()                                                                  \
    do {                                                                                           \
        if (!order_cache_ || order_cache_.use_count() > 1 || order_cache_->used) {                 \
            order_cache_ = std::make_shared<OrderCache>();                                         \
        }                                                                                          \
    } while (0)

Result<Index> Fabric::add_plane(Plane plane)
{
    if (plane.name.empty()) {
        return bad("expected a plane name, found \"\"");
    }
    if (plane_index_.count(plane.name) != 0) {
        return bad(
            "expected a new plane name, found " + util::quoted(plane.name) + " (already a plane" +
            (planes_[plane_index_.at(plane.name)].name == plane.name ? "" : "'s cidr") + ")");
    }
    if (plane.cidr) {
        const std::string text = plane.cidr->text();
        if (text != plane.name && plane_index_.count(text) != 0) {
            const Plane &other = planes_[plane_index_.at(text)];
            return bad("expected a cidr no other plane has, found " + text + " (plane " +
                       util::quoted(other.name) + " has it)");
        }
    }
    if (plane.type.empty()) {
        return bad("expected a plane type, found \"\"");
    }
    if (plane.qos_levels < 1) {
        return bad("expected qos levels 1-65535, found 0");
    }
    for (const std::uint32_t size : plane.shape) {
        if (size < 1) {
            return bad("expected a shape with sizes of 1 or more, found " +
                       shape_text(plane.shape));
        }
    }
    if (plane.shape.empty()) {
        plane.periodic.clear();
    } else if (plane.periodic.empty()) {
        plane.periodic.assign(plane.shape.size(), true);
    } else if (plane.periodic.size() != plane.shape.size()) {
        return bad("expected periodic with one value per dimension of shape " +
                   shape_text(plane.shape) + ", found " + std::to_string(plane.periodic.size()) +
                   " values");
    }
    MERIDIAN_FABRIC_CHANGED();
    plane.subnets.clear();
    plane.switches.clear();
    plane.nics.clear();
    const auto index = static_cast<Index>(planes_.size());
    plane_index_.emplace(plane.name, index);
    if (plane.cidr) {
        plane_index_.emplace(plane.cidr->text(), index);
    }
    planes_.push_back(std::move(plane));
    subnet_by_network_.emplace_back();
    return index;
}

Result<Index> Fabric::add_subnet(Cidr cidr, Index plane)
{
    if (plane >= planes_.size()) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "no plane with index " + std::to_string(plane));
    }
    const Plane &owner = planes_[plane];
    if (owner.cidr && !owner.cidr->contains(cidr)) {
        return bad("expected a subnet inside plane " + util::quoted(owner.name) + " (" +
                   owner.cidr->text() + "), found " + cidr.text());
    }
    // Blocks nest or are disjoint, and a plane's subnets are disjoint: only
    // the one at or before the network, and the first after it, can overlap.
    const auto &by_network = subnet_by_network_[plane];
    auto after = by_network.lower_bound(cidr.network);
    std::optional<Index> clash;
    if (after != by_network.end() && cidr.overlaps(subnets_[after->second].cidr)) {
        clash = after->second;
    } else if (after != by_network.begin() &&
               cidr.overlaps(subnets_[std::prev(after)->second].cidr)) {
        clash = std::prev(after)->second;
    }
    if (clash) {
        return bad("expected a subnet that overlaps no other subnet of plane " +
                   util::quoted(owner.name) + ", found " + cidr.text() + " (overlaps " +
                   subnets_[*clash].cidr.text() + ")");
    }
    MERIDIAN_FABRIC_CHANGED();
    const auto index = static_cast<Index>(subnets_.size());
    Plane &target = planes_[plane];
    subnets_.push_back(Subnet{cidr, plane, static_cast<std::uint32_t>(target.subnets.size())});
    target.subnets.push_back(index);
    subnet_by_network_[plane].emplace(cidr.network, index);
    return index;
}

Result<Index> Fabric::add_switch(std::string switch_name, Index plane)
{
    if (plane >= planes_.size()) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "no plane with index " + std::to_string(plane));
    }
    if (switch_name.empty()) {
        return bad("expected a switch name, found \"\"");
    }
    if (switch_index_.count(switch_name) != 0) {
        return bad("expected a new switch name, found " + util::quoted(switch_name) +
                   " (already a switch of plane " +
                   util::quoted(planes_[switches_[switch_index_.at(switch_name)].plane].name) +
                   ")");
    }
    MERIDIAN_FABRIC_CHANGED();
    const auto index = static_cast<Index>(switches_.size());
    Plane &target = planes_[plane];
    switch_index_.emplace(switch_name, index);
    switches_.push_back(
        Switch{std::move(switch_name), plane, static_cast<std::uint32_t>(target.switches.size())});
    target.switches.push_back(index);
    return index;
}

Result<Index> Fabric::add_node(Node node)
{
    if (node.name.empty()) {
        return bad("expected a node name, found \"\"");
    }
    if (node_index_.count(node.name) != 0) {
        return bad("expected a new node name, found " + util::quoted(node.name) +
                   " (already a node)");
    }
    if (node.packages < 1) {
        return bad("expected packages of 1 or more, found 0");
    }
    if (node.cores < node.packages) {
        return bad("expected cores of at least packages (" + std::to_string(node.packages) +
                   "), found " + std::to_string(node.cores));
    }
    MERIDIAN_FABRIC_CHANGED();
    node.nics.clear();
    const auto index = static_cast<Index>(nodes_.size());
    node_index_.emplace(node.name, index);
    nodes_.push_back(std::move(node));
    return index;
}

std::optional<Index> Fabric::nic_with_address(Index node, std::uint32_t address) const
{
    if (is_loopback(address)) {
        for (const Index n : nodes_[node].nics) {
            if (nics_[n].address == address) {
                return n;
            }
        }
        return std::nullopt;
    }
    const auto found = nic_by_address_.find(address);
    return found != nic_by_address_.end() ? std::optional<Index>(found->second) : std::nullopt;
}

Result<Index> Fabric::add_nic(Nic nic)
{
    if (nic.node >= nodes_.size()) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "no node with index " + std::to_string(nic.node));
    }
    if (nic.plane >= planes_.size()) {
        return make_error(MERIDIAN_ERR_NOT_FOUND,
                          "no plane with index " + std::to_string(nic.plane));
    }
    const Node &node = nodes_[nic.node];
    const Plane &plane = planes_[nic.plane];
    if (nic.name.empty()) {
        return bad("expected a NIC name, found \"\"");
    }
    if (is_slot_name(nic.name)) {
        return bad("expected a NIC name that is not a processor's (Slot<N>), found " +
                   util::quoted(nic.name));
    }
    if (find_nic(nic.node, nic.name)) {
        return bad("expected a new NIC name on node " + util::quoted(node.name) + ", found " +
                   util::quoted(nic.name));
    }
    if (nic.sw != no_index) {
        if (nic.sw >= switches_.size()) {
            return make_error(MERIDIAN_ERR_NOT_FOUND,
                              "no switch with index " + std::to_string(nic.sw));
        }
        if (switches_[nic.sw].plane != nic.plane) {
            return bad("expected a switch of plane " + util::quoted(plane.name) + ", found " +
                       util::quoted(switches_[nic.sw].name) + " (a switch of plane " +
                       util::quoted(planes_[switches_[nic.sw].plane].name) + ")");
        }
    }
    if (nic.package < -1 || nic.package >= static_cast<std::int64_t>(node.packages)) {
        return bad("expected a package 0-" + std::to_string(node.packages - 1) + " of node " +
                   util::quoted(node.name) + ", found " + std::to_string(nic.package));
    }
    const std::vector<std::uint32_t> &coord = nic.coord.empty() ? node.coord : nic.coord;
    if (!plane.shape.empty() && !coord.empty()) {
        bool fits = coord.size() == plane.shape.size();
        for (std::size_t i = 0; fits && i < coord.size(); ++i) {
            fits = coord[i] < plane.shape[i];
        }
        if (!fits) {
            return bad("expected a coordinate inside plane " + util::quoted(plane.name) +
                       "'s shape " + shape_text(plane.shape) + ", found " + coord_text(coord) +
                       (nic.coord.empty() ? " (node " + util::quoted(node.name) + "'s)" : ""));
        }
    }
    // The subnet holding the address; a plane with a cidr and no subnets is
    // one subnet, made when the first NIC needs it.
    Index subnet = no_index;
    bool make_plane_subnet = false;
    if (nic.address) {
        const auto &by_network = subnet_by_network_[nic.plane];
        auto after = by_network.upper_bound(*nic.address);
        if (after != by_network.begin() &&
            subnets_[std::prev(after)->second].cidr.contains(*nic.address)) {
            subnet = std::prev(after)->second;
        } else if (plane.subnets.empty() && plane.cidr && plane.cidr->contains(*nic.address)) {
            make_plane_subnet = true;
        } else {
            std::string known;
            for (std::size_t i = 0; i < plane.subnets.size() && i < 8; ++i) {
                known += (i > 0 ? ", " : "") + subnets_[plane.subnets[i]].cidr.text();
            }
            if (plane.subnets.size() > 8) {
                known += ", ...";
            }
            return bad("expected an address in a subnet of plane " + util::quoted(plane.name) +
                       ", found " + format_ipv4(*nic.address) +
                       (known.empty() ? std::string(" (the plane has no subnets)")
                                      : " (subnets: " + known + ")"));
        }
    }
    if (nic.address) {
        // A host's address: neither the subnet's network nor its broadcast
        // address (a /31 or /32 has neither), and no other NIC's.
        const Cidr &cidr = make_plane_subnet ? *plane.cidr : subnets_[subnet].cidr;
        if (cidr.prefix <= 30) {
            const std::uint32_t broadcast = cidr.network | (0xffffffffu >> cidr.prefix);
            if (*nic.address == cidr.network || *nic.address == broadcast) {
                return bad("expected an address of a host in subnet " + cidr.text() + ", found " +
                           format_ipv4(*nic.address) + " (its " +
                           (*nic.address == cidr.network ? "network" : "broadcast") + " address)");
            }
        }
        if (const auto other = nic_with_address(nic.node, *nic.address)) {
            const Nic &owner = nics_[*other];
            return bad("expected an address no other NIC has, found " + format_ipv4(*nic.address) +
                       " (NIC " + util::quoted(owner.name) + " of node " +
                       util::quoted(nodes_[owner.node].name) + " has it)");
        }
    }
    nic_by_address_.reserve(nic_by_address_.size() + 1);
    if (make_plane_subnet) {
        auto made = add_subnet(*plane.cidr, nic.plane);
        if (!made) {
            return made.error();
        }
        subnet = *made;
    }
    MERIDIAN_FABRIC_CHANGED();
    const auto index = static_cast<Index>(nics_.size());
    nic.subnet = subnet;
    nic.index_on_node = static_cast<std::uint32_t>(nodes_[nic.node].nics.size());
    nodes_[nic.node].nics.push_back(index);
    planes_[nic.plane].nics.push_back(index);
    if (nic.address && !is_loopback(*nic.address)) {
        nic_by_address_.emplace(*nic.address, index);
    }
    nics_.push_back(std::move(nic));
    return index;
}

#undef MERIDIAN_FABRIC_CHANGED

Status Fabric::merge(const Fabric &other)
{
    // Into a copy, so that an error leaves this fabric as it was.
    Fabric merged = *this;
    std::vector<Index> plane_map(other.planes_.size());
    for (Index i = 0; i < other.planes_.size(); ++i) {
        const Plane &plane = other.planes_[i];
        const auto here = merged.plane_index_.find(plane.name);
        if (here != merged.plane_index_.end() && merged.planes_[here->second].name == plane.name) {
            plane_map[i] = here->second;
            continue;
        }
        auto added = merged.add_plane(plane);
        if (!added) {
            return added.error();
        }
        plane_map[i] = *added;
    }
    for (const Subnet &subnet : other.subnets_) {
        const Index plane = plane_map[subnet.plane];
        const auto &by_network = merged.subnet_by_network_[plane];
        const auto same = by_network.find(subnet.cidr.network);
        if (same != by_network.end() && merged.subnets_[same->second].cidr == subnet.cidr) {
            continue;
        }
        if (auto added = merged.add_subnet(subnet.cidr, plane); !added) {
            return added.error();
        }
    }
    std::vector<Index> switch_map(other.switches_.size());
    for (Index i = 0; i < other.switches_.size(); ++i) {
        const Switch &sw = other.switches_[i];
        const Index plane = plane_map[sw.plane];
        if (const auto here = merged.find_switch(sw.name)) {
            if (merged.switches_[*here].plane != plane) {
                return bad("switch " + util::quoted(sw.name) + " is on plane " +
                           util::quoted(merged.planes_[merged.switches_[*here].plane].name) +
                           " here and on plane " + util::quoted(other.planes_[sw.plane].name) +
                           " in the fabric merged in");
            }
            switch_map[i] = *here;
            continue;
        }
        auto added = merged.add_switch(sw.name, plane);
        if (!added) {
            return added.error();
        }
        switch_map[i] = *added;
    }
    for (const Node &node : other.nodes_) {
        if (merged.find_node(node.name)) {
            continue;
        }
        auto added = merged.add_node(node);
        if (!added) {
            return added.error();
        }
        for (const Index n : node.nics) {
            Nic nic = other.nics_[n];
            nic.node = *added;
            nic.plane = plane_map[nic.plane];
            nic.sw = nic.sw == no_index ? no_index : switch_map[nic.sw];
            if (auto made = merged.add_nic(std::move(nic)); !made) {
                return made.error();
            }
        }
    }
    *this = std::move(merged);
    return success();
}

WeightedGraph Fabric::node_graph(Index node) const
{
    WeightedGraph graph;
    if (node >= nodes_.size()) {
        return graph;
    }
    const Node &host = nodes_[node];
    // Errors cannot happen here: add_nic refused duplicate and Slot<N> names.
    for (std::uint32_t p = 0; p < host.packages; ++p) {
        (void)graph.add_vertex("Slot" + std::to_string(p), VertexType::slot);
    }
    for (std::uint32_t p = 0; p < host.packages; ++p) {
        for (std::uint32_t q = 0; q < host.packages; ++q) {
            if (p != q) {
                (void)graph.add_edge(p, q, 20);
            }
        }
    }
    for (const Index n : host.nics) {
        const Nic &nic = nics_[n];
        auto vertex = graph.add_vertex(nic.name, nic_vertex_type(planes_[nic.plane].type));
        if (!vertex) {
            continue;
        }
        for (std::uint32_t p = 0; p < host.packages; ++p) {
            if (nic.package < 0 || static_cast<std::uint32_t>(nic.package) == p) {
                (void)graph.add_edge(*vertex, p, 10);
                (void)graph.add_edge(p, *vertex, 10);
            }
        }
    }
    return graph;
}

std::span<const Index> Fabric::nics_by_distance(Index node, std::int32_t package) const
{
    if (node >= nodes_.size()) {
        return {};
    }
    const Node &host = nodes_[node];
    if (package < 0 || static_cast<std::uint32_t>(package) >= host.packages || !order_cache_) {
        return host.nics;
    }
    OrderCache &cache = *order_cache_;
    const std::lock_guard lock(cache.mutex);
    cache.used = true;
    if (cache.node_shape.size() < nodes_.size()) {
        cache.node_shape.resize(nodes_.size(), OrderCache::unknown);
        cache.node_answers.resize(nodes_.size(), OrderCache::unknown);
    }
    std::uint32_t &shape = cache.node_shape[node];
    if (shape == OrderCache::unknown) {
        std::string key = std::to_string(host.packages) + ':';
        for (const Index n : host.nics) {
            key += std::to_string(nics_[n].package);
            key += ',';
        }
        const auto [entry, added] = cache.shape_ids.emplace(
            std::move(key), static_cast<std::uint32_t>(cache.shapes.size()));
        if (added) {
            cache.shapes.emplace_back();
            cache.shapes.back().by_package.resize(host.packages);
            cache.shapes.back().identity.resize(host.packages, false);
        }
        shape = entry->second;
    }
    OrderCache::ShapeOrders &orders = cache.shapes[shape];
    auto &order = orders.by_package[static_cast<std::size_t>(package)];
    if (order.empty() && !host.nics.empty()) {
        // First node of this shape asking for this package: carto distances.
        const WeightedGraph graph = node_graph(node);
        const auto distances = graph.shortest_distances(static_cast<VertexId>(package));
        // No value: not reached (those go last).
        std::vector<std::optional<PathLength>> distance(host.nics.size());
        for (std::size_t i = 0; i < host.nics.size(); ++i) {
            if (const auto id = graph.find(nics_[host.nics[i]].name); id && distances) {
                distance[i] = (*distances)[*id];
            }
        }
        order.resize(host.nics.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return distance[a] && (!distance[b] || *distance[a] < *distance[b]);
        });
        bool identity = true;
        for (std::uint32_t i = 0; i < order.size(); ++i) {
            identity = identity && order[i] == i;
        }
        orders.identity[static_cast<std::size_t>(package)] = identity;
    }
    if (orders.identity[static_cast<std::size_t>(package)] || host.nics.empty()) {
        return host.nics;
    }
    std::uint32_t &first = cache.node_answers[node];
    if (first == OrderCache::unknown) {
        first = static_cast<std::uint32_t>(cache.answers.size());
        cache.answers.resize(cache.answers.size() + host.packages);
    }
    std::span<const Index> &known = cache.answers[first + static_cast<std::uint32_t>(package)];
    if (known.empty()) {
        std::vector<Index> answer(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            answer[i] = host.nics[order[i]];
        }
        known = cache.store(answer);
    }
    return known;
}

std::optional<double> parse_rate_mbps(std::string_view text)
{
    text = util::trim(text);
    if (text.empty() || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.')) {
        return std::nullopt;
    }
    double value = 0;
    const auto [end, error] =
        std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
    if (error != std::errc{} || !std::isfinite(value)) {
        return std::nullopt;
    }
    std::string_view unit = util::trim(text.substr(static_cast<std::size_t>(end - text.data())));
    double scale = 1; // a bare number is Mbit/s
    if (!unit.empty()) {
        bool prefixed = true;
        switch (unit[0]) {
        case 'k':
        case 'K':
            scale = 1e-3;
            break;
        case 'm':
        case 'M':
            scale = 1;
            break;
        case 'g':
        case 'G':
            scale = 1e3;
            break;
        case 't':
        case 'T':
            scale = 1e6;
            break;
        default:
            prefixed = false;
            scale = 1e-6;
            break;
        }
        if (prefixed) {
            unit.remove_prefix(1);
        }
        if (unit.empty()) {
            if (!prefixed) {
                return std::nullopt;
            }
        } else {
            if (unit[0] == 'B') {
                scale *= 8;
            } else if (unit[0] != 'b') {
                return std::nullopt;
            }
            unit.remove_prefix(1);
            if (!util::iequals(unit, "ps") && !util::iequals(unit, "/s")) {
                return std::nullopt;
            }
        }
    }
    const double mbps = value * scale;
    if (!std::isfinite(mbps)) {
        return std::nullopt;
    }
    return mbps;
}

std::string format_rate_mbps(double mbps)
{
    static constexpr struct {
        double scale;
        const char *unit;
    } units[] = {{1e6, "Tb/s"}, {1e3, "Gb/s"}, {1, "Mb/s"}, {1e-3, "Kb/s"}};
    double scale = 1e-6;
    const char *unit = "b/s";
    for (const auto &candidate : units) {
        if (mbps >= candidate.scale) {
            scale = candidate.scale;
            unit = candidate.unit;
            break;
        }
    }
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g %s", mbps / scale, unit);
    return buffer;
}

} // namespace meridian::fabric

// SPDX-License-Identifier: BSD-3-Clause
// The weight rule (README.md, "Weights"), in short:
//
//   Every vertex has a place in hwloc's tree: a Slot its package (the root
//   when there is none), a MEM the object its NUMA node is attached to, a
//   port its first non-I/O ancestor.  Edges: Slot <-> Slot and Slot <-> MEM
//   for every pair; a port <-> the Slots, and <-> the MEMs, nearest to it.
//
//   With a NUMA latency matrix D covering every NUMA node, a vertex stands
//   for its local NUMA nodes (a MEM: itself; a Slot or a port: those
//   attached inside its place, else those of its nearest ancestor that has
//   some), and the weight a -> b is D between them: the nearest pair for two
//   Slots or a Slot and a MEM; for a port, the farthest of its own nodes
//   (seen from the nearest of the other's), so that a port hwloc could not
//   place near one node is never a shortcut between nodes.
//
//   Without one, the weight is 10 * (1 + hops), hops counting the steps up
//   from each place to their closest common ancestor at which the set of
//   PUs grows; a Slot stands for its whole package, so places inside it are
//   0 hops from it.
#include "components/carto_auto/carto_auto_map.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::carto_auto
{
namespace
{

enum class Role { slot, mem, port };

// A vertex as the weight rule sees it.
struct Member {
    Role role;
    hwloc_obj_t place;           // a normal (CPU-side) object
    std::vector<unsigned> nodes; // local NUMA nodes (logical indexes), for the matrix
};

// hwloc weights in the same unit as ACPI's SLIT, where 10 means local.
constexpr std::uint64_t hierarchy_unit = 10;

// -------------------------------------------------------------- the tree

bool is_inside(hwloc_obj_t object, hwloc_obj_t root)
{
    for (hwloc_obj_t o = object; o != nullptr; o = o->parent) {
        if (o == root) {
            return true;
        }
    }
    return false;
}

// The normal object a NUMA node hangs from (it may sit below memory-side
// caches, which are memory objects too).
hwloc_obj_t attachment_of(hwloc_obj_t numa)
{
    hwloc_obj_t parent = numa->parent;
    while (parent != nullptr && hwloc_obj_type_is_memory(parent->type)) {
        parent = parent->parent;
    }
    return parent;
}

// Steps from object up to its ancestor at which the set of PUs grows: a
// package's L3 cache, with the package's PUs, is no step away from it.
unsigned steps_up(hwloc_obj_t object, hwloc_obj_t ancestor)
{
    unsigned steps = 0;
    for (hwloc_obj_t o = object; o != ancestor && o->parent != nullptr; o = o->parent) {
        if (!hwloc_bitmap_isequal(o->cpuset, o->parent->cpuset)) {
            ++steps;
        }
    }
    return steps;
}

unsigned hops(hwloc_topology_t topology, const Member &a, const Member &b)
{
    // A Slot is its whole package: whatever is inside is local to it.
    if ((a.role == Role::slot && is_inside(b.place, a.place)) ||
        (b.role == Role::slot && is_inside(a.place, b.place))) {
        return 0;
    }
    const hwloc_obj_t common = hwloc_get_common_ancestor_obj(topology, a.place, b.place);
    return steps_up(a.place, common) + steps_up(b.place, common);
}

// The NUMA nodes attached inside place; if none, those attached to its
// nearest ancestor that has any.
std::vector<unsigned> local_nodes(const std::vector<hwloc_obj_t> &numa_nodes, hwloc_obj_t place)
{
    std::vector<unsigned> nodes;
    for (hwloc_obj_t numa : numa_nodes) {
        if (is_inside(attachment_of(numa), place)) {
            nodes.push_back(numa->logical_index);
        }
    }
    for (hwloc_obj_t ancestor = place->parent; nodes.empty() && ancestor != nullptr;
         ancestor = ancestor->parent) {
        for (hwloc_obj_t numa : numa_nodes) {
            if (attachment_of(numa) == ancestor) {
                nodes.push_back(numa->logical_index);
            }
        }
    }
    return nodes;
}

// -------------------------------------------------------------- NUMA matrix

// A latency matrix over every NUMA node, by logical index.
struct LatencyMatrix {
    std::size_t size = 0;
    std::vector<std::uint64_t> values; // row from, column to
    std::string name;

    std::uint64_t at(unsigned from, unsigned to) const { return values[from * size + to]; }
};

// The distance structures hwloc hands out, released on every path.
class DistancesList
{
  public:
    explicit DistancesList(hwloc_topology_t topology) : topology_(topology) {}
    DistancesList(const DistancesList &) = delete;
    DistancesList &operator=(const DistancesList &) = delete;
    ~DistancesList()
    {
        for (hwloc_distances_s *d : items_) {
            hwloc_distances_release(topology_, d);
        }
    }
    std::vector<hwloc_distances_s *> &items() { return items_; }

  private:
    hwloc_topology_t topology_;
    std::vector<hwloc_distances_s *> items_;
};

// The first NUMA latency matrix that covers every NUMA node, if any: one
// over some nodes only cannot weigh the others, so the hierarchy is used.
std::optional<LatencyMatrix> find_latency_matrix(hwloc_topology_t topology, std::size_t numa_count)
{
    unsigned count = 0;
    if (hwloc_distances_get_by_type(topology, HWLOC_OBJ_NUMANODE, &count, nullptr,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
        count == 0) {
        return std::nullopt;
    }
    DistancesList list(topology);
    list.items().assign(count, nullptr);
    unsigned got = count;
    if (hwloc_distances_get_by_type(topology, HWLOC_OBJ_NUMANODE, &got, list.items().data(),
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0) {
        list.items().clear();
        return std::nullopt;
    }
    // Only the first min(got, count) entries were filled in.
    list.items().resize(std::min(got, count));
    for (hwloc_distances_s *d : list.items()) {
        if (d == nullptr || d->nbobjs != numa_count) {
            continue;
        }
        LatencyMatrix matrix;
        matrix.size = numa_count;
        matrix.values.assign(numa_count * numa_count, 0);
        std::vector<bool> seen(numa_count, false);
        bool complete = true;
        for (unsigned i = 0; i < d->nbobjs && complete; ++i) {
            const hwloc_obj_t obj = d->objs[i];
            complete =
                obj != nullptr && obj->logical_index < numa_count && !seen[obj->logical_index];
            if (complete) {
                seen[obj->logical_index] = true;
            }
        }
        if (!complete) {
            continue;
        }
        for (unsigned i = 0; i < d->nbobjs; ++i) {
            for (unsigned j = 0; j < d->nbobjs; ++j) {
                matrix.values[d->objs[i]->logical_index * numa_count + d->objs[j]->logical_index] =
                    d->values[i * d->nbobjs + j];
            }
        }
        const char *name = hwloc_distances_get_name(topology, d);
        matrix.name = name != nullptr ? name : "";
        return matrix;
    }
    return std::nullopt;
}

// -------------------------------------------------------------- weights

class WeightRule
{
  public:
    WeightRule(hwloc_topology_t topology, std::optional<LatencyMatrix> matrix)
        : topology_(topology), matrix_(std::move(matrix))
    {
    }

    bool uses_matrix() const { return matrix_.has_value(); }
    const std::string &matrix_name() const { return matrix_->name; }

    // The weight of the edge a -> b (never two ports).
    std::uint64_t weight(const Member &a, const Member &b) const
    {
        if (!matrix_) {
            return hierarchy_unit * (1 + static_cast<std::uint64_t>(hops(topology_, a, b)));
        }
        if (a.role == Role::port) {
            return farthest_of_nearest(a.nodes, b.nodes, false);
        }
        if (b.role == Role::port) {
            return farthest_of_nearest(b.nodes, a.nodes, true);
        }
        std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
        for (unsigned i : a.nodes) {
            for (unsigned j : b.nodes) {
                best = std::min(best, matrix_->at(i, j));
            }
        }
        return best;
    }

  private:
    // Over the port's nodes, the largest of the smallest latency to one of
    // the other's nodes; towards_port reads the matrix from the other side.
    std::uint64_t farthest_of_nearest(const std::vector<unsigned> &port_nodes,
                                      const std::vector<unsigned> &other_nodes,
                                      bool towards_port) const
    {
        std::uint64_t farthest = 0;
        for (unsigned p : port_nodes) {
            std::uint64_t nearest = std::numeric_limits<std::uint64_t>::max();
            for (unsigned o : other_nodes) {
                nearest = std::min(nearest, towards_port ? matrix_->at(o, p) : matrix_->at(p, o));
            }
            farthest = std::max(farthest, nearest);
        }
        return farthest;
    }

    hwloc_topology_t topology_;
    std::optional<LatencyMatrix> matrix_;
};

// -------------------------------------------------------------- ports

bool is_openfabrics(hwloc_obj_t osdev)
{
#if HWLOC_API_VERSION >= 0x00030000
    return (osdev->attr->osdev.types & HWLOC_OBJ_OSDEV_OPENFABRICS) != 0;
#else
    return osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
#endif
}

bool is_network(hwloc_obj_t osdev)
{
#if HWLOC_API_VERSION >= 0x00030000
    return (osdev->attr->osdev.types & HWLOC_OBJ_OSDEV_NETWORK) != 0;
#else
    return osdev->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK;
#endif
}

// Bytes in a hardware address written as hex bytes separated by colons.
std::size_t address_bytes(std::string_view address)
{
    return address.empty()
               ? 0
               : 1 + static_cast<std::size_t>(std::count(address.begin(), address.end(), ':'));
}

// IB for OpenFabrics devices and IP-over-InfiniBand interfaces, ETH for
// other network interfaces.  An IPoIB interface's hardware address has 20
// bytes (queue pair number and GID), an Ethernet one 6; hwloc's "Port"
// info is no sign, as RoCE Ethernet interfaces have it too.  Without an
// address (hand-written XML), the name decides: ib* is IPoIB.
std::pair<VertexType, std::string> port_type(hwloc_obj_t osdev)
{
    if (is_openfabrics(osdev)) {
        return {VertexType::ib, "an OpenFabrics device"};
    }
    const char *address = hwloc_obj_get_info_by_name(osdev, "Address");
    if (address != nullptr) {
        const std::size_t bytes = address_bytes(address);
        const std::string what =
            "a network interface with a " + std::to_string(bytes) + "-byte address";
        return bytes == 20 ? std::pair{VertexType::ib, what + " (IP over InfiniBand)"}
                           : std::pair{VertexType::eth, what};
    }
    if (util::starts_with(osdev->name != nullptr ? osdev->name : "", "ib")) {
        return {VertexType::ib, "a network interface without an address, named ib*"};
    }
    return {VertexType::eth, "a network interface without an address"};
}

} // namespace

Result<HostMap> map_topology(hwloc_topology_t topology, std::string_view source)
{
    HostMap map;
    std::vector<Member> members;
    const auto add = [&](std::string name, VertexType type, std::string origin, Member member) {
        map.vertices.push_back(HostVertex{std::move(name), type, std::move(origin)});
        members.push_back(std::move(member));
    };

    std::vector<hwloc_obj_t> numa_nodes;
    for (hwloc_obj_t numa = nullptr;
         (numa = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, numa)) != nullptr;) {
        numa_nodes.push_back(numa);
    }

    // Slots
    const hwloc_obj_t root = hwloc_get_root_obj(topology);
    std::size_t packages = 0;
    for (hwloc_obj_t package = nullptr;
         (package = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PACKAGE, package)) != nullptr;
         ++packages) {
        add("Slot" + std::to_string(package->logical_index), VertexType::slot,
            "package L#" + std::to_string(package->logical_index),
            Member{Role::slot, package, local_nodes(numa_nodes, package)});
    }
    if (packages == 0) {
        add("Slot0", VertexType::slot, "the machine (no package)",
            Member{Role::slot, root, local_nodes(numa_nodes, root)});
    }
    const std::size_t slot_count = map.vertices.size();

    // MEMs
    for (hwloc_obj_t numa : numa_nodes) {
        add("MEM" + std::to_string(numa->logical_index), VertexType::mem,
            "NUMA node L#" + std::to_string(numa->logical_index) + " (P#" +
                std::to_string(numa->os_index) + ")",
            Member{Role::mem, attachment_of(numa), {numa->logical_index}});
    }
    const std::size_t port_begin = map.vertices.size();

    // Ports
    for (hwloc_obj_t osdev = nullptr; (osdev = hwloc_get_next_osdev(topology, osdev)) != nullptr;) {
        if (!is_openfabrics(osdev) && !is_network(osdev)) {
            continue;
        }
        if (osdev->name == nullptr || osdev->name[0] == '\0') {
            return make_error(MERIDIAN_ERR_BAD_PARAM, "carto_auto: " + std::string(source) +
                                                          " has a network device without a name");
        }
        auto [type, why] = port_type(osdev);
        const hwloc_obj_t place = hwloc_get_non_io_ancestor_obj(topology, osdev);
        add(osdev->name, type, why, Member{Role::port, place, local_nodes(numa_nodes, place)});
    }

    std::set<std::string_view> names;
    for (const HostVertex &vertex : map.vertices) {
        if (!names.insert(vertex.name).second) {
            return make_error(MERIDIAN_ERR_EXISTS,
                              "carto_auto: " + std::string(source) + " has two vertices named " +
                                  util::quoted(vertex.name) +
                                  " (a device named like a Slot, a MEM or another device)");
        }
    }

    const WeightRule rule(topology, find_latency_matrix(topology, numa_nodes.size()));
    map.weights = rule.uses_matrix()
                      ? "weights from hwloc's NUMA latency matrix" +
                            (rule.matrix_name().empty() ? std::string()
                                                        : " " + util::quoted(rule.matrix_name()))
                      : "weights from the topology's hierarchy (no NUMA latency matrix covers "
                        "every NUMA node)";

    // adjacency[v]: (target, weight), sorted by target before it is written out.
    std::vector<std::vector<std::pair<std::size_t, std::uint64_t>>> adjacency(map.vertices.size());
    const auto link = [&](std::size_t a, std::size_t b) {
        adjacency[a].emplace_back(b, rule.weight(members[a], members[b]));
        adjacency[b].emplace_back(a, rule.weight(members[b], members[a]));
    };
    for (std::size_t s = 0; s < slot_count; ++s) {
        for (std::size_t other = s + 1; other < port_begin; ++other) {
            link(s, other); // the other Slots after it, and every MEM
        }
    }
    for (std::size_t port = port_begin; port < map.vertices.size(); ++port) {
        // The nearest Slots, then the nearest MEMs (all of them on a tie).
        for (const auto &[begin, end] :
             {std::pair{std::size_t{0}, slot_count}, std::pair{slot_count, port_begin}}) {
            std::uint64_t nearest = std::numeric_limits<std::uint64_t>::max();
            for (std::size_t v = begin; v < end; ++v) {
                nearest = std::min(nearest, rule.weight(members[port], members[v]));
            }
            for (std::size_t v = begin; v < end; ++v) {
                if (rule.weight(members[port], members[v]) == nearest) {
                    link(port, v);
                }
            }
        }
    }
    for (std::size_t v = 0; v < adjacency.size(); ++v) {
        std::stable_sort(adjacency[v].begin(), adjacency[v].end(),
                         [](const auto &x, const auto &y) { return x.first < y.first; });
        for (const auto &[target, weight] : adjacency[v]) {
            map.edges.push_back(HostEdge{v, target, weight});
        }
    }
    return map;
}

} // namespace meridian::carto_auto

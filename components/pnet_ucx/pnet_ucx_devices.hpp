// SPDX-License-Identifier: BSD-3-Clause
// pnet_ucx's data and rules, kept apart from the component's C glue so
// they can be tested on their own: a node's UCX devices, the inventory text
// that carries them from a node to the launcher, the host's devices through
// UCT, and the choice of devices per process.
#ifndef MERIDIAN_COMPONENTS_PNET_UCX_DEVICES_HPP
#define MERIDIAN_COMPONENTS_PNET_UCX_DEVICES_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/class/weighted_graph.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet_ucx
{

// One network device as UCX names it ("mlx5_0:1", "eth0") with the UCT
// transports that run on it, in the order UCX listed them.
struct Device {
    std::string name;
    std::vector<std::string> transports;
    std::int32_t package = -1;              // the processor it hangs off; -1 unknown
    fabric::Index plane = fabric::no_index; // set when matched with a fabric NIC
    bool operator==(const Device &) const = default;
};

// What a node has for UCX: its network devices, and the transports that move
// data inside the node (shared memory: posix, sysv, cma, xpmem, knem).
struct NodeDevices {
    std::vector<Device> devices;
    std::vector<std::string> local_transports;
    bool operator==(const NodeDevices &) const = default;
};

// ------------------------------------------------------------ inventory text
//
//   # pnet_ucx inventory 1
//   net NAME package=N tls=TL,TL,...     one per network device
//   local tls=TL,TL,...                  the node-local transports (at most once)
//
// Blank lines and '#' comments are ignored.  Names are what UCX prints
// (letters, digits, "_-.:"); N is -1 or 0..65535.  The plane is not part of
// the text: the launcher learns it from the fabric.

std::string format_inventory(const NodeDevices &node);
// Errors (MERIDIAN_ERR_BAD_PARAM): "WHERE:LINE:COL: expected X, found Y".
Result<NodeDevices> parse_inventory(std::string_view text, std::string_view where);

// ------------------------------------------------------------ the host

// One transport resource as UCT reports it.
enum class ResourceKind { network, local, loopback, accelerator };
struct Resource {
    std::string transport;
    std::string device;
    ResourceKind kind;
};

// Every UCT transport resource of this host: each component's memory
// domains opened in turn, their resources listed.  An MD that does not open
// (no permission, device gone) is skipped: UCX would not use it either.  A
// network resource on a loopback interface (tcp on "lo") is reported as
// loopback: it reaches no other node.
Result<std::vector<Resource>> query_uct_resources();
// Whether `device` is a network interface of this host flagged IFF_LOOPBACK.
bool is_loopback_interface(std::string_view device);

// The node's devices from UCT's resources: network resources grouped by
// device (first appearance order), shared-memory ones as local transports;
// loopback ("self") and accelerator memory are not network devices and are
// left out.  Packages from `host` (may be null: all -1).
NodeDevices devices_from_resources(std::span<const Resource> resources, const WeightedGraph *host);

// The carto vertex name a UCX device hangs off: "mlx5_0:1" -> "mlx5_0",
// "eth0" -> "eth0".
std::string_view nic_of_device(std::string_view device);
// The package of the nearest Slot<n> to the device's vertex in `graph`
// (the device's NIC name, else its full name); -1 when neither vertex exists
// or no Slot can be reached.
std::int32_t package_of(const WeightedGraph &graph, std::string_view device);

// ------------------------------------------------------------ allocation

// A node as allocation sees it (devices with their planes resolved).
struct NodeView {
    std::string_view name;
    const NodeDevices *devices = nullptr; // null: none
};

// One "ucx" request, resolved against the fabric.
struct Choice {
    std::string_view request_id;
    std::uint32_t endpts = 1;
    bool endpts_required = false;
    fabric::Index plane = fabric::no_index; // no_index: any plane
    std::string_view plane_name;            // for messages
    bool plane_required = false;
};

// Fill grant.device_offsets / devices / device_names for every process of
// `procs`: up to choice.endpts devices of its node, those on the process's
// package first, then the rest, ties in the node's order; restricted to the
// plane when one is given (best effort: a node with no device on it offers
// all its devices).  `node_of(i)` gives the job's node of fabric node index
// i.  Errors (MERIDIAN_ERR_OUT_OF_RESOURCE, nothing written), first failing
// node in `job_nodes` order:
//   request "fast": ENDPTS 2 is required but node01 has 1 UCX device on plane ib0
//   request "fast": PLANE ib0 is required but node01 has no UCX device on it
// Time: O(processes x devices per node + nodes).
template <typename NodeOf>
Status assign_devices(std::span<const fabric::ProcPlacement> procs,
                      std::span<const fabric::Index> job_nodes, NodeOf &&node_of,
                      const Choice &choice, pnet::Grant &grant);

// UCX_TLS for a process: the transports all its devices share (in the first
// device's order; all of them, in order of appearance, when they share
// none), then the node's local transports, then "self".
std::string transports_for(std::span<const Device *const> devices,
                           std::span<const std::string> local_transports);

// ------------------------------------------------------------ implementation

namespace detail
{
// Whether the request may use `device` (use_plane: the node has devices on
// the request's plane, so only those count).
inline bool eligible(const Device &device, fabric::Index plane, bool use_plane)
{
    return !use_plane || device.plane == plane;
}
std::string shortfall_message(const Choice &choice, std::string_view node, std::size_t count);
std::string no_plane_message(const Choice &choice, std::string_view node);
// The warnings of a best-effort request served short, as pnet_tcp words
// them: the first node without a device on the plane, the first with fewer
// devices than asked (count 0: none at all).
void warn_plane_fallback(const Choice &choice, std::string_view node);
void warn_shortfall(const Choice &choice, std::string_view node, std::size_t count);
using NameIndex = std::unordered_map<std::string, std::uint32_t>;
// name's index in `names`, appended when new.
std::uint32_t intern(std::vector<std::string> &names, std::string_view name, NameIndex &index);
} // namespace detail

template <typename NodeOf>
Status assign_devices(std::span<const fabric::ProcPlacement> procs,
                      std::span<const fabric::Index> job_nodes, NodeOf &&node_of,
                      const Choice &choice, pnet::Grant &grant)
{
    // First every node's verdict, so a failure writes nothing; what a
    // best-effort request goes without is said once it is served.
    std::optional<std::string_view> plane_fallback;
    std::optional<std::pair<std::string_view, std::size_t>> short_of;
    for (const fabric::Index index : job_nodes) {
        const NodeView node = node_of(index);
        std::size_t on_plane = 0;
        std::size_t total = 0;
        if (node.devices != nullptr) {
            total = node.devices->devices.size();
            for (const Device &device : node.devices->devices) {
                on_plane += detail::eligible(device, choice.plane, true) ? 1 : 0;
            }
        }
        const bool planed = choice.plane != fabric::no_index;
        if (planed && on_plane == 0 && choice.plane_required) {
            return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                              detail::no_plane_message(choice, node.name));
        }
        const std::size_t usable = planed && on_plane > 0 ? on_plane : total;
        if (choice.endpts_required && usable < choice.endpts) {
            return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                              detail::shortfall_message(choice, node.name, usable));
        }
        if (planed && on_plane == 0 && total > 0 && !plane_fallback) {
            plane_fallback = node.name;
        }
        if (usable < choice.endpts && !short_of) {
            short_of.emplace(node.name, usable);
        }
    }
    if (plane_fallback) {
        detail::warn_plane_fallback(choice, *plane_fallback);
    }
    if (short_of) {
        detail::warn_shortfall(choice, short_of->first, short_of->second);
    }

    grant.device_offsets.assign(procs.size() + 1, 0);
    grant.devices.clear();
    grant.device_names.clear();
    // Device names repeat on every node: one table entry per distinct name.
    detail::NameIndex index;
    for (std::size_t rank = 0; rank < procs.size(); ++rank) {
        const fabric::ProcPlacement &proc = procs[rank];
        const NodeView node = node_of(proc.node);
        grant.device_offsets[rank] = static_cast<std::uint32_t>(grant.devices.size());
        if (node.devices == nullptr) {
            continue;
        }
        const auto &devices = node.devices->devices;
        bool use_plane = false;
        if (choice.plane != fabric::no_index) {
            for (const Device &device : devices) {
                use_plane = use_plane || device.plane == choice.plane;
            }
        }
        std::uint32_t taken = 0;
        // Two passes: the process's own package, then everything else.
        for (int pass = 0; pass < 2 && taken < choice.endpts; ++pass) {
            for (const Device &device : devices) {
                if (taken == choice.endpts) {
                    break;
                }
                const bool near = proc.package >= 0 && device.package == proc.package;
                if ((pass == 0) != near || !detail::eligible(device, choice.plane, use_plane)) {
                    continue;
                }
                grant.devices.push_back(detail::intern(grant.device_names, device.name, index));
                ++taken;
            }
        }
    }
    grant.device_offsets[procs.size()] = static_cast<std::uint32_t>(grant.devices.size());
    return success();
}

} // namespace meridian::pnet_ucx

#endif

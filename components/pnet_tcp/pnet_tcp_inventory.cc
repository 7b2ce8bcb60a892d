// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's inventory (pnet_tcp_inventory.hpp).
#include "components/pnet_tcp/pnet_tcp_inventory.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "components/pnet_tcp/pnet_tcp_allocate.hpp"
#include "components/pnet_tcp/pnet_tcp_claim.hpp"
#include "components/pnet_tcp/pnet_tcp_switches.hpp"
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet_tcp
{

namespace
{

struct Interface {
    std::string name;
    std::uint32_t address = 0; // host order
    std::uint32_t netmask = 0; // host order
    bool loopback = false;
};

// Every UP interface's first IPv4 address, in getifaddrs order.
Result<std::vector<Interface>> up_interfaces()
{
    ifaddrs *list = nullptr;
    if (getifaddrs(&list) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          std::string("pnet_tcp: cannot list this host's interfaces: ") +
                              std::strerror(errno));
    }
    const std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owned(list, &freeifaddrs);
    std::vector<Interface> found;
    for (const ifaddrs *entry = list; entry != nullptr; entry = entry->ifa_next) {
        if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET ||
            entry->ifa_netmask == nullptr || (entry->ifa_flags & IFF_UP) == 0) {
            continue;
        }
        const std::string name = entry->ifa_name;
        // Aliases (a second address on one interface) are the same NIC.
        if (std::any_of(found.begin(), found.end(),
                        [&](const Interface &i) { return i.name == name; })) {
            continue;
        }
        Interface interface;
        interface.name = name;
        interface.address =
            ntohl(reinterpret_cast<const sockaddr_in *>(entry->ifa_addr)->sin_addr.s_addr);
        interface.netmask =
            ntohl(reinterpret_cast<const sockaddr_in *>(entry->ifa_netmask)->sin_addr.s_addr);
        interface.loopback = (entry->ifa_flags & IFF_LOOPBACK) != 0;
        found.push_back(std::move(interface));
    }
    // Loopback last: it reaches nobody else, so it is the NIC of last resort.
    std::stable_partition(found.begin(), found.end(),
                          [](const Interface &i) { return !i.loopback; });
    return found;
}

// Mbit/s from /sys/class/net/IF/speed; 0 (unknown) when absent or -1.
std::uint64_t link_speed(const std::string &interface)
{
    std::ifstream file("/sys/class/net/" + interface + "/speed");
    long long speed = -1;
    if (!(file >> speed) || speed <= 0) {
        return 0;
    }
    return static_cast<std::uint64_t>(speed);
}

// The package number of carto's nearest Slot<n> to the NIC, -1 when carto
// does not know the NIC (or has no map).
std::int32_t nic_package(const WeightedGraph *graph, const std::string &interface)
{
    if (graph == nullptr) {
        return -1;
    }
    const auto vertex = graph->find(interface);
    if (!vertex) {
        return -1;
    }
    auto slots = graph->distance_list(*vertex, type_mask(VertexType::slot));
    if (!slots) {
        return -1;
    }
    for (const auto &entry : *slots) {
        if (!entry.distance) {
            continue;
        }
        const std::string_view name = graph->name(entry.vertex);
        std::int32_t package = -1;
        const char *first = name.data() + 4; // after "Slot" (any case)
        if (name.size() > 4 &&
            std::from_chars(first, name.data() + name.size(), package).ec == std::errc() &&
            package >= 0) {
            return package;
        }
    }
    return -1;
}

std::uint32_t packages_in(const WeightedGraph *graph)
{
    if (graph == nullptr) {
        return 1;
    }
    std::uint32_t count = 0;
    for (VertexId v = 0; v < graph->vertex_count(); ++v) {
        if (graph->type(v) == VertexType::slot) {
            ++count;
        }
    }
    return std::max<std::uint32_t>(count, 1);
}

std::string host_name()
{
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) != 0 || buffer[0] == '\0') {
        return "localhost";
    }
    return buffer;
}

// The fabric text with node `from` called `to` ("node NAME" and "nic NODE"
// lines; the format puts the node's name second on both).
std::string rename_node(std::string_view text, const std::string &from, const std::string &to)
{
    std::string out;
    out.reserve(text.size() + 64);
    for (const auto &line : util::split(text, '\n')) {
        std::istringstream words(line);
        std::string keyword, name;
        words >> keyword >> name;
        if ((keyword == "node" || keyword == "nic") && name == from) {
            const auto at = line.find(name, line.find(keyword) + keyword.size());
            out += line.substr(0, at) + to + line.substr(at + name.size());
        } else {
            out += line;
        }
        out += '\n';
    }
    return out;
}

// The switches of the map on a plane this host has just described: all
// those with an address in its subnet, in the map's order, so that every
// host numbers a plane's switches alike (coord_tcp's y).
Status add_switches(fabric::Fabric &host, fabric::Index plane, const fabric::Cidr &subnet,
                    const SwitchMap &map)
{
    for (std::size_t i = 0; i < map.switches().size(); ++i) {
        if (!map.touches(i, subnet)) {
            continue;
        }
        const std::string &name = map.switches()[i].name;
        if (const auto known = host.find_switch(name)) {
            return make_error(MERIDIAN_ERR_BAD_PARAM,
                              param_where("pnet_tcp_switches") + ": switch " + util::quoted(name) +
                                  " has addresses in " +
                                  host.planes()[host.switches()[*known].plane].name + " and in " +
                                  subnet.text() +
                                  ", two planes of this host; a switch is on one plane");
        }
        if (auto added = host.add_switch(name, plane); !added) {
            return added.error();
        }
    }
    return success();
}

} // namespace

Result<fabric::Fabric> host_fabric(std::vector<fabric::PortPoolSpec> ports)
{
    auto interfaces = up_interfaces();
    if (!interfaces) {
        return interfaces.error();
    }
    // carto places each NIC; without a map the NICs are simply unplaced.
    const WeightedGraph *graph = nullptr;
    if (auto map = carto::host_graph(); map) {
        graph = *map;
    } else {
        meridian_mca_base_framework_verbose(&meridian_pnet_base_framework, MCA_BASE_VERBOSE_INFO,
                                            "pnet_tcp: no carto map, NIC packages unknown: %s",
                                            map.error().message.c_str());
    }

    auto switches = switch_map();
    if (!switches) {
        return switches.error();
    }

    fabric::Fabric host;
    fabric::Node node;
    node.name = host_name();
    node.packages = packages_in(graph);
    node.cores = node.packages;
    node.ports = std::move(ports);
    auto node_index = host.add_node(std::move(node));
    if (!node_index) {
        return make_error(node_index.error().status,
                          "pnet_tcp: this host cannot be described: " + node_index.error().message);
    }
    for (const auto &interface : *interfaces) {
        const auto prefix = static_cast<std::uint8_t>(std::popcount(interface.netmask));
        const fabric::Cidr subnet{interface.address & interface.netmask, prefix};
        const std::string plane_name = subnet.text();
        auto plane = host.find_plane(plane_name);
        if (!plane) {
            fabric::Plane described;
            described.name = plane_name;
            described.cidr = subnet;
            auto added = host.add_plane(std::move(described));
            if (!added) {
                continue; // an odd netmask: not a plane processes can share
            }
            plane = *added;
            if (auto done = add_switches(host, *plane, subnet, *switches); !done) {
                return done.error();
            }
        }
        fabric::Nic nic;
        nic.name = interface.name;
        nic.node = *node_index;
        nic.plane = *plane;
        nic.address = interface.address;
        nic.speed_mbps = link_speed(interface.name);
        nic.package = nic_package(graph, interface.name);
        if (const auto sw = switches->switch_of(interface.address)) {
            // add_switches put it on this plane: its address is in the subnet.
            nic.sw = *host.find_switch(switches->switches()[*sw].name);
        }
        if (auto added = host.add_nic(std::move(nic)); !added) {
            meridian_mca_base_framework_verbose(
                &meridian_pnet_base_framework, MCA_BASE_VERBOSE_INFO,
                "pnet_tcp: interface %s left out: %s", interface.name.c_str(),
                added.error().message.c_str());
        }
    }
    return host;
}

Result<std::string> inventory_text()
{
    const char *path = fabric_file_path();
    if (path != nullptr && path[0] != '\0') {
        auto described = fabric::read_fabric_file(path);
        if (!described) {
            return make_error(described.error().status, "pnet_tcp: " + described.error().message);
        }
        return fabric::format_fabric(*described);
    }
    auto pools = static_pools();
    if (!pools) {
        return pools.error();
    }
    // In a job, the ports this host offers are the job's claim in the host's
    // port ledger (pnet_tcp_claim.hpp), marked so that no reader falls back
    // to pnet_tcp_static_ports when the claim is empty.
    auto claimed = claim_host_ports(*pools);
    if (!claimed) {
        return claimed.error();
    }
    auto host = host_fabric(*claimed ? std::move(**claimed) : std::move(*pools));
    if (!host) {
        return host.error();
    }
    if (*claimed) {
        return std::string(claim_marker) + "\n" + fabric::format_fabric(*host);
    }
    return fabric::format_fabric(*host);
}

Status deliver(std::string_view node, std::span<const std::uint8_t> blob, fabric::Fabric &fabric)
{
    const std::string_view text(reinterpret_cast<const char *>(blob.data()), blob.size());
    const std::string origin = "inventory of " + std::string(node);
    auto parsed = fabric::parse_fabric(text, origin);
    if (!parsed) {
        return make_error(parsed.error().status, "pnet_tcp: " + parsed.error().message);
    }
    // A host names itself; the launcher's name for it is the one jobs use.
    if (parsed->nodes().size() == 1 && parsed->nodes()[0].name != node) {
        parsed = fabric::parse_fabric(rename_node(text, parsed->nodes()[0].name, std::string(node)),
                                      origin);
        if (!parsed) {
            return make_error(parsed.error().status, "pnet_tcp: " + parsed.error().message);
        }
    }
    if (auto merged = fabric.merge(*parsed); !merged) {
        return make_error(merged.error().status, "pnet_tcp: " + merged.error().message);
    }
    if (parsed->nodes().size() == 1 && util::starts_with(text, claim_marker)) {
        note_claimed_node(node);
    }
    return success();
}

} // namespace meridian::pnet_tcp

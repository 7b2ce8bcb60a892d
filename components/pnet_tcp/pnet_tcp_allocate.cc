// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's allocation (pnet_tcp_allocate.hpp; rules in README.md).
//
// Cost: one pass over the processes per request plus work per touched pool;
// per-process data lives in flat arrays (the NIC and pool each process uses),
// and a node's pools are made the first time a job touches the node.
#include "components/pnet_tcp/pnet_tcp_allocate.hpp"
#include "components/pnet_tcp/pnet_tcp_claim.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet_tcp
{

namespace
{

using fabric::Index;
constexpr std::uint32_t none = UINT32_MAX;
constexpr std::uint32_t not_looked_up = UINT32_MAX - 1;

struct Pool {
    fabric::Protocol protocol = fabric::Protocol::tcp;
    std::optional<fabric::Cidr> subnet;
    fabric::PortPool free;
};

struct NodePools {
    std::vector<Pool> pools;
};

// Free ports per fabric node name: what one job took stays taken for the
// next job until deregister gives it back.  Jobs on the fabric last used
// find their nodes' entries by index, without hashing names (entries of an
// unordered_map stay put while it grows).
struct Ledger {
    std::unordered_map<std::string, NodePools> by_name;
    std::weak_ptr<const fabric::Fabric> fabric;
    std::vector<NodePools *> by_index; // per node of `fabric`; nullptr: not looked up
};

Ledger &ledger()
{
    static Ledger pools;
    return pools;
}

// The ledger's index for `fabric` (made anew when the fabric changes).
std::vector<NodePools *> &ledger_index(const std::shared_ptr<const fabric::Fabric> &fabric)
{
    Ledger &all = ledger();
    if (all.fabric.lock() != fabric) {
        all.fabric = fabric;
        all.by_index.assign(fabric->nodes().size(), nullptr);
    }
    // A fabric only grows (nodes are appended): known indices stay right.
    all.by_index.resize(fabric->nodes().size(), nullptr);
    return all.by_index;
}

// A node's pools, made from its ports= (or pnet_tcp_static_ports) on first use.
Result<NodePools *> pools_of(const fabric::Fabric &fab, std::vector<NodePools *> &index, Index node)
{
    if (index[node] != nullptr) {
        return index[node];
    }
    auto &all = ledger().by_name;
    const fabric::Node &host = fab.nodes()[node];
    if (const auto found = all.find(host.name); found != all.end()) {
        return index[node] = &found->second;
    }
    std::vector<fabric::PortPoolSpec> specs = host.ports;
    // A host whose inventory was its claim in its port ledger has those
    // ports only (pnet_tcp_claim.hpp).
    if (specs.empty() && !ports_are_claimed(host.name)) {
        auto defaults = static_pools();
        if (!defaults) {
            return defaults.error();
        }
        specs = *defaults;
    }
    // Pools of one protocol on one subnet (or on every NIC) are one pool,
    // however many times the text names them: "tcp:100-101;tcp:200-201" is
    // four ports (the parser has refused a port named twice among them).
    std::vector<fabric::PortPoolSpec> merged;
    for (const auto &spec : specs) {
        const auto same = std::find_if(merged.begin(), merged.end(), [&](const auto &m) {
            return m.protocol == spec.protocol && m.subnet == spec.subnet;
        });
        if (same == merged.end()) {
            merged.push_back(spec);
        } else {
            same->ranges.insert(same->ranges.end(), spec.ranges.begin(), spec.ranges.end());
        }
    }
    NodePools made;
    for (const auto &spec : merged) {
        made.pools.push_back(Pool{spec.protocol, spec.subnet, fabric::PortPool(spec.ranges)});
    }
    return index[node] = &all.emplace(host.name, std::move(made)).first->second;
}

// The pool a NIC's ports come from: the narrowest subnet pool holding its
// address, else a pool for every NIC.
std::uint32_t find_pool(const NodePools &node, fabric::Protocol protocol, std::uint32_t address)
{
    std::uint32_t best = none;
    int best_prefix = -1;
    for (std::uint32_t i = 0; i < node.pools.size(); ++i) {
        const Pool &pool = node.pools[i];
        if (pool.protocol != protocol) {
            continue;
        }
        const int prefix = pool.subnet ? pool.subnet->prefix : -1;
        if (pool.subnet && !pool.subnet->contains(address)) {
            continue;
        }
        if (best == none || prefix > best_prefix) {
            best = i;
            best_prefix = prefix;
        }
    }
    return best;
}

std::string processes(std::uint64_t count)
{
    return std::to_string(count) + (count == 1 ? " process" : " processes");
}

std::string quote_id(const pnet::Grant &grant)
{
    return "request \"" + grant.id + "\": ";
}

bool is_mine(const pnet::Grant &grant)
{
    return grant.component == component_name && (grant.type == "tcp" || grant.type == "udp");
}

// Per allocate call: the job's nodes as they are touched, with their pools
// and where their pools sit in the flat per-pool counters.
class Nodes
{
  public:
    explicit Nodes(const std::shared_ptr<const fabric::Fabric> &fabric)
        : fabric_(*fabric), index_(ledger_index(fabric)), slot_of_(fabric->nodes().size(), none)
    {
    }

    // The slot of a fabric node (made on first use).
    Result<std::uint32_t> slot(Index node)
    {
        if (slot_of_[node] != none) {
            return slot_of_[node];
        }
        auto pools = pools_of(fabric_, index_, node);
        if (!pools) {
            return pools.error();
        }
        const auto slot = static_cast<std::uint32_t>(nodes_.size());
        nodes_.push_back(node);
        pools_.push_back(*pools);
        first_pool_.push_back(pool_count_);
        pool_count_ += static_cast<std::uint32_t>((*pools)->pools.size());
        slot_of_[node] = slot;
        return slot;
    }
    std::size_t size() const { return nodes_.size(); }
    Index node(std::uint32_t slot) const { return nodes_[slot]; }
    NodePools &pools(std::uint32_t slot) { return *pools_[slot]; }
    std::uint32_t first_pool(std::uint32_t slot) const { return first_pool_[slot]; }
    std::uint32_t pool_count() const { return pool_count_; }

  private:
    const fabric::Fabric &fabric_;
    std::vector<NodePools *> &index_;
    std::vector<std::uint32_t> slot_of_; // per fabric node; none: not touched yet
    std::vector<Index> nodes_;
    std::vector<NodePools *> pools_;
    std::vector<std::uint32_t> first_pool_;
    std::uint32_t pool_count_ = 0;
};

struct Failure {
    int status;
    std::string message;
};

// Give a grant's ports back to the pools they came from (the NIC recorded per
// process names the pool), and forget them so a second call gives nothing.
void release(const pnet::Job &job, pnet::Grant &grant)
{
    const fabric::Fabric &fab = *job.fabric;
    const auto protocol = grant.type == "udp" ? fabric::Protocol::udp : fabric::Protocol::tcp;
    std::vector<NodePools *> &index = ledger_index(job.fabric);
    auto &all = ledger().by_name;
    // Per node, looked up when the node changes (ranks come grouped by node):
    // its pools and, per device name, the pool the ports go back to.
    Index node = fabric::no_index;
    NodePools *pools = nullptr;
    std::vector<std::uint32_t> pool_of_device;
    const auto ranks = static_cast<std::uint32_t>(job.map.procs.size());
    for (std::uint32_t rank = 0; rank < ranks && !grant.port_offsets.empty(); ++rank) {
        const auto ports = grant.ports_of(rank);
        const auto devices = grant.devices_of(rank);
        if (ports.empty() || devices.empty()) {
            continue;
        }
        if (job.map.procs[rank].node != node) {
            node = job.map.procs[rank].node;
            pools = index[node];
            if (pools == nullptr) {
                const auto found = all.find(fab.nodes()[node].name);
                pools = found == all.end() ? nullptr : &found->second;
            }
            pool_of_device.assign(grant.device_names.size(), not_looked_up);
        }
        if (pools == nullptr) {
            continue;
        }
        std::uint32_t &pool = pool_of_device[devices[0]];
        if (pool == not_looked_up) {
            const auto nic = fab.find_nic(node, grant.device_names[devices[0]]);
            pool = nic && fab.nics()[*nic].address
                       ? find_pool(*pools, protocol, *fab.nics()[*nic].address)
                       : none;
        }
        if (pool != none) {
            pools->pools[pool].free.give_back(ports);
        }
    }
    grant.port_offsets.clear();
    grant.ports.clear();
    grant.device_offsets.clear();
    grant.devices.clear();
    grant.device_names.clear();
}

// One request being served: what it asks, and what each check found, kept
// for the take at the end.
struct Serving {
    Serving(pnet::Job &job_in, const pnet::Request &request_in, pnet::Grant &grant_in,
            Nodes &nodes_in)
        : job(job_in), request(request_in), grant(grant_in), nodes(nodes_in), fab(*job_in.fabric),
          protocol(grant_in.type == "udp" ? fabric::Protocol::udp : fabric::Protocol::tcp),
          proto(fabric::protocol_name(protocol)),
          ranks(static_cast<std::uint32_t>(job_in.map.procs.size())),
          endpts(request_in.endpts ? request_in.endpts->value : 1),
          endpts_required(request_in.endpts && request_in.endpts->required),
          plane_required(request_in.plane && request_in.plane->required),
          nic_of(ranks, fabric::no_index), pool_of(ranks, none), plane_used(fab.planes().size(), 0)
    {
    }

    pnet::Job &job;
    const pnet::Request &request;
    pnet::Grant &grant;
    Nodes &nodes;
    const fabric::Fabric &fab;
    const fabric::Protocol protocol;
    const std::string proto;
    const std::uint32_t ranks;
    const std::uint32_t endpts;
    const bool endpts_required;
    const bool plane_required;

    std::optional<Index> wanted;         // the plane asked for, when the fabric has it
    std::vector<Index> nic_of;           // per rank (no_index: none)
    std::vector<std::uint32_t> pool_of;  // per rank: a flat pool (none: none)
    std::vector<std::uint32_t> users;    // per flat pool: processes drawing from it
    std::vector<std::uint32_t> free_at;  // per flat pool: its free ports
    std::vector<char> plane_used;        // per plane
    std::optional<std::string> no_pool;  // best effort: the first node without ports
    std::optional<std::string> short_of; // best effort: the first pool short of ports
    bool pool_short = false;             // a pool (not a missing one) is short
    std::optional<std::uint32_t> qos;    // assigned
    std::optional<double> bandwidth;     // assigned, per process
};

// The plane asked for: found, or (best effort) said to be missing.
std::optional<Failure> find_plane(Serving &s)
{
    if (!s.request.plane) {
        return std::nullopt;
    }
    s.wanted = s.fab.find_plane(s.request.plane->value);
    if (s.wanted) {
        return std::nullopt;
    }
    std::vector<std::string> names;
    for (const auto &plane : s.fab.planes()) {
        names.push_back(plane.name);
    }
    const std::string known = names.empty() ? "none" : util::join(names, ", ");
    if (s.plane_required) {
        return Failure{MERIDIAN_ERR_NOT_FOUND,
                       quote_id(s.grant) + "PLANE " + s.request.plane->value +
                           " is required but the fabric has no such plane (planes: " + known + ")"};
    }
    report_warning(quote_id(s.grant) + "PLANE " + s.request.plane->value +
                   " is not in the fabric (planes: " + known +
                   "); using each process's nearest NIC with a " + s.proto + " port pool");
    return std::nullopt;
}

// The nearest NIC of a process with an address (on the plane, if one is
// given) that has a pool; on_plane says whether the process has a NIC there.
void pick_nic(Serving &s, std::uint32_t rank, std::uint32_t slot, std::optional<Index> plane,
              bool &on_plane)
{
    on_plane = false;
    const NodePools &pools = s.nodes.pools(slot);
    for (const Index nic : s.job.nics_of(rank)) {
        const fabric::Nic &n = s.fab.nics()[nic];
        if (!n.address || (plane && n.plane != *plane)) {
            continue;
        }
        on_plane = true;
        const std::uint32_t pool = find_pool(pools, s.protocol, *n.address);
        if (pool != none) {
            s.nic_of[rank] = nic;
            s.pool_of[rank] = s.nodes.first_pool(slot) + pool;
            return;
        }
    }
}

// How many processes a NIC of `speed` Mbit/s carries at `asked` each, at most
// `limit`: the largest n with speed / n >= asked, the division
// check_bandwidth makes.
std::uint32_t carries(std::uint64_t speed, double asked, std::uint32_t limit)
{
    const auto rate = static_cast<double>(speed);
    const double whole = std::floor(rate / asked);
    std::uint32_t n = !(whole < limit) ? limit : static_cast<std::uint32_t>(whole);
    while (n > 0 && rate / n < asked) {
        --n;
    }
    while (n < limit && rate / (n + 1) >= asked) {
        ++n;
    }
    return n;
}

// The processes of one node on one plane, and the rails they may share: the
// node's NICs on that plane with an address, a pool for the protocol and a
// known speed, in the node's NIC order.
struct RailGroup {
    Index node = fabric::no_index;
    Index plane = fabric::no_index;
    std::uint32_t slot = none;
    std::vector<Index> rails;
    std::vector<std::uint32_t> members; // ranks, ascending
};

std::uint32_t rail_index(const RailGroup &group, Index nic)
{
    const auto at = std::find(group.rails.begin(), group.rails.end(), nic);
    return at == group.rails.end() ? none : static_cast<std::uint32_t>(at - group.rails.begin());
}

// The most even spread of `count` processes over rails of these speeds: each
// process goes where it gets most (ties: the rail first in node order), which
// makes the least share as large as it can be.
std::vector<std::uint32_t> even_spread(const std::vector<double> &speeds, std::uint32_t count)
{
    std::vector<std::uint32_t> taken(speeds.size(), 0);
    for (std::uint32_t k = 0; k < count; ++k) {
        std::size_t best = 0;
        for (std::size_t i = 1; i < speeds.size(); ++i) {
            if (speeds[i] / (taken[i] + 1) > speeds[best] / (taken[best] + 1)) {
                best = i;
            }
        }
        ++taken[best];
    }
    return taken;
}

// One group: every process stays on its nearest rail while that rail carries
// the bandwidth asked; the others, in rank order, take the next-nearest rail
// with room.  When all rails together cannot carry every process: required
// fails, naming the rails; best effort spreads the processes as evenly as the
// speeds allow (check_bandwidth then assigns the least share).
std::optional<Failure> spread_group(Serving &s, const RailGroup &group, double asked)
{
    const auto count = static_cast<std::uint32_t>(group.members.size());
    std::vector<std::uint32_t> room(group.rails.size(), 0);
    std::vector<double> speeds;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < group.rails.size(); ++i) {
        const std::uint64_t speed = s.fab.nics()[group.rails[i]].speed_mbps;
        speeds.push_back(static_cast<double>(speed));
        room[i] = carries(speed, asked, count);
        total += room[i];
    }
    if (total < count) {
        if (s.request.bandwidth_mbps->required) {
            std::vector<std::string> rails;
            for (std::size_t i = 0; i < group.rails.size(); ++i) {
                rails.push_back(s.fab.nics()[group.rails[i]].name + " " +
                                fabric::format_rate_mbps(speeds[i]));
            }
            return Failure{MERIDIAN_ERR_OUT_OF_RESOURCE,
                           quote_id(s.grant) + "BANDWIDTH " + fabric::format_rate_mbps(asked) +
                               " is required but " + s.fab.nodes()[group.node].name +
                               "'s rails on plane " + s.fab.planes()[group.plane].name + " (" +
                               util::join(rails, ", ") + ") carry at most " +
                               std::to_string(total) + " of its " + processes(count) +
                               " at that rate"};
        }
        room = even_spread(speeds, count);
    }
    std::vector<std::uint32_t> moving;
    for (const std::uint32_t rank : group.members) {
        std::uint32_t &left = room[rail_index(group, s.nic_of[rank])];
        if (left > 0) {
            --left;
        } else {
            moving.push_back(rank);
        }
    }
    const NodePools &pools = s.nodes.pools(group.slot);
    for (const std::uint32_t rank : moving) {
        for (const Index nic : s.job.nics_of(rank)) {
            const std::uint32_t rail = rail_index(group, nic);
            if (rail == none || room[rail] == 0) {
                continue;
            }
            --room[rail];
            --s.users[s.pool_of[rank]];
            s.nic_of[rank] = nic;
            s.pool_of[rank] = s.nodes.first_pool(group.slot) +
                              find_pool(pools, s.protocol, *s.fab.nics()[nic].address);
            ++s.users[s.pool_of[rank]];
            break;
        }
    }
    return std::nullopt;
}

// A request with a bandwidth: where a NIC cannot carry the processes that
// chose it, its node's processes on that plane are spread over the plane's
// rails there (README.md, rule 5).  Nothing moves when every NIC carries its
// processes, or when its speed is unknown.
std::optional<Failure> spread_over_rails(Serving &s)
{
    if (!s.request.bandwidth_mbps) {
        return std::nullopt;
    }
    const double asked = s.request.bandwidth_mbps->value;
    std::vector<std::uint32_t> load(s.fab.nics().size(), 0); // per NIC: processes
    for (std::uint32_t rank = 0; rank < s.ranks; ++rank) {
        if (s.nic_of[rank] != fabric::no_index) {
            ++load[s.nic_of[rank]];
        }
    }
    std::vector<std::uint32_t> group_of_nic(s.fab.nics().size(), none);
    std::vector<RailGroup> groups;
    for (Index nic = 0; nic < load.size(); ++nic) {
        const fabric::Nic &overloaded = s.fab.nics()[nic];
        if (load[nic] == 0 || overloaded.speed_mbps == 0 || group_of_nic[nic] != none ||
            carries(overloaded.speed_mbps, asked, load[nic]) >= load[nic]) {
            continue;
        }
        RailGroup group;
        group.node = overloaded.node;
        group.plane = overloaded.plane;
        group.slot = s.nodes.slot(group.node).value(); // made by choose_nics
        for (const Index rail : s.fab.nodes()[group.node].nics) {
            const fabric::Nic &n = s.fab.nics()[rail];
            if (n.plane == group.plane && n.address && n.speed_mbps > 0 &&
                find_pool(s.nodes.pools(group.slot), s.protocol, *n.address) != none) {
                group.rails.push_back(rail);
                group_of_nic[rail] = static_cast<std::uint32_t>(groups.size());
            }
        }
        groups.push_back(std::move(group));
    }
    for (std::uint32_t rank = 0; rank < s.ranks; ++rank) {
        const Index nic = s.nic_of[rank];
        if (nic != fabric::no_index && group_of_nic[nic] != none) {
            groups[group_of_nic[nic]].members.push_back(rank);
        }
    }
    for (const RailGroup &group : groups) {
        // One rail: nothing to spread over; check_bandwidth says what it gives.
        if (group.rails.size() < 2) {
            continue;
        }
        if (auto failure = spread_group(s, group, asked)) {
            return failure;
        }
    }
    return std::nullopt;
}

// Each process's NIC and pool.
std::optional<Failure> choose_nics(Serving &s)
{
    std::optional<std::string> plane_fallback; // best effort: the first node that had to
    for (std::uint32_t rank = 0; rank < s.ranks; ++rank) {
        const Index node = s.job.map.procs[rank].node;
        auto slot = s.nodes.slot(node);
        if (!slot) {
            return Failure{slot.error().status, slot.error().message};
        }
        s.users.resize(s.nodes.pool_count(), 0);
        bool on_plane = false;
        pick_nic(s, rank, *slot, s.wanted, on_plane);
        if (s.wanted && s.pool_of[rank] == none) {
            const std::string &node_name = s.fab.nodes()[node].name;
            if (s.plane_required && !on_plane) {
                return Failure{MERIDIAN_ERR_OUT_OF_RESOURCE,
                               quote_id(s.grant) + "PLANE " + s.request.plane->value +
                                   " is required but " + node_name + " has no NIC on it"};
            }
            if (!s.plane_required) {
                if (!plane_fallback) {
                    plane_fallback = node_name;
                }
                pick_nic(s, rank, *slot, std::nullopt, on_plane);
            }
        }
        if (s.pool_of[rank] == none) {
            const std::string situation =
                s.fab.nodes()[node].name + " has no " + s.proto + " port pool for " +
                (s.wanted ? "its NICs on " + s.fab.planes()[*s.wanted].name
                          : std::string("its NICs"));
            if (s.endpts_required) {
                return Failure{MERIDIAN_ERR_OUT_OF_RESOURCE, quote_id(s.grant) + "ENDPTS " +
                                                                 std::to_string(s.endpts) +
                                                                 " is required but " + situation};
            }
            if (!s.no_pool) {
                s.no_pool = situation;
            }
            continue;
        }
        ++s.users[s.pool_of[rank]];
        s.plane_used[s.fab.nics()[s.nic_of[rank]].plane] = 1;
    }
    if (plane_fallback) {
        report_warning(quote_id(s.grant) + "PLANE " + s.request.plane->value +
                       " is not available on " + *plane_fallback +
                       "; using its nearest NIC with a " + s.proto + " port pool");
    }
    return spread_over_rails(s);
}

// Enough ports in every pool used?
std::optional<Failure> check_ports(Serving &s)
{
    s.users.resize(s.nodes.pool_count(), 0);
    s.free_at.assign(s.nodes.pool_count(), 0);
    s.short_of = s.no_pool;
    for (std::uint32_t slot = 0; slot < s.nodes.size(); ++slot) {
        NodePools &pools = s.nodes.pools(slot);
        for (std::uint32_t p = 0; p < pools.pools.size(); ++p) {
            const std::uint32_t flat = s.nodes.first_pool(slot) + p;
            if (s.users[flat] == 0) {
                continue;
            }
            s.free_at[flat] = static_cast<std::uint32_t>(pools.pools[p].free.free_count());
            if (s.free_at[flat] >= std::uint64_t{s.endpts} * s.users[flat]) {
                continue;
            }
            const Pool &pool = pools.pools[p];
            const std::string situation =
                s.fab.nodes()[s.nodes.node(slot)].name + " has " + std::to_string(s.free_at[flat]) +
                " free " + s.proto + " ports" + (pool.subnet ? " on " + pool.subnet->text() : "") +
                " for " + processes(s.users[flat]);
            if (s.endpts_required) {
                return Failure{MERIDIAN_ERR_OUT_OF_RESOURCE, quote_id(s.grant) + "ENDPTS " +
                                                                 std::to_string(s.endpts) +
                                                                 " is required but " + situation};
            }
            if (!s.short_of) {
                s.short_of = situation;
            }
            s.pool_short = true;
        }
    }
    return std::nullopt;
}

// QoS: the fewest levels among the planes used.
std::optional<Failure> check_qos(Serving &s)
{
    if (!s.request.qos) {
        return std::nullopt;
    }
    s.qos = s.request.qos->value;
    for (Index plane = 0; plane < s.plane_used.size(); ++plane) {
        if (!s.plane_used[plane] || *s.qos < s.fab.planes()[plane].qos_levels) {
            continue;
        }
        const auto levels = s.fab.planes()[plane].qos_levels;
        const std::string has =
            levels <= 1 ? "has only QoS level 0" : "has QoS levels 0-" + std::to_string(levels - 1);
        if (s.request.qos->required) {
            return Failure{MERIDIAN_ERR_OUT_OF_RESOURCE,
                           quote_id(s.grant) + "QOS " + std::to_string(s.request.qos->value) +
                               " is required but plane " + s.fab.planes()[plane].name + " " + has};
        }
        s.qos = levels == 0 ? 0 : levels - 1;
        report_warning(quote_id(s.grant) + "QOS " + std::to_string(s.request.qos->value) +
                       " is not available: plane " + s.fab.planes()[plane].name + " " + has +
                       "; assigned " + std::to_string(*s.qos));
    }
    return std::nullopt;
}

// Bandwidth: each NIC's speed shared by the job's processes using it.
std::optional<Failure> check_bandwidth(Serving &s)
{
    if (!s.request.bandwidth_mbps) {
        return std::nullopt;
    }
    const double asked = s.request.bandwidth_mbps->value;
    const bool required = s.request.bandwidth_mbps->required;
    std::vector<std::uint32_t> sharing(s.fab.nics().size(), 0); // per NIC: processes
    for (std::uint32_t rank = 0; rank < s.ranks; ++rank) {
        if (s.nic_of[rank] != fabric::no_index) {
            ++sharing[s.nic_of[rank]];
        }
    }
    std::optional<double> least; // the least any process gets
    std::optional<std::string> limited_by;
    double worst = 0;
    bool unknown = false;
    // In rank order, so the message names the same NIC every time.
    for (std::uint32_t rank = 0; rank < s.ranks; ++rank) {
        const Index nic = s.nic_of[rank];
        if (nic == fabric::no_index) {
            continue;
        }
        const fabric::Nic &n = s.fab.nics()[nic];
        const std::string which = s.fab.nodes()[n.node].name + "'s " + n.name;
        if (n.speed_mbps == 0) {
            if (required) {
                return Failure{MERIDIAN_ERR_OUT_OF_RESOURCE,
                               quote_id(s.grant) + "BANDWIDTH " + fabric::format_rate_mbps(asked) +
                                   " is required but the speed of " + which + " is unknown"};
            }
            unknown = true;
            continue;
        }
        const double share = static_cast<double>(n.speed_mbps) / sharing[nic];
        least = std::min(least.value_or(asked), std::min(share, asked));
        if (share >= asked) {
            continue;
        }
        const std::string situation = which + " gives " + fabric::format_rate_mbps(share) +
                                      " per process (" +
                                      fabric::format_rate_mbps(static_cast<double>(n.speed_mbps)) +
                                      " shared by " + processes(sharing[nic]) + ")";
        if (required) {
            return Failure{MERIDIAN_ERR_OUT_OF_RESOURCE, quote_id(s.grant) + "BANDWIDTH " +
                                                             fabric::format_rate_mbps(asked) +
                                                             " is required but " + situation};
        }
        // The warning names the NIC that gives least.
        if (!limited_by || share < worst) {
            limited_by = situation;
            worst = share;
        }
    }
    if (least) {
        s.bandwidth = least;
        if (limited_by) {
            report_warning(quote_id(s.grant) + "BANDWIDTH " + fabric::format_rate_mbps(asked) +
                           " is not met: " + *limited_by + "; assigned " +
                           fabric::format_rate_mbps(*least));
        }
    } else if (unknown) {
        report_warning(quote_id(s.grant) + "BANDWIDTH " + fabric::format_rate_mbps(asked) +
                       " cannot be assigned: no NIC used has a known speed");
    }
    return std::nullopt;
}

// Take: every check passed.  A pool short of ports is shared out evenly, the
// first processes getting one more.
void take_ports(Serving &s)
{
    // A request that names no endpoint count, on a node where the site keeps
    // no port pool, misses nothing it asked for (Open MPI 5's mpirun asks
    // every job for "<nspace>.net" and a key alone): its processes bind
    // ports of their own, as without Meridian.
    const bool unasked_no_pool = !s.request.endpts && !s.pool_short;
    if (s.short_of && !unasked_no_pool) {
        report_warning(quote_id(s.grant) + "ENDPTS " + std::to_string(s.endpts) +
                       " is not met: " + *s.short_of + "; processes get what is free");
    }
    pnet::Grant &grant = s.grant;
    std::vector<std::uint32_t> handed(s.nodes.pool_count(), 0);
    // Per NIC: its name's entry in device_names (NICs of one name share it).
    std::vector<std::uint32_t> device_of_nic(s.fab.nics().size(), none);
    std::unordered_map<std::string_view, std::uint32_t> device_index;
    grant.port_offsets.assign(static_cast<std::size_t>(s.ranks) + 1, 0);
    grant.device_offsets.assign(static_cast<std::size_t>(s.ranks) + 1, 0);
    grant.ports.clear();
    grant.devices.clear();
    grant.device_names.clear();
    for (std::uint32_t rank = 0; rank < s.ranks; ++rank) {
        const std::uint32_t flat = s.pool_of[rank];
        if (flat != none) {
            const std::uint32_t each = s.free_at[flat] / s.users[flat];
            std::uint32_t count = std::min(s.endpts, each);
            if (count < s.endpts && handed[flat] < s.free_at[flat] % s.users[flat]) {
                ++count;
            }
            ++handed[flat];
            const std::uint32_t slot = s.nodes.slot(s.job.map.procs[rank].node).value();
            const std::uint32_t pool = flat - s.nodes.first_pool(slot);
            s.nodes.pools(slot).pools[pool].free.take(count, grant.ports);
            std::uint32_t &device = device_of_nic[s.nic_of[rank]];
            if (device == none) {
                const std::string &nic_name = s.fab.nics()[s.nic_of[rank]].name;
                const auto [entry, added] = device_index.emplace(
                    nic_name, static_cast<std::uint32_t>(grant.device_names.size()));
                if (added) {
                    grant.device_names.push_back(nic_name);
                }
                device = entry->second;
            }
            grant.devices.push_back(device);
        }
        grant.port_offsets[rank + 1] = static_cast<std::uint32_t>(grant.ports.size());
        grant.device_offsets[rank + 1] = static_cast<std::uint32_t>(grant.devices.size());
    }
}

// What the grant says of the request as served: the planes used, QoS, bandwidth.
void record_assignment(Serving &s)
{
    std::vector<std::string> planes;
    for (Index plane = 0; plane < s.plane_used.size(); ++plane) {
        if (s.plane_used[plane]) {
            planes.push_back(s.fab.planes()[plane].name);
        }
    }
    s.grant.plane = !planes.empty() ? util::join(planes, ",")
                    : s.wanted      ? s.fab.planes()[*s.wanted].name
                                    : std::string();
    s.grant.qos = s.qos;
    s.grant.bandwidth_mbps = s.bandwidth;
}

// One request: check everything first, then take (so a failure leaves this
// request's pools untouched).
std::optional<Failure> serve(pnet::Job &job, const pnet::Request &request, pnet::Grant &grant,
                             Nodes &nodes)
{
    Serving s(job, request, grant, nodes);
    for (auto check : {find_plane, choose_nics, check_ports, check_qos, check_bandwidth}) {
        if (auto failure = check(s)) {
            return failure;
        }
    }
    take_ports(s);
    record_assignment(s);
    return std::nullopt;
}

} // namespace

int allocate(pnet::Job &job)
{
    if (job.fabric == nullptr || job.requests.size() != job.grants.size()) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    Nodes nodes(job.fabric);
    bool served = false;
    for (std::size_t i = 0; i < job.grants.size(); ++i) {
        pnet::Grant &grant = job.grants[i];
        if (!is_mine(grant)) {
            continue;
        }
        if (auto failure = serve(job, job.requests[i], grant, nodes)) {
            // All or nothing within this module too.
            for (std::size_t j = 0; j < i; ++j) {
                if (is_mine(job.grants[j])) {
                    release(job, job.grants[j]);
                }
            }
            report_error(failure->message);
            return failure->status;
        }
        served = true;
    }
    return served ? MERIDIAN_SUCCESS : MERIDIAN_ERR_TAKE_NEXT_OPTION;
}

int deregister(pnet::Job &job)
{
    if (job.fabric == nullptr) {
        return MERIDIAN_ERR_TAKE_NEXT_OPTION;
    }
    for (auto &grant : job.grants) {
        if (is_mine(grant)) {
            release(job, grant);
        }
    }
    // This process's job gives its ports on this host back to the host.
    leave_ledger(job.map.nspace);
    return MERIDIAN_SUCCESS;
}

void forget_pools()
{
    Ledger &all = ledger();
    all.by_name.clear();
    all.fabric.reset();
    all.by_index.clear();
}

int setup_local_network(pnet::Job &job, std::string_view node)
{
    const fabric::Fabric &fab = *job.fabric;
    const auto node_index = fab.find_node(node);
    if (!node_index) {
        return MERIDIAN_ERR_TAKE_NEXT_OPTION;
    }
    // The job's claim in the host's port ledger shrinks to what it was
    // assigned here (pnet_tcp_claim.hpp).
    hold_assigned_ports(job, *node_index);
    auto store = datastore::store();
    if (!store) {
        report_error(store.error().message);
        return store.error().status;
    }
    // Each request's entry gets the process's endpoints (ADDRESS:PORT on the
    // NIC its ports were assigned on) and, when the processes of the request
    // ended up on different planes, the plane of this one.  The base then
    // gathers every request's endpoints into the process's pmix.net.endpt.
    const auto ranks = static_cast<std::uint32_t>(job.map.procs.size());
    for (std::uint32_t rank = 0; rank < ranks; ++rank) {
        if (job.map.procs[rank].node != *node_index) {
            continue;
        }
        const datastore::ProcId proc{job.map.nspace, rank};
        for (const auto &grant : job.grants) {
            if (!is_mine(grant)) {
                continue;
            }
            const auto devices = grant.devices_of(rank);
            Index nic = fabric::no_index;
            if (!devices.empty()) {
                nic = fab.find_nic(*node_index, grant.device_names[devices[0]])
                          .value_or(fabric::no_index);
            }
            std::vector<std::string> endpoints;
            if (nic != fabric::no_index && fab.nics()[nic].address) {
                const std::string address = fabric::format_ipv4(*fab.nics()[nic].address);
                for (const auto port : grant.ports_of(rank)) {
                    endpoints.push_back(address + ":" + std::to_string(port));
                }
            }
            const bool split = grant.plane.find(',') != std::string::npos;
            if (endpoints.empty() && !split) {
                continue;
            }
            auto value = (*store)->get(proc, grant.id);
            if (!value || !std::holds_alternative<datastore::InfoList>(*value)) {
                continue;
            }
            auto info = std::get<datastore::InfoList>(std::move(*value));
            if (split) {
                // Processes on different planes: each one's entry names its own.
                std::erase_if(info, [](const datastore::Info &entry) {
                    return entry.key == pnet::key_plane;
                });
                if (nic != fabric::no_index) {
                    // After the type, where the base puts the plane.
                    const auto at = std::find_if(info.begin(), info.end(), [](const auto &entry) {
                        return entry.key == pnet::key_type;
                    });
                    info.insert(at == info.end() ? info.end() : at + 1,
                                datastore::Info{std::string(pnet::key_plane),
                                                fab.planes()[fab.nics()[nic].plane].name});
                }
            }
            if (!endpoints.empty()) {
                info.push_back({std::string(coord::key_endpoint), std::move(endpoints)});
            }
            if (auto stored = (*store)->store(proc, grant.id, std::move(info)); !stored) {
                report_error(stored.error().message);
                return stored.error().status;
            }
        }
    }
    return MERIDIAN_SUCCESS;
}

} // namespace meridian::pnet_tcp

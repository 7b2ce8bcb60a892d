// SPDX-License-Identifier: BSD-3-Clause
// The node-leader path: under a launcher that sets nothing up before the
// processes start (Slurm's srun calls no PMIx setup hook), one process per
// node -- the node's lowest rank, its leader -- makes the node's share of
// the job, and the node's other processes read it.  Nobody computes the
// whole job, and nothing waits for the whole job: a process waits only for
// its own node's leader, and a leader for rank 0's security keys.
//
//   the leader       reads its node's processes' bindings from what the
//                    launcher gave (pmix.locstr), and rank 0's keys; makes
//                    the node's share (node_share: its inventory, its
//                    processes, allocate, setup; the port ledger holds the
//                    node's ports for the leader) and puts the node's
//                    results under one key, as one byte string (rank 0, a
//                    leader, puts the job's keys with them)
//   the others       wait for that key (PMIx holds a get until the leader
//                    has committed): each decodes its own results only
//   each process     puts its own results as in-job processes do, for the
//                    processes of other hosts to read; the others put their
//                    pid too
//   the leader, at   hands the node's ports over to the node's other
//   its end          processes still running (their pids), so that they go
//                    back to the ledger when the last of them has ended,
//                    not when the leader does
//
// Each process commits once: PMIx answers a get for a process that has
// committed with what it committed, so a second commit would come too late
// for a get that arrived in between.
#include "config.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/runtime/datastore.hpp>

namespace meridian::pnet::detail
{

namespace
{

// Where PMIx says a process is bound (PMIx 4's locality string).
constexpr std::string_view key_locality = "pmix.locstr";
constexpr std::string_view key_seckeys = "meridian.leader.seckeys"; // rank 0's
// The leader's: every other local process's results, or why there are none.
constexpr std::string_view key_node_results = "meridian.leader.results";
constexpr std::string_view key_pid = "meridian.leader.pid"; // each other's
// How long a process waits for its leader, and a leader for its peers and
// rank 0: they all start together, so this is only ever reached when one
// of them died or hangs.
constexpr std::chrono::seconds leader_wait{120};

// How long a leader at its end waits, in all, for its peers' pids: they
// put them at their start, so only a peer that died before can be missing.
constexpr std::chrono::seconds heirs_wait{2};

// What the leader holds: the node's share, and whom to hand it to.
struct Held {
    std::unique_ptr<mca_pnet_job> share;
    HostJob host;                     // the share's name, node, processes
    std::vector<std::uint32_t> peers; // the node's other ranks
};

Held &held()
{
    static Held held;
    return held;
}

std::unique_ptr<mca_pnet_job> &held_share()
{
    return held().share;
}

bool wants_seckeys(const std::vector<Request> &requests)
{
    for (const auto &request : requests) {
        if (request.seckey_bytes) {
            return true;
        }
    }
    return false;
}

// A leader that cannot set its node up says why instead, so that none of
// the node's processes waits for results that will not come.
void put_failure(datastore::Store &store, const std::string &why)
{
    (void)store.put(key_node_results, why);
    (void)store.commit();
}

// Each local process's results, by its rank.
using NodeResults = std::vector<std::pair<std::uint32_t, datastore::InfoList>>;

// The node's results as the leader puts them: one byte string of an info
// list of byte strings, each a local process's results under its rank.  A
// reader that waits for them gets everything the leader committed by then,
// and PMIx unpacks and copies an info list entry by entry (the node's lists
// of lists took more instructions than all the rest of a reader's start):
// a byte string is one copy, and the reader decodes its own part only.
datastore::Bytes handed_out(const NodeResults &all, std::uint32_t leader)
{
    datastore::InfoList node;
    for (const auto &[rank, results] : all) {
        if (rank != leader) {
            node.push_back({std::to_string(rank), datastore::encode(results)});
        }
    }
    return datastore::encode(node);
}

// A reader's own results in what its leader handed out.
Result<datastore::InfoList> results_of(const datastore::Value &node, std::uint32_t rank)
{
    const auto *bytes = std::get_if<datastore::Bytes>(&node);
    if (bytes == nullptr) {
        return make_error(MERIDIAN_ERROR,
                          "they are " + std::string(value_type_name(node)) + ", not bytes");
    }
    auto all = datastore::decode(*bytes);
    if (!all) {
        return all.error();
    }
    const auto *entries = std::get_if<datastore::InfoList>(&*all);
    if (entries == nullptr) {
        return make_error(MERIDIAN_ERROR, "they are not a list");
    }
    const std::string name = std::to_string(rank);
    const auto entry = std::find_if(entries->begin(), entries->end(),
                                    [&](const datastore::Info &info) { return info.key == name; });
    if (entry == entries->end()) {
        return make_error(MERIDIAN_ERROR, "they hold none for rank " + name);
    }
    const auto *own = std::get_if<datastore::Bytes>(&entry->value);
    auto results = own != nullptr ? datastore::decode(*own)
                                  : Result<datastore::Value>(make_error(
                                        MERIDIAN_ERROR, "rank " + name + "'s are not bytes"));
    if (!results) {
        return results.error();
    }
    auto *list = std::get_if<datastore::InfoList>(&*results);
    if (list == nullptr) {
        return make_error(MERIDIAN_ERROR, "rank " + name + "'s are not a list");
    }
    return std::move(*list);
}

// The leader's part: every local process's results, by rank.
Result<NodeResults> lead(datastore::Store &store, const std::vector<Request> &requests,
                         const std::vector<std::uint32_t> &peers,
                         const datastore::InfoList &own_keys)
{
    const datastore::ProcId &self = store.self();
    std::unordered_map<std::string, std::vector<std::uint8_t>> seckeys;
    if (self.rank == 0) {
        for (const auto &key : own_keys) {
            seckeys.insert_or_assign(key.key, std::get<datastore::Bytes>(key.value));
        }
    } else if (wants_seckeys(requests)) {
        auto keys = store.wait_for({self.nspace, 0}, key_seckeys, leader_wait);
        if (!keys) {
            return keys.error();
        }
        auto *list = std::get_if<datastore::InfoList>(&*keys);
        if (list == nullptr) {
            return make_error(MERIDIAN_ERROR, "the job's security keys from rank 0 are not a list");
        }
        for (auto &key : *list) {
            auto *bytes = std::get_if<datastore::Bytes>(&key.value);
            if (bytes == nullptr) {
                return make_error(MERIDIAN_ERROR, "the security key of request \"" + key.key +
                                                      "\" from rank 0 is not bytes");
            }
            seckeys.insert_or_assign(key.key, std::move(*bytes));
        }
    }
    std::vector<std::int32_t> packages;
    packages.reserve(peers.size());
    for (const std::uint32_t peer : peers) {
        if (peer == self.rank) {
            packages.push_back(binding_package());
            continue;
        }
        auto locality = store.get({self.nspace, peer}, key_locality);
        const auto *text = locality ? std::get_if<std::string>(&*locality) : nullptr;
        packages.push_back(text != nullptr ? package_of_locality(*text) : -1);
    }
    // The share under a name of its own: its processes are numbered by
    // local rank in this process's datastore, apart from the job's ranks.
    const std::string share_name = self.nspace + "@" + store.node_name();
    auto share = node_share(share_name, store.node_name(), packages, requests, std::move(seckeys));
    if (!share) {
        return share.error();
    }
    NodeResults all;
    all.reserve(peers.size());
    for (std::uint32_t i = 0; i < peers.size(); ++i) {
        auto results = node_results(**share, i);
        if (!results) {
            (void)deregister(**share);
            return results.error();
        }
        all.emplace_back(peers[i], std::move(*results));
    }
    // Coordinates here would answer for the share's local ranks, not the
    // job's: coord keeps no context of it.
    coord::forget_context();
    Held &h = held();
    h.share = std::move(*share);
    h.host = HostJob{share_name, store.node_name(), static_cast<std::uint32_t>(peers.size()), {}};
    h.peers.clear();
    for (const std::uint32_t peer : peers) {
        if (peer != self.rank) {
            h.peers.push_back(peer);
        }
    }
    return all;
}

} // namespace

Status run_leader(datastore::Store &store)
{
    auto peers = store.local_peers();
    if (!peers) {
        return peers.error();
    }
    const datastore::ProcId &self = store.self();
    if (peers->empty() || peers->front() > self.rank) {
        return make_error(MERIDIAN_ERROR, "this node's processes (PMIX_LOCAL_PEERS) do not "
                                          "include this process");
    }
    const std::uint32_t leader = peers->front();
    // Only the leader and rank 0 (the job's keys) use the requests -- and
    // the components behind them: the node's other processes only read,
    // and a leader that cannot parse them gives its node the reason.
    // Parsed before anything is put, so that they fail alike.
    std::vector<Request> requests;
    if (self.rank == leader || self.rank == 0) {
        auto parsed = requests_from_params();
        if (!parsed) {
            if (self.rank == leader) {
                put_failure(store, parsed.error().message);
            }
            return parsed.error();
        }
        requests = std::move(*parsed);
    }
    datastore::InfoList keys;
    if (self.rank == 0 && wants_seckeys(requests)) {
        for (const auto &request : requests) {
            if (!request.seckey_bytes) {
                continue;
            }
            auto key = draw_seckey(request.id, request.seckey_bytes->value);
            if (!key) {
                return key.error();
            }
            keys.push_back({request.id, std::move(*key)});
        }
        if (auto done = store.put(key_seckeys, keys); !done) {
            return done;
        }
    }

    datastore::InfoList mine;
    if (self.rank == leader) {
        auto made = lead(store, requests, *peers, keys);
        if (!made) {
            // The node's other processes wait for their results: they get
            // the reason instead of waiting for ever.
            put_failure(store, made.error().message);
            return made.error();
        }
        if (auto done = store.put(key_node_results, handed_out(*made, self.rank)); !done) {
            return done;
        }
        for (auto &[rank, results] : *made) {
            if (rank == self.rank) {
                mine = std::move(results);
            }
        }
        // The node's inventory, for the processes of other nodes that ask
        // about this one (the job's fabric, pnet_base_context.cc).
        datastore::InfoList inventory;
        for (const auto &[component, bytes] : held_share()->inventory) {
            inventory.push_back({component, datastore::Bytes(bytes.begin(), bytes.end())});
        }
        if (auto done = store.put(key_node_inventory, std::move(inventory)); !done) {
            return done;
        }
    } else {
        auto node = store.wait_for({self.nspace, leader}, key_node_results, leader_wait);
        if (!node) {
            return make_error(node.error().status, "waiting for the node's leader (rank " +
                                                       std::to_string(leader) +
                                                       "): " + node.error().message);
        }
        if (const auto *why = std::get_if<std::string>(&*node)) {
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              "the node's leader (rank " + std::to_string(leader) +
                                  ") could not set up its network: " + *why);
        }
        auto results = results_of(*node, self.rank);
        if (!results) {
            return make_error(MERIDIAN_ERROR,
                              "this process's results from its node's leader (rank " +
                                  std::to_string(leader) +
                                  ") cannot be read: " + results.error().message);
        }
        mine = std::move(*results);
    }
    if (auto done = put_results_for_other_hosts(store, std::move(mine)); !done) {
        return done;
    }
    // For the leader, which hands the node's ports to the processes still
    // running when it ends.
    if (self.rank != leader) {
        if (auto done = store.put(key_pid, static_cast<std::uint64_t>(::getpid())); !done) {
            return done;
        }
    }
    return store.commit();
}

void forget_leader()
{
    Held &h = held();
    if (!h.share) {
        return;
    }
    // The pids of the node's other processes (put with their results),
    // for the port ledger to keep the node's ports while any of them runs.
    HostJob host = h.host;
    if (auto store = datastore::store(); store && !h.peers.empty()) {
        const auto until = std::chrono::steady_clock::now() + heirs_wait;
        for (const std::uint32_t peer : h.peers) {
            // Waited for while the time lasts, then only what is there.
            const datastore::ProcId proc{(*store)->self().nspace, peer};
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                until - std::chrono::steady_clock::now());
            auto pid = left.count() > 0 ? (*store)->wait_for(proc, key_pid, left)
                                        : (*store)->get(proc, key_pid);
            const auto *value = pid ? std::get_if<std::uint64_t>(&*pid) : nullptr;
            if (value != nullptr && *value > 0 && *value <= INT32_MAX) {
                host.heirs.push_back(static_cast<std::int32_t>(*value));
            }
        }
    }
    {
        const HostJobScope scope(std::move(host));
        (void)deregister(*h.share);
    }
    h.share.reset();
    h.peers.clear();
}

} // namespace meridian::pnet::detail

// SPDX-License-Identifier: BSD-3-Clause
// The coordinates-updated event: callbacks registered per plane (by name or
// CIDR, or for every plane), called by set_context with the planes whose
// coordinates changed, after the new coordinates are in place; and the same
// event between the job's processes as a PMIx event (share_updates).
#include "config.h" // MERIDIAN_HAVE_COORD_RELAY

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mca/coord/base/coord_base_internal.hpp"
#if MERIDIAN_HAVE_COORD_RELAY
#include "mca/coord/base/coord_base_relay.hpp"
#endif
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::coord
{

namespace
{

struct Registration {
    int handle = 0;
    std::string plane; // empty: every plane
    UpdatedCallback callback;
};

struct Registry {
    std::vector<Registration> entries;
    int next_handle = 0;
};

Registry &registry()
{
    static util::NoDestructor<Registry> instance;
    return instance.get();
}

} // namespace

int on_updated(std::string plane, UpdatedCallback callback)
{
    if (!callback) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    Registry &r = registry();
    const int handle = r.next_handle++;
    r.entries.push_back(Registration{handle, std::move(plane), std::move(callback)});
    return handle;
}

void remove_updated(int handle)
{
    auto &entries = registry().entries;
    std::erase_if(entries, [handle](const Registration &r) { return r.handle == handle; });
}

#if MERIDIAN_HAVE_COORD_RELAY
namespace relay = detail::relay;
#endif

namespace
{

// Sharing with the job's other processes.  The PMIx thread only ever
// touches `pending` (under the lock); the rest belongs to the thread that
// places contexts.
struct Sharing {
    std::atomic<datastore::Store *> store{nullptr}; // read by PMIx's and the relay's threads
    bool applying = false; // placing what another process sent: not sent back
    bool busy = false;     // sending or placing: nothing pending is placed meanwhile
    std::mutex lock;
    std::shared_ptr<const fabric::Fabric> pending;
    std::string pending_from;
    std::size_t last_heard = 0; // (sender, fabric) of the last event kept: one kept once
    std::atomic<bool> has_pending{false};
    bool handler_registered = false;
#if MERIDIAN_HAVE_COORD_RELAY
    // This node's relay (event range job, a job across nodes, the node's
    // lowest rank); its thread calls relayed().
    std::unique_ptr<relay::Relay> relay;
#endif
};

Sharing &sharing()
{
    static util::NoDestructor<Sharing> instance;
    return instance.get();
}

// PMIx's thread: keep the newest fabric another process sent.
void received(const datastore::ProcId &source, const datastore::InfoList &info)
{
    Sharing &sh = sharing();
    datastore::Store *store = sh.store;
    if (store == nullptr || source == store->self()) {
        return; // not sharing, or our own event coming back (a relay's too)
    }
    // Who changed the coordinates: the source, unless a relay told us.
    datastore::ProcId changer = source;
    for (const auto &entry : info) {
        if (const auto *rank = std::get_if<std::uint64_t>(&entry.value);
            rank != nullptr && entry.key == MERIDIAN_NETWORK_FROM && *rank < datastore::job_rank) {
            changer.rank = static_cast<std::uint32_t>(*rank);
        }
    }
    if (changer == store->self()) {
        return;
    }
    const std::string from = datastore::format_proc(changer);
    const auto text = std::find_if(info.begin(), info.end(), [](const datastore::Info &entry) {
        return entry.key == MERIDIAN_NETWORK_FABRIC;
    });
    if (text == info.end() || !std::holds_alternative<std::string>(text->value)) {
        report_warning("coordinates-updated event from " + from + " without " +
                       MERIDIAN_NETWORK_FABRIC + ": coordinates not refreshed");
        return;
    }
    // The relay's own process may hear one event twice: from its relay,
    // and from its PMIx server when the relay hands it on.
    const std::string &fabric_text = std::get<std::string>(text->value);
    const std::size_t heard = std::hash<std::string>{}(from + '\n' + fabric_text);
    {
        const std::lock_guard guard(sh.lock);
        if (heard == sh.last_heard) {
            return;
        }
    }
    auto fabric = fabric::parse_fabric(fabric_text, "coordinates-updated event from " + from);
    if (!fabric) {
        report_warning(fabric.error().message + ": coordinates not refreshed");
        return;
    }
    const std::lock_guard guard(sh.lock);
    sh.pending = std::make_shared<const fabric::Fabric>(std::move(*fabric));
    sh.pending_from = from;
    sh.last_heard = heard;
    sh.has_pending = true;
}

#if MERIDIAN_HAVE_COORD_RELAY
// The relay's thread: an event another node's process proved it sent.  This
// node's processes hear it from their PMIx server, as if from the sender;
// this process keeps it at once.
void relayed(const relay::Event &event)
{
    datastore::Store *store = sharing().store;
    if (store == nullptr) {
        return;
    }
    const datastore::ProcId source{store->self().nspace, event.from};
    const datastore::InfoList info = relay::event_info(event);
    if (auto told = store->notify_node_from(source, MERIDIAN_NETWORK_COORDS_UPDATED, info); !told) {
        report_warning("coordinates relay: this node's processes were not told of the "
                       "coordinates " +
                       datastore::format_proc(source) + " changed: " + told.error().message);
    }
    received(source, info);
}

// Start this node's relay when this process is the node's lowest rank of a
// job across nodes, and publish where it listens.
Status start_relay(datastore::Store &store)
{
    Sharing &sh = sharing();
    // PMIx numbers a node's processes by their rank in the job: only local
    // rank 0 can be the lowest, and only it asks for the node's list.
    if (sh.relay != nullptr || detail::event_range() != detail::EventRange::job ||
        store.backend() != "pmix" || store.local_size() >= store.job_size() ||
        store.local_rank() != 0) {
        return success();
    }
    auto peers = store.local_peers();
    if (!peers || peers->empty() || peers->front() != store.self().rank) {
        return success(); // not the node's lowest rank (or the node is unknown: no relay)
    }
    auto key = relay::new_key();
    if (!key) {
        return key.error();
    }
    relay::Relay::Options options;
    options.job = relay::job_id(store.self().nspace);
    options.job_size = store.job_size();
    options.key = *key;
    options.patience = detail::relay_timeout();
    options.deliver = relayed;
    auto started = relay::Relay::start(std::move(options));
    if (!started) {
        return started.error();
    }
    const std::string published = relay::format_address((*started)->address());
    if (auto put = store.put(relay::key_relay, published); !put) {
        return put;
    }
    if (auto committed = store.commit(); !committed) {
        return committed;
    }
    sh.relay = std::move(*started);
    return success();
}

// Every other node's relay gets the event; what could not be told is named
// in one warning.
void send_to_relays(datastore::Store &store, const relay::Event &event)
{
    auto nodes = store.job_nodes();
    if (!nodes) {
        report_warning("the other nodes were not told of the new coordinates: " +
                       nodes.error().message);
        return;
    }
    const std::uint64_t job = relay::job_id(store.self().nspace);
    const auto patience = detail::relay_timeout();
    std::vector<std::string> untold;
    for (const auto &node : *nodes) {
        const auto &ranks = node.ranks;
        if (ranks.empty() ||
            std::find(ranks.begin(), ranks.end(), store.self().rank) != ranks.end()) {
            continue; // this node heard it through PMIx
        }
        const datastore::ProcId relay_proc{store.self().nspace, ranks.front()};
        auto published = store.wait_for(relay_proc, relay::key_relay, patience);
        const std::string *text = published ? std::get_if<std::string>(&*published) : nullptr;
        if (text == nullptr) {
            untold.push_back(node.node + " (no relay: " +
                             (published ? std::string("not a string") : published.error().message) +
                             ")");
            continue;
        }
        auto address = relay::parse_address(*text);
        auto sent = address ? relay::send(*address, job, event, patience) : Status(address.error());
        if (!sent) {
            untold.push_back(node.node + " (" + sent.error().message + ")");
        }
    }
    if (!untold.empty()) {
        report_warning("coordinates-updated event: " + std::to_string(untold.size()) + " of " +
                       std::to_string(nodes->size() - 1) +
                       " other nodes were not told: " + util::join(untold, "; "));
    }
}
#else
Status start_relay(datastore::Store &store)
{
    if (detail::event_range() == detail::EventRange::job && store.backend() == "pmix" &&
        store.local_size() < store.job_size() && store.local_rank() == 0) {
        return make_error(MERIDIAN_ERR_NOT_SUPPORTED,
                          "this Meridian was built without libsodium or PMIx, so without the "
                          "relays that carry the coordinates-updated event between nodes");
    }
    return success();
}
#endif

} // namespace

Status share_updates(datastore::Store &store)
{
    Sharing &sh = sharing();
    sh.store = &store;
    if (!sh.handler_registered) {
        if (auto registered = store.on_event(MERIDIAN_NETWORK_COORDS_UPDATED, received);
            !registered) {
            if (registered.error().status == MERIDIAN_ERR_NOT_SUPPORTED) {
                // A launcher without events (PMI): nothing to hear; a change
                // made here says, when it is made, that nobody was told.
                return success();
            }
            sh.store = nullptr;
            return registered;
        }
        sh.handler_registered = true;
    }
    // (Again after stop_sharing: a job placed anew gets its relay back.)
    if (auto relaying = start_relay(store); !relaying) {
        // The job goes on; only other nodes' changes miss this node.
        report_warning("this node hears of no coordinates another node's process changes: " +
                       relaying.error().message);
    }
    return success();
}

void stop_sharing()
{
    Sharing &sh = sharing();
#if MERIDIAN_HAVE_COORD_RELAY
    sh.relay.reset(); // joins its thread: nothing more comes from it
#endif
    sh.store = nullptr;
    const std::lock_guard guard(sh.lock);
    sh.pending.reset();
    sh.has_pending = false;
}

namespace detail
{

void broadcast_updated(const mca_coord_context &context, const std::vector<std::string> &names)
{
    Sharing &sh = sharing();
    datastore::Store *store = sh.store;
    if (store == nullptr || sh.applying) {
        return;
    }
    sh.busy = true;
    datastore::InfoList info;
    info.push_back({std::string(key_plane), names});
    // Our coordinates after the change (a coordinate without values cannot
    // travel as a pmix_coord_t).
    if (auto mine = coordinates(store->self().rank); mine) {
        std::erase_if(*mine, [](const Coordinate &c) { return c.coord.empty(); });
        if (!mine->empty()) {
            info.push_back({std::string(key_coordinate), std::move(*mine)});
        }
    }
    info.push_back({MERIDIAN_NETWORK_FABRIC, fabric::format_fabric(*context.fabric)});
    info.push_back({MERIDIAN_NETWORK_FROM, std::uint64_t{store->self().rank}});
    const EventRange range = event_range();
    auto sent = store->notify(MERIDIAN_NETWORK_COORDS_UPDATED, info,
                              range == EventRange::launcher ? datastore::Store::EventRange::job
                                                            : datastore::Store::EventRange::node);
    if (!sent) {
        report_warning("the job's other processes were not told of the new coordinates: " +
                       sent.error().message);
    }
#if MERIDIAN_HAVE_COORD_RELAY
    if (range == EventRange::job && store->local_size() < store->job_size()) {
        send_to_relays(*store, relay::event_of(store->self().rank, info));
    }
#endif
    sh.busy = false;
}

void apply_pending()
{
    Sharing &sh = sharing();
    if (!sh.has_pending.load() || sh.busy) {
        return;
    }
    std::shared_ptr<const fabric::Fabric> fabric;
    std::string from;
    {
        const std::lock_guard guard(sh.lock);
        fabric = std::move(sh.pending);
        from = std::move(sh.pending_from);
        sh.has_pending = false;
    }
    const mca_coord_context *current = current_context();
    if (fabric == nullptr || current == nullptr) {
        return;
    }
    sh.applying = true;
    sh.busy = true;
    auto placed = set_context(std::move(fabric), current->job);
    sh.applying = false;
    sh.busy = false;
    if (!placed) {
        report_warning("the coordinates " + from +
                       " sent could not be placed: " + placed.error().message);
    }
}

void fire_updated(const std::vector<std::string> &names, const std::vector<std::string> &cidrs)
{
    // A callback may register or remove callbacks: walk a copy of the
    // handles and look each up again before calling it.
    std::vector<int> handles;
    for (const auto &entry : registry().entries) {
        handles.push_back(entry.handle);
    }
    for (const int handle : handles) {
        auto &entries = registry().entries;
        const auto found =
            std::find_if(entries.begin(), entries.end(),
                         [handle](const Registration &r) { return r.handle == handle; });
        if (found == entries.end()) {
            continue;
        }
        std::vector<std::string> affected;
        for (size_t i = 0; i < names.size(); ++i) {
            if (found->plane.empty() || found->plane == names[i] ||
                (!cidrs[i].empty() && found->plane == cidrs[i])) {
                affected.push_back(names[i]);
            }
        }
        if (!affected.empty()) {
            // A copy: the callback may remove itself.
            const UpdatedCallback callback = found->callback;
            callback(std::span<const std::string>(affected));
        }
    }
}

} // namespace detail

} // namespace meridian::coord

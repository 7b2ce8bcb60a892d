// The coordinates-updated event: callbacks registered per plane (by name or
// CIDR, or for every plane), called by set_context with the planes whose
// coordinates changed, after the new coordinates are in place; and the same
// event between the job's processes as a PMIx event (share_updates).
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mca/coord/base/coord_base_internal.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

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

namespace
{

// Sharing with the job's other processes.  The PMIx thread only ever
// touches `pending` (under the lock); the rest belongs to the thread that
// places contexts.
struct Sharing {
    std::atomic<datastore::Store *> store{nullptr}; // read by PMIx's thread too
    bool applying = false; // placing what another process sent: not sent back
    bool busy = false;     // sending or placing: nothing pending is placed meanwhile
    std::mutex lock;
    std::shared_ptr<const fabric::Fabric> pending;
    std::string pending_from;
    std::atomic<bool> has_pending{false};
    bool handler_registered = false;
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
        return; // not sharing, or our own event coming back
    }
    const std::string from = datastore::format_proc(source);
    const auto text = std::find_if(info.begin(), info.end(), [](const datastore::Info &entry) {
        return entry.key == MERIDIAN_NETWORK_FABRIC;
    });
    if (text == info.end() || !std::holds_alternative<std::string>(text->value)) {
        report_warning("coordinates-updated event from " + from + " without " +
                       MERIDIAN_NETWORK_FABRIC + ": coordinates not refreshed");
        return;
    }
    auto fabric = fabric::parse_fabric(std::get<std::string>(text->value),
                                       "coordinates-updated event from " + from);
    if (!fabric) {
        report_warning(fabric.error().message + ": coordinates not refreshed");
        return;
    }
    const std::lock_guard guard(sh.lock);
    sh.pending = std::make_shared<const fabric::Fabric>(std::move(*fabric));
    sh.pending_from = from;
    sh.has_pending = true;
}

} // namespace

Status share_updates(datastore::Store &store)
{
    Sharing &sh = sharing();
    sh.store = &store;
    if (sh.handler_registered) {
        return success();
    }
    if (auto registered = store.on_event(MERIDIAN_NETWORK_COORDS_UPDATED, received); !registered) {
        sh.store = nullptr;
        return registered;
    }
    sh.handler_registered = true;
    return success();
}

void stop_sharing()
{
    Sharing &sh = sharing();
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
    const auto range = event_range();
    auto sent = store->notify(MERIDIAN_NETWORK_COORDS_UPDATED, info, range);
    sh.busy = false;
    if (!sent) {
        report_warning("the job's other processes were not told of the new coordinates: " +
                       sent.error().message);
    }
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

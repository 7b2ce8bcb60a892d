// SPDX-License-Identifier: BSD-3-Clause
// In-job mode: when a launcher that knows nothing of Meridian started the
// job (Open MPI's mpirun), every process runs the pnet pipeline itself at
// meridian_init, through the datastore:
//
//   each process        puts its node name, local rank and binding package
//   local rank 0        puts its node's inventory (every component's blob)
//   rank 0              draws the job's security keys (getrandom) and puts
//                       them: every process's allocation holds the same keys
//   commit, fence       (PMIx: the data of every process reaches every process)
//   each process        delivers every node's inventory into one fabric,
//                       builds the job map (nodes in order of first rank),
//                       allocates the job -- the same inputs everywhere give
//                       the same allocation everywhere -- and sets up its own
//                       node's entries in the datastore.
//   each process        puts its own results (request IDs,
//                       meridian.net.endpt, meridian.net.coord) and
//                       commits: after the job's next fence any PMIx
//                       client reads them with PMIx_Get.
//
// A singleton (local datastore) does the same alone.  Under pnet_base_in_job
// = auto meridian_init defers a singleton's run to the first in_job() call,
// so programs that never ask pay nothing.
#include "config.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet
{

namespace detail
{
// The package every CPU this process may run on belongs to, or -1 when they
// span several (or the kernel does not say).
std::int32_t binding_package()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        return -1;
    }
    std::int32_t package = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &set)) {
            continue;
        }
        std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                         "/topology/physical_package_id");
        std::int32_t id = -1;
        if (!(in >> id) || id < 0) {
            return -1;
        }
        if (package != -1 && id != package) {
            return -1;
        }
        package = id;
    }
    return package;
}

} // namespace detail

namespace
{

using detail::binding_package;

// The datastore keys of in-job mode (Meridian's own, not PMIx's).
constexpr std::string_view key_node = "meridian.injob.node";
constexpr std::string_view key_local_rank = "meridian.injob.lrank";
constexpr std::string_view key_package = "meridian.injob.package";
constexpr std::string_view key_inventory = "meridian.injob.inventory";
constexpr std::string_view key_seckeys = "meridian.injob.seckeys"; // request id -> key
// Why a process could not publish (its peers name it instead of a missing key).
constexpr std::string_view key_failed = "meridian.injob.failed";

struct InJobState {
    std::unique_ptr<mca_pnet_job> job;
    bool deferred = false; // in_job() may still run it
    SetupPath path = SetupPath::none;
};

InJobState &state()
{
    static InJobState instance;
    return instance;
}

// What this process publishes before the fence.
Status publish(datastore::Store &store, const std::vector<Request> &requests)
{
    const auto put = [&](std::string_view key, datastore::Value value) {
        return store.put(key, std::move(value));
    };
    if (auto done = put(key_node, store.node_name()); !done) {
        return done;
    }
    if (auto done = put(key_local_rank, static_cast<std::uint64_t>(store.local_rank())); !done) {
        return done;
    }
    if (auto done = put(key_package, static_cast<std::int64_t>(binding_package())); !done) {
        return done;
    }
    if (store.local_rank() == 0) {
        auto inventory = collect_inventory();
        if (!inventory) {
            return inventory.error();
        }
        datastore::InfoList blobs;
        for (auto &[component, blob] : *inventory) {
            blobs.push_back({std::move(component), std::move(blob)});
        }
        if (auto done = put(key_inventory, std::move(blobs)); !done) {
            return done;
        }
    }
    if (store.self().rank == 0) {
        datastore::InfoList keys;
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
        if (auto done = put(key_seckeys, std::move(keys)); !done) {
            return done;
        }
    }
    return success();
}

template <typename T>
Result<T> get_as(const datastore::Store &store, std::uint32_t rank, std::string_view key)
{
    const datastore::ProcId proc{store.self().nspace, rank};
    auto value = store.get(proc, key);
    if (!value) {
        if (auto failed = store.get(proc, key_failed);
            failed && std::holds_alternative<std::string>(*failed)) {
            return make_error(MERIDIAN_ERROR, "process " + datastore::format_proc(proc) +
                                                  " failed: " + std::get<std::string>(*failed));
        }
        return value.error();
    }
    if (auto *typed = std::get_if<T>(&*value)) {
        return std::move(*typed);
    }
    return make_error(MERIDIAN_ERROR, "datastore: " + std::string(key) + " of " +
                                          datastore::format_proc({store.self().nspace, rank}) +
                                          " is " + std::string(datastore::value_type_name(*value)) +
                                          ": " + datastore::format_value(*value));
}

struct Peer {
    std::string node;
    std::uint32_t local_rank = 0;
    std::int32_t package = -1;
};

// Everything the other processes published, as one fabric and job map.
Result<std::pair<std::shared_ptr<fabric::Fabric>, fabric::JobMap>>
gather(const datastore::Store &store)
{
    const std::uint32_t size = store.job_size();
    std::vector<Peer> peers(size);
    // Nodes in order of their first rank, each with its local rank 0.
    std::vector<std::string> node_order;
    std::unordered_map<std::string, std::uint32_t> leader; // node -> rank of local rank 0
    for (std::uint32_t rank = 0; rank < size; ++rank) {
        auto node = get_as<std::string>(store, rank, key_node);
        auto local = get_as<std::uint64_t>(store, rank, key_local_rank);
        auto package = get_as<std::int64_t>(store, rank, key_package);
        if (!node || !local || !package) {
            return (!node ? node.error() : !local ? local.error() : package.error());
        }
        auto &peer = peers[rank];
        peer.node = std::move(*node);
        peer.local_rank = static_cast<std::uint32_t>(*local);
        peer.package = static_cast<std::int32_t>(*package);
        if (leader.find(peer.node) == leader.end()) {
            node_order.push_back(peer.node);
            leader.emplace(peer.node, UINT32_MAX);
        }
        if (peer.local_rank == 0) {
            leader[peer.node] = rank;
        }
    }

    auto fab = std::make_shared<fabric::Fabric>();
    for (const auto &node : node_order) {
        const std::uint32_t from = leader[node];
        if (from == UINT32_MAX) {
            return make_error(MERIDIAN_ERR_NOT_FOUND, "node " + node +
                                                          " has no process of local rank 0 to "
                                                          "publish its inventory");
        }
        auto blobs = get_as<datastore::InfoList>(store, from, key_inventory);
        if (!blobs) {
            return blobs.error();
        }
        for (const auto &blob : *blobs) {
            const auto *bytes = std::get_if<datastore::Bytes>(&blob.value);
            if (bytes == nullptr) {
                return make_error(MERIDIAN_ERROR, "node " + node + ": the inventory of " +
                                                      blob.key + " is not bytes");
            }
            if (auto delivered = deliver_inventory(node, blob.key, *bytes, *fab); !delivered) {
                return delivered.error();
            }
        }
        if (auto added = detail::ensure_node(*fab, node); !added) {
            return added.error();
        }
    }

    fabric::JobMap map;
    map.nspace = store.self().nspace;
    map.procs.resize(size);
    for (const auto &node : node_order) {
        map.nodes.push_back(*fab->find_node(node));
    }
    for (std::uint32_t rank = 0; rank < size; ++rank) {
        auto &placement = map.procs[rank];
        placement.node = *fab->find_node(peers[rank].node);
        placement.local_rank = peers[rank].local_rank;
        // A package the fabric's node does not have cannot order its NICs.
        const auto packages = fab->nodes()[placement.node].packages;
        placement.package =
            peers[rank].package >= 0 && static_cast<std::uint32_t>(peers[rank].package) < packages
                ? peers[rank].package
                : -1;
    }
    return std::pair{std::move(fab), std::move(map)};
}

// This process's results, put (global scope) so that any PMIx client of
// the job reads them with PMIx_Get after its next fence: each request's
// entry under its ID (an array of pmix_info_t, as the seeds give it), and
// the process's endpoints and coordinates.  PMIx keeps keys that begin with
// "pmix" for its host (the launcher): libpmix 4.2 drops a client's PMIx_Put
// of pmix.net.endpt and refuses PMIx_Store_internal of it, so a client
// cannot publish the seeds' pmix.net.* keys; the endpoints and coordinates
// go under meridian.net.endpt (an array of strings) and meridian.net.coord
// (an array of pmix_coord_t: every plane, logical view, nearest NIC first)
// with the seeds' value types.  (A launcher cannot use the seeds' names
// either: they are the draft's, released PMIx calls them pmix.fab.*, and a
// PMIx 4.2 server refuses a "pmix" key it does not know.)
Status publish_results(datastore::Store &store, const mca_pnet_job &job)
{
    const datastore::ProcId &self = store.self();
    const auto copy = [&](std::string_view from, std::string_view to) -> Status {
        auto value = store.get(self, from);
        if (!value) {
            // Nothing assigned under this key (no endpoints, say).
            return value.error().status == MERIDIAN_ERR_NOT_FOUND ? success() : value.error();
        }
        return store.put(to, std::move(*value));
    };
    for (const auto &grant : job.job.grants) {
        if (auto done = copy(grant.id, grant.id); !done) {
            return done;
        }
    }
    if (auto done = copy(coord::key_endpoint, key_published_endpoints); !done) {
        return done;
    }
    // Coordinates only where coord placed the job (a plane no coord
    // component places leaves none, which is no failure of the network
    // setup); a coordinate without values has nothing to say to a peer.
    if (auto coordinates = coord::coordinates(self.rank); coordinates) {
        std::erase_if(*coordinates, [](const Coordinate &c) { return c.coord.empty(); });
        if (!coordinates->empty()) {
            if (auto done = store.put(key_published_coordinates, std::move(*coordinates)); !done) {
                return done;
            }
        }
    }
    return store.commit();
}

// The launcher's path: this process's results are in its own server only
// (its daemon stored them), so it puts them as in-job mode does -- each
// request's entry, meridian.net.endpt and meridian.net.coord -- for the
// processes of other hosts to read (PMIx's direct modex, no fence).  The
// daemon stored them for this as one value (key_launcher_results): a
// handful of values, read with one get; nothing here grows with the job.
Status share_launcher_results(datastore::Store &store, datastore::InfoList results)
{
    if (auto put = detail::put_results_for_other_hosts(store, std::move(results)); !put) {
        return put;
    }
    // The node's lowest rank publishes the node's inventory (its server has
    // it from the launcher's daemon) for the other nodes' queries.
    const datastore::ProcId &self = store.self();
    if (store.local_rank() == 0) {
        if (auto inventory = store.get({self.nspace, datastore::job_rank}, key_node_inventory);
            inventory) {
            if (auto put = store.put(key_node_inventory, std::move(*inventory)); !put) {
                return put;
            }
        }
    }
    return store.commit();
}

// The same results key by key, from the job's request IDs
// (key_setup_ids): what a daemon stored that gave no key_launcher_results
// (a plugin running another Meridian's library).
Result<datastore::InfoList> launcher_results_by_key(datastore::Store &store)
{
    const datastore::ProcId &self = store.self();
    auto ids = store.get({self.nspace, datastore::job_rank}, key_setup_ids);
    const std::string *list = ids ? std::get_if<std::string>(&*ids) : nullptr;
    std::vector<std::string> keys =
        list != nullptr && !list->empty() ? util::split(*list, ',') : std::vector<std::string>{};
    keys.emplace_back(key_published_endpoints);
    keys.emplace_back(key_published_coordinates);
    datastore::InfoList results;
    for (auto &key : keys) {
        auto value = store.get(self, key);
        if (!value) {
            if (value.error().status != MERIDIAN_ERR_NOT_FOUND) {
                return value.error();
            }
            continue;
        }
        results.push_back({std::move(key), std::move(*value)});
    }
    return results;
}

// Coordinates one process changes reach the others (a PMIx event).
void share_coordinate_updates(datastore::Store &store)
{
    if (auto shared = coord::share_updates(store); !shared) {
        report_warning("network setup: " + shared.error().message);
    }
}

Status run(datastore::Store &store)
{
    // Parse the requests before anything collective: every process reads
    // the same parameters, so every process fails the same way.
    auto requests = requests_from_params();
    if (!requests) {
        return requests.error();
    }
    if (auto published = publish(store, *requests); !published) {
        // Still take part in the fence, so the peers do not wait forever
        // and can tell why.
        (void)store.put(key_failed, published.error().message);
        (void)store.commit();
        (void)store.fence();
        return published;
    }
    if (auto committed = store.commit(); !committed) {
        return committed;
    }
    if (auto fenced = store.fence(); !fenced) {
        return fenced;
    }
    auto gathered = gather(store);
    if (!gathered) {
        return gathered.error();
    }
    auto keys = get_as<datastore::InfoList>(store, 0, key_seckeys);
    if (!keys) {
        return keys.error();
    }
    auto job =
        make_job(std::move(gathered->first), std::move(gathered->second), std::move(*requests));
    if (!job) {
        return job.error();
    }
    for (auto &key : *keys) {
        auto *bytes = std::get_if<datastore::Bytes>(&key.value);
        if (bytes == nullptr) {
            return make_error(MERIDIAN_ERROR, "the security key of request \"" + key.key +
                                                  "\" from rank 0 is not bytes");
        }
        (*job)->job.seckeys.emplace(std::move(key.key), std::move(*bytes));
    }
    if (auto allocated = allocate(**job); !allocated) {
        return allocated;
    }
    if (auto set_up = setup_local_network(**job, store.node_name()); !set_up) {
        (void)deregister(**job);
        return set_up;
    }
    if (auto published = publish_results(store, **job); !published) {
        (void)deregister(**job);
        return published;
    }
    // Coordinates one process changes reach the others (a PMIx event).
    if (auto shared = coord::share_updates(store); !shared) {
        report_warning("in-job network setup: " + shared.error().message);
    }
    state().job = std::move(*job);
    return success();
}

} // namespace

namespace detail
{
Status put_results_for_other_hosts(datastore::Store &store, datastore::InfoList results)
{
    const bool endpoints =
        std::any_of(results.begin(), results.end(), [](const datastore::Info &info) {
            return info.key == key_published_endpoints;
        });
    if (!endpoints) {
        results.push_back({std::string(key_published_endpoints), std::vector<std::string>{}});
    }
    for (auto &[key, value] : results) {
        if (auto put = store.put(key, std::move(value)); !put) {
            return put;
        }
    }
    return success();
}

void defer_in_job(bool deferred)
{
    state().deferred = deferred;
    // A coord query before any in_job() call runs it too.
    coord::set_context_provider(deferred ? +[] { (void)in_job(); } : nullptr);
}
} // namespace detail

Status run_in_job()
{
    auto &s = state();
    s.deferred = false;
    coord::set_context_provider(nullptr);
    if (s.job || s.path == SetupPath::launcher || s.path == SetupPath::leader) {
        return success();
    }
    auto store = datastore::store();
    if (!store) {
        return make_error(store.error().status, "in-job network setup: " + store.error().message);
    }
    // The launcher's daemons set the job's network up (the pnet plugin for
    // libpmix): each process's results are in its server already, and this
    // process computes nothing.  The plugin says so in the environment of
    // the processes of a job it took on.
    const char *launched = std::getenv(launcher_env);
    if ((*store)->backend() == "pmix" && launched != nullptr &&
        launched == (*store)->self().nspace) {
        // This process's results first: there when the setup worked, and
        // then nothing else needs reading.
        std::optional<datastore::InfoList> results;
        if (auto got = (*store)->get((*store)->self(), key_launcher_results); got) {
            if (auto *list = std::get_if<datastore::InfoList>(&*got)) {
                results = std::move(*list);
            }
        }
        // Without them: the path says whether the setup failed, or was made
        // by a daemon that stored them key by key only.
        const datastore::ProcId job{(*store)->self().nspace, datastore::job_rank};
        std::string said = "launcher";
        if (!results) {
            auto path = (*store)->get(job, key_setup_path);
            const std::string *text = path ? std::get_if<std::string>(&*path) : nullptr;
            said = text != nullptr ? *text : std::string();
        }
        if (said == "failed") {
            auto why = (*store)->get(job, key_setup_error);
            const std::string *text = why ? std::get_if<std::string>(&*why) : nullptr;
            return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                              text != nullptr ? *text
                                              : std::string("the launcher could not set up the "
                                                            "job's network (its output says why)"));
        }
        if (said == "launcher") {
            if (!results) {
                auto by_key = launcher_results_by_key(**store);
                if (!by_key) {
                    return by_key.error();
                }
                results = std::move(*by_key);
            }
            if (auto shared = share_launcher_results(**store, std::move(*results)); !shared) {
                return shared;
            }
            s.path = SetupPath::launcher;
            detail::place_job_on_demand();
            share_coordinate_updates(**store);
            meridian_mca_base_framework_verbose(
                &meridian_pnet_base_framework, 1,
                "process %s, node %s: the launcher set the job's network up (pnet plugin for "
                "libpmix); this process ran no pipeline",
                datastore::format_proc((*store)->self()).c_str(), (*store)->node_name().c_str());
            return success();
        }
        // The plugin took the job on, and what it stored does not read:
        // setting the network up here as well would give this process
        // other ports than its daemon holds for it.
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "the launcher set the job's network up (pnet plugin for libpmix), and "
                          "this process cannot read what it stored (" +
                              std::string(key_setup_path) + " is " +
                              (said.empty() ? std::string("missing") : util::quoted(said)) +
                              "): a libpmix other than the launcher's?");
    }
    // Under a launcher that set nothing up: the node's leader makes the
    // node's share, the others read it (Slurm's srun calls no setup hook).
    if ((*store)->backend() == "pmix" && node_leader_wanted()) {
        if (auto done = detail::run_leader(**store); !done) {
            return make_error(done.error().status, "node-leader network setup (process " +
                                                       datastore::format_proc((*store)->self()) +
                                                       ", node " + (*store)->node_name() +
                                                       "): " + done.error().message);
        }
        s.path = SetupPath::leader;
        detail::place_job_on_demand();
        share_coordinate_updates(**store);
        meridian_mca_base_framework_verbose(
            &meridian_pnet_base_framework, 1,
            "process %s, node %s: the node's leader set the node's network up (%u processes "
            "here); this process computed %s",
            datastore::format_proc((*store)->self()).c_str(), (*store)->node_name().c_str(),
            static_cast<unsigned>((*store)->local_size()),
            (*store)->local_rank() == 0 ? "the node's share" : "nothing");
        return success();
    }
    if (auto done = run(**store); !done) {
        return make_error(done.error().status, "in-job network setup (process " +
                                                   datastore::format_proc((*store)->self()) +
                                                   ", node " + (*store)->node_name() +
                                                   "): " + done.error().message);
    }
    s.path = SetupPath::in_job;
    meridian_mca_base_framework_verbose(
        &meridian_pnet_base_framework, 1,
        "process %s, node %s: set the job's network up in-job (%u processes)",
        datastore::format_proc((*store)->self()).c_str(), (*store)->node_name().c_str(),
        static_cast<unsigned>((*store)->job_size()));
    return success();
}

SetupPath setup_path()
{
    return state().path;
}

const mca_pnet_job *in_job()
{
    auto &s = state();
    if (!s.job && s.deferred) {
        // Only once: a failure is reported, later calls see no job.
        if (auto done = run_in_job(); !done) {
            report_error(done.error().message);
        }
    }
    return s.job.get();
}

void forget_in_job()
{
    auto &s = state();
    s.deferred = false;
    s.path = SetupPath::none;
    coord::set_context_provider(nullptr);
    coord::detail::endpoints_from_peers_published(false);
    detail::forget_leader();
    if (s.job) {
        (void)deregister(*s.job);
        s.job.reset();
    }
}

} // namespace meridian::pnet

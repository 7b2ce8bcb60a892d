// SPDX-License-Identifier: BSD-3-Clause
// The coordinates-updated event across a job (injob.sh runs it under mpirun):
// after meridian_init placed the job's coordinates (in-job mode), rank 0
// changes the fabric -- a NIC and a switch join the first plane on its node
// -- and places it again.  Every process must then
//   - receive MERIDIAN_NETWORK_COORDS_UPDATED as a PMIx event (a plain
//     handler registered with PMIx_Register_event_handler), naming the plane
//     in pmix.net.plane and carrying rank 0's new coordinates in
//     pmix.net.coord (pmix_coord_t values);
//   - call its Meridian callback (coord::on_updated) for that plane, by its
//     next coord call at the latest, and answer with the new shape.
// Across hosts (test/cluster) the processes of other nodes hear it through
// their node's relay, from rank 0 all the same.  With
// EVENT_OTHER_NODES_UNTOLD=1 (coord_base_event_range=node: no relay) a
// process on another node than rank 0's must hear nothing for 2 s, call no
// callback and keep the old shape instead.
// Prints "rank R: ok (...)" or "FAIL: ..." lines; exit 0 or 1.
#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/runtime/datastore.hpp>

namespace
{

int failures = 0;
std::uint32_t me = 0;

void check(bool ok, const std::string &what)
{
    if (!ok) {
        ++failures;
        std::printf("FAIL: rank %u: %s\n", me, what.c_str());
    }
}

// What the plain PMIx handler saw (PMIx's thread writes, main reads).
std::atomic<bool> pmix_heard{false};
std::atomic<bool> pmix_planes_ok{false};
std::atomic<bool> pmix_coord_ok{false};
std::atomic<std::uint32_t> pmix_source{UINT32_MAX};
std::atomic<std::uint32_t> pmix_from{UINT32_MAX};
char expected_plane[256];

void pmix_handler(std::size_t, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                  std::size_t ninfo, pmix_info_t *, std::size_t,
                  pmix_event_notification_cbfunc_fn_t done, void *done_data)
{
    if (status == MERIDIAN_NETWORK_COORDS_UPDATED) {
        for (std::size_t i = 0; i < ninfo; ++i) {
            const pmix_value_t &v = info[i].value;
            const bool array = v.type == PMIX_DATA_ARRAY && v.data.darray != nullptr;
            if (PMIX_CHECK_KEY(&info[i], "pmix.net.plane") && array &&
                v.data.darray->type == PMIX_STRING && v.data.darray->size > 0) {
                const auto *names = static_cast<char **>(v.data.darray->array);
                pmix_planes_ok = std::strcmp(names[0], expected_plane) == 0;
            }
            if (PMIX_CHECK_KEY(&info[i], "pmix.net.coord") && array &&
                v.data.darray->type == PMIX_COORD && v.data.darray->size > 0) {
                const auto *c = static_cast<pmix_coord_t *>(v.data.darray->array);
                pmix_coord_ok = c[0].dims > 0 && c[0].coord != nullptr;
            }
            if (PMIX_CHECK_KEY(&info[i], MERIDIAN_NETWORK_FROM) && v.type == PMIX_UINT64) {
                pmix_from = static_cast<std::uint32_t>(v.data.uint64);
            }
        }
        pmix_source = source != nullptr ? source->rank : UINT32_MAX - 1;
        pmix_heard = true;
    }
    if (done != nullptr) {
        done(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, done_data);
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (meridian_init(&argc, &argv) != 0) {
        std::printf("FAIL: meridian_init\n");
        return 1;
    }
    namespace coord = meridian::coord;
    namespace fabric = meridian::fabric;
    auto opened = meridian::datastore::store();
    // In-job, the process holds the job's allocation; in the launcher's and
    // the node leader's paths the job's coordinates are placed on the first
    // query (coord::context) from what the nodes published.
    const mca_pnet_job *job = meridian::pnet::in_job();
    const bool set_up = job != nullptr ||
                        meridian::pnet::setup_path() == meridian::pnet::SetupPath::launcher ||
                        meridian::pnet::setup_path() == meridian::pnet::SetupPath::leader;
    const mca_coord_context *ctx = coord::context();
    if (!opened || !set_up || ctx == nullptr) {
        std::printf("FAIL: no store, network setup or coordinates\n");
        meridian_finalize();
        return 1;
    }
    auto &store = **opened;
    me = store.self().rank;
    const fabric::Fabric &old_fabric = *ctx->fabric;
    const std::string plane =
        old_fabric.planes().empty() ? std::string() : old_fabric.planes()[0].name;
    std::snprintf(expected_plane, sizeof expected_plane, "%s", plane.c_str());
    const auto old_shape = coord::shape(plane);
    check(old_shape.ok(), "no shape of plane " + plane);

    // Both kinds of listener, before anybody changes anything.
    std::vector<std::string> called;
    const int handle = coord::on_updated("", [&called](std::span<const std::string> planes) {
        called.assign(planes.begin(), planes.end());
    });
    pmix_status_t code = MERIDIAN_NETWORK_COORDS_UPDATED;
    const pmix_status_t ref =
        PMIx_Register_event_handler(&code, 1, nullptr, 0, pmix_handler, nullptr, nullptr);
    check(ref >= 0, "PMIx_Register_event_handler failed");
    check(store.fence().ok(), "fence before the change");
    // Read before rank 0 places the new fabric: that replaces ctx.
    std::vector<std::uint32_t> node_of;
    for (std::uint32_t r = 0; r < store.job_size(); ++r) {
        node_of.push_back(ctx->job->procs[r].node);
    }
    const auto ctx_node = [&node_of](std::uint32_t rank) { return node_of[rank]; };
    const auto lowest_on_node = [&node_of](std::uint32_t rank) {
        for (std::uint32_t r = 0; r < rank; ++r) {
            if (node_of[r] == node_of[rank]) {
                return false;
            }
        }
        return true;
    };
    const char *untold_env = std::getenv("EVENT_OTHER_NODES_UNTOLD");
    const bool untold = untold_env != nullptr && std::strcmp(untold_env, "1") == 0 &&
                        ctx->job->procs[me].node != ctx->job->procs[0].node;

    if (me == 0) {
        // A NIC and a switch join the first plane on rank 0's node.
        const std::string node = old_fabric.nodes()[ctx->job->procs[0].node].name;
        const std::string text = fabric::format_fabric(old_fabric) +
                                 "\nswitch meridian-test-sw plane=" + plane + "\nnic " + node +
                                 " meridian-test-nic plane=" + plane + " switch=meridian-test-sw\n";
        auto changed = fabric::parse_fabric(text, "the changed fabric");
        check(changed.ok(), "the changed fabric: " + (changed ? "" : changed.error().message));
        if (changed) {
            auto placed = coord::set_context(
                std::make_shared<const fabric::Fabric>(std::move(*changed)), ctx->job);
            check(placed.ok(), "set_context: " + (placed ? "" : placed.error().message));
        }
    }

    if (untold) {
        // Another node: nothing comes, nothing changes here.
        std::this_thread::sleep_for(std::chrono::seconds(2));
        check(!pmix_heard, "a PMIx event reached another node than rank 0's: the launcher "
                           "forwards events now, README.md says it does not");
        const auto same_shape = coord::shape(plane);
        check(same_shape.ok() && old_shape.ok() && *same_shape == *old_shape,
              "the shape of " + plane + " changed on another node than rank 0's");
        check(called.empty(), "the Meridian callback was called on another node than rank 0's");
        coord::remove_updated(handle);
        check(store.fence().ok(), "fence after the change");
        if (ref >= 0) {
            PMIx_Deregister_event_handler(static_cast<std::size_t>(ref), nullptr, nullptr);
        }
        meridian_finalize();
        if (failures == 0) {
            std::printf("rank %u: ok (on another node than rank 0: not told)\n", me);
        }
        return failures == 0 ? 0 : 1;
    }

    // Every process hears the PMIx event (rank 0 its own too), bounded.
    for (int i = 0; i < 200 && !pmix_heard; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    check(pmix_heard, "no PMIx event MERIDIAN_NETWORK_COORDS_UPDATED within 10 s");
    // Rank 0's node hears it from rank 0; another node from its relay, its
    // lowest rank (which PMIx may name, or rank 0 as the relay asked -- the
    // relay itself hears it so); every process learns that rank 0 changed
    // them.
    const std::uint32_t source = pmix_source.load();
    const bool rank0_node = ctx_node(0) == ctx_node(me);
    const bool source_ok =
        source == 0 || (!rank0_node && source < store.job_size() &&
                        ctx_node(source) == ctx_node(me) && lowest_on_node(source));
    check(!pmix_heard || source_ok,
          "the event's source is rank " + std::to_string(source) + ", not " +
              (rank0_node ? "0" : "the lowest rank of this node (its relay)"));
    check(!pmix_heard || pmix_from == 0, "the event's " + std::string(MERIDIAN_NETWORK_FROM) +
                                             " is " + std::to_string(pmix_from.load()) +
                                             ", not rank 0");
    check(!pmix_heard || pmix_planes_ok, "the event's pmix.net.plane does not name " + plane);
    check(!pmix_heard || pmix_coord_ok, "the event carries no pmix_coord_t in pmix.net.coord");

    // The next coord call after Meridian's own handler took the event in
    // places the new fabric here and calls back.  PMIx may call that handler
    // after this program's, on its own thread: asked again, bounded.
    auto new_shape = coord::shape(plane);
    for (int i = 0; i < 200 && new_shape.ok() && old_shape.ok() && *new_shape == *old_shape; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        new_shape = coord::shape(plane);
    }
    check(new_shape.ok() && old_shape.ok() && *new_shape != *old_shape,
          "the shape of " + plane + " did not change within 10 s of the event");
    std::string heard;
    for (const auto &name : called) {
        heard += (heard.empty() ? "" : ", ") + name;
    }
    // The new NIC comes before loopback on its node, so other planes of
    // the node may change too; the plane it joined must be among them.
    check(std::find(called.begin(), called.end(), plane) != called.end(),
          "the Meridian callback was called for [" + heard + "], not for " + plane);
    coord::remove_updated(handle);
    check(store.fence().ok(), "fence after the change");
    if (ref >= 0) {
        PMIx_Deregister_event_handler(static_cast<std::size_t>(ref), nullptr, nullptr);
    }

    std::string summary;
    if (old_shape && new_shape) {
        const std::vector<std::uint32_t> &before = *old_shape;
        const std::vector<std::uint32_t> &after = *new_shape;
        for (const auto *shape : {&before, &after}) {
            summary += summary.empty() ? "" : " -> ";
            for (std::size_t i = 0; i < shape->size(); ++i) {
                summary += (i > 0 ? "x" : "") + std::to_string((*shape)[i]);
            }
        }
    }
    meridian_finalize();
    if (failures == 0) {
        std::printf("rank %u: ok (event from rank 0; callback for %s; shape of %s %s)\n", me,
                    heard.c_str(), plane.c_str(), summary.c_str());
    }
    return failures == 0 ? 0 : 1;
}

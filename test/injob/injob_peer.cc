// SPDX-License-Identifier: BSD-3-Clause
// One process of an in-job test (injob.sh runs it under mpirun -np 2 and
// -np 4, and alone).  After meridian_init, with the request
// "id=data,type=tcp,endpts=2,seckey=24" and the port pool tcp:32000-32099 from the
// environment, it checks what in-job mode gave it: its two ports (distinct,
// from the pool, unlike those of every process on its node), its datastore
// entry under the request's id, a non-empty NIC list, logical x,y,z
// coordinates on every plane, cost 0 to every process on its node; then it
// publishes its own ports and security key and compares every peer's with
// its own view of the peer, so every process must have computed the same
// allocation, with the key rank 0 drew.  Prints
// "rank R: ok" or the failures.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/runtime/datastore.hpp>

using namespace meridian;

namespace
{

int failures = 0;

void check(bool ok, const std::string &what)
{
    if (!ok) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

std::string text(std::span<const std::uint16_t> ports)
{
    std::string out;
    for (const auto p : ports) {
        out += (out.empty() ? "" : ",") + std::to_string(p);
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (const int rc = meridian_init(&argc, &argv); rc != MERIDIAN_SUCCESS) {
        std::printf("FAIL: meridian_init: %s\n", meridian_strerror(rc));
        // Expected by the test: exit 0, or mpirun would kill the other
        // processes before they say why they failed too.
        return std::getenv("INJOB_EXPECT_INIT_FAILURE") != nullptr ? 0 : 1;
    }
    auto opened = datastore::store();
    if (!opened) {
        std::printf("FAIL: store: %s\n", opened.error().message.c_str());
        return 1;
    }
    datastore::Store &store = **opened;
    const std::uint32_t me = store.self().rank;
    const std::uint32_t size = store.job_size();

    // A singleton's in-job run happens here, at the first question.
    const mca_pnet_job *handle = pnet::in_job();
    if (handle == nullptr) {
        std::printf("FAIL: rank %u: no in-job allocation\n", me);
        return 1;
    }
    const pnet::Job &job = handle->job;
    check(job.map.procs.size() == size, "job map has " + std::to_string(job.map.procs.size()) +
                                            " processes, expected " + std::to_string(size));
    const pnet::Grant *grant = job.grant("data");
    if (grant == nullptr) {
        std::printf("FAIL: rank %u: no grant \"data\"\n", me);
        return 1;
    }
    check(grant->type == "tcp", "grant type " + grant->type);
    check(grant->seckey.size() == 24,
          "security key of " + std::to_string(grant->seckey.size()) + " bytes, asked 24");

    const auto mine = grant->ports_of(me);
    check(mine.size() == 2, "own ports: " + text(mine));
    if (mine.size() == 2) {
        check(mine[0] != mine[1], "own ports are equal: " + text(mine));
    }
    for (const auto p : mine) {
        check(p >= 32000 && p <= 32099, "port " + std::to_string(p) + " is not from the pool");
    }
    const auto my_node = job.map.procs[me].node;
    for (std::uint32_t peer = 0; peer < size; ++peer) {
        if (peer == me || job.map.procs[peer].node != my_node) {
            continue;
        }
        for (const auto p : grant->ports_of(peer)) {
            for (const auto q : mine) {
                check(p != q, "port " + std::to_string(p) + " given to rank " +
                                  std::to_string(peer) + " too");
            }
        }
    }

    // setup_local_network's entry for this process, under the request's id.
    auto entry = store.get(store.self(), "data");
    check(entry && std::holds_alternative<datastore::InfoList>(*entry),
          "datastore entry \"data\": " +
              (entry ? datastore::format_value(*entry) : entry.error().message));

    check(!job.nics_of(me).empty(), "no NICs");

    auto coords = coord::coordinates(me);
    check(coords && !coords->empty(),
          "coordinates: " + (coords ? std::string("none") : coords.error().message));
    if (coords) {
        for (const auto &c : *coords) {
            check(c.view == MERIDIAN_COORD_LOGICAL_VIEW && c.coord.size() == 3,
                  "coordinate on " + c.plane + " is " + view_name(c.view) + " " +
                      format_coord(c.coord));
        }
    }
    for (std::uint32_t peer = 0; peer < size; ++peer) {
        auto cost = coord::cost(me, peer);
        if (!cost) {
            check(false, "cost to " + std::to_string(peer) + ": " + cost.error().message);
        } else if (job.map.procs[peer].node == my_node) {
            check(*cost == 0,
                  "cost to " + std::to_string(peer) + " on my node is " + std::to_string(*cost));
        }
    }

    // Everybody's view of everybody's ports must agree.
    check(store.put("test.ports", std::vector<std::uint32_t>(mine.begin(), mine.end())).ok(),
          "put");
    check(store.put("test.seckey", grant->seckey).ok(), "put");
    check(store.commit().ok() && store.fence().ok(), "commit/fence");
    for (std::uint32_t peer = 0; peer < size; ++peer) {
        auto theirs = store.get(datastore::ProcId{store.self().nspace, peer}, "test.ports");
        const auto view = grant->ports_of(peer);
        const datastore::Value expected = std::vector<std::uint32_t>(view.begin(), view.end());
        check(theirs && *theirs == expected,
              "rank " + std::to_string(peer) + " has ports " +
                  (theirs ? datastore::format_value(*theirs) : theirs.error().message) +
                  ", I gave it " + datastore::format_value(expected));
        auto key = store.get(datastore::ProcId{store.self().nspace, peer}, "test.seckey");
        check(key && *key == datastore::Value(grant->seckey),
              "rank " + std::to_string(peer) + " holds another security key: " +
                  (key ? datastore::format_value(*key) : key.error().message));
    }

    // The ports live in the job, which meridian_finalize drops.
    const std::string my_ports = text(mine);
    check(meridian_finalize() == MERIDIAN_SUCCESS, "finalize");
    check(pnet::in_job() == nullptr, "the job outlives meridian_finalize");
    if (failures == 0) {
        std::printf("rank %u: ok (ports %s)\n", me, my_ports.c_str());
    }
    return failures == 0 ? 0 : 1;
}

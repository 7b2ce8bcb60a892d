// One process of a job across the simulated hosts (pnet_hosts.sh runs it
// under mpirun on contrib/cluster/cluster.sh's hosts).  After meridian_init
// in in-job mode it prints, on one line, what pnet and coord gave it, for
// the script to compare across processes and hosts:
//
//   rank R: node=h1 ports=32000,32001 nics=eth0,mgmt0,lo
//     coord=PLANE:x,y,z;... cost=C0,C1,... endpt=ADDRESS:PORT,... agree=yes
//
// (one line; wrapped here).  agree=yes: every other process's ports, as that
// process published them after its own allocation, are the ports this
// process computed for it -- every process computed the same allocation.
// Failures are printed as "FAIL: ..." lines and make the exit status 1.
// With CLUSTER_PEER_WAIT=FILE it holds its ports until FILE exists (at most
// 120 s), so that two jobs run side by side.
#include <unistd.h>

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

void fail(const std::string &what)
{
    ++failures;
    std::printf("FAIL: %s\n", what.c_str());
}

template <typename Range, typename Format>
std::string joined(const Range &items, const char *separator, Format format)
{
    std::string out;
    for (const auto &item : items) {
        out += (out.empty() ? "" : separator) + format(item);
    }
    return out;
}

std::string number(std::uint64_t n)
{
    return std::to_string(n);
}

} // namespace

int main(int argc, char **argv)
{
    if (const int rc = meridian_init(&argc, &argv); rc != MERIDIAN_SUCCESS) {
        std::printf("FAIL: meridian_init: %s\n", meridian_strerror(rc));
        return 1;
    }
    auto opened = datastore::store();
    if (!opened) {
        std::printf("FAIL: store: %s\n", opened.error().message.c_str());
        return 1;
    }
    datastore::Store &store = **opened;
    const std::uint32_t me = store.self().rank;
    const std::uint32_t size = store.job_size();
    const mca_pnet_job *handle = pnet::in_job();
    if (handle == nullptr) {
        std::printf("FAIL: rank %u: no in-job allocation\n", me);
        return 1;
    }
    const pnet::Job &job = handle->job;
    const pnet::Grant *grant = job.grant("data");
    if (grant == nullptr) {
        std::printf("FAIL: rank %u: no grant \"data\"\n", me);
        return 1;
    }
    const fabric::Fabric &fab = *job.fabric;
    const auto mine = grant->ports_of(me);
    const std::string node = fab.nodes()[job.map.procs[me].node].name;
    const std::string nics =
        joined(job.nics_of(me), ",", [&](fabric::Index n) { return fab.nics()[n].name; });

    std::string coordinates;
    if (auto coords = coord::coordinates(me); coords) {
        coordinates = joined(*coords, ";", [](const Coordinate &c) {
            return c.plane + ":" + joined(c.coord, ",", [](std::uint32_t v) { return number(v); });
        });
    } else {
        fail("coordinates: " + coords.error().message);
    }
    std::vector<std::uint64_t> costs;
    for (std::uint32_t peer = 0; peer < size; ++peer) {
        auto cost = coord::cost(me, peer);
        if (!cost) {
            fail("cost to " + number(peer) + ": " + cost.error().message);
            costs.push_back(UINT64_MAX);
        } else {
            costs.push_back(*cost);
        }
    }
    std::string endpoints;
    if (auto endpts = coord::endpoints(me); endpts) {
        endpoints = joined(*endpts, ",", [](const std::string &e) { return e; });
    } else {
        fail("endpoints: " + endpts.error().message);
    }

    // Everybody's view of everybody's ports must agree.
    bool agree = true;
    if (!store.put("test.ports", std::vector<std::uint32_t>(mine.begin(), mine.end())).ok() ||
        !store.commit().ok() || !store.fence().ok()) {
        fail("put/commit/fence of the ports");
        agree = false;
    }
    for (std::uint32_t peer = 0; agree && peer < size; ++peer) {
        auto theirs = store.get(datastore::ProcId{store.self().nspace, peer}, "test.ports");
        const auto view = grant->ports_of(peer);
        const datastore::Value expected = std::vector<std::uint32_t>(view.begin(), view.end());
        if (!theirs || *theirs != expected) {
            fail("rank " + number(peer) + " has ports " +
                 (theirs ? datastore::format_value(*theirs) : theirs.error().message) +
                 ", I gave it " + datastore::format_value(expected));
            agree = false;
        }
    }

    std::printf("rank %u: node=%s ports=%s nics=%s coord=%s cost=%s endpt=%s agree=%s\n", me,
                node.c_str(), joined(mine, ",", number).c_str(), nics.c_str(), coordinates.c_str(),
                joined(costs, ",", number).c_str(), endpoints.c_str(), agree ? "yes" : "no");
    std::fflush(stdout);
    // Jobs side by side: hold the ports until the script says go (bounded).
    if (const char *go = std::getenv("CLUSTER_PEER_WAIT"); go != nullptr && *go != '\0') {
        for (int tries = 0; tries < 1200 && access(go, F_OK) != 0; ++tries) {
            usleep(100 * 1000);
        }
    }
    if (meridian_finalize() != MERIDIAN_SUCCESS) {
        fail("meridian_finalize");
    }
    return failures == 0 ? 0 : 1;
}

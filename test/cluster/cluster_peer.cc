// SPDX-License-Identifier: BSD-3-Clause
// One process of a job across the simulated hosts (pnet_hosts.sh runs it
// under mpirun on contrib/cluster/cluster.sh's hosts).  After meridian_init,
// whichever path set the job's network up, it prints, on one line, what pnet and coord gave it, for
// the script to compare across processes and hosts:
//
//   rank R: node=h1 ports=32000,32001 nics=eth0,mgmt0,lo
//     coord=PLANE:x,y,z;... cost=C0,C1,... endpt=ADDRESS:PORT,... agree=yes
//
// (one line; wrapped here).  agree=yes: every other process's endpoints, as
// that process sees them, are the ones this process's coord gives for it --
// in-job every process computed the same allocation; in the launcher's and
// the node leader's paths (which computed nothing of the job) they are what
// each process published.
// Failures are printed as "FAIL: ..." lines and make the exit status 1.
// With CLUSTER_PEER_WAIT=FILE it holds its ports until FILE exists (at most
// 120 s), so that two jobs run side by side.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <span>
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
    // In-job, the process holds the whole job's allocation; in the
    // launcher's and the node leader's paths it holds nothing of the job,
    // and its answers come from what the processes published and the job's
    // fabric, placed on its first coord query.
    const pnet::SetupPath path = pnet::setup_path();
    const mca_pnet_job *handle = pnet::in_job();
    if (handle == nullptr && path == pnet::SetupPath::in_job) {
        std::printf("FAIL: rank %u: no in-job allocation\n", me);
        return 1;
    }
    std::string coordinates;
    if (auto coords = coord::coordinates(me); coords) {
        coordinates = joined(*coords, ";", [](const Coordinate &c) {
            return c.plane + ":" + joined(c.coord, ",", [](std::uint32_t v) { return number(v); });
        });
    } else {
        fail("coordinates: " + coords.error().message);
    }
    const mca_coord_context *placed = coord::context();
    if (placed == nullptr) {
        std::printf("FAIL: rank %u: no job placed for coord\n", me);
        return 1;
    }
    const fabric::Fabric &fab = *placed->fabric;
    const fabric::ProcPlacement &where = placed->job->procs[me];
    const std::string node = fab.nodes()[where.node].name;
    const std::string nics = joined(fab.nics_by_distance(where.node, where.package), ",",
                                    [&](fabric::Index n) { return fab.nics()[n].name; });
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
    std::vector<std::string> endpts;
    if (auto got = coord::endpoints(me); got) {
        endpts = std::move(*got);
    } else {
        fail("endpoints: " + got.error().message);
    }
    const std::string endpoints = joined(endpts, ",", [](const std::string &e) { return e; });
    // This process's ports: its grant in-job, else its endpoints' ports.
    std::vector<std::uint32_t> mine;
    if (handle != nullptr) {
        if (const pnet::Grant *grant = handle->job.grant("data"); grant != nullptr) {
            const auto ports = grant->ports_of(me);
            mine.assign(ports.begin(), ports.end());
        } else {
            fail("no grant \"data\"");
        }
    } else {
        for (const auto &e : endpts) {
            mine.push_back(static_cast<std::uint32_t>(std::stoul(e.substr(e.rfind(':') + 1))));
        }
    }

    // Everybody's view of everybody must agree.  In-job, every process
    // computed the same allocation: each process's ports as it published
    // them are the ports this one computed for it.  In the launcher's and the
    // node leader's paths (which computed nothing of the job), each
    // process's endpoints as it sees them are what this one's coord reads of
    // it.
    bool agree = true;
    const std::vector<std::uint32_t> ports_put(mine.begin(), mine.end());
    if (!store.put("test.ports", ports_put).ok() || !store.put("test.endpts", endpts).ok() ||
        !store.commit().ok() || !store.fence().ok()) {
        fail("put/commit/fence of the ports and endpoints");
        agree = false;
    }
    for (std::uint32_t peer = 0; agree && peer < size; ++peer) {
        const datastore::ProcId them{store.self().nspace, peer};
        datastore::Value expected;
        Result<datastore::Value> theirs = make_error(MERIDIAN_ERR_NOT_FOUND, "");
        if (handle != nullptr) {
            const auto view = handle->job.grant("data") != nullptr
                                  ? handle->job.grant("data")->ports_of(peer)
                                  : std::span<const std::uint16_t>();
            expected = std::vector<std::uint32_t>(view.begin(), view.end());
            theirs = store.get(them, "test.ports");
        } else {
            auto view = coord::endpoints(peer);
            if (!view) {
                fail("endpoints of rank " + number(peer) + ": " + view.error().message);
                agree = false;
                continue;
            }
            expected = std::move(*view);
            theirs = store.get(them, "test.endpts");
        }
        if (!theirs || *theirs != expected) {
            fail("rank " + number(peer) + " has " +
                 (theirs ? datastore::format_value(*theirs) : theirs.error().message) + ", I see " +
                 datastore::format_value(expected));
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

// SPDX-License-Identifier: BSD-3-Clause
// One process of a port-ledger test (ledger.sh): after meridian_init and
// in-job mode it prints its pid and the ports of each request,
//
//   rank 0 pid 4242: data=32000,32001 dgram=32004
//
// (in the node-leader path, which keeps no job here: "ports=" and the
// ports of its endpoints), then, when LEDGER_PEER_WAIT names a file --
// and LEDGER_PEER_WAIT_RANK, when set, is its rank -- waits until that
// file exists (at most LEDGER_PEER_TIMEOUT seconds, default 60), so that
// the test can run jobs side by side and look at the ledger meanwhile; then
// meridian_finalize and "rank R: done".  Failures print "FAIL: ..." and exit 1
// (a failed meridian_init exits 0 when LEDGER_PEER_EXPECT_FAILURE is set).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/runtime/meridian.h>

using namespace meridian;

namespace
{

// Wait for `path`, polling; false after `seconds`.
bool wait_for(const char *path, long seconds)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (access(path, F_OK) != 0) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    if (const int rc = meridian_init(&argc, &argv); rc != MERIDIAN_SUCCESS) {
        std::printf("FAIL: meridian_init: %s\n", meridian_strerror(rc));
        // Expected by the test: exit 0, or mpirun would kill the other
        // processes before they fail too.
        return std::getenv("LEDGER_PEER_EXPECT_FAILURE") != nullptr ? 0 : 1;
    }
    // The rank as the launcher gives it (0 alone): the peer needs no more of
    // the datastore.
    const char *rank = std::getenv("PMIX_RANK");
    const auto me = static_cast<std::uint32_t>(rank != nullptr ? std::atol(rank) : 0);
    std::string line = "rank " + std::to_string(me) + " pid " + std::to_string(getpid()) + ":";
    if (pnet::setup_path() == pnet::SetupPath::leader) {
        auto endpoints = coord::endpoints(me);
        if (!endpoints) {
            std::printf("FAIL: rank %u: no endpoints: %s\n", me, endpoints.error().message.c_str());
            return 1;
        }
        line += " ports=";
        bool first = true;
        for (const auto &endpoint : *endpoints) {
            line += (first ? "" : ",") + endpoint.substr(endpoint.rfind(':') + 1);
            first = false;
        }
    } else {
        // A singleton's in-job run happens here.
        const mca_pnet_job *handle = pnet::in_job();
        if (handle == nullptr) {
            std::printf("FAIL: rank %u: no in-job allocation\n", me);
            return 1;
        }
        for (const auto &grant : handle->job.grants) {
            line += ' ' + grant.id + '=';
            bool first = true;
            for (const auto port : grant.ports_of(me)) {
                line += (first ? "" : ",") + std::to_string(port);
                first = false;
            }
        }
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);

    const char *waiter = std::getenv("LEDGER_PEER_WAIT_RANK");
    const bool waits =
        waiter == nullptr || *waiter == '\0' || static_cast<std::uint32_t>(std::atol(waiter)) == me;
    if (const char *path = std::getenv("LEDGER_PEER_WAIT");
        waits && path != nullptr && *path != '\0') {
        const char *limit = std::getenv("LEDGER_PEER_TIMEOUT");
        const long seconds = limit != nullptr ? std::atol(limit) : 60;
        if (!wait_for(path, seconds > 0 ? seconds : 60)) {
            std::printf("FAIL: rank %u: %s did not appear\n", me, path);
            std::fflush(stdout);
            (void)meridian_finalize();
            return 1;
        }
    }
    if (meridian_finalize() != MERIDIAN_SUCCESS) {
        std::printf("FAIL: rank %u: meridian_finalize\n", me);
        return 1;
    }
    std::printf("rank %u: done\n", me);
    return 0;
}

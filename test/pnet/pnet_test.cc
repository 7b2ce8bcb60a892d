// SPDX-License-Identifier: BSD-3-Clause
// The pnet base and pnet_tcp: seed 002's two-network job, ports unique per
// node and given back on deregister, jobs side by side, required versus best
// effort for every value, all-or-nothing allocation, the datastore entries of
// setup_local_network, setup_fork, and the component's parameters.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "test/pnet/lab_fabric.h"
#include "test/support/meridian_test.hpp"
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/runtime/datastore.hpp>

namespace
{

using namespace meridian;

std::shared_ptr<const fabric::Fabric> lab()
{
    auto parsed = fabric::parse_fabric(lab_fabric, "lab.fabric");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    return std::make_shared<const fabric::Fabric>(std::move(*parsed));
}

// The components the tests use: pnet_tcp, and the opa fixture when `opa`
// names its mode.
void use_components(const char *opa)
{
    meridian_test::set_param_env("mca_base_component_path", PNET_COMPONENT_PATH);
    meridian_test::set_param_env("pnet", opa != nullptr ? "tcp,opa" : "tcp");
    if (opa != nullptr) {
        meridian_test::set_param_env("pnet_opa_mode", opa);
    }
}

std::unique_ptr<mca_pnet_job> job_of(std::shared_ptr<const fabric::Fabric> fabric,
                                     const char *hosts, const char *requests,
                                     const char *nspace = "job1")
{
    auto map = fabric::make_job_map(*fabric, hosts, fabric::Binding::package, "--hosts", nspace);
    ck_assert_msg(map.ok(), "%s", map.ok() ? "" : map.error().message.c_str());
    auto parsed = pnet::parse_requests(requests, "--request");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    auto job = pnet::make_job(std::move(fabric), std::move(*map), std::move(*parsed));
    ck_assert_msg(job.ok(), "%s", job.ok() ? "" : job.error().message.c_str());
    return std::move(*job);
}

void allocate_ok(mca_pnet_job &job)
{
    auto done = pnet::allocate(job);
    ck_assert_msg(done.ok(), "%s", done.ok() ? "" : done.error().message.c_str());
}

std::string allocate_error(mca_pnet_job &job)
{
    auto done = pnet::allocate(job);
    ck_assert_msg(!done.ok(), "allocate succeeded");
    ck_assert_msg(job.job.grants.empty(), "a failed allocation left grants");
    return done.error().message;
}

std::vector<std::uint16_t> ports(const pnet::Grant &grant, std::uint32_t rank)
{
    const auto span = grant.ports_of(rank);
    return {span.begin(), span.end()};
}

std::vector<std::uint16_t> range(std::uint16_t first, std::uint16_t last)
{
    std::vector<std::uint16_t> all;
    for (std::uint32_t port = first; port <= last; ++port) {
        all.push_back(static_cast<std::uint16_t>(port));
    }
    return all;
}

datastore::Value stored(const char *nspace, std::uint32_t rank, std::string_view key)
{
    auto store = datastore::store();
    ck_assert(store.ok());
    auto value = (*store)->get(datastore::ProcId{nspace, rank}, key);
    ck_assert_msg(value.ok(), "%s", value.ok() ? "" : value.error().message.c_str());
    return *value;
}

void setup_root()
{
    meridian_test::make_scratch_root("meridian-pnet-test");
    meridian_test::isolate_mca_environment();
}

void teardown_root()
{
    meridian_test::remove_scratch_root();
}

void setup_capture()
{
    meridian_test::make_scratch("pnet");
    meridian_test::capture_messages();
}

// ---------------------------------------------------------------- seed 002

// A TCP request and an OPA request in one job, each served by its component.
START_TEST(seed_two_networks_in_one_job)
{
    use_components("ok");
    auto job =
        job_of(lab(), "node01:2,node02:2", "id=data,type=tcp,endpts=2;id=fast,type=opa,required");
    ck_assert_text_eq(meridian_test::value_of("pnet"), "tcp,opa");
    ck_assert(pnet::active_components() == (std::vector<std::string>{"tcp", "opa"}));
    allocate_ok(*job);
    const pnet::Grant *data = job->job.grant("data");
    const pnet::Grant *fast = job->job.grant("fast");
    ck_assert_ptr_nonnull(data);
    ck_assert_ptr_nonnull(fast);
    ck_assert_text_eq(data->component, "tcp");
    ck_assert_text_eq(data->plane, "10.10.0.0/16");
    ck_assert(ports(*data, 0) == (std::vector<std::uint16_t>{32000, 32001}));
    ck_assert(ports(*data, 1) == (std::vector<std::uint16_t>{32002, 32003}));
    ck_assert(ports(*data, 2) == (std::vector<std::uint16_t>{32000, 32001}));
    ck_assert(ports(*data, 3) == (std::vector<std::uint16_t>{32002, 32003}));
    ck_assert_text_eq(fast->component, "opa");
    ck_assert_uint_eq(fast->devices_of(3).size(), 1);
    ck_assert_no_messages();
}
END_TEST

// Nobody serves opa: a required type fails make_job, naming what is served.
START_TEST(seed_required_type_nobody_serves)
{
    use_components(nullptr);
    auto map = fabric::make_job_map(*lab(), "node01:1", fabric::Binding::none, "--hosts");
    ck_assert(map.ok());
    auto requests = pnet::parse_requests("id=data,type=tcp;id=fast,type=opa,required", "r");
    ck_assert(requests.ok());
    auto job = pnet::make_job(lab(), std::move(*map), std::move(*requests));
    ck_assert(!job.ok());
    ck_assert_text_eq(job.error().message,
                      "request \"fast\": TYPE opa is required but no pnet component serves it "
                      "(tcp, udp)");
}
END_TEST

// Best effort: the request falls back to pnet_base_default_type, with a warning.
START_TEST(seed_best_effort_type_falls_back)
{
    use_components(nullptr);
    auto job = job_of(lab(), "node01:1", "id=fast,type=opa,endpts=1");
    ck_assert_messages(
        WARNING_MSG("request \"fast\": no pnet component serves TYPE opa (tcp, udp); using tcp"));
    meridian_test::clear_messages();
    allocate_ok(*job);
    ck_assert_text_eq(job->job.grants[0].type, "tcp");
    ck_assert(ports(job->job.grants[0], 0) == (std::vector<std::uint16_t>{32000}));
    ck_assert_no_messages();
}
END_TEST

// ---------------------------------------------------------------- ports

// Property: many processes with several ports each, every port unique on its
// node, from the node's pool; ranks on one node draw in rank order.
START_TEST(ports_are_unique_per_node)
{
    use_components(nullptr);
    meridian_test::set_param_env("pnet_tcp_static_ports", "tcp:1000-60999;udp:2000-2999");
    auto job = job_of(lab(), "node01:30,node02:2,node03:500",
                      "id=a,type=tcp,endpts=3;id=b,type=udp,endpts=2;id=c,type=tcp,endpts=1");
    allocate_ok(*job);
    using Key = std::pair<fabric::Index, std::string>;
    std::map<Key, std::set<std::uint16_t>> seen;
    const auto key = [](fabric::Index node, const char *protocol) { return Key{node, protocol}; };
    for (const auto &grant : job->job.grants) {
        const std::string protocol = grant.type;
        for (std::uint32_t rank = 0; rank < job->job.map.procs.size(); ++rank) {
            const auto node = job->job.map.procs[rank].node;
            for (const auto port : grant.ports_of(rank)) {
                const bool fresh = seen[{node, protocol}].insert(port).second;
                ck_assert_msg(fresh, "port %u of rank %u given twice", port, rank);
            }
        }
    }
    // node03 draws from pnet_tcp_static_ports: 500 x (3 + 1) tcp, 500 x 2 udp.
    ck_assert_uint_eq(seen[key(2, "tcp")].size(), 2000);
    ck_assert_uint_eq(*seen[key(2, "tcp")].begin(), 1000);
    ck_assert_uint_eq(seen[key(2, "udp")].size(), 1000);
    ck_assert_uint_eq(*seen[key(2, "udp")].rbegin(), 2999);
    // node01 has 100 tcp ports, node02 6: 30 x 4 does not fit node01.
    ck_assert_uint_eq(seen[key(0, "tcp")].size(), 100);
    ck_assert_uint_eq(seen[key(0, "udp")].size(), 10);
    ck_assert_messages(WARNING_MSG("request \"b\": ENDPTS 2 is not met: node02 has no udp port "
                                   "pool for its NICs; processes get what is free"),
                       WARNING_MSG("request \"c\": ENDPTS 1 is not met: node01 has 10 free tcp "
                                   "ports on 10.10.0.0/16 for 30 processes; processes get what "
                                   "is free"));
}
END_TEST

// A protocol's pool named twice (in pnet_tcp_static_ports or a node's
// ports=) is one pool with the ports of both: 4 tcp ports here, not the
// first 2 only, and 3 udp.
START_TEST(pools_named_twice_are_one_pool)
{
    use_components(nullptr);
    meridian_test::set_param_env("pnet_tcp_static_ports",
                                 "tcp:100-101;udp:300;tcp:200-201;udp:400-401");
    auto job = job_of(lab(), "node03:2", "id=a,type=tcp,endpts=2,required;id=b,type=udp,endpts=1");
    allocate_ok(*job);
    ck_assert(ports(job->job.grants[0], 0) == (std::vector<std::uint16_t>{100, 101}));
    ck_assert(ports(job->job.grants[0], 1) == (std::vector<std::uint16_t>{200, 201}));
    ck_assert(ports(job->job.grants[1], 0) == (std::vector<std::uint16_t>{300}));
    ck_assert(ports(job->job.grants[1], 1) == (std::vector<std::uint16_t>{400}));
    ck_assert_messages();

    auto parsed =
        fabric::parse_fabric("fabric f\n"
                             "plane 10.20.0.0/16 cidr=10.20.0.0/16\n"
                             "node n1 ports=tcp:10.20.0.0/16:7000;tcp:10.20.0.0/16:7005-7006\n"
                             "nic n1 eth0 plane=10.20.0.0/16 address=10.20.0.1\n",
                             "f.fabric");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    auto twice = job_of(std::make_shared<const fabric::Fabric>(std::move(*parsed)), "n1:3",
                        "id=c,type=tcp,endpts=1,required", "job2");
    allocate_ok(*twice);
    ck_assert(ports(twice->job.grants[0], 0) == (std::vector<std::uint16_t>{7000}));
    ck_assert(ports(twice->job.grants[0], 2) == (std::vector<std::uint16_t>{7006}));
}
END_TEST

START_TEST(ports_return_on_deregister_and_are_reused)
{
    use_components(nullptr);
    auto fabric = lab();
    auto first = job_of(fabric, "node02:2", "id=data,type=tcp,endpts=3,required", "first");
    allocate_ok(*first);
    ck_assert(ports(first->job.grants[0], 0) == range(32000, 32002));
    ck_assert(ports(first->job.grants[0], 1) == range(32003, 32005));
    auto second = job_of(fabric, "node02:1", "id=data,type=tcp,endpts=1,required", "second");
    ck_assert_text_eq(allocate_error(*second),
                      "the pnet component \"tcp\" failed in allocate: " +
                          std::string(meridian_strerror(MERIDIAN_ERR_OUT_OF_RESOURCE)));
    ck_assert_messages(ERROR_MSG("request \"data\": ENDPTS 1 is required but node02 has 0 free "
                                 "tcp ports on 10.10.0.0/16 for 1 process"));
    ck_assert(pnet::deregister(*first).ok());
    ck_assert(pnet::deregister(*first).ok()); // idempotent: gives nothing twice
    meridian_test::clear_messages();
    auto third = job_of(fabric, "node02:2", "id=data,type=tcp,endpts=3,required", "third");
    allocate_ok(*third);
    ck_assert(ports(third->job.grants[0], 0) == range(32000, 32002));
    ck_assert(ports(third->job.grants[0], 1) == range(32003, 32005));
    ck_assert_no_messages();
}
END_TEST

START_TEST(two_jobs_at_once_share_no_port)
{
    use_components(nullptr);
    auto fabric = lab();
    auto first = job_of(fabric, "node01:4", "id=data,type=tcp,endpts=5", "first");
    auto second = job_of(fabric, "node01:4", "id=data,type=tcp,endpts=5", "second");
    allocate_ok(*first);
    allocate_ok(*second);
    std::set<std::uint16_t> all;
    for (const auto *job : {first.get(), second.get()}) {
        for (const auto port : job->job.grants[0].ports) {
            ck_assert_msg(all.insert(port).second, "port %u in both jobs", port);
        }
    }
    ck_assert_uint_eq(all.size(), 40);
    ck_assert(ports(second->job.grants[0], 0) == range(32020, 32024));
}
END_TEST

// ---------------------------------------------------------------- required vs best effort

START_TEST(endpts_required_and_best_effort)
{
    use_components(nullptr);
    auto fabric = lab();
    auto strict = job_of(fabric, "node01:1,node02:2", "id=data,type=tcp,endpts=4!");
    allocate_error(*strict);
    ck_assert_messages(ERROR_MSG("request \"data\": ENDPTS 4 is required but node02 has 6 free "
                                 "tcp ports on 10.10.0.0/16 for 2 processes"));
    meridian_test::clear_messages();
    // Best effort: node02's 6 ports shared, 3 each; node01 gets all 4.
    auto loose = job_of(fabric, "node01:1,node02:2", "id=data,type=tcp,endpts=4");
    allocate_ok(*loose);
    ck_assert(ports(loose->job.grants[0], 0) == range(32000, 32003));
    ck_assert(ports(loose->job.grants[0], 1) == range(32000, 32002));
    ck_assert(ports(loose->job.grants[0], 2) == range(32003, 32005));
    ck_assert_messages(WARNING_MSG("request \"data\": ENDPTS 4 is not met: node02 has 6 free tcp "
                                   "ports on 10.10.0.0/16 for 2 processes; processes get what is "
                                   "free"));
}
END_TEST

// A request that names no endpoint count misses nothing on a node the site
// keeps no port pool for (node03): no warning, and no ports (Open MPI 5's
// mpirun asks every job for one such request).  A short pool still warns,
// and so does a missing one when the count is named.
START_TEST(endpts_unnamed_without_a_pool_is_quiet)
{
    use_components(nullptr);
    auto fabric = lab();
    auto quiet = job_of(fabric, "node01:1,node03:2", "id=prterun-n1-4711@1.net,seckey");
    allocate_ok(*quiet);
    ck_assert_no_messages();
    ck_assert(ports(quiet->job.grants[0], 0) == (std::vector<std::uint16_t>{32000}));
    ck_assert(ports(quiet->job.grants[0], 1).empty());
    ck_assert(ports(quiet->job.grants[0], 2).empty());
    auto named = job_of(fabric, "node03:2", "id=net,endpts=1");
    allocate_ok(*named);
    ck_assert_messages(WARNING_MSG("request \"net\": ENDPTS 1 is not met: node03 has no tcp port "
                                   "pool for its NICs; processes get what is free"));
    meridian_test::clear_messages();
    auto short_pool = job_of(fabric, "node02:7", "id=net");
    allocate_ok(*short_pool);
    ck_assert_messages(WARNING_MSG("request \"net\": ENDPTS 1 is not met: node02 has 6 free tcp "
                                   "ports on 10.10.0.0/16 for 7 processes; processes get what is "
                                   "free"));
}
END_TEST

START_TEST(qos_required_and_best_effort)
{
    use_components(nullptr);
    auto fabric = lab();
    auto fits = job_of(fabric, "node01:1", "id=data,type=tcp,qos=3,required");
    allocate_ok(*fits);
    ck_assert_uint_eq(*fits->job.grants[0].qos, 3);
    auto strict = job_of(fabric, "node01:1", "id=data,type=tcp,qos=5!");
    allocate_error(*strict);
    ck_assert_messages(
        ERROR_MSG("request \"data\": QOS 5 is required but plane 10.10.0.0/16 has QoS levels 0-3"));
    meridian_test::clear_messages();
    auto loose = job_of(fabric, "node01:1", "id=data,type=tcp,qos=5");
    allocate_ok(*loose);
    ck_assert_uint_eq(*loose->job.grants[0].qos, 3);
    ck_assert_messages(WARNING_MSG("request \"data\": QOS 5 is not available: plane 10.10.0.0/16 "
                                   "has QoS levels 0-3; assigned 3"));
}
END_TEST

START_TEST(bandwidth_required_and_best_effort)
{
    use_components(nullptr);
    meridian_test::set_param_env("pnet_tcp_static_ports", "tcp:5000-5010");
    auto fabric = lab();
    // node01's 10G eth0 shared by 4 processes: 2.5 Gb/s each.
    auto fits = job_of(fabric, "node01:4", "id=data,type=tcp,bw=2G,required");
    allocate_ok(*fits);
    ck_assert(*fits->job.grants[0].bandwidth_mbps == 2000.0);
    ck_assert(pnet::deregister(*fits).ok());
    auto strict = job_of(fabric, "node01:4", "id=data,type=tcp,bw=5G!");
    allocate_error(*strict);
    ck_assert_messages(ERROR_MSG("request \"data\": BANDWIDTH 5 Gb/s is required but node01's "
                                 "eth0 gives 2.5 Gb/s per process (10 Gb/s shared by 4 "
                                 "processes)"));
    meridian_test::clear_messages();
    auto loose = job_of(fabric, "node01:4", "id=data,type=tcp,bw=5G");
    allocate_ok(*loose);
    ck_assert(*loose->job.grants[0].bandwidth_mbps == 2500.0);
    ck_assert_messages(WARNING_MSG("request \"data\": BANDWIDTH 5 Gb/s is not met: node01's eth0 "
                                   "gives 2.5 Gb/s per process (10 Gb/s shared by 4 processes); "
                                   "assigned 2.5 Gb/s"));
    meridian_test::clear_messages();
    // node03's eth0 has no known speed.
    auto unknown = job_of(fabric, "node03:1", "id=data,type=tcp,bw=1G,required");
    allocate_error(*unknown);
    ck_assert_messages(ERROR_MSG("request \"data\": BANDWIDTH 1 Gb/s is required but the speed "
                                 "of node03's eth0 is unknown"));
}
END_TEST

// ---------------------------------------------------------------- bandwidth over rails

// Nodes with two rails on one plane: r1 two 25G NICs, r2 a 25G and a 10G
// one (both near package 0, so eth0 is every process's nearest), r3 a 25G
// NIC on package 0 and a 40G one on package 1.
const char *const rails_fabric_text =
    "fabric rails\n"
    "plane 10.30.0.0/16 cidr=10.30.0.0/16\n"
    "node r1 packages=1 cores=4 ports=tcp:10.30.0.0/16:33000-33099\n"
    "node r2 packages=1 cores=4 ports=tcp:10.30.0.0/16:33000-33099\n"
    "node r3 packages=2 cores=8 ports=tcp:10.30.0.0/16:33000-33099\n"
    "nic r1 eth0 plane=10.30.0.0/16 address=10.30.1.1 speed=25G package=0\n"
    "nic r1 eth1 plane=10.30.0.0/16 address=10.30.2.1 speed=25G package=0\n"
    "nic r2 eth0 plane=10.30.0.0/16 address=10.30.1.2 speed=25G package=0\n"
    "nic r2 eth1 plane=10.30.0.0/16 address=10.30.2.2 speed=10G package=0\n"
    "nic r3 eth0 plane=10.30.0.0/16 address=10.30.1.3 speed=25G package=0\n"
    "nic r3 eth1 plane=10.30.0.0/16 address=10.30.2.3 speed=40G package=1\n";

std::shared_ptr<const fabric::Fabric> rails()
{
    auto parsed = fabric::parse_fabric(rails_fabric_text, "rails.fabric");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    return std::make_shared<const fabric::Fabric>(std::move(*parsed));
}

// Each process's NIC, by rank.
std::vector<std::string> nics(const pnet::Grant &grant, std::uint32_t ranks)
{
    std::vector<std::string> names;
    for (std::uint32_t rank = 0; rank < ranks; ++rank) {
        const auto devices = grant.devices_of(rank);
        names.push_back(devices.empty() ? "-" : grant.device_names[devices[0]]);
    }
    return names;
}

std::string nic_list(const std::vector<std::string> &names)
{
    std::string text;
    for (const auto &name : names) {
        text += (text.empty() ? "" : ",") + name;
    }
    return text;
}

#define ck_assert_nics(grant, ranks, expected)                                                     \
    ck_assert_text_eq(nic_list(nics((grant), (ranks))), (expected))

// 4 x 10G on one 25G NIC does not fit; two 25G rails carry 2 each: the first
// two processes stay on their nearest NIC, the others move to the next rail,
// with their endpoints on it.
START_TEST(bandwidth_spreads_over_rails)
{
    use_components(nullptr);
    auto job = job_of(rails(), "r1:4", "id=data,type=tcp,bw=10G,required");
    allocate_ok(*job);
    const pnet::Grant &grant = job->job.grants[0];
    ck_assert_nics(grant, 4, "eth0,eth0,eth1,eth1");
    ck_assert(*grant.bandwidth_mbps == 10000.0);
    ck_assert_text_eq(grant.plane, "10.30.0.0/16");
    ck_assert(ports(grant, 0) == (std::vector<std::uint16_t>{33000}));
    ck_assert(ports(grant, 3) == (std::vector<std::uint16_t>{33003}));
    ck_assert(pnet::setup_local_network(*job, "r1").ok());
    ck_assert(std::get<std::vector<std::string>>(stored("job1", 1, "pmix.net.endpt")) ==
              (std::vector<std::string>{"10.30.1.1:33001"}));
    ck_assert(std::get<std::vector<std::string>>(stored("job1", 2, "pmix.net.endpt")) ==
              (std::vector<std::string>{"10.30.2.1:33002"}));
    ck_assert_no_messages();
    // Given back to the pools they came from: the same ports again.
    ck_assert(pnet::deregister(*job).ok());
    auto again = job_of(rails(), "r1:4", "id=data,type=tcp,bw=10G,required", "job2");
    allocate_ok(*again);
    ck_assert(ports(again->job.grants[0], 0) == (std::vector<std::uint16_t>{33000}));
    ck_assert_nics(again->job.grants[0], 4, "eth0,eth0,eth1,eth1");
}
END_TEST

// Even both rails cannot give 4 processes 15 Gb/s each: required fails with
// the node, its rails and their speeds; nothing is taken.
START_TEST(bandwidth_required_beyond_all_rails)
{
    use_components(nullptr);
    auto fabric = rails();
    auto job = job_of(fabric, "r1:4", "id=data,type=tcp,bw=15G,required");
    allocate_error(*job);
    ck_assert_messages(ERROR_MSG("request \"data\": BANDWIDTH 15 Gb/s is required but r1's rails "
                                 "on plane 10.30.0.0/16 (eth0 25 Gb/s, eth1 25 Gb/s) carry at "
                                 "most 2 of its 4 processes at that rate"));
    meridian_test::clear_messages();
    auto all = job_of(fabric, "r1:1", "id=data,type=tcp,endpts=100,required", "all");
    allocate_ok(*all);
}
END_TEST

// Best effort: the most even spread, and the least share assigned.
START_TEST(bandwidth_best_effort_over_rails)
{
    use_components(nullptr);
    auto job = job_of(rails(), "r1:4", "id=data,type=tcp,bw=15G");
    allocate_ok(*job);
    ck_assert_nics(job->job.grants[0], 4, "eth0,eth0,eth1,eth1");
    ck_assert(*job->job.grants[0].bandwidth_mbps == 12500.0);
    ck_assert_messages(WARNING_MSG("request \"data\": BANDWIDTH 15 Gb/s is not met: r1's eth0 "
                                   "gives 12.5 Gb/s per process (25 Gb/s shared by 2 processes); "
                                   "assigned 12.5 Gb/s"));
}
END_TEST

// A 25G and a 10G rail: 8G fits 3 + 1; 10G best effort puts 3 on the 25G
// rail (8.33 Gb/s each) rather than 2 + 2 (5 Gb/s on the 10G one); required,
// the rails carry 3 of the 4.
START_TEST(bandwidth_over_rails_of_mixed_speeds)
{
    use_components(nullptr);
    auto fabric = rails();
    auto fits = job_of(fabric, "r2:4", "id=data,type=tcp,bw=8G,required", "fits");
    allocate_ok(*fits);
    ck_assert_nics(fits->job.grants[0], 4, "eth0,eth0,eth0,eth1");
    ck_assert(*fits->job.grants[0].bandwidth_mbps == 8000.0);
    ck_assert_no_messages();
    ck_assert(pnet::deregister(*fits).ok());

    auto loose = job_of(fabric, "r2:4", "id=data,type=tcp,bw=10G", "loose");
    allocate_ok(*loose);
    ck_assert_nics(loose->job.grants[0], 4, "eth0,eth0,eth0,eth1");
    ck_assert(*loose->job.grants[0].bandwidth_mbps == 25000.0 / 3);
    ck_assert_messages(
        WARNING_MSG("request \"data\": BANDWIDTH 10 Gb/s is not met: r2's eth0 "
                    "gives 8.33333 Gb/s per process (25 Gb/s shared by 3 processes); "
                    "assigned 8.33333 Gb/s"));
    ck_assert(pnet::deregister(*loose).ok());
    meridian_test::clear_messages();

    auto strict = job_of(fabric, "r2:4", "id=data,type=tcp,bw=10G,required", "strict");
    allocate_error(*strict);
    ck_assert_messages(ERROR_MSG("request \"data\": BANDWIDTH 10 Gb/s is required but r2's rails "
                                 "on plane 10.30.0.0/16 (eth0 25 Gb/s, eth1 10 Gb/s) carry at "
                                 "most 3 of its 4 processes at that rate"));
}
END_TEST

// Nearest first: on r3 ranks 0, 2, 4 sit on package 0 (eth0, 25G: room for
// 2 at 10G) and 1, 3, 5 on package 1 (eth1, 40G: room for 4); only rank 4,
// the last one over, moves to eth1.
START_TEST(bandwidth_keeps_processes_on_their_nearest_rail)
{
    use_components(nullptr);
    auto job = job_of(rails(), "r3:6", "id=data,type=tcp,bw=10G,required");
    allocate_ok(*job);
    ck_assert_nics(job->job.grants[0], 6, "eth0,eth1,eth0,eth1,eth1,eth1");
    ck_assert(*job->job.grants[0].bandwidth_mbps == 10000.0);
    ck_assert_no_messages();
}
END_TEST

// Without a bandwidth, or when the nearest NIC carries every process, each
// process keeps its nearest NIC, as before.
START_TEST(bandwidth_that_fits_moves_nothing)
{
    use_components(nullptr);
    auto fabric = rails();
    auto plain = job_of(fabric, "r1:4", "id=data,type=tcp", "plain");
    allocate_ok(*plain);
    ck_assert_nics(plain->job.grants[0], 4, "eth0,eth0,eth0,eth0");
    ck_assert(!plain->job.grants[0].bandwidth_mbps);
    ck_assert(ports(plain->job.grants[0], 3) == (std::vector<std::uint16_t>{33003}));
    ck_assert(pnet::deregister(*plain).ok());
    auto fits = job_of(fabric, "r1:4", "id=data,type=tcp,bw=6G,required", "fits");
    allocate_ok(*fits);
    ck_assert_nics(fits->job.grants[0], 4, "eth0,eth0,eth0,eth0");
    ck_assert(*fits->job.grants[0].bandwidth_mbps == 6000.0);
    ck_assert_no_messages();
}
END_TEST

START_TEST(plane_required_and_best_effort)
{
    use_components(nullptr);
    auto fabric = lab();
    auto strict = job_of(fabric, "node01:1", "id=data,type=tcp,plane=10.20.0.0/16,required");
    allocate_error(*strict);
    ck_assert_messages(ERROR_MSG("request \"data\": PLANE 10.20.0.0/16 is required but the fabric "
                                 "has no such plane (planes: 10.10.0.0/16, opa)"));
    meridian_test::clear_messages();
    auto no_nic = job_of(fabric, "node01:1", "id=data,type=tcp,plane=opa!");
    allocate_error(*no_nic);
    ck_assert_messages(
        ERROR_MSG("request \"data\": PLANE opa is required but node01 has no NIC on it"));
    meridian_test::clear_messages();
    auto loose = job_of(fabric, "node01:1", "id=data,type=tcp,plane=10.20.0.0/16");
    allocate_ok(*loose);
    ck_assert_text_eq(loose->job.grants[0].plane, "10.10.0.0/16");
    ck_assert_messages(WARNING_MSG("request \"data\": PLANE 10.20.0.0/16 is not in the fabric "
                                   "(planes: 10.10.0.0/16, opa); using each process's nearest NIC "
                                   "with a tcp port pool"));
    meridian_test::clear_messages();
    auto by_cidr = job_of(fabric, "node01:1", "id=data,type=tcp,plane=10.10.0.0/16!");
    allocate_ok(*by_cidr);
    ck_assert_text_eq(by_cidr->job.grants[0].plane, "10.10.0.0/16");
    ck_assert_no_messages();
}
END_TEST

// ---------------------------------------------------------------- transaction

// opa fails after tcp allocated: tcp gives its ports back, nothing is left.
START_TEST(allocation_is_all_or_nothing)
{
    use_components("fail");
    auto fabric = lab();
    auto job = job_of(fabric, "node02:2", "id=data,type=tcp,endpts=3;id=fast,type=opa");
    ck_assert_text_eq(allocate_error(*job),
                      "the pnet component \"opa\" failed in allocate: " +
                          std::string(meridian_strerror(MERIDIAN_ERR_OUT_OF_RESOURCE)));
    ck_assert_messages(ERROR_MSG("opa: the fabric manager refused the job"));
    // All six ports of node02 are free again.
    auto tcp_only = job_of(fabric, "node02:2", "id=data,type=tcp,endpts=3,required", "again");
    allocate_ok(*tcp_only);
    ck_assert(ports(tcp_only->job.grants[0], 0) == range(32000, 32002));
}
END_TEST

// tcp's second request fails: its first request's ports are given back too.
START_TEST(tcp_rolls_back_its_own_requests)
{
    use_components(nullptr);
    auto fabric = lab();
    auto job = job_of(fabric, "node02:2", "id=a,type=tcp,endpts=2;id=b,type=tcp,endpts=2!");
    allocate_error(*job);
    ck_assert_messages(ERROR_MSG("request \"b\": ENDPTS 2 is required but node02 has 2 free tcp "
                                 "ports on 10.10.0.0/16 for 2 processes"));
    auto all = job_of(fabric, "node02:1", "id=a,type=tcp,endpts=6,required", "again");
    allocate_ok(*all);
}
END_TEST

// ---------------------------------------------------------------- node setup

START_TEST(setup_local_network_stores_each_grant)
{
    use_components("ok");
    auto job = job_of(lab(), "node01:2,node02:1",
                      "id=data,type=tcp,endpts=2,seckey=8,qos=1,bw=1G;id=fast,type=opa;"
                      "id=ctl,type=udp");
    allocate_ok(*job);
    const auto &key = job->job.grant("data")->seckey;
    ck_assert_uint_eq(key.size(), 8);
    ck_assert(pnet::setup_local_network(*job, "node01").ok());
    const datastore::InfoList data = {
        {"pmix.alloc.netid", std::string("32002-32003")},
        {"pmix.alloc.nettype", std::string("tcp")},
        {"pmix.alloc.netplane", std::string("10.10.0.0/16")},
        {"pmix.alloc.endpts", std::uint64_t{2}},
        {"pmix.alloc.nsec", key},
        {"pmix.alloc.netqos", std::uint64_t{1}},
        {"pmix.alloc.bw", 1000.0},
        {"pmix.net.endpt", std::vector<std::string>{"10.10.1.1:32002", "10.10.1.1:32003"}},
    };
    ck_assert_text_eq(datastore::format_value(stored("job1", 1, "data")),
                      datastore::format_value(data));
    const datastore::InfoList fast = {
        {"pmix.alloc.netid", std::string("hfi1_0")},
        {"pmix.alloc.nettype", std::string("opa")},
        {"pmix.alloc.netplane", std::string("opa")},
        {"pmix.alloc.endpts", std::uint64_t{1}},
    };
    ck_assert(std::get<datastore::InfoList>(stored("job1", 1, "fast")) == fast);
    const datastore::InfoList ctl = {
        {"pmix.alloc.netid", std::string("40001")},
        {"pmix.alloc.nettype", std::string("udp")},
        {"pmix.alloc.netplane", std::string("10.10.0.0/16")},
        {"pmix.alloc.endpts", std::uint64_t{1}},
        {"pmix.net.endpt", std::vector<std::string>{"10.10.1.1:40001"}},
    };
    ck_assert_text_eq(datastore::format_value(stored("job1", 1, "ctl")),
                      datastore::format_value(ctl));
    // The process's endpoints: every request's (tcp and udp here; the opa
    // fixture gives none), in request order, on the NIC they belong to.
    ck_assert_text_eq(datastore::format_value(stored("job1", 0, "pmix.net.endpt")),
                      "[\"10.10.1.1:32000\",\"10.10.1.1:32001\",\"10.10.1.1:40000\"]");
    // Only node01's processes were set up.
    auto store = datastore::store();
    ck_assert(!(*store)->get(datastore::ProcId{"job1", 2}, "data").ok());
    ck_assert(pnet::setup_local_network(*job, "node02").ok());
    // node02 has no udp pool: its process has the tcp endpoints only.
    ck_assert_text_eq(datastore::format_value(stored("job1", 2, "pmix.net.endpt")),
                      "[\"10.10.1.2:32000\",\"10.10.1.2:32001\"]");
}
END_TEST

START_TEST(setup_fork_collects_every_module)
{
    use_components("ok");
    auto job = job_of(lab(), "node01:1", "id=data,type=tcp;id=fast,type=opa");
    allocate_ok(*job);
    auto env = pnet::setup_fork(*job, 0);
    ck_assert(env.ok());
    ck_assert(*env == (std::vector<std::pair<std::string, std::string>>{{"HFI_UNIT", "0"}}));
    auto none = pnet::setup_fork(*job, 1);
    ck_assert(!none.ok());
    ck_assert_text_eq(none.error().message, "setup_fork: rank 1 is not in the job (1 processes)");
    mca_pnet_env env_set;
    ck_assert_int_eq(meridian_mca_pnet_env_set(&env_set, "A=B", "x"), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_pnet_env_set(&env_set, "", "x"), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_int_eq(meridian_mca_pnet_env_set(&env_set, "A", "1"), MERIDIAN_SUCCESS);
    ck_assert_int_eq(meridian_mca_pnet_env_set(&env_set, "A", "2"), MERIDIAN_SUCCESS);
    ck_assert(env_set.variables == (std::vector<std::pair<std::string, std::string>>{{"A", "2"}}));
}
END_TEST

// Keys given to the job (in-job mode: drawn by rank 0 and shared) are the
// grant's keys, wherever the job is allocated; without one each allocation
// draws its own from the OS, and they differ.  A given key of another size
// than asked is refused with the request named.
START_TEST(given_seckeys_are_used_as_given)
{
    use_components(nullptr);
    auto fabric = lab();
    const std::vector<std::uint8_t> given(40, 0xa5);
    auto one = job_of(fabric, "node01:1", "id=data,type=tcp,seckey=40", "one");
    auto two = job_of(fabric, "node01:1", "id=data,type=tcp,seckey=40", "two");
    one->job.seckeys.emplace("data", given);
    two->job.seckeys.emplace("data", given);
    allocate_ok(*one);
    allocate_ok(*two);
    ck_assert(one->job.grants[0].seckey == given);
    ck_assert(two->job.grants[0].seckey == given);
    auto three = job_of(fabric, "node01:1", "id=data,type=tcp,seckey=40", "three");
    auto four = job_of(fabric, "node01:1", "id=data,type=tcp,seckey=40", "four");
    allocate_ok(*three);
    allocate_ok(*four);
    ck_assert_uint_eq(three->job.grants[0].seckey.size(), 40);
    ck_assert(three->job.grants[0].seckey != four->job.grants[0].seckey);
    ck_assert(three->job.grants[0].seckey != given);
    auto wrong = job_of(fabric, "node01:1", "id=data,type=tcp,seckey=40", "wrong");
    wrong->job.seckeys.emplace("data", std::vector<std::uint8_t>(16, 1));
    const auto refused = pnet::allocate(*wrong);
    ck_assert(!refused.ok());
    ck_assert_text_eq(
        refused.error().message,
        "request \"data\": SEC_KEY: the key given has 16 bytes, the request asks for 40");
}
END_TEST

// ---------------------------------------------------------------- parameters

// Reported when pnet opens, even for a job on nodes with ports of their own
// (node01): the component stays closed, so nothing serves tcp.
START_TEST(bad_static_ports_name_the_parameter)
{
    use_components(nullptr);
    meridian_test::set_param_env("pnet_tcp_static_ports", "tcp:32000-70000");
    auto map = fabric::make_job_map(*lab(), "node01:1", fabric::Binding::package, "--hosts");
    ck_assert(map.ok());
    auto parsed = pnet::parse_requests("id=data,type=tcp", "--request");
    ck_assert(parsed.ok());
    auto job = pnet::make_job(lab(), std::move(*map), std::move(*parsed));
    ck_assert(!job.ok());
    ck_assert_uint_ge(meridian_test::messages().size(), 1);
    ck_assert_text_eq(meridian_test::messages()[0].text,
                      "pnet_tcp_static_ports from environment variable " +
                          meridian_test::env_name("pnet_tcp_static_ports") +
                          ":11: expected a port 1-65535, found \"70000\"");
    ck_assert(pnet::active_components().empty() || pnet::active_components().front() != "tcp");
}
END_TEST

START_TEST(requests_from_the_parameter)
{
    use_components(nullptr);
    meridian_test::set_param_env("pnet_base_requests", "id=a,endpts=2;id=b,endptz=1");
    auto bad = pnet::requests_from_params();
    ck_assert(!bad.ok());
    ck_assert_text_eq(bad.error().message,
                      "pnet_base_requests from environment variable " +
                          meridian_test::env_name("pnet_base_requests") +
                          ":20: expected a request key (id, type, plane, endpts, seckey, qos, bw, "
                          "required), found \"endptz\"");
}
END_TEST

START_TEST(inventory_round_trip_through_the_file)
{
    const std::string path = meridian_test::scratch() + "/lab.fabric";
    FILE *file = std::fopen(path.c_str(), "w");
    ck_assert_ptr_nonnull(file);
    std::fputs(lab_fabric, file);
    std::fclose(file);
    use_components(nullptr);
    meridian_test::set_param_env("pnet_tcp_fabric_file", path);
    auto blobs = pnet::collect_inventory();
    ck_assert_msg(blobs.ok(), "%s", blobs.ok() ? "" : blobs.error().message.c_str());
    ck_assert_uint_eq(blobs->size(), 1);
    ck_assert_text_eq((*blobs)[0].first, "tcp");
    fabric::Fabric launcher;
    ck_assert(pnet::deliver_inventory("node01", "tcp", (*blobs)[0].second, launcher).ok());
    ck_assert_uint_eq(launcher.nodes().size(), 3);
    // Everything but the fabric's name, which merging leaves to the launcher.
    const std::string merged = fabric::format_fabric(launcher);
    const std::string described = fabric::format_fabric(*lab());
    ck_assert_text_eq(merged.substr(merged.find('\n')), described.substr(described.find('\n')));
    auto wrong = pnet::deliver_inventory("node01", "ucx", (*blobs)[0].second, launcher);
    ck_assert_text_eq(wrong.error().message, "inventory from \"node01\" is for the pnet "
                                             "component \"ucx\", which is not active (active: "
                                             "tcp)");
}
END_TEST

// This host: a one-node fabric named by the launcher, loopback last.
START_TEST(inventory_of_this_host)
{
    use_components(nullptr);
    meridian_test::set_param_env("pnet_tcp_static_ports", "tcp:32000-32009");
    auto blobs = pnet::collect_inventory();
    ck_assert_msg(blobs.ok(), "%s", blobs.ok() ? "" : blobs.error().message.c_str());
    fabric::Fabric launcher;
    ck_assert(pnet::deliver_inventory("here", "tcp", (*blobs)[0].second, launcher).ok());
    ck_assert_uint_eq(launcher.nodes().size(), 1);
    const auto &node = launcher.nodes()[0];
    ck_assert_text_eq(node.name, "here");
    ck_assert_uint_ge(node.nics.size(), 1);
    const auto &last = launcher.nics()[node.nics.back()];
    ck_assert_text_eq(last.name, "lo");
    ck_assert_text_eq(launcher.planes()[last.plane].name, "127.0.0.0/8");
    ck_assert_text_eq(fabric::format_static_ports(node.ports), "tcp:32000-32009");
}
END_TEST

Suite *pnet_suite()
{
    Suite *s = suite_create("pnet");
    TCase *pipeline = tcase_create("pipeline");
    tcase_set_timeout(pipeline, 60);
    tcase_add_unchecked_fixture(pipeline, setup_root, teardown_root);
    tcase_add_checked_fixture(pipeline, setup_capture, nullptr);
    tcase_add_test(pipeline, seed_two_networks_in_one_job);
    tcase_add_test(pipeline, seed_required_type_nobody_serves);
    tcase_add_test(pipeline, seed_best_effort_type_falls_back);
    tcase_add_test(pipeline, ports_are_unique_per_node);
    tcase_add_test(pipeline, ports_return_on_deregister_and_are_reused);
    tcase_add_test(pipeline, two_jobs_at_once_share_no_port);
    tcase_add_test(pipeline, endpts_required_and_best_effort);
    tcase_add_test(pipeline, endpts_unnamed_without_a_pool_is_quiet);
    tcase_add_test(pipeline, qos_required_and_best_effort);
    tcase_add_test(pipeline, bandwidth_required_and_best_effort);
    tcase_add_test(pipeline, bandwidth_spreads_over_rails);
    tcase_add_test(pipeline, bandwidth_required_beyond_all_rails);
    tcase_add_test(pipeline, bandwidth_best_effort_over_rails);
    tcase_add_test(pipeline, bandwidth_over_rails_of_mixed_speeds);
    tcase_add_test(pipeline, bandwidth_keeps_processes_on_their_nearest_rail);
    tcase_add_test(pipeline, bandwidth_that_fits_moves_nothing);
    tcase_add_test(pipeline, plane_required_and_best_effort);
    tcase_add_test(pipeline, allocation_is_all_or_nothing);
    tcase_add_test(pipeline, tcp_rolls_back_its_own_requests);
    tcase_add_test(pipeline, setup_local_network_stores_each_grant);
    tcase_add_test(pipeline, setup_fork_collects_every_module);
    tcase_add_test(pipeline, given_seckeys_are_used_as_given);
    tcase_add_test(pipeline, bad_static_ports_name_the_parameter);
    tcase_add_test(pipeline, pools_named_twice_are_one_pool);
    tcase_add_test(pipeline, requests_from_the_parameter);
    tcase_add_test(pipeline, inventory_round_trip_through_the_file);
    tcase_add_test(pipeline, inventory_of_this_host);
    suite_add_tcase(s, pipeline);
    return s;
}

} // namespace

int main()
{
    return meridian_test::run_suite(pnet_suite());
}

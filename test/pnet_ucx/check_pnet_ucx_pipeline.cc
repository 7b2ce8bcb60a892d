// SPDX-License-Identifier: BSD-3-Clause
// pnet_ucx through the pnet base, as a launcher runs it: two nodes with two
// UCX devices on two packages (and two planes) deliver their inventories,
// a job asks for "ucx" devices, each process gets its nearest ones,
// setup_fork sets UCX_NET_DEVICES / UCX_TLS, deregister forgets them.  The
// component comes from the build tree (PNET_UCX_COMPONENT_DIR), or is part of
// libmeridian (--disable-dlopen).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "test/support/meridian_test.hpp"
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/pnet/base/request.hpp>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/runtime/datastore.hpp>

namespace fabric = meridian::fabric;
namespace pnet = meridian::pnet;

namespace
{

constexpr const char *two_nodes = "plane ib0 type=infiniband\n"
                                  "plane ib1 type=infiniband\n"
                                  "node node01 packages=2 cores=2\n"
                                  "node node02 packages=2 cores=2\n"
                                  "nic node01 mlx5_0 plane=ib0 package=0\n"
                                  "nic node01 mlx5_1 plane=ib1 package=1\n"
                                  "nic node02 mlx5_0 plane=ib0 package=0\n"
                                  "nic node02 mlx5_1 plane=ib1 package=1\n";

constexpr std::string_view inventory = "# pnet_ucx inventory 1\n"
                                       "net mlx5_0:1 package=0 tls=rc_mlx5,ud_mlx5\n"
                                       "net mlx5_1:1 package=1 tls=rc_mlx5,dc_mlx5\n"
                                       "local tls=posix,sysv,cma\n";

void setup()
{
    meridian_test::isolate_mca_environment();
    meridian_test::set_param_env("mca_base_component_path", PNET_UCX_COMPONENT_DIR);
    meridian_test::capture_messages();
    ck_assert_int_eq(meridian_init(nullptr, nullptr), MERIDIAN_SUCCESS);
}

void teardown()
{
    meridian_finalize();
}

std::shared_ptr<const fabric::Fabric> fabric_of(bool deliver)
{
    auto parsed = fabric::parse_fabric(two_nodes, "<two nodes>");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    auto shared = std::make_shared<fabric::Fabric>(std::move(*parsed));
    if (deliver) {
        const std::span<const std::uint8_t> blob(
            reinterpret_cast<const std::uint8_t *>(inventory.data()), inventory.size());
        for (const char *node : {"node01", "node02"}) {
            const auto delivered = pnet::deliver_inventory(node, "ucx", blob, *shared);
            ck_assert_msg(delivered.ok(), "%s",
                          delivered.ok() ? "" : delivered.error().message.c_str());
        }
    }
    return shared;
}

// A job of 2 processes per node, bound to packages 0 and 1.
std::unique_ptr<mca_pnet_job> job_of(bool deliver, std::string_view requests)
{
    auto fab = fabric_of(deliver);
    auto map = fabric::make_job_map(*fab, "node01:2,node02:2", fabric::Binding::package, "--hosts");
    ck_assert_msg(map.ok(), "%s", map.ok() ? "" : map.error().message.c_str());
    auto asked = pnet::parse_requests(requests, "--request");
    ck_assert_msg(asked.ok(), "%s", asked.ok() ? "" : asked.error().message.c_str());
    auto job = pnet::make_job(fab, std::move(*map), std::move(*asked));
    ck_assert_msg(job.ok(), "%s", job.ok() ? "" : job.error().message.c_str());
    return std::move(*job);
}

std::string devices_text(const pnet::Grant &grant, std::uint32_t procs)
{
    std::string text;
    for (std::uint32_t rank = 0; rank < procs; ++rank) {
        text += (rank == 0 ? "" : " | ") + std::to_string(rank) + ":";
        for (const std::uint32_t device : grant.devices_of(rank)) {
            text += " " + grant.device_names[device];
        }
    }
    return text;
}

std::string env_text(const mca_pnet_job &job, std::uint32_t rank)
{
    const auto env = pnet::setup_fork(job, rank);
    ck_assert_msg(env.ok(), "%s", env.ok() ? "" : env.error().message.c_str());
    std::string text;
    for (const auto &[name, value] : *env) {
        if (name.starts_with("UCX_")) {
            text += name + "=" + value + "\n";
        }
    }
    return text;
}

} // namespace

START_TEST(nearest_devices_and_environment)
{
    auto job = job_of(true, "id=fast,type=ucx");
    const auto allocated = pnet::allocate(*job);
    ck_assert_msg(allocated.ok(), "%s", allocated.ok() ? "" : allocated.error().message.c_str());
    const pnet::Grant *grant = job->job.grant("fast");
    ck_assert_ptr_nonnull(grant);
    ck_assert_text_eq(grant->component, "ucx");
    ck_assert_text_eq(devices_text(*grant, 4),
                      "0: mlx5_0:1 | 1: mlx5_1:1 | 2: mlx5_0:1 | 3: mlx5_1:1");
    ck_assert_text_eq(env_text(*job, 1),
                      "UCX_NET_DEVICES=mlx5_1:1\nUCX_TLS=rc_mlx5,dc_mlx5,posix,sysv,cma,self\n");

    ck_assert(pnet::deregister(*job).ok());
    ck_assert_text_eq(devices_text(*grant, 4), "0: | 1: | 2: | 3:");
    ck_assert_text_eq(env_text(*job, 1), "");
    // (The base may warn that no coord component is loaded: only pnet_ucx is.)
    for (const auto &message : meridian_test::messages()) {
        ck_assert_msg(message.severity != MERIDIAN_SEVERITY_ERROR, "error: %s",
                      message.text.c_str());
    }
}
END_TEST

START_TEST(two_endpoints_share_transports)
{
    auto job = job_of(true, "id=fast,type=ucx,endpts=2");
    ck_assert(pnet::allocate(*job).ok());
    ck_assert_text_eq(devices_text(*job->job.grant("fast"), 4),
                      "0: mlx5_0:1 mlx5_1:1 | 1: mlx5_1:1 mlx5_0:1 | "
                      "2: mlx5_0:1 mlx5_1:1 | 3: mlx5_1:1 mlx5_0:1");
    ck_assert_text_eq(env_text(*job, 3),
                      "UCX_NET_DEVICES=mlx5_1:1,mlx5_0:1\nUCX_TLS=rc_mlx5,posix,sysv,cma,self\n");
}
END_TEST

// setup_local_network stores what the request got: netid lists the
// devices (not an empty port list), endpts counts them, and pmix.net.endpt
// holds them in the entry and in the process's own key.
START_TEST(setup_stores_the_devices)
{
    auto job = job_of(true, "id=fast,type=ucx,endpts=2");
    ck_assert(pnet::allocate(*job).ok());
    const auto set_up = pnet::setup_local_network(*job, "node02");
    ck_assert_msg(set_up.ok(), "%s", set_up.ok() ? "" : set_up.error().message.c_str());
    auto store = meridian::datastore::store();
    ck_assert(store.ok());
    const meridian::datastore::ProcId rank3{job->job.map.nspace, 3};
    auto entry = (*store)->get(rank3, "fast");
    ck_assert_msg(entry.ok(), "%s", entry.ok() ? "" : entry.error().message.c_str());
    ck_assert_text_eq(meridian::datastore::format_value(*entry),
                      "{pmix.alloc.netid=\"mlx5_1:1,mlx5_0:1\", pmix.alloc.nettype=\"ucx\", "
                      "pmix.alloc.endpts=2, pmix.net.endpt=[\"mlx5_1:1\",\"mlx5_0:1\"]}");
    auto endpoints = (*store)->get(rank3, "pmix.net.endpt");
    ck_assert(endpoints.ok());
    ck_assert_text_eq(meridian::datastore::format_value(*endpoints), "[\"mlx5_1:1\",\"mlx5_0:1\"]");
    // node01's processes are not this node's business.
    ck_assert(!(*store)->get({job->job.map.nspace, 0}, "fast").ok());
}
END_TEST

START_TEST(endpts_best_effort_and_required)
{
    auto job = job_of(true, "id=fast,type=ucx,endpts=2,plane=ib0");
    ck_assert(pnet::allocate(*job).ok());
    ck_assert_text_eq(devices_text(*job->job.grant("fast"), 4),
                      "0: mlx5_0:1 | 1: mlx5_0:1 | 2: mlx5_0:1 | 3: mlx5_0:1");

    auto strict = job_of(true, "id=fast,type=ucx,endpts=2!,plane=ib0");
    const auto failed = pnet::allocate(*strict);
    ck_assert(!failed.ok());
    ck_assert_int_eq(failed.error().status, MERIDIAN_ERR_OUT_OF_RESOURCE);
    bool named = false;
    for (const auto &message : meridian_test::messages()) {
        named = named || message.text == "request \"fast\": ENDPTS 2 is required but node01 "
                                         "has 1 UCX device on plane ib0";
    }
    ck_assert_msg(named, "no message names the request and the value");
}
END_TEST

START_TEST(offline_devices_from_the_fabric)
{
    auto job = job_of(false, "id=fast,type=ucx");
    ck_assert(pnet::allocate(*job).ok());
    ck_assert_text_eq(devices_text(*job->job.grant("fast"), 4),
                      "0: mlx5_0:1 | 1: mlx5_1:1 | 2: mlx5_0:1 | 3: mlx5_1:1");
    ck_assert_text_eq(env_text(*job, 2), "UCX_NET_DEVICES=mlx5_0:1\nUCX_TLS=rc,ud,sm,self\n");
}
END_TEST

START_TEST(bad_inventory_is_refused)
{
    auto fab = fabric_of(false);
    const std::string_view bad = "net mlx5_0:1 tls=rc,,ud\n";
    const std::span<const std::uint8_t> blob(reinterpret_cast<const std::uint8_t *>(bad.data()),
                                             bad.size());
    auto copy = *fab;
    const auto delivered = pnet::deliver_inventory("node01", "ucx", blob, copy);
    ck_assert(!delivered.ok());
    bool named = false;
    for (const auto &message : meridian_test::messages()) {
        named = named || message.text == "pnet_ucx inventory of node01:1:21: expected a "
                                         "transport name, found nothing";
    }
    ck_assert_msg(named, "the parse error was not reported");
}
END_TEST

int main()
{
    Suite *suite = suite_create("pnet_ucx_pipeline");
    TCase *pipeline = tcase_create("pipeline");
    tcase_add_checked_fixture(pipeline, setup, teardown);
    tcase_add_test(pipeline, nearest_devices_and_environment);
    tcase_add_test(pipeline, two_endpoints_share_transports);
    tcase_add_test(pipeline, setup_stores_the_devices);
    tcase_add_test(pipeline, endpts_best_effort_and_required);
    tcase_add_test(pipeline, offline_devices_from_the_fabric);
    tcase_add_test(pipeline, bad_inventory_is_refused);
    suite_add_tcase(suite, pipeline);
    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// pnet_ucx's rules without the framework (components/pnet_ucx/
// pnet_ucx_devices.hpp, compiled in by pnet_ucx_devices_for_tests.cc): the
// inventory text and its errors, UCT resources into devices and packages,
// this host's live inventory (against ucx_info -d when it is installed), the
// choice of devices per process and UCX_TLS.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "components/pnet_ucx/pnet_ucx_devices.hpp"
#include "test/support/meridian_test.hpp"
#include <meridian/opal/class/weighted_graph.hpp>

using namespace meridian::pnet_ucx;
namespace fabric = meridian::fabric;

namespace
{

NodeDevices two_devices()
{
    NodeDevices node;
    node.devices = {{"mlx5_0:1", {"rc_mlx5", "ud_mlx5"}, 0, 0},
                    {"mlx5_1:1", {"rc_mlx5", "dc_mlx5"}, 1, 1}};
    node.local_transports = {"posix", "sysv", "cma"};
    return node;
}

std::string error_of(std::string_view text)
{
    const auto parsed = parse_inventory(text, "inv");
    ck_assert_msg(!parsed, "\"%s\" parsed", std::string(text).c_str());
    ck_assert_int_eq(parsed.error().status, MERIDIAN_ERR_BAD_PARAM);
    return parsed.error().message;
}

} // namespace

// ------------------------------------------------------------ inventory text

START_TEST(inventory_text_round_trip)
{
    NodeDevices node = two_devices();
    const std::string text = format_inventory(node);
    ck_assert_text_eq(text, "# pnet_ucx inventory 1\n"
                            "net mlx5_0:1 package=0 tls=rc_mlx5,ud_mlx5\n"
                            "net mlx5_1:1 package=1 tls=rc_mlx5,dc_mlx5\n"
                            "local tls=posix,sysv,cma\n");
    const auto parsed = parse_inventory(text, "inv");
    ck_assert_msg(parsed.ok(), "%s", parsed.ok() ? "" : parsed.error().message.c_str());
    // The plane is the launcher's business, not the text's.
    for (Device &device : node.devices) {
        device.plane = fabric::no_index;
    }
    ck_assert(*parsed == node);

    const auto empty = parse_inventory("", "inv");
    ck_assert(empty.ok());
    ck_assert(empty->devices.empty() && empty->local_transports.empty());
    const auto spaced = parse_inventory("  net\teth0   tls=tcp  # a NIC\n\n", "inv");
    ck_assert(spaced.ok());
    ck_assert_int_eq(spaced->devices.size(), 1);
    ck_assert_text_eq(spaced->devices[0].name, "eth0");
    ck_assert_int_eq(spaced->devices[0].package, -1);
}
END_TEST

START_TEST(inventory_text_errors)
{
    ck_assert_text_eq(error_of("nic eth0 tls=tcp"),
                      "inv:1:1: expected net or local, found \"nic\"");
    ck_assert_text_eq(error_of("net"), "inv:1:4: expected a device name, found end of line");
    ck_assert_text_eq(error_of("net eth0"), "inv:1:9: expected tls=TL,..., found end of line");
    ck_assert_text_eq(error_of("\nnet eth0 speed=10 tls=tcp"),
                      "inv:2:10: expected package=N or tls=TL,..., found \"speed=10\"");
    ck_assert_text_eq(error_of("net eth0 package=x tls=tcp"),
                      "inv:1:18: expected a package -1..65535, found \"x\"");
    ck_assert_text_eq(error_of("net eth0 package=-2 tls=tcp"),
                      "inv:1:18: expected a package -1..65535, found \"-2\"");
    ck_assert_text_eq(error_of("net eth0 tls=tcp,,ud"),
                      "inv:1:18: expected a transport name, found nothing");
    ck_assert_text_eq(error_of("net eth0 tls=tcp,tcp"),
                      "inv:1:18: expected each transport once, found \"tcp\" again");
    ck_assert_text_eq(error_of("net eth0 tls=tcp tls=ud"),
                      "inv:1:18: expected tls= once, found a second one");
    ck_assert_text_eq(error_of("net eth0 tls=tcp\nnet eth0 tls=tcp"),
                      "inv:2:5: expected each device once, found \"eth0\" again");
    ck_assert_text_eq(error_of("local tls=posix\nlocal tls=sysv"),
                      "inv:2:1: expected one local line, found a second one");
    ck_assert_text_eq(error_of("local posix"), "inv:1:7: expected tls=TL,..., found \"posix\"");
    ck_assert_text_eq(error_of("local tls=posix x"), "inv:1:17: expected end of line, found \"x\"");
    ck_assert_text_eq(error_of("net eth/0 tls=tcp"),
                      "inv:1:5: expected a device name, found \"eth/0\"");
}
END_TEST

// ------------------------------------------------------------ UCT resources

START_TEST(resources_become_devices)
{
    meridian::WeightedGraph graph;
    ck_assert(graph.add_vertex("Slot0", meridian::VertexType::slot).ok());
    ck_assert(graph.add_vertex("Slot1", meridian::VertexType::slot).ok());
    ck_assert(graph.add_vertex("mlx5_0", meridian::VertexType::ib).ok());
    ck_assert(graph.add_vertex("ib1", meridian::VertexType::ib).ok());
    ck_assert(graph.add_edge("Slot0", "Slot1", 20).ok());
    ck_assert(graph.add_edge("Slot1", "Slot0", 20).ok());
    ck_assert(graph.add_edge("mlx5_0", "Slot1", 10).ok());
    ck_assert(graph.add_edge("Slot1", "mlx5_0", 10).ok());
    ck_assert(graph.add_edge("ib1", "Slot0", 10).ok());

    const std::vector<Resource> resources = {
        {"self", "memory", ResourceKind::loopback},
        {"posix", "memory", ResourceKind::local},
        {"tcp", "eth0", ResourceKind::network},
        {"rc_verbs", "mlx5_0:1", ResourceKind::network},
        {"sysv", "memory", ResourceKind::local},
        {"ud_verbs", "mlx5_0:1", ResourceKind::network},
        {"tcp", "ib1", ResourceKind::network},
        {"cuda_copy", "cuda", ResourceKind::accelerator},
        {"cma", "memory", ResourceKind::local},
        {"posix", "memory", ResourceKind::local},
    };
    const NodeDevices node = devices_from_resources(resources, &graph);
    ck_assert_text_eq(format_inventory(node), "# pnet_ucx inventory 1\n"
                                              "net eth0 package=-1 tls=tcp\n"
                                              "net mlx5_0:1 package=1 tls=rc_verbs,ud_verbs\n"
                                              "net ib1 package=0 tls=tcp\n"
                                              "local tls=posix,sysv,cma\n");
    const NodeDevices unmapped = devices_from_resources(resources, nullptr);
    ck_assert_int_eq(unmapped.devices[1].package, -1);

    ck_assert_text_eq(nic_of_device("mlx5_0:1"), "mlx5_0");
    ck_assert_text_eq(nic_of_device("eth0"), "eth0");
    ck_assert_int_eq(package_of(graph, "mlx5_0:1"), 1);
    ck_assert_int_eq(package_of(graph, "mlx5_9:1"), -1);
}
END_TEST

// What `ucx_info -d` lists as network transports: (transport, device) pairs,
// or no value when ucx_info is not installed.
std::optional<std::set<std::pair<std::string, std::string>>> ucx_info_network()
{
    const std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen("ucx_info -d 2>/dev/null", "r"),
                                                      pclose);
    if (!pipe) {
        return std::nullopt;
    }
    std::string output;
    char buffer[4096];
    size_t got = 0;
    while ((got = fread(buffer, 1, sizeof buffer, pipe.get())) > 0) {
        output.append(buffer, got);
    }
    if (output.find("Transport:") == std::string::npos) {
        return std::nullopt;
    }
    // "#      Transport: tcp", "#         Device: eth0", "#           Type: network"
    std::set<std::pair<std::string, std::string>> found;
    std::string transport;
    std::string device;
    size_t at = 0;
    while (at < output.size()) {
        const size_t end = std::min(output.find('\n', at), output.size());
        const std::string line = output.substr(at, end - at);
        at = end + 1;
        const auto value = [&](const char *key) -> std::optional<std::string> {
            const size_t k = line.find(key);
            if (k == std::string::npos) {
                return std::nullopt;
            }
            std::string v = line.substr(k + std::string(key).size());
            v.erase(0, v.find_first_not_of(' '));
            v.erase(v.find_last_not_of(" \r") + 1);
            return v;
        };
        if (auto t = value("Transport:")) {
            transport = *t;
        } else if (auto d = value("Device:")) {
            device = *d;
        } else if (auto type = value("Type:")) {
            if (*type == "network") {
                found.emplace(transport, device);
            }
        }
    }
    return found;
}

START_TEST(live_inventory)
{
    const auto resources = query_uct_resources();
    ck_assert_msg(resources.ok(), "%s", resources.ok() ? "" : resources.error().message.c_str());
    const NodeDevices node = devices_from_resources(*resources, nullptr);
    const std::string text = format_inventory(node);
    const auto parsed = parse_inventory(text, "live");
    ck_assert_msg(parsed.ok(), "%s\n%s", text.c_str(),
                  parsed.ok() ? "" : parsed.error().message.c_str());
    ck_assert(*parsed == node);

    // Every network resource is listed under its device; nothing else is.
    std::set<std::pair<std::string, std::string>> ours;
    for (const Device &device : node.devices) {
        ck_assert_msg(!device.transports.empty(), "%s has no transports", device.name.c_str());
        ck_assert_msg(!is_loopback_interface(device.name), "loopback %s listed",
                      device.name.c_str());
        for (const std::string &transport : device.transports) {
            ours.emplace(transport, device.name);
        }
    }
    std::set<std::pair<std::string, std::string>> network;
    for (const Resource &resource : *resources) {
        if (resource.kind == ResourceKind::network) {
            network.emplace(resource.transport, resource.device);
        } else {
            ck_assert_msg(
                resource.kind != ResourceKind::loopback ||
                    std::none_of(node.devices.begin(), node.devices.end(),
                                 [&](const Device &d) { return d.name == resource.device; }),
                "loopback device %s listed", resource.device.c_str());
        }
    }
    ck_assert(ours == network);
    ck_assert(!is_loopback_interface("no-such-interface0"));
    for (const std::string &local : node.local_transports) {
        ck_assert_msg(local != "self", "self is not a shared-memory transport");
    }

    const auto reference = ucx_info_network();
    if (reference) {
        std::string missing;
        for (const auto &[transport, device] : *reference) {
            // The loopback interface reaches no other node (query_uct_resources).
            if (!ours.contains({transport, device}) && !is_loopback_interface(device)) {
                missing += " " + transport + "/" + device;
            }
        }
        ck_assert_msg(missing.empty(), "ucx_info -d lists what the inventory lacks:%s\n%s",
                      missing.c_str(), text.c_str());
    }
}
END_TEST

// ------------------------------------------------------------ allocation

namespace
{

// 2 nodes, each with mlx5_0:1 (package 0, plane 0 "ib0") and mlx5_1:1
// (package 1, plane 1 "ib1"); ranks 0,1 on node01 bound to packages 0 and
// 1; ranks 2,3 on node02 bound to package 1 and unbound.
struct TwoNodes {
    NodeDevices devices = two_devices();
    std::vector<fabric::ProcPlacement> procs = {{0, 0, 0}, {0, 1, 1}, {1, 0, 1}, {1, 1, -1}};
    std::vector<fabric::Index> nodes = {0, 1};
    NodeView view(fabric::Index node) const { return {node == 0 ? "node01" : "node02", &devices}; }
    meridian::Status assign(const Choice &choice, meridian::pnet::Grant &grant) const
    {
        return assign_devices(
            procs, nodes, [this](fabric::Index n) { return view(n); }, choice, grant);
    }
};

// Each process's devices, "rank: a b | rank: ...".
std::string devices_text(const meridian::pnet::Grant &grant)
{
    std::string text;
    for (size_t rank = 0; rank + 1 < grant.device_offsets.size(); ++rank) {
        text += (rank == 0 ? "" : " | ") + std::to_string(rank) + ":";
        for (uint32_t at = grant.device_offsets[rank]; at < grant.device_offsets[rank + 1]; ++at) {
            text += " " + grant.device_names[grant.devices[at]];
        }
    }
    return text;
}

} // namespace

START_TEST(nearest_device_per_binding)
{
    const TwoNodes job;
    meridian::pnet::Grant grant;
    Choice choice;
    choice.request_id = "fast";
    ck_assert(job.assign(choice, grant).ok());
    ck_assert_text_eq(devices_text(grant), "0: mlx5_0:1 | 1: mlx5_1:1 | 2: mlx5_1:1 | 3: mlx5_0:1");
    // One name table for the job, not one entry per process.
    ck_assert_int_eq(grant.device_names.size(), 2);
    ck_assert_int_eq(grant.device_offsets.size(), 5);

    choice.endpts = 2;
    ck_assert(job.assign(choice, grant).ok());
    ck_assert_text_eq(devices_text(grant), "0: mlx5_0:1 mlx5_1:1 | 1: mlx5_1:1 mlx5_0:1 | "
                                           "2: mlx5_1:1 mlx5_0:1 | 3: mlx5_0:1 mlx5_1:1");
}
END_TEST

START_TEST(endpts_best_effort_and_required)
{
    meridian_test::capture_messages();
    const TwoNodes job;
    meridian::pnet::Grant grant;
    Choice choice;
    choice.request_id = "fast";
    choice.endpts = 3;
    ck_assert(job.assign(choice, grant).ok());
    ck_assert_text_eq(devices_text(grant), "0: mlx5_0:1 mlx5_1:1 | 1: mlx5_1:1 mlx5_0:1 | "
                                           "2: mlx5_1:1 mlx5_0:1 | 3: mlx5_0:1 mlx5_1:1");
    // Served short, and said so (the first node short of devices), as
    // pnet_tcp says it for ports.
    ck_assert_messages(WARNING_MSG("request \"fast\": ENDPTS 3 is not met: node01 has 2 UCX "
                                   "devices; processes get what there is"));
    meridian_test::clear_messages();

    choice.endpts_required = true;
    meridian::pnet::Grant untouched;
    untouched.devices = {7};
    auto failed = job.assign(choice, untouched);
    ck_assert(!failed.ok());
    ck_assert_int_eq(failed.error().status, MERIDIAN_ERR_OUT_OF_RESOURCE);
    ck_assert_text_eq(failed.error().message,
                      "request \"fast\": ENDPTS 3 is required but node01 has 2 UCX devices");
    ck_assert_int_eq(untouched.devices.size(), 1); // nothing written on failure

    // On a plane, only its devices count.
    choice.endpts = 2;
    choice.plane = 0;
    choice.plane_name = "ib0";
    failed = job.assign(choice, grant);
    ck_assert(!failed.ok());
    ck_assert_text_eq(
        failed.error().message,
        "request \"fast\": ENDPTS 2 is required but node01 has 1 UCX device on plane ib0");

    ck_assert_no_messages(); // a refusal is returned, not reported here

    choice.endpts_required = false;
    choice.plane = 1;
    choice.plane_name = "ib1";
    ck_assert(job.assign(choice, grant).ok());
    ck_assert_text_eq(devices_text(grant), "0: mlx5_1:1 | 1: mlx5_1:1 | 2: mlx5_1:1 | 3: mlx5_1:1");
    ck_assert_messages(WARNING_MSG("request \"fast\": ENDPTS 2 is not met: node01 has 1 UCX "
                                   "device on plane ib1; processes get what there is"));
    meridian_test::clear_messages();

    // A plane no device is on: best effort offers all, required fails.
    choice.endpts = 1;
    choice.plane = 5;
    choice.plane_name = "opa0";
    ck_assert(job.assign(choice, grant).ok());
    ck_assert_text_eq(devices_text(grant), "0: mlx5_0:1 | 1: mlx5_1:1 | 2: mlx5_1:1 | 3: mlx5_0:1");
    ck_assert_messages(WARNING_MSG("request \"fast\": PLANE opa0 is not available on node01; "
                                   "using its other UCX devices"));
    choice.plane_required = true;
    failed = job.assign(choice, grant);
    ck_assert(!failed.ok());
    ck_assert_text_eq(
        failed.error().message,
        "request \"fast\": PLANE opa0 is required but node01 has no UCX device on it");
}
END_TEST

START_TEST(node_without_devices)
{
    std::vector<fabric::ProcPlacement> procs = {{0, 0, 0}, {1, 0, 0}};
    std::vector<fabric::Index> nodes = {0, 1};
    const NodeDevices some = two_devices();
    const auto view = [&](fabric::Index n) {
        return NodeView{n == 0 ? "node01" : "node02", n == 0 ? &some : nullptr};
    };
    meridian::pnet::Grant grant;
    Choice choice;
    choice.request_id = "x";
    meridian_test::capture_messages();
    ck_assert(assign_devices(procs, nodes, view, choice, grant).ok());
    ck_assert_text_eq(devices_text(grant), "0: mlx5_0:1 | 1:");
    // A process with no device at all is said, as tcp and udp say it.
    ck_assert_messages(WARNING_MSG(
        "request \"x\": ENDPTS 1 is not met: node02 has no UCX device; its processes get none"));
    choice.endpts_required = true;
    const auto failed = assign_devices(procs, nodes, view, choice, grant);
    ck_assert(!failed.ok());
    ck_assert_text_eq(failed.error().message,
                      "request \"x\": ENDPTS 1 is required but node02 has 0 UCX devices");
}
END_TEST

START_TEST(ucx_tls_rules)
{
    const NodeDevices node = two_devices();
    const Device *first = &node.devices[0];
    const Device *second = &node.devices[1];
    const Device tcp{"eth0", {"tcp"}, -1, fabric::no_index};
    std::vector<const Device *> one = {first};
    ck_assert_text_eq(transports_for(one, node.local_transports),
                      "rc_mlx5,ud_mlx5,posix,sysv,cma,self");
    std::vector<const Device *> both = {second, first};
    ck_assert_text_eq(transports_for(both, node.local_transports), "rc_mlx5,posix,sysv,cma,self");
    std::vector<const Device *> unrelated = {&tcp, first};
    ck_assert_text_eq(transports_for(unrelated, {}), "tcp,rc_mlx5,ud_mlx5,self");
    ck_assert_text_eq(transports_for({}, node.local_transports), "posix,sysv,cma,self");
}
END_TEST

int main()
{
    Suite *suite = suite_create("pnet_ucx_devices");
    TCase *text = tcase_create("inventory_text");
    tcase_add_test(text, inventory_text_round_trip);
    tcase_add_test(text, inventory_text_errors);
    suite_add_tcase(suite, text);

    TCase *host = tcase_create("host");
    tcase_add_test(host, resources_become_devices);
    tcase_add_test(host, live_inventory);
    tcase_set_timeout(host, 30);
    suite_add_tcase(suite, host);

    TCase *allocation = tcase_create("allocation");
    tcase_add_test(allocation, nearest_device_per_binding);
    tcase_add_test(allocation, endpts_best_effort_and_required);
    tcase_add_test(allocation, node_without_devices);
    tcase_add_test(allocation, ucx_tls_rules);
    suite_add_tcase(suite, allocation);
    return meridian_test::run_suite(suite);
}

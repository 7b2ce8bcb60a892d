// SPDX-License-Identifier: BSD-3-Clause
// The fabric model without the file: addresses and CIDRs, the builders'
// checks, merging inventories, each node's carto graph, and the NIC order by
// distance (shared by nodes of one shape, fast for 10^6 processes).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "test/fabric/fabric_test_support.hpp"

using namespace fabric_test;
using namespace meridian::fabric;

namespace
{

std::string names(const Fabric &fabric, std::span<const Index> nics)
{
    std::string text;
    for (const Index nic : nics) {
        text += (text.empty() ? "" : " ") + fabric.nics()[nic].name;
    }
    return text;
}

} // namespace

START_TEST(addresses)
{
    ck_assert_uint_eq(*parse_ipv4("10.1.2.3"), 0x0a010203u);
    ck_assert_uint_eq(*parse_ipv4("255.255.255.255"), 0xffffffffu);
    ck_assert_uint_eq(*parse_ipv4("0.0.0.0"), 0);
    const char *const bad[] = {"",       "1.2.3",    "1.2.3.4.5", "256.1.1.1", "01.1.1.1",
                               "1..2.3", "1.2.3.4 ", "a.b.c.d",   "1.2.3.-4",  "1.2.3.1000"};
    for (const char *text : bad) {
        ck_assert_msg(!parse_ipv4(text), "\"%s\" accepted", text);
    }
    ck_assert_text_eq(format_ipv4(0x0a0b0c0du), "10.11.12.13");
    const Cidr net = *parse_cidr("10.10.0.0/16");
    ck_assert_text_eq(net.text(), "10.10.0.0/16");
    ck_assert(net.contains(*parse_ipv4("10.10.255.1")));
    ck_assert(!net.contains(*parse_ipv4("10.11.0.0")));
    ck_assert(net.contains(*parse_cidr("10.10.4.0/24")));
    ck_assert(!parse_cidr("10.10.4.0/24")->contains(net));
    ck_assert(net.overlaps(*parse_cidr("10.0.0.0/8")));
    ck_assert(!net.overlaps(*parse_cidr("10.11.0.0/16")));
    ck_assert(parse_cidr("0.0.0.0/0")->contains(0xdeadbeefu));
    ck_assert(parse_cidr("1.2.3.4/32")->contains(0x01020304u));
    const char *const bad_cidrs[] = {"10.10.1.0/16", "10.0.0.0/33", "10.0.0.0", "10.0.0.0/",
                                     "10.0.0.0/08",  "10.0.0.0/-1", "/8"};
    for (const char *text : bad_cidrs) {
        ck_assert_msg(!parse_cidr(text), "\"%s\" accepted", text);
    }
}
END_TEST

START_TEST(builders_check_and_add_nothing_on_error)
{
    Fabric fabric;
    Plane plane;
    plane.name = "data";
    plane.cidr = parse_cidr("10.0.0.0/8");
    ck_assert_uint_eq(*fabric.add_plane(plane), 0);
    ck_assert_text_eq(error_of(fabric.add_plane(plane)),
                      "expected a new plane name, found \"data\" (already a plane)");
    Plane other;
    other.name = "other";
    other.cidr = plane.cidr;
    ck_assert_text_eq(
        error_of(fabric.add_plane(other)),
        "expected a cidr no other plane has, found 10.0.0.0/8 (plane \"data\" has it)");
    other.cidr.reset();
    other.shape = {2, 2};
    other.periodic = {true};
    ck_assert_text_eq(error_of(fabric.add_plane(other)),
                      "expected periodic with one value per dimension of shape 2x2, found 1 "
                      "values");
    ck_assert_uint_eq(fabric.planes().size(), 1);
    ck_assert_text_eq(error_of(fabric.add_subnet(*parse_cidr("11.0.0.0/24"), 0)),
                      "expected a subnet inside plane \"data\" (10.0.0.0/8), found 11.0.0.0/24");
    ck_assert_int_eq(fabric.add_subnet(*parse_cidr("10.0.0.0/24"), 7).error().status,
                     MERIDIAN_ERR_NOT_FOUND);
    ck_assert_uint_eq(*fabric.add_subnet(*parse_cidr("10.1.0.0/16"), 0), 0);
    ck_assert_uint_eq(*fabric.add_subnet(*parse_cidr("10.3.0.0/16"), 0), 1);
    ck_assert_text_eq(error_of(fabric.add_subnet(*parse_cidr("10.1.2.0/24"), 0)),
                      "expected a subnet that overlaps no other subnet of plane \"data\", found "
                      "10.1.2.0/24 (overlaps 10.1.0.0/16)");
    ck_assert_text_eq(error_of(fabric.add_subnet(*parse_cidr("10.0.0.0/14"), 0)),
                      "expected a subnet that overlaps no other subnet of plane \"data\", found "
                      "10.0.0.0/14 (overlaps 10.1.0.0/16)");
    ck_assert_uint_eq(*fabric.add_switch("sw", 0), 0);
    ck_assert_text_eq(error_of(fabric.add_switch("sw", 0)),
                      "expected a new switch name, found \"sw\" (already a switch of plane "
                      "\"data\")");
    Node node;
    node.name = "n";
    node.packages = 2;
    node.cores = 1;
    ck_assert_text_eq(error_of(fabric.add_node(node)),
                      "expected cores of at least packages (2), found 1");
    node.cores = 8;
    ck_assert_uint_eq(*fabric.add_node(node), 0);
    ck_assert_text_eq(error_of(fabric.add_node(node)),
                      "expected a new node name, found \"n\" (already a node)");
    Nic nic;
    nic.name = "eth0";
    nic.node = 0;
    nic.plane = 0;
    nic.address = parse_ipv4("10.2.0.1");
    ck_assert_text_eq(error_of(fabric.add_nic(nic)),
                      "expected an address in a subnet of plane \"data\", found 10.2.0.1 "
                      "(subnets: 10.1.0.0/16, 10.3.0.0/16)");
    nic.address = parse_ipv4("10.3.0.1");
    nic.package = 2;
    ck_assert_text_eq(error_of(fabric.add_nic(nic)),
                      "expected a package 0-1 of node \"n\", found 2");
    ck_assert_uint_eq(fabric.nics().size(), 0);
    nic.package = 1;
    nic.subnet = 99; // ignored: found from the address
    ck_assert_uint_eq(*fabric.add_nic(nic), 0);
    ck_assert_uint_eq(fabric.nics()[0].subnet, 1);
    ck_assert_uint_eq(*fabric.find_nic(0, "eth0"), 0);
    ck_assert(!fabric.find_nic(5, "eth0"));
}
END_TEST

START_TEST(merge_adds_what_is_missing)
{
    auto base = parse("plane data cidr=10.0.0.0/8\nsubnet 10.1.0.0/16 plane=data\n"
                      "switch sw1 plane=data\nnode a packages=2 cores=2\n"
                      "nic a eth0 plane=data address=10.1.0.1 switch=sw1\n");
    auto more = parse("plane ib type=infiniband\nplane data cidr=10.0.0.0/8\n"
                      "subnet 10.1.0.0/16 plane=data\nsubnet 10.2.0.0/16 plane=data\n"
                      "switch sw1 plane=data\nswitch sw2 plane=data\n"
                      "node a\nnic a eth9 plane=data\n"
                      "node b\nnic b eth0 plane=data address=10.2.0.5 switch=sw2\n"
                      "nic b ib0 plane=ib\n");
    ck_assert(base.ok() && more.ok());
    Fabric merged = *base;
    const auto status = merged.merge(*more);
    ck_assert_text_eq(error_of(status), "parsed without error");
    ck_assert_text_eq(format_fabric(merged), "fabric fabric\n"
                                             "plane data type=ethernet cidr=10.0.0.0/8\n"
                                             "plane ib type=infiniband\n"
                                             "subnet 10.1.0.0/16 plane=data\n"
                                             "subnet 10.2.0.0/16 plane=data\n"
                                             "switch sw1 plane=data\n"
                                             "switch sw2 plane=data\n"
                                             "node a packages=2 cores=2\n"
                                             "node b packages=1 cores=1\n"
                                             "nic a eth0 plane=data address=10.1.0.1 switch=sw1\n"
                                             "nic b eth0 plane=data address=10.2.0.5 switch=sw2\n"
                                             "nic b ib0 plane=ib\n");
    // A conflict leaves the fabric as it was.
    auto clash = parse("plane x\nswitch sw1 plane=x\nnode c\n");
    Fabric before = merged;
    ck_assert_text_eq(error_of(merged.merge(*clash)),
                      "switch \"sw1\" is on plane \"data\" here and on plane \"x\" in the fabric "
                      "merged in");
    ck_assert(same_fabric(before, merged));
}
END_TEST

START_TEST(node_graph_in_carto_terms)
{
    auto parsed = parse("plane e\nplane i type=infiniband\nnode n packages=2 cores=4\n"
                        "nic n eth0 plane=e package=1\nnic n ib0 plane=i\n");
    const meridian::WeightedGraph graph = parsed->node_graph(0);
    ck_assert_uint_eq(graph.vertex_count(), 4);
    ck_assert_text_eq(graph.name(0), "Slot0");
    ck_assert_text_eq(graph.name(1), "Slot1");
    ck_assert(graph.type(*graph.find("eth0")) == meridian::VertexType::eth);
    ck_assert(graph.type(*graph.find("ib0")) == meridian::VertexType::ib);
    // Slot<->Slot 20 both ways, 2 for eth0 (one package), 4 for ib0 (both).
    ck_assert_uint_eq(graph.edge_count(), 2 + 2 + 4);
    auto distances = graph.shortest_distances(0);
    ck_assert_uint_eq((*distances)[*graph.find("eth0")]->saturated(), 30);
    ck_assert_uint_eq((*distances)[*graph.find("ib0")]->saturated(), 10);
    ck_assert_uint_eq((*distances)[1]->saturated(), 20);
    ck_assert_uint_eq(parsed->node_graph(9).vertex_count(), 0);
}
END_TEST

START_TEST(nics_by_distance_orders)
{
    auto parsed = parse("plane e\nnode a packages=2 cores=2\nnode b packages=2 cores=2\n"
                        "node c packages=2 cores=2\n"
                        "nic a e0 plane=e package=1\nnic a e1 plane=e package=0\n"
                        "nic a e2 plane=e\nnic a e3 plane=e package=1\n"
                        "nic b x0 plane=e package=1\nnic b x1 plane=e package=0\n"
                        "nic b x2 plane=e\nnic b x3 plane=e package=1\n"
                        "nic c y0 plane=e package=0\nnic c y1 plane=e package=1\n");
    const Fabric &fabric = *parsed;
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(0, 0)), "e1 e2 e0 e3");
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(0, 1)), "e0 e2 e3 e1");
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(0, -1)), "e0 e1 e2 e3");
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(0, 7)), "e0 e1 e2 e3");
    // Same shape: the same order, of this node's NICs.
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(1, 0)), "x1 x2 x0 x3");
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(1, 1)), "x0 x2 x3 x1");
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(2, 0)), "y0 y1");
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(2, 1)), "y1 y0");
    // Asked again: the same answer.
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(0, 0)), "e1 e2 e0 e3");
    ck_assert_uint_eq(fabric.nics_by_distance(99, 0).size(), 0);
    // A copy shares the cache; a changed copy gets its own answers.
    Fabric copy = fabric;
    ck_assert_text_eq(names(copy, copy.nics_by_distance(1, 0)), "x1 x2 x0 x3");
    Nic extra;
    extra.name = "x4";
    extra.node = 1;
    extra.plane = 0;
    extra.package = 0;
    ck_assert(copy.add_nic(extra).ok());
    ck_assert_text_eq(names(copy, copy.nics_by_distance(1, 0)), "x1 x2 x4 x0 x3");
    ck_assert_text_eq(names(fabric, fabric.nics_by_distance(1, 0)), "x1 x2 x0 x3");
}
END_TEST

// 10^6 calls over 10^5 nodes of two shapes, from several threads: after
// the first call per node each is a lookup.
START_TEST(nics_by_distance_at_scale)
{
    Fabric fabric;
    Plane plane;
    plane.name = "e";
    ck_assert(fabric.add_plane(plane).ok());
    const int nodes = 100000;
    for (int i = 0; i < nodes; ++i) {
        Node node;
        node.name = "n" + std::to_string(i);
        node.packages = 2;
        node.cores = 20;
        const Index index = *fabric.add_node(node);
        for (int k = 0; k < 3; ++k) {
            Nic nic;
            nic.name = "eth" + std::to_string(k);
            nic.node = index;
            nic.plane = 0;
            nic.package = (i % 2 == 0) ? (k == 0 ? 1 : 0) : -1;
            ck_assert(fabric.add_nic(nic).ok());
        }
    }
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    std::atomic<std::size_t> checked{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            std::size_t ok = 0;
            for (int p = t; p < 1000000; p += 4) {
                const Index node = static_cast<Index>(p / 10);
                const auto order = fabric.nics_by_distance(node, p % 2);
                const Index first = fabric.nodes()[node].nics[0];
                // Even nodes bound to package 0: eth0 (on package 1) last.
                const bool right =
                    node % 2 == 1 || p % 2 == 1 ? order[0] == first : order[2] == first;
                ok += right ? 1 : 0;
            }
            checked += ok;
        });
    }
    for (std::thread &thread : threads) {
        thread.join();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("nics_by_distance: 10^6 calls over 10^5 nodes in %.3f s\n", seconds);
    ck_assert_uint_eq(checked.load(), 1000000);
    ck_assert_msg(seconds < 20, "10^6 calls took %.1f s", seconds);
}
END_TEST

int main()
{
    Suite *suite = suite_create("fabric_model");
    TCase *tcase = tcase_create("fabric_model");
    tcase_set_timeout(tcase, 120);
    tcase_add_test(tcase, addresses);
    tcase_add_test(tcase, builders_check_and_add_nothing_on_error);
    tcase_add_test(tcase, merge_adds_what_is_missing);
    tcase_add_test(tcase, node_graph_in_carto_terms);
    tcase_add_test(tcase, nics_by_distance_orders);
    tcase_add_test(tcase, nics_by_distance_at_scale);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

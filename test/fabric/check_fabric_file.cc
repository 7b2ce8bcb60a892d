// SPDX-License-Identifier: BSD-3-Clause
// The fabric file: what a valid file describes, every error with its exact
// message ("t.fabric:LINE:COL: ..."), the round trip through format_fabric,
// reading from disk, and a 10^5-node file parsed in linear time.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "test/fabric/fabric_test_support.hpp"

using namespace fabric_test;
using namespace meridian::fabric;

namespace
{

const char *const example = "# two planes, four nodes\n"
                            "fabric lab\n"
                            "plane data type=ethernet cidr=10.10.0.0/16 qos=4\n"
                            "plane torus type=infiniband shape=4x2 periodic=1,0\n"
                            "subnet 10.10.1.0/24 plane=data\n"
                            "subnet 10.10.2.0/24 plane=data\n"
                            "switch sw1 plane=data\n"
                            "switch sw2 plane=data\n"
                            "switch ib1 plane=torus\n"
                            "node n1 packages=2 cores=8 ports=tcp:32000-32100 coord=0,0\n"
                            "node n2 packages=2 cores=8 coord=1,0\n"
                            "\tnode  n3   # comment after a statement\n"
                            "nic n1 eth0 plane=data address=10.10.1.1 switch=sw1 speed=10G "
                            "package=0\n"
                            "nic n1 ib0 plane=torus switch=ib1 speed=100Gb/s package=1\n"
                            "nic n2 eth0 plane=10.10.0.0/16 address=10.10.2.7 switch=sw2\n"
                            "nic n2 ib0 plane=torus coord=3,1\n"
                            "nic n3 eth0 plane=data\n";

std::string roundtrip_error(const std::string &text)
{
    auto first = parse(text);
    if (!first) {
        return "first parse: " + first.error().message;
    }
    const std::string written = format_fabric(*first);
    auto second = parse(written);
    if (!second) {
        return "second parse: " + second.error().message + "\n" + written;
    }
    if (!same_fabric(*first, *second)) {
        return "not equal after the round trip:\n" + written;
    }
    if (format_fabric(*second) != written) {
        return "written differently the second time:\n" + written;
    }
    return "";
}

} // namespace

START_TEST(example_describes_the_fabric)
{
    auto parsed = parse(example);
    ck_assert_text_eq(error_of(parsed), "parsed without error");
    const Fabric &fabric = *parsed;
    ck_assert_text_eq(fabric.name, "lab");
    ck_assert_uint_eq(fabric.planes().size(), 2);
    const Plane &data = fabric.planes()[0];
    ck_assert_text_eq(data.type, "ethernet");
    ck_assert_text_eq(data.cidr->text(), "10.10.0.0/16");
    ck_assert_uint_eq(data.qos_levels, 4);
    ck_assert_uint_eq(data.subnets.size(), 2);
    ck_assert_uint_eq(data.switches.size(), 2);
    ck_assert_uint_eq(data.nics.size(), 3);
    const Plane &torus = fabric.planes()[1];
    ck_assert(torus.shape == (std::vector<std::uint32_t>{4, 2}));
    ck_assert(torus.periodic == (std::vector<bool>{true, false}));
    ck_assert_uint_eq(torus.qos_levels, 1);
    ck_assert(!torus.cidr);

    ck_assert_uint_eq(*fabric.find_plane("data"), 0);
    ck_assert_uint_eq(*fabric.find_plane("10.10.0.0/16"), 0);
    ck_assert_uint_eq(*fabric.find_plane("torus"), 1);
    ck_assert(!fabric.find_plane("nope"));
    ck_assert_uint_eq(*fabric.find_switch("ib1"), 2);

    const Node &n1 = fabric.nodes()[*fabric.find_node("n1")];
    ck_assert_uint_eq(n1.packages, 2);
    ck_assert_uint_eq(n1.cores, 8);
    ck_assert_text_eq(format_static_ports(n1.ports), "tcp:32000-32100");
    ck_assert(n1.coord == (std::vector<std::uint32_t>{0, 0}));
    const Node &n3 = fabric.nodes()[2];
    ck_assert_text_eq(n3.name, "n3");
    ck_assert_uint_eq(n3.packages, 1);
    ck_assert_uint_eq(n3.cores, 1);
    ck_assert(n3.ports.empty());

    const Nic &eth0 = fabric.nics()[*fabric.find_nic(0, "eth0")];
    ck_assert_text_eq(format_ipv4(*eth0.address), "10.10.1.1");
    ck_assert_uint_eq(eth0.subnet, 0);
    ck_assert_uint_eq(eth0.sw, 0);
    ck_assert_uint_eq(eth0.speed_mbps, 10000);
    ck_assert_int_eq(eth0.package, 0);
    const Nic &ib0 = fabric.nics()[1];
    ck_assert_uint_eq(ib0.speed_mbps, 100000);
    ck_assert_uint_eq(ib0.index_on_node, 1);
    ck_assert_uint_eq(ib0.subnet, no_index);
    const Nic &n2eth = fabric.nics()[2];
    ck_assert_uint_eq(n2eth.plane, 0);
    ck_assert_uint_eq(n2eth.subnet, 1);
    ck_assert(fabric.nics()[3].coord == (std::vector<std::uint32_t>{3, 1}));
    ck_assert_int_eq(fabric.nics()[4].package, -1);
    ck_assert_uint_eq(fabric.nics()[4].speed_mbps, 0);
    ck_assert(!fabric.find_nic(2, "ib0"));
}
END_TEST

START_TEST(defaults_and_the_plane_cidr_as_a_subnet)
{
    auto parsed = parse("plane p cidr=10.0.0.0/8\nnode a\nnic a e plane=p address=10.1.2.3\n");
    ck_assert_text_eq(error_of(parsed), "parsed without error");
    ck_assert_text_eq(parsed->name, "fabric");
    ck_assert_text_eq(parsed->planes()[0].type, "ethernet");
    ck_assert_uint_eq(parsed->subnets().size(), 1);
    ck_assert_text_eq(parsed->subnets()[0].cidr.text(), "10.0.0.0/8");
    ck_assert_uint_eq(parsed->nics()[0].subnet, 0);
    // Empty text, comments, blank lines: an empty fabric.
    auto empty = parse("\n  # nothing\n\t\n");
    ck_assert_text_eq(error_of(empty), "parsed without error");
    ck_assert_uint_eq(empty->nodes().size(), 0);
    // A UTF-8 byte order mark (some editors write one) is not text; one
    // further in is shown escaped, not printed raw.
    auto bom = parse("\xef\xbb\xbfplane p cidr=10.0.0.0/8\n");
    ck_assert_text_eq(error_of(bom), "parsed without error");
    ck_assert_text_eq(bom->planes()[0].name, "p");
    ck_assert_text_eq(error_of(parse("plane p\n\xef\xbb\xbfnode a\n")),
                      "t.fabric:2:1: expected a statement (fabric, plane, subnet, switch, node, "
                      "nic), found \"\\ufeffnode\"");
    // periodic=no, and the default of all dimensions.
    auto torus = parse("plane t shape=2x3x4 periodic=no\nplane u shape=5\n");
    ck_assert(torus->planes()[0].periodic == (std::vector<bool>{false, false, false}));
    ck_assert(torus->planes()[1].periodic == (std::vector<bool>{true}));
}
END_TEST

// Each bad line after a valid preamble, with its full message.
START_TEST(every_error)
{
    const std::string pre = "plane data cidr=10.10.0.0/16\n"         // line 1
                            "plane ib type=infiniband shape=4x4\n"   // line 2
                            "subnet 10.10.1.0/24 plane=data\n"       // line 3
                            "switch sw1 plane=data\n"                // line 4
                            "switch sw2 plane=ib\n"                  // line 5
                            "node n1 packages=2 cores=4 coord=1,1\n" // line 6
                            "nic n1 eth0 plane=data\n";              // line 7
    struct Case {
        const char *line;
        const char *message;
    };
    const Case cases[] = {
        {"nod n2", "t.fabric:8:1: expected a statement (fabric, plane, subnet, switch, node, nic), "
                   "found \"nod\""},
        {"fabric x", "t.fabric:8:1: expected the fabric statement before any plane, found it "
                     "after plane \"data\" (line 1)"},
        {"plane", "t.fabric:8:6: expected a plane name, found end of line"},
        {"plane a$b", "t.fabric:8:7: expected a plane name (letters, digits and \"_-.:/\"), found "
                      "\"a$b\""},
        {"plane data", "t.fabric:8:7: expected a new plane name, found \"data\" (defined at line "
                       "1)"},
        {"plane 10.10.0.0/16", "t.fabric:8:7: expected a new plane name, found \"10.10.0.0/16\" "
                               "(the cidr of plane \"data\", line 1)"},
        {"plane p colour=red", "t.fabric:8:9: expected an attribute KEY=VALUE of plane (type, "
                               "cidr, qos, shape, periodic), found \"colour\""},
        {"plane p ethernet", "t.fabric:8:9: expected an attribute KEY=VALUE of plane (type, cidr, "
                             "qos, shape, periodic), found \"ethernet\""},
        {"plane p qos=2 qos=3", "t.fabric:8:15: expected each attribute at most once, found a "
                                "second \"qos\""},
        {"plane p type=", "t.fabric:8:14: expected type=TYPE (a word such as ethernet or "
                          "infiniband), found \"\""},
        {"plane p cidr=10.10.1.0/16", "t.fabric:8:14: expected cidr=A.B.C.D/N (host bits zero), "
                                      "found \"10.10.1.0/16\""},
        {"plane p cidr=10.10.0.0/16", "t.fabric:8:14: expected a cidr no other plane has, found "
                                      "\"10.10.0.0/16\" (plane \"data\", line 1)"},
        {"plane p qos=0", "t.fabric:8:13: expected qos=LEVELS with LEVELS 1-65535, found \"0\""},
        {"plane p shape=4x0", "t.fabric:8:15: expected shape=DxDx... (1 to 16 sizes, each "
                              "1-1000000), found \"4x0\""},
        {"plane p periodic=yes", "t.fabric:8:9: expected periodic only with shape=DxDx..., found "
                                 "periodic on a plane without a shape"},
        {"plane p shape=4x4 periodic=1", "t.fabric:8:28: expected periodic=yes, no or one 1/0 per "
                                         "dimension of shape 4x4 (2), found \"1\""},
        {"subnet", "t.fabric:8:7: expected a subnet A.B.C.D/N, found end of line"},
        {"subnet 10.10.2.0/33 plane=data", "t.fabric:8:8: expected a subnet A.B.C.D/N (host bits "
                                           "zero), found \"10.10.2.0/33\""},
        {"subnet 10.10.2.0/24", "t.fabric:8:20: expected plane=NAME for the subnet, found end of "
                                "line"},
        {"subnet 10.10.2.0/24 plane=eth", "t.fabric:8:27: unknown plane \"eth\" (defined: data, "
                                          "ib)"},
        {"subnet 10.11.0.0/24 plane=data", "t.fabric:8:8: expected a subnet inside plane \"data\" "
                                           "(10.10.0.0/16), found 10.11.0.0/24"},
        {"subnet 10.10.0.0/20 plane=data", "t.fabric:8:8: expected a subnet that overlaps no "
                                           "other subnet of plane \"data\", found 10.10.0.0/20 "
                                           "(overlaps 10.10.1.0/24)"},
        {"switch sw1 plane=ib", "t.fabric:8:8: expected a new switch name, found \"sw1\" (defined "
                                "at line 4)"},
        {"switch sw3", "t.fabric:8:11: expected plane=NAME for the switch, found end of line"},
        {"node n1", "t.fabric:8:6: expected a new node name, found \"n1\" (defined at line 6)"},
        {"node n2 packages=0", "t.fabric:8:18: expected packages=N with N 1-256, found \"0\""},
        {"node n2 cores=x", "t.fabric:8:15: expected cores=N with N 1-1048576, found \"x\""},
        {"node n2 packages=4 cores=2", "t.fabric:8:26: expected cores=N with N at least packages "
                                       "(4), found \"2\""},
        {"node n2 ports=sctp:1", "t.fabric:8:15: expected PROTOCOL \"tcp\" or \"udp\", found "
                                 "\"sctp\""},
        {"node n2 ports=tcp:1-5,3", "t.fabric:8:23: port 3 is listed twice in the tcp pool"},
        {"node n2 coord=1,,2", "t.fabric:8:15: expected coord=C,C,... (1 to 16 whole numbers), "
                               "found \"1,,2\""},
        {"nic", "t.fabric:8:4: expected a node name, found end of line"},
        {"nic n9 eth0 plane=data", "t.fabric:8:5: unknown node \"n9\" (defined: n1)"},
        {"nic n1", "t.fabric:8:7: expected a NIC name, found end of line"},
        {"nic n1 eth0 plane=data", "t.fabric:8:8: expected a new NIC name on node \"n1\", found "
                                   "\"eth0\" (defined at line 7)"},
        {"nic n1 Slot1 plane=data", "t.fabric:8:8: expected a NIC name that is not a processor's "
                                    "(Slot<N>), found \"Slot1\""},
        {"nic n1 eth1", "t.fabric:8:12: expected plane=NAME for the nic, found end of line"},
        {"nic n1 eth1 plane=x", "t.fabric:8:19: unknown plane \"x\" (defined: data, ib)"},
        {"nic n1 eth1 plane=data address=10.10.1", "t.fabric:8:32: expected address=A.B.C.D, "
                                                   "found \"10.10.1\""},
        {"nic n1 eth1 plane=data address=10.10.2.1", "t.fabric:8:32: expected an address in a "
                                                     "subnet of plane \"data\", found 10.10.2.1 "
                                                     "(subnets: 10.10.1.0/24)"},
        {"nic n1 ib0 plane=ib address=10.10.1.1", "t.fabric:8:29: expected an address in a "
                                                  "subnet of plane \"ib\", found 10.10.1.1 (the "
                                                  "plane has no subnets)"},
        {"nic n1 eth1 plane=data switch=sw9", "t.fabric:8:31: unknown switch \"sw9\" on plane "
                                              "\"data\" (defined: sw1)"},
        {"nic n1 eth1 plane=data switch=sw2", "t.fabric:8:31: expected a switch of plane \"data\", "
                                              "found \"sw2\" (a switch of plane \"ib\")"},
        {"nic n1 eth1 plane=data speed=fast", "t.fabric:8:30: expected speed=RATE of 1 Mbit/s or "
                                              "more (such as 10G, 25Gb/s or 100000 = Mbit/s), "
                                              "found \"fast\""},
        {"nic n1 eth1 plane=data speed=0", "t.fabric:8:30: expected speed=RATE of 1 Mbit/s or "
                                           "more (such as 10G, 25Gb/s or 100000 = Mbit/s), found "
                                           "\"0\""},
        {"nic n1 eth1 plane=data package=2", "t.fabric:8:32: expected package=N with N 0-1 (the "
                                             "packages of node \"n1\"), found \"2\""},
        {"nic n1 eth1 plane=data coord=a", "t.fabric:8:30: expected coord=C,C,... (1 to 16 whole "
                                           "numbers), found \"a\""},
        {"nic n1 ib0 plane=ib coord=4,0", "t.fabric:8:27: expected a coordinate inside plane "
                                          "\"ib\"'s shape 4x4, found 4,0"},
        {"nic n1 ib0 plane=ib coord=1", "t.fabric:8:27: expected a coordinate inside plane "
                                        "\"ib\"'s shape 4x4, found 1"},
        {"nic n1 eth1 plane=data mtu=9000", "t.fabric:8:24: expected an attribute KEY=VALUE of nic "
                                            "(plane, address, switch, speed, package, coord), "
                                            "found \"mtu\""},
        {"nic n1 eth1 plane=data address=10.10.1.0", "t.fabric:8:32: expected an address of a "
                                                     "host in subnet 10.10.1.0/24, found "
                                                     "10.10.1.0 (its network address)"},
        {"nic n1 eth1 plane=data address=10.10.1.255", "t.fabric:8:32: expected an address of a "
                                                       "host in subnet 10.10.1.0/24, found "
                                                       "10.10.1.255 (its broadcast address)"},
    };
    for (const Case &c : cases) {
        ck_assert_text_eq(error_of(parse(pre + c.line + "\n")), c.message);
    }
    // No two NICs share an address, on one node or two.
    ck_assert_text_eq(error_of(parse(pre + "nic n1 eth1 plane=data address=10.10.1.5\n"
                                           "node n2\n"
                                           "nic n2 eth0 plane=data address=10.10.1.5\n")),
                      "t.fabric:10:32: expected an address no other NIC has, found 10.10.1.5 "
                      "(NIC \"eth1\" of node \"n1\" has it)");
    // Every node has its own loopback: 127.0.0.1 on two nodes is no clash
    // (each host of a job describes its lo), on one node it is.
    ck_assert_text_eq(error_of(parse("plane 127.0.0.0/8 cidr=127.0.0.0/8\nnode a\nnode b\n"
                                     "nic a lo plane=127.0.0.0/8 address=127.0.0.1\n"
                                     "nic b lo plane=127.0.0.0/8 address=127.0.0.1\n")),
                      "parsed without error");
    ck_assert_text_eq(error_of(parse("plane 127.0.0.0/8 cidr=127.0.0.0/8\nnode a\nnode b\n"
                                     "nic b lo plane=127.0.0.0/8 address=127.0.0.1\n"
                                     "nic a lo plane=127.0.0.0/8 address=127.0.0.1\n"
                                     "nic a lo2 plane=127.0.0.0/8 address=127.0.0.1\n")),
                      "t.fabric:6:37: expected an address no other NIC has, found 127.0.0.1 "
                      "(NIC \"lo\" of node \"a\" has it)");
    // A /31 (point to point) and a /32 have no network or broadcast address.
    ck_assert_text_eq(error_of(parse("plane p cidr=10.30.0.0/31\nnode a\nnode b\n"
                                     "nic a e plane=p address=10.30.0.0\n"
                                     "nic b e plane=p address=10.30.0.1\n"
                                     "plane q cidr=10.40.0.7/32\nnic a f plane=q "
                                     "address=10.40.0.7\n")),
                      "parsed without error");
    // The node's coordinate is checked where a NIC on a shaped plane uses it.
    ck_assert_text_eq(error_of(parse("plane ib shape=2x2\nnode a coord=5,0\nnic a ib0 plane=ib\n")),
                      "t.fabric:3:17: expected a coordinate inside plane \"ib\"'s shape 2x2, "
                      "found 5,0 (node \"a\"'s)");
}
END_TEST

START_TEST(fabric_statement_errors)
{
    ck_assert_text_eq(error_of(parse("fabric a\nfabric b\n")),
                      "t.fabric:2:1: expected at most one fabric statement, found a second one "
                      "(the first is at line 1)");
    ck_assert_text_eq(error_of(parse("fabric\n")),
                      "t.fabric:1:7: expected the fabric's name, found end of line");
    ck_assert_text_eq(error_of(parse("fabric a b\n")),
                      "t.fabric:1:10: expected end of line after the fabric's name, found \"b\"");
    ck_assert_text_eq(error_of(parse("plane p\nnic x e plane=p\n")),
                      "t.fabric:2:5: unknown node \"x\" (defined: none)");
    ck_assert_text_eq(error_of(parse("subnet 10.0.0.0/8 plane=p\n")),
                      "t.fabric:1:25: unknown plane \"p\" (defined: none)");
    // Many nodes: a few are named.
    std::string many = "plane p\n";
    for (int i = 0; i < 20; ++i) {
        many += "node n" + std::to_string(i) + "\n";
    }
    ck_assert_text_eq(error_of(parse(many + "nic m e plane=p\n")),
                      "t.fabric:22:5: unknown node \"m\" (defined: n0, n1, n2, n3, n4, n5, n6, "
                      "n7, ... (20 nodes))");
    // Control characters are shown escaped; CR line ends are blanks.
    ck_assert_text_eq(error_of(parse("plane a\x01\n")),
                      "t.fabric:1:7: expected a plane name (letters, digits and \"_-.:/\"), found "
                      "\"a\\x01\"");
    ck_assert_text_eq(error_of(parse("plane a\r\nnode n\r\n")), "parsed without error");
}
END_TEST

// Every name the format has is at most max_name_bytes: 255 bytes are a
// name, 256 are refused where they stand, without echoing them.
START_TEST(long_names_are_refused)
{
    ck_assert_uint_eq(max_name_bytes, 255);
    const std::string n255(255, 'n');
    const std::string n256(256, 'n');
    const std::string longest = "fabric " + n255 + "\nplane " + n255 + " type=" + n255 +
                                "\nswitch " + n255 + " plane=" + n255 + "\nnode " + n255 +
                                "\nnic " + n255 + " " + n255 + " plane=" + n255 +
                                " switch=" + n255 + "\n";
    ck_assert_text_eq(error_of(parse(longest)), "parsed without error");
    ck_assert_text_eq(roundtrip_error(longest), "");

    const std::string pre = "plane data\n"            // line 1
                            "switch sw1 plane=data\n" // line 2
                            "node n1\n";              // line 3
    struct Case {
        std::string line;
        const char *message;
    };
    const Case cases[] = {
        {"plane " + n256, "t.fabric:4:7: expected a plane name of at most 255 bytes, found 256 "
                          "bytes"},
        {"plane p type=" + n256, "t.fabric:4:14: expected type=TYPE with TYPE at most 255 bytes, "
                                 "found 256 bytes"},
        {"switch " + n256 + " plane=data", "t.fabric:4:8: expected a switch name of at most 255 "
                                           "bytes, found 256 bytes"},
        {"switch sw2 plane=" + n256, "t.fabric:4:18: expected plane=NAME with NAME at most 255 "
                                     "bytes, found 256 bytes"},
        {"subnet 10.0.0.0/8 plane=" + n256, "t.fabric:4:25: expected plane=NAME with NAME at "
                                            "most 255 bytes, found 256 bytes"},
        {"node " + n256, "t.fabric:4:6: expected a node name of at most 255 bytes, found 256 "
                         "bytes"},
        {"nic " + n256 + " eth0 plane=data", "t.fabric:4:5: expected a node name of at most 255 "
                                             "bytes, found 256 bytes"},
        {"nic n1 " + n256 + " plane=data", "t.fabric:4:8: expected a NIC name of at most 255 "
                                           "bytes, found 256 bytes"},
        {"nic n1 eth0 plane=" + n256, "t.fabric:4:19: expected plane=NAME with NAME at most 255 "
                                      "bytes, found 256 bytes"},
        {"nic n1 eth0 plane=data switch=" + n256, "t.fabric:4:31: expected switch=NAME with NAME "
                                                  "at most 255 bytes, found 256 bytes"},
    };
    for (const Case &c : cases) {
        ck_assert_text_eq(error_of(parse(pre + c.line + "\n")), c.message);
    }
    ck_assert_text_eq(error_of(parse("fabric " + n256 + "\n")),
                      "t.fabric:1:8: expected the fabric's name of at most 255 bytes, found 256 "
                      "bytes");
    // 20 MB of switch name, characters a name may not have included: the
    // length is what is said, and the message stays short.
    const std::string huge(std::size_t{20} << 20, 's');
    ck_assert_text_eq(error_of(parse(pre + "switch " + huge + " plane=data\n")),
                      "t.fabric:4:8: expected a switch name of at most 255 bytes, found 20971520 "
                      "bytes");
    ck_assert_text_eq(error_of(parse(pre + "node " + std::string(300, '\xff') + "\n")),
                      "t.fabric:4:6: expected a node name of at most 255 bytes, found 300 bytes");
    ck_assert(is_fabric_name(n255));
    ck_assert(!is_fabric_name(n256));
    ck_assert(!is_fabric_name(""));
    ck_assert(!is_fabric_name("node\xff"));
}
END_TEST

START_TEST(round_trips)
{
    ck_assert_text_eq(roundtrip_error(example), "");
    ck_assert_text_eq(roundtrip_error(""), "");
    ck_assert_text_eq(roundtrip_error("plane p cidr=10.0.0.0/8\nplane q\nsubnet 192.168.0.0/24 "
                                      "plane=q\nnode a\nnic a e plane=p address=10.1.2.3\n"
                                      "subnet 192.168.1.0/24 plane=q\nnic a f plane=q "
                                      "address=192.168.1.9 speed=1500\n"),
                      "");
    ck_assert_text_eq(roundtrip_error("plane t shape=2x3 periodic=no\nplane u shape=2x3x4 "
                                      "periodic=0,1,1\nnode a coord=1,2 ports=udp:5;tcp:10.0.0.0/"
                                      "8:1-3,7\nnic a x plane=t speed=2T\n"),
                      "");
    // What the writer writes, exactly.
    auto parsed = parse(example);
    ck_assert_text_eq(format_fabric(*parsed),
                      "fabric lab\n"
                      "plane data type=ethernet cidr=10.10.0.0/16 qos=4\n"
                      "plane torus type=infiniband shape=4x2 periodic=1,0\n"
                      "subnet 10.10.1.0/24 plane=data\n"
                      "subnet 10.10.2.0/24 plane=data\n"
                      "switch sw1 plane=data\n"
                      "switch sw2 plane=data\n"
                      "switch ib1 plane=torus\n"
                      "node n1 packages=2 cores=8 ports=tcp:32000-32100 coord=0,0\n"
                      "node n2 packages=2 cores=8 coord=1,0\n"
                      "node n3 packages=1 cores=1\n"
                      "nic n1 eth0 plane=data address=10.10.1.1 switch=sw1 speed=10G package=0\n"
                      "nic n1 ib0 plane=torus switch=ib1 speed=100G package=1\n"
                      "nic n2 eth0 plane=data address=10.10.2.7 switch=sw2\n"
                      "nic n2 ib0 plane=torus coord=3,1\n"
                      "nic n3 eth0 plane=data\n");
}
END_TEST

START_TEST(contrib_example_parses)
{
    auto parsed = read_fabric_file(FABRIC_CONTRIB_DIR "/example.fabric");
    ck_assert_text_eq(error_of(parsed), "parsed without error");
    ck_assert_int_ge(parsed->nodes().size(), 4);
    ck_assert_int_ge(parsed->planes().size(), 2);
}
END_TEST

START_TEST(read_errors)
{
    meridian_test::make_scratch("fabric");
    auto missing = read_fabric_file(meridian_test::scratch() + "/none.fabric");
    ck_assert_int_eq(missing.error().status, MERIDIAN_ERR_IO);
    ck_assert_text_eq(missing.error().message, "cannot read the fabric file " +
                                                   meridian_test::scratch() +
                                                   "/none.fabric: No such file or directory");
    auto directory = read_fabric_file(meridian_test::scratch());
    ck_assert_int_eq(directory.error().status, MERIDIAN_ERR_IO);
    ck_assert_text_eq(directory.error().message, "cannot read the fabric file " +
                                                     meridian_test::scratch() + ": Is a directory");
    const std::string path = meridian_test::scratch() + "/bad.fabric";
    std::ofstream(path) << "plane p\nswitch s plane=q\n";
    auto bad = read_fabric_file(path);
    ck_assert_int_eq(bad.error().status, MERIDIAN_ERR_BAD_PARAM);
    ck_assert_text_eq(bad.error().message, path + ":2:16: unknown plane \"q\" (defined: p)");
}
END_TEST

// 10^5 nodes with two NICs each: linear, well under a second even with
// sanitizers; the time for 4x the nodes must stay near 4x.
START_TEST(large_file_is_linear)
{
    auto make = [](int nodes) {
        std::string text = "plane a cidr=10.0.0.0/8\nplane b type=infiniband\n";
        for (int s = 0; s < 100; ++s) {
            text += "switch s" + std::to_string(s) + " plane=a\n";
        }
        for (int i = 0; i < nodes; ++i) {
            const std::string name = "node" + std::to_string(i);
            text += "node " + name + " packages=2 cores=16\n";
            const int host = i + 1; // 10.0.0.0 is the network's address
            text += "nic " + name + " eth0 plane=a address=10." + std::to_string(host >> 16) + "." +
                    std::to_string((host >> 8) & 255) + "." + std::to_string(host & 255) +
                    " switch=s" + std::to_string(i % 100) + " speed=25G package=0\n";
            text += "nic " + name + " ib0 plane=b package=1\n";
        }
        return text;
    };
    auto time = [](const std::string &text) {
        const auto start = std::chrono::steady_clock::now();
        auto parsed = parse(text);
        ck_assert_text_eq(error_of(parsed), "parsed without error");
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const std::string small = make(25000);
    const std::string large = make(100000);
    const double t_small = time(small);
    const double t_large = time(large);
    std::printf("fabric parse: 25000 nodes %.3f s, 100000 nodes %.3f s\n", t_small, t_large);
    ck_assert_msg(t_large < 8 * t_small + 0.05, "not linear: %.3f s then %.3f s", t_small, t_large);
}
END_TEST

int main()
{
    Suite *suite = suite_create("fabric_file");
    TCase *tcase = tcase_create("fabric_file");
    tcase_set_timeout(tcase, 120);
    tcase_add_unchecked_fixture(
        tcase, [] { meridian_test::make_scratch_root("fabric-file-test"); },
        meridian_test::remove_scratch_root);
    tcase_add_test(tcase, example_describes_the_fabric);
    tcase_add_test(tcase, defaults_and_the_plane_cidr_as_a_subnet);
    tcase_add_test(tcase, every_error);
    tcase_add_test(tcase, fabric_statement_errors);
    tcase_add_test(tcase, long_names_are_refused);
    tcase_add_test(tcase, round_trips);
    tcase_add_test(tcase, contrib_example_parses);
    tcase_add_test(tcase, read_errors);
    tcase_add_test(tcase, large_file_is_linear);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

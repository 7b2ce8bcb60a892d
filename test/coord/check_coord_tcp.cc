// SPDX-License-Identifier: BSD-3-Clause
// coord_tcp through the framework: seed 001's logical x/y/z (NIC index on
// its node, switch, subnet) on a fabric with two planes and two switches per
// plane, the shapes, the hop costs of every case in its README, and the cost
// between processes (nearest NIC per plane, the cheapest plane).
#include <string>

#include "test/coord/coord_test_support.hpp"
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/mca/base/mca_base.h>

using namespace coord_test;
using meridian_test::messages;

namespace
{

// data: two /24s, two switches; mgmt: one subnet (the plane's cidr), two
// switches, and n4's NIC with no switch.  n1 and n2 have a NIC per data
// rail, on different packages.
constexpr std::string_view two_planes = R"(fabric testnet
plane data cidr=10.10.0.0/16
subnet 10.10.1.0/24 plane=data
subnet 10.10.2.0/24 plane=data
switch d0 plane=data
switch d1 plane=data
plane mgmt cidr=10.20.0.0/16
switch m0 plane=mgmt
switch m1 plane=mgmt
node n1 packages=2 cores=4
node n2 packages=2 cores=4
node n3 packages=2 cores=4
node n4 packages=2 cores=4
nic n1 eth0 plane=data address=10.10.1.1 switch=d0 package=0
nic n1 eth1 plane=data address=10.10.2.1 switch=d1 package=1
nic n1 mgmt0 plane=mgmt address=10.20.0.1 switch=m0 package=0
nic n2 eth0 plane=data address=10.10.1.2 switch=d0 package=0
nic n2 eth1 plane=data address=10.10.2.2 switch=d1 package=1
nic n2 mgmt0 plane=mgmt address=10.20.0.2 switch=m0 package=0
nic n3 eth0 plane=data address=10.10.1.3 switch=d1 package=0
nic n3 mgmt0 plane=mgmt address=10.20.0.3 switch=m1 package=0
nic n4 eth0 plane=data address=10.10.2.4 switch=d1 package=0
nic n4 mgmt0 plane=mgmt address=10.20.0.4 package=0
)";

// Ranks: 0,1 on n1 (packages 0,1), 2,3 on n2, 4,5 on n3, 6,7 on n4.
void place_two_planes()
{
    start({{"coord", "tcp"}});
    const auto fabric = fabric_of(two_planes);
    place(fabric, job_of(*fabric, "n1:2,n2:2,n3:2,n4:2"));
}

START_TEST(xyz_per_nic)
{
    place_two_planes();
    // x: index on the node; y: switch on the plane; z: subnet on the plane.
    // Nearest NIC first: package 0 finds eth0 and mgmt0 first, package 1 eth1.
    ck_assert_text_eq(coords_of(0),
                      "data:logical:(0,0,0) mgmt:logical:(2,0,0) data:logical:(1,1,1)");
    ck_assert_text_eq(coords_of(1),
                      "data:logical:(1,1,1) data:logical:(0,0,0) mgmt:logical:(2,0,0)");
    ck_assert_text_eq(coords_of(2),
                      "data:logical:(0,0,0) mgmt:logical:(2,0,0) data:logical:(1,1,1)");
    ck_assert_text_eq(coords_of(4), "data:logical:(0,1,0) mgmt:logical:(1,1,0)");
    // n4's mgmt0 has no switch: y is the slot after the plane's switches.
    ck_assert_text_eq(coords_of(6), "data:logical:(0,1,1) mgmt:logical:(1,2,0)");
    ck_assert_text_eq(coords_of(1, "data"), "data:logical:(1,1,1) data:logical:(0,0,0)");
    ck_assert_text_eq(coords_of(1, "10.20.0.0/16"), "mgmt:logical:(2,0,0)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(shapes_count_nics_switches_subnets)
{
    place_two_planes();
    // x: the most NICs on a node (3 on n1, n2); y: 2 switches; z: 2 subnets.
    ck_assert_text_eq(shape_of("data"), "3x2x2");
    // mgmt: 2 switches and the "unknown switch" slot; one subnet.
    ck_assert_text_eq(shape_of("mgmt"), "3x3x1");
    const auto dims = meridian::coord::dims();
    ck_assert(dims.ok());
    ck_assert_text_eq(joined(*dims), "3,3");
}
END_TEST

START_TEST(hops_per_case)
{
    place_two_planes();
    ck_assert_uint_eq(nic_hops("n1:eth0", "n1:eth0"), 0);   // same NIC
    ck_assert_uint_eq(nic_hops("n1:eth0", "n1:eth1"), 0);   // same node
    ck_assert_uint_eq(nic_hops("n1:eth0", "n2:eth0"), 2);   // d0: NIC-switch-NIC
    ck_assert_uint_eq(nic_hops("n1:eth1", "n4:eth0"), 2);   // d1, 10.10.2.0/24
    ck_assert_uint_eq(nic_hops("n1:eth0", "n3:eth0"), 4);   // one subnet, d0 and d1
    ck_assert_uint_eq(nic_hops("n1:eth0", "n4:eth0"), 6);   // two subnets: routed
    ck_assert_uint_eq(nic_hops("n3:eth0", "n4:eth0"), 6);   // routed although both on d1
    ck_assert_uint_eq(nic_hops("n1:mgmt0", "n2:mgmt0"), 2); // m0
    ck_assert_uint_eq(nic_hops("n1:mgmt0", "n3:mgmt0"), 4); // m0 and m1
    ck_assert_uint_eq(nic_hops("n3:mgmt0", "n4:mgmt0"), 4); // unknown switch: a different one
    ck_assert_uint_eq(nic_hops("n4:mgmt0", "n4:mgmt0"), 0);
}
END_TEST

START_TEST(process_cost_is_cheapest_plane_nearest_nic)
{
    place_two_planes();
    ck_assert_text_eq(cost_of(0, 1), "0"); // one node
    ck_assert_text_eq(cost_of(0, 2), "2"); // eth0-d0-eth0 (and mgmt m0)
    ck_assert_text_eq(cost_of(1, 3), "2"); // eth1-d1-eth1
    ck_assert_text_eq(cost_of(0, 4), "4"); // data d0/d1, mgmt m0/m1
    // Rank 0's nearest data NIC is eth0 (10.10.1.0/24): routed to n4 (6);
    // mgmt gives 4.  Rank 1's nearest is eth1, on n4's switch and subnet: 2.
    ck_assert_text_eq(cost_of(0, 6), "4");
    ck_assert_text_eq(cost_of(1, 6), "2");
    ck_assert_text_eq(cost_of(6, 1), "2");
    ck_assert_text_eq(cost_of(7, 7), "0");
    ck_assert_text_eq(cost_of(0, 8), "error -3: rank 8 is not in job \"meridian\" (8 processes)");
    ck_assert_no_messages();
}
END_TEST

START_TEST(no_physical_view)
{
    place_two_planes();
    ck_assert_text_eq(coords_of(0, "data", MERIDIAN_COORD_PHYSICAL_VIEW),
                      "error -6: plane \"data\" has no coordinates in view physical (coord "
                      "component \"tcp\" gives: logical)");
    ck_assert_text_eq(coords_of(0, "", MERIDIAN_COORD_PHYSICAL_VIEW),
                      "error -6: no plane of rank 0 (node n1) has coordinates in view physical");
    ck_assert_text_eq(shape_of("mgmt", MERIDIAN_COORD_PHYSICAL_VIEW),
                      "error -6: plane \"mgmt\" has no coordinates in view physical (coord "
                      "component \"tcp\" gives: logical)");
}
END_TEST

// A NIC's coord= on a plane without a shape is used by nobody here (coord_tcp
// gives logical coordinates only): said once, with how to use it.
START_TEST(unused_nic_coord_is_said)
{
    start({{"coord", "tcp"}});
    const auto fabric = fabric_of(R"(plane data cidr=10.10.0.0/16
node a
node b
nic a eth0 plane=data address=10.10.0.1 coord=1,2
nic b eth0 plane=data address=10.10.0.2 coord=3,4
)");
    ck_assert(meridian::coord::set_context(fabric, nullptr).ok());
    ck_assert_messages(WARNING_MSG(
        "coord: plane \"data\" has no shape=, and component \"tcp\" placed it without a "
        "physical view: the coord= of NIC a:eth0 (and of 1 more) is not used (give the plane a "
        "shape=, or select a coord component that gives it one)"));
}
END_TEST

START_TEST(readme_example)
{
    // components/coord_tcp/README.md's worked example, number for number.
    start({{"coord", "tcp"}});
    const auto fabric = fabric_of(R"(plane data cidr=10.10.0.0/16
subnet 10.10.1.0/24 plane=data
subnet 10.10.2.0/24 plane=data
switch sw0 plane=data
switch sw1 plane=data
node n1
node n2
node n3
nic n1 eth0 plane=data address=10.10.1.1 switch=sw0
nic n1 eth1 plane=data address=10.10.2.1 switch=sw1
nic n2 eth0 plane=data address=10.10.1.2 switch=sw0
nic n3 eth0 plane=data address=10.10.1.3 switch=sw1
)");
    place(fabric, job_of(*fabric, "n1:1,n2:1,n3:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(coords_of(0), "data:logical:(0,0,0) data:logical:(1,1,1)");
    ck_assert_text_eq(coords_of(1), "data:logical:(0,0,0)");
    ck_assert_text_eq(coords_of(2), "data:logical:(0,1,0)");
    ck_assert_text_eq(shape_of("data"), "2x2x2");
    ck_assert_uint_eq(nic_hops("n1:eth0", "n1:eth1"), 0);
    ck_assert_uint_eq(nic_hops("n1:eth0", "n2:eth0"), 2);
    ck_assert_uint_eq(nic_hops("n2:eth0", "n3:eth0"), 4);
    ck_assert_uint_eq(nic_hops("n1:eth1", "n3:eth0"), 6);
}
END_TEST

START_TEST(plane_without_addresses_or_switches)
{
    start({{"coord", "tcp"}});
    const auto fabric = fabric_of(R"(plane bare
node a
node b
nic a e0 plane=bare
nic b e0 plane=bare
)");
    place(fabric, job_of(*fabric, "a:1,b:1", meridian::fabric::Binding::none));
    // No switch and no subnet known: y and z are the "unknown" slots, which
    // here are slot 0 of dimensions of size 1.
    ck_assert_text_eq(shape_of("bare"), "1x1x1");
    ck_assert_text_eq(coords_of(0), "bare:logical:(0,0,0)");
    ck_assert_text_eq(cost_of(0, 1), "4");
}
END_TEST

// Each host of an in-job fabric describes its own lo, all on one plane
// 127.0.0.0/8: it joins no two hosts, so the cost is the routed data
// plane's 6 hops, not the 4 of "one subnet" on loopback; with only
// loopback in common two hosts share no plane.
START_TEST(loopback_joins_no_hosts)
{
    start({{"coord", "tcp"}});
    const auto fabric = fabric_of(R"(plane data cidr=10.10.0.0/16
subnet 10.10.1.0/24 plane=data
subnet 10.10.2.0/24 plane=data
plane 127.0.0.0/8 cidr=127.0.0.0/8
node a
node b
node c
nic a eth0 plane=data address=10.10.1.1
nic a lo plane=127.0.0.0/8 address=127.0.0.1
nic b eth0 plane=data address=10.10.2.1
nic b lo plane=127.0.0.0/8 address=127.0.0.1
nic c lo plane=127.0.0.0/8 address=127.0.0.1
)");
    place(fabric, job_of(*fabric, "a:1,b:1,c:1", meridian::fabric::Binding::none));
    ck_assert_text_eq(cost_of(0, 1), "6");
    ck_assert_text_eq(cost_of(0, 2), "error -4: ranks 0 (node a) and 2 (node c) share no plane");
}
END_TEST

START_TEST(priority_parameter)
{
    start({{"coord_tcp_priority", "7"}});
    // Set for a component that is there: it loads, and takes the value,
    // when coord opens (here, registered in full), not at meridian_init.
    ck_assert_text_eq(meridian_test::value_of("coord_tcp_priority"), "<unregistered>");
    ck_assert_int_eq(meridian_mca_base_framework_register(&meridian_coord_base_framework),
                     MERIDIAN_SUCCESS);
    ck_assert_text_eq(meridian_test::value_of("coord_tcp_priority"), "7");
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("coord_tcp");
    TCase *seed = make_tcase("seed001");
    tcase_add_test(seed, xyz_per_nic);
    tcase_add_test(seed, shapes_count_nics_switches_subnets);
    tcase_add_test(seed, hops_per_case);
    tcase_add_test(seed, process_cost_is_cheapest_plane_nearest_nic);
    tcase_add_test(seed, no_physical_view);
    tcase_add_test(seed, unused_nic_coord_is_said);
    tcase_add_test(seed, readme_example);
    tcase_add_test(seed, plane_without_addresses_or_switches);
    tcase_add_test(seed, loopback_joins_no_hosts);
    tcase_add_test(seed, priority_parameter);
    suite_add_tcase(suite, seed);
    return meridian_test::run_suite(suite);
}

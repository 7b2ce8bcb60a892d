/* SPDX-License-Identifier: BSD-3-Clause */
/* The fabric both pnet tests run on (pnet_test.cc, check_pnet_c_api.c):
 * two planes as seed 002 draws them, Ethernet (tcp) and an OPA network.
 * node02 has 6 tcp ports; node03 has none of its own
 * (pnet_tcp_static_ports) and a NIC of unknown speed. */
#ifndef MERIDIAN_TEST_PNET_LAB_FABRIC_H
#define MERIDIAN_TEST_PNET_LAB_FABRIC_H

static const char *const lab_fabric =
    "fabric lab\n"
    "plane 10.10.0.0/16 cidr=10.10.0.0/16 qos=4\n"
    "plane opa type=opa\n"
    "node node01 packages=2 cores=4 ports=tcp:10.10.0.0/16:32000-32099;udp:40000-40009\n"
    "node node02 packages=2 cores=4 ports=tcp:10.10.0.0/16:32000-32005\n"
    "node node03 packages=1 cores=2\n"
    "nic node01 eth0 plane=10.10.0.0/16 address=10.10.1.1 speed=10G package=0\n"
    "nic node01 hfi0 plane=opa package=1\n"
    "nic node02 eth0 plane=10.10.0.0/16 address=10.10.1.2 speed=10G package=1\n"
    "nic node02 hfi0 plane=opa\n"
    "nic node03 eth0 plane=10.10.0.0/16 address=10.10.1.3\n";

#endif

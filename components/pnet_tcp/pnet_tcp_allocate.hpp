// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's allocation: static ports per process from pools kept per fabric
// node and protocol, the NIC each process's ports are on, QoS and bandwidth
// checks (README.md states the rules).
#ifndef MERIDIAN_COMPONENTS_PNET_TCP_ALLOCATE_HPP
#define MERIDIAN_COMPONENTS_PNET_TCP_ALLOCATE_HPP

#include <string>
#include <string_view>
#include <vector>

#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/class/port_ranges.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet_tcp
{

// The component's name, which the base writes into the grants it serves.
inline constexpr std::string_view component_name = "tcp";

// pnet_tcp_component.cc: the parameters' values, and where a parameter was
// set for messages ("pnet_tcp_static_ports from environment variable ...").
const char *static_ports_text();
const char *fabric_file_path();
std::string param_where(const std::string &full_name);
// pnet_tcp_static_ports parsed (once per open; the parameter cannot change
// while the framework is open).  Errors name the parameter and its source.
Result<std::vector<fabric::PortPoolSpec>> static_pools();

// The module calls; each reports its errors and returns a status code.
int allocate(pnet::Job &job);
int setup_local_network(pnet::Job &job, std::string_view node);
int deregister(pnet::Job &job);
// Forget every pool (the component closes).
void forget_pools();

} // namespace meridian::pnet_tcp

#endif

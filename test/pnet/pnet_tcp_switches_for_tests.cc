// SPDX-License-Identifier: BSD-3-Clause
// pnet_tcp's switch map, compiled into its test from the component's source:
// the parser and the look-ups without the framework.
#include "components/pnet_tcp/pnet_tcp_switches.cc"

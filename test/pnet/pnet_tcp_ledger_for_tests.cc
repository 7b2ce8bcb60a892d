// SPDX-License-Identifier: BSD-3-Clause
// pnet_tcp's port ledger, compiled into the tests from the component's
// source: its text, rules and file are tested without the framework.
#include "components/pnet_tcp/pnet_tcp_ledger.cc"

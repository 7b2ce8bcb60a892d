// SPDX-License-Identifier: BSD-3-Clause
// pnet_ucx's rules and inventory text, compiled into the tests from the
// component's sources: they are tested without the framework in the way.
#include "components/pnet_ucx/pnet_ucx_devices.cc"

// SPDX-License-Identifier: BSD-3-Clause
// The ofi transport's parameters, as register_params resolved them (the
// component's storage; read when the transport starts).
#ifndef MERIDIAN_MSG_OFI_PARAMS_HPP
#define MERIDIAN_MSG_OFI_PARAMS_HPP

#include <cstddef>
#include <string>

namespace meridian::msg_ofi
{

struct Params {
    std::string provider = "auto";   // msg_ofi_provider
    std::size_t rxm_eager_limit = 0; // msg_ofi_rxm_eager_limit: ofi_rxm's buffer size
    int linger_ms = 10000;           // msg_ofi_linger
};

// A snapshot of the current values (the component's storage).
Params current_params();

// Whether libfabric's choice is tcp (tcp;ofi_rxm, the tcp or sockets
// provider alone): Meridian's own tcp transport carries those bytes better,
// so ofi offers less then.
bool tcp_provider(const std::string &provider);

} // namespace meridian::msg_ofi

#endif

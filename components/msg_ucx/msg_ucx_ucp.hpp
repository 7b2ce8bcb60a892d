// SPDX-License-Identifier: BSD-3-Clause
// UCX's UCP, loaded when the transport first needs it.
//
// The component's DSO is not linked with UCX: loading libucp runs the
// constructors of UCX's libraries (module loading, configuration parsing,
// and libucm's memory hooks, which patch the process's malloc and mmap), in
// every process that loads the component, though most never carry a byte
// over UCX (a job on one node, a tool listing parameters).  So the UCP
// calls the transport makes go through this table, resolved by dlopen the
// first time; ucp_init, ucp_request_is_completed and the like are inline in
// UCX's headers and need nothing.  Once opened UCX stays for the life of
// the process: it is not made to be unloaded.
#ifndef MERIDIAN_MSG_UCX_UCP_HPP
#define MERIDIAN_MSG_UCX_UCP_HPP

#include <ucp/api/ucp.h>

#include <string>

#include <meridian/opal/util/result.hpp>

namespace meridian::msg_ucx
{

// X(name): every UCP (and UCS) function the transport calls.
#define MERIDIAN_MSG_UCX_CALLS(X)                                                                  \
    X(ucp_config_read)                                                                             \
    X(ucp_config_release)                                                                          \
    X(ucp_init_version)                                                                            \
    X(ucp_cleanup)                                                                                 \
    X(ucp_context_query)                                                                           \
    X(ucp_worker_create)                                                                           \
    X(ucp_worker_destroy)                                                                          \
    X(ucp_worker_get_address)                                                                      \
    X(ucp_worker_release_address)                                                                  \
    X(ucp_worker_progress)                                                                         \
    X(ucp_ep_create)                                                                               \
    X(ucp_ep_close_nbx)                                                                            \
    X(ucp_ep_print_info)                                                                           \
    X(ucp_tag_send_nbx)                                                                            \
    X(ucp_tag_recv_nbx)                                                                            \
    X(ucp_tag_probe_nb)                                                                            \
    X(ucp_request_check_status)                                                                    \
    X(ucp_request_cancel)                                                                          \
    X(ucp_request_free)                                                                            \
    X(ucs_status_string)

struct Ucp {
#define MERIDIAN_MSG_UCX_SLOT(name) decltype(&::name) name = nullptr;
    MERIDIAN_MSG_UCX_CALLS(MERIDIAN_MSG_UCX_SLOT)
#undef MERIDIAN_MSG_UCX_SLOT
};

// The table, libucp opened if not yet done; the error names the library and
// why (not installed, a call missing: another UCX than the one built for).
Result<const Ucp *> ucp();

// ucs_status_string through the table when it is open, else the number.
std::string status_text(ucs_status_t status);

} // namespace meridian::msg_ucx

#endif

// SPDX-License-Identifier: BSD-3-Clause
// libucp, opened at first use (msg_ucx_ucp.hpp says why).
#include "config.h"

#include "components/msg_ucx/msg_ucx_ucp.hpp"

#include <dlfcn.h>

namespace meridian::msg_ucx
{

namespace
{

Result<const Ucp *> open_ucp()
{
    // RTLD_NODELETE: UCX stays when the component's DSO is closed (its
    // constructors and hooks are not made to run twice).
    void *handle = ::dlopen(MERIDIAN_UCP_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) {
        const char *why = ::dlerror();
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          std::string("msg ucx: cannot load UCX (") + MERIDIAN_UCP_SONAME +
                              "), which this job needs (the ucx transport carries some of its "
                              "peers): " +
                              (why != nullptr ? why : "unknown error") +
                              " (Debian: apt-get install libucx0)");
    }
    static Ucp table;
    std::string missing;
    // dlsym on libucp's handle finds libucs's ucs_status_string too (a
    // dependency of libucp).
#define MERIDIAN_MSG_UCX_BIND(name)                                                                \
    if (void *symbol = ::dlsym(handle, #name); symbol != nullptr) {                                \
        table.name = reinterpret_cast<decltype(table.name)>(symbol);                               \
    } else {                                                                                       \
        missing += std::string(missing.empty() ? "" : ", ") + #name;                               \
    }
    MERIDIAN_MSG_UCX_CALLS(MERIDIAN_MSG_UCX_BIND)
#undef MERIDIAN_MSG_UCX_BIND
    if (!missing.empty()) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          std::string("msg ucx: ") + MERIDIAN_UCP_SONAME + " lacks " + missing +
                              " (another UCX than the one Meridian was built for, " +
                              std::to_string(UCP_API_MAJOR) + "." + std::to_string(UCP_API_MINOR) +
                              "?)");
    }
    return static_cast<const Ucp *>(&table);
}

} // namespace

Result<const Ucp *> ucp()
{
    static const Result<const Ucp *> loaded = open_ucp();
    return loaded;
}

std::string status_text(ucs_status_t status)
{
    if (auto table = ucp(); table && (*table)->ucs_status_string != nullptr) {
        return (*table)->ucs_status_string(status);
    }
    return "UCX status " + std::to_string(static_cast<int>(status));
}

} // namespace meridian::msg_ucx

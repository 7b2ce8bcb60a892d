// SPDX-License-Identifier: BSD-3-Clause
// msg/tcp: processes reach each other through Meridian's own TCP sockets,
// one connection per pair, authenticated by the job's keys.  See README.md.
//
// This file: the parameters, the component's hooks and the C vtable over
// the Transport class.
#include <memory>
#include <string>
#include <vector>

#include "components/msg_tcp/msg_tcp_transport.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

namespace tcp = meridian::msg_tcp;
using tcp::Transport;

// Parameter storage: the initial values are the defaults; Meridian writes
// the value resolved from every source back here.
int tcp_priority = 20;
const char *const *tcp_if_include = nullptr; // owned by Meridian once registered
int tcp_handshake_timeout = 10000;           // ms
unsigned tcp_pending_max = 64;               // connections
int tcp_linger = 10000;                      // ms
int old_tcp = 0;                             // msg_ofi_tcp: 0 auto, 1 off

const mca_base_param_enum_value_t auto_off[] = {{0, "auto"}, {1, "off"}, {0, nullptr}};

struct ParamSpec {
    const char *name;
    const char *old_name; // its name under msg_ofi_, or nullptr
    const char *help;
    mca_base_param_type_t type;
    mca_base_param_info_level_t level;
    void *storage;
    double min, max;
};
const ParamSpec param_specs[] = {
    {"priority", nullptr,
     "Priority of the tcp transport for the processes of other nodes (and of this node when "
     "sm is left out); the highest priority among the transports that reach a peer carries "
     "its messages",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_ALL, &tcp_priority, 0, 100},
    {"if_include", nullptr,
     "Interfaces to listen on, by name (eth1) or by the network their address is in "
     "(10.1.0.0/16), first match first; empty: the endpoint pnet assigned, else the first "
     "interface that is up and not loopback (loopback when the whole job is on one node)",
     MCA_BASE_PARAM_TYPE_LIST, MCA_BASE_INFO_USER_ALL, &tcp_if_include, 0, 0},
    {"handshake_timeout", "tcp_handshake_timeout",
     "Milliseconds a connection to the listener has, from its accept, to prove it comes "
     "from a process of this job; then it is closed (a process of the job whose connection "
     "was closed connects again)",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_DETAIL, &tcp_handshake_timeout, 10, 3600000},
    {"pending_max", "tcp_pending_max",
     "Connections to the listener that have not yet proved they come from a process of this "
     "job, at most: past it the oldest is closed to make room",
     MCA_BASE_PARAM_TYPE_UNSIGNED, MCA_BASE_INFO_TUNER_DETAIL, &tcp_pending_max, 1, 65536},
    {"linger", nullptr,
     "Milliseconds the end of the session waits for what was sent to be delivered: each "
     "connection is closed once the peer's end closes too, or after this long",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_DETAIL, &tcp_linger, 0, 3600000},
};

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("msg_tcp register_params", [&]() -> int {
        for (const ParamSpec &spec : param_specs) {
            const int index = meridian_mca_base_component_param_register(
                self, spec.name, spec.help, spec.type, nullptr, spec.level,
                MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, spec.storage);
            if (index < 0) {
                return index;
            }
            if (spec.max > spec.min) {
                if (const int rc = meridian_mca_base_param_set_bounds(index, spec.min, spec.max);
                    rc < 0) {
                    return rc;
                }
            }
            if (spec.old_name != nullptr) {
                if (const int rc = meridian_mca_base_param_register_synonym(
                        index, "msg", "ofi", spec.old_name, MCA_BASE_PARAM_FLAG_DEPRECATED);
                    rc < 0) {
                    return rc;
                }
            }
        }
        // msg_ofi_tcp=off sent these messages through libfabric; now the
        // component is left out.
        const int index = meridian_mca_base_param_register(
            "msg", "ofi", "tcp",
            "Deprecated: leave the tcp transport out with --mca msg ^tcp instead (off: as that; "
            "auto: nothing)",
            MCA_BASE_PARAM_TYPE_ENUM, auto_off, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &old_tcp);
        return index < 0 ? index : MERIDIAN_SUCCESS;
    });
}

std::unique_ptr<Transport> &instance()
{
    static meridian::util::NoDestructor<std::unique_ptr<Transport>> transport;
    return transport.get();
}

Transport &transport()
{
    return *instance();
}

tcp::Params current_params()
{
    tcp::Params params;
    for (const char *const *item = tcp_if_include; item != nullptr && *item != nullptr; ++item) {
        if (**item != '\0') {
            params.if_include.emplace_back(*item);
        }
    }
    params.handshake_timeout_ms = tcp_handshake_timeout;
    params.pending_max = tcp_pending_max;
    params.linger_ms = tcp_linger;
    return params;
}

// The vtable: each call is a C boundary (its name in reports is
// "msg_tcp CALL"); what each does is msg.h's contract.
int offer(mca_msg_transport_t *, const mca_msg_job_t *, int offers[3])
{
    offers[MCA_MSG_PEER_SELF] = 0;
    offers[MCA_MSG_PEER_NODE] = tcp_priority;
    offers[MCA_MSG_PEER_REMOTE] = tcp_priority;
    return MERIDIAN_SUCCESS;
}

int init(mca_msg_transport_t *, const mca_msg_job_t *job, const unsigned char *peers)
{
    return meridian::c_boundary("msg_tcp init", [&] {
        instance() = std::make_unique<Transport>(current_params());
        return transport().init(*job, peers);
    });
}

int connect(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_tcp connect", [] { return transport().connect(); });
}

int ready(mca_msg_transport_t *)
{
    return MERIDIAN_SUCCESS;
}

void finalize(mca_msg_transport_t *)
{
    meridian::c_boundary_void("msg_tcp finalize", [] {
        if (instance()) {
            transport().finalize();
        }
    });
    meridian::c_boundary_void("msg_tcp finalize", [] { instance().reset(); });
}

void send(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_tcp send", [&] { transport().send(*channel); });
}

void posted(mca_msg_transport_t *, mca_msg_channel_t *recv)
{
    meridian::c_boundary_void("msg_tcp posted", [&] { transport().posted(*recv); });
}

void cancel(mca_msg_transport_t *, mca_msg_channel_t *channel, int)
{
    meridian::c_boundary_void("msg_tcp cancel", [&] { transport().cancel(*channel); });
}

// progress counts events (>= 0): a failure handled none.
int progress(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_tcp progress", meridian::CFailure<int>{0, 0},
                                [] { return transport().progress(); });
}

const char *path_name(mca_msg_transport_t *, int)
{
    return "tcp";
}

mca_msg_transport_t module = {
    .flags = 0,
    .offer = offer,
    .init = init,
    .connect = connect,
    .ready = ready,
    .finalize = finalize,
    .prepare = nullptr,
    .cleanup = nullptr,
    .send = send,
    .recv = nullptr,
    .take = nullptr,
    .drop = nullptr,
    .posted = posted,
    .cancel = cancel,
    .peer_died = nullptr,
    .progress = progress,
    .path_name = path_name,
    .start_direct = nullptr,
};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    return meridian::c_boundary("msg_tcp query", [&]() -> int {
        if (old_tcp != 0) {
            meridian::report_warning("msg_ofi_tcp=off is deprecated: the tcp transport is left "
                                     "out; say --mca msg ^tcp instead");
            return MERIDIAN_ERR_NOT_AVAILABLE;
        }
        *selected = &module;
        *priority = tcp_priority;
        return MERIDIAN_SUCCESS;
    });
}

int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("msg_tcp close", [&]() -> int {
        // The DSO may be unloaded next: nothing of the transport may outlive it.
        instance().reset();
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_msg_base_component_t mca_msg_tcp_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "msg",
            .framework_version = MCA_MSG_BASE_VERSION,
            .component_name = "tcp",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr,
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// msg/ucx: processes reach each other through UCX's UCP tag API, over the
// devices and protocols UCX chooses (InfiniBand and RoCE verbs, shared
// memory, TCP), for clusters where UCX is the network stack users run.  UCX
// is loaded only when the job has peers the transport carries.  See
// README.md.
//
// This file: the parameters, the component's hooks and the C vtable over
// the Transport class.
#include <sys/types.h>

#include <dirent.h>

#include <string>
#include <utility>

#include "components/msg_ucx/msg_ucx_transport.hpp"
#include "mca/msg/base/msg_util.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

namespace ucx = meridian::msg_ucx;
using ucx::Transport;

// Parameter storage: the initial values are the defaults; Meridian writes
// the value resolved from every source back here.
int ucx_priority = 50;
int ucx_tcp_priority = 10;
int ucx_local_priority = 5;
int ucx_linger = 10000; // ms

struct ParamSpec {
    const char *name;
    const char *help;
    mca_base_param_type_t type;
    mca_base_param_info_level_t level;
    void *storage;
    double min, max;
};
const ParamSpec param_specs[] = {
    {"priority",
     "Priority of the ucx transport for the processes of other nodes where this host has an "
     "RDMA device (InfiniBand or RoCE: /sys/class/infiniband lists one); above ofi's and "
     "tcp's, so UCX carries them there",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_ALL, &ucx_priority, 0, 100},
    {"tcp_priority",
     "Priority of the ucx transport for the processes of other nodes where this host has no "
     "RDMA device (UCX would use TCP): below the tcp transport's by default",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_ALL, &ucx_tcp_priority, 0, 100},
    {"local_priority",
     "Priority of the ucx transport for this process and the others of its node (UCX's "
     "shared memory): below self's and sm's by default, so it carries them only when those "
     "are left out (--mca msg self,ucx)",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_ALL, &ucx_local_priority, 0, 100},
    {"linger",
     "Milliseconds the end of the session waits for UCX to deliver what was sent (each "
     "endpoint is flushed and closed); past it the rest is closed by force",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_DETAIL, &ucx_linger, 0, 3600000},
};

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("msg_ucx register_params", [&]() -> int {
        for (const ParamSpec &spec : param_specs) {
            const int index = meridian_mca_base_component_param_register(
                self, spec.name, spec.help, spec.type, nullptr, spec.level,
                MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, spec.storage);
            if (index < 0) {
                return index;
            }
            if (const int rc = meridian_mca_base_param_set_bounds(index, spec.min, spec.max);
                rc < 0) {
                return rc;
            }
        }
        return MERIDIAN_SUCCESS;
    });
}

// The transport between init and finalize (or close): a plain pointer, so
// the calls of every transfer read it without a guard.
Transport *current = nullptr;

Transport &transport()
{
    return *current;
}

void destroy_transport()
{
    delete std::exchange(current, nullptr);
}

// Whether the host has an RDMA device UCX would use: a directory listing,
// no library loaded (the offer must be cheap).
bool rdma_device()
{
    DIR *dir = ::opendir("/sys/class/infiniband");
    if (dir == nullptr) {
        return false;
    }
    bool found = false;
    while (const dirent *entry = ::readdir(dir)) {
        if (entry->d_name[0] != '.') {
            found = true;
            break;
        }
    }
    ::closedir(dir);
    return found;
}

// The vtable: each call is a C boundary (its name in reports is
// "msg_ucx CALL"); what each does is msg.h's contract.
int offer(mca_msg_transport_t *, const mca_msg_job_t *, int offers[3])
{
    return meridian::c_boundary("msg_ucx offer", [&]() -> int {
        const bool rdma = rdma_device();
        offers[MCA_MSG_PEER_SELF] = ucx_local_priority;
        offers[MCA_MSG_PEER_NODE] = ucx_local_priority;
        offers[MCA_MSG_PEER_REMOTE] = rdma ? ucx_priority : ucx_tcp_priority;
        VERBOSE(DEBUG, "msg ucx: %s RDMA device here: priority %d for other nodes",
                rdma ? "an" : "no", offers[MCA_MSG_PEER_REMOTE]);
        return MERIDIAN_SUCCESS;
    });
}

int init(mca_msg_transport_t *, const mca_msg_job_t *job, const unsigned char *peers)
{
    return meridian::c_boundary("msg_ucx init", [&] {
        ucx::Params params;
        params.linger_ms = ucx_linger;
        destroy_transport();
        current = new Transport(params);
        return transport().init(*job, peers);
    });
}

int connect(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_ucx connect", [] { return transport().connect(); });
}

int ready(mca_msg_transport_t *)
{
    return MERIDIAN_SUCCESS;
}

void finalize(mca_msg_transport_t *)
{
    meridian::c_boundary_void("msg_ucx finalize", [] {
        if (current != nullptr) {
            transport().finalize();
        }
    });
    meridian::c_boundary_void("msg_ucx finalize", [] { destroy_transport(); });
}

int prepare(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    return meridian::c_boundary("msg_ucx prepare", [&] { return transport().prepare(*channel); });
}

void cleanup(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_ucx cleanup", [&] { transport().cleanup(*channel); });
}

void start(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_ucx start", [&] { transport().start(*channel); });
}

void cancel(mca_msg_transport_t *, mca_msg_channel_t *channel, int peer_alive)
{
    meridian::c_boundary_void("msg_ucx cancel",
                              [&] { transport().cancel(*channel, peer_alive != 0); });
}

// progress counts events (>= 0): a failure handled none.
int progress(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_ucx progress", meridian::CFailure<int>{0, 0},
                                [] { return transport().progress(); });
}

const char *path_name(mca_msg_transport_t *, int peer)
{
    return current != nullptr ? transport().path_name(peer) : "ucx";
}

mca_msg_transport_t module = {
    .flags = MCA_MSG_TRANSPORT_MATCHES,
    .offer = offer,
    .init = init,
    .connect = connect,
    .ready = ready,
    .finalize = finalize,
    .prepare = prepare,
    .cleanup = cleanup,
    .send = start,
    .recv = start,
    .take = nullptr,
    .drop = nullptr,
    .posted = nullptr,
    .cancel = cancel,
    .peer_died = nullptr,
    .progress = progress,
    .path_name = path_name,
    .start_direct = meridian::msg_ucx::Transport::start_direct,
};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    *selected = &module;
    *priority = ucx_priority;
    return MERIDIAN_SUCCESS;
}

int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("msg_ucx close", [&]() -> int {
        // The DSO may be unloaded next: nothing of the transport may outlive it.
        destroy_transport();
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_msg_base_component_t mca_msg_ucx_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "msg",
            .framework_version = MCA_MSG_BASE_VERSION,
            .component_name = "ucx",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr,
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

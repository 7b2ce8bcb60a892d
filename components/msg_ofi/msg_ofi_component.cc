// SPDX-License-Identifier: BSD-3-Clause
// msg/ofi: processes reach each other through a libfabric RDM endpoint with
// tagged messages, for fabrics Meridian has no transport of its own for
// (verbs, efa, psm3, cxi, ...).  libfabric is opened only when the job has
// peers the transport could carry.  See README.md.
//
// This file: the parameters, the component's hooks and the C vtable over
// the Transport class.
#include <memory>
#include <string>

#include "components/msg_ofi/msg_ofi_fabric.hpp"
#include "components/msg_ofi/msg_ofi_params.hpp"
#include "components/msg_ofi/msg_ofi_transport.hpp"
#include "mca/msg/base/msg_util.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

namespace ofi = meridian::msg_ofi;
using ofi::Transport;

// Parameter storage: the initial values are the defaults; Meridian writes
// the value resolved from every source back here.
const char *ofi_provider = "auto"; // owned by Meridian once registered
int ofi_priority = 40;
std::size_t ofi_rxm_eager_limit = 128 * 1024;
int ofi_linger = 10000; // ms

// What libfabric's choice offers less than Meridian's own tcp transport
// (msg_tcp_priority's default is 20).
constexpr int tcp_provider_priority = 10;

struct ParamSpec {
    const char *name;
    const char *help;
    mca_base_param_type_t type;
    mca_base_param_info_level_t level;
    void *storage;
    double min, max;
};
const ParamSpec param_specs[] = {
    {"provider",
     "libfabric provider: auto (the first provider fi_getinfo offers with reliable tagged "
     "messages, other than shm; it carries the processes of other nodes, and where it is "
     "libfabric's tcp the tcp transport does it instead, at a lower priority) or a provider "
     "name as libfabric spells it (verbs;ofi_rxm, tcp;ofi_rxm, shm, ...: it then offers "
     "every peer, this node's too, at msg_ofi_priority).  FI_PROVIDER in the environment "
     "filters libfabric's offer first",
     MCA_BASE_PARAM_TYPE_STRING, MCA_BASE_INFO_USER_ALL, &ofi_provider, 0, 0},
    {"priority",
     "Priority of the ofi transport for the peers it reaches (10 instead where the provider "
     "libfabric chose by itself is its tcp: Meridian's tcp transport is preferred there)",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_ALL, &ofi_priority, 0, 100},
    {"rxm_eager_limit",
     "Largest message (bytes) libfabric's ofi_rxm sends at once through its receive buffers "
     "(FI_OFI_RXM_BUFFER_SIZE); larger ones are cut into pieces or fetched by the receiver.  "
     "The receive queue gets 2 MiB of them, as with libfabric's defaults (128 of 16 KiB): "
     "the larger the buffers, the fewer (FI_OFI_RXM_MSG_RX_SIZE, at least 8).  The "
     "environment's variables win",
     MCA_BASE_PARAM_TYPE_SIZE, MCA_BASE_INFO_TUNER_DETAIL, &ofi_rxm_eager_limit, 1024, 16 << 20},
    {"linger",
     "Milliseconds the end of the session waits for its peers to take this process's end (sent "
     "after its messages, delivery-complete where the provider offers it, to each peer it sent "
     "to): a peer that ended first answers at once, one that does not progress holds it this long",
     MCA_BASE_PARAM_TYPE_INT, MCA_BASE_INFO_TUNER_DETAIL, &ofi_linger, 0, 3600000},
};

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("msg_ofi register_params", [&]() -> int {
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
        }
        return MERIDIAN_SUCCESS;
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

bool provider_named()
{
    const std::string provider = ofi::current_params().provider;
    return provider != "auto";
}

// The vtable: each call is a C boundary (its name in reports is
// "msg_ofi CALL"); what each does is msg.h's contract.
int offer(mca_msg_transport_t *, const mca_msg_job_t *job, int offers[3])
{
    return meridian::c_boundary("msg_ofi offer", [&]() -> int {
        offers[MCA_MSG_PEER_SELF] = offers[MCA_MSG_PEER_NODE] = offers[MCA_MSG_PEER_REMOTE] = 0;
        const ofi::Params params = ofi::current_params();
        const bool named = provider_named();
        if (job->size == 1 || (!named && job->num_nodes == 1)) {
            // Nobody it would carry: libfabric stays closed.  A provider
            // named that does not exist is a mistake here as on many nodes.
            if (named) {
                if (auto offered = ofi::Endpoint::check_provider(params.provider); !offered) {
                    meridian::report_error(offered.error().message);
                    return offered.error().status;
                }
            }
            return MERIDIAN_SUCCESS;
        }
        auto choice =
            ofi::Endpoint::choice(params.provider, job->num_nodes == 1, ofi::pnet_endpoint());
        if (!choice) {
            if (named) {
                meridian::report_error(choice.error().message);
                return choice.error().status;
            }
            VERBOSE(INFO, "msg ofi: offers nothing: %s", choice.error().message.c_str());
            return MERIDIAN_SUCCESS;
        }
        const int priority = !named && ofi::tcp_provider(choice->provider)
                                 ? std::min(ofi_priority, tcp_provider_priority)
                                 : ofi_priority;
        offers[MCA_MSG_PEER_REMOTE] = priority;
        offers[MCA_MSG_PEER_NODE] = named ? priority : 0;
        VERBOSE(DEBUG, "msg ofi: provider %s, priority %d", choice->provider.c_str(), priority);
        return MERIDIAN_SUCCESS;
    });
}

int init(mca_msg_transport_t *, const mca_msg_job_t *job, const unsigned char *peers)
{
    return meridian::c_boundary("msg_ofi init", [&] {
        instance() = std::make_unique<Transport>(ofi::current_params());
        return transport().init(*job, peers);
    });
}

int connect(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_ofi connect", [] { return transport().connect(); });
}

int ready(mca_msg_transport_t *)
{
    return MERIDIAN_SUCCESS;
}

void finalize(mca_msg_transport_t *)
{
    meridian::c_boundary_void("msg_ofi finalize", [] {
        if (instance()) {
            transport().finalize();
        }
    });
    meridian::c_boundary_void("msg_ofi finalize", [] { instance().reset(); });
}

int prepare(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    return meridian::c_boundary("msg_ofi prepare", [&] { return transport().prepare(*channel); });
}

void cleanup(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_ofi cleanup", [&] { transport().cleanup(*channel); });
}

void start(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_ofi start", [&] { transport().start(*channel); });
}

void cancel(mca_msg_transport_t *, mca_msg_channel_t *channel, int)
{
    meridian::c_boundary_void("msg_ofi cancel", [&] { transport().cancel(*channel); });
}

// progress counts events (>= 0): a failure handled none.
int progress(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_ofi progress", meridian::CFailure<int>{0, 0},
                                [] { return transport().progress(); });
}

const char *path_name(mca_msg_transport_t *, int)
{
    return instance() ? transport().path_name() : "ofi";
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
    .start_direct = nullptr,
};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    *selected = &module;
    *priority = ofi_priority;
    return MERIDIAN_SUCCESS;
}

int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("msg_ofi close", [&]() -> int {
        // The DSO may be unloaded next: nothing of the transport may outlive it.
        instance().reset();
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

namespace meridian::msg_ofi
{

Params current_params()
{
    Params params;
    params.provider = ofi_provider != nullptr && *ofi_provider != '\0' ? ofi_provider : "auto";
    params.rxm_eager_limit = ofi_rxm_eager_limit;
    params.linger_ms = ofi_linger;
    return params;
}

} // namespace meridian::msg_ofi

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_msg_base_component_t mca_msg_ofi_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "msg",
            .framework_version = MCA_MSG_BASE_VERSION,
            .component_name = "ofi",
            .component_version = {2, 0, 0},
            .register_params = register_params,
            .open = nullptr,
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

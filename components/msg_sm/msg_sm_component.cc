// SPDX-License-Identifier: BSD-3-Clause
// msg/sm: processes of one node through Meridian's shared-memory rings, and
// CMA for large messages.  See README.md.
//
// This file: the parameters, the component's hooks and the C vtable over
// the Transport class.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "components/msg_sm/msg_sm_transport.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

namespace sm = meridian::msg_sm;
using sm::Transport;

// Parameter storage: the initial values are the defaults; Meridian writes
// the value resolved from every source back here.
int sm_priority = 80;
int sm_cma = 0; // 0 auto, 1 off
std::size_t sm_eager_limit = 8192;
std::size_t sm_cma_split = 32768;
std::size_t sm_cma_min_block = 2048;
unsigned sm_slots = 0; // automatic
std::size_t sm_slot_size = 4096;
int old_shm = 0; // msg_ofi_shm: 0 auto, 1 off

const mca_base_param_enum_value_t auto_off[] = {{0, "auto"}, {1, "off"}, {0, nullptr}};

struct ParamSpec {
    const char *name;
    const char *old_name; // its name under msg_ofi_, or nullptr
    const char *help;
    mca_base_param_type_t type;
    const mca_base_param_enum_value_t *values;
    mca_base_param_info_level_t level;
    void *storage;
    double min, max;
};
const ParamSpec param_specs[] = {
    {"priority", nullptr,
     "Priority of the sm transport for the processes of this node (the highest priority "
     "among the transports that reach a peer carries its messages)",
     MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_ALL, &sm_priority, 0, 100},
    {"cma", "cma",
     "Messages above msg_sm_eager_limit are copied once, from the sender's memory into the "
     "receiver's (process_vm_readv), when the kernel permits it (auto), or always go "
     "through the rings (off)",
     MCA_BASE_PARAM_TYPE_ENUM, auto_off, MCA_BASE_INFO_TUNER_DETAIL, &sm_cma, 0, 0},
    {"eager_limit", "eager_limit",
     "Largest message (bytes) copied through the rings; larger ones are copied once with CMA",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &sm_eager_limit, 0, 1 << 30},
    {"cma_split", "cma_split",
     "Messages through CMA at least this large (bytes) are copied by both processes at "
     "once: the receiver reads the first half, the sender writes the second (0: the "
     "receiver copies all)",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &sm_cma_split, 0, 1 << 30},
    {"cma_min_block", "cma_min_block",
     "A message above msg_sm_eager_limit moves with CMA only when the blocks of both the "
     "sender's and the receiver's memory average at least this many bytes: the kernel "
     "handles each block apart, so finely strided or indexed messages (a lattice face of "
     "72-byte sites) are copied through the rings instead, whatever their size",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_ALL, &sm_cma_min_block, 0, 1 << 30},
    {"slots", "shm_slots",
     "Slots in each ring (rounded up to a power of two); a process's segment holds one ring "
     "per process of its node.  0: 64, fewer (down to 8) when the node has so many "
     "processes that a segment would pass 4 MiB",
     MCA_BASE_PARAM_TYPE_UNSIGNED, nullptr, MCA_BASE_INFO_TUNER_ALL, &sm_slots, 0, 65536},
    {"slot_size", "shm_slot_size",
     "Bytes per ring slot, its 32-byte header included (rounded up to a multiple of 64): "
     "the fragment size of messages through the rings",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_ALL, &sm_slot_size, 128, 1 << 24},
};

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("msg_sm register_params", [&]() -> int {
        for (const ParamSpec &spec : param_specs) {
            const int index = meridian_mca_base_component_param_register(
                self, spec.name, spec.help, spec.type, spec.values, spec.level,
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
                // Its name when one component ("ofi") held every transport.
                if (const int rc = meridian_mca_base_param_register_synonym(
                        index, "msg", "ofi", spec.old_name, MCA_BASE_PARAM_FLAG_DEPRECATED);
                    rc < 0) {
                    return rc;
                }
            }
        }
        // msg_ofi_shm=off turned the rings off; now the component is left out.
        const int index = meridian_mca_base_param_register(
            "msg", "ofi", "shm",
            "Deprecated: leave the sm transport out with --mca msg ^sm instead (off: as that; "
            "auto: nothing)",
            MCA_BASE_PARAM_TYPE_ENUM, auto_off, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &old_shm);
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

std::size_t round_up_power_of_two(std::size_t n)
{
    std::size_t p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

sm::Params current_params()
{
    sm::Params params;
    params.cma = sm_cma == 0;
    params.eager_limit = sm_eager_limit;
    params.split_limit = sm_cma_split;
    params.cma_min_block = sm_cma_min_block;
    params.slots = sm_slots == 0 ? 0 : round_up_power_of_two(std::max(2U, sm_slots));
    params.slot_bytes = (sm_slot_size + 63) / 64 * 64;
    params.timeout_s = meridian_mca_msg_base_timeout();
    // The rings need these forms; a value changed to fit is said rather
    // than used in silence.
    if (sm_slots != 0 && params.slots != sm_slots) {
        meridian::report_warning("msg_sm_slots is " + std::to_string(sm_slots) +
                                 ", not a power of two of at least 2: each ring has " +
                                 std::to_string(params.slots) + " slots");
    }
    if (params.slot_bytes != sm_slot_size) {
        meridian::report_warning("msg_sm_slot_size is " + std::to_string(sm_slot_size) +
                                 ", not a multiple of 64: each slot has " +
                                 std::to_string(params.slot_bytes) + " bytes");
    }
    if (!params.cma) {
        // Without CMA every message goes through the rings.
        params.eager_limit = SIZE_MAX;
    }
    return params;
}

// The vtable: each call is a C boundary (its name in reports is
// "msg_sm CALL"); what each does is msg.h's contract.
int offer(mca_msg_transport_t *, const mca_msg_job_t *, int offers[3])
{
    offers[MCA_MSG_PEER_SELF] = 0;
    offers[MCA_MSG_PEER_NODE] = sm_priority;
    offers[MCA_MSG_PEER_REMOTE] = 0;
    return MERIDIAN_SUCCESS;
}

int init(mca_msg_transport_t *, const mca_msg_job_t *job, const unsigned char *peers)
{
    return meridian::c_boundary("msg_sm init", [&] {
        instance() = std::make_unique<Transport>(current_params());
        return transport().init(*job, peers);
    });
}

int connect(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_sm connect", [] { return transport().connect(); });
}

int ready(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_sm ready", [] { return transport().ready(); });
}

void finalize(mca_msg_transport_t *)
{
    meridian::c_boundary_void("msg_sm finalize", [] {
        if (instance()) {
            transport().finalize();
        }
    });
    meridian::c_boundary_void("msg_sm finalize", [] { instance().reset(); });
}

int prepare(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    return meridian::c_boundary("msg_sm prepare", [&] { return transport().prepare(*channel); });
}

void cleanup(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_sm cleanup", [&] { transport().cleanup(*channel); });
}

void send(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_sm send", [&] { transport().send(*channel); });
}

int take(mca_msg_transport_t *, mca_msg_channel_t *recv, void *message)
{
    return meridian::c_boundary("msg_sm take", [&] {
        return transport().take(*recv, std::unique_ptr<sm::Rndv>(static_cast<sm::Rndv *>(message)));
    });
}

void drop(mca_msg_transport_t *, int, void *message)
{
    meridian::c_boundary_void("msg_sm drop", [&] {
        std::unique_ptr<sm::Rndv> owned(static_cast<sm::Rndv *>(message));
        if (instance()) {
            transport().drop(std::move(owned));
        }
    });
}

void cancel(mca_msg_transport_t *, mca_msg_channel_t *channel, int peer_alive)
{
    meridian::c_boundary_void("msg_sm cancel",
                              [&] { transport().cancel(*channel, peer_alive != 0); });
}

void peer_died(mca_msg_transport_t *, int peer)
{
    meridian::c_boundary_void("msg_sm peer_died", [&] { transport().peer_died(peer); });
}

// progress counts events (>= 0): a failure handled none.
int progress(mca_msg_transport_t *)
{
    return meridian::c_boundary("msg_sm progress", meridian::CFailure<int>{0, 0},
                                [] { return transport().progress(); });
}

const char *path_name(mca_msg_transport_t *, int peer)
{
    return meridian::c_boundary("msg_sm path_name", meridian::CFailure<const char *>{"sm", "sm"},
                                [&] { return instance() ? transport().path_name(peer) : "sm"; });
}

mca_msg_transport_t module = {
    .flags = 0,
    .offer = offer,
    .init = init,
    .connect = connect,
    .ready = ready,
    .finalize = finalize,
    .prepare = prepare,
    .cleanup = cleanup,
    .send = send,
    .recv = nullptr,
    .take = take,
    .drop = drop,
    .posted = nullptr,
    .cancel = cancel,
    .peer_died = peer_died,
    .progress = progress,
    .path_name = path_name,
    .start_direct = nullptr,
};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    return meridian::c_boundary("msg_sm query", [&]() -> int {
        if (old_shm != 0) {
            meridian::report_warning("msg_ofi_shm=off is deprecated: the sm transport is left "
                                     "out; say --mca msg ^sm instead");
            return MERIDIAN_ERR_NOT_AVAILABLE;
        }
        *selected = &module;
        *priority = sm_priority;
        return MERIDIAN_SUCCESS;
    });
}

int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("msg_sm close", [&]() -> int {
        // The DSO may be unloaded next: nothing of the transport may outlive it.
        instance().reset();
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_msg_base_component_t mca_msg_sm_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "msg",
            .framework_version = MCA_MSG_BASE_VERSION,
            .component_name = "sm",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr,
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

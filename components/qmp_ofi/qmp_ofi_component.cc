// msg/ofi: the transport under the QMP layer.  Within a node, Meridian's own
// shared-memory rings (and CMA for large messages); between nodes -- or
// everywhere with msg_ofi_shm=off -- a libfabric RDM endpoint with tagged
// messages (tcp;ofi_rxm without a fast NIC).  See README.md.
//
// This file: the parameters, the component's hooks and the C vtable over
// the Transport class.
#include <algorithm>
#include <memory>
#include <string>

#include "components/qmp_ofi/qmp_ofi_fabric.hpp"
#include "components/qmp_ofi/qmp_ofi_params.hpp"
#include "components/qmp_ofi/qmp_ofi_transport.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

using meridian::msg_ofi::Channel;
using meridian::msg_ofi::Transport;
namespace ofi = meridian::msg_ofi;

// Parameter storage: the initial values are the defaults; Meridian writes
// the value resolved from every source back here.
const char *ofi_provider = "auto"; // owned by Meridian once registered
int ofi_shm = 0;                   // 0 auto, 1 off
int ofi_cma = 0;                   // 0 auto, 1 off
int ofi_tcp = 0;                   // 0 auto, 1 off
int ofi_timeout = 300;             // seconds
std::size_t ofi_eager_limit = 8192;
std::size_t ofi_cma_split = 32768;
std::size_t ofi_cma_min_block = 2048;
unsigned ofi_shm_slots = 0; // automatic
std::size_t ofi_shm_slot_size = 4096;
int ofi_liveness = 5; // ms
std::size_t ofi_rxm_eager_limit = 128 * 1024;
int ofi_tcp_handshake_timeout = 10000;        // ms
unsigned ofi_tcp_pending_max = 64;            // connections
std::size_t ofi_unexpected_limit = 256 << 20; // bytes
int ofi_priority = 50;

const mca_base_param_enum_value_t auto_off[] = {{0, "auto"}, {1, "off"}, {0, nullptr}};

// What register_params registers, one row per parameter.
struct ParamSpec {
    const char *name;
    const char *help;
    mca_base_param_type_t type;
    const mca_base_param_enum_value_t *values;
    mca_base_param_info_level_t level;
    void *storage;
    double min, max;
};
const ParamSpec param_specs[] = {
    {"provider",
     "libfabric provider for peers the shared-memory path does not reach (other nodes, or "
     "every peer with msg_ofi_shm=off): auto (the first provider fi_getinfo offers with "
     "reliable tagged messages, other than shm; on Debian 12 without a fast NIC that is "
     "tcp;ofi_rxm) or a provider name as libfabric spells it (tcp, tcp;ofi_rxm, shm, "
     "verbs;ofi_rxm, ...).  FI_PROVIDER in the environment filters libfabric's offer first",
     MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL, &ofi_provider, 0, 0},
    {"shm",
     "Processes of one node talk through Meridian's shared-memory rings (auto) or through "
     "libfabric like remote ones (off).  Must be alike in every process",
     MCA_BASE_PARAM_TYPE_ENUM, auto_off, MCA_BASE_INFO_USER_ALL, &ofi_shm, 0, 0},
    {"tcp",
     "Between nodes where libfabric would use tcp (tcp;ofi_rxm: no faster NIC) and "
     "msg_ofi_provider is auto, the messages go through this transport's own TCP sockets, "
     "one connection per pair of processes, opened by the first to send (auto), or through "
     "libfabric "
     "(off).  Must be alike in every process",
     MCA_BASE_PARAM_TYPE_ENUM, auto_off, MCA_BASE_INFO_USER_ALL, &ofi_tcp, 0, 0},
    {"cma",
     "Messages above msg_ofi_eager_limit between processes of one node are copied once, "
     "from the sender's memory into the receiver's (process_vm_readv), when the kernel "
     "permits it (auto), or always go through the rings (off)",
     MCA_BASE_PARAM_TYPE_ENUM, auto_off, MCA_BASE_INFO_TUNER_DETAIL, &ofi_cma, 0, 0},
    {"timeout",
     "Seconds a wait without a limit of its own lasts before it fails with a timeout "
     "(0: no limit; a dead process of this node is detected anyway)",
     MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_USER_ALL, &ofi_timeout, 0, 1e7},
    {"eager_limit",
     "Largest message (bytes) the shared-memory path copies through its rings; larger ones "
     "are copied once with CMA",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &ofi_eager_limit, 0, 1 << 30},
    {"cma_split",
     "Messages through CMA at least this large (bytes) are copied by both processes at "
     "once: the receiver reads the first half, the sender writes the second (0: the "
     "receiver copies all)",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &ofi_cma_split, 0, 1 << 30},
    {"cma_min_block",
     "A message above msg_ofi_eager_limit moves with CMA only when the blocks of both the "
     "sender's and the receiver's memory average at least this many bytes: the kernel "
     "handles each block apart, so finely strided or indexed messages (a lattice face of "
     "72-byte sites) are copied through the rings instead, whatever their size",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_ALL, &ofi_cma_min_block, 0, 1 << 30},
    {"shm_slots",
     "Slots in each ring of the shared-memory path (rounded up to a power of two); a "
     "process's segment holds one ring per process of its node.  0: 64, fewer (down to 8) "
     "when the node has so many processes that a segment would pass 4 MiB",
     MCA_BASE_PARAM_TYPE_UNSIGNED, nullptr, MCA_BASE_INFO_TUNER_ALL, &ofi_shm_slots, 0, 65536},
    {"shm_slot_size",
     "Bytes per ring slot, its 32-byte header included (rounded up to a multiple of 64): "
     "the fragment size of messages through the rings",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_ALL, &ofi_shm_slot_size, 128, 1 << 24},
    {"rxm_eager_limit",
     "Largest message (bytes) libfabric's ofi_rxm sends at once through its receive buffers "
     "(FI_OFI_RXM_BUFFER_SIZE); larger ones are cut into pieces or fetched by the receiver.  "
     "The receive queue gets 2 MiB of them, as with libfabric's defaults (128 of 16 KiB): "
     "the larger the buffers, the fewer "
     "(FI_OFI_RXM_MSG_RX_SIZE, at least 8).  The environment's variables win",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &ofi_rxm_eager_limit, 1024,
     16 << 20},
    {"tcp_handshake_timeout",
     "Milliseconds a connection to the tcp path's listener has, from its accept, to prove "
     "it comes from a process of this job; then it is closed (a process of the job whose "
     "connection was closed connects again)",
     MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &ofi_tcp_handshake_timeout, 10,
     3600000},
    {"tcp_pending_max",
     "Connections to the tcp path's listener that have not yet proved they come from a "
     "process of this job, at most: past it the oldest is closed to make room",
     MCA_BASE_PARAM_TYPE_UNSIGNED, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &ofi_tcp_pending_max, 1,
     65536},
    {"unexpected_limit",
     "Bytes of messages that arrived before their receive, held at most (tcp path, and "
     "shared-memory rings without CMA): a message that would pass it stays in its connection "
     "or ring (its sender's send waits, and so does all that sender sends after it) until its "
     "receive is started",
     MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_DETAIL, &ofi_unexpected_limit, 0, 1e15},
    {"liveness",
     "Milliseconds between checks, while waiting, that the peers on this node still live",
     MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_DEV_DETAIL, &ofi_liveness, 1, 60000},
    {"priority", "Selection priority of the ofi msg transport", MCA_BASE_PARAM_TYPE_INT, nullptr,
     MCA_BASE_INFO_TUNER_ALL, &ofi_priority, 0, 100},
};

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("msg_ofi register_params", [&]() -> int {
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
        }
        return MERIDIAN_SUCCESS;
    });
}

std::unique_ptr<Transport> &instance()
{
    static meridian::util::NoDestructor<std::unique_ptr<Transport>> transport;
    return transport.get();
}

int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("msg_ofi close", [&]() -> int {
        // The DSO may be unloaded next: nothing of the transport may outlive it.
        instance().reset();
        return MERIDIAN_SUCCESS;
    });
}

Transport &transport()
{
    return *instance();
}
Channel &channel_of(mca_msg_channel_t *channel)
{
    return *reinterpret_cast<Channel *>(channel);
}

// The vtable: each call is a C boundary (its name in reports is
// "msg_ofi CALL"); what each returns is msg.h's contract.
int module_init(mca_msg_base_module_t *, const mca_msg_job_t *job)
{
    return meridian::c_boundary("msg_ofi init", [&] {
        instance() = std::make_unique<Transport>(ofi::current_params());
        const int rc = instance()->init(*job);
        if (rc != MERIDIAN_SUCCESS) {
            instance().reset(); // the base calls no finalize after a failed init
        }
        return rc;
    });
}

int module_connect(mca_msg_base_module_t *)
{
    return meridian::c_boundary("msg_ofi connect", [] { return transport().connect(); });
}

void module_finalize(mca_msg_base_module_t *)
{
    meridian::c_boundary_void("msg_ofi finalize", [] { instance().reset(); });
}

int module_channel_create(mca_msg_base_module_t *, const mca_msg_channel_spec_t *spec,
                          mca_msg_channel_t **channel)
{
    return meridian::c_boundary("msg_ofi channel_create", [&]() -> int {
        if (spec == nullptr || channel == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        *channel = nullptr; // also when the create throws
        Channel *created = nullptr;
        const int rc = transport().channel_create(*spec, &created);
        *channel = reinterpret_cast<mca_msg_channel_t *>(created);
        return rc;
    });
}

int module_channel_readdress(mca_msg_base_module_t *, mca_msg_channel_t *channel,
                             const struct iovec *iov, size_t iovcnt)
{
    return meridian::c_boundary("msg_ofi channel_readdress", [&]() -> int {
        if (channel == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        return transport().channel_readdress(channel_of(channel), iov, iovcnt);
    });
}

void module_channel_free(mca_msg_base_module_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_ofi channel_free", [&] {
        if (channel != nullptr && instance()) {
            transport().channel_free(&channel_of(channel));
        }
    });
}

void module_channel_release(mca_msg_base_module_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_ofi channel_release", [&] {
        if (channel != nullptr && instance()) {
            transport().channel_release(&channel_of(channel));
        }
    });
}

int module_start(mca_msg_base_module_t *, mca_msg_channel_t *channel)
{
    return meridian::c_boundary("msg_ofi start", [&]() -> int {
        return channel == nullptr ? MERIDIAN_ERR_BAD_PARAM : transport().start(channel_of(channel));
    });
}

int module_test(mca_msg_base_module_t *, mca_msg_channel_t *channel, int *complete)
{
    return meridian::c_boundary("msg_ofi test", [&]() -> int {
        if (channel == nullptr || complete == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        return transport().test(channel_of(channel), complete);
    });
}

int module_wait(mca_msg_base_module_t *, mca_msg_channel_t *const *channels, size_t count,
                int timeout_ms)
{
    return meridian::c_boundary("msg_ofi wait", [&]() -> int {
        if (channels == nullptr && count > 0) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        return transport().wait(reinterpret_cast<Channel *const *>(channels), count, timeout_ms);
    });
}

// progress counts completions (>= 0, msg.h): a failure completed nothing.
int module_progress(mca_msg_base_module_t *)
{
    return meridian::c_boundary("msg_ofi progress", meridian::CFailure<int>{0, 0},
                                [] { return transport().progress(); });
}

// path_name is never NULL (msg.h).
const char *module_path_name(mca_msg_base_module_t *, int peer)
{
    const meridian::CFailure<const char *> unknown{"unknown", "unknown"};
    return meridian::c_boundary("msg_ofi path_name", unknown,
                                [&] { return instance() ? transport().path_name(peer) : "none"; });
}

mca_msg_base_module_t module = {
    .init = module_init,
    .connect = module_connect,
    .finalize = module_finalize,
    .channel_create = module_channel_create,
    .channel_readdress = module_channel_readdress,
    .channel_free = module_channel_free,
    .start = module_start,
    .test = module_test,
    .wait = module_wait,
    .progress = module_progress,
    .path_name = module_path_name,
    .channel_release = module_channel_release,
};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    return meridian::c_boundary("msg_ofi query", [&]() -> int {
        // Within a node the rings always work; only when they are turned off
        // must libfabric offer something.
        if (ofi_shm != 0 && !ofi::Endpoint::any_provider()) {
            meridian_mca_base_framework_verbose(
                &meridian_msg_base_framework, MCA_BASE_VERBOSE_INFO,
                "msg ofi: declines: msg_ofi_shm=off and no libfabric provider offers reliable "
                "tagged messages");
            return MERIDIAN_ERR_NOT_AVAILABLE;
        }
        *selected = &module;
        *priority = ofi_priority;
        return MERIDIAN_SUCCESS;
    });
}

std::size_t round_up_power_of_two(std::size_t n)
{
    std::size_t p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

} // namespace

namespace meridian::msg_ofi
{

Params current_params()
{
    Params params;
    params.provider = ofi_provider != nullptr && *ofi_provider != '\0' ? ofi_provider : "auto";
    params.shm = ofi_shm == 0 ? ShmMode::automatic : ShmMode::off;
    params.cma = ofi_cma == 0 ? CmaMode::automatic : CmaMode::off;
    params.tcp = ofi_tcp == 0 ? TcpMode::automatic : TcpMode::off;
    params.timeout_s = ofi_timeout;
    params.eager_limit = ofi_eager_limit;
    params.split_limit = ofi_cma_split;
    params.cma_min_block = ofi_cma_min_block;
    params.rxm_eager_limit = ofi_rxm_eager_limit;
    params.tcp_handshake_timeout_ms = ofi_tcp_handshake_timeout;
    params.tcp_pending_max = ofi_tcp_pending_max;
    params.unexpected_limit = ofi_unexpected_limit;
    params.shm_slots = ofi_shm_slots == 0 ? 0 : round_up_power_of_two(std::max(2U, ofi_shm_slots));
    params.shm_slot_bytes = (ofi_shm_slot_size + 63) / 64 * 64;
    // The rings need these forms; a value changed to fit is said, once per
    // value, rather than used in silence.
    static std::size_t told_slots = 0, told_slot_size = 0;
    if (ofi_shm_slots != 0 && params.shm_slots != ofi_shm_slots && told_slots != ofi_shm_slots) {
        told_slots = ofi_shm_slots;
        meridian::report_warning("msg_ofi_shm_slots is " + std::to_string(ofi_shm_slots) +
                                 ", not a power of two of at least 2: each ring has " +
                                 std::to_string(params.shm_slots) + " slots");
    }
    if (params.shm_slot_bytes != ofi_shm_slot_size && told_slot_size != ofi_shm_slot_size) {
        told_slot_size = ofi_shm_slot_size;
        meridian::report_warning("msg_ofi_shm_slot_size is " + std::to_string(ofi_shm_slot_size) +
                                 ", not a multiple of 64: each slot has " +
                                 std::to_string(params.shm_slot_bytes) + " bytes");
    }
    params.liveness_ms = ofi_liveness;
    if (params.cma == CmaMode::off) {
        // Without CMA every message goes through the rings.
        params.eager_limit = SIZE_MAX;
    }
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
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr,
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

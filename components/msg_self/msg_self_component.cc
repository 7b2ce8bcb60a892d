// SPDX-License-Identifier: BSD-3-Clause
// msg/self: a process's messages to itself.  A send that finds its
// receive started copies into it at once; a small one (msg_self_eager_limit)
// whose receive is not there yet is copied into an early buffer of the
// base's and completes; a larger one waits, announced to the base, and the
// receive copies straight from it when it starts.  No memory of its own
// beyond its parameters; never fails to reach its one peer.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mca/msg/base/msg_iov.hpp"
#include <meridian/mca/msg/msg.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>

namespace
{

int self_priority = 100;
std::size_t self_eager_limit = 8192;

// Started large sends not yet taken: cancelled ones are withdrawn.
std::vector<mca_msg_channel_t *> waiting;

std::span<const iovec> blocks(const mca_msg_channel_t *channel)
{
    return {channel->iov, channel->iovcnt};
}

int offer(mca_msg_transport_t *, const mca_msg_job_t *, int offers[3])
{
    offers[MCA_MSG_PEER_SELF] = self_priority;
    offers[MCA_MSG_PEER_NODE] = 0;
    offers[MCA_MSG_PEER_REMOTE] = 0;
    return MERIDIAN_SUCCESS;
}

int init(mca_msg_transport_t *, const mca_msg_job_t *, const unsigned char *)
{
    return MERIDIAN_SUCCESS;
}

int nothing(mca_msg_transport_t *)
{
    return MERIDIAN_SUCCESS;
}

void finalize(mca_msg_transport_t *)
{
    meridian::c_boundary_void("msg_self finalize", [] { waiting.clear(); });
}

void send(mca_msg_transport_t *, mca_msg_channel_t *channel)
{
    meridian::c_boundary_void("msg_self send", [&] {
        const int me = channel->peer;
        if (channel->nbytes <= self_eager_limit) {
            // Into the receive if it waits, else into an early buffer: done
            // either way.
            if (channel->iovcnt <= 1) {
                meridian_mca_msg_base_arrive_begin(
                    me, channel->tag, channel->nbytes,
                    channel->iovcnt == 1 ? channel->iov[0].iov_base : nullptr, channel->nbytes, 0);
            } else {
                std::vector<std::byte> packed(channel->nbytes);
                meridian::msg::IovCursor(blocks(channel)).gather(packed.data(), channel->nbytes);
                meridian_mca_msg_base_arrive_begin(me, channel->tag, channel->nbytes, packed.data(),
                                                   packed.size(), 0);
            }
            meridian_mca_msg_base_complete(channel, MERIDIAN_SUCCESS);
            return;
        }
        // Large: the receive copies from the send's memory (at once when it
        // waits already: the base calls take now).
        waiting.push_back(channel);
        meridian_mca_msg_base_announce(me, channel->tag, channel->nbytes, channel);
    });
}

// A receive matched one of our large sends: copy, and both are done.
int take(mca_msg_transport_t *, mca_msg_channel_t *recv, void *message)
{
    return meridian::c_boundary("msg_self take", [&] {
        auto *send = static_cast<mca_msg_channel_t *>(message);
        std::erase(waiting, send);
        if (meridian_mca_msg_base_fits(recv, send->nbytes, nullptr) != 0) {
            meridian::msg::copy_iov(blocks(recv), blocks(send), send->nbytes);
            meridian_mca_msg_base_complete(recv, MERIDIAN_SUCCESS);
        }
        meridian_mca_msg_base_complete(send, MERIDIAN_SUCCESS);
        return 0;
    });
}

void drop(mca_msg_transport_t *, int, void *message)
{
    meridian::c_boundary_void(
        "msg_self drop", [&] { std::erase(waiting, static_cast<mca_msg_channel_t *>(message)); });
}

void cancel(mca_msg_transport_t *, mca_msg_channel_t *channel, int)
{
    meridian::c_boundary_void("msg_self cancel", [&] {
        if (channel->direction == MCA_MSG_SEND && std::erase(waiting, channel) > 0) {
            meridian_mca_msg_base_withdraw(channel->peer, channel->tag, channel);
        }
    });
}

const char *path_name(mca_msg_transport_t *, int)
{
    return "self";
}

mca_msg_transport_t transport = {
    .flags = 0,
    .offer = offer,
    .init = init,
    .connect = nothing,
    .ready = nothing,
    .finalize = finalize,
    .prepare = nullptr,
    .cleanup = nullptr,
    .send = send,
    .recv = nullptr,
    .take = take,
    .drop = drop,
    .posted = nullptr,
    .cancel = cancel,
    .peer_died = nullptr,
    .progress = nullptr, // nothing moves on its own
    .path_name = path_name,
    .start_direct = nullptr,
};

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("msg_self register_params", [&]() -> int {
        int index = meridian_mca_base_component_param_register(
            self, "priority",
            "Priority of the self transport for a process's messages to itself (the only "
            "transport that carries them)",
            MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &self_priority);
        if (index < 0) {
            return index;
        }
        if (int rc = meridian_mca_base_param_set_bounds(index, 0, 100); rc < 0) {
            return rc;
        }
        index = meridian_mca_base_component_param_register(
            self, "eager_limit",
            "Largest message (bytes) a process sends itself that completes before its receive "
            "is started (copied aside); a larger one waits for its receive, which copies it "
            "straight",
            MCA_BASE_PARAM_TYPE_SIZE, nullptr, MCA_BASE_INFO_TUNER_DETAIL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &self_eager_limit);
        if (index < 0) {
            return index;
        }
        return meridian_mca_base_param_set_bounds(index, 0, 1 << 30) < 0 ? MERIDIAN_ERROR
                                                                         : MERIDIAN_SUCCESS;
    });
}

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    *selected = &transport;
    *priority = self_priority;
    return MERIDIAN_SUCCESS;
}

} // namespace

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_msg_base_component_t mca_msg_self_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "msg",
            .framework_version = MCA_MSG_BASE_VERSION,
            .component_name = "self",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr,
            .close = nullptr,
            .query = query,
        },
};

} // extern "C"

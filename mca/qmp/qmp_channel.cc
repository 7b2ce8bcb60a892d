// SPDX-License-Identifier: BSD-3-Clause
// Message handles, declared: each send or receive is one persistent
// transport channel, set up completely here (peer, QMP's tag, the runs of
// its memory), so that starting and waiting (qmp_channel_start.cc) has
// nothing left to compute; multiples, new addresses, clear-to-send, free.
#include <string>
#include <unordered_set>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_msg.hpp"
#include <meridian/opal/util/error.h>

using Kind = QMP_msghandle_struct::Kind;

namespace meridian::qmp
{

std::recursive_mutex *transport_lock()
{
    State &s = state();
    return s.thread_level == QMP_THREAD_MULTIPLE ? &s.lock : nullptr;
}

double current_session()
{
    return state().init_time;
}

} // namespace meridian::qmp

using namespace meridian::qmp;

// A started transfer is not cancelled: it completes on its own, so the
// messages after it on its peer and tag are not shifted (QMP_free_msghandle
// in qmp.h).
QMP_msghandle_struct::~QMP_msghandle_struct()
{
    if (channel != nullptr && session_alive(session)) {
        TransportGuard guard(lock);
        if (state().transport_releases) {
            transport->channel_release(transport, channel);
        } else {
            // A transport of msg 2.0 can only abandon a started channel.
            transport->channel_free(transport, channel);
        }
    }
}

namespace meridian::qmp
{

std::string transfer_text(const QMP_msghandle_struct &h)
{
    std::string text =
        (h.kind == Kind::send ? "send to node " : "receive from node ") + std::to_string(h.peer);
    if (h.axis >= 0) {
        text += " (axis " + std::to_string(h.axis) + (h.dir > 0 ? ", +1)" : ", -1)");
    }
    return text;
}

// What a handle does, for messages: "send to node 1" or, for a multiple,
// its members' in a list.
std::string handle_text(const QMP_msghandle_struct &h)
{
    if (h.kind != Kind::multiple) {
        return transfer_text(h);
    }
    std::string text = "multiple handle (";
    for (std::size_t i = 0; i < h.members.size(); ++i) {
        text += (i > 0 ? ", " : "") + transfer_text(*h.members[i]);
    }
    return text + ")";
}

QMP_status_t check_handle_failed(const char *call, QMP_msghandle_t h)
{
    if (h == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": the handle is NULL");
    }
    if (!session_alive(h->session)) {
        if (!state().initialized) {
            return set_handle_error(h, QMP_NOT_INITED,
                                    std::string(call) + ": QMP is not initialized");
        }
        return set_handle_error(h, QMP_INVALID_ARG,
                                std::string(call) +
                                    ": the handle was declared before QMP was finalized");
    }
    return QMP_SUCCESS;
}

} // namespace meridian::qmp

namespace
{

QMP_msghandle_t declare(const char *call, QMP_comm_t comm, QMP_msgmem_t mm,
                        mca_msg_direction_t direction, int peer, int axis, int dir, int priority)
{
    State &s = state();
    if (peer < 0 || peer >= comm->size) {
        set_error(QMP_NODE_OUTRANGE, std::string(call) + ": node " + std::to_string(peer) +
                                         " is out of range: the communicator has " +
                                         std::to_string(comm->size) + " nodes");
        return nullptr;
    }
    auto h = std::make_unique<QMP_msghandle_struct>();
    h->kind = direction == MCA_MSG_SEND ? Kind::send : Kind::receive;
    h->transport = s.transport;
    h->lock = transport_lock();
    h->fast = h->lock == nullptr;
    h->session = current_session();
    h->comm = comm;
    h->peer = peer;
    h->job_peer = comm->members[static_cast<std::size_t>(peer)];
    h->axis = axis;
    h->dir = dir;
    h->tag = channel_tag(comm->context, direction, axis, dir);
    h->base = mm->base;
    h->blocks = mm->layout.blocks();
    h->nbytes = mm->layout.nbytes();
    to_iovec(h->blocks, h->base, h->iov);
    const mca_msg_channel_spec_t spec{direction,     h->job_peer, h->tag,  h->iov.data(),
                                      h->iov.size(), h->nbytes,   priority};
    int rc;
    {
        TransportGuard guard(h->lock);
        rc = h->transport->channel_create(h->transport, &spec, &h->channel);
    }
    if (rc != MERIDIAN_SUCCESS) {
        h->channel = nullptr;
        set_error(from_meridian(rc), std::string(call) + ": cannot set up the channel (" +
                                         transfer_text(*h) + ", " +
                                         h->transport->path_name(h->transport, h->job_peer) +
                                         "): " + meridian_strerror(rc));
        return nullptr;
    }
    return h.release(); // the application's until QMP_free_msghandle
}

QMP_status_t check_declare(const char *call, QMP_comm_t comm, QMP_msgmem_t mm)
{
    if (QMP_status_t st = require_initialized(call); st != QMP_SUCCESS) {
        return st;
    }
    if (comm == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": the communicator is NULL");
    }
    if (mm == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": the message memory is NULL");
    }
    return QMP_SUCCESS;
}

QMP_msghandle_t declare_to(const char *call, QMP_comm_t comm, QMP_msgmem_t mm,
                           mca_msg_direction_t direction, int node, int priority)
{
    if (check_declare(call, comm, mm) != QMP_SUCCESS) {
        return nullptr;
    }
    return declare(call, comm, mm, direction, node, -1, 0, priority);
}

QMP_msghandle_t declare_relative(const char *call, QMP_comm_t comm, QMP_msgmem_t mm,
                                 mca_msg_direction_t direction, int axis, int dir, int priority)
{
    if (check_declare(call, comm, mm) != QMP_SUCCESS) {
        return nullptr;
    }
    int node = -1;
    const QMP_status_t st = relative_neighbor(comm, axis, dir, &node);
    if (st == QMP_NONEIGHBOR_INFO) {
        set_error(st, std::string(call) + ": no logical topology is declared on the communicator");
        return nullptr;
    }
    if (st != QMP_SUCCESS) {
        set_error(st, std::string(call) + ": axis " + std::to_string(axis) + ", direction " +
                          std::to_string(dir) + ": expected an axis from 0 to " +
                          std::to_string(static_cast<int>(comm->logical.dims.size()) - 1) +
                          " and a direction of +1 or -1");
        return nullptr;
    }
    return declare(call, comm, mm, direction, node, axis, dir, priority);
}

QMP_msghandle_t declare_multiple(const char *call, QMP_msghandle_t msgh[], int num, bool paired)
{
    if (require_initialized(call) != QMP_SUCCESS) {
        return nullptr;
    }
    if (num < 0 || (num > 0 && msgh == nullptr)) {
        set_error(QMP_INVALID_ARG, std::string(call) + ": expected an array of num >= 0 handles");
        return nullptr;
    }
    // Check everything before taking anything over.
    std::unordered_set<QMP_msghandle_t> seen;
    for (int i = 0; i < num; ++i) {
        QMP_msghandle_t h = msgh[i];
        const std::string which = std::string(call) + ": handle " + std::to_string(i);
        if (h == nullptr) {
            set_error(QMP_INVALID_ARG, which + " is NULL");
            return nullptr;
        }
        if (!seen.insert(h).second) {
            set_error(QMP_INVALID_ARG, which + " appears twice");
            return nullptr;
        }
        if (h->parent != nullptr) {
            set_error(QMP_INVALID_OP, which + " belongs to another multiple handle");
            return nullptr;
        }
        if (h->active != 0) {
            set_error(QMP_INVALID_OP, which + " is started");
            return nullptr;
        }
        if (!session_alive(h->session)) {
            set_error(QMP_INVALID_ARG, which + " was declared before QMP was finalized");
            return nullptr;
        }
    }
    auto m = std::make_unique<QMP_msghandle_struct>();
    m->kind = Kind::multiple;
    m->paired = paired;
    m->transport = state().transport;
    m->lock = transport_lock();
    m->session = current_session();
    // Room for every member before any handle is taken over: from then on
    // nothing may fail, or the application would lose handles it holds.
    std::size_t total = 0;
    for (int i = 0; i < num; ++i) {
        total += msgh[i]->kind == Kind::multiple ? msgh[i]->members.size() : 1;
    }
    m->members.reserve(total);
    m->channels.reserve(total);
    m->started.reserve(total);
    auto adopt = [&m](std::unique_ptr<QMP_msghandle_struct> member) {
        member->parent = m.get();
        member->fast = false;
        m->channels.push_back(member->channel);
        m->members.push_back(std::move(member));
    };
    // A multiple among them gives up its members and goes, as in QMP.
    for (int i = 0; i < num; ++i) {
        std::unique_ptr<QMP_msghandle_struct> h(msgh[i]);
        if (h->kind != Kind::multiple) {
            adopt(std::move(h));
            continue;
        }
        for (auto &member : h->members) {
            adopt(std::move(member));
        }
    }
    return m.release();
}

// The runs at the new base, in the handle's scratch list (the transport
// copies it): no allocation, as programs readdress in their loops.
QMP_status_t readdress(const char *call, QMP_msghandle_struct &h, void *addr)
{
    to_iovec(h.blocks, addr, h.iov);
    int rc;
    {
        TransportGuard guard(h.lock);
        rc = h.transport->channel_readdress(h.transport, h.channel, h.iov.data(), h.iov.size());
    }
    if (rc != MERIDIAN_SUCCESS) {
        return set_handle_error(
            &h, from_meridian(rc),
            std::string(call) + ": " + transfer_text(h) +
                ": the transport refused the new address: " + meridian_strerror(rc));
    }
    h.base = static_cast<const char *>(addr);
    return QMP_SUCCESS;
}

// QMP_change_address_multiple's body.
QMP_status_t change_address_multiple(QMP_msghandle_t msg, void *addr[], int naddr)
{
    const char *call = "QMP_change_address_multiple";
    if (QMP_status_t st = check_handle(call, msg); st != QMP_SUCCESS) {
        return st;
    }
    if (msg->kind != Kind::multiple) {
        return set_handle_error(msg, QMP_INVALID_ARG,
                                std::string(call) +
                                    ": not a multiple handle (use QMP_change_address)");
    }
    if (addr == nullptr || naddr < 0 || static_cast<std::size_t>(naddr) != msg->members.size()) {
        return set_handle_error(msg, QMP_INVALID_ARG,
                                std::string(call) + ": expected " +
                                    std::to_string(msg->members.size()) +
                                    " addresses (one per handle), got " + std::to_string(naddr));
    }
    if (msg->active != 0) {
        return set_handle_error(msg, QMP_INVALID_OP,
                                std::string(call) + ": the handle is started (wait for it first)");
    }
    for (std::size_t i = 0; i < msg->members.size(); ++i) {
        if (QMP_status_t st = readdress(call, *msg->members[i], addr[i]); st != QMP_SUCCESS) {
            return set_handle_error(msg, st, msg->members[i]->error_message);
        }
    }
    return QMP_SUCCESS;
}

// A relative declaration fails alike on every node of a communicator that
// has no logical topology (QMP_NONEIGHBOR_INFO): said once, by its node 0.
QMP_msghandle_t said_relative(QMP_msghandle_t handle, QMP_comm_t comm)
{
    if (handle == nullptr) {
        const QMP_status_t status = QMP_get_error_number(nullptr);
        said(status, status == QMP_NONEIGHBOR_INFO ? comm : nullptr);
    }
    return handle;
}

} // namespace

extern "C" {

QMP_msghandle_t QMP_declare_receive_relative(QMP_msgmem_t m, int axis, int dir, int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_relative("QMP_declare_receive_relative", state().default_comm, m,
                                MCA_MSG_RECV, axis, dir, priority);
    });
    return said_relative(result, state().default_comm);
}

QMP_msghandle_t QMP_comm_declare_receive_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis,
                                                  int dir, int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_relative("QMP_comm_declare_receive_relative", comm, m, MCA_MSG_RECV, axis,
                                dir, priority);
    });
    return said_relative(result, comm);
}

QMP_msghandle_t QMP_declare_send_relative(QMP_msgmem_t m, int axis, int dir, int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_relative("QMP_declare_send_relative", state().default_comm, m, MCA_MSG_SEND,
                                axis, dir, priority);
    });
    return said_relative(result, state().default_comm);
}

QMP_msghandle_t QMP_comm_declare_send_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir,
                                               int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_relative("QMP_comm_declare_send_relative", comm, m, MCA_MSG_SEND, axis, dir,
                                priority);
    });
    return said_relative(result, comm);
}

QMP_msghandle_t QMP_declare_send_to(QMP_msgmem_t m, int rem_node_rank, int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_to("QMP_declare_send_to", state().default_comm, m, MCA_MSG_SEND,
                          rem_node_rank, priority);
    });
    return said_unless(result);
}

QMP_msghandle_t QMP_comm_declare_send_to(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank,
                                         int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_to("QMP_comm_declare_send_to", comm, m, MCA_MSG_SEND, rem_node_rank,
                          priority);
    });
    return said_unless(result);
}

QMP_msghandle_t QMP_declare_receive_from(QMP_msgmem_t m, int rem_node_rank, int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_to("QMP_declare_receive_from", state().default_comm, m, MCA_MSG_RECV,
                          rem_node_rank, priority);
    });
    return said_unless(result);
}

QMP_msghandle_t QMP_comm_declare_receive_from(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank,
                                              int priority)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_to("QMP_comm_declare_receive_from", comm, m, MCA_MSG_RECV, rem_node_rank,
                          priority);
    });
    return said_unless(result);
}

QMP_status_t QMP_change_address(QMP_msghandle_t msg, void *addr)
{
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_change_address";
        if (QMP_status_t st = check_handle(call, msg); st != QMP_SUCCESS) {
            return st;
        }
        if (msg->kind == Kind::multiple) {
            return set_handle_error(msg, QMP_INVALID_ARG,
                                    std::string(call) +
                                        ": a multiple handle (use QMP_change_address_multiple)");
        }
        if (msg->active != 0) {
            return set_handle_error(msg, QMP_INVALID_OP,
                                    std::string(call) + ": " + transfer_text(*msg) +
                                        " is started (wait for it first)");
        }
        return readdress(call, *msg, addr);
    });
}

QMP_status_t QMP_change_address_multiple(QMP_msghandle_t msg, void *addr[], int naddr)
{
    return qmp_boundary(__func__, [&] { return change_address_multiple(msg, addr, naddr); });
}

void QMP_free_msghandle(QMP_msghandle_t h)
{
    qmp_boundary_void(__func__, [&] {
        if (h == nullptr) {
            return;
        }
        if (h->parent != nullptr) {
            fatal_error(QMP_INVALID_OP,
                        "QMP_free_msghandle: the handle (" + transfer_text(*h) +
                            ") belongs to a multiple handle: free that one instead");
            return;
        }
        // A started transfer completes on its own (channel_release).
        std::unique_ptr<QMP_msghandle_struct> doomed(h);
    });
}

QMP_msghandle_t QMP_declare_multiple(QMP_msghandle_t msgh[], int num)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_multiple("QMP_declare_multiple", msgh, num, false);
    });
    return said_unless(result);
}

// QMP's pairs differ from a multiple only on machines that gate sends; the
// transport keeps early messages, so both start and wait alike.
QMP_msghandle_t QMP_declare_send_recv_pairs(QMP_msghandle_t msgh[], int num)
{
    const auto result = qmp_boundary(__func__, nullptr, [&] {
        return declare_multiple("QMP_declare_send_recv_pairs", msgh, num, true);
    });
    return said_unless(result);
}

// QMP's state machine, kept as QMP keeps it: the transport holds a message
// that arrives before its receive starts, so no send waits for "ready".
QMP_status_t QMP_clear_to_send(QMP_msghandle_t mh, QMP_clear_to_send_t cts)
{
    const int given = meridian::c_enum_value(cts);
    return qmp_boundary(__func__, [&] {
        const char *call = "QMP_clear_to_send";
        if (QMP_status_t st = check_handle(call, mh); st != QMP_SUCCESS) {
            return st;
        }
        if (given != QMP_CTS_DISABLED && given != QMP_CTS_NOT_READY && given != QMP_CTS_READY) {
            return set_handle_error(mh, QMP_INVALID_ARG,
                                    std::string(call) + ": " + std::to_string(given) +
                                        " is not QMP_CTS_DISABLED, _NOT_READY or _READY");
        }
        if (mh->active != 0) {
            return set_handle_error(mh, QMP_INVALID_OP,
                                    std::string(call) +
                                        ": the handle is started (wait for it first)");
        }
        mh->clear_to_send = static_cast<QMP_clear_to_send_t>(given);
        return QMP_SUCCESS;
    });
}

} // extern "C"

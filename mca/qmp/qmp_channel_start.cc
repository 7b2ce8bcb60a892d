// SPDX-License-Identifier: BSD-3-Clause
// The hot path of message handles: QMP_start is one call, the channel's own
// start (its transport's, where the base allows); QMP_wait takes a done
// channel's status itself and calls the base's wait otherwise (a multiple:
// a start per member, one wait for all); nothing to look up, allocate or
// lock below QMP_THREAD_MULTIPLE.
#include <thread>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_msg.hpp"
#include <meridian/opal/util/error.h>

using Kind = QMP_msghandle_struct::Kind;

namespace meridian::qmp
{

int wait_channels_polling(mca_msg_base_module_t *transport, std::recursive_mutex &lock,
                          mca_msg_channel_t *const *channels, std::size_t count, int timeout_ms)
{
    // QMP_THREAD_MULTIPLE: poll, dropping the lock in between.  Dead peers
    // end the wait as before; the transport's own limit (timeout_ms < 0)
    // is not applied here, since it runs per call.
    const double deadline = timeout_ms >= 0 ? QMP_time() + timeout_ms * 1e-3 : -1.0;
    for (;;) {
        int rc;
        {
            std::lock_guard guard(lock);
            rc = transport->wait(transport, channels, count, 0);
        }
        if (rc != MERIDIAN_ERR_TIMEOUT || (deadline >= 0.0 && QMP_time() >= deadline)) {
            return rc;
        }
        std::this_thread::yield();
    }
}

} // namespace meridian::qmp

using namespace meridian::qmp;

namespace
{

void set_inactive(QMP_msghandle_struct &h)
{
    if (h.active != 0) {
        h.active = 0;
        if (h.parent != nullptr) {
            --h.parent->active;
        }
    }
}

// After a wait that failed other than by timing out, the transfers that the
// error completed are over (the transport's contract); ask which, so that
// the handle can be waited for, or started, again.  Returns the transfers
// that ended in an error ("send to node 1, receive from node 1").
std::string settle(QMP_msghandle_struct &h)
{
    std::string failed;
    TransportGuard guard(h.lock);
    auto settle_one = [&h, &failed](QMP_msghandle_struct &one) {
        if (one.active == 0) {
            return;
        }
        int complete = 0;
        const int rc = h.transport->test(h.transport, one.channel, &complete);
        if (rc != MERIDIAN_SUCCESS) {
            failed += (failed.empty() ? "" : ", ") + transfer_text(one);
        }
        if (rc != MERIDIAN_SUCCESS || complete != 0) {
            set_inactive(one);
        }
    };
    if (h.kind != Kind::multiple) {
        settle_one(h);
    } else {
        for (auto &member : h.members) {
            settle_one(*member);
        }
    }
    return failed;
}

[[gnu::cold, gnu::noinline]] QMP_status_t wait_failed(QMP_msghandle_struct &h, const char *call,
                                                      int rc)
{
    const std::string failed = rc != MERIDIAN_ERR_TIMEOUT ? settle(h) : std::string();
    std::string what = handle_text(h);
    if (h.kind == Kind::multiple && !failed.empty()) {
        what = failed;
    }
    std::string why;
    QMP_status_t status = from_meridian(rc);
    switch (rc) {
    case MERIDIAN_ERR_TIMEOUT:
        why = "no progress within the transport's time limit";
        break;
    case MERIDIAN_ERR_UNREACH:
        why = meridian_mca_msg_base_launcher_gone() != 0 ? "the launcher is gone: the job is ending"
              : h.kind == Kind::multiple
                  ? "a peer died or cannot be reached"
                  : "node " + std::to_string(h.peer) + " (job rank " + std::to_string(h.job_peer) +
                        ") died or cannot be reached";
        break;
    case MERIDIAN_ERR_BAD_PARAM:
        // The transport's contract: the message is longer than the receive.
        status = QMP_MEMSIZE_ERR;
        why = "the message is larger than the receive memory";
        break;
    default:
        why = meridian_strerror(rc);
        break;
    }
    return set_handle_error(&h, status, std::string(call) + ": " + what + ": " + why);
}

[[gnu::cold, gnu::noinline]] QMP_status_t start_failed(QMP_msghandle_struct &h,
                                                       QMP_msghandle_struct &one, int rc)
{
    return set_handle_error(&h, from_meridian(rc),
                            "QMP_start: " + transfer_text(one) + ": " + meridian_strerror(rc));
}

// The bodies of QMP_start, QMP_wait and QMP_is_complete.  QMP_start and
// QMP_wait of one transfer below QMP_THREAD_MULTIPLE, unprofiled (every
// call of a halo exchange or a ping-pong), take a short inline path to the
// transport; a multiple, a lock, profiling and every error go on to the
// general functions, out of line.
[[gnu::noinline]] QMP_status_t start_handle_general(QMP_msghandle_t h)
{
    if (QMP_status_t st = check_handle("QMP_start", h); st != QMP_SUCCESS) {
        return st;
    }
    if (h->active != 0) {
        return set_handle_error(
            h, QMP_INVALID_OP, "QMP_start: " + handle_text(*h) + " is started (wait for it first)");
    }
    mca_msg_base_module_t *t = h->transport;
    if (h->kind != Kind::multiple) {
        int rc;
        {
            TransportGuard guard(h->lock);
            rc = t->start(t, h->channel);
        }
        if (rc != MERIDIAN_SUCCESS) {
            return start_failed(*h, *h, rc);
        }
        h->active = 1;
        if (h->parent != nullptr) {
            ++h->parent->active;
        }
    } else {
        TransportGuard guard(h->lock);
        for (auto &member : h->members) {
            if (int rc = t->start(t, member->channel); rc != MERIDIAN_SUCCESS) {
                // Those started stay started: QMP_wait completes them.
                return start_failed(*h, *member, rc);
            }
            member->active = 1;
            ++h->active;
        }
    }
    if (h->clear_to_send == QMP_CTS_READY) {
        h->clear_to_send = QMP_CTS_NOT_READY;
    }
    return QMP_SUCCESS;
}

inline QMP_status_t start_handle(QMP_msghandle_t h)
{
    if (h != nullptr && h->fast && session_alive(h->session) && h->active == 0) [[likely]] {
        mca_msg_channel_t *channel = h->channel;
        if (const int rc = channel->start(channel); rc != MERIDIAN_SUCCESS) [[unlikely]] {
            return start_failed(*h, *h, rc);
        }
        h->active = 1;
        if (h->clear_to_send == QMP_CTS_READY) {
            h->clear_to_send = QMP_CTS_NOT_READY;
        }
        return QMP_SUCCESS;
    }
    return start_handle_general(h);
}

[[gnu::noinline]] QMP_status_t wait_handle_general(QMP_msghandle_t h)
{
    if (h == nullptr) {
        return set_error(QMP_INVALID_ARG, "QMP_wait: the handle is NULL");
    }
    if (h->active == 0) {
        return QMP_SUCCESS;
    }
    if (QMP_status_t st = check_handle("QMP_wait", h); st != QMP_SUCCESS) {
        return st;
    }
    ProfileScope profile;
    if (h->kind != Kind::multiple) {
        const int rc = wait_channels(h->transport, h->lock, &h->channel, 1, -1);
        if (rc != MERIDIAN_SUCCESS) {
            return wait_failed(*h, "QMP_wait", rc);
        }
        set_inactive(*h);
        return QMP_SUCCESS;
    }
    mca_msg_channel_t *const *list = h->channels.data();
    std::size_t count = h->channels.size();
    if (h->active != h->members.size()) {
        // Some members were started or completed on their own.
        h->started.clear(); // within its reserved capacity: no allocation
        for (auto &member : h->members) {
            if (member->active != 0) {
                h->started.push_back(member->channel);
            }
        }
        list = h->started.data();
        count = h->started.size();
    }
    const int rc = wait_channels(h->transport, h->lock, list, count, -1);
    if (rc != MERIDIAN_SUCCESS) {
        return wait_failed(*h, "QMP_wait", rc);
    }
    for (auto &member : h->members) {
        member->active = 0;
    }
    h->active = 0;
    return QMP_SUCCESS;
}

inline QMP_status_t wait_handle(QMP_msghandle_t h)
{
    if (h != nullptr && h->fast && session_alive(h->session) && profile_level <= 0) [[likely]] {
        if (h->active == 0) {
            return QMP_SUCCESS;
        }
        // Done already (an eager send, a message that was there): its status
        // is taken here, without a call.
        int rc;
        if (mca_msg_channel_take(h->channel, &rc) == 0) {
            mca_msg_base_module_t *t = h->transport;
            rc = t->wait(t, &h->channel, 1, -1);
        }
        if (rc != MERIDIAN_SUCCESS) [[unlikely]] {
            return wait_failed(*h, "QMP_wait", rc);
        }
        h->active = 0; // no multiple's member
        return QMP_SUCCESS;
    }
    return wait_handle_general(h);
}

QMP_bool_t test_handle(QMP_msghandle_t h)
{
    if (h == nullptr) {
        set_error(QMP_INVALID_ARG, "QMP_is_complete: the handle is NULL");
        return QMP_TRUE; // nothing to wait for
    }
    if (h->active == 0) {
        return QMP_TRUE;
    }
    if (check_handle("QMP_is_complete", h) != QMP_SUCCESS) {
        return QMP_TRUE;
    }
    mca_msg_base_module_t *t = h->transport;
    TransportGuard guard(h->lock);
    auto test_one = [h, t](QMP_msghandle_struct &one) {
        int complete = 0;
        const int rc = t->test(t, one.channel, &complete);
        if (rc != MERIDIAN_SUCCESS) {
            // The error completed the transfer; QMP_get_error_number says why.
            set_handle_error(&one, from_meridian(rc),
                             "QMP_is_complete: " + transfer_text(one) + ": " +
                                 meridian_strerror(rc));
            if (&one != h) {
                set_handle_error(h, one.error, one.error_message);
            }
            complete = 1;
        }
        if (complete != 0) {
            set_inactive(one);
        }
    };
    if (h->kind != Kind::multiple) {
        test_one(*h);
    } else {
        for (auto &member : h->members) {
            if (member->active != 0) {
                test_one(*member);
            }
        }
    }
    return h->active == 0 ? QMP_TRUE : QMP_FALSE;
}
} // namespace

extern "C" {

QMP_status_t QMP_start(QMP_msghandle_t h)
{
    return qmp_boundary(__func__, [h] { return start_handle(h); });
}

QMP_status_t QMP_wait(QMP_msghandle_t h)
{
    return qmp_boundary(__func__, [h] { return wait_handle(h); });
}

// As QMP: each handle in turn, the error returned; after a timeout the rest
// are left started (waiting for them would multiply the time limit).
QMP_status_t QMP_wait_all(QMP_msghandle_t h[], int num)
{
    return qmp_boundary(__func__, [&] {
        if (num < 0 || (num > 0 && h == nullptr)) {
            return set_error(QMP_INVALID_ARG,
                             "QMP_wait_all: expected an array of num >= 0 handles");
        }
        QMP_status_t result = QMP_SUCCESS;
        for (int i = 0; i < num; ++i) {
            const QMP_status_t st = QMP_wait(h[i]);
            if (st != QMP_SUCCESS && result == QMP_SUCCESS) {
                result = st;
            }
            if (st == QMP_TIMEOUT) {
                break;
            }
        }
        return result;
    });
}

// QMP_TRUE on an exception, as on the errors it reports: nothing to wait for.
QMP_bool_t QMP_is_complete(QMP_msghandle_t h)
{
    return qmp_boundary(__func__, QMP_TRUE, [&] { return test_handle(h); });
}

} // extern "C"

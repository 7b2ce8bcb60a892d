// The shm path: messages up to the eager limit (and every message when CMA
// is not permitted) are copied from the sender's blocks into ring slots and
// from the slots into the receiver's blocks, fragment by fragment; larger
// ones send a rendezvous request through the ring, the receiver pulls the
// data with one process_vm_readv copy when its receive has started, and
// answers with a FIN.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "components/qmp_ofi/qmp_ofi_proc.hpp"
#include "components/qmp_ofi/qmp_ofi_transport.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ofi
{

namespace
{

// A block of the sender's list as it crosses the ring.
struct WireIov {
    std::uint64_t base;
    std::uint64_t len;
};
static_assert(sizeof(WireIov) == sizeof(iovec));

} // namespace

std::unique_ptr<Unexpected> Transport::make_unexpected(std::size_t total)
{
    std::unique_ptr<Unexpected> message;
    // The smallest kept buffer that holds the message: a channel that keeps
    // arriving early reuses its own, with no allocation and no page faults.
    auto best = pool_.end();
    for (auto it = pool_.begin(); it != pool_.end(); ++it) {
        if ((*it)->data_capacity >= total &&
            (best == pool_.end() || (*it)->data_capacity < (*best)->data_capacity)) {
            best = it;
        }
    }
    if (best != pool_.end()) {
        message = std::move(*best);
        pool_.erase(best);
        pooled_bytes_ -= message->data_capacity;
    } else {
        message = std::make_unique<Unexpected>();
        message->data_capacity = std::max(total, shm_payload_);
        message->data = std::make_unique_for_overwrite<std::byte[]>(message->data_capacity);
    }
    message->kind = Unexpected::Kind::eager;
    message->total = total;
    unexpected_bytes_ += total; // until a receive takes it (start_recv_matched)
    message->arrived = 0;
    return message;
}

void Transport::recycle(Unexpected &message)
{
    // Keep buffers for the next early messages, within a bound on the bytes
    // kept: past it, the smallest kept buffers make room.
    constexpr std::size_t pooled_max = 16 * 1024 * 1024;
    constexpr std::size_t pooled_count = 64;
    if (!message.data || message.data_capacity > pooled_max) {
        return;
    }
    while (!pool_.empty() &&
           (pool_.size() >= pooled_count || pooled_bytes_ + message.data_capacity > pooled_max)) {
        auto smallest = std::min_element(pool_.begin(), pool_.end(), [](auto &a, auto &b) {
            return a->data_capacity < b->data_capacity;
        });
        pooled_bytes_ -= (*smallest)->data_capacity;
        pool_.erase(smallest);
    }
    auto kept = std::make_unique<Unexpected>();
    kept->data = std::move(message.data);
    kept->data_capacity = message.data_capacity;
    pooled_bytes_ += kept->data_capacity;
    pool_.push_back(std::move(kept));
}

void Transport::start_shm(Channel &channel)
{
    Peer &peer = peers_[static_cast<std::size_t>(channel.peer)];
    if (channel.direction == MCA_MSG_RECV) {
        start_recv_matched(peer, channel, *channel.matching);
        return;
    }
    OutMessage message;
    message.channel = &channel;
    // Through CMA when the peer may read our blocks and they are coarse
    // (its receive's blocks must be too: see pull).
    message.rndv = peer.cma && channel.nbytes > eager_limit_ && coarse(channel);
    message.tag = channel.tag;
    message.total = channel.nbytes;
    message.cursor = IovCursor(channel.iov);
    if (message.rndv) {
        channel.rndv_id = next_rndv_id_++;
        rndv_sends_.emplace(channel.rndv_id, &channel);
        ++peer.rndv_out;
    }
    if (peer.outq.empty() && push_message(peer, message)) {
        if (!message.rndv) {
            finish(channel, MERIDIAN_SUCCESS);
        }
        return;
    }
    peer.outq.push_back(std::move(message));
}

// Match a starting receive against what arrived (self and shm paths).
void Transport::start_recv_matched(Peer &peer, Channel &recv, Matching &matching)
{
    if (matching.unexpected.empty()) {
        matching.posted.push_back(&recv);
        return;
    }
    std::unique_ptr<Unexpected> message = std::move(matching.unexpected.front());
    matching.unexpected.pop_front();
    const int rank = static_cast<int>(&peer - peers_.data());
    switch (message->kind) {
    case Unexpected::Kind::eager:
        unexpected_bytes_ -= message->total;
        if (message->arrived < message->total) {
            // Still arriving (only the peer's current message can be): the
            // rest goes straight into the receive.
            Incoming &incoming = peer.incoming;
            incoming.stash = nullptr;
            if (fits(recv, message->total)) {
                incoming.recv = &recv;
                incoming.cursor = IovCursor(recv.iov);
                incoming.cursor.scatter(message->data.get(), message->arrived);
            }
        } else {
            deliver_eager(recv, *message);
        }
        recycle(*message);
        break;
    case Unexpected::Kind::rndv:
        pulls_.push_back({rank, &recv, std::move(message)});
        break;
    case Unexpected::Kind::self_send: {
        Channel &send = *message->sender;
        if (fits(recv, send.nbytes)) {
            copy_iov(recv.iov, send.iov, send.nbytes);
            finish(recv, MERIDIAN_SUCCESS);
        }
        finish(send, MERIDIAN_SUCCESS);
        break;
    }
    }
}

void Transport::deliver_eager(Channel &recv, Unexpected &message)
{
    if (!fits(recv, message.total)) {
        return;
    }
    if (message.total == 0) {
        // nothing to copy (either pointer may be NULL)
    } else if (recv.iov.size() == 1) {
        std::memcpy(recv.iov[0].iov_base, message.data.get(), message.total);
    } else {
        IovCursor(recv.iov).scatter(message.data.get(), message.total);
    }
    finish(recv, MERIDIAN_SUCCESS);
}

// Push what fits of a message into the peer's ring; true when all of it is
// in.  A rendezvous request is one slot.
bool Transport::push_message(Peer &peer, OutMessage &message)
{
    const std::size_t capacity = peer.out.capacity();
    if (message.rndv) {
        shm::SlotHeader *slot = peer.out.claim();
        if (slot == nullptr) {
            return false;
        }
        Channel &channel = *message.channel;
        std::byte *payload = shm::Ring::payload(slot);
        shm::RndvBody body{};
        body.send_id = channel.rndv_id;
        body.iov_address = reinterpret_cast<std::uint64_t>(channel.iov.data());
        body.iovcnt = channel.iov.size();
        body.inline_count =
            std::min<std::uint64_t>(body.iovcnt, (capacity - sizeof body) / sizeof(WireIov));
        body.flags = peer.cma_mine ? shm::rndv_may_split : 0;
        std::memcpy(payload, &body, sizeof body);
        std::memcpy(payload + sizeof body, channel.iov.data(), body.inline_count * sizeof(WireIov));
        slot->kind = static_cast<std::uint32_t>(shm::Kind::rndv);
        slot->tag = message.tag;
        slot->total = message.total;
        slot->length =
            static_cast<std::uint32_t>(sizeof body + body.inline_count * sizeof(WireIov));
        peer.out.publish(slot);
        message.started = true;
        return true;
    }
    do {
        shm::SlotHeader *slot = peer.out.claim();
        if (slot == nullptr) {
            return false;
        }
        const std::size_t len = std::min(capacity, message.total - message.sent);
        if (message.channel == nullptr || len == 0) {
            // freed while half pushed: padding; or an empty message (its
            // block may be NULL)
        } else if (message.channel->iov.size() == 1) {
            std::memcpy(shm::Ring::payload(slot),
                        static_cast<const std::byte *>(message.channel->iov[0].iov_base) +
                            message.sent,
                        len);
        } else {
            message.cursor.gather(shm::Ring::payload(slot), len);
        }
        slot->kind = static_cast<std::uint32_t>(message.started        ? shm::Kind::more
                                                : message.recv_id != 0 ? shm::Kind::data
                                                                       : shm::Kind::first);
        slot->tag = message.tag;
        slot->total = message.total;
        slot->length = static_cast<std::uint32_t>(len);
        peer.out.publish(slot);
        message.started = true;
        message.sent += len;
    } while (message.sent < message.total);
    return true;
}

bool Transport::push_control(Peer &peer, const Control &control)
{
    shm::SlotHeader *slot = peer.out.claim();
    if (slot == nullptr) {
        return false;
    }
    std::memcpy(shm::Ring::payload(slot), control.body.data(), control.body.size());
    slot->kind = static_cast<std::uint32_t>(control.kind);
    slot->tag = 0;
    slot->total = 0;
    slot->length = static_cast<std::uint32_t>(control.body.size());
    peer.out.publish(slot);
    return true;
}

// Control slots go out in order, ahead of queued messages.
void Transport::send_control(Peer &peer, Control control)
{
    if (!peer.ctlq.empty() || !push_control(peer, control)) {
        peer.ctlq.push_back(std::move(control));
    }
}

void Transport::push_pending(Peer &peer)
{
    // Control slots first: they do not disturb a message whose fragments
    // are under way, and the peer waits on them.
    while (!peer.ctlq.empty()) {
        if (!push_control(peer, peer.ctlq.front())) {
            return;
        }
        peer.ctlq.pop_front();
    }
    while (!peer.outq.empty()) {
        OutMessage &message = peer.outq.front();
        if (!push_message(peer, message)) {
            return;
        }
        if (message.channel != nullptr && !message.rndv) {
            finish(*message.channel, MERIDIAN_SUCCESS);
        }
        peer.outq.pop_front();
    }
}

int Transport::drain(int rank, Peer &peer, int budget, bool hold)
{
    int slots = 0;
    for (; slots < budget; ++slots) {
        shm::SlotHeader *slot = peer.in.peek();
        if (slot == nullptr) {
            break;
        }
        switch (static_cast<shm::Kind>(slot->kind)) {
        case shm::Kind::first:
            if (hold && too_early(peer, slot->tag, slot->total)) {
                // It stays in the ring, and what follows it, until its
                // receive starts: the sender's next pushes wait meanwhile.
                return slots;
            }
            on_first(rank, peer, *slot);
            break;
        case shm::Kind::more:
            on_more(peer, *slot);
            break;
        case shm::Kind::rndv:
            on_rndv(rank, peer, *slot);
            break;
        case shm::Kind::fin:
            on_fin(peer, *slot);
            break;
        case shm::Kind::cts:
            on_cts(rank, peer, *slot);
            break;
        case shm::Kind::done:
            on_done(*slot);
            break;
        case shm::Kind::data:
            on_data(peer, *slot);
            break;
        }
        peer.in.release(slot);
    }
    return slots;
}

void Transport::on_first(int, Peer &peer, shm::SlotHeader &slot)
{
    message_begins(peer, slot.tag, slot.total, shm::Ring::payload(&slot), slot.length);
}

bool Transport::too_early(Peer &peer, std::uint64_t tag, std::uint64_t total)
{
    const std::size_t limit = params_.unexpected_limit;
    return matching_for(peer, tag).posted.empty() &&
           (total > limit || unexpected_bytes_ > limit - total);
}

void Transport::message_begins(Peer &peer, std::uint64_t tag, std::size_t total,
                               const std::byte *data, std::size_t len)
{
    Matching &matching = matching_for(peer, tag);
    if (!matching.posted.empty()) {
        Channel &recv = *matching.posted.front();
        matching.posted.pop_front();
        take_fragment(peer, recv, data, len, total);
        return;
    }
    auto message = make_unexpected(total);
    if (len > 0) {
        std::memcpy(message->data.get(), data, len);
    }
    message->arrived = len;
    if (len < total) {
        peer.incoming = Incoming{true, nullptr, message.get(), total, len, {}};
    }
    matching.unexpected.push_back(std::move(message));
}

// The first fragment of a message for a started receive.
void Transport::take_fragment(Peer &peer, Channel &recv, const std::byte *data, std::size_t len,
                              std::size_t total)
{
    Incoming &incoming = peer.incoming;
    if (!fits(recv, total)) {
        if (len < total) {
            incoming = Incoming{true, nullptr, nullptr, total, len, {}};
        }
        return;
    }
    if (recv.iov.size() == 1 && len == total) {
        if (len > 0) {
            std::memcpy(recv.iov[0].iov_base, data, len);
        }
        finish(recv, MERIDIAN_SUCCESS);
        return;
    }
    IovCursor cursor(recv.iov);
    cursor.scatter(data, len);
    if (len == total) {
        finish(recv, MERIDIAN_SUCCESS);
    } else {
        incoming = Incoming{true, &recv, nullptr, total, len, cursor};
    }
}

// A rendezvous message coming through the ring after all (CtsBody).
void Transport::on_data(Peer &peer, shm::SlotHeader &slot)
{
    auto it = split_recvs_.find(slot.tag);
    if (it == split_recvs_.end()) {
        // The receive was freed: its fragments are dropped.
        if (slot.length < slot.total) {
            peer.incoming = Incoming{true, nullptr, nullptr, slot.total, slot.length, {}};
        }
        return;
    }
    Channel &recv = *it->second;
    split_recvs_.erase(it);
    recv.recv_id = 0;
    take_fragment(peer, recv, shm::Ring::payload(&slot), slot.length, slot.total);
}

void Transport::on_more(Peer &peer, shm::SlotHeader &slot)
{
    message_continues(peer, shm::Ring::payload(&slot), slot.length);
}

void Transport::message_continues(Peer &peer, const std::byte *data, std::size_t length)
{
    Incoming &incoming = peer.incoming;
    if (!incoming.active) {
        return; // cannot happen with a well-behaved sender
    }
    const std::size_t len = std::min(length, incoming.total - incoming.got);
    if (incoming.recv != nullptr) {
        incoming.cursor.scatter(data, len);
    } else if (incoming.stash != nullptr) {
        std::memcpy(incoming.stash->data.get() + incoming.got, data, len);
        incoming.stash->arrived += len;
    }
    message_arrived(peer, len);
}

void Transport::message_arrived(Peer &peer, std::size_t len)
{
    Incoming &incoming = peer.incoming;
    incoming.got += len;
    if (incoming.got >= incoming.total) {
        if (incoming.recv != nullptr) {
            finish(*incoming.recv, MERIDIAN_SUCCESS);
        }
        incoming = Incoming{};
    }
}

void Transport::on_rndv(int rank, Peer &peer, shm::SlotHeader &slot)
{
    const std::byte *data = shm::Ring::payload(&slot);
    shm::RndvBody body;
    std::memcpy(&body, data, sizeof body);
    std::vector<iovec> remote(body.inline_count);
    std::memcpy(remote.data(), data + sizeof body, body.inline_count * sizeof(WireIov));
    Matching &matching = matching_for(peer, slot.tag);
    if (!matching.posted.empty()) {
        Channel &recv = *matching.posted.front();
        matching.posted.pop_front();
        pull(rank, peer, recv, body, std::move(remote));
        return;
    }
    auto message = std::make_unique<Unexpected>();
    message->kind = Unexpected::Kind::rndv;
    message->total = slot.total;
    message->rndv = body;
    message->remote_iov = std::move(remote);
    matching.unexpected.push_back(std::move(message));
}

namespace
{

template <typename T> Control make_control(shm::Kind kind, const T &body)
{
    Control control;
    control.kind = kind;
    control.body.resize(sizeof body);
    std::memcpy(control.body.data(), &body, sizeof body);
    return control;
}

// A block list sent inline after a body, or read from the peer when it
// did not fit: 0 or the errno.
int block_list(pid_t pid, std::uint64_t address, std::uint64_t count, std::vector<iovec> &list)
{
    if (list.size() >= count) {
        return 0;
    }
    list.resize(count);
    iovec local{list.data(), count * sizeof(WireIov)};
    iovec remote{reinterpret_cast<void *>(address), local.iov_len};
    return proc::read_from(pid, {&local, 1}, {&remote, 1}, local.iov_len);
}

std::size_t bytes_of(const std::vector<iovec> &list)
{
    std::size_t total = 0;
    for (const iovec &block : list) {
        total += block.iov_len;
    }
    return total;
}

} // namespace

// A matched rendezvous: pull the message (or its head, when the sender
// takes the tail: split copy), then tell the sender.
void Transport::pull(int, Peer &peer, Channel &recv, const shm::RndvBody &body,
                     std::vector<iovec> remote)
{
    int err = block_list(peer.pid, body.iov_address, body.iovcnt, remote);
    const std::size_t total = err == 0 ? bytes_of(remote) : recv.nbytes;
    // CMA costs per block on both sides (the kernel pins the pages of each
    // remote block apart, and walks the local blocks one by one): measured
    // on 72-byte blocks, a copy through the ring and out again is faster.
    // So with coarse blocks on both sides we read the message (or its
    // first half, while the sender writes the second: a large message, and
    // the sender idle); otherwise the sender sends it through the ring.
    const bool sender_coarse = total >= params_.cma_min_block * remote.size();
    const bool may_write = (body.flags & shm::rndv_may_split) != 0;
    std::size_t split = total;
    bool through_ring = false;
    // A message longer than the receive fails it here (the sender's
    // completes: it did its part).
    if (err == 0 && fits(recv, total)) {
        if (!sender_coarse || !coarse(recv)) {
            split = 0;
            through_ring = true;
        } else if (may_write && params_.split_limit != 0 && total >= params_.split_limit &&
                   peer.rndv_out == 0) {
            // The sender waits for our FIN anyway: let it write the second
            // half into our blocks while we read the first.  Not when it
            // has our own large messages to read (an exchange): it is busy
            // then, and the halves would only add a round trip.
            split = total / 2 / 4096 * 4096;
        }
        if (split != total) {
            shm::CtsBody cts{};
            cts.send_id = body.send_id;
            cts.recv_id = next_rndv_id_++;
            cts.split = split;
            cts.through_ring = through_ring ? 1 : 0;
            cts.iov_address = reinterpret_cast<std::uint64_t>(recv.iov.data());
            cts.iovcnt = recv.iov.size();
            cts.inline_count =
                through_ring
                    ? 0
                    : std::min<std::uint64_t>(cts.iovcnt,
                                              (peer.out.capacity() - sizeof cts) / sizeof(WireIov));
            Control control = make_control(shm::Kind::cts, cts);
            control.body.resize(sizeof cts + cts.inline_count * sizeof(WireIov));
            std::memcpy(control.body.data() + sizeof cts, recv.iov.data(),
                        cts.inline_count * sizeof(WireIov));
            send_control(peer, std::move(control));
            recv.recv_id = cts.recv_id;
            split_recvs_.emplace(cts.recv_id, &recv);
            if (through_ring) {
                return; // complete when the last fragment is in
            }
        }
        err = proc::transfer(peer.pid, recv.iov, remote, 0, split, false);
    }
    int status = MERIDIAN_SUCCESS;
    if (err != 0) {
        // ESRCH: the sender is gone; EFAULT: its memory went away under
        // the transfer (a freed channel).
        status = err == ESRCH ? MERIDIAN_ERR_UNREACH : MERIDIAN_ERROR;
        meridian::report_error("msg ofi: rank " + std::to_string(job_.rank) +
                               ": reading the message of " + channel_text(recv) + " from process " +
                               std::to_string(peer.pid) +
                               " (process_vm_readv): " + std::strerror(err));
    }
    if (recv.recv_id != 0) {
        recv.part_status = status; // complete when the sender's DONE comes
    } else if (recv.phase == Phase::active) {
        finish(recv, status);
    }
    send_control(peer, make_control(shm::Kind::fin, shm::FinBody{body.send_id, status}));
}

void Transport::on_fin(Peer &peer, shm::SlotHeader &slot)
{
    shm::FinBody fin;
    std::memcpy(&fin, shm::Ring::payload(&slot), sizeof fin);
    auto it = rndv_sends_.find(fin.send_id);
    if (it == rndv_sends_.end()) {
        return; // the send was freed meanwhile
    }
    Channel &send = *it->second;
    rndv_sends_.erase(it);
    send.rndv_id = 0;
    --peer.rndv_out;
    const int status =
        send.part_status != MERIDIAN_SUCCESS ? send.part_status : static_cast<int>(fin.status);
    send.part_status = MERIDIAN_SUCCESS;
    finish(send, status);
}

// The receiver reads the head of our message; we write the tail into its
// blocks, then say so.
void Transport::on_cts(int, Peer &peer, shm::SlotHeader &slot)
{
    const std::byte *data = shm::Ring::payload(&slot);
    shm::CtsBody cts;
    std::memcpy(&cts, data, sizeof cts);
    int status = MERIDIAN_ERROR; // the send was freed: the receiver must not wait
    auto it = rndv_sends_.find(cts.send_id);
    if (it != rndv_sends_.end() && cts.through_ring != 0) {
        // Our blocks and the receiver's are too fine for CMA: the message
        // goes through the ring like an eager one, addressed to the receive.
        Channel &send = *it->second;
        rndv_sends_.erase(it);
        send.rndv_id = 0;
        --peer.rndv_out;
        OutMessage message;
        message.channel = &send;
        message.recv_id = cts.recv_id;
        message.tag = cts.recv_id;
        message.total = send.nbytes;
        message.cursor = IovCursor(send.iov);
        if (peer.outq.empty() && push_message(peer, message)) {
            finish(send, MERIDIAN_SUCCESS);
        } else {
            peer.outq.push_back(std::move(message));
        }
        return;
    }
    if (it != rndv_sends_.end()) {
        Channel &send = *it->second;
        std::vector<iovec> remote(cts.inline_count);
        if (!remote.empty()) {
            std::memcpy(remote.data(), data + sizeof cts, cts.inline_count * sizeof(WireIov));
        }
        int err = block_list(peer.pid, cts.iov_address, cts.iovcnt, remote);
        if (err == 0) {
            err = proc::transfer(peer.pid, send.iov, remote, cts.split, send.nbytes - cts.split,
                                 true);
        }
        status = MERIDIAN_SUCCESS;
        if (err != 0) {
            status = err == ESRCH ? MERIDIAN_ERR_UNREACH : MERIDIAN_ERROR;
            meridian::report_error("msg ofi: rank " + std::to_string(job_.rank) +
                                   ": writing the message of " + channel_text(send) +
                                   " into process " + std::to_string(peer.pid) +
                                   " (process_vm_writev): " + std::strerror(err));
        }
        send.part_status = status;
    }
    send_done(peer, cts.recv_id, status);
}

void Transport::send_done(Peer &peer, std::uint64_t recv_id, int status)
{
    send_control(peer, make_control(shm::Kind::done, shm::DoneBody{recv_id, status}));
}

void Transport::on_done(shm::SlotHeader &slot)
{
    shm::DoneBody done;
    std::memcpy(&done, shm::Ring::payload(&slot), sizeof done);
    auto it = split_recvs_.find(done.recv_id);
    if (it == split_recvs_.end()) {
        return;
    }
    Channel &recv = *it->second;
    split_recvs_.erase(it);
    recv.recv_id = 0;
    const int status =
        recv.part_status != MERIDIAN_SUCCESS ? recv.part_status : static_cast<int>(done.status);
    recv.part_status = MERIDIAN_SUCCESS;
    if (recv.phase == Phase::active) {
        finish(recv, status);
    }
}

// A receive whose tail the sender is writing cannot let go of its memory
// before the sender's DONE (or the sender's death, or the time limit).
void Transport::await_done(Channel &recv)
{
    const auto deadline = Clock::now() + std::chrono::seconds(std::max(1, params_.timeout_s));
    Channel *one = &recv;
    auto next_check = Clock::now();
    while (recv.recv_id != 0) {
        progress();
        const auto now = Clock::now();
        if (now >= deadline) {
            break;
        }
        if (now >= next_check) {
            next_check = now + std::chrono::milliseconds(params_.liveness_ms);
            if (check_liveness(&one, 1)) {
                break; // peer_died detached it
            }
        }
    }
}

} // namespace meridian::msg_ofi

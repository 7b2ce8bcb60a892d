// SPDX-License-Identifier: BSD-3-Clause
// The sm transport's work: bring-up (this process's ring segment, the
// peers' segments mapped, CMA probed at the word each peer's segment names:
// no address goes through the modex), the rings' traffic, the rendezvous
// protocol, and the flush at finalize.
#include "components/msg_sm/msg_sm_transport.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "mca/msg/base/msg_proc.hpp"
#include "mca/msg/base/msg_util.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_sm
{

using msg::channel_text;
using msg::fail;
using msg::peer_text;

namespace proc = meridian::msg::proc;
using msg::get;
using msg::get_bytes;
using msg::hex;

namespace
{

// A block of the sender's list as it crosses the ring.
struct WireIov {
    std::uint64_t base;
    std::uint64_t len;
};
static_assert(sizeof(WireIov) == sizeof(iovec));

// A word peers read through CMA at connect to learn whether they may (its
// address is in this process's segment, Probe).
std::uint64_t probe_word = 0;

template <typename T> Control make_control(Kind kind, const T &body)
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

Transport::~Transport() = default;

// ---------------------------------------------------------------- bring-up

int Transport::init(const mca_msg_job_t &job, const unsigned char *peers)
{
    job_ = job;
    peers_ = std::vector<Peer>(static_cast<std::size_t>(job.size)); // Peer does not move
    for (int r = 0; r < job.size; ++r) {
        Peer &p = peer(r);
        p.local_rank = job.local_rank_of[static_cast<std::size_t>(r)];
        if (peers[r] != 0 && r != job.rank &&
            job.node_of[static_cast<std::size_t>(r)] == job.node) {
            p.mine = true;
            ranks_.push_back(r);
        }
    }
    payload_ = params_.slot_bytes - header_bytes;
    if (params_.slots == 0) {
        // 64 slots per ring, fewer (not under 8) where a segment of one
        // ring per process of the node would pass 4 MiB.
        const std::size_t budget = std::size_t{4} << 20;
        std::size_t slots = 64;
        while (slots > 8 &&
               slots * params_.slot_bytes * static_cast<std::size_t>(job.local_size) > budget) {
            slots /= 2;
        }
        params_.slots = slots;
    }
    const std::string name = segment_name();
    auto segment = Segment::create(name, static_cast<std::uint32_t>(job.local_size),
                                   static_cast<std::uint32_t>(params_.slots),
                                   static_cast<std::uint32_t>(params_.slot_bytes));
    if (!segment) {
        return fail(segment.error().status, segment.error().message);
    }
    segment_ = std::move(*segment);
    probe_word = 0x6d6572696469616eULL ^ static_cast<std::uint64_t>(::getpid());
    segment_.set_probe({reinterpret_cast<std::uint64_t>(&probe_word), probe_word});
    VERBOSE(DEBUG, "msg sm: segment %s: %u rings of %zu slots of %zu bytes", name.c_str(),
            static_cast<unsigned>(job.local_size), params_.slots, params_.slot_bytes);
    if (int rc = meridian_mca_msg_base_modex_put("sm.seg", name.data(), name.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "msg sm: cannot publish the shared-memory segment's name");
    }
    return MERIDIAN_SUCCESS;
}

int Transport::connect_peer(int rank, Peer &p, std::vector<std::uint8_t> &readable)
{
    std::vector<std::uint8_t> name(128);
    if (get_bytes(rank, "sm.seg", name) != MERIDIAN_SUCCESS) {
        return fail(MERIDIAN_ERR_UNREACH,
                    "msg sm: " + peer_text(rank) + " published no shared-memory segment");
    }
    auto segment = Segment::attach(std::string(name.begin(), name.end()));
    if (!segment) {
        return fail(segment.error().status,
                    segment.error().message + " (of " + peer_text(rank) + ")");
    }
    if (segment->rings() != static_cast<std::uint32_t>(job_.local_size)) {
        return fail(MERIDIAN_ERR_UNREACH,
                    "msg sm: " + peer_text(rank) + " counts " + std::to_string(segment->rings()) +
                        " processes on its node, this process " + std::to_string(job_.local_size));
    }
    p.out = segment->ring(static_cast<std::uint32_t>(job_.local_rank));
    p.in = segment_.ring(static_cast<std::uint32_t>(p.local_rank));
    if (p.out.capacity() != payload_) {
        return fail(MERIDIAN_ERR_UNREACH, "msg sm: " + peer_text(rank) +
                                              " uses another msg_sm_slot_size than this process");
    }
    msg::ProcInfo info;
    if (get(rank, "proc", info) == MERIDIAN_SUCCESS) {
        p.pid = static_cast<pid_t>(info.pid);
    }
    // Can this process pull from the peer (process_vm_readv)?  Yama's
    // ptrace scope, seccomp or a container may forbid it.  The peer's
    // segment says where to try.
    const Probe probe = segment->probe();
    peer_segments_.push_back(std::move(*segment));
    if (params_.cma && p.pid != 0) {
        std::uint64_t value = 0;
        iovec local{&value, sizeof value};
        iovec remote{reinterpret_cast<void *>(probe.address), sizeof value};
        const int err = proc::read_from(p.pid, {&local, 1}, {&remote, 1}, sizeof value);
        if (err == 0 && value == probe.value) {
            readable[static_cast<std::size_t>(p.local_rank)] = 1;
        } else {
            VERBOSE(INFO,
                    "msg sm: CMA from %s is not permitted (%s): large messages go through "
                    "the ring",
                    peer_text(rank).c_str(), err != 0 ? std::strerror(err) : "probe mismatch");
        }
    }
    return MERIDIAN_SUCCESS;
}

int Transport::connect()
{
    readable_.assign(static_cast<std::size_t>(job_.local_size), 0);
    for (const int r : ranks_) {
        if (int rc = connect_peer(r, peer(r), readable_); rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }
    // Second round: who may pull from whom.
    if (int rc = meridian_mca_msg_base_modex_put("sm.cma", readable_.data(), readable_.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "msg sm: cannot publish the CMA results");
    }
    return MERIDIAN_SUCCESS;
}

int Transport::ready()
{
    // Every segment is mapped by everyone who needs it: the names can go.
    segment_.unlink();
    for (const int r : ranks_) {
        Peer &p = peer(r);
        std::vector<std::uint8_t> theirs(static_cast<std::size_t>(job_.local_size));
        if (get_bytes(r, "sm.cma", theirs) == MERIDIAN_SUCCESS &&
            theirs.size() == static_cast<std::size_t>(job_.local_size)) {
            p.cma = theirs[static_cast<std::size_t>(job_.local_rank)] != 0;
        }
        p.cma_mine = readable_[static_cast<std::size_t>(p.local_rank)] != 0;
    }
    return MERIDIAN_SUCCESS;
}

// What completed went into the rings already (a ring lives in the
// receiver's segment, which outlives this process); what still waits --
// control slots a peer waits on, sends not yet whole in a ring -- goes now,
// while its peer lives and within the wait limit.
void Transport::finalize()
{
    // The channels are gone: what arrives now is taken from the rings and
    // dropped (a rendezvous request is answered, so its sender need not
    // wait), and only the protocol's own slots are heeded.
    finalizing_ = true;
    const auto deadline = Clock::now() + std::chrono::seconds(std::max(1, params_.timeout_s));
    auto next_check = Clock::now();
    for (;;) {
        bool waiting = false;
        for (const int r : ranks_) {
            Peer &p = peer(r);
            if (p.outq.empty() && p.ctlq.empty()) {
                continue;
            }
            if (meridian_mca_msg_base_peer_dead(r) != 0) {
                p.outq.clear();
                p.ctlq.clear();
                continue;
            }
            drain(r, p, 16, false); // a full ring of ours may wait on our FIN
            push_pending(p);
            waiting = waiting || !p.outq.empty() || !p.ctlq.empty();
        }
        const auto now = Clock::now();
        if (!waiting || now >= deadline) {
            break;
        }
        if (now >= next_check) {
            next_check = now + std::chrono::milliseconds(5);
            for (const int r : ranks_) {
                Peer &p = peer(r);
                if (p.pid != 0 && (!p.outq.empty() || !p.ctlq.empty()) &&
                    proc::gone(p.pid, 0).has_value()) {
                    p.outq.clear();
                    p.ctlq.clear();
                }
            }
        }
    }
    pulls_.clear();
}

// ---------------------------------------------------------------- channels

int Transport::prepare(mca_msg_channel_t &channel)
{
    auto owned = std::make_unique<ChannelState>();
    Peer &p = peer(channel.peer);
    if (p.channels == 0) {
        active_.push_back(channel.peer);
    }
    ++p.channels;
    channel.transport_data = owned.release();
    return MERIDIAN_SUCCESS;
}

void Transport::cleanup(mca_msg_channel_t &channel)
{
    if (channel.transport_data == nullptr) {
        return; // never prepared
    }
    delete static_cast<ChannelState *>(channel.transport_data);
    channel.transport_data = nullptr;
    Peer &p = peer(channel.peer);
    if (--p.channels == 0) {
        std::erase(active_, channel.peer);
    }
}

void Transport::send(mca_msg_channel_t &channel)
{
    Peer &p = peer(channel.peer);
    OutMessage message;
    message.channel = &channel;
    // Through CMA when the peer may read our blocks and they are coarse
    // (its receive's blocks must be too: see pull).
    message.rndv = p.cma && channel.nbytes > params_.eager_limit && coarse(channel);
    message.tag = channel.tag;
    message.total = channel.nbytes;
    message.cursor = IovCursor({channel.iov, channel.iovcnt});
    if (message.rndv) {
        ChannelState &s = state(channel);
        s.rndv_id = next_rndv_id_++;
        rndv_sends_.emplace(s.rndv_id, &channel);
        ++p.rndv_out;
    }
    if (p.outq.empty() && push_message(p, message)) {
        if (!message.rndv) {
            finish(channel, MERIDIAN_SUCCESS);
        }
        return;
    }
    p.outq.push_back(std::move(message));
}

// Take an active channel out of every queue that refers to it (it is freed,
// or its peer died).
void Transport::cancel(mca_msg_channel_t &channel, bool peer_alive)
{
    Peer &p = peer(channel.peer);
    ChannelState &s = state(channel);
    if (s.rndv_id != 0) {
        rndv_sends_.erase(s.rndv_id);
        s.rndv_id = 0;
        --p.rndv_out;
    }
    if (s.recv_id != 0) {
        // The sender may be writing into its memory right now.
        if (peer_alive) {
            await_done(channel);
        }
        split_recvs_.erase(s.recv_id);
        s.recv_id = 0;
    }
    for (auto pending = pulls_.begin(); pending != pulls_.end(); ++pending) {
        if (pending->recv == &channel) {
            // Not copied yet: the request goes back, first in line, for the
            // next receive of its tag.
            Rndv *message = pending->message.release();
            pulls_.erase(pending);
            meridian_mca_msg_base_announce_again(message->rank, message->tag, message->total,
                                                 message);
            break;
        }
    }
    for (auto out = p.outq.begin(); out != p.outq.end();) {
        if (out->channel != &channel) {
            ++out;
        } else if (!out->started) {
            if (out->recv_id != 0 && peer_alive) {
                // The receive waits for this message: tell it that none comes.
                send_done(p, out->recv_id, MERIDIAN_ERROR);
            }
            out = p.outq.erase(out);
        } else {
            out->channel = nullptr; // the receiver gets the rest as padding
            ++out;
        }
    }
}

// Push what fits of a message into the peer's ring; true when all of it is
// in.  A rendezvous request is one slot.
bool Transport::push_message(Peer &p, OutMessage &message)
{
    const std::size_t capacity = p.out.capacity();
    if (message.rndv) {
        SlotHeader *slot = p.out.claim();
        if (slot == nullptr) {
            return false;
        }
        mca_msg_channel_t &channel = *message.channel;
        std::byte *payload = Ring::payload(slot);
        RndvBody body{};
        body.send_id = state(channel).rndv_id;
        body.iov_address = reinterpret_cast<std::uint64_t>(channel.iov);
        body.iovcnt = channel.iovcnt;
        body.inline_count =
            std::min<std::uint64_t>(body.iovcnt, (capacity - sizeof body) / sizeof(WireIov));
        body.flags = p.cma_mine ? rndv_may_split : 0;
        std::memcpy(payload, &body, sizeof body);
        if (body.inline_count > 0) {
            std::memcpy(payload + sizeof body, channel.iov, body.inline_count * sizeof(WireIov));
        }
        slot->kind = static_cast<std::uint32_t>(Kind::rndv);
        slot->tag = message.tag;
        slot->total = message.total;
        slot->length =
            static_cast<std::uint32_t>(sizeof body + body.inline_count * sizeof(WireIov));
        p.out.publish(slot);
        message.started = true;
        return true;
    }
    do {
        SlotHeader *slot = p.out.claim();
        if (slot == nullptr) {
            return false;
        }
        const std::size_t len = std::min(capacity, message.total - message.sent);
        if (message.channel == nullptr || len == 0) {
            // freed while half pushed: padding; or an empty message (its
            // block may be NULL)
        } else if (message.channel->iovcnt == 1) {
            std::memcpy(Ring::payload(slot),
                        static_cast<const std::byte *>(message.channel->iov[0].iov_base) +
                            message.sent,
                        len);
        } else {
            message.cursor.gather(Ring::payload(slot), len);
        }
        slot->kind = static_cast<std::uint32_t>(message.started        ? Kind::more
                                                : message.recv_id != 0 ? Kind::data
                                                                       : Kind::first);
        slot->tag = message.recv_id != 0 && !message.started ? message.recv_id : message.tag;
        slot->total = message.total;
        slot->length = static_cast<std::uint32_t>(len);
        p.out.publish(slot);
        message.started = true;
        message.sent += len;
    } while (message.sent < message.total);
    return true;
}

bool Transport::push_control(Peer &p, const Control &control)
{
    SlotHeader *slot = p.out.claim();
    if (slot == nullptr) {
        return false;
    }
    std::memcpy(Ring::payload(slot), control.body.data(), control.body.size());
    slot->kind = static_cast<std::uint32_t>(control.kind);
    slot->tag = 0;
    slot->total = 0;
    slot->length = static_cast<std::uint32_t>(control.body.size());
    p.out.publish(slot);
    return true;
}

// Control slots go out in order, ahead of queued messages.
void Transport::send_control(Peer &p, Control control)
{
    if (!p.ctlq.empty() || !push_control(p, control)) {
        p.ctlq.push_back(std::move(control));
    }
}

void Transport::push_pending(Peer &p)
{
    // Control slots first: they do not disturb a message whose fragments
    // are under way, and the peer waits on them.
    while (!p.ctlq.empty()) {
        if (!push_control(p, p.ctlq.front())) {
            return;
        }
        p.ctlq.pop_front();
    }
    while (!p.outq.empty()) {
        OutMessage &message = p.outq.front();
        if (!push_message(p, message)) {
            return;
        }
        if (message.channel != nullptr && !message.rndv) {
            finish(*message.channel, MERIDIAN_SUCCESS);
        }
        p.outq.pop_front();
    }
}

// ---------------------------------------------------------------- receiving

int Transport::drain(int rank, Peer &p, int budget, bool hold)
{
    draining_ = true;
    int slots = 0;
    for (; slots < budget; ++slots) {
        SlotHeader *slot = p.in.peek();
        if (slot == nullptr) {
            break;
        }
        switch (static_cast<Kind>(slot->kind)) {
        case Kind::first:
            if (finalizing_) {
                break;
            }
            if (meridian_mca_msg_base_arrive_begin(rank, slot->tag, slot->total,
                                                   Ring::payload(slot), slot->length,
                                                   hold ? 1 : 0) == 0) {
                // It stays in the ring, and what follows it, until its
                // receive starts: the sender's next pushes wait meanwhile.
                draining_ = false;
                return slots;
            }
            break;
        case Kind::more:
            if (!finalizing_) {
                meridian_mca_msg_base_arrive_more(rank, Ring::payload(slot), slot->length);
            }
            break;
        case Kind::rndv:
            on_rndv(rank, *slot);
            break;
        case Kind::fin:
            on_fin(p, *slot);
            break;
        case Kind::cts:
            on_cts(p, *slot);
            break;
        case Kind::done:
            on_done(*slot);
            break;
        case Kind::data:
            if (!finalizing_) {
                on_data(rank, *slot);
            }
            break;
        }
        p.in.release(slot);
    }
    draining_ = false;
    return slots;
}

// A rendezvous message coming through the ring after all (CtsBody): the
// slot's tag names the receive.
void Transport::on_data(int rank, SlotHeader &slot)
{
    auto it = split_recvs_.find(slot.tag);
    if (it == split_recvs_.end()) {
        // The receive was freed: its fragments are dropped (the base keeps
        // no receive for them).
        meridian_mca_msg_base_arrive_into(rank, nullptr, slot.total, Ring::payload(&slot),
                                          slot.length);
        return;
    }
    mca_msg_channel_t &recv = *it->second;
    split_recvs_.erase(it);
    state(recv).recv_id = 0;
    meridian_mca_msg_base_arrive_into(rank, &recv, slot.total, Ring::payload(&slot), slot.length);
}

void Transport::on_rndv(int rank, SlotHeader &slot)
{
    const std::byte *data = Ring::payload(&slot);
    if (finalizing_) {
        RndvBody body;
        std::memcpy(&body, data, sizeof body);
        send_control(peer(rank), make_control(Kind::fin, FinBody{body.send_id, MERIDIAN_ERROR}));
        return;
    }
    auto message = std::make_unique<Rndv>();
    message->rank = rank;
    message->tag = slot.tag;
    message->total = slot.total;
    std::memcpy(&message->body, data, sizeof message->body);
    message->remote.resize(message->body.inline_count);
    if (!message->remote.empty()) {
        std::memcpy(message->remote.data(), data + sizeof message->body,
                    message->body.inline_count * sizeof(WireIov));
    }
    Rndv *raw = message.release(); // the base holds it until take or drop
    meridian_mca_msg_base_announce(rank, raw->tag, raw->total, raw);
}

int Transport::take(mca_msg_channel_t &recv, std::unique_ptr<Rndv> message)
{
    if (draining_) {
        pull(peer(message->rank), recv, *message);
        return 0;
    }
    pulls_.push_back({&recv, std::move(message)});
    return 1;
}

void Transport::drop(std::unique_ptr<Rndv> message)
{
    Peer &p = peer(message->rank);
    if (meridian_mca_msg_base_peer_dead(message->rank) == 0) {
        // Nobody takes it: the sender need not wait for us.
        send_control(p, make_control(Kind::fin, FinBody{message->body.send_id, MERIDIAN_ERROR}));
    }
}

void Transport::run_pulls()
{
    auto pulls = std::move(pulls_);
    pulls_.clear();
    for (PendingPull &pending : pulls) {
        pull(peer(pending.message->rank), *pending.recv, *pending.message);
    }
}

// A matched rendezvous: pull the message (or its head, when the sender
// takes the tail: split copy), then tell the sender.
void Transport::pull(Peer &p, mca_msg_channel_t &recv, const Rndv &message)
{
    const RndvBody &body = message.body;
    std::vector<iovec> remote = message.remote;
    int err = block_list(p.pid, body.iov_address, body.iovcnt, remote);
    const std::size_t total = err == 0 ? bytes_of(remote) : recv.nbytes;
    // CMA costs per block on both sides (the kernel pins the pages of each
    // remote block apart, and walks the local blocks one by one): measured
    // on 72-byte blocks, a copy through the ring and out again is faster.
    // So with coarse blocks on both sides we read the message (or its
    // first half, while the sender writes the second: a large message, and
    // the sender idle); otherwise the sender sends it through the ring.
    const bool sender_coarse = total >= params_.cma_min_block * remote.size();
    const bool may_write = (body.flags & rndv_may_split) != 0;
    std::size_t split = total;
    bool through_ring = false;
    ChannelState &s = state(recv);
    // A message longer than the receive fails it here (the sender's
    // completes: it did its part).
    bool completed = false;
    if (err == 0 && meridian_mca_msg_base_fits(&recv, total, nullptr) != 0) {
        if (!sender_coarse || !coarse(recv)) {
            split = 0;
            through_ring = true;
        } else if (may_write && params_.split_limit != 0 && total >= params_.split_limit &&
                   p.rndv_out == 0) {
            // The sender waits for our FIN anyway: let it write the second
            // half into our blocks while we read the first.  Not when it
            // has our own large messages to read (an exchange): it is busy
            // then, and the halves would only add a round trip.
            split = total / 2 / 4096 * 4096;
        }
        if (split != total) {
            CtsBody cts{};
            cts.send_id = body.send_id;
            cts.recv_id = next_rndv_id_++;
            cts.split = split;
            cts.through_ring = through_ring ? 1 : 0;
            cts.iov_address = reinterpret_cast<std::uint64_t>(recv.iov);
            cts.iovcnt = recv.iovcnt;
            cts.inline_count =
                through_ring ? 0
                             : std::min<std::uint64_t>(cts.iovcnt, (p.out.capacity() - sizeof cts) /
                                                                       sizeof(WireIov));
            Control control = make_control(Kind::cts, cts);
            control.body.resize(sizeof cts + cts.inline_count * sizeof(WireIov));
            if (cts.inline_count > 0) {
                std::memcpy(control.body.data() + sizeof cts, recv.iov,
                            cts.inline_count * sizeof(WireIov));
            }
            send_control(p, std::move(control));
            s.recv_id = cts.recv_id;
            split_recvs_.emplace(cts.recv_id, &recv);
            if (through_ring) {
                return; // complete when the last fragment is in
            }
        }
        err = proc::transfer(p.pid, {recv.iov, recv.iovcnt}, remote, 0, split, false);
    } else if (err == 0) {
        completed = true; // too long: the base completed it
    }
    int status = MERIDIAN_SUCCESS;
    if (err != 0) {
        // ESRCH: the sender is gone; EFAULT: its memory went away under
        // the transfer (a freed channel).
        status = err == ESRCH ? MERIDIAN_ERR_UNREACH : MERIDIAN_ERROR;
        meridian::report_error("msg sm: rank " + std::to_string(job_.rank) +
                               ": reading the message of " + channel_text(recv) + " from process " +
                               std::to_string(p.pid) +
                               " (process_vm_readv): " + std::strerror(err));
    }
    if (s.recv_id != 0) {
        s.part_status = status; // complete when the sender's DONE comes
    } else if (!completed) {
        finish(recv, status);
    }
    send_control(p, make_control(Kind::fin, FinBody{body.send_id, status}));
}

void Transport::on_fin(Peer &p, SlotHeader &slot)
{
    FinBody fin;
    std::memcpy(&fin, Ring::payload(&slot), sizeof fin);
    auto it = rndv_sends_.find(fin.send_id);
    if (it == rndv_sends_.end()) {
        return; // the send was freed meanwhile
    }
    mca_msg_channel_t &send = *it->second;
    rndv_sends_.erase(it);
    ChannelState &s = state(send);
    s.rndv_id = 0;
    --p.rndv_out;
    const int status =
        s.part_status != MERIDIAN_SUCCESS ? s.part_status : static_cast<int>(fin.status);
    s.part_status = MERIDIAN_SUCCESS;
    finish(send, status);
}

// The receiver reads the head of our message; we write the tail into its
// blocks, then say so.
void Transport::on_cts(Peer &p, SlotHeader &slot)
{
    const std::byte *data = Ring::payload(&slot);
    CtsBody cts;
    std::memcpy(&cts, data, sizeof cts);
    int status = MERIDIAN_ERROR; // the send was freed: the receiver must not wait
    auto it = rndv_sends_.find(cts.send_id);
    if (it != rndv_sends_.end() && cts.through_ring != 0) {
        // Our blocks and the receiver's are too fine for CMA: the message
        // goes through the ring like an eager one, addressed to the receive.
        mca_msg_channel_t &send = *it->second;
        rndv_sends_.erase(it);
        state(send).rndv_id = 0;
        --p.rndv_out;
        OutMessage message;
        message.channel = &send;
        message.recv_id = cts.recv_id;
        message.tag = send.tag;
        message.total = send.nbytes;
        message.cursor = IovCursor({send.iov, send.iovcnt});
        if (p.outq.empty() && push_message(p, message)) {
            finish(send, MERIDIAN_SUCCESS);
        } else {
            p.outq.push_back(std::move(message));
        }
        return;
    }
    if (it != rndv_sends_.end()) {
        mca_msg_channel_t &send = *it->second;
        std::vector<iovec> remote(cts.inline_count);
        if (!remote.empty()) {
            std::memcpy(remote.data(), data + sizeof cts, cts.inline_count * sizeof(WireIov));
        }
        int err = block_list(p.pid, cts.iov_address, cts.iovcnt, remote);
        if (err == 0) {
            err = proc::transfer(p.pid, {send.iov, send.iovcnt}, remote, cts.split,
                                 send.nbytes - cts.split, true);
        }
        status = MERIDIAN_SUCCESS;
        if (err != 0) {
            status = err == ESRCH ? MERIDIAN_ERR_UNREACH : MERIDIAN_ERROR;
            meridian::report_error("msg sm: rank " + std::to_string(job_.rank) +
                                   ": writing the message of " + channel_text(send) +
                                   " into process " + std::to_string(p.pid) +
                                   " (process_vm_writev): " + std::strerror(err));
        }
        state(send).part_status = status;
    }
    send_done(p, cts.recv_id, status);
}

void Transport::send_done(Peer &p, std::uint64_t recv_id, int status)
{
    send_control(p, make_control(Kind::done, DoneBody{recv_id, status}));
}

void Transport::on_done(SlotHeader &slot)
{
    DoneBody done;
    std::memcpy(&done, Ring::payload(&slot), sizeof done);
    auto it = split_recvs_.find(done.recv_id);
    if (it == split_recvs_.end()) {
        return;
    }
    mca_msg_channel_t &recv = *it->second;
    split_recvs_.erase(it);
    ChannelState &s = state(recv);
    s.recv_id = 0;
    const int status =
        s.part_status != MERIDIAN_SUCCESS ? s.part_status : static_cast<int>(done.status);
    s.part_status = MERIDIAN_SUCCESS;
    finish(recv, status);
}

// A receive whose tail the sender is writing cannot let go of its memory
// before the sender's DONE (or the sender's death, or the time limit).
void Transport::await_done(mca_msg_channel_t &recv)
{
    const auto deadline = Clock::now() + std::chrono::seconds(std::max(1, params_.timeout_s));
    auto next_check = Clock::now();
    const Peer &p = peer(recv.peer);
    while (state(recv).recv_id != 0) {
        progress();
        const auto now = Clock::now();
        if (now >= deadline) {
            break;
        }
        if (now >= next_check) {
            next_check = now + std::chrono::milliseconds(5);
            if (p.pid != 0 && proc::gone(p.pid, 0).has_value()) {
                break;
            }
        }
    }
}

// What the peer sent before it died is still good: all of it, past the
// base's early-message limit too.
void Transport::peer_died(int rank)
{
    Peer &p = peer(rank);
    if (p.mine) {
        drain(rank, p, 1 << 30, false);
    }
}

int Transport::progress()
{
    int events = 0;
    if (!pulls_.empty()) {
        events += static_cast<int>(pulls_.size());
        run_pulls();
    }
    for (const int rank : (++polls_ & 63) == 0 ? ranks_ : active_) {
        Peer &p = peer(rank);
        // A quarter of a ring per visit: in an exchange both processes
        // fill and empty rings at once, and slots taken soon after they
        // were written are still near (the strided halo: 124 -> 118 us
        // against 64 at a time).
        events += drain(rank, p, 16);
        if (!p.outq.empty() || !p.ctlq.empty()) {
            push_pending(p);
        }
    }
    return events;
}

const char *Transport::path_name(int rank) const
{
    return peers_[static_cast<std::size_t>(rank)].cma ? "sm+cma" : "sm";
}

} // namespace meridian::msg_sm

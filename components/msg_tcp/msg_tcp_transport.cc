// SPDX-License-Identifier: BSD-3-Clause
// The tcp transport's messages: one connection per pair of processes
// (msg_tcp_socket.hpp), opened by the first to send (msg_tcp_connect.cc).  When both open one
// at once, the one opened by the lower rank stays: each side's answer to
// the other's greeting says which ("Y" or "N").  One connection both ways
// lets a reply carry the acknowledgement of what it answers (with one per
// direction, small messages took 7 us instead of 4.8 between two hosts).
//
// A send writes a header and its blocks straight from the channel's memory
// (sendmsg; finely strided blocks are gathered 64 KiB at a time first) and
// completes once the kernel holds all of it; the stream's messages go up to
// the base's matching as they come (the base keeps the message under way),
// and a long message's rest is read straight into its receive's coarse
// blocks.  At finalize each connection is closed gracefully: what was sent
// is delivered before either end lets go.  Progress asks epoll
// which sockets are ready: one system call while nothing comes.
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "components/msg_tcp/msg_tcp_transport.hpp"
#include "mca/msg/base/msg_util.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_tcp
{

using msg::fail;
using msg::peer_text;

namespace
{

// Blocks handed to one sendmsg or readv (IOV_MAX is 1024; a few dozen
// already fill the socket's buffer).
constexpr std::size_t max_pieces = 64;
// The bytes read at once from a connection; a message's rest at least this
// long goes straight into its receive.
constexpr std::size_t read_buffer = 64 * 1024;
constexpr std::size_t direct_min = 16 * 1024;
// Blocks averaging fewer bytes are gathered before they are sent, or read
// through the buffer when they receive: a system call per few dozen tiny
// blocks costs more than the copy.
constexpr std::size_t fine_block = 1024;
constexpr std::size_t stage_bytes = 64 * 1024;
// At most this much per sendmsg: the kernel handles a whole large message
// in one call worse (ping-pong of 1 MiB between two hosts: 470 us in one
// call, 169 in 128 KiB pieces).
constexpr std::size_t send_chunk = 128 * 1024;

bool fine(const mca_msg_channel_t &channel)
{
    return channel.iovcnt > 1 && channel.nbytes < fine_block * channel.iovcnt;
}

const std::byte zeros[4096] = {};

// The contiguous pieces of the next bytes at cursor, at most bytes of them,
// after the count pieces already in pieces (up to max_pieces in all).
std::size_t add_pieces(IovCursor cursor, std::size_t bytes, iovec *pieces, std::size_t count)
{
    while (bytes > 0 && count < max_pieces) {
        const iovec piece = cursor.piece(bytes);
        if (piece.iov_len == 0) {
            break;
        }
        pieces[count++] = piece;
        cursor.advance(piece.iov_len);
        bytes -= piece.iov_len;
    }
    return count;
}

} // namespace

// ---------------------------------------------------------------- sending

void Transport::send(mca_msg_channel_t &channel)
{
    const int rank = channel.peer;
    Peer &peer = this->peer(rank);
    if (peer.closed) {
        finish(channel, MERIDIAN_ERR_UNREACH);
        meridian_mca_msg_base_peer_died(rank, "closed its connection");
        return;
    }
    OutMessage message;
    message.channel = &channel;
    message.total = channel.nbytes;
    message.cursor = IovCursor({channel.iov, channel.iovcnt});
    message.header = Header{channel.tag, channel.nbytes};
    const bool idle = peer.outq.empty();
    peer.outq.push_back(message);
    if (peer.state == State::none && !peer.awaited) {
        open_connection(rank, peer);
    } else if (idle && peer.state == State::ready) {
        flush(rank, peer);
    }
}

// A receive the base queued: the message it waits for may have stayed in
// the connection; a peer whose connection ended sends nothing more.
void Transport::posted(mca_msg_channel_t &recv)
{
    const int rank = recv.peer;
    Peer &peer = this->peer(rank);
    if (peer.parked && peer.parked_header.tag == recv.tag) {
        unpark(rank, peer);
    }
    if (peer.closed && meridian_mca_msg_base_arrive_left(rank) == 0 &&
        meridian_mca_msg_base_peer_dead(rank) == 0) {
        meridian_mca_msg_base_peer_died(rank, "closed its connection before sending the message");
    }
}

// A started send is abandoned: not begun, it goes; half written, the rest
// goes as zeros (the receiver's stream stays whole).
void Transport::cancel(mca_msg_channel_t &channel)
{
    if (channel.direction != MCA_MSG_SEND) {
        return;
    }
    Peer &peer = this->peer(channel.peer);
    for (auto out = peer.outq.begin(); out != peer.outq.end();) {
        if (out->channel != &channel) {
            ++out;
        } else if (!out->started) {
            out = peer.outq.erase(out);
        } else {
            out->channel = nullptr;
            ++out;
        }
    }
}

// The bytes of the message at the head of the queue, after what went.
std::size_t Transport::fill_pieces(Peer &peer, OutMessage &message, iovec *pieces,
                                   std::size_t count)
{
    if (peer.stage_begin < peer.stage_end) {
        pieces[count++] = {peer.stage.data() + peer.stage_begin, peer.stage_end - peer.stage_begin};
        return count;
    }
    std::size_t left = message.total - message.sent;
    if (left == 0) {
        return count;
    }
    if (message.channel == nullptr) {
        // Freed while half written: the receiver gets zeros for the rest.
        while (left > 0 && count < max_pieces) {
            const std::size_t take = std::min(left, sizeof zeros);
            pieces[count++] = {const_cast<std::byte *>(zeros), take};
            left -= take;
        }
        return count;
    }
    if (fine(*message.channel)) {
        if (peer.stage.empty()) {
            peer.stage.resize(stage_bytes);
        }
        const std::size_t take = std::min(left, stage_bytes);
        message.cursor.gather(peer.stage.data(), take);
        peer.stage_begin = 0;
        peer.stage_end = take;
        pieces[count++] = {peer.stage.data(), take};
        return count;
    }
    return add_pieces(message.cursor, std::min(left, send_chunk), pieces, count);
}

void Transport::account_sent(Peer &peer, OutMessage &message, std::size_t sent)
{
    if (peer.stage_begin < peer.stage_end) {
        peer.stage_begin += sent; // gathered already: the cursor is past it
        if (peer.stage_begin == peer.stage_end) {
            peer.stage_begin = peer.stage_end = 0;
        }
    } else if (message.channel != nullptr) {
        message.cursor.advance(sent);
    }
    message.sent += sent;
}

// Write what waits for the peer, as far as the socket takes it; true when
// all of it went.
bool Transport::flush(int rank, Peer &peer)
{
    if (peer.state != State::ready) {
        return false;
    }
    while (!peer.outq.empty()) {
        OutMessage &message = peer.outq.front();
        iovec pieces[max_pieces];
        std::size_t count = 0;
        const auto *header = reinterpret_cast<const std::byte *>(&message.header);
        if (message.header_sent < sizeof message.header) {
            pieces[count++] = {const_cast<std::byte *>(header + message.header_sent),
                               sizeof message.header - message.header_sent};
        }
        count = fill_pieces(peer, message, pieces, count);
        msghdr msg{};
        msg.msg_iov = pieces;
        msg.msg_iovlen = count;
        const ssize_t sent = ::sendmsg(peer.socket.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                // Tried again by every progress, as soon as any room is
                // there (epoll's EPOLLOUT waits for half the queue to go).
                if (std::find(blocked_.begin(), blocked_.end(), rank) == blocked_.end()) {
                    blocked_.push_back(rank);
                }
                return false;
            }
            connection_ended(rank, std::string("is unreachable: sending failed: ") +
                                       std::strerror(errno));
            return false;
        }
        message.started = true;
        auto done = static_cast<std::size_t>(sent);
        const std::size_t headed = std::min(done, sizeof message.header - message.header_sent);
        message.header_sent += headed;
        done -= headed;
        if (done > 0) {
            account_sent(peer, message, done);
        }
        if (message.header_sent == sizeof message.header && message.sent == message.total) {
            mca_msg_channel_t *channel = message.channel;
            peer.outq.pop_front();
            if (channel != nullptr) {
                finish(*channel, MERIDIAN_SUCCESS);
            }
        }
    }
    return true;
}

void Transport::on_socket(int rank, Peer &peer, std::uint32_t events)
{
    switch (peer.state) {
    case State::none:
        return;
    case State::connecting:
    case State::greeted:
        on_connected(rank, peer, events);
        return;
    case State::ready:
        if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) != 0) {
            read(rank, peer);
        }
        if (peer.socket && (events & EPOLLOUT) != 0) {
            flush(rank, peer);
        }
        return;
    }
}

// ---------------------------------------------------------------- receiving

// The rest of a long message, straight from the socket into its receive's
// blocks (or its early buffer); false when the socket has nothing now or
// the connection ended.
bool Transport::read_direct(int rank, Peer &peer)
{
    iovec pieces[max_pieces];
    const std::size_t count = meridian_mca_msg_base_arrive_pieces(
        rank, pieces, max_pieces, meridian_mca_msg_base_arrive_left(rank), fine_block);
    msghdr msg{};
    msg.msg_iov = pieces;
    msg.msg_iovlen = count;
    const ssize_t got = ::recvmsg(peer.socket.get(), &msg, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return false;
    }
    if (got <= 0) {
        connection_ended(rank, got == 0 ? "closed its connection in the middle of a message"
                                        : std::string("is unreachable: ") + std::strerror(errno));
        return false;
    }
    meridian_mca_msg_base_arrive_placed(rank, static_cast<std::size_t>(got));
    return true;
}

void Transport::read(int rank, Peer &peer)
{
    if (peer.read.empty()) {
        peer.read.resize(read_buffer);
    }
    // A bounded number of reads per call: other peers and other paths get
    // their turn.
    for (int round = 0; round < 16 && peer.socket && !peer.parked; ++round) {
        iovec probe[1];
        if (peer.read_begin == peer.read_end &&
            meridian_mca_msg_base_arrive_left(rank) >= direct_min &&
            meridian_mca_msg_base_arrive_pieces(rank, probe, 1, 1, fine_block) > 0) {
            if (!read_direct(rank, peer)) {
                return;
            }
            continue;
        }
        const std::size_t room = peer.read.size() - peer.read_end;
        const ssize_t got =
            ::recv(peer.socket.get(), peer.read.data() + peer.read_end, room, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return;
        }
        if (got <= 0) {
            connection_ended(rank, got == 0
                                       ? (meridian_mca_msg_base_arrive_left(rank) > 0
                                              ? "closed its connection in the middle of a message"
                                              : "closed its connection")
                                       : std::string("is unreachable: ") + std::strerror(errno));
            return;
        }
        peer.read_end += static_cast<std::size_t>(got);
        take_read(rank, peer);
        if (peer.parked) {
            return;
        }
        if (static_cast<std::size_t>(got) < room) {
            return; // the socket is empty
        }
    }
}

// The messages in what was read: headers, and the bytes behind them.  A
// message nobody waits for yet that would take the early messages past
// msg_base_unexpected_limit stays where it is, and so does what follows it
// (nothing more is read) until its receive starts (unpark): its size is the
// sender's word, and the sender's send waits meanwhile.
void Transport::take_read(int rank, Peer &peer)
{
    std::byte *data = peer.read.data();
    while (peer.read_begin < peer.read_end) {
        const std::size_t available = peer.read_end - peer.read_begin;
        if (const std::size_t left = meridian_mca_msg_base_arrive_left(rank); left > 0) {
            const std::size_t take = std::min(available, left);
            meridian_mca_msg_base_arrive_more(rank, data + peer.read_begin, take);
            peer.read_begin += take;
            continue;
        }
        if (available < sizeof(Header)) {
            break;
        }
        Header header;
        std::memcpy(&header, data + peer.read_begin, sizeof header);
        peer.read_begin += sizeof header;
        if (meridian_mca_msg_base_may_arrive(rank, header.tag, header.total) == 0) {
            peer.parked = true;
            peer.parked_header = header;
            VERBOSE(DEBUG,
                    "msg tcp: rank %d: a message of %llu bytes with tag %s from %s waits in its "
                    "connection for its receive (msg_base_unexpected_limit)",
                    job_.rank, static_cast<unsigned long long>(header.total),
                    msg::hex(header.tag).c_str(), peer_text(rank).c_str());
            watch(peer.socket.get(), events_for(peer), watch_key(Watch::peer, rank), false);
            return;
        }
        const std::size_t take =
            std::min<std::size_t>(peer.read_end - peer.read_begin, header.total);
        meridian_mca_msg_base_arrive_begin(rank, header.tag, header.total, data + peer.read_begin,
                                           take, 0);
        peer.read_begin += take;
    }
    if (peer.read_begin == peer.read_end) {
        peer.read_begin = peer.read_end = 0;
    } else if (peer.read.size() - peer.read_end < sizeof(Header)) {
        // A header split at the end: to the front, with room behind it.
        std::memmove(data, data + peer.read_begin, peer.read_end - peer.read_begin);
        peer.read_end -= peer.read_begin;
        peer.read_begin = 0;
    }
}

// The receive of the message that waited in the connection has started:
// the message goes into it, and reading goes on.
void Transport::unpark(int rank, Peer &peer)
{
    peer.parked = false;
    const std::size_t take =
        std::min<std::size_t>(peer.read_end - peer.read_begin, peer.parked_header.total);
    meridian_mca_msg_base_arrive_begin(rank, peer.parked_header.tag, peer.parked_header.total,
                                       peer.read.data() + peer.read_begin, take, 0);
    peer.read_begin += take;
    take_read(rank, peer);
    if (peer.socket && !peer.parked) {
        watch(peer.socket.get(), events_for(peer), watch_key(Watch::peer, rank), false);
        read(rank, peer);
    }
}

// ---------------------------------------------------------------- ends

// The connection with the peer ended.  A peer that finished closes it;
// while nothing is expected of it that is no error, and a receive started
// later fails at once.
void Transport::connection_ended(int rank, const std::string &why)
{
    Peer &peer = this->peer(rank);
    peer.closed = true;
    const bool busy = !peer.outq.empty() || meridian_mca_msg_base_peer_busy(rank) != 0;
    peer.socket.reset();
    peer.state = State::none;
    peer.writable_wanted = false;
    peer.read_begin = peer.read_end = 0;
    peer.stage_begin = peer.stage_end = 0;
    peer.parked = false;
    std::erase(retry_, rank);
    if (busy) {
        meridian_mca_msg_base_peer_died(rank, why.c_str());
    }
    // What was left of half-written messages (zeros for freed channels)
    // has nowhere to go.
    peer.outq.clear();
}

int Transport::progress()
{
    if (!retry_.empty()) {
        retry_connections();
    }
    if (!accepted_.empty()) {
        expire_unproved();
    }
    if (listener_resting_) {
        wake_listener();
    }
    if (!blocked_.empty()) {
        auto blocked = std::move(blocked_);
        blocked_.clear();
        for (const int rank : blocked) {
            flush(rank, peers_[static_cast<std::size_t>(rank)]);
        }
    }
    epoll_event events[32];
    const int ready = ::epoll_wait(epoll_.get(), events, 32, 0);
    for (int i = 0; i < ready; ++i) {
        const auto kind = static_cast<Watch>(events[i].data.u64 >> 32);
        const auto value = static_cast<int>(events[i].data.u64 & 0xffffffffU);
        switch (kind) {
        case Watch::listener:
            accept();
            break;
        case Watch::accepted:
            greet(value);
            break;
        case Watch::peer: {
            Peer &peer = peers_[static_cast<std::size_t>(value)];
            if (peer.socket) {
                on_socket(value, peer, events[i].events);
            }
            break;
        }
        }
    }
    return ready > 0 ? ready : 0;
}

// ---------------------------------------------------------------- bring-up

Transport::~Transport()
{
    if (epoll_) {
        report_refusals();
    }
}

int Transport::init(const mca_msg_job_t &job, const unsigned char *peers)
{
    job_ = job;
    std::vector<std::uint8_t> name(256);
    node_name_ = msg::get_bytes(job.rank, "node", name) == MERIDIAN_SUCCESS
                     ? std::string(name.begin(), name.end())
                     : std::to_string(job.node);
    peers_ = std::vector<Peer>(static_cast<std::size_t>(job.size)); // Peer does not move
    bool remote = false;
    for (int r = 0; r < job.size; ++r) {
        if (peers[r] != 0 && r != job.rank) {
            peer(r).mine = true;
            ranks_.push_back(r);
            remote = remote || job.node_of[static_cast<std::size_t>(r)] != job.node;
        }
    }
    auto choice = choose_address(msg::pnet_endpoint(), params_.if_include, !remote);
    if (!choice) {
        return fail(choice.error().status, choice.error().message);
    }
    Address address = choice->address;
    auto listener = listen_on(address, bound_);
    std::string where = choice->reason;
    if (!listener && !choice->bound_to.empty()) {
        // The port pnet gave is taken: any port on the same address.
        where = "the pnet endpoint's address (its port: " + listener.error().message + ")";
        if (address.storage.ss_family == AF_INET) {
            reinterpret_cast<sockaddr_in *>(&address.storage)->sin_port = 0;
        } else {
            reinterpret_cast<sockaddr_in6 *>(&address.storage)->sin6_port = 0;
        }
        listener = listen_on(address, bound_);
    }
    if (!listener) {
        return fail(listener.error().status, listener.error().message);
    }
    Socket epoll(::epoll_create1(EPOLL_CLOEXEC));
    if (!epoll) {
        return fail(MERIDIAN_ERR_OUT_OF_RESOURCE,
                    std::string("msg tcp: epoll_create1: ") + std::strerror(errno));
    }
    // This process's key: the job's processes get it through the modex
    // (PMIx serves it to them alone); connections prove they hold their
    // rank's (msg_tcp_auth.hpp).
    auto key = new_key();
    if (!key) {
        return fail(key.error().status, key.error().message);
    }
    key_ = *key;
    job_id_ = job_id(job.nspace != nullptr ? job.nspace : "");
    checker_ = std::make_unique<HelloChecker>(HelloPolicy{
        job_id_, static_cast<std::uint32_t>(job_.rank), static_cast<std::uint32_t>(job_.size),
        [this](std::uint32_t rank) -> const Key * {
            const Peer &p = peers_[rank];
            return static_cast<int>(rank) != job_.rank && p.mine ? &p.key : nullptr;
        }});
    listener_ = std::move(*listener);
    epoll_ = std::move(epoll);
    if (!watch_listener()) {
        return fail(MERIDIAN_ERR_OUT_OF_RESOURCE,
                    std::string("msg tcp: epoll_ctl: ") + std::strerror(errno));
    }
    const auto bytes = bound_.bytes();
    if (int rc = meridian_mca_msg_base_modex_put("tcp.addr", bytes.data(), bytes.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "msg tcp: cannot publish the listener's address");
    }
    if (int rc = meridian_mca_msg_base_modex_put("tcp.key", key_.data(), key_.size());
        rc != MERIDIAN_SUCCESS) {
        return fail(rc, "msg tcp: cannot publish this process's key");
    }
    VERBOSE(INFO, "msg tcp: rank %d listening on %s (%s)", job_.rank, bound_.text().c_str(),
            where.c_str());
    return MERIDIAN_SUCCESS;
}

int Transport::connect()
{
    for (const int r : ranks_) {
        Peer &p = peer(r);
        std::vector<std::uint8_t> address(sizeof(sockaddr_storage));
        if (msg::get_bytes(r, "tcp.addr", address) != MERIDIAN_SUCCESS ||
            !Address::from_bytes(address, p.address)) {
            return fail(MERIDIAN_ERR_UNREACH,
                        "msg tcp: " + peer_text(r) + " published no tcp address");
        }
        std::vector<std::uint8_t> key(p.key.size());
        if (msg::get_bytes(r, "tcp.key", key) != MERIDIAN_SUCCESS || key.size() != p.key.size()) {
            return fail(MERIDIAN_ERR_UNREACH,
                        "msg tcp: " + peer_text(r) + " published no key for the tcp transport");
        }
        std::copy(key.begin(), key.end(), p.key.begin());
    }
    return MERIDIAN_SUCCESS;
}

// Nothing a send completed with is lost at exit: what still waits is
// written, then each connection is closed gracefully -- this end says it
// sends no more, and lets go once the peer's end has closed too (so the
// kernel never answers the peer's last bytes with a reset that would throw
// away what it has not read yet).  Bounded by msg_tcp_linger.
void Transport::finalize()
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(params_.linger_ms);
    while (Clock::now() < deadline && linger()) {
        progress();
    }
    for (const int r : ranks_) {
        Peer &p = peer(r);
        p.outq.clear();
        p.socket.reset();
    }
    accepted_.clear();
    listener_.reset();
}

// One round of the graceful close; true while a connection is still open.
bool Transport::linger()
{
    bool open = false;
    for (const int r : ranks_) {
        Peer &p = peer(r);
        if (!p.socket) {
            continue;
        }
        if (p.state != State::ready) {
            // Not carrying messages yet: nothing of ours is in it.
            p.socket.reset();
            p.state = State::none;
            continue;
        }
        if (!p.outq.empty() || p.stage_begin < p.stage_end) {
            flush(r, p);
            open = true;
            continue;
        }
        if (!p.closed) {
            p.closed = true; // sent all: say so once
            (void)::shutdown(p.socket.get(), SHUT_WR);
        }
        // Read (and drop) until the peer's end closes.
        std::byte sink[4096];
        for (;;) {
            const ssize_t got = ::recv(p.socket.get(), sink, sizeof sink, MSG_DONTWAIT);
            if (got > 0) {
                continue;
            }
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                open = true;
            } else {
                p.socket.reset(); // its end closed (or failed): done
            }
            break;
        }
    }
    return open;
}

} // namespace meridian::msg_tcp

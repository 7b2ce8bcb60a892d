// The tcp path: between nodes where libfabric would use tcp, the messages
// go through the transport's own sockets (qmp_ofi_tcp.hpp), one connection
// per pair of processes, opened by the first to send.  When both open one
// at once, the one opened by the lower rank stays: each side's answer to
// the other's greeting says which ("Y" or "N").  One connection both ways
// lets a reply carry the acknowledgement of what it answers (with one per
// direction, small messages took 7 us instead of 4.8 between two hosts).
//
// A send writes a header and its blocks straight from the channel's memory
// (sendmsg; finely strided blocks are gathered 64 KiB at a time first) and
// completes once the kernel holds all of it; a receive takes the message
// from the stream as the shm path takes fragments from a ring (matching,
// early messages and the message under way are shared with it), and reads
// a long message's rest straight into coarse blocks.  Progress asks epoll
// which sockets are ready: one system call while nothing comes.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "components/qmp_ofi/qmp_ofi_modex.hpp"
#include "components/qmp_ofi/qmp_ofi_transport.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ofi
{

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

bool fine(const Channel &channel)
{
    return channel.iov.size() > 1 && channel.nbytes < fine_block * channel.iov.size();
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

void Transport::start_tcp(Channel &channel)
{
    const int rank = channel.peer;
    Peer &peer = peers_[static_cast<std::size_t>(rank)];
    if (channel.direction == MCA_MSG_RECV) {
        start_recv_matched(peer, channel, *channel.matching);
        if (peer.tcp_parked && peer.parked.tag == channel.tag && channel.phase == Phase::active) {
            unpark(rank, peer); // the message it waits for stayed in the connection
        }
        if (channel.phase == Phase::active && peer.tcp_closed && !peer.incoming.active) {
            // Nothing more can come from it.
            peer_died(rank, "closed its connection before sending the message");
        }
        return;
    }
    if (peer.tcp_closed) {
        finish(channel, MERIDIAN_ERR_UNREACH);
        peer_died(rank, "closed its connection");
        return;
    }
    OutMessage message;
    message.channel = &channel;
    message.tag = channel.tag;
    message.total = channel.nbytes;
    message.cursor = IovCursor(channel.iov);
    message.header = tcp::Header{channel.tag, channel.nbytes};
    const bool idle = peer.outq.empty();
    peer.outq.push_back(message);
    if (peer.tcp_state == TcpState::none && !peer.tcp_awaited) {
        open_connection(rank, peer);
    } else if (idle && peer.tcp_state == TcpState::ready) {
        flush_tcp(rank, peer);
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
bool Transport::flush_tcp(int rank, Peer &peer)
{
    if (peer.tcp_state != TcpState::ready) {
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
        const ssize_t sent = ::sendmsg(peer.tcp_socket.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                // Tried again by every progress, as soon as any room is
                // there (epoll's EPOLLOUT waits for half the queue to go).
                if (std::find(tcp_blocked_.begin(), tcp_blocked_.end(), rank) ==
                    tcp_blocked_.end()) {
                    tcp_blocked_.push_back(rank);
                }
                return false;
            }
            tcp_closed(rank,
                       std::string("is unreachable: sending failed: ") + std::strerror(errno));
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
            Channel *channel = message.channel;
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
    switch (peer.tcp_state) {
    case TcpState::none:
        return;
    case TcpState::connecting:
    case TcpState::greeted:
        on_connected(rank, peer, events);
        return;
    case TcpState::ready:
        if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) != 0) {
            read_tcp(rank, peer);
        }
        if (peer.tcp_socket && (events & EPOLLOUT) != 0) {
            flush_tcp(rank, peer);
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
    Incoming &incoming = peer.incoming;
    const std::size_t left = incoming.total - incoming.got;
    iovec pieces[max_pieces];
    std::size_t count = 0;
    if (incoming.recv != nullptr) {
        count = add_pieces(incoming.cursor, left, pieces, count);
    } else {
        pieces[count++] = {incoming.stash->data.get() + incoming.got, left};
    }
    msghdr msg{};
    msg.msg_iov = pieces;
    msg.msg_iovlen = count;
    const ssize_t got = ::recvmsg(peer.tcp_socket.get(), &msg, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return false;
    }
    if (got <= 0) {
        tcp_closed(rank, got == 0 ? "closed its connection in the middle of a message"
                                  : std::string("is unreachable: ") + std::strerror(errno));
        return false;
    }
    const auto n = static_cast<std::size_t>(got);
    if (incoming.recv != nullptr) {
        incoming.cursor.advance(n);
    } else {
        incoming.stash->arrived += n;
    }
    message_arrived(peer, n);
    return true;
}

void Transport::read_tcp(int rank, Peer &peer)
{
    if (peer.read.empty()) {
        peer.read.resize(read_buffer);
    }
    // A bounded number of reads per call: other peers and other paths get
    // their turn.
    for (int round = 0; round < 16 && peer.tcp_socket && !peer.tcp_parked; ++round) {
        const Incoming &incoming = peer.incoming;
        if (peer.read_begin == peer.read_end && incoming.active &&
            incoming.total - incoming.got >= direct_min &&
            ((incoming.recv != nullptr && !fine(*incoming.recv)) || incoming.stash != nullptr)) {
            if (!read_direct(rank, peer)) {
                return;
            }
            continue;
        }
        const std::size_t room = peer.read.size() - peer.read_end;
        const ssize_t got =
            ::recv(peer.tcp_socket.get(), peer.read.data() + peer.read_end, room, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return;
        }
        if (got <= 0) {
            tcp_closed(rank, got == 0 ? (peer.incoming.active
                                             ? "closed its connection in the middle of a message"
                                             : "closed its connection")
                                      : std::string("is unreachable: ") + std::strerror(errno));
            return;
        }
        peer.read_end += static_cast<std::size_t>(got);
        take_read(rank, peer);
        if (peer.tcp_parked) {
            return;
        }
        if (static_cast<std::size_t>(got) < room) {
            return; // the socket is empty
        }
    }
}

// The messages in what was read: headers, and the bytes behind them.  A
// message nobody waits for yet that would take the early messages past
// msg_ofi_unexpected_limit stays where it is, and so does what follows it
// (nothing more is read) until its receive starts (unpark): its size is the
// sender's word, and the sender's send waits meanwhile.
void Transport::take_read(int rank, Peer &peer)
{
    std::byte *data = peer.read.data();
    while (peer.read_begin < peer.read_end) {
        const std::size_t available = peer.read_end - peer.read_begin;
        if (peer.incoming.active) {
            const std::size_t take = std::min(available, peer.incoming.total - peer.incoming.got);
            message_continues(peer, data + peer.read_begin, take);
            peer.read_begin += take;
            continue;
        }
        if (available < sizeof(tcp::Header)) {
            break;
        }
        tcp::Header header;
        std::memcpy(&header, data + peer.read_begin, sizeof header);
        peer.read_begin += sizeof header;
        if (too_early(peer, header.tag, header.total)) {
            peer.tcp_parked = true;
            peer.parked = header;
            VERBOSE(DEBUG,
                    "msg ofi: rank %d: a message of %llu bytes with tag %s from %s waits in its "
                    "connection for its receive (%zu bytes held early; msg_ofi_unexpected_limit "
                    "%zu)",
                    job_.rank, static_cast<unsigned long long>(header.total),
                    hex(header.tag).c_str(), describe(rank).c_str(), unexpected_bytes_,
                    params_.unexpected_limit);
            watch(peer.tcp_socket.get(), events_for(peer), tcp::watch_key(tcp::Watch::peer, rank),
                  false);
            return;
        }
        const std::size_t take =
            std::min<std::size_t>(peer.read_end - peer.read_begin, header.total);
        message_begins(peer, header.tag, header.total, data + peer.read_begin, take);
        peer.read_begin += take;
    }
    if (peer.read_begin == peer.read_end) {
        peer.read_begin = peer.read_end = 0;
    } else if (peer.read.size() - peer.read_end < sizeof(tcp::Header)) {
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
    peer.tcp_parked = false;
    const std::size_t take =
        std::min<std::size_t>(peer.read_end - peer.read_begin, peer.parked.total);
    message_begins(peer, peer.parked.tag, peer.parked.total, peer.read.data() + peer.read_begin,
                   take);
    peer.read_begin += take;
    take_read(rank, peer);
    if (peer.tcp_socket && !peer.tcp_parked) {
        watch(peer.tcp_socket.get(), events_for(peer), tcp::watch_key(tcp::Watch::peer, rank),
              false);
        read_tcp(rank, peer);
    }
}

// ---------------------------------------------------------------- ends

bool Transport::busy_with(int rank, const Peer &peer) const
{
    if (peer.incoming.active || !peer.outq.empty()) {
        return true;
    }
    for (const auto &[raw, channel] : channels_) {
        if (channel->peer == rank && channel->phase == Phase::active) {
            return true;
        }
    }
    return false;
}

// The connection with the peer ended.  A peer that finished closes it;
// while nothing is expected of it that is no error, and a receive started
// later fails at once.
void Transport::tcp_closed(int rank, const std::string &why)
{
    Peer &peer = peers_[static_cast<std::size_t>(rank)];
    peer.tcp_closed = true;
    const bool busy = busy_with(rank, peer);
    peer.tcp_socket.reset();
    peer.tcp_state = TcpState::none;
    peer.tcp_writable_wanted = false;
    peer.read_begin = peer.read_end = 0;
    peer.stage_begin = peer.stage_end = 0;
    peer.tcp_parked = false;
    std::erase(tcp_retry_, rank);
    if (busy) {
        peer_died(rank, why);
    }
    // What was left of half-written messages (zeros for freed channels)
    // has nowhere to go.
    peer.outq.clear();
}

void Transport::progress_tcp()
{
    if (!tcp_retry_.empty()) {
        retry_connections();
    }
    if (!tcp_accepted_.empty()) {
        expire_unproved();
    }
    if (tcp_listener_resting_) {
        wake_listener();
    }
    if (!tcp_blocked_.empty()) {
        auto blocked = std::move(tcp_blocked_);
        tcp_blocked_.clear();
        for (const int rank : blocked) {
            flush_tcp(rank, peers_[static_cast<std::size_t>(rank)]);
        }
    }
    epoll_event events[32];
    const int ready = ::epoll_wait(tcp_epoll_.get(), events, 32, 0);
    for (int i = 0; i < ready; ++i) {
        const auto kind = static_cast<tcp::Watch>(events[i].data.u64 >> 32);
        const auto value = static_cast<int>(events[i].data.u64 & 0xffffffffU);
        switch (kind) {
        case tcp::Watch::listener:
            accept_tcp();
            break;
        case tcp::Watch::accepted:
            greet_tcp(value);
            break;
        case tcp::Watch::peer: {
            Peer &peer = peers_[static_cast<std::size_t>(value)];
            if (peer.tcp_socket) {
                on_socket(value, peer, events[i].events);
            }
            break;
        }
        }
    }
}

} // namespace meridian::msg_ofi

// SPDX-License-Identifier: BSD-3-Clause
// The tcp transport's connections: opening one to a peer, accepting one
// from a peer, and keeping strangers out (msg_tcp_auth.hpp says how a
// connection proves it comes from the job).
//
// What a stranger can do to the listener is bounded: a connection that has
// not proved itself gets msg_tcp_handshake_timeout, and at most
// msg_tcp_pending_max of them are held (the oldest makes room); nothing is
// allocated by what an unproved connection says; only a connection that
// proved itself becomes a peer's, so only its end can make the peer dead.
// Out of descriptors, the listener rests (no spinning on accept) after
// closing an unproved connection to let the next peer in.  Every refusal is
// reported with its source address, the first few of every 10 s one by one.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "components/msg_tcp/msg_tcp_transport.hpp"
#include "mca/msg/base/msg_util.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_tcp
{

using msg::peer_text;

namespace
{

// Connections a peer closes before answering (its handshake time limit
// passed while this process computed, or a flood of strangers made it
// close the oldest): opened again this many times, 1, 2, 4 ... ms apart.
constexpr int connect_attempts = 10;
// Refusals reported one by one in each window; the rest are counted.
constexpr int refusals_per_window = 3;
constexpr auto refusal_window = std::chrono::seconds(10);

} // namespace

void Transport::watch(int fd, std::uint32_t events, std::uint64_t what, bool added)
{
    epoll_event event{};
    event.events = events;
    event.data.u64 = what;
    if (::epoll_ctl(epoll_.get(), added ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event) != 0) {
        meridian::report_error(std::string("msg tcp: epoll_ctl: ") + std::strerror(errno));
    }
}

bool Transport::watch_listener()
{
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = watch_key(Watch::listener, 0);
    return ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, listener_.get(), &event) == 0;
}

// What a peer's socket is watched for: its bytes (unless a message waits
// in it for its receive), and room to write when something waits for that.
std::uint32_t Transport::events_for(const Peer &peer) const
{
    std::uint32_t events = peer.parked ? 0u : (EPOLLIN | EPOLLRDHUP);
    if (peer.writable_wanted) {
        events |= EPOLLOUT;
    }
    return events;
}

void Transport::want_writable(int rank, Peer &peer, bool wanted)
{
    if (peer.writable_wanted != wanted && peer.socket) {
        peer.writable_wanted = wanted;
        watch(peer.socket.get(), events_for(peer), watch_key(Watch::peer, rank), false);
    }
}

// ---------------------------------------------------------------- opening

void Transport::open_connection(int rank, Peer &peer)
{
    peer.hello =
        Hello{static_cast<std::uint32_t>(job_.rank), static_cast<std::uint32_t>(rank), new_nonce()};
    peer.answer_got = 0;
    auto socket = connect_to(peer.address, bound_);
    if (!socket) {
        connection_ended(rank, "is unreachable: " + socket.error().message);
        return;
    }
    peer.socket = std::move(*socket);
    peer.state = State::connecting;
    peer.writable_wanted = true;
    watch(peer.socket.get(), EPOLLIN | EPOLLOUT | EPOLLRDHUP, watch_key(Watch::peer, rank), true);
}

// The peer closed the connection we opened before it answered: open
// another a little later, a bounded number of times.
void Transport::connect_again(int rank, Peer &peer, const std::string &why)
{
    peer.socket.reset();
    peer.state = State::none;
    peer.writable_wanted = false;
    if (++peer.attempts >= connect_attempts) {
        connection_ended(rank, "closed each of the " + std::to_string(peer.attempts) +
                                   " connections this process opened to it before answering (the "
                                   "last: " +
                                   why + ")");
        return;
    }
    VERBOSE(INFO, "msg tcp: rank %d: %s closed our connection before answering (%s): again",
            job_.rank, peer_text(rank).c_str(), why.c_str());
    peer.retry_at = Clock::now() + std::chrono::milliseconds(1 << (peer.attempts - 1));
    retry_.push_back(rank);
}

void Transport::retry_connections()
{
    const auto now = Clock::now();
    std::erase_if(retry_, [&](int rank) {
        Peer &peer = this->peer(rank);
        if (now < peer.retry_at) {
            return false;
        }
        if (peer.state == State::none && !peer.closed && !peer.awaited) {
            open_connection(rank, peer);
        }
        return true;
    });
}

// Our connection's events before it carries messages: connected (the hello
// goes), or the answer coming.
void Transport::on_connected(int rank, Peer &peer, std::uint32_t events)
{
    if (peer.state == State::greeted) {
        if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) != 0) {
            answer(rank, peer);
        }
        return;
    }
    if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) {
        return;
    }
    if (const int error = connect_error(peer.socket.get()); error != 0) {
        if (error == ECONNRESET || error == ECONNABORTED || error == EPIPE) {
            // Accepted, then closed before this process could say hello
            // (the listener made room for newer connections).
            connect_again(rank, peer, std::strerror(error));
            return;
        }
        connection_ended(rank, "is unreachable: cannot connect to " + peer.address.text() + ": " +
                                   std::strerror(error));
        return;
    }
    // A fresh connection's buffer takes the hello at once.
    const HelloBytes hello = make_hello(key_, job_id_, peer.hello);
    if (::send(peer.socket.get(), hello.data(), hello.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
        static_cast<ssize_t>(hello.size())) {
        connect_again(rank, peer, std::string("sending the hello: ") + std::strerror(errno));
        return;
    }
    peer.state = State::greeted;
    want_writable(rank, peer, false);
}

// The peer's answer to our hello: proved by its key, it says whether this
// connection is the pair's.
void Transport::answer(int rank, Peer &peer)
{
    auto *into = reinterpret_cast<std::byte *>(peer.answer.data());
    const ssize_t got = ::recv(peer.socket.get(), into + peer.answer_got,
                               peer.answer.size() - peer.answer_got, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return;
    }
    if (got <= 0) {
        connect_again(rank, peer, got == 0 ? "end of stream" : std::strerror(errno));
        return;
    }
    peer.answer_got += static_cast<std::size_t>(got);
    if (peer.answer_got < peer.answer.size()) {
        return;
    }
    auto verdict = check_answer(peer.answer, peer.key, job_id_, peer.hello);
    if (!verdict) {
        // Not the peer: its port is someone else's now.
        connection_ended(rank, "is unreachable: the process listening at " + peer.address.text() +
                                   " is not it: " + verdict.error().message);
        return;
    }
    peer.attempts = 0;
    if (*verdict == verdict_yes) {
        connection_ready(rank, peer);
        return;
    }
    // Its own connection, from the lower rank, is the pair's: what waits
    // goes on that one when it comes.
    peer.socket.reset();
    peer.state = State::none;
    peer.writable_wanted = false;
    peer.awaited = true;
}

// The connection carries messages: what waited goes.
void Transport::connection_ready(int rank, Peer &peer)
{
    peer.state = State::ready;
    if (!flush(rank, peer)) {
        return;
    }
    if (peer.socket) {
        read(rank, peer); // what came behind the answer or the hello
    }
}

// ---------------------------------------------------------------- accepting

void Transport::accept()
{
    for (int i = 0; i < 64 && !listener_resting_; ++i) {
        Address from;
        auto socket = accept_from(listener_.get(), from);
        if (!socket) {
            if (socket.error().status != MERIDIAN_ERR_OUT_OF_RESOURCE) {
                VERBOSE(INFO, "%s", socket.error().message.c_str());
                return;
            }
            if (!make_room_for_accept()) {
                rest_listener();
                return;
            }
            continue;
        }
        if (!*socket) {
            return;
        }
        if (accepted_.size() >= params_.pending_max) {
            make_room_for_accept();
        }
        const int fd = socket->get();
        Accepted &accepted = accepted_[fd];
        accepted.socket = std::move(*socket);
        accepted.from = from;
        accepted.since = Clock::now();
        watch(fd, EPOLLIN | EPOLLRDHUP, watch_key(Watch::accepted, fd), true);
        greet(fd); // a peer's hello is there with its connection
    }
}

// Close the oldest connection that has not proved itself; false when there
// is none.
bool Transport::make_room_for_accept()
{
    auto oldest = accepted_.end();
    for (auto it = accepted_.begin(); it != accepted_.end(); ++it) {
        if (oldest == accepted_.end() || it->second.since < oldest->second.since) {
            oldest = it;
        }
    }
    if (oldest == accepted_.end()) {
        return false;
    }
    refuse(oldest->second.from,
           "closed before it proved itself, to make room for newer connections (" +
               std::to_string(accepted_.size()) + " were waiting; msg_tcp_pending_max " +
               std::to_string(params_.pending_max) + ", or out of descriptors)");
    accepted_.erase(oldest);
    return true;
}

// Out of descriptors with nothing to close: stop watching the listener for
// a while (each time twice as long, up to a second) instead of spinning on
// accept; connections wait in its backlog meanwhile.
void Transport::rest_listener()
{
    listener_rest_ms_ = std::clamp(listener_rest_ms_ * 2, 10, 1000);
    (void)::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, listener_.get(), nullptr);
    listener_resting_ = true;
    listener_rests_until_ = Clock::now() + std::chrono::milliseconds(listener_rest_ms_);
    refuse(Address{}, "this process is out of file descriptors: the listener rests " +
                          std::to_string(listener_rest_ms_) + " ms");
}

void Transport::wake_listener()
{
    if (Clock::now() < listener_rests_until_) {
        return;
    }
    listener_resting_ = false;
    if (!watch_listener()) {
        meridian::report_error(std::string("msg tcp: epoll_ctl: ") + std::strerror(errno));
        return;
    }
    accept();
    if (!listener_resting_) {
        listener_rest_ms_ = 0;
    }
}

// The hello of an accepted connection, as far as it came; once whole, the
// connection is refused or admitted.
void Transport::greet(int fd)
{
    auto it = accepted_.find(fd);
    if (it == accepted_.end()) {
        return;
    }
    Accepted &accepted = it->second;
    const ssize_t got = ::recv(fd, accepted.hello.data() + accepted.got,
                               accepted.hello.size() - accepted.got, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return;
    }
    if (got <= 0) {
        // Closed having said nothing: a peer whose own attempt gave way to
        // ours (the pair keeps one connection), or a port probe.
        if (accepted.got == 0) {
            VERBOSE(INFO, "msg tcp: rank %d: a connection from %s closed before it said anything",
                    job_.rank, accepted.from.text().c_str());
        } else {
            refuse(accepted.from, "it closed after " + std::to_string(accepted.got) + " of the " +
                                      std::to_string(hello_bytes) + " bytes of a greeting");
        }
        accepted_.erase(it);
        return;
    }
    accepted.got += static_cast<std::size_t>(got);
    if (accepted.got < accepted.hello.size()) {
        return;
    }
    auto hello = checker_->check(accepted.hello);
    if (!hello) {
        refuse(accepted.from, hello.error().message);
        accepted_.erase(it);
        return;
    }
    const Peer &peer = peers_[hello->from];
    if (!peer.address.wildcard() && !peer.address.same_host(accepted.from)) {
        refuse(accepted.from, "it proves it is rank " + std::to_string(hello->from) +
                                  " but comes from another address than the one rank " +
                                  std::to_string(hello->from) + " published (" +
                                  peer.address.host_text() + ")");
        accepted_.erase(it);
        return;
    }
    if (auto fresh = checker_->admit(*hello); !fresh) {
        refuse(accepted.from, fresh.error().message);
        accepted_.erase(it);
        return;
    }
    admit(fd, *hello);
}

// A connection that proved it comes from the peer: the answer, and the
// connection is the pair's unless ours (from the lower rank) is.
void Transport::admit(int fd, const Hello &hello)
{
    auto it = accepted_.find(fd);
    const int rank = static_cast<int>(hello.from);
    Peer &peer = peers_[hello.from];
    const bool take = peer.state == State::none || (peer.state != State::ready && rank < job_.rank);
    const AnswerBytes answer = make_answer(key_, job_id_, hello, take ? verdict_yes : verdict_no);
    if (::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
            static_cast<ssize_t>(answer.size()) ||
        !take) {
        accepted_.erase(it);
        return;
    }
    Socket socket = std::move(it->second.socket);
    accepted_.erase(it);
    if (peer.socket) {
        peer.socket.reset(); // our own attempt gives way
    }
    std::erase(retry_, rank);
    peer.socket = std::move(socket);
    peer.writable_wanted = false;
    peer.awaited = false;
    peer.attempts = 0;
    watch(fd, events_for(peer), watch_key(Watch::peer, rank), false);
    connection_ready(rank, peer);
}

// Connections past their time to prove themselves are closed.
void Transport::expire_unproved()
{
    const auto now = Clock::now();
    const auto limit = std::chrono::milliseconds(params_.handshake_timeout_ms);
    std::erase_if(accepted_, [&](auto &entry) {
        const Accepted &accepted = entry.second;
        if (now - accepted.since < limit) {
            return false;
        }
        refuse(accepted.from,
               "it did not prove itself within " + std::to_string(params_.handshake_timeout_ms) +
                   " ms (msg_tcp_handshake_timeout; " + std::to_string(accepted.got) + " of the " +
                   std::to_string(hello_bytes) + " bytes of a greeting came)");
        return true;
    });
}

// ---------------------------------------------------------------- refusals

void Transport::refuse(const Address &from, const std::string &why)
{
    const auto now = Clock::now();
    if (now - refusals_since_ >= refusal_window) {
        report_refusals();
        refusals_since_ = now;
        refusals_reported_ = 0;
    }
    const std::string text = from.empty() ? ": " + why : " from " + from.text() + ": " + why;
    if (refusals_reported_ < refusals_per_window) {
        ++refusals_reported_;
        meridian::report_warning("msg tcp: rank " + std::to_string(job_.rank) + " on node " +
                                 node_name_ + ": refused a tcp connection" + text);
        return;
    }
    ++refusals_held_;
    last_refusal_ = text;
}

// The refusals counted and not yet reported, in one line.
void Transport::report_refusals()
{
    if (refusals_held_ == 0) {
        return;
    }
    meridian::report_warning("msg tcp: rank " + std::to_string(job_.rank) + " on node " +
                             node_name_ + ": refused " + std::to_string(refusals_held_) +
                             " more tcp connection" + (refusals_held_ == 1 ? "" : "s") +
                             " (the last" + last_refusal_ + ")");
    refusals_held_ = 0;
    last_refusal_.clear();
}

} // namespace meridian::msg_tcp

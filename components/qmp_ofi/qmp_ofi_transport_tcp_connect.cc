// The tcp path's connections: opening one to a peer, accepting one from a
// peer, and keeping strangers out (qmp_ofi_tcp_auth.hpp says how a
// connection proves it comes from the job).
//
// What a stranger can do to the listener is bounded: a connection that has
// not proved itself gets msg_ofi_tcp_handshake_timeout, and at most
// msg_ofi_tcp_pending_max of them are held (the oldest makes room); nothing is
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

#include "components/qmp_ofi/qmp_ofi_modex.hpp"
#include "components/qmp_ofi/qmp_ofi_transport.hpp"
#include <meridian/opal/util/output.hpp>

namespace meridian::msg_ofi
{

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
    if (::epoll_ctl(tcp_epoll_.get(), added ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event) != 0) {
        meridian::report_error(std::string("msg ofi: epoll_ctl: ") + std::strerror(errno));
    }
}

bool Transport::watch_listener()
{
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = tcp::watch_key(tcp::Watch::listener, 0);
    return ::epoll_ctl(tcp_epoll_.get(), EPOLL_CTL_ADD, tcp_listener_.get(), &event) == 0;
}

// What a peer's socket is watched for: its bytes (unless a message waits
// in it for its receive), and room to write when something waits for that.
std::uint32_t Transport::events_for(const Peer &peer) const
{
    std::uint32_t events = peer.tcp_parked ? 0u : (EPOLLIN | EPOLLRDHUP);
    if (peer.tcp_writable_wanted) {
        events |= EPOLLOUT;
    }
    return events;
}

void Transport::want_writable(int rank, Peer &peer, bool wanted)
{
    if (peer.tcp_writable_wanted != wanted && peer.tcp_socket) {
        peer.tcp_writable_wanted = wanted;
        watch(peer.tcp_socket.get(), events_for(peer), tcp::watch_key(tcp::Watch::peer, rank),
              false);
    }
}

// ---------------------------------------------------------------- opening

void Transport::open_connection(int rank, Peer &peer)
{
    peer.tcp_hello = tcp::Hello{static_cast<std::uint32_t>(job_.rank),
                                static_cast<std::uint32_t>(rank), tcp::new_nonce()};
    peer.tcp_answer_got = 0;
    auto socket = tcp::connect_to(peer.tcp_address, tcp_bound_);
    if (!socket) {
        tcp_closed(rank, "is unreachable: " + socket.error().message);
        return;
    }
    peer.tcp_socket = std::move(*socket);
    peer.tcp_state = TcpState::connecting;
    peer.tcp_writable_wanted = true;
    watch(peer.tcp_socket.get(), EPOLLIN | EPOLLOUT | EPOLLRDHUP,
          tcp::watch_key(tcp::Watch::peer, rank), true);
}

// The peer closed the connection we opened before it answered: open
// another a little later, a bounded number of times.
void Transport::connect_again(int rank, Peer &peer, const std::string &why)
{
    peer.tcp_socket.reset();
    peer.tcp_state = TcpState::none;
    peer.tcp_writable_wanted = false;
    if (++peer.tcp_attempts >= connect_attempts) {
        tcp_closed(rank, "closed each of the " + std::to_string(peer.tcp_attempts) +
                             " connections this process opened to it before answering (the "
                             "last: " +
                             why + ")");
        return;
    }
    VERBOSE(INFO, "msg ofi: rank %d: %s closed our connection before answering (%s): again",
            job_.rank, describe(rank).c_str(), why.c_str());
    peer.tcp_retry_at = Clock::now() + std::chrono::milliseconds(1 << (peer.tcp_attempts - 1));
    tcp_retry_.push_back(rank);
}

void Transport::retry_connections()
{
    const auto now = Clock::now();
    std::erase_if(tcp_retry_, [&](int rank) {
        Peer &peer = peers_[static_cast<std::size_t>(rank)];
        if (now < peer.tcp_retry_at) {
            return false;
        }
        if (peer.tcp_state == TcpState::none && !peer.tcp_closed && !peer.tcp_awaited) {
            open_connection(rank, peer);
        }
        return true;
    });
}

// Our connection's events before it carries messages: connected (the hello
// goes), or the answer coming.
void Transport::on_connected(int rank, Peer &peer, std::uint32_t events)
{
    if (peer.tcp_state == TcpState::greeted) {
        if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)) != 0) {
            answer_tcp(rank, peer);
        }
        return;
    }
    if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == 0) {
        return;
    }
    if (const int error = tcp::connect_error(peer.tcp_socket.get()); error != 0) {
        if (error == ECONNRESET || error == ECONNABORTED || error == EPIPE) {
            // Accepted, then closed before this process could say hello
            // (the listener made room for newer connections).
            connect_again(rank, peer, std::strerror(error));
            return;
        }
        tcp_closed(rank, "is unreachable: cannot connect to " + peer.tcp_address.text() + ": " +
                             std::strerror(error));
        return;
    }
    // A fresh connection's buffer takes the hello at once.
    const tcp::HelloBytes hello = tcp::make_hello(tcp_key_, tcp_job_, peer.tcp_hello);
    if (::send(peer.tcp_socket.get(), hello.data(), hello.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
        static_cast<ssize_t>(hello.size())) {
        connect_again(rank, peer, std::string("sending the hello: ") + std::strerror(errno));
        return;
    }
    peer.tcp_state = TcpState::greeted;
    want_writable(rank, peer, false);
}

// The peer's answer to our hello: proved by its key, it says whether this
// connection is the pair's.
void Transport::answer_tcp(int rank, Peer &peer)
{
    auto *into = reinterpret_cast<std::byte *>(peer.tcp_answer.data());
    const ssize_t got = ::recv(peer.tcp_socket.get(), into + peer.tcp_answer_got,
                               peer.tcp_answer.size() - peer.tcp_answer_got, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return;
    }
    if (got <= 0) {
        connect_again(rank, peer, got == 0 ? "end of stream" : std::strerror(errno));
        return;
    }
    peer.tcp_answer_got += static_cast<std::size_t>(got);
    if (peer.tcp_answer_got < peer.tcp_answer.size()) {
        return;
    }
    auto verdict = tcp::check_answer(peer.tcp_answer, peer.tcp_key, tcp_job_, peer.tcp_hello);
    if (!verdict) {
        // Not the peer: its port is someone else's now.
        tcp_closed(rank, "is unreachable: the process listening at " + peer.tcp_address.text() +
                             " is not it: " + verdict.error().message);
        return;
    }
    peer.tcp_attempts = 0;
    if (*verdict == tcp::verdict_yes) {
        connection_ready(rank, peer);
        return;
    }
    // Its own connection, from the lower rank, is the pair's: what waits
    // goes on that one when it comes.
    peer.tcp_socket.reset();
    peer.tcp_state = TcpState::none;
    peer.tcp_writable_wanted = false;
    peer.tcp_awaited = true;
}

// The connection carries messages: what waited goes.
void Transport::connection_ready(int rank, Peer &peer)
{
    peer.tcp_state = TcpState::ready;
    if (!flush_tcp(rank, peer)) {
        return;
    }
    if (peer.tcp_socket) {
        read_tcp(rank, peer); // what came behind the answer or the hello
    }
}

// ---------------------------------------------------------------- accepting

void Transport::accept_tcp()
{
    for (int i = 0; i < 64 && !tcp_listener_resting_; ++i) {
        tcp::Address from;
        auto socket = tcp::accept_from(tcp_listener_.get(), from);
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
        if (tcp_accepted_.size() >= params_.tcp_pending_max) {
            make_room_for_accept();
        }
        const int fd = socket->get();
        Accepted &accepted = tcp_accepted_[fd];
        accepted.socket = std::move(*socket);
        accepted.from = from;
        accepted.since = Clock::now();
        watch(fd, EPOLLIN | EPOLLRDHUP, tcp::watch_key(tcp::Watch::accepted, fd), true);
        greet_tcp(fd); // a peer's hello is there with its connection
    }
}

// Close the oldest connection that has not proved itself; false when there
// is none.
bool Transport::make_room_for_accept()
{
    auto oldest = tcp_accepted_.end();
    for (auto it = tcp_accepted_.begin(); it != tcp_accepted_.end(); ++it) {
        if (oldest == tcp_accepted_.end() || it->second.since < oldest->second.since) {
            oldest = it;
        }
    }
    if (oldest == tcp_accepted_.end()) {
        return false;
    }
    refuse(oldest->second.from,
           "closed before it proved itself, to make room for newer connections (" +
               std::to_string(tcp_accepted_.size()) + " were waiting; msg_ofi_tcp_pending_max " +
               std::to_string(params_.tcp_pending_max) + ", or out of descriptors)");
    tcp_accepted_.erase(oldest);
    return true;
}

// Out of descriptors with nothing to close: stop watching the listener for
// a while (each time twice as long, up to a second) instead of spinning on
// accept; connections wait in its backlog meanwhile.
void Transport::rest_listener()
{
    tcp_listener_rest_ms_ = std::clamp(tcp_listener_rest_ms_ * 2, 10, 1000);
    (void)::epoll_ctl(tcp_epoll_.get(), EPOLL_CTL_DEL, tcp_listener_.get(), nullptr);
    tcp_listener_resting_ = true;
    tcp_listener_rests_until_ = Clock::now() + std::chrono::milliseconds(tcp_listener_rest_ms_);
    refuse(tcp::Address{}, "this process is out of file descriptors: the listener rests " +
                               std::to_string(tcp_listener_rest_ms_) + " ms");
}

void Transport::wake_listener()
{
    if (Clock::now() < tcp_listener_rests_until_) {
        return;
    }
    tcp_listener_resting_ = false;
    if (!watch_listener()) {
        meridian::report_error(std::string("msg ofi: epoll_ctl: ") + std::strerror(errno));
        return;
    }
    accept_tcp();
    if (!tcp_listener_resting_) {
        tcp_listener_rest_ms_ = 0;
    }
}

// The hello of an accepted connection, as far as it came; once whole, the
// connection is refused or admitted.
void Transport::greet_tcp(int fd)
{
    auto it = tcp_accepted_.find(fd);
    if (it == tcp_accepted_.end()) {
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
            VERBOSE(INFO, "msg ofi: rank %d: a connection from %s closed before it said anything",
                    job_.rank, accepted.from.text().c_str());
        } else {
            refuse(accepted.from, "it closed after " + std::to_string(accepted.got) + " of the " +
                                      std::to_string(tcp::hello_bytes) + " bytes of a greeting");
        }
        tcp_accepted_.erase(it);
        return;
    }
    accepted.got += static_cast<std::size_t>(got);
    if (accepted.got < accepted.hello.size()) {
        return;
    }
    auto hello = tcp_checker_->check(accepted.hello);
    if (!hello) {
        refuse(accepted.from, hello.error().message);
        tcp_accepted_.erase(it);
        return;
    }
    const Peer &peer = peers_[hello->from];
    if (!peer.tcp_address.wildcard() && !peer.tcp_address.same_host(accepted.from)) {
        refuse(accepted.from, "it proves it is rank " + std::to_string(hello->from) +
                                  " but comes from another address than the one rank " +
                                  std::to_string(hello->from) + " published (" +
                                  peer.tcp_address.host_text() + ")");
        tcp_accepted_.erase(it);
        return;
    }
    if (auto fresh = tcp_checker_->admit(*hello); !fresh) {
        refuse(accepted.from, fresh.error().message);
        tcp_accepted_.erase(it);
        return;
    }
    admit(fd, *hello);
}

// A connection that proved it comes from the peer: the answer, and the
// connection is the pair's unless ours (from the lower rank) is.
void Transport::admit(int fd, const tcp::Hello &hello)
{
    auto it = tcp_accepted_.find(fd);
    const int rank = static_cast<int>(hello.from);
    Peer &peer = peers_[hello.from];
    const bool take =
        peer.tcp_state == TcpState::none || (peer.tcp_state != TcpState::ready && rank < job_.rank);
    const tcp::AnswerBytes answer =
        tcp::make_answer(tcp_key_, tcp_job_, hello, take ? tcp::verdict_yes : tcp::verdict_no);
    if (::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
            static_cast<ssize_t>(answer.size()) ||
        !take) {
        tcp_accepted_.erase(it);
        return;
    }
    tcp::Socket socket = std::move(it->second.socket);
    tcp_accepted_.erase(it);
    if (peer.tcp_socket) {
        peer.tcp_socket.reset(); // our own attempt gives way
    }
    std::erase(tcp_retry_, rank);
    peer.tcp_socket = std::move(socket);
    peer.tcp_writable_wanted = false;
    peer.tcp_awaited = false;
    peer.tcp_attempts = 0;
    watch(fd, events_for(peer), tcp::watch_key(tcp::Watch::peer, rank), false);
    connection_ready(rank, peer);
}

// Connections past their time to prove themselves are closed.
void Transport::expire_unproved()
{
    const auto now = Clock::now();
    const auto limit = std::chrono::milliseconds(params_.tcp_handshake_timeout_ms);
    std::erase_if(tcp_accepted_, [&](auto &entry) {
        const Accepted &accepted = entry.second;
        if (now - accepted.since < limit) {
            return false;
        }
        refuse(accepted.from, "it did not prove itself within " +
                                  std::to_string(params_.tcp_handshake_timeout_ms) +
                                  " ms (msg_ofi_tcp_handshake_timeout; " +
                                  std::to_string(accepted.got) + " of the " +
                                  std::to_string(tcp::hello_bytes) + " bytes of a greeting came)");
        return true;
    });
}

// ---------------------------------------------------------------- refusals

void Transport::refuse(const tcp::Address &from, const std::string &why)
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
        meridian::report_warning("msg ofi: rank " + std::to_string(job_.rank) + " on node " +
                                 node_name(job_.rank) + ": refused a tcp connection" + text);
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
    meridian::report_warning("msg ofi: rank " + std::to_string(job_.rank) + " on node " +
                             node_name(job_.rank) + ": refused " + std::to_string(refusals_held_) +
                             " more tcp connection" + (refusals_held_ == 1 ? "" : "s") +
                             " (the last" + last_refusal_ + ")");
    refusals_held_ = 0;
    last_refusal_.clear();
}

} // namespace meridian::msg_ofi

// SPDX-License-Identifier: BSD-3-Clause
// The relay's sockets (coord_base_relay.hpp): a listener that serves many
// connections from one thread, each bounded in bytes and time, and the
// sender's side of one connection.
#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <list>
#include <string>
#include <thread>
#include <utility>

#include "mca/coord/base/coord_base_relay.hpp"
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::coord::detail::relay
{

namespace
{

using Clock = std::chrono::steady_clock;

// One file descriptor, closed when it goes.
class Fd
{
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd &operator=(Fd &&other) noexcept
    {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    ~Fd() { reset(); }
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    void reset()
    {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

  private:
    int fd_ = -1;
};

std::string errno_text(int error)
{
    return std::strerror(error);
}

std::string format_peer(const sockaddr_in &peer)
{
    char text[INET_ADDRSTRLEN] = "?";
    ::inet_ntop(AF_INET, &peer.sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(peer.sin_port));
}

int remaining_ms(Clock::time_point deadline)
{
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000 * 60));
}

// The node's IPv4 addresses a sender on another node may use: every address
// of an interface that is up, loopback only when there is nothing else.
std::vector<std::string> node_addresses()
{
    std::vector<std::string> hosts;
    ifaddrs *all = nullptr;
    if (::getifaddrs(&all) == 0) {
        for (const ifaddrs *i = all; i != nullptr; i = i->ifa_next) {
            if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET ||
                (i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0) {
                continue;
            }
            char text[INET_ADDRSTRLEN];
            const auto *in = reinterpret_cast<const sockaddr_in *>(i->ifa_addr);
            if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) != nullptr) {
                hosts.emplace_back(text);
            }
        }
        ::freeifaddrs(all);
    }
    if (hosts.empty()) {
        hosts.emplace_back("127.0.0.1");
    }
    return hosts;
}

// One connection at the relay: the greeting goes out, one frame comes in.
struct Connection {
    Fd fd;
    std::string peer;
    Nonce nonce{};
    Bytes greeting;
    std::size_t greeting_sent = 0;
    Bytes frame;
    std::size_t want = header_bytes; // bytes of the frame expected so far
    Clock::time_point deadline;
};

class ListeningRelay final : public Relay
{
  public:
    ListeningRelay(Options options, Fd listener, Fd wake, Address address)
        : options_(std::move(options)), listener_(std::move(listener)), wake_(std::move(wake)),
          address_(std::move(address))
    {
        thread_ = std::thread([this] { serve(); });
    }
    ~ListeningRelay() override
    {
        stopping_ = true;
        const std::uint64_t one = 1;
        (void)!::write(wake_.get(), &one, sizeof one);
        thread_.join();
        report_held();
    }
    Address address() const override { return address_; }

  private:
    static constexpr std::size_t max_connections = 64;
    static constexpr unsigned refusals_per_window = 3;
    static constexpr auto refusal_window = std::chrono::seconds(10);

    // The thread's whole life: nothing it throws may end the process.
    void serve() noexcept
    {
        try {
            serve_connections();
        } catch (const std::exception &e) {
            report_warning(std::string("coordinates relay: stopped (") + e.what() +
                           "): other nodes' coordinate changes no longer reach this node");
        } catch (...) {
            report_warning("coordinates relay: stopped: other nodes' coordinate changes no "
                           "longer reach this node");
        }
    }

    void serve_connections()
    {
        std::vector<pollfd> fds;
        while (!stopping_) {
            fds.assign({{wake_.get(), POLLIN, 0}, {listener_.get(), POLLIN, 0}});
            if (connections_.size() >= max_connections) {
                fds[1].events = 0; // the backlog waits until one is done
            }
            auto next = Clock::now() + std::chrono::seconds(60);
            for (const Connection &c : connections_) {
                const bool greeting_left = c.greeting_sent < c.greeting.size();
                fds.push_back(
                    {c.fd.get(), static_cast<short>(greeting_left ? POLLOUT : POLLIN), 0});
                next = std::min(next, c.deadline);
            }
            const int ready = ::poll(fds.data(), fds.size(), remaining_ms(next));
            if (ready < 0 && errno != EINTR) {
                report_warning("coordinates relay: poll failed (" + errno_text(errno) +
                               "): other nodes' coordinate changes no longer reach this node");
                return;
            }
            if (ready > 0 && (fds[1].revents & POLLIN) != 0) {
                accept_one();
            }
            std::size_t at = 2;
            for (auto c = connections_.begin(); c != connections_.end() && at < fds.size(); ++at) {
                const bool finished = (fds[at].revents != 0 && !progress(*c)) ||
                                      (Clock::now() >= c->deadline && expired(*c));
                c = finished ? connections_.erase(c) : std::next(c);
            }
        }
    }

    void accept_one()
    {
        sockaddr_in peer{};
        socklen_t size = sizeof peer;
        Fd fd(::accept4(listener_.get(), reinterpret_cast<sockaddr *>(&peer), &size,
                        SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (!fd) {
            return; // gone before we took it, or out of descriptors: the sender retries
        }
        Connection c;
        c.fd = std::move(fd);
        c.peer = format_peer(peer);
        c.nonce = new_nonce();
        c.greeting = make_greeting(c.nonce);
        c.deadline = Clock::now() + options_.patience;
        connections_.push_back(std::move(c));
    }

    // Move what can move now; false when the connection is done with.
    bool progress(Connection &c)
    {
        if (c.greeting_sent < c.greeting.size()) {
            const ssize_t n = ::send(c.fd.get(), c.greeting.data() + c.greeting_sent,
                                     c.greeting.size() - c.greeting_sent, MSG_NOSIGNAL);
            if (n < 0) {
                return errno == EAGAIN || errno == EINTR;
            }
            c.greeting_sent += static_cast<std::size_t>(n);
            return true;
        }
        const std::size_t have = c.frame.size();
        c.frame.resize(c.want);
        const ssize_t n = ::recv(c.fd.get(), c.frame.data() + have, c.want - have, 0);
        if (n <= 0) {
            c.frame.resize(have);
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                return true;
            }
            if (have > 0) {
                refuse(c, "the sender closed the connection after " + std::to_string(have) +
                              " bytes, before a whole frame");
            }
            return false;
        }
        c.frame.resize(have + static_cast<std::size_t>(n));
        if (c.frame.size() < c.want) {
            return true;
        }
        if (c.want == header_bytes) {
            auto length = check_header(c.frame, options_.job_size);
            if (!length) {
                refuse(c, length.error().message);
                return false;
            }
            c.want = header_bytes + *length + mac_bytes;
            return true;
        }
        auto event = open_frame(options_.key, options_.job, c.nonce, options_.job_size, c.frame);
        if (!event) {
            refuse(c, event.error().message);
            return false;
        }
        // Handed on first: the sender's byte says it was.
        if (options_.deliver) {
            options_.deliver(*event);
        }
        (void)::send(c.fd.get(), &delivered, 1, MSG_NOSIGNAL);
        return false;
    }

    bool expired(const Connection &c)
    {
        refuse(c, "no whole frame within " + std::to_string(options_.patience.count()) + " ms (" +
                      std::to_string(c.frame.size()) + " bytes came)");
        return true;
    }

    // A few refusals per window are told as they come; the rest are
    // counted, so that a crowd of strangers cannot flood the job's output.
    void refuse(const Connection &c, const std::string &why)
    {
        const auto now = Clock::now();
        if (now - window_start_ >= refusal_window) {
            report_held();
            window_start_ = now;
            told_in_window_ = 0;
        }
        const std::string text = "refused a connection from " + c.peer + ": " + why;
        if (told_in_window_ < refusals_per_window) {
            ++told_in_window_;
            report_warning("coordinates relay: " + text + "; nothing it sent was used");
            return;
        }
        ++held_;
        last_held_ = text;
    }

    void report_held()
    {
        if (held_ > 0) {
            report_warning("coordinates relay: " + std::to_string(held_) +
                           " more connections refused and not told (the last: " + last_held_ + ")");
            held_ = 0;
        }
    }

    Options options_;
    Fd listener_;
    Fd wake_;
    Address address_;
    std::list<Connection> connections_;
    Clock::time_point window_start_{};
    unsigned told_in_window_ = 0;
    std::size_t held_ = 0;
    std::string last_held_;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
};

// Wait until fd is ready for `events`, until the deadline.
Status wait_ready(int fd, short events, Clock::time_point deadline, const std::string &what)
{
    for (;;) {
        pollfd p{fd, events, 0};
        const int left = remaining_ms(deadline);
        const int ready = ::poll(&p, 1, left);
        if (ready > 0) {
            return success();
        }
        if (ready == 0) {
            return make_error(MERIDIAN_ERR_TIMEOUT, what + ": no answer in time");
        }
        if (errno != EINTR) {
            return make_error(MERIDIAN_ERR_UNREACH, what + ": " + errno_text(errno));
        }
    }
}

Status write_all(int fd, const Bytes &bytes, Clock::time_point deadline)
{
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        if (auto ready = wait_ready(fd, POLLOUT, deadline, "sending the frame"); !ready) {
            return ready;
        }
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return make_error(MERIDIAN_ERR_UNREACH, "sending the frame: " + errno_text(errno));
        }
        sent += n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    return success();
}

Result<Bytes> read_exactly(int fd, std::size_t size, Clock::time_point deadline,
                           const std::string &what)
{
    Bytes bytes(size);
    std::size_t have = 0;
    while (have < size) {
        if (auto ready = wait_ready(fd, POLLIN, deadline, what); !ready) {
            return ready.error();
        }
        const ssize_t n = ::recv(fd, bytes.data() + have, size - have, 0);
        if (n == 0) {
            return make_error(MERIDIAN_ERR_UNREACH,
                              what + ": the relay closed the connection (it refused the frame)");
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return make_error(MERIDIAN_ERR_UNREACH, what + ": " + errno_text(errno));
        }
        have += n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    return bytes;
}

Status send_to(const std::string &host, std::uint16_t port, std::uint64_t job, const Event &event,
               const Key &key, std::chrono::milliseconds patience)
{
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    if (::inet_pton(AF_INET, host.c_str(), &to.sin_addr) != 1) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "not an IPv4 address");
    }
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE, "no socket: " + errno_text(errno));
    }
    const auto deadline = Clock::now() + patience;
    if (::connect(fd.get(), reinterpret_cast<const sockaddr *>(&to), sizeof to) != 0) {
        if (errno != EINPROGRESS) {
            return make_error(MERIDIAN_ERR_UNREACH, "connect: " + errno_text(errno));
        }
        if (auto ready = wait_ready(fd.get(), POLLOUT, deadline, "connect"); !ready) {
            return ready;
        }
        int error = 0;
        socklen_t size = sizeof error;
        (void)::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &size);
        if (error != 0) {
            return make_error(MERIDIAN_ERR_UNREACH, "connect: " + errno_text(error));
        }
    }
    auto greeting = read_exactly(fd.get(), greeting_bytes, deadline, "the relay's greeting");
    if (!greeting) {
        return greeting.error();
    }
    auto nonce = read_greeting(*greeting);
    if (!nonce) {
        return nonce.error();
    }
    if (auto sent = write_all(fd.get(), make_frame(key, job, *nonce, event), deadline); !sent) {
        return sent;
    }
    auto answer = read_exactly(fd.get(), 1, deadline, "the relay's answer");
    if (!answer) {
        return answer.error();
    }
    if ((*answer)[0] != delivered) {
        return make_error(MERIDIAN_ERR_UNREACH, "the relay answered something else than delivered");
    }
    return success();
}

} // namespace

Result<std::unique_ptr<Relay>> Relay::start(Options options)
{
    const auto failed = [](const std::string &what) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "coordinates relay: " + what + " (" + errno_text(errno) + ")");
    };
    Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!listener) {
        return failed("no socket");
    }
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_ANY);
    if (!options.bind_host.empty() &&
        ::inet_pton(AF_INET, options.bind_host.c_str(), &at.sin_addr) != 1) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "coordinates relay: " + options.bind_host + " is not an IPv4 address");
    }
    if (::bind(listener.get(), reinterpret_cast<const sockaddr *>(&at), sizeof at) != 0) {
        return failed("bind");
    }
    if (::listen(listener.get(), 64) != 0) {
        return failed("listen");
    }
    socklen_t size = sizeof at;
    if (::getsockname(listener.get(), reinterpret_cast<sockaddr *>(&at), &size) != 0) {
        return failed("getsockname");
    }
    Fd wake(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (!wake) {
        return failed("no eventfd");
    }
    Address address;
    address.port = ntohs(at.sin_port);
    address.hosts = options.bind_host.empty() ? node_addresses() : std::vector{options.bind_host};
    address.key = options.key;
    return std::unique_ptr<Relay>(std::make_unique<ListeningRelay>(
        std::move(options), std::move(listener), std::move(wake), std::move(address)));
}

Status send(const Address &address, std::uint64_t job, const Event &event,
            std::chrono::milliseconds patience)
{
    std::string why;
    for (const auto &host : address.hosts) {
        auto sent = send_to(host, address.port, job, event, address.key, patience);
        if (sent) {
            return sent;
        }
        why += (why.empty() ? "" : "; ") + host + ":" + std::to_string(address.port) + ": " +
               sent.error().message;
    }
    return make_error(MERIDIAN_ERR_UNREACH, why);
}

} // namespace meridian::coord::detail::relay

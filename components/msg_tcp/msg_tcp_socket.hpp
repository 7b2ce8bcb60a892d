// SPDX-License-Identifier: BSD-3-Clause
// The tcp transport's sockets: a listener, non-blocking connections, the
// header before each message (what opens a connection is in
// msg_tcp_auth.hpp), and the address to listen on.
#ifndef MERIDIAN_MSG_TCP_SOCKET_HPP
#define MERIDIAN_MSG_TCP_SOCKET_HPP

#include <sys/socket.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian::msg_tcp
{

// An IPv4 or IPv6 socket address.
struct Address {
    sockaddr_storage storage{};
    socklen_t length = 0;

    bool empty() const { return length == 0; }
    std::string text() const;      // "10.1.2.3:32000", "[fe80::1]:32000"
    std::string host_text() const; // "10.1.2.3", "fe80::1"
    // The same host address (the ports aside).
    bool same_host(const Address &other) const;
    // The wildcard address (0.0.0.0, ::), which names no one host.
    bool wildcard() const;
    // As the modex carries it, and back (false: not an address).
    std::vector<std::uint8_t> bytes() const;
    static bool from_bytes(std::span<const std::uint8_t> bytes, Address &out);
};

// A file descriptor, closed when it goes.
class Socket
{
  public:
    Socket() = default;
    explicit Socket(int fd) : fd_(fd) {}
    Socket(Socket &&other) noexcept : fd_(other.release()) {}
    Socket &operator=(Socket &&other) noexcept;
    Socket(const Socket &) = delete;
    Socket &operator=(const Socket &) = delete;
    ~Socket() { reset(); }

    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    int release()
    {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset();

  private:
    int fd_ = -1;
};

// Where this process listens.  In order: the endpoint pnet assigned it
// ("10.1.2.3:32000", "[fe80::1]:32000"; empty when none); the first address
// of an interface that `include` names ("eth1") or whose address it covers
// ("10.1.0.0/16"), when it is not empty; the loopback address when every
// process of the job is on this node; else the first IPv4 address of an
// interface that is up and not loopback (then its IPv6 address outside
// fe80::/10).  bound_to: the pnet endpoint when it is used; reason: why
// this address.
struct Choice {
    Address address;
    std::string bound_to;
    std::string reason;
};
Result<Choice> choose_address(const std::string &pnet_endpoint,
                              const std::vector<std::string> &include, bool single_node);
// "10.1.2.3:32000" or "[v6]:port" as an address (false: not one).
bool parse_endpoint(const std::string &text, Address &out);

// A non-blocking listener on the address (port 0: any); bound says where.
Result<Socket> listen_on(const Address &address, Address &bound);
// A non-blocking connection under way (or made) to the address, from the
// host address from (any port; the kernel's choice when from is empty or
// the wildcard): the listener checks that a connection comes from the
// address its peer published.
Result<Socket> connect_to(const Address &address, const Address &from);
// The next connection waiting on the listener, non-blocking, and where it
// comes from; an empty socket when none waits.  Out of descriptors
// (EMFILE, ENFILE) is MERIDIAN_ERR_OUT_OF_RESOURCE.
Result<Socket> accept_from(int listener, Address &from);
// The error of a connection that finished connecting (0: connected).
int connect_error(int fd);

// What an epoll event of the tcp transport is about: the kind in the high half of
// its key, a rank or a file descriptor in the low half.
enum class Watch : std::uint64_t { listener = 1, accepted = 2, peer = 3 };
inline std::uint64_t watch_key(Watch kind, int value)
{
    return (static_cast<std::uint64_t>(kind) << 32) | static_cast<std::uint32_t>(value);
}

// Before each message: its tag and its size in bytes.
struct Header {
    std::uint64_t tag = 0;
    std::uint64_t total = 0;
};
static_assert(sizeof(Header) == 16);

} // namespace meridian::msg_tcp

#endif

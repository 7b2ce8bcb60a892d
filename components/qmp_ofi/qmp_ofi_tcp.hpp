// The tcp path's sockets: a listener on the address libfabric's tcp
// provider would take, non-blocking connections, and the header before each
// message (what opens a connection is in qmp_ofi_tcp_auth.hpp).
#ifndef MERIDIAN_QMP_OFI_TCP_HPP
#define MERIDIAN_QMP_OFI_TCP_HPP

#include <sys/socket.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian::msg_ofi::tcp
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

// What an epoll event of the tcp path is about: the kind in the high half of
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

} // namespace meridian::msg_ofi::tcp

#endif

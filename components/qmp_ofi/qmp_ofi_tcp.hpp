// The tcp path's sockets: a listener on the address libfabric's tcp
// provider would take, non-blocking connections, and what goes on the wire
// (a greeting when a connection opens, a header before each message).
//
// Each connection carries one direction: a process connects to a peer the
// first time it sends to it, and reads what the peer sends on the
// connection the peer opened.  So no two processes race to open one
// connection, and each stream keeps its sender's order.
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
    std::string text() const; // "10.1.2.3:32000", "[fe80::1]:32000"
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
// A non-blocking connection under way (or made) to the address.
Result<Socket> connect_to(const Address &address);
// The next connection waiting on the listener, non-blocking; an empty
// socket when none waits.
Result<Socket> accept_from(int listener);
// The error of a connection that finished connecting (0: connected).
int connect_error(int fd);

// The first bytes on every connection: who opened it, for which job.
struct Greeting {
    std::uint32_t magic = 0;
    std::uint32_t rank = 0;
    std::uint64_t job = 0;
};
static_assert(sizeof(Greeting) == 16);
constexpr std::uint32_t greeting_magic = 0x4d514d54; // "MQMT"

// Before each message: its tag and its size in bytes.
struct Header {
    std::uint64_t tag = 0;
    std::uint64_t total = 0;
};
static_assert(sizeof(Header) == 16);

// A job's key in the greeting: a hash of its namespace.
std::uint64_t job_key(const std::string &nspace);

} // namespace meridian::msg_ofi::tcp

#endif

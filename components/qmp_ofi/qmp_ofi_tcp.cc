#include "components/qmp_ofi/qmp_ofi_tcp.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <meridian/opal/util/error.h>

namespace meridian::msg_ofi::tcp
{

namespace
{

std::string errno_text(const std::string &what, int error)
{
    return "msg ofi: " + what + ": " + std::strerror(error);
}

// Small messages go out at once, not held back for more (Nagle).
void no_delay(int fd)
{
    const int on = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

} // namespace

std::string Address::text() const
{
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (storage.ss_family == AF_INET) {
        const auto *in = reinterpret_cast<const sockaddr_in *>(&storage);
        ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        port = ntohs(in->sin_port);
        return std::string(host) + ":" + std::to_string(port);
    }
    if (storage.ss_family == AF_INET6) {
        const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&storage);
        ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        port = ntohs(in6->sin6_port);
        return "[" + std::string(host) + "]:" + std::to_string(port);
    }
    return "(no address)";
}

std::string Address::host_text() const
{
    const std::string all = text();
    if (storage.ss_family == AF_INET6 && all.front() == '[') {
        return all.substr(1, all.rfind(']') - 1);
    }
    const auto colon = all.rfind(':');
    return colon == std::string::npos ? all : all.substr(0, colon);
}

bool Address::same_host(const Address &other) const
{
    if (storage.ss_family != other.storage.ss_family) {
        return false;
    }
    if (storage.ss_family == AF_INET) {
        return reinterpret_cast<const sockaddr_in *>(&storage)->sin_addr.s_addr ==
               reinterpret_cast<const sockaddr_in *>(&other.storage)->sin_addr.s_addr;
    }
    if (storage.ss_family == AF_INET6) {
        const auto *a = reinterpret_cast<const sockaddr_in6 *>(&storage);
        const auto *b = reinterpret_cast<const sockaddr_in6 *>(&other.storage);
        return std::memcmp(&a->sin6_addr, &b->sin6_addr, sizeof a->sin6_addr) == 0;
    }
    return false;
}

bool Address::wildcard() const
{
    if (storage.ss_family == AF_INET) {
        return reinterpret_cast<const sockaddr_in *>(&storage)->sin_addr.s_addr == INADDR_ANY;
    }
    if (storage.ss_family == AF_INET6) {
        const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&storage);
        return IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr);
    }
    return true;
}

std::vector<std::uint8_t> Address::bytes() const
{
    const auto *raw = reinterpret_cast<const std::uint8_t *>(&storage);
    return {raw, raw + length};
}

bool Address::from_bytes(std::span<const std::uint8_t> bytes, Address &out)
{
    if (bytes.size() < sizeof(sa_family_t) || bytes.size() > sizeof out.storage) {
        return false;
    }
    Address address;
    std::memcpy(&address.storage, bytes.data(), bytes.size());
    address.length = static_cast<socklen_t>(bytes.size());
    const bool v4 = address.storage.ss_family == AF_INET && bytes.size() == sizeof(sockaddr_in);
    const bool v6 = address.storage.ss_family == AF_INET6 && bytes.size() == sizeof(sockaddr_in6);
    if (!v4 && !v6) {
        return false;
    }
    out = address;
    return true;
}

Socket &Socket::operator=(Socket &&other) noexcept
{
    if (this != &other) {
        reset();
        fd_ = other.release();
    }
    return *this;
}

void Socket::reset()
{
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

Result<Socket> listen_on(const Address &address, Address &bound)
{
    Socket socket(
        ::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!socket) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, errno_text("socket", errno));
    }
    const int on = 1;
    // A port pnet assigned may still hold a connection of the job before.
    (void)::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(socket.get(), reinterpret_cast<const sockaddr *>(&address.storage),
               address.length) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          errno_text("cannot listen on " + address.text(), errno));
    }
    if (::listen(socket.get(), SOMAXCONN) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          errno_text("listen on " + address.text(), errno));
    }
    bound = Address{};
    bound.length = sizeof bound.storage;
    if (::getsockname(socket.get(), reinterpret_cast<sockaddr *>(&bound.storage), &bound.length) !=
        0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, errno_text("getsockname", errno));
    }
    return socket;
}

Result<Socket> connect_to(const Address &address, const Address &from)
{
    Socket socket(
        ::socket(address.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!socket) {
        return make_error(MERIDIAN_ERR_UNREACH, errno_text("socket", errno));
    }
    no_delay(socket.get());
    if (!from.empty() && !from.wildcard() && from.storage.ss_family == address.storage.ss_family) {
        Address local = from;
        if (local.storage.ss_family == AF_INET) {
            reinterpret_cast<sockaddr_in *>(&local.storage)->sin_port = 0;
        } else {
            reinterpret_cast<sockaddr_in6 *>(&local.storage)->sin6_port = 0;
        }
        if (::bind(socket.get(), reinterpret_cast<const sockaddr *>(&local.storage),
                   local.length) != 0) {
            return make_error(MERIDIAN_ERR_UNREACH,
                              errno_text("cannot connect from " + local.text(), errno));
        }
    }
    if (::connect(socket.get(), reinterpret_cast<const sockaddr *>(&address.storage),
                  address.length) != 0 &&
        errno != EINPROGRESS) {
        return make_error(MERIDIAN_ERR_UNREACH,
                          errno_text("cannot connect to " + address.text(), errno));
    }
    return socket;
}

Result<Socket> accept_from(int listener, Address &from)
{
    from = Address{};
    from.length = sizeof from.storage;
    const int fd = ::accept4(listener, reinterpret_cast<sockaddr *>(&from.storage), &from.length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        from = Address{};
        if (error == EAGAIN || error == EWOULDBLOCK || error == EINTR || error == ECONNABORTED) {
            return Socket();
        }
        if (error == EMFILE || error == ENFILE) {
            return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE, errno_text("accept", error));
        }
        return make_error(MERIDIAN_ERR_UNREACH, errno_text("accept", error));
    }
    no_delay(fd);
    return Socket(fd);
}

int connect_error(int fd)
{
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) {
        return errno;
    }
    return error;
}

} // namespace meridian::msg_ofi::tcp

// SPDX-License-Identifier: BSD-3-Clause
#include "components/msg_tcp/msg_tcp_socket.hpp"

#include "mca/msg/base/msg_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <meridian/opal/util/error.h>

namespace meridian::msg_tcp
{

namespace
{

std::string errno_text(const std::string &what, int error)
{
    return "msg tcp: " + what + ": " + std::strerror(error);
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

bool parse_endpoint(const std::string &text, Address &out)
{
    const auto endpoint = msg::parse_ip_endpoint(text);
    if (!endpoint) {
        return false;
    }
    out = Address{};
    out.storage = endpoint->storage;
    out.length = endpoint->length;
    return true;
}

namespace
{

struct IfaddrsFree {
    void operator()(ifaddrs *list) const { ::freeifaddrs(list); }
};

Address from_sockaddr(const sockaddr *address)
{
    Address out;
    out.length = address->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    std::memcpy(&out.storage, address, out.length);
    return out;
}

// Whether an include entry names the interface or covers its address
// ("10.1.0.0/16", "fd00::/8").
bool matches(const std::string &entry, const ifaddrs &item)
{
    const auto slash = entry.find('/');
    if (slash == std::string::npos) {
        return entry == item.ifa_name;
    }
    const std::string net = entry.substr(0, slash);
    const int bits = std::atoi(entry.c_str() + slash + 1);
    unsigned char want[16] = {};
    const unsigned char *have = nullptr;
    std::size_t size = 0;
    if (item.ifa_addr->sa_family == AF_INET && ::inet_pton(AF_INET, net.c_str(), want) == 1) {
        have = reinterpret_cast<const unsigned char *>(
            &reinterpret_cast<const sockaddr_in *>(item.ifa_addr)->sin_addr);
        size = 4;
    } else if (item.ifa_addr->sa_family == AF_INET6 &&
               ::inet_pton(AF_INET6, net.c_str(), want) == 1) {
        have = reinterpret_cast<const sockaddr_in6 *>(item.ifa_addr)->sin6_addr.s6_addr;
        size = 16;
    } else {
        return false;
    }
    if (bits < 0 || static_cast<std::size_t>(bits) > size * 8) {
        return false;
    }
    for (int bit = 0; bit < bits; ++bit) {
        const unsigned char mask = static_cast<unsigned char>(0x80U >> (bit % 8));
        if ((want[bit / 8] & mask) != (have[bit / 8] & mask)) {
            return false;
        }
    }
    return true;
}

bool usable(const ifaddrs &item)
{
    if (item.ifa_addr == nullptr || (item.ifa_flags & IFF_UP) == 0) {
        return false;
    }
    if (item.ifa_addr->sa_family == AF_INET) {
        return true;
    }
    if (item.ifa_addr->sa_family == AF_INET6) {
        const auto &v6 = reinterpret_cast<const sockaddr_in6 *>(item.ifa_addr)->sin6_addr;
        return !IN6_IS_ADDR_LINKLOCAL(&v6);
    }
    return false;
}

} // namespace

Result<Choice> choose_address(const std::string &pnet_endpoint,
                              const std::vector<std::string> &include, bool single_node)
{
    Choice choice;
    if (!pnet_endpoint.empty()) {
        if (parse_endpoint(pnet_endpoint, choice.address)) {
            choice.bound_to = pnet_endpoint;
            choice.reason = "the pnet endpoint";
            return choice;
        }
        choice.reason = "the pnet endpoint " + pnet_endpoint + " is no address; ";
    }
    ifaddrs *raw = nullptr;
    if (::getifaddrs(&raw) != 0) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE, errno_text("getifaddrs", errno));
    }
    const std::unique_ptr<ifaddrs, IfaddrsFree> list(raw);
    if (!include.empty()) {
        for (const std::string &entry : include) {
            for (const ifaddrs *item = raw; item != nullptr; item = item->ifa_next) {
                if (usable(*item) && matches(entry, *item)) {
                    choice.address = from_sockaddr(item->ifa_addr);
                    choice.reason += std::string("interface ") + item->ifa_name +
                                     ", which msg_tcp_if_include " + entry + " names";
                    return choice;
                }
            }
        }
        std::string names;
        for (const std::string &entry : include) {
            names += (names.empty() ? "" : ",") + entry;
        }
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "msg tcp: no interface that is up matches msg_tcp_if_include " + names);
    }
    for (const int family : {AF_INET, AF_INET6}) {
        for (const ifaddrs *item = raw; item != nullptr; item = item->ifa_next) {
            if (!usable(*item) || item->ifa_addr->sa_family != family) {
                continue;
            }
            const bool loopback = (item->ifa_flags & IFF_LOOPBACK) != 0;
            if (loopback == single_node) {
                choice.address = from_sockaddr(item->ifa_addr);
                choice.reason += std::string("interface ") + item->ifa_name +
                                 (single_node ? ": the job is on this node"
                                              : ", the first that is up and not loopback");
                return choice;
            }
        }
    }
    return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                      single_node ? "msg tcp: no loopback interface is up"
                                  : "msg tcp: no interface other than loopback is up (set "
                                    "msg_tcp_if_include, or leave tcp out: --mca msg ^tcp)");
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

} // namespace meridian::msg_tcp

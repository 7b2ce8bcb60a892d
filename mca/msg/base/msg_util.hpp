// SPDX-License-Identifier: BSD-3-Clause
// What the base and the transports share, header-only: the modex as they
// use it (fixed-size values and byte strings under short keys, which the
// base scopes to msg, per rank), tags, peers and channels as text, errors,
// the endpoint pnet assigned, verbose output.
#ifndef MERIDIAN_MCA_MSG_BASE_MSG_UTIL_HPP
#define MERIDIAN_MCA_MSG_BASE_MSG_UTIL_HPP

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <meridian/mca/msg/msg.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::msg
{

template <typename T> inline int put(const char *key, const T &value)
{
    return meridian_mca_msg_base_modex_put(key, &value, sizeof value);
}

template <typename T> inline int get(int rank, const char *key, T &value)
{
    std::size_t len = sizeof value;
    const int rc = meridian_mca_msg_base_modex_get(rank, key, &value, &len);
    return rc == MERIDIAN_SUCCESS && len != sizeof value ? MERIDIAN_ERR_BAD_PARAM : rc;
}

inline int get_bytes(int rank, const char *key, std::vector<std::uint8_t> &value)
{
    std::size_t len = value.size();
    int rc = meridian_mca_msg_base_modex_get(rank, key, value.data(), &len);
    if (rc == MERIDIAN_ERR_BAD_PARAM && len > value.size()) {
        value.resize(len);
        rc = meridian_mca_msg_base_modex_get(rank, key, value.data(), &len);
    }
    if (rc == MERIDIAN_SUCCESS) {
        value.resize(len);
    }
    return rc;
}

// What the base publishes of every process under "proc", beside its node
// name under "node" (the sm transport reads the pid for CMA).
struct ProcInfo {
    std::int64_t pid = 0;
    std::uint64_t start_time = 0;
};

inline std::string hex(std::uint64_t value)
{
    char text[32];
    std::snprintf(text, sizeof text, "0x%" PRIx64, value);
    return text;
}

// A tag that does not fit a transport's `bits` tag bits, folded into them
// (xor of its bits-wide pieces); the transport refuses two channel tags
// that fold alike.  bits < 64.
inline std::uint64_t fold(std::uint64_t tag, unsigned bits)
{
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::uint64_t folded = 0;
    for (; tag != 0; tag >>= bits) {
        folded ^= tag & mask;
    }
    return folded;
}

// Reports message as an error and returns status.
inline int fail(int status, const std::string &message)
{
    meridian::report_error(message);
    return status;
}

// "rank 3 (node h2, path tcp)".
inline std::string peer_text(int rank)
{
    char text[256];
    return meridian_mca_msg_base_peer_text(rank, text, sizeof text);
}

// "the send to rank 3 (node h2, path tcp) with tag 0x10".
inline std::string channel_text(const mca_msg_channel_t &channel)
{
    char text[320];
    return meridian_mca_msg_base_channel_text(&channel, text, sizeof text);
}

// An IP endpoint, "ADDRESS:PORT" ("10.1.2.3:32000", "[fe80::1]:32000": an
// IPv6 address only in brackets, since "fe80::1:32000" could be an address
// without a port): the socket address, and its parts as text (the address
// without brackets).
struct IpEndpoint {
    sockaddr_storage storage{};
    socklen_t length = 0;
    std::string host;
    std::string port;
};
inline std::optional<IpEndpoint> parse_ip_endpoint(const std::string &text)
{
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
        return std::nullopt;
    }
    IpEndpoint out;
    out.host = text.substr(0, colon);
    out.port = text.substr(colon + 1);
    const bool bracketed = out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']';
    if (bracketed) {
        out.host = out.host.substr(1, out.host.size() - 2);
    }
    char *end = nullptr;
    const unsigned long port = std::strtoul(out.port.c_str(), &end, 10);
    if (end == nullptr || *end != '\0' || port > 65535) {
        return std::nullopt;
    }
    auto *v4 = reinterpret_cast<sockaddr_in *>(&out.storage);
    auto *v6 = reinterpret_cast<sockaddr_in6 *>(&out.storage);
    if (!bracketed && ::inet_pton(AF_INET, out.host.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<std::uint16_t>(port));
        out.length = sizeof *v4;
        return out;
    }
    if (bracketed && ::inet_pton(AF_INET6, out.host.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<std::uint16_t>(port));
        out.length = sizeof *v6;
        return out;
    }
    return std::nullopt;
}

// The first of a process's endpoints that is an IP endpoint, "" if none.
// pnet lists every request's endpoints in request order, and a UCX
// request's are device ports ("mlx5_0:1"), which are no address to listen
// on.
inline std::string first_ip_endpoint(const std::vector<std::string> &endpoints)
{
    for (const std::string &endpoint : endpoints) {
        if (parse_ip_endpoint(endpoint)) {
            return endpoint;
        }
    }
    return {};
}

// The endpoint pnet assigned this process for IP transports (pmix.net.endpt,
// stored by pnet's per-node setup: "10.1.2.3:32000" for a tcp request), ""
// if none.
inline std::string pnet_endpoint()
{
    auto store = meridian::datastore::store();
    if (!store) {
        return {};
    }
    auto value = (*store)->get((*store)->self(), "pmix.net.endpt");
    if (!value) {
        return {};
    }
    if (const auto *list = std::get_if<std::vector<std::string>>(&*value)) {
        return first_ip_endpoint(*list);
    }
    if (const auto *one = std::get_if<std::string>(&*value)) {
        return first_ip_endpoint({*one});
    }
    return {};
}

// Verbose output at msg_base_verbose's levels.
#define VERBOSE(level, ...)                                                                        \
    meridian_mca_base_framework_verbose(&meridian_msg_base_framework, MCA_BASE_VERBOSE_##level,    \
                                        __VA_ARGS__)

} // namespace meridian::msg

#endif

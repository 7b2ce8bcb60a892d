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

// The first of a process's endpoints that is an IP address and a port
// ("10.1.2.3:32000", "[fe80::1]:32000"), "" if none.  pnet lists every
// request's endpoints in request order, and a UCX request's are device
// ports ("mlx5_0:1"), which are no address to listen on.
inline std::string first_ip_endpoint(const std::vector<std::string> &endpoints)
{
    for (const std::string &endpoint : endpoints) {
        const auto colon = endpoint.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size()) {
            continue;
        }
        std::string host = endpoint.substr(0, colon);
        int family = AF_INET;
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
            host = host.substr(1, host.size() - 2);
            family = AF_INET6;
        }
        in6_addr address{};
        if (::inet_pton(family, host.c_str(), &address) == 1) {
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

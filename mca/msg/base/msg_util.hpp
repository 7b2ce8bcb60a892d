// What the base and the transports share, header-only: the modex as they
// use it (fixed-size values and byte strings under short keys, which the
// base scopes to msg, per rank), tags as text, verbose output.
#ifndef MERIDIAN_MCA_MSG_BASE_MSG_UTIL_HPP
#define MERIDIAN_MCA_MSG_BASE_MSG_UTIL_HPP

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <meridian/mca/msg/msg.h>
#include <meridian/opal/util/error.h>

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

// Verbose output at msg_base_verbose's levels.
#define VERBOSE(level, ...)                                                                        \
    meridian_mca_base_framework_verbose(&meridian_msg_base_framework, MCA_BASE_VERBOSE_##level,    \
                                        __VA_ARGS__)

} // namespace meridian::msg

#endif

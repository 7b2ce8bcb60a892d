// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the static port pool parser (opal/class/port_ranges.cc).
// Promises checked besides "nothing crashes":
//   - an error is one line "ports:COL: ..." at a column inside the text or
//     just past its end;
//   - parsed pools written by format_static_ports read back equal;
//   - a PortPool of each pool hands out exactly its ports, lowest first, and
//     takes them all back.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: opal/class/port_ranges.cc opal/class/fabric_address.cc opal/util/strings.cc
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include <meridian/opal/class/port_ranges.hpp>

namespace
{

using namespace meridian::fabric;

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("port_ranges_fuzz", promise);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    auto parsed = parse_static_ports(input, "ports");
    if (!parsed) {
        const std::string &message = parsed.error().message;
        std::size_t pos = 6;
        std::size_t column = 0;
        while (message.rfind("ports:", 0) == 0 && pos < message.size() && message[pos] >= '0' &&
               message[pos] <= '9' && column < 1u << 30) {
            column = column * 10 + static_cast<std::size_t>(message[pos++] - '0');
        }
        if (column == 0 || column > size + 1 || message.compare(pos, 2, ": ") != 0 ||
            message.find('\n') != std::string::npos) {
            broken("the error reads ports:COL: ... with a column in the text: " + message);
        }
        return 0;
    }
    const std::string written = format_static_ports(*parsed);
    auto again = parse_static_ports(written, "written");
    if (!again) {
        broken("format_static_ports's text parses: " + again.error().message + "\n" + written);
    }
    if (*again != *parsed) {
        broken("format_static_ports's text reads back equal: " + written);
    }
    for (const PortPoolSpec &spec : *parsed) {
        std::size_t count = 0;
        for (const PortRange &range : spec.ranges) {
            count += static_cast<std::size_t>(range.last) - range.first + 1;
        }
        PortPool pool(spec.ranges);
        if (pool.free_count() != count) {
            broken("a pool holds each listed port once");
        }
        std::vector<std::uint16_t> ports;
        if (pool.take(count + 1, ports) != count || pool.free_count() != 0) {
            broken("a pool hands out every port");
        }
        for (std::size_t i = 1; i < ports.size(); ++i) {
            if (ports[i] <= ports[i - 1]) {
                broken("a pool hands out the lowest ports first");
            }
        }
        pool.give_back(ports);
        if (pool.free_count() != count) {
            broken("a pool takes every port back");
        }
    }
    return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the fabric file parser (opal/class/fabric_parse.cc).
// Besides "nothing crashes", it checks what the parser promises:
//   - an error is one line "fuzz.fabric:LINE:COL: ...", at a line that exists;
//   - a parsed fabric written by format_fabric reads back to an equal fabric
//     (every plane, subnet, switch, node and NIC), written the same again;
//   - every NIC order by distance is a permutation of its node's NICs;
//   - no name (fabric, plane, plane type, switch, node, NIC) is longer than
//     max_name_bytes.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: opal/class/fabric.cc opal/class/fabric_parse.cc opal/class/fabric_address.cc
// fuzz-sources: opal/class/port_ranges.cc opal/class/weighted_graph.cc opal/util/strings.cc
// fuzz-sources: opal/util/read_file.cc
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include <meridian/opal/class/fabric.hpp>

namespace
{

using meridian::fabric::Fabric;
using meridian::fabric::Index;

constexpr std::string_view path = "fuzz.fabric";

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("fabric_file_fuzz", promise);
}

bool same_fabric(const Fabric &a, const Fabric &b)
{
    return a.name == b.name && std::ranges::equal(a.planes(), b.planes()) &&
           std::ranges::equal(a.subnets(), b.subnets()) &&
           std::ranges::equal(a.switches(), b.switches()) &&
           std::ranges::equal(a.nodes(), b.nodes()) && std::ranges::equal(a.nics(), b.nics());
}

void check_error(const std::string &message, std::string_view input)
{
    if (message.find('\n') != std::string::npos) {
        broken("one line per error: " + message);
    }
    if (message.rfind(std::string(path) + ":", 0) != 0) {
        broken("the error names the file: " + message);
    }
    std::size_t pos = path.size() + 1;
    std::size_t line = 0;
    while (pos < message.size() && message[pos] >= '0' && message[pos] <= '9' && line < 1u << 30) {
        line = line * 10 + static_cast<std::size_t>(message[pos++] - '0');
    }
    if (line == 0 || pos >= message.size() || message[pos] != ':') {
        broken("the error gives a line: " + message);
    }
    std::size_t column = 0;
    ++pos;
    while (pos < message.size() && message[pos] >= '0' && message[pos] <= '9' &&
           column < 1u << 30) {
        column = column * 10 + static_cast<std::size_t>(message[pos++] - '0');
    }
    if (column == 0 || message.compare(pos, 2, ": ") != 0) {
        broken("the error reads PATH:LINE:COL: ...: " + message);
    }
    const std::size_t lines =
        static_cast<std::size_t>(std::count(input.begin(), input.end(), '\n')) + 1;
    if (line > lines) {
        broken("the error's line exists: " + message);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    auto parsed = meridian::fabric::parse_fabric(input, path);
    if (!parsed) {
        check_error(parsed.error().message, input);
        return 0;
    }
    const std::string written = meridian::fabric::format_fabric(*parsed);
    auto again = meridian::fabric::parse_fabric(written, "written");
    if (!again) {
        broken("format_fabric's text parses: " + again.error().message + "\n" + written);
    }
    if (!same_fabric(*parsed, *again)) {
        broken("format_fabric's text reads back equal:\n" + written);
    }
    if (meridian::fabric::format_fabric(*again) != written) {
        broken("format_fabric writes the same text twice:\n" + written);
    }
    const Fabric &fabric = *parsed;
    const auto too_long = [](const std::string &name) {
        return name.size() > meridian::fabric::max_name_bytes;
    };
    bool long_name = too_long(fabric.name);
    for (const auto &plane : fabric.planes()) {
        long_name = long_name || too_long(plane.name) || too_long(plane.type);
    }
    for (const auto &sw : fabric.switches()) {
        long_name = long_name || too_long(sw.name);
    }
    for (const auto &node : fabric.nodes()) {
        long_name = long_name || too_long(node.name);
    }
    for (const auto &nic : fabric.nics()) {
        long_name = long_name || too_long(nic.name);
    }
    if (long_name) {
        broken("no name is longer than max_name_bytes");
    }
    for (Index node = 0; node < fabric.nodes().size(); ++node) {
        const auto &nics = fabric.nodes()[node].nics;
        for (std::int32_t package = -1;
             package <= static_cast<std::int32_t>(fabric.nodes()[node].packages) && package < 4;
             ++package) {
            const auto order = fabric.nics_by_distance(node, package);
            if (!std::is_permutation(order.begin(), order.end(), nics.begin(), nics.end())) {
                broken("nics_by_distance is a permutation of the node's NICs");
            }
        }
    }
    return 0;
}

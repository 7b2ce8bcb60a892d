// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the --hosts parser of meridian_netmap (make_job_map,
// opal/class/job_map.*: the tool's options.cc keeps the text as given and
// the tool hands it to make_job_map).  The input is the "NODE[:N],..." text,
// read against a fixed fabric of five nodes of different shapes, once for
// each binding.  Promises checked besides "nothing crashes":
//   - an error is one line "--hosts:COL: ..." at a column inside the text or
//     just past its end;
//   - a map has one node per item of the list, in its order, each named by
//     its item (never empty, never twice), with N processes or, without
//     ":N", the node's core count; the process count is the sum of those
//     (and at most 2147483647), ranks filling each node in turn with local
//     ranks 0, 1, ...;
//   - binding none gives no package, package gives local rank mod packages,
//     and core gives core (local rank mod cores)'s package, the cores split
//     evenly (in order, as many or one fewer each) over the packages.
// A list that asks for more than a million processes in all is skipped:
// its map would only be longer, and take seconds to make.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: opal/class/job_map.cc opal/class/fabric.cc opal/class/fabric_parse.cc
// fuzz-sources: opal/class/fabric_address.cc opal/class/port_ranges.cc
// fuzz-sources: opal/class/weighted_graph.cc opal/util/read_file.cc opal/util/strings.cc
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>

namespace
{

using meridian::fabric::Binding;
using meridian::fabric::Fabric;
using meridian::fabric::Index;
using meridian::fabric::JobMap;
using meridian::fabric::Node;

constexpr std::string_view where = "--hosts";
constexpr std::uint64_t max_processes = 1000000;

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("hosts_fuzz", promise);
}

// Cores that packages split evenly and unevenly, one core, names with the
// marks a name may have.
const Fabric &fabric()
{
    static const Fabric parsed = [] {
        auto made = meridian::fabric::parse_fabric("fabric hosts\n"
                                                   "node node01 packages=2 cores=8\n"
                                                   "node node02 packages=2 cores=3\n"
                                                   "node n3\n"
                                                   "node big packages=4 cores=1000\n"
                                                   "node rack_2.node-7 packages=3 cores=7\n",
                                                   "hosts.fabric");
        if (!made) {
            broken("the target's fabric parses: " + made.error().message);
        }
        return *made;
    }();
    return parsed;
}

bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && blank(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && blank(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

struct Item {
    std::string_view name;
    bool counted = false; // ":N" given
    std::uint64_t count = 0;
};

// The list's items as the documentation reads them.  For a list the parser
// took every count is digits; for any other, a count that is not digits
// reads as 0 and a long one as more than the parser takes.
std::vector<Item> items_of(std::string_view hosts)
{
    std::vector<Item> items;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = hosts.find(',', start);
        const std::string_view item = trimmed(
            hosts.substr(start, comma == std::string_view::npos ? hosts.npos : comma - start));
        const std::size_t colon = item.find(':');
        Item parsed{trimmed(item.substr(0, colon))};
        if (colon != std::string_view::npos) {
            parsed.counted = true;
            for (const char c : trimmed(item.substr(colon + 1))) {
                if (c < '0' || c > '9') {
                    parsed.count = 0;
                    break;
                }
                parsed.count = std::min<std::uint64_t>(parsed.count * 10 + (c - '0'), 1u << 30);
            }
        }
        items.push_back(parsed);
        if (comma == std::string_view::npos) {
            return items;
        }
        start = comma + 1;
    }
}

// How many processes the list asks for, as far as the parser would take it.
std::uint64_t asked_for(std::string_view hosts)
{
    std::uint64_t total = 0;
    for (const Item &item : items_of(hosts)) {
        if (item.counted) {
            total += item.count <= 10000000 ? item.count : 0;
        } else if (const auto node = fabric().find_node(item.name)) {
            total += fabric().nodes()[*node].cores;
        }
    }
    return total;
}

void check_error(const std::string &message, std::size_t size)
{
    std::size_t pos = where.size() + 1;
    std::size_t column = 0;
    while (message.rfind(std::string(where) + ":", 0) == 0 && pos < message.size() &&
           message[pos] >= '0' && message[pos] <= '9' && column < 1u << 30) {
        column = column * 10 + static_cast<std::size_t>(message[pos++] - '0');
    }
    if (column == 0 || column > size + 1 || message.compare(pos, 2, ": ") != 0 ||
        message.find('\n') != std::string::npos) {
        broken("the error reads --hosts:COL: ... with a column in the text: " + message);
    }
}

// Core c's package under core binding, as the map gives it (checked to be
// the same for every rank on c).
void check_core_packages(const Node &node, const std::vector<std::int32_t> &package_of_core)
{
    std::vector<std::uint32_t> cores_in(node.packages, 0);
    for (std::size_t c = 0; c < package_of_core.size(); ++c) {
        const std::int32_t p = package_of_core[c];
        if (p < 0 || static_cast<std::uint32_t>(p) >= node.packages ||
            (c > 0 && p < package_of_core[c - 1])) {
            broken("core binding puts the cores in order in the node's packages: " + node.name);
        }
        ++cores_in[static_cast<std::size_t>(p)];
    }
    if (package_of_core.size() < node.cores) {
        return; // not every core has a rank
    }
    const std::uint32_t fewest = node.cores / node.packages;
    for (const std::uint32_t n : cores_in) {
        if (n != fewest && n != fewest + (node.cores % node.packages != 0 ? 1 : 0)) {
            broken("core binding splits the cores evenly over the packages: " + node.name);
        }
    }
}

void check_map(const JobMap &map, std::string_view hosts, Binding binding)
{
    const Fabric &f = fabric();
    if (map.nspace != "fuzz") {
        broken("the map has the namespace given");
    }
    const std::vector<Item> items = items_of(hosts);
    if (map.nodes.size() != items.size()) {
        broken("one node per item of the list");
    }
    std::set<Index> seen;
    std::uint64_t total = 0;
    std::size_t rank = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const Index index = map.nodes[i];
        if (index >= f.nodes().size() || !seen.insert(index).second) {
            broken("the map's nodes are nodes of the fabric, each once");
        }
        const Node &node = f.nodes()[index];
        if (node.name.empty() || node.name != items[i].name) {
            broken("each node is the one its item names: '" + std::string(items[i].name) + "'");
        }
        const std::uint64_t count = items[i].counted ? items[i].count : node.cores;
        total += count;
        if (total > map.procs.size()) {
            broken("the process count is the sum of the nodes' counts");
        }
        std::vector<std::int32_t> package_of_core;
        for (std::uint64_t local = 0; local < count; ++local, ++rank) {
            const auto &proc = map.procs[rank];
            if (proc.node != index || proc.local_rank != local) {
                broken("ranks fill each node in turn, local ranks from 0: " + node.name);
            }
            switch (binding) {
            case Binding::none:
                if (proc.package != -1) {
                    broken("binding none gives no package");
                }
                break;
            case Binding::package:
                if (proc.package != static_cast<std::int32_t>(local % node.packages)) {
                    broken("package binding gives local rank mod packages: " + node.name);
                }
                break;
            case Binding::core:
                if (local < node.cores) {
                    package_of_core.push_back(proc.package);
                } else if (proc.package != package_of_core[local % node.cores]) {
                    broken("core binding gives the package of core local mod cores: " + node.name);
                }
                break;
            }
        }
        if (binding == Binding::core) {
            check_core_packages(node, package_of_core);
        }
    }
    if (total != map.procs.size() || total > 2147483647) {
        broken("the process count is the sum of the nodes' counts, at most 2147483647");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    // A map of millions of processes takes seconds to make and check (and
    // ten million a node are allowed): such lists are skipped, since a
    // bigger count only makes a longer map.
    if (asked_for(input) > max_processes) {
        return 0;
    }
    std::optional<std::string> refused;
    bool first = true;
    for (const Binding binding : {Binding::core, Binding::package, Binding::none}) {
        const auto map = meridian::fabric::make_job_map(fabric(), input, binding, where, "fuzz");
        // The binding plays no part in reading the list.
        if (!first && refused.has_value() != !map) {
            broken("a list is taken or refused whatever the binding");
        }
        first = false;
        if (!map) {
            if (refused && *refused != map.error().message) {
                broken("a list is refused for the same reason whatever the binding");
            }
            check_error(map.error().message, size);
            refused = map.error().message;
            continue;
        }
        check_map(*map, input, binding);
    }
    return 0;
}

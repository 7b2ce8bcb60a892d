// SPDX-License-Identifier: BSD-3-Clause
// Job maps from a hosts list ("node01:4,node02:4"), as mpirun's -H writes it.
#include <meridian/opal/class/job_map.hpp>

#include <unordered_map>

#include <meridian/opal/util/strings.hpp>

namespace meridian::fabric
{

std::string some_nodes(const Fabric &fabric)
{
    const auto nodes = fabric.nodes();
    if (nodes.empty()) {
        return "the fabric has no nodes";
    }
    std::string text = "defined: ";
    const std::size_t shown = std::min<std::size_t>(nodes.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) {
        text += (i > 0 ? ", " : "") + nodes[i].name;
    }
    if (nodes.size() > shown) {
        text += ", ... (" + std::to_string(nodes.size()) + " nodes)";
    }
    return text;
}

std::string_view binding_name(Binding binding)
{
    switch (binding) {
    case Binding::core:
        return "core";
    case Binding::package:
        return "package";
    case Binding::none:
        break;
    }
    return "none";
}

Result<JobMap> make_job_map(const Fabric &fabric, std::string_view hosts, Binding binding,
                            std::string_view where, std::string nspace)
{
    auto error_at = [&](std::size_t offset, const std::string &message) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::string(where) + ':' + std::to_string(offset + 1) + ": " + message);
    };

    JobMap map;
    map.nspace = std::move(nspace);
    std::unordered_map<Index, std::size_t> listed_at; // node -> column of its first mention
    struct Entry {
        Index node;
        std::uint64_t count;
    };
    std::vector<Entry> entries;
    std::uint64_t total = 0;
    std::size_t start = 0;
    while (start <= hosts.size()) {
        std::size_t end = hosts.find(',', start);
        if (end == std::string_view::npos) {
            end = hosts.size();
        }
        std::size_t begin = start;
        while (begin < end && util::is_space(hosts[begin])) {
            ++begin;
        }
        std::size_t stop = end;
        while (stop > begin && util::is_space(hosts[stop - 1])) {
            --stop;
        }
        const std::string_view item = hosts.substr(begin, stop - begin);
        const std::size_t colon = item.find(':');
        const std::string_view name = util::trim(item.substr(0, colon));
        if (name.empty()) {
            return error_at(begin,
                            "expected a node name, found " +
                                (item.empty() ? util::found_at(hosts, begin) : util::quoted(item)));
        }
        const auto node = fabric.find_node(name);
        if (!node) {
            return error_at(begin,
                            "unknown node " + util::quoted(name) + " (" + some_nodes(fabric) + ")");
        }
        if (const auto first = listed_at.find(*node); first != listed_at.end()) {
            return error_at(begin, "expected each node once, found " + util::quoted(name) +
                                       " again (first at column " +
                                       std::to_string(first->second + 1) + ")");
        }
        listed_at.emplace(*node, begin);
        std::uint64_t count = fabric.nodes()[*node].cores;
        if (colon != std::string_view::npos) {
            std::size_t at = begin + colon + 1;
            while (at < stop && util::is_space(hosts[at])) {
                ++at;
            }
            const std::string_view digits = hosts.substr(at, stop - at);
            const auto parsed =
                digits.size() <= 8 ? util::parse_uint(digits, 1, max_procs_per_node) : std::nullopt;
            if (!parsed) {
                return error_at(
                    at, "expected a process count 1-10000000 after " +
                            util::quoted(std::string(name) + ":") + ", found " +
                            (digits.empty() ? util::found_at(hosts, at) : util::quoted(digits)));
            }
            count = *parsed;
        }
        total += count;
        if (total > max_ranks) {
            return error_at(begin, "expected at most 2147483647 processes in all, found " +
                                       std::to_string(total) + " by node " + util::quoted(name));
        }
        entries.push_back({*node, count});
        start = end + 1;
    }
    map.procs.reserve(total);
    map.nodes.reserve(entries.size());
    for (const Entry &entry : entries) {
        const Node &node = fabric.nodes()[entry.node];
        map.nodes.push_back(entry.node);
        for (std::uint64_t local = 0; local < entry.count; ++local) {
            ProcPlacement proc;
            proc.node = entry.node;
            proc.local_rank = static_cast<std::uint32_t>(local);
            switch (binding) {
            case Binding::core: {
                // Cores split evenly over packages: core c is in package c * P / C.
                const std::uint64_t core = local % node.cores;
                proc.package = static_cast<std::int32_t>(core * node.packages / node.cores);
                break;
            }
            case Binding::package:
                proc.package = static_cast<std::int32_t>(local % node.packages);
                break;
            case Binding::none:
                proc.package = -1;
                break;
            }
            map.procs.push_back(proc);
        }
    }
    return map;
}

} // namespace meridian::fabric

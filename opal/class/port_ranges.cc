// SPDX-License-Identifier: BSD-3-Clause
// Static port pools in PMIx's syntax, and the free ports of one pool.
#include <meridian/opal/class/port_ranges.hpp>

#include <algorithm>
#include <tuple>

#include <meridian/opal/util/strings.hpp>

namespace meridian::fabric
{

namespace
{

using util::Piece;
using util::split_pieces;

class Parser
{
  public:
    Parser(std::string_view text, std::string_view where, std::uint32_t column)
        : text_(text), where_(where), column_(column)
    {
    }

    Result<std::vector<PortPoolSpec>> parse();

  private:
    struct Written {
        PortRange range;
        std::size_t offset;
        std::size_t pool;
    };

    Error error_at(std::size_t offset, const std::string &message) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::string(where_) + ':' +
                              std::to_string(static_cast<std::uint64_t>(column_) + offset) + ": " +
                              message);
    }

    Result<std::uint16_t> port(Piece part, Piece item) const;
    Result<PortPoolSpec> pool(Piece text, std::size_t index, std::vector<Written> &written) const;
    Status check_overlaps(const std::vector<PortPoolSpec> &pools,
                          std::vector<Written> &written) const;

    std::string_view text_;
    std::string_view where_;
    std::uint32_t column_;
};

Result<std::uint16_t> Parser::port(Piece part, Piece item) const
{
    const Piece shown = part.text.empty() ? item : part;
    const auto value = part.text.size() <= 5 ? util::parse_uint(part.text, 1, 65535) : std::nullopt;
    if (!value) {
        return error_at(shown.offset,
                        "expected a port 1-65535, found " + util::found(text_, shown));
    }
    return static_cast<std::uint16_t>(*value);
}

Result<PortPoolSpec> Parser::pool(Piece text, std::size_t index,
                                  std::vector<Written> &written) const
{
    PortPoolSpec spec;
    const std::vector<Piece> fields = split_pieces(text, ':');
    const Piece protocol = util::trim(fields[0]);
    if (util::iequals(protocol.text, "tcp")) {
        spec.protocol = Protocol::tcp;
    } else if (util::iequals(protocol.text, "udp")) {
        spec.protocol = Protocol::udp;
    } else {
        return error_at(protocol.offset, "expected PROTOCOL \"tcp\" or \"udp\", found " +
                                             util::found(text_, protocol));
    }
    if (fields.size() == 1) {
        const std::size_t end = fields[0].offset + fields[0].text.size();
        return error_at(end, "expected ':' and the ports after " + util::quoted(protocol.text) +
                                 ", found " + util::found_at(text_, end));
    }
    if (fields.size() > 3) {
        const std::size_t colon = fields[3].offset - 1;
        return error_at(colon, "expected ',' or ';' after a port, found ':'");
    }
    if (fields.size() == 3) {
        const Piece subnet = util::trim(fields[1]);
        const auto cidr = parse_cidr(subnet.text);
        if (!cidr) {
            return error_at(subnet.offset, "expected a subnet A.B.C.D/N (host bits zero), found " +
                                               util::found(text_, subnet));
        }
        spec.subnet = *cidr;
    }
    for (const Piece &raw : split_pieces(fields.back(), ',')) {
        const Piece item = util::trim(raw);
        const std::size_t dash = item.text.find('-');
        PortRange range;
        if (dash == std::string_view::npos) {
            auto value = port(item, item);
            if (!value) {
                return value.error();
            }
            range.first = range.last = *value;
        } else {
            const Piece first = util::trim({item.text.substr(0, dash), item.offset});
            const Piece last = util::trim({item.text.substr(dash + 1), item.offset + dash + 1});
            auto low = port(first, item);
            if (!low) {
                return low.error();
            }
            auto high = port(last, item);
            if (!high) {
                return high.error();
            }
            if (*low > *high) {
                return error_at(item.offset, "expected FIRST <= LAST in a port range, found " +
                                                 util::quoted(item.text));
            }
            range.first = *low;
            range.last = *high;
        }
        spec.ranges.push_back(range);
        written.push_back({range, item.offset, index});
    }
    return spec;
}

// Pools of one protocol on one subnet (or on every NIC) are one pool: a port
// may appear once in all of them together.
Status Parser::check_overlaps(const std::vector<PortPoolSpec> &pools,
                              std::vector<Written> &written) const
{
    auto key = [&](const Written &w) {
        const PortPoolSpec &spec = pools[w.pool];
        return std::make_tuple(
            spec.protocol, spec.subnet.has_value(), spec.subnet ? spec.subnet->network : 0u,
            spec.subnet ? spec.subnet->prefix : std::uint8_t{0}, w.range.first, w.offset);
    };
    std::sort(written.begin(), written.end(),
              [&](const Written &a, const Written &b) { return key(a) < key(b); });
    // Sorted by first port within a group, a range overlaps an earlier one
    // exactly when it overlaps the one reaching furthest.
    std::size_t reach = 0;
    for (std::size_t i = 0; i < written.size(); ++i) {
        const PortPoolSpec &spec = pools[written[i].pool];
        const PortPoolSpec &before = pools[written[reach].pool];
        if (i == 0 || spec.protocol != before.protocol || spec.subnet != before.subnet) {
            reach = i;
            continue;
        }
        if (written[i].range.first <= written[reach].range.last) {
            const std::size_t offset = std::max(written[i].offset, written[reach].offset);
            std::string message = "port " + std::to_string(written[i].range.first) +
                                  " is listed twice in the " +
                                  std::string(protocol_name(spec.protocol)) + " pool";
            if (spec.subnet) {
                message += " of " + spec.subnet->text();
            }
            return error_at(offset, message);
        }
        if (written[i].range.last > written[reach].range.last) {
            reach = i;
        }
    }
    return success();
}

Result<std::vector<PortPoolSpec>> Parser::parse()
{
    std::vector<PortPoolSpec> pools;
    if (util::trim({text_, 0}).text.empty()) {
        return pools;
    }
    std::vector<Written> written;
    const std::vector<Piece> parts = split_pieces({text_, 0}, ';');
    for (std::size_t i = 0; i < parts.size(); ++i) {
        auto spec = pool(parts[i], i, written);
        if (!spec) {
            return spec.error();
        }
        pools.push_back(std::move(*spec));
    }
    if (auto checked = check_overlaps(pools, written); !checked) {
        return checked.error();
    }
    return pools;
}

std::vector<PortRange> normalized(std::vector<PortRange> ranges)
{
    std::sort(ranges.begin(), ranges.end(),
              [](const PortRange &a, const PortRange &b) { return a.first < b.first; });
    std::vector<PortRange> merged;
    for (const PortRange &range : ranges) {
        if (!merged.empty() && static_cast<std::uint32_t>(range.first) <=
                                   static_cast<std::uint32_t>(merged.back().last) + 1) {
            merged.back().last = std::max(merged.back().last, range.last);
        } else {
            merged.push_back(range);
        }
    }
    return merged;
}

void append_range(std::string &text, std::uint16_t first, std::uint16_t last)
{
    text += std::to_string(first);
    if (last != first) {
        text += '-';
        text += std::to_string(last);
    }
}

} // namespace

std::string_view protocol_name(Protocol protocol)
{
    return protocol == Protocol::udp ? "udp" : "tcp";
}

Result<std::vector<PortPoolSpec>> parse_static_ports(std::string_view text, std::string_view where,
                                                     std::uint32_t column)
{
    return Parser(text, where, column).parse();
}

std::string format_static_ports(std::span<const PortPoolSpec> pools)
{
    std::string text;
    for (const PortPoolSpec &pool : pools) {
        if (!text.empty()) {
            text += ';';
        }
        text += protocol_name(pool.protocol);
        text += ':';
        if (pool.subnet) {
            text += pool.subnet->text();
            text += ':';
        }
        for (std::size_t i = 0; i < pool.ranges.size(); ++i) {
            if (i > 0) {
                text += ',';
            }
            append_range(text, pool.ranges[i].first, pool.ranges[i].last);
        }
    }
    return text;
}

std::string format_port_list(std::span<const std::uint16_t> ports)
{
    std::vector<std::uint16_t> sorted(ports.begin(), ports.end());
    std::sort(sorted.begin(), sorted.end());
    std::string text;
    std::size_t i = 0;
    while (i < sorted.size()) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] <= sorted[j] + 1) {
            ++j;
        }
        if (!text.empty()) {
            text += ',';
        }
        append_range(text, sorted[i], sorted[j]);
        i = j + 1;
    }
    return text;
}

// free_ is kept in descending order, so that the lowest ports -- the ones
// taken first and, at release, usually given back first -- sit at its end.
PortPool::PortPool(std::span<const PortRange> ranges)
    : all_(normalized(std::vector<PortRange>(ranges.begin(), ranges.end())))
{
    free_.assign(all_.rbegin(), all_.rend());
}

std::size_t PortPool::free_count() const
{
    std::size_t count = 0;
    for (const PortRange &range : free_) {
        count += static_cast<std::size_t>(range.last) - range.first + 1;
    }
    return count;
}

std::size_t PortPool::take(std::size_t count, std::vector<std::uint16_t> &out)
{
    std::size_t taken = 0;
    while (taken < count && !free_.empty()) {
        PortRange &lowest = free_.back();
        out.push_back(lowest.first);
        ++taken;
        if (lowest.first == lowest.last) {
            free_.pop_back();
        } else {
            ++lowest.first;
        }
    }
    return taken;
}

void PortPool::give_back(std::span<const std::uint16_t> ports)
{
    std::vector<std::uint16_t> sorted(ports.begin(), ports.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (const std::uint16_t port : sorted) {
        // Ignore ports that are not this pool's.
        const auto in_all =
            std::upper_bound(all_.begin(), all_.end(), port,
                             [](std::uint16_t p, const PortRange &r) { return p < r.first; });
        if (in_all == all_.begin() || std::prev(in_all)->last < port) {
            continue;
        }
        // free_ is descending: find the first run that starts below port.
        auto below =
            std::lower_bound(free_.begin(), free_.end(), port,
                             [](const PortRange &r, std::uint16_t p) { return r.first > p; });
        // Already free?
        if (below != free_.end() && below->first <= port && port <= below->last) {
            continue;
        }
        const bool joins_below = below != free_.end() && below->last + 1 == port;
        const bool joins_above = below != free_.begin() && std::prev(below)->first == port + 1;
        if (joins_below && joins_above) {
            std::prev(below)->first = below->first;
            free_.erase(below);
        } else if (joins_below) {
            below->last = port;
        } else if (joins_above) {
            std::prev(below)->first = port;
        } else {
            free_.insert(below, PortRange{port, port});
        }
    }
}

} // namespace meridian::fabric

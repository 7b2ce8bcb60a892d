// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp's switch map (pnet_tcp_switches.hpp).
#include "components/pnet_tcp/pnet_tcp_switches.hpp"

#include <algorithm>

#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet_tcp
{

namespace
{

using util::Piece;

// A switch name as a fabric file takes it, without the ':' that ends it here.
bool is_switch_name(std::string_view name)
{
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
    });
}

struct Written {
    AddressSpan span;
    std::size_t offset;
    std::size_t owner; // index in switches
};

class Parser
{
  public:
    Parser(std::string_view text, std::string_view where) : text_(text), where_(where) {}

    Result<std::vector<SwitchSpec>> parse();

  private:
    Error error_at(std::size_t offset, const std::string &message) const
    {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          std::string(where_) + ':' + std::to_string(offset + 1) + ": " + message);
    }

    Result<AddressSpan> span(Piece item) const;
    Status part(Piece text, std::vector<SwitchSpec> &switches, std::vector<Written> &written) const;
    Status check_overlaps(const std::vector<SwitchSpec> &switches,
                          std::vector<Written> &written) const;

    std::string_view text_;
    std::string_view where_;
};

Result<AddressSpan> Parser::span(Piece item) const
{
    if (item.text.find('/') != std::string_view::npos) {
        const auto cidr = fabric::parse_cidr(item.text);
        if (!cidr) {
            return error_at(item.offset, "expected a subnet A.B.C.D/N (host bits zero), found " +
                                             util::found(text_, item));
        }
        const std::uint32_t size_less_one =
            cidr->prefix == 0 ? UINT32_MAX : (std::uint32_t{1} << (32 - cidr->prefix)) - 1;
        return AddressSpan{cidr->network, cidr->network + size_less_one};
    }
    const std::size_t dash = item.text.find('-');
    const Piece first = util::trim(Piece{item.text.substr(0, dash), item.offset});
    const auto low = fabric::parse_ipv4(first.text);
    if (!low) {
        return error_at(first.offset, "expected an address A.B.C.D, a range A.B.C.D-A.B.C.D or a "
                                      "subnet A.B.C.D/N, found " +
                                          util::found(text_, first.text.empty() ? item : first));
    }
    if (dash == std::string_view::npos) {
        return AddressSpan{*low, *low};
    }
    const Piece last = util::trim(Piece{item.text.substr(dash + 1), item.offset + dash + 1});
    const auto high = fabric::parse_ipv4(last.text);
    if (!high) {
        return error_at(last.offset, "expected the last address A.B.C.D of the range, found " +
                                         util::found(text_, last));
    }
    if (*high < *low) {
        return error_at(item.offset, "expected FIRST <= LAST in an address range, found " +
                                         util::quoted(item.text));
    }
    return AddressSpan{*low, *high};
}

Status Parser::part(Piece text, std::vector<SwitchSpec> &switches,
                    std::vector<Written> &written) const
{
    const std::size_t colon = text.text.find(':');
    const Piece name = util::trim(Piece{text.text.substr(0, colon), text.offset});
    if (name.text.size() > fabric::max_name_bytes) {
        return error_at(name.offset, "expected a switch NAME of at most " +
                                         std::to_string(fabric::max_name_bytes) + " bytes, found " +
                                         std::to_string(name.text.size()) + " bytes");
    }
    if (!is_switch_name(name.text)) {
        return error_at(name.offset, "expected a switch NAME (letters, digits, '_', '-', '.'), "
                                     "found " +
                                         util::found(text_, name));
    }
    if (colon == std::string_view::npos) {
        const std::size_t end = text.offset + text.text.size();
        return error_at(end, "expected ':' and the addresses of switch " + util::quoted(name.text) +
                                 ", found " + util::found_at(text_, end));
    }
    auto known = std::find_if(switches.begin(), switches.end(),
                              [&](const SwitchSpec &s) { return s.name == name.text; });
    if (known == switches.end()) {
        switches.push_back({std::string(name.text), {}});
        known = switches.end() - 1;
    }
    const std::size_t owner = static_cast<std::size_t>(known - switches.begin());
    const Piece addresses{text.text.substr(colon + 1), text.offset + colon + 1};
    for (const Piece &raw : util::split_pieces(addresses, ',')) {
        const Piece item = util::trim(raw);
        auto parsed = span(item);
        if (!parsed) {
            return parsed.error();
        }
        known->spans.push_back(*parsed);
        written.push_back({*parsed, item.offset, owner});
    }
    return success();
}

// An address on two switches is a contradiction, not a choice: say so.
Status Parser::check_overlaps(const std::vector<SwitchSpec> &switches,
                              std::vector<Written> &written) const
{
    std::sort(written.begin(), written.end(), [](const Written &a, const Written &b) {
        return a.span.first != b.span.first ? a.span.first < b.span.first : a.offset < b.offset;
    });
    // Sorted by first address, a span overlaps an earlier one exactly when
    // it overlaps the one reaching furthest.
    std::size_t reach = 0;
    for (std::size_t i = 1; i < written.size(); ++i) {
        if (written[i].span.first <= written[reach].span.last) {
            const Written &later =
                written[i].offset > written[reach].offset ? written[i] : written[reach];
            const Written &earlier = &later == &written[i] ? written[reach] : written[i];
            const std::string address = fabric::format_ipv4(written[i].span.first);
            if (later.owner == earlier.owner) {
                return error_at(later.offset, "address " + address +
                                                  " is listed twice for switch " +
                                                  util::quoted(switches[later.owner].name));
            }
            return error_at(later.offset, "address " + address + " is on switch " +
                                              util::quoted(switches[earlier.owner].name) +
                                              " already; an address hangs off one switch");
        }
        if (written[i].span.last > written[reach].span.last) {
            reach = i;
        }
    }
    return success();
}

Result<std::vector<SwitchSpec>> Parser::parse()
{
    std::vector<SwitchSpec> switches;
    if (util::trim(Piece{text_, 0}).text.empty()) {
        return switches;
    }
    std::vector<Written> written;
    for (const Piece &raw : util::split_pieces(Piece{text_, 0}, ';')) {
        if (auto done = part(raw, switches, written); !done) {
            return done.error();
        }
    }
    if (auto checked = check_overlaps(switches, written); !checked) {
        return checked.error();
    }
    return switches;
}

} // namespace

std::optional<std::size_t> SwitchMap::switch_of(std::uint32_t address) const
{
    for (std::size_t i = 0; i < switches_.size(); ++i) {
        for (const AddressSpan &span : switches_[i].spans) {
            if (address >= span.first && address <= span.last) {
                return i;
            }
        }
    }
    return std::nullopt;
}

bool SwitchMap::touches(std::size_t index, const fabric::Cidr &subnet) const
{
    const std::uint32_t size_less_one =
        subnet.prefix == 0 ? UINT32_MAX : (std::uint32_t{1} << (32 - subnet.prefix)) - 1;
    const std::uint32_t last = subnet.network + size_less_one;
    return std::any_of(
        switches_[index].spans.begin(), switches_[index].spans.end(),
        [&](const AddressSpan &span) { return span.first <= last && span.last >= subnet.network; });
}

Result<SwitchMap> SwitchMap::parse(std::string_view text, std::string_view where)
{
    auto switches = Parser(text, where).parse();
    if (!switches) {
        return switches.error();
    }
    SwitchMap map;
    map.switches_ = std::move(*switches);
    return map;
}

} // namespace meridian::pnet_tcp

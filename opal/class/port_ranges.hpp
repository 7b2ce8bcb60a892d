// SPDX-License-Identifier: BSD-3-Clause
// Static port pools: PMIx's syntax for the ports a launcher may hand out,
//
//   tcp:10.10.10.0/24:32000-32100,33000;udp:40000,40005
//
// a ';'-separated list of pools, each PROTOCOL[:CIDR]:RANGES where PROTOCOL
// is tcp or udp, the optional CIDR limits the pool to NICs on that subnet,
// and RANGES is a ','-separated list of ports (1-65535) or FIRST-LAST ranges.
// Spaces around any token are allowed.  An empty text is no pool at all.
#ifndef MERIDIAN_CLASS_PORT_RANGES_HPP
#define MERIDIAN_CLASS_PORT_RANGES_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/class/fabric_address.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::fabric
{

enum class Protocol : std::uint8_t { tcp, udp };
std::string_view protocol_name(Protocol protocol); // "tcp" / "udp"

struct PortRange {
    std::uint16_t first = 0;
    std::uint16_t last = 0; // inclusive, first <= last
    bool operator==(const PortRange &) const = default;
};

struct PortPoolSpec {
    Protocol protocol = Protocol::tcp;
    std::optional<Cidr> subnet;    // none: usable on every NIC
    std::vector<PortRange> ranges; // as written (overlaps are an error)
    bool operator==(const PortPoolSpec &) const = default;
};

// Parse the syntax above.  `where` names the text for messages: a file
// position "PATH:LINE" or a parameter's name and source; `column` is the
// column of the text's first character there (1 when the text stands alone).
// Errors (MERIDIAN_ERR_BAD_PARAM) read
//   WHERE:COL: expected PROTOCOL "tcp" or "udp", found "sctp"
//   WHERE:COL: expected a port 1-65535, found "70000"
//   WHERE:COL: expected FIRST <= LAST in a port range, found "33000-32000"
//   WHERE:COL: port 32005 is listed twice in the tcp pool
// (every message has WHERE:COL, what was expected and what was found).
Result<std::vector<PortPoolSpec>> parse_static_ports(std::string_view text, std::string_view where,
                                                     std::uint32_t column = 1);

// The syntax back, so that parse(format(x)) == x.
std::string format_static_ports(std::span<const PortPoolSpec> pools);

// Ports as PMIx shows an allocation: ascending runs joined,
// "32000-32003,32010".  The input need not be sorted.
std::string format_port_list(std::span<const std::uint16_t> ports);

// The free ports of one pool on one node.  Taking and giving back are
// O(ports moved); a pool of N ports costs O(number of free runs) memory, so an
// untouched pool on each of 10^5 nodes is one run each.
class PortPool
{
  public:
    PortPool() = default;
    explicit PortPool(std::span<const PortRange> ranges);

    std::size_t free_count() const;
    // The lowest `count` free ports, appended to `out`; fewer when fewer are
    // free (the return value says how many).
    std::size_t take(std::size_t count, std::vector<std::uint16_t> &out);
    // Give ports back (ports not taken from this pool are ignored).
    void give_back(std::span<const std::uint16_t> ports);

  private:
    std::vector<PortRange> free_; // sorted, disjoint, not adjacent
    std::vector<PortRange> all_;  // the pool as configured
};

} // namespace meridian::fabric

#endif

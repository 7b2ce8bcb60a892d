// SPDX-License-Identifier: BSD-3-Clause
// Network allocation requests (the entries of pmix.alloc.net), and the text
// form users write them in:
//
//   id=NAME[,type=TYPE][,plane=PLANE][,endpts=N][,seckey[=BYTES]][,qos=N][,bw=RATE][,required]
//
// id is required and names the allocation (letters, digits, "_-.@": a
// launcher's ID may hold its namespace, "prterun-n1-4711@1.net").
// type: a transport ("tcp", "udp", "ucx", ...).  plane: a plane's name or
// CIDR.  endpts: endpoints per process (1-65535, default 1).  seckey: a
// security key of BYTES random bytes from the OS (1-1024, default 16).  qos:
// a QoS level.  bw: bandwidth per process (a rate, fabric.hpp).
// "required" marks every value given as required; a "!" after one value
// ("endpts=4!", "seckey!") marks just that one.  Several requests are
// separated by ';' and must have different ids.
#ifndef MERIDIAN_MCA_PNET_BASE_REQUEST_HPP
#define MERIDIAN_MCA_PNET_BASE_REQUEST_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian::pnet
{

// PMIx's keys.
inline constexpr std::string_view key_alloc_network = "pmix.alloc.net";
inline constexpr std::string_view key_id = "pmix.alloc.netid";
inline constexpr std::string_view key_type = "pmix.alloc.nettype";
inline constexpr std::string_view key_plane = "pmix.alloc.netplane";
inline constexpr std::string_view key_endpts = "pmix.alloc.endpts";
inline constexpr std::string_view key_seckey = "pmix.alloc.nsec";
inline constexpr std::string_view key_qos = "pmix.alloc.netqos";
inline constexpr std::string_view key_bandwidth = "pmix.alloc.bw";

template <typename T> struct Wanted {
    T value{};
    bool required = false;
    bool operator==(const Wanted &) const = default;
};

struct Request {
    std::string id;
    std::optional<Wanted<std::string>> type;
    std::optional<Wanted<std::string>> plane;
    std::optional<Wanted<std::uint32_t>> endpts;
    std::optional<Wanted<std::uint32_t>> seckey_bytes;
    std::optional<Wanted<std::uint32_t>> qos;
    std::optional<Wanted<double>> bandwidth_mbps;
    bool operator==(const Request &) const = default;
};

// A request's ID: letters, digits and "_-.@", as the messages below say.
inline constexpr std::string_view request_id_chars = "letters, digits, \"_-.@\"";
bool is_request_id(std::string_view text);

// One request.  `where` and `column` place the text for messages as in
// port_ranges.hpp.  Errors (MERIDIAN_ERR_BAD_PARAM):
//   WHERE:COL: expected a request key (id, type, plane, endpts, seckey, qos, bw, required), found
//   "endpt" WHERE:COL: expected endpts=N with N 1-65535, found "0" WHERE:COL: the request has no id
//   (id=NAME is required) WHERE:COL: "qos" is given twice
Result<Request> parse_request(std::string_view text, std::string_view where,
                              std::uint32_t column = 1);
// Several, ';'-separated (empty text: none).  Also refuses two requests with
// one id ("WHERE:COL: request id \"x\" is used twice").
Result<std::vector<Request>> parse_requests(std::string_view text, std::string_view where,
                                            std::uint32_t column = 1);
// The text form back: parse_request(format_request(r)) == r.
std::string format_request(const Request &request);

} // namespace meridian::pnet

#endif

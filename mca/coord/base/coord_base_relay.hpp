// SPDX-License-Identifier: BSD-3-Clause
// The coordinates-updated event between nodes, by Meridian's own means; not
// installed.
//
// A PMIx server hands a process's event to the processes of its own node
// only: Open MPI 4.1's mpirun forwards no client's event, Slurm's PMIx
// plugin neither.  So the lowest rank of every node of a job that spans
// nodes keeps a relay (a TCP listener on a thread of its own), and the
// process that changed the coordinates sends the event to the relay of
// every other node; the relay hands it to its node's processes as the PMIx
// event the sender's own node got, from the sender.
//
// Who may send: each relay draws a key and publishes it with its addresses
// through the modex, which PMIx serves to the job's own processes only.  The
// relay opens every connection with a fresh nonce; the sender answers with
// one frame -- a header, the event, and an HMAC-SHA-256 by the relay's key
// over the job, the nonce and every byte before it.  The relay reads no
// more than the header's bounded length, acts on nothing before the MAC
// checks, and answers a good frame with one byte so that the sender knows
// it arrived.  A bad frame gets no answer and a warning naming its origin.
// No key crosses the wire, and a nonce serves one connection: a recorded
// frame is refused at any other.
#ifndef MERIDIAN_MCA_COORD_BASE_RELAY_HPP
#define MERIDIAN_MCA_COORD_BASE_RELAY_HPP

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <meridian/opal/class/coordinate.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::coord::detail::relay
{

constexpr std::size_t key_bytes = 32;
constexpr std::size_t nonce_bytes = 32;
constexpr std::size_t mac_bytes = 32;
using Key = std::array<std::uint8_t, key_bytes>;
using Nonce = std::array<std::uint8_t, nonce_bytes>;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t magic = 0x4c52434d; // "MCRL" on the wire
constexpr std::uint32_t protocol_version = 1;
// relay -> sender when it accepts: magic, version (little-endian 32-bit
// words), the nonce.
constexpr std::size_t greeting_bytes = 8 + nonce_bytes;
// sender -> relay: magic, version, the sender's rank, the payload's length;
// then the payload, then the MAC.
constexpr std::size_t header_bytes = 16;
// The largest payload a relay reads (a fabric file of 10^5 nodes is well
// under it); a header asking for more is refused before any payload is read.
constexpr std::uint32_t max_payload = 64U << 20;
// relay -> sender after a good frame.
constexpr std::uint8_t delivered = 'Y';

// The datastore key under which a relay publishes where and how to reach it
// (a string: format_address).
inline constexpr const char *key_relay = "meridian.coord.relay";

// The event a relay passes on: who changed the coordinates, the planes, that
// process's coordinates after the change, the new fabric (fabric-file text).
struct Event {
    std::uint32_t from = 0;
    std::vector<std::string> planes;
    std::vector<Coordinate> coordinates;
    std::string fabric;
    bool operator==(const Event &) const = default;
};

// What a relay publishes: "1 PORT ADDR[,ADDR...] KEYHEX" (protocol version,
// TCP port, the node's IPv4 addresses, the key).
struct Address {
    std::uint16_t port = 0;
    std::vector<std::string> hosts;
    Key key{};
};
std::string format_address(const Address &address);
Result<Address> parse_address(std::string_view text);

// A fresh key or nonce from the OS's random source (libsodium); an error
// when libsodium cannot start.
Result<Key> new_key();
Nonce new_nonce();
// A job's identity in every MAC (a hash of its PMIx namespace; not secret:
// it keeps one job's frames from counting in another).
std::uint64_t job_id(std::string_view nspace);

// The wire, as bytes in and verdicts out (the relay and the sender move the
// bytes).
Bytes make_greeting(const Nonce &nonce);
Result<Nonce> read_greeting(std::span<const std::uint8_t> greeting);
Bytes encode_event(const Event &event);
Result<Event> decode_event(std::span<const std::uint8_t> payload);
// The whole frame for the relay that greeted with `nonce`.
Bytes make_frame(const Key &key, std::uint64_t job, const Nonce &nonce, const Event &event);
// A header's payload length, or why the header is refused (job_size: the
// job's ranks; the sender's must be one).
Result<std::uint32_t> check_header(std::span<const std::uint8_t> header, std::uint32_t job_size);
// The event of a whole frame (header, payload, MAC), or why it is refused.
Result<Event> open_frame(const Key &key, std::uint64_t job, const Nonce &nonce,
                         std::uint32_t job_size, std::span<const std::uint8_t> frame);

// Events in PMIx's terms (the info of MERIDIAN_NETWORK_COORDS_UPDATED) and
// back.
datastore::InfoList event_info(const Event &event);
Event event_of(std::uint32_t from, const datastore::InfoList &info);

// A relay: listens on every IPv4 address of the node, on a port the OS
// picks, and calls `deliver` (from its own thread) with every event a frame
// proved.  It handles many connections at once, each bounded in time
// (`patience`) and size.  Stops (and joins its thread) when destroyed.
class Relay
{
  public:
    using Deliver = std::function<void(const Event &event)>;
    struct Options {
        std::uint64_t job = 0;
        std::uint32_t job_size = 0;
        Key key{};
        std::chrono::milliseconds patience{10000};
        // The listener's address: empty, every address; else one IPv4
        // address (tests).
        std::string bind_host;
        Deliver deliver;
    };
    static Result<std::unique_ptr<Relay>> start(Options options);
    virtual ~Relay() = default;
    // Where it listens (port) and the node's addresses to publish.
    virtual Address address() const = 0;
};

// Send `event` to the relay at `address`: tries each host in turn, within
// `patience` for each; success once the relay says it was delivered.
Status send(const Address &address, std::uint64_t job, const Event &event,
            std::chrono::milliseconds patience);

} // namespace meridian::coord::detail::relay

#endif

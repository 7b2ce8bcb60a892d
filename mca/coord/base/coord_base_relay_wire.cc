// SPDX-License-Identifier: BSD-3-Clause
// The relay's wire (coord_base_relay.hpp): greetings, frames, their MAC, the
// event's encoding and the published address.  Bytes in, verdicts out.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <variant>

#include "mca/coord/base/coord_base_relay.hpp"
#include "opal/util/byte_io.hpp"
#include <meridian/mca/coord/base/base.h>
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::coord::detail::relay
{

namespace
{

using util::get32;
using util::put32;
using util::put_string;

constexpr std::string_view mac_label = "meridian coord relay frame v1";

bool sodium_ready()
{
    static const bool ready = ::sodium_init() >= 0;
    return ready;
}

void mac_of(const Key &key, std::uint64_t job, const Nonce &nonce,
            std::span<const std::uint8_t> signed_bytes, std::uint8_t *mac)
{
    crypto_auth_hmacsha256_state state;
    crypto_auth_hmacsha256_init(&state, key.data(), key.size());
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char *>(mac_label.data()),
                                  mac_label.size());
    std::uint8_t job_bytes[8];
    for (int i = 0; i < 8; ++i) {
        job_bytes[i] = static_cast<std::uint8_t>(job >> (8 * i));
    }
    crypto_auth_hmacsha256_update(&state, job_bytes, sizeof job_bytes);
    crypto_auth_hmacsha256_update(&state, nonce.data(), nonce.size());
    crypto_auth_hmacsha256_update(&state, signed_bytes.data(), signed_bytes.size());
    crypto_auth_hmacsha256_final(&state, mac);
    sodium_memzero(&state, sizeof state);
}

std::string begins_with(std::uint32_t word)
{
    static const char digits[] = "0123456789abcdef";
    std::string text = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) {
        text += digits[(word >> shift) & 0xf];
    }
    return text;
}

} // namespace

std::string format_address(const Address &address)
{
    std::string text = std::to_string(protocol_version) + " " + std::to_string(address.port) + " ";
    for (std::size_t i = 0; i < address.hosts.size(); ++i) {
        text += (i > 0 ? "," : "") + address.hosts[i];
    }
    text += " ";
    static const char digits[] = "0123456789abcdef";
    for (const std::uint8_t b : address.key) {
        text += digits[b >> 4];
        text += digits[b & 0xf];
    }
    return text;
}

Result<Address> parse_address(std::string_view text)
{
    const auto bad = [&](const std::string &why) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "a relay's address " + util::quoted(text) + ": " + why);
    };
    const auto fields = util::split(text, ' ');
    if (fields.size() != 4) {
        return bad("expected 4 fields (version, port, addresses, key)");
    }
    if (fields[0] != std::to_string(protocol_version)) {
        return bad("version " + util::quoted(fields[0]) + ", this process speaks " +
                   std::to_string(protocol_version));
    }
    Address address;
    const auto port = util::parse_uint(fields[1], 1, 65535);
    if (!port) {
        return bad("the port is not 1-65535");
    }
    address.port = static_cast<std::uint16_t>(*port);
    for (const auto &host : util::split(fields[2], ',')) {
        in_addr checked{};
        if (host.find('\0') != std::string::npos ||
            ::inet_pton(AF_INET, host.c_str(), &checked) != 1) {
            return bad("address " + util::quoted(host) + " is not IPv4");
        }
        address.hosts.push_back(host);
    }
    if (address.hosts.empty()) {
        return bad("no address");
    }
    const std::string_view hex = fields[3];
    if (hex.size() != 2 * key_bytes || !std::all_of(hex.begin(), hex.end(), [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        })) {
        return bad("the key is not " + std::to_string(2 * key_bytes) + " lower-case hex digits");
    }
    const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (std::size_t i = 0; i < key_bytes; ++i) {
        address.key[i] =
            static_cast<std::uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
    }
    return address;
}

Result<Key> new_key()
{
    if (!sodium_ready()) {
        return make_error(MERIDIAN_ERR_NOT_AVAILABLE,
                          "coord relay: libsodium could not start, so there is no key");
    }
    Key key;
    ::randombytes_buf(key.data(), key.size());
    return key;
}

Nonce new_nonce()
{
    Nonce nonce{};
    if (sodium_ready()) {
        ::randombytes_buf(nonce.data(), nonce.size());
    }
    return nonce;
}

std::uint64_t job_id(std::string_view nspace)
{
    // FNV-1a over the name: the same in every process and build.
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : nspace) {
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    return hash;
}

Bytes make_greeting(const Nonce &nonce)
{
    Bytes out;
    put32(out, magic);
    put32(out, protocol_version);
    out.insert(out.end(), nonce.begin(), nonce.end());
    return out;
}

Result<Nonce> read_greeting(std::span<const std::uint8_t> greeting)
{
    if (greeting.size() != greeting_bytes || get32(greeting.data()) != magic) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "the peer is not a Meridian coordinates relay");
    }
    if (const std::uint32_t version = get32(greeting.data() + 4); version != protocol_version) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "the relay speaks version " +
                                                      std::to_string(version) + ", this process " +
                                                      std::to_string(protocol_version));
    }
    Nonce nonce;
    std::memcpy(nonce.data(), greeting.data() + 8, nonce_bytes);
    return nonce;
}

Bytes encode_event(const Event &event)
{
    Bytes out;
    put32(out, static_cast<std::uint32_t>(event.planes.size()));
    for (const auto &plane : event.planes) {
        put_string(out, plane);
    }
    put32(out, static_cast<std::uint32_t>(event.coordinates.size()));
    for (const auto &c : event.coordinates) {
        put_string(out, c.fabric);
        put_string(out, c.plane);
        put32(out, static_cast<std::uint32_t>(c.view));
        put32(out, static_cast<std::uint32_t>(c.coord.size()));
        for (const std::uint32_t x : c.coord) {
            put32(out, x);
        }
    }
    put_string(out, event.fabric);
    return out;
}

Result<Event> decode_event(std::span<const std::uint8_t> payload)
{
    util::ByteReader in(payload);
    Event event;
    std::uint32_t planes = 0;
    bool ok = in.count(&planes, 4);
    for (std::uint32_t i = 0; ok && i < planes; ++i) {
        ok = in.string(&event.planes.emplace_back());
    }
    std::uint32_t coordinates = 0;
    ok = ok && in.count(&coordinates, 16);
    for (std::uint32_t i = 0; ok && i < coordinates; ++i) {
        Coordinate &c = event.coordinates.emplace_back();
        std::uint32_t view = 0;
        std::uint32_t dims = 0;
        ok = in.string(&c.fabric) && in.string(&c.plane) && in.u32(&view) && view <= 0xff &&
             in.count(&dims, 4);
        c.view = static_cast<meridian_coord_view_t>(view);
        for (std::uint32_t d = 0; ok && d < dims; ++d) {
            ok = in.u32(&c.coord.emplace_back());
        }
    }
    ok = ok && in.string(&event.fabric) && in.done();
    if (!ok) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "the event in the frame is malformed");
    }
    return event;
}

Bytes make_frame(const Key &key, std::uint64_t job, const Nonce &nonce, const Event &event)
{
    const Bytes payload = encode_event(event);
    Bytes frame;
    frame.reserve(header_bytes + payload.size() + mac_bytes);
    put32(frame, magic);
    put32(frame, protocol_version);
    put32(frame, event.from);
    put32(frame, static_cast<std::uint32_t>(payload.size()));
    frame.insert(frame.end(), payload.begin(), payload.end());
    const std::size_t signed_size = frame.size();
    frame.resize(signed_size + mac_bytes);
    mac_of(key, job, nonce, std::span(frame.data(), signed_size), frame.data() + signed_size);
    return frame;
}

Result<std::uint32_t> check_header(std::span<const std::uint8_t> header, std::uint32_t job_size)
{
    if (header.size() < header_bytes) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "the frame's header is short");
    }
    if (const std::uint32_t word = get32(header.data()); word != magic) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "it is not a Meridian relay frame (it begins " + begins_with(word) + ")");
    }
    if (const std::uint32_t version = get32(header.data() + 4); version != protocol_version) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "it speaks version " + std::to_string(version) +
                                                      " of the relay, this process " +
                                                      std::to_string(protocol_version));
    }
    if (const std::uint32_t from = get32(header.data() + 8); from >= job_size) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "it claims rank " + std::to_string(from) + ", the job has ranks 0-" +
                              std::to_string(job_size == 0 ? 0 : job_size - 1));
    }
    const std::uint32_t length = get32(header.data() + 12);
    if (length > max_payload) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "it announces " + std::to_string(length) + " bytes, more than the " +
                              std::to_string(max_payload) + " a relay reads");
    }
    return length;
}

Result<Event> open_frame(const Key &key, std::uint64_t job, const Nonce &nonce,
                         std::uint32_t job_size, std::span<const std::uint8_t> frame)
{
    auto length = check_header(frame, job_size);
    if (!length) {
        return length.error();
    }
    if (frame.size() != header_bytes + *length + mac_bytes) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "the frame has " + std::to_string(frame.size()) + " bytes, its header " +
                              "announces " + std::to_string(header_bytes + *length + mac_bytes));
    }
    const std::size_t signed_size = header_bytes + *length;
    std::uint8_t expected[mac_bytes];
    mac_of(key, job, nonce, frame.first(signed_size), expected);
    const bool proved = ::sodium_memcmp(expected, frame.data() + signed_size, mac_bytes) == 0;
    if (!proved) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "its MAC is not the relay's key's over this connection's nonce (a "
                          "sender outside the job, or a frame recorded elsewhere)");
    }
    auto event = decode_event(frame.subspan(header_bytes, *length));
    if (!event) {
        return event.error();
    }
    event->from = get32(frame.data() + 8);
    return event;
}

datastore::InfoList event_info(const Event &event)
{
    datastore::InfoList info;
    info.push_back({std::string(key_plane), event.planes});
    if (!event.coordinates.empty()) {
        info.push_back({std::string(key_coordinate), event.coordinates});
    }
    info.push_back({MERIDIAN_NETWORK_FABRIC, event.fabric});
    info.push_back({MERIDIAN_NETWORK_FROM, std::uint64_t{event.from}});
    return info;
}

Event event_of(std::uint32_t from, const datastore::InfoList &info)
{
    Event event;
    event.from = from;
    for (const auto &entry : info) {
        if (const auto *planes = std::get_if<std::vector<std::string>>(&entry.value);
            planes != nullptr && entry.key == key_plane) {
            event.planes = *planes;
        } else if (const auto *coords = std::get_if<std::vector<Coordinate>>(&entry.value);
                   coords != nullptr && entry.key == key_coordinate) {
            event.coordinates = *coords;
        } else if (const auto *text = std::get_if<std::string>(&entry.value);
                   text != nullptr && entry.key == MERIDIAN_NETWORK_FABRIC) {
            event.fabric = *text;
        }
    }
    return event;
}

} // namespace meridian::coord::detail::relay

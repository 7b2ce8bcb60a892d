// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the coordinates relay's wire (mca/coord/base/
// coord_base_relay_wire.cc): the one frame a relay reads from a stranger, a
// 16-byte header, the payload it announces and a 32-byte MAC.  The input is
// that frame, for a relay of a fixed key, job and nonce in a job of 8 ranks
// (so that a crash input reproduces); the same bytes are also decoded as a
// bare payload and read as a published address.
// Promises checked besides "nothing crashes":
//   - a refusal, of a frame, a payload or an address, is one non-empty line
//     of printable UTF-8 (no control character, no stray byte);
//   - a frame is accepted only when it is, byte for byte, the frame the
//     relay's key makes for the event it yields (no other input proves the
//     key);
//   - the bytes after the header, whatever they are, decode to an event that
//     encodes back to exactly those bytes, or are refused;
//   - an address read from the input as text formats to a text that reads
//     back to the same port, hosts and key.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: mca/coord/base/coord_base_relay_wire.cc opal/util/strings.cc
// fuzz-libs: -lsodium
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "mca/coord/base/coord_base_relay.hpp"
#include <meridian/opal/util/strings.hpp>

namespace
{

namespace relay = meridian::coord::detail::relay;

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("relay_frame_fuzz", promise);
}

constexpr std::uint64_t job = 0x5eed5eed5eed5eedULL;
constexpr std::uint32_t job_size = 8;

// The relay's key and the nonce it greeted this connection with: fixed.
relay::Key relay_key()
{
    relay::Key key;
    for (std::size_t i = 0; i < key.size(); ++i) {
        key[i] = static_cast<std::uint8_t>(i * 29 + 7);
    }
    return key;
}

relay::Nonce greeting_nonce()
{
    relay::Nonce nonce;
    for (std::size_t i = 0; i < nonce.size(); ++i) {
        nonce[i] = static_cast<std::uint8_t>(0xa0 ^ (i * 13));
    }
    return nonce;
}

void refusal_is_one_line(const std::string &what, const std::string &why)
{
    if (!meridian::fuzz::one_printable_line(why)) {
        broken(what + ": a refusal is one printable line: " + why);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const relay::Key key = relay_key();
    static const relay::Nonce nonce = greeting_nonce();
    const std::span<const std::uint8_t> frame(data, size);

    auto event = relay::open_frame(key, job, nonce, job_size, frame);
    if (!event) {
        refusal_is_one_line("open_frame", event.error().message);
    } else if (relay::make_frame(key, job, nonce, *event) !=
               relay::Bytes(frame.begin(), frame.end())) {
        broken("an accepted frame is the one the relay's key makes for its event");
    }

    const auto payload = frame.subspan(std::min(size, relay::header_bytes));
    auto decoded = relay::decode_event(payload);
    if (!decoded) {
        refusal_is_one_line("decode_event", decoded.error().message);
    } else if (relay::encode_event(*decoded) != relay::Bytes(payload.begin(), payload.end())) {
        broken("a decoded event encodes back to the bytes it was decoded from");
    }

    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto address = relay::parse_address(text);
    if (!address) {
        refusal_is_one_line("parse_address", address.error().message);
        return 0;
    }
    const std::string published = relay::format_address(*address);
    auto again = relay::parse_address(published);
    if (!again) {
        broken("format_address's text reads back: " + again.error().message);
    }
    if (again->port != address->port || again->hosts != address->hosts ||
        again->key != address->key) {
        broken("format_address's text reads back as the same address: " + published);
    }
    return 0;
}

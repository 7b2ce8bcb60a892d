// SPDX-License-Identifier: BSD-3-Clause
// The relay that carries the coordinates-updated event between nodes
// (mca/coord/base/coord_base_relay.hpp), and the strangers it must keep out:
//   - its published address and its frames, byte for byte: every malformed
//     or unproved one refused with a message that says why;
//   - a relay on loopback: a sender with its key delivers (the event as
//     sent, the sender told); a sender with another key, a frame recorded at
//     another connection, bytes of another protocol, a header that asks for
//     too much, a sender that stalls, and a crowd of idle connections are
//     refused with a warning naming where they came from (three per 10 s,
//     the rest counted), and deliver nothing -- and the relay still serves
//     the job afterwards.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mca/coord/base/coord_base_relay.hpp"
#include "test/support/meridian_test.hpp"
#include <meridian/mca/coord/base/base.h>
#include <meridian/opal/util/error.h>

namespace relay = meridian::coord::detail::relay;
using namespace std::chrono_literals;

namespace
{

// ---------------------------------------------------------------- helpers

relay::Event sample_event()
{
    relay::Event event;
    event.from = 3;
    event.planes = {"10.77.0.0/24", "ib"};
    meridian::Coordinate c;
    c.fabric = "tcp";
    c.plane = "10.77.0.0/24";
    c.view = MERIDIAN_COORD_LOGICAL_VIEW;
    c.coord = {1, 0, 2};
    event.coordinates = {c};
    event.fabric = "plane data cidr=10.77.0.0/24\nnode h1\nnic h1 eth0 plane=data\n";
    return event;
}

relay::Key key_of(std::uint8_t fill)
{
    relay::Key key;
    key.fill(fill);
    return key;
}

std::string error_of(const auto &result)
{
    return result ? std::string("<no error>") : result.error().message;
}

// Warnings come from the relay's thread: a sink of our own, locked.
struct Warnings {
    std::mutex lock;
    std::vector<std::string> texts;
};
Warnings &warnings()
{
    static Warnings w;
    return w;
}
void sink(meridian_severity_t, const char *text, void *)
{
    const std::lock_guard guard(warnings().lock);
    warnings().texts.emplace_back(text);
}
// Wait (at most 5 s) for a warning containing every piece; "" when found,
// else what came.
std::string wait_for_warning(std::initializer_list<std::string> pieces)
{
    for (int i = 0; i < 100; ++i) {
        {
            const std::lock_guard guard(warnings().lock);
            for (const auto &text : warnings().texts) {
                bool all = true;
                for (const auto &piece : pieces) {
                    all = all && text.find(piece) != std::string::npos;
                }
                if (all) {
                    return "";
                }
            }
        }
        std::this_thread::sleep_for(50ms);
    }
    const std::lock_guard guard(warnings().lock);
    // (The first few: Check's messages are short.)
    std::string came = "no such warning among " + std::to_string(warnings().texts.size()) + ":";
    for (std::size_t i = 0; i < warnings().texts.size() && i < 5; ++i) {
        came += "\n  " + warnings().texts[i].substr(0, 200);
    }
    return came;
}
std::size_t warning_count()
{
    const std::lock_guard guard(warnings().lock);
    return warnings().texts.size();
}

// A relay on 127.0.0.1 for a job of 4 with key 0x11..., counting what it
// delivers.
struct LiveRelay {
    std::unique_ptr<relay::Relay> relay;
    std::mutex lock;
    std::vector<relay::Event> delivered;
    relay::Address address;
    std::uint64_t job = relay::job_id("meridian-test-job");

    explicit LiveRelay(std::chrono::milliseconds patience = 5000ms)
    {
        meridian_set_message_sink(sink, nullptr);
        relay::Relay::Options options;
        options.job = job;
        options.job_size = 4;
        options.key = key_of(0x11);
        options.patience = patience;
        options.bind_host = "127.0.0.1";
        options.deliver = [this](const relay::Event &event) {
            const std::lock_guard guard(lock);
            delivered.push_back(event);
        };
        auto started = relay::Relay::start(std::move(options));
        ck_assert_msg(started.ok(), "%s", error_of(started).c_str());
        relay = std::move(*started);
        address = relay->address();
    }
    std::size_t count()
    {
        const std::lock_guard guard(lock);
        return delivered.size();
    }
};

// A raw connection to the relay, as a stranger has one.
struct Raw {
    int fd = -1;
    explicit Raw(const relay::Address &address)
    {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(address.port);
        ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
        ck_assert_int_eq(::connect(fd, reinterpret_cast<sockaddr *>(&to), sizeof to), 0);
        timeval tv{5, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    ~Raw() { ::close(fd); }
    relay::Nonce greeting()
    {
        relay::Bytes bytes(relay::greeting_bytes);
        std::size_t have = 0;
        while (have < bytes.size()) {
            const ssize_t n = ::recv(fd, bytes.data() + have, bytes.size() - have, 0);
            ck_assert_int_gt(n, 0);
            have += static_cast<std::size_t>(n);
        }
        auto nonce = relay::read_greeting(bytes);
        ck_assert_msg(nonce.ok(), "%s", error_of(nonce).c_str());
        return *nonce;
    }
    void write(const relay::Bytes &bytes)
    {
        ck_assert_int_eq(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
                         static_cast<ssize_t>(bytes.size()));
    }
    // What the relay answers: its byte, or -1 when it closed without one.
    int answer()
    {
        std::uint8_t byte = 0;
        const ssize_t n = ::recv(fd, &byte, 1, 0);
        return n == 1 ? byte : -1;
    }
};

relay::Bytes header(std::uint32_t magic, std::uint32_t version, std::uint32_t from,
                    std::uint32_t length)
{
    relay::Bytes bytes;
    for (const std::uint32_t word : {magic, version, from, length}) {
        for (int i = 0; i < 4; ++i) {
            bytes.push_back(static_cast<std::uint8_t>(word >> (8 * i)));
        }
    }
    return bytes;
}

// A stranger's connection: the relay's greeting taken, `bytes` sent; the
// relay must close it without an answer and warn with every piece.
void refused_after_greeting(const LiveRelay &live, const relay::Bytes &bytes,
                            std::initializer_list<std::string> pieces)
{
    Raw stranger(live.address);
    (void)stranger.greeting();
    stranger.write(bytes);
    ck_assert_int_eq(stranger.answer(), -1);
    const std::string found = wait_for_warning(pieces);
    ck_assert_msg(found.empty(), "%s", found.c_str());
}

// ---------------------------------------------------------------- the wire

START_TEST(address_round_trip_and_refusals)
{
    relay::Address address;
    address.port = 40123;
    address.hosts = {"10.77.0.2", "10.78.0.2"};
    address.key = key_of(0xa5);
    const std::string text = relay::format_address(address);
    std::string hex;
    for (int i = 0; i < 32; ++i) {
        hex += "a5";
    }
    ck_assert_text_eq(text, "1 40123 10.77.0.2,10.78.0.2 " + hex);
    auto parsed = relay::parse_address(text);
    ck_assert_msg(parsed.ok(), "%s", error_of(parsed).c_str());
    ck_assert_int_eq(parsed->port, 40123);
    ck_assert(parsed->hosts == address.hosts);
    ck_assert(parsed->key == address.key);

    ck_assert_text_eq(error_of(relay::parse_address("2 1 h " + std::string(64, 'a'))),
                      "a relay's address \"2 1 h " + std::string(64, 'a') +
                          "\": version \"2\", this process speaks 1");
    ck_assert_text_eq(error_of(relay::parse_address("1 9 10.0.0.1,h " + std::string(64, 'a'))),
                      "a relay's address \"1 9 10.0.0.1,h " + std::string(64, 'a') +
                          "\": address \"h\" is not IPv4");
    ck_assert_text_eq(error_of(relay::parse_address("1 0 10.0.0.1 " + std::string(64, 'a'))),
                      "a relay's address \"1 0 10.0.0.1 " + std::string(64, 'a') +
                          "\": the port is not 1-65535");
    ck_assert_text_eq(
        error_of(relay::parse_address("1 9 10.0.0.1 ABC")),
        "a relay's address \"1 9 10.0.0.1 ABC\": the key is not 64 lower-case hex digits");
    ck_assert_text_eq(error_of(relay::parse_address("1 9")),
                      "a relay's address \"1 9\": expected 4 fields (version, port, addresses, "
                      "key)");
}
END_TEST

START_TEST(event_round_trip_and_malformed_payloads)
{
    const relay::Event event = sample_event();
    const relay::Bytes payload = relay::encode_event(event);
    auto decoded = relay::decode_event(payload);
    ck_assert_msg(decoded.ok(), "%s", error_of(decoded).c_str());
    decoded->from = event.from; // the header carries it
    ck_assert(*decoded == event);

    // Every cut of the payload is malformed, never a wild read.
    for (std::size_t size = 0; size < payload.size(); ++size) {
        auto cut = relay::decode_event(std::span(payload.data(), size));
        ck_assert_text_eq(error_of(cut), "the event in the frame is malformed");
    }
    // A count larger than the bytes could hold.
    relay::Bytes lying = {0xff, 0xff, 0xff, 0x7f};
    ck_assert_text_eq(error_of(relay::decode_event(lying)), "the event in the frame is malformed");
    // Bytes left over.
    relay::Bytes longer = payload;
    longer.push_back(0);
    ck_assert_text_eq(error_of(relay::decode_event(longer)), "the event in the frame is malformed");
}
END_TEST

START_TEST(frames_prove_key_job_and_nonce)
{
    const relay::Key key = key_of(0x11);
    const std::uint64_t job = relay::job_id("job-a");
    const relay::Nonce nonce = relay::new_nonce();
    const relay::Event event = sample_event();
    const relay::Bytes frame = relay::make_frame(key, job, nonce, event);

    auto opened = relay::open_frame(key, job, nonce, 4, frame);
    ck_assert_msg(opened.ok(), "%s", error_of(opened).c_str());
    ck_assert(*opened == event);

    const std::string unproved = "its MAC is not the relay's key's over this connection's nonce "
                                 "(a sender outside the job, or a frame recorded elsewhere)";
    ck_assert_text_eq(error_of(relay::open_frame(key_of(0x12), job, nonce, 4, frame)), unproved);
    ck_assert_text_eq(error_of(relay::open_frame(key, relay::job_id("job-b"), nonce, 4, frame)),
                      unproved);
    ck_assert_text_eq(error_of(relay::open_frame(key, job, relay::new_nonce(), 4, frame)),
                      unproved);
    for (const std::size_t at : {std::size_t{8}, relay::header_bytes + 5, frame.size() - 1}) {
        relay::Bytes changed = frame;
        changed[at] ^= 1;
        const std::string why = error_of(relay::open_frame(key, job, nonce, 4, changed));
        ck_assert_msg(why == unproved || why.find("claims rank") != std::string::npos,
                      "byte %zu changed: %s", at, why.c_str());
    }
    ck_assert_text_eq(
        error_of(relay::open_frame(key, job, nonce, 4, std::span(frame.data(), frame.size() - 1))),
        "the frame has " + std::to_string(frame.size() - 1) + " bytes, its header announces " +
            std::to_string(frame.size()));
    // The rank must be the job's.
    ck_assert_text_eq(error_of(relay::open_frame(key, job, nonce, 3, frame)),
                      "it claims rank 3, the job has ranks 0-2");
}
END_TEST

START_TEST(headers_refused_before_any_payload)
{
    ck_assert_text_eq(error_of(relay::check_header(header(0x20544547, 1, 0, 0), 4)),
                      "it is not a Meridian relay frame (it begins 0x20544547)");
    ck_assert_text_eq(error_of(relay::check_header(header(relay::magic, 7, 0, 0), 4)),
                      "it speaks version 7 of the relay, this process 1");
    ck_assert_text_eq(
        error_of(relay::check_header(header(relay::magic, 1, 0, relay::max_payload + 1), 4)),
        "it announces " + std::to_string(relay::max_payload + 1) + " bytes, more than the " +
            std::to_string(relay::max_payload) + " a relay reads");
    auto fine = relay::check_header(header(relay::magic, 1, 3, 100), 4);
    ck_assert_msg(fine.ok(), "%s", error_of(fine).c_str());
    ck_assert_uint_eq(*fine, 100);
}
END_TEST

// ---------------------------------------------------------------- a live relay

START_TEST(a_sender_with_the_key_delivers)
{
    LiveRelay live;
    ck_assert_uint_eq(live.address.hosts.size(), 1);
    ck_assert_text_eq(live.address.hosts[0], "127.0.0.1");
    const relay::Event event = sample_event();
    auto sent = relay::send(live.address, live.job, event, 5000ms);
    ck_assert_msg(sent.ok(), "%s", error_of(sent).c_str());
    ck_assert_uint_eq(live.count(), 1);
    {
        const std::lock_guard guard(live.lock);
        ck_assert(live.delivered[0] == event);
    }
    ck_assert_uint_eq(warning_count(), 0);
}
END_TEST

START_TEST(a_sender_without_the_key_is_refused)
{
    LiveRelay live;
    relay::Address forged = live.address;
    forged.key = key_of(0x22);
    auto sent = relay::send(forged, live.job, sample_event(), 5000ms);
    ck_assert_text_eq(error_of(sent),
                      "127.0.0.1:" + std::to_string(live.address.port) +
                          ": the relay's answer: the relay closed the connection (it refused the "
                          "frame)");
    const std::string found =
        wait_for_warning({"coordinates relay: refused a connection from 127.0.0.1:",
                          "its MAC is not the relay's key's", "; nothing it sent was used"});
    ck_assert_msg(found.empty(), "%s", found.c_str());
    // Another job's frame with the right key: refused alike.
    auto other_job = relay::send(live.address, relay::job_id("another"), sample_event(), 5000ms);
    ck_assert(!other_job.ok());
    ck_assert_uint_eq(live.count(), 0);
    // The relay still serves the job.
    ck_assert(relay::send(live.address, live.job, sample_event(), 5000ms).ok());
    ck_assert_uint_eq(live.count(), 1);
}
END_TEST

START_TEST(a_recorded_frame_is_refused_at_another_connection)
{
    LiveRelay live;
    relay::Bytes recorded;
    {
        Raw first(live.address);
        recorded = relay::make_frame(key_of(0x11), live.job, first.greeting(), sample_event());
        first.write(recorded);
        ck_assert_int_eq(first.answer(), relay::delivered);
    }
    refused_after_greeting(live, recorded,
                           {"refused a connection from 127.0.0.1:", "a frame recorded elsewhere"});
    ck_assert_uint_eq(live.count(), 1);
}
END_TEST

START_TEST(another_protocol_is_refused_at_its_first_bytes)
{
    LiveRelay live;
    const std::string request = "GET / HTTP/1.0\r\n\r\n";
    refused_after_greeting(live, relay::Bytes(request.begin(), request.end()),
                           {"refused a connection from 127.0.0.1:",
                            "it is not a Meridian relay frame (it begins 0x20544547)"});
    ck_assert_uint_eq(live.count(), 0);
}
END_TEST

START_TEST(a_header_asking_too_much_is_refused_before_its_payload)
{
    LiveRelay live;
    refused_after_greeting(live, header(relay::magic, relay::protocol_version, 0, 0xffffffffU),
                           {"it announces 4294967295 bytes, more than the"});
    // A rank outside the job, likewise.
    refused_after_greeting(live, header(relay::magic, relay::protocol_version, 4, 10),
                           {"it claims rank 4, the job has ranks 0-3"});
    ck_assert_uint_eq(live.count(), 0);
}
END_TEST

START_TEST(a_stalling_sender_and_a_crowd_do_not_keep_the_job_out)
{
    LiveRelay live(300ms);
    Raw stalling(live.address);
    stalling.write(relay::Bytes{0x4d, 0x43, 0x52, 0x4c, 1});
    std::vector<std::unique_ptr<Raw>> crowd;
    for (int i = 0; i < 70; ++i) {
        crowd.push_back(std::make_unique<Raw>(live.address));
    }
    const std::string found = wait_for_warning({"no whole frame within 300 ms (5 bytes came)"});
    ck_assert_msg(found.empty(), "%s", found.c_str());
    // Once the crowd has timed out, a sender of the job gets through.
    auto sent = relay::send(live.address, live.job, sample_event(), 5000ms);
    ck_assert_msg(sent.ok(), "%s", error_of(sent).c_str());
    ck_assert_uint_eq(live.count(), 1);
    // Three refusals told, the rest counted in one line when the relay stops.
    ck_assert_uint_eq(warning_count(), 3);
    live.relay.reset();
    const std::string counted = wait_for_warning(
        {"more connections refused and not told (the last: refused a connection from 127.0.0.1:",
         "no whole frame within 300 ms (0 bytes came))"});
    ck_assert_msg(counted.empty(), "%s", counted.c_str());
    ck_assert_uint_eq(warning_count(), 4);
}
END_TEST

START_TEST(a_sender_told_where_nobody_listens_says_so)
{
    relay::Address nowhere;
    nowhere.hosts = {"127.0.0.1", "not-an-address"};
    nowhere.key = key_of(0x11);
    {
        LiveRelay live;
        nowhere.port = live.address.port; // free again once it stops
    }
    auto sent = relay::send(nowhere, 1, sample_event(), 1000ms);
    ck_assert_text_eq(error_of(sent), "127.0.0.1:" + std::to_string(nowhere.port) +
                                          ": connect: Connection refused; not-an-address:" +
                                          std::to_string(nowhere.port) + ": not an IPv4 address");
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("coord_relay");
    TCase *wire = tcase_create("wire");
    tcase_add_test(wire, address_round_trip_and_refusals);
    tcase_add_test(wire, event_round_trip_and_malformed_payloads);
    tcase_add_test(wire, frames_prove_key_job_and_nonce);
    tcase_add_test(wire, headers_refused_before_any_payload);
    suite_add_tcase(suite, wire);
    TCase *live = tcase_create("live");
    tcase_set_timeout(live, 60);
    tcase_add_test(live, a_sender_with_the_key_delivers);
    tcase_add_test(live, a_sender_without_the_key_is_refused);
    tcase_add_test(live, a_recorded_frame_is_refused_at_another_connection);
    tcase_add_test(live, another_protocol_is_refused_at_its_first_bytes);
    tcase_add_test(live, a_header_asking_too_much_is_refused_before_its_payload);
    tcase_add_test(live, a_stalling_sender_and_a_crowd_do_not_keep_the_job_out);
    tcase_add_test(live, a_sender_told_where_nobody_listens_says_so);
    suite_add_tcase(suite, live);
    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// The tcp transport (components/msg_tcp, compiled in) against a stub base
// (msg_stub_base.hpp), its ranks in one process over loopback: messages
// arrive whole, in order and with their tags, both ways at once; a peer
// that published no address is refused with why; finalize delivers what
// was sent before it returns; a message past the early-message limit waits
// in its connection until its receive starts.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "components/msg_tcp/msg_tcp_transport.hpp"
#include "mca/msg/base/msg_util.hpp"
#include "test/msg/msg_stub_base.hpp"
#include "test/msg/msg_stub_checks.hpp"
#include "test/support/meridian_test.hpp"

namespace tcp = meridian::msg_tcp;
namespace stub = msg_stub;

using namespace std::chrono_literals;
using msg_stub::arrived;
using msg_stub::check_delivered;
using msg_stub::completed;
using msg_stub::progress_of;
using msg_stub::Send;

namespace
{

using Transports = std::vector<std::unique_ptr<tcp::Transport>>;

void setup()
{
    meridian_test::isolate_mca_environment();
    meridian_test::capture_messages();
}

// Rank r's transport, hooked into the stub as the base would call it.
std::unique_ptr<tcp::Transport> make_transport(int r, const tcp::Params &params)
{
    auto transport = std::make_unique<tcp::Transport>(params);
    tcp::Transport *t = transport.get();
    stub::Hooks &hooks = stub::rank(r).hooks;
    hooks.progress = [t] { return t->progress(); };
    hooks.cancel = [t](mca_msg_channel_t &channel, bool) { t->cancel(channel); };
    hooks.path_name = [](int) { return std::string("tcp"); };
    return transport;
}

// Each rank's init, then each rank's connect (the exchange in between is
// the stub's shared modex).
Transports bring_up(int size, const tcp::Params &params = {})
{
    stub::make_world(size);
    Transports transports;
    for (int r = 0; r < size; ++r) {
        transports.push_back(make_transport(r, params));
        stub::set_current(r);
        const auto peers = stub::peers_of(r);
        ck_assert_int_eq(transports.back()->init(stub::job(r), peers.data()), MERIDIAN_SUCCESS);
    }
    for (int r = 0; r < size; ++r) {
        stub::set_current(r);
        ck_assert_int_eq(transports[static_cast<std::size_t>(r)]->connect(), MERIDIAN_SUCCESS);
    }
    return transports;
}

void start_send(int r, tcp::Transport &transport, Send &send)
{
    stub::set_current(r);
    stub::started(*send.channel);
    transport.send(*send.channel);
}

// Each rank's finalize in turn, the others progressing meanwhile; each
// must return well before its linger (the peers' ends closed).
void finalize_all(Transports &transports, std::chrono::milliseconds bound)
{
    for (std::size_t r = 0; r < transports.size(); ++r) {
        tcp::Transport &t = *transports[r];
        const auto took = stub::finalize_alongside(static_cast<int>(r), [&t] { t.finalize(); });
        ck_assert_msg(took < bound, "rank %zu's finalize took %lld ms", r,
                      static_cast<long long>(took.count()));
    }
}

// Rank 0's messages to rank 1: empty, short, 1 MiB, a tag with every high
// bit, 72-byte blocks (gathered before they go) and 8 KiB blocks (sent
// straight from them); rank 1's receive blocks as the loop says (whole,
// coarse: read straight into them; fine: through the read buffer).
const std::size_t piece_blocks[] = {0, 4096, 512};

START_TEST(messages_arrive_whole_in_order_with_their_tags)
{
    auto transports = bring_up(2);
    stub::rank(1).piece_block = piece_blocks[_i];
    std::vector<Send> sends;
    sends.reserve(6);
    sends.emplace_back(1, 0x10, 1, 1, 0, 0);
    sends.emplace_back(1, 0x11, 2, 1, 100, 100);
    sends.emplace_back(1, 0x12, 3, 1, 1 << 20, 1 << 20);
    sends.emplace_back(1, 0xfedcba9876543210ULL, 4, 1, 8, 8);
    sends.emplace_back(1, 0x13, 5, 3000, 72, 96);
    sends.emplace_back(1, 0x14, 6, 40, 8192, 12288);
    std::vector<Send *> all;
    for (Send &send : sends) {
        all.push_back(&send);
        start_send(0, *transports[0], send);
    }
    ck_assert_msg(stub::drive([&] { return arrived(1, 0, all) && completed(0, all); }),
                  "after 20 s: %s", progress_of(0, 1, all).c_str());
    check_delivered(0, 1, all);
    // The rest of the 1 MiB message went straight into coarse blocks.
    const stub::Arrival &large = *stub::arrivals_from(1, 0)[2];
    if (piece_blocks[_i] == 0 || piece_blocks[_i] >= 1024) {
        ck_assert_msg(large.placed > large.total / 2, "%zu of the 1 MiB were read into place",
                      large.placed);
    } else {
        ck_assert_uint_eq(large.placed, 0);
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 5s);
    ck_assert_uint_eq(stub::rank(1).deaths.size(), 0);
    ck_assert_no_messages();
}
END_TEST

// Three ranks that each send to both others before any connection is
// there: each pair's two opens cross (the lower rank's stays) and nothing
// is lost or reordered either way.
START_TEST(every_pair_both_ways_at_once)
{
    auto transports = bring_up(3);
    std::vector<std::unique_ptr<Send>> sends;
    std::vector<std::vector<Send *>> between(9); // [from * 3 + to]
    unsigned seed = 1;
    for (int from = 0; from < 3; ++from) {
        for (int to = 0; to < 3; ++to) {
            if (from == to) {
                continue;
            }
            for (const std::size_t size : {std::size_t{100}, std::size_t{256} << 10}) {
                sends.push_back(std::make_unique<Send>(to, 0x20 + static_cast<std::uint64_t>(from),
                                                       seed++, 1, size, size));
                between[static_cast<std::size_t>(from * 3 + to)].push_back(sends.back().get());
            }
            sends.push_back(std::make_unique<Send>(to, 0x30, seed++, 500, 72, 80));
            between[static_cast<std::size_t>(from * 3 + to)].push_back(sends.back().get());
        }
    }
    for (int from = 0; from < 3; ++from) {
        for (int to = 0; to < 3; ++to) {
            for (Send *send : between[static_cast<std::size_t>(from * 3 + to)]) {
                start_send(from, *transports[static_cast<std::size_t>(from)], *send);
            }
        }
    }
    const auto everything = [&] {
        for (int from = 0; from < 3; ++from) {
            for (int to = 0; to < 3; ++to) {
                const auto &list = between[static_cast<std::size_t>(from * 3 + to)];
                if (!list.empty() && (!arrived(to, from, list) || !completed(from, list))) {
                    return false;
                }
            }
        }
        return true;
    };
    if (!stub::drive(everything)) {
        std::string report;
        for (int from = 0; from < 3; ++from) {
            for (int to = 0; to < 3; ++to) {
                if (from != to) {
                    report +=
                        progress_of(from, to, between[static_cast<std::size_t>(from * 3 + to)]) +
                        "\n";
                }
            }
        }
        ck_abort_msg("after 20 s:\n%s", report.c_str());
    }
    for (int from = 0; from < 3; ++from) {
        for (int to = 0; to < 3; ++to) {
            if (from != to) {
                check_delivered(from, to, between[static_cast<std::size_t>(from * 3 + to)]);
            }
        }
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 5s);
    ck_assert_no_messages();
}
END_TEST

// What rank 1 published is taken away or spoiled before rank 0 connects:
// connect fails with why, and finalize after the failed bring-up returns.
struct Spoiled {
    const char *key;
    std::vector<std::uint8_t> value; // empty: removed
    const char *error;
};
const Spoiled spoiled[] = {
    {"tcp.addr", {}, "msg tcp: rank 1 (node stub-node, path tcp) published no tcp address"},
    {"tcp.addr", {1, 2, 3}, "msg tcp: rank 1 (node stub-node, path tcp) published no tcp address"},
    {"tcp.key",
     {},
     "msg tcp: rank 1 (node stub-node, path tcp) published no key for the tcp "
     "transport"},
    {"tcp.key",
     {1, 2, 3},
     "msg tcp: rank 1 (node stub-node, path tcp) published no key for the "
     "tcp transport"},
};

START_TEST(a_peer_without_an_address_fails_connect_with_why)
{
    const Spoiled &s = spoiled[_i];
    stub::make_world(2);
    Transports transports;
    for (int r = 0; r < 2; ++r) {
        transports.push_back(make_transport(r, tcp::Params{}));
        stub::set_current(r);
        const auto peers = stub::peers_of(r);
        ck_assert_int_eq(transports.back()->init(stub::job(r), peers.data()), MERIDIAN_SUCCESS);
    }
    ck_assert_no_messages();
    auto &modex = stub::rank(1).modex;
    ck_assert_uint_eq(modex.count(s.key), 1);
    if (s.value.empty()) {
        modex.erase(s.key);
    } else {
        modex[s.key] = s.value;
    }
    stub::set_current(0);
    ck_assert_int_eq(transports[0]->connect(), MERIDIAN_ERR_UNREACH);
    ck_assert_messages(ERROR_MSG(s.error));
    for (int r = 0; r < 2; ++r) {
        stub::set_current(r);
        const auto begin = std::chrono::steady_clock::now();
        transports[static_cast<std::size_t>(r)]->finalize();
        ck_assert(std::chrono::steady_clock::now() - begin < 1s);
    }
    ck_assert_text_eq(stub::breaches(), "");
}
END_TEST

// Rank 0's sends complete while rank 1 is busy elsewhere (the kernel holds
// them: 100 KiB in all, well inside loopback's default buffers), then rank 0 finalizes at once
// while rank 1 goes on as a process of its own would: finalize returns once rank 1 has read
// everything and closed its end, far inside its linger, and rank 1 has every message whole.  A
// receive rank 1 starts afterwards fails at once: rank 0 closed its connection.
START_TEST(finalize_delivers_what_was_sent)
{
    tcp::Params params;
    params.linger_ms = 20000;
    auto transports = bring_up(2, params);
    std::vector<Send> sends;
    sends.reserve(5);
    sends.emplace_back(1, 0x40, 11, 1, 100, 100);
    sends.emplace_back(1, 0x41, 12, 1, 64 << 10, 64 << 10);
    sends.emplace_back(1, 0x42, 13, 1, 0, 0);
    sends.emplace_back(1, 0x43, 14, 500, 72, 128);
    sends.emplace_back(1, 0x44, 15, 1, 100, 100);
    std::vector<Send *> all;
    for (Send &send : sends) {
        all.push_back(&send);
    }
    // The first opens the connection (rank 1 answers the hello).
    start_send(0, *transports[0], sends[0]);
    ck_assert_msg(stub::drive([&] { return arrived(1, 0, {all[0]}) && completed(0, {all[0]}); }),
                  "after 20 s: %s", progress_of(0, 1, {all[0]}).c_str());
    for (std::size_t i = 1; i < sends.size(); ++i) {
        start_send(0, *transports[0], sends[i]);
    }
    ck_assert_msg(stub::drive_alone(0, [&] { return completed(0, all); }),
                  "rank 0's sends did not complete in the kernel's buffers: %s",
                  progress_of(0, 1, all).c_str());
    ck_assert_uint_eq(stub::arrivals_from(1, 0).size(), 1);
    tcp::Transport &sender = *transports[0];
    const auto took = stub::finalize_alongside(0, [&sender] { sender.finalize(); });
    ck_assert_msg(took < 5s, "rank 0's finalize took %lld ms (its linger: 20000)",
                  static_cast<long long>(took.count()));
    ck_assert_msg(arrived(1, 0, all), "rank 0's finalize returned when %s",
                  progress_of(0, 1, all).c_str());
    check_delivered(0, 1, all);
    ck_assert_uint_eq(stub::rank(1).deaths.size(), 0); // it ended idle: no error

    auto recv = stub::make_channel(MCA_MSG_RECV, 0, 0x45, {});
    stub::set_current(1);
    stub::started(*recv);
    transports[1]->posted(*recv);
    const stub::Completion *failed = stub::completion_of(1, recv.get());
    ck_assert_msg(failed != nullptr, "a receive from rank 0 after its end did not fail");
    ck_assert_int_eq(failed->status, MERIDIAN_ERR_UNREACH);
    ck_assert_uint_eq(stub::rank(1).deaths.size(), 1);
    ck_assert_text_eq(stub::rank(1).deaths[0].why,
                      "closed its connection before sending the message");

    tcp::Transport &receiver = *transports[1];
    const auto took_1 = stub::finalize_alongside(1, [&receiver] { receiver.finalize(); });
    ck_assert_msg(took_1 < 1s, "rank 1's finalize took %lld ms",
                  static_cast<long long>(took_1.count()));
    ck_assert_text_eq(stub::breaches(), "");
    ck_assert_no_messages();
}
END_TEST

// Past the base's early-message limit a message stays in its connection,
// and what follows it too, until its receive starts (posted); then all of
// them arrive, in order.
START_TEST(a_message_past_the_early_limit_waits_for_its_receive)
{
    auto transports = bring_up(2);
    stub::rank(1).early_limit = 4096;
    std::vector<Send> sends;
    sends.reserve(3);
    sends.emplace_back(1, 0x50, 21, 1, 100, 100);
    sends.emplace_back(1, 0x51, 22, 1, 16 << 20, 16 << 20);
    sends.emplace_back(1, 0x52, 23, 1, 100, 100);
    std::vector<Send *> all;
    for (Send &send : sends) {
        all.push_back(&send);
        start_send(0, *transports[0], send);
    }
    // The first arrives; the second waits in the connection (its 16 MiB
    // are more than the sockets hold, so its send cannot complete).
    ck_assert_msg(stub::drive([&] { return arrived(1, 0, {all[0]}); }), "after 20 s: %s",
                  progress_of(0, 1, all).c_str());
    ck_assert(!stub::drive([&] { return stub::arrivals_from(1, 0).size() > 1; }, 300ms));
    ck_assert_uint_eq(stub::arrivals_from(1, 0).size(), 1);
    ck_assert_ptr_null(stub::completion_of(0, all[1]->channel.get()));
    // A receive for another tag changes nothing; its own lets it in.
    auto other = stub::make_channel(MCA_MSG_RECV, 0, 0x52, {});
    stub::set_current(1);
    transports[1]->posted(*other);
    ck_assert(!stub::drive([&] { return stub::arrivals_from(1, 0).size() > 1; }, 100ms));
    stub::rank(1).early_limit = UINT64_MAX;
    auto recv = stub::make_channel(MCA_MSG_RECV, 0, 0x51, {});
    stub::set_current(1);
    transports[1]->posted(*recv);
    ck_assert_msg(stub::drive([&] { return arrived(1, 0, all) && completed(0, all); }),
                  "after 20 s: %s", progress_of(0, 1, all).c_str());
    check_delivered(0, 1, all);
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 5s);
    ck_assert_no_messages();
}
END_TEST

// pnet lists a process's endpoints of every request; tcp and ofi listen on
// the first that is an IP address and a port, not on a UCX request's device
// port that may come before it.
START_TEST(the_pnet_endpoint_is_the_first_ip_one)
{
    using meridian::msg::first_ip_endpoint;
    ck_assert_text_eq(first_ip_endpoint({"mlx5_0:1", "10.1.2.3:32000", "10.1.2.4:32001"}),
                      "10.1.2.3:32000");
    ck_assert_text_eq(first_ip_endpoint({"mlx5_0:1", "[fe80::1]:32000"}), "[fe80::1]:32000");
    ck_assert_text_eq(first_ip_endpoint({"192.0.2.7:40000"}), "192.0.2.7:40000");
    // Device ports, host names, bare addresses and empty ports are no
    // listening endpoint.
    ck_assert_text_eq(first_ip_endpoint({"mlx5_0:1", "ib0:2", "h1:32000", "10.1.2.3",
                                         "10.1.2.3:", ":32000", "fe80::1:32000", ""}),
                      "");
    ck_assert_text_eq(first_ip_endpoint({"10.1.2.3:port", "10.1.2.3:65536", "10.1.2.3:99"}),
                      "10.1.2.3:99");
    ck_assert_text_eq(first_ip_endpoint({}), "");
    // The parts the transports listen on.
    const auto v6 = meridian::msg::parse_ip_endpoint("[fe80::1]:32000");
    ck_assert(v6.has_value());
    ck_assert_text_eq(v6->host, "fe80::1");
    ck_assert_text_eq(v6->port, "32000");
    ck_assert_int_eq(v6->storage.ss_family, AF_INET6);
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("msg_tcp_transport");
    TCase *tcase = tcase_create("tcp");
    tcase_add_checked_fixture(tcase, setup, nullptr);
    tcase_set_timeout(tcase, 60);
    tcase_add_loop_test(tcase, messages_arrive_whole_in_order_with_their_tags, 0,
                        static_cast<int>(std::size(piece_blocks)));
    tcase_add_test(tcase, every_pair_both_ways_at_once);
    tcase_add_loop_test(tcase, a_peer_without_an_address_fails_connect_with_why, 0,
                        static_cast<int>(std::size(spoiled)));
    tcase_add_test(tcase, finalize_delivers_what_was_sent);
    tcase_add_test(tcase, a_message_past_the_early_limit_waits_for_its_receive);
    tcase_add_test(tcase, the_pnet_endpoint_is_the_first_ip_one);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

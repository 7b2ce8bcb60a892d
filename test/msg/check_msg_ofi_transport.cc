// SPDX-License-Identifier: BSD-3-Clause
// The ofi transport (components/msg_ofi, compiled in; libfabric opened at
// run time as the component does) against a stub base (msg_stub_base.hpp),
// its ranks in one process over libfabric's tcp (tcp;ofi_rxm on loopback).
// The transport matches itself (MCA_MSG_TRANSPORT_MATCHES), so receives go
// through start too: each is matched with its message whether posted
// before or after the send, every byte in place and nothing written
// between the blocks or past the message, with blocks straight from the
// channel or through the staging buffer (more blocks than the provider
// takes); a longer message fails its receive through the base's fits; a
// cancelled receive is never completed; after a peer's end, a receive for a
// message it never sent fails at once while those it sent before its end
// still arrive, and a send to it fails; a peer that published another
// provider or no address is refused at connect with why.  Tags of 64 bits
// go as given; the one kept for a process's end is refused.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "components/msg_ofi/msg_ofi_transport.hpp"
#include "test/msg/msg_stub_base.hpp"
#include "test/support/meridian_test.hpp"

namespace ofi = meridian::msg_ofi;
namespace stub = msg_stub;

using namespace std::chrono_literals;

namespace
{

using Transports = std::vector<std::unique_ptr<ofi::Transport>>;

// Every "{provider}" in `text` as `provider`.
std::string with_provider(std::string text, const std::string &provider)
{
    constexpr std::string_view mark = "{provider}";
    for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark, at)) {
        text.replace(at, mark.size(), provider);
        at += provider.size();
    }
    return text;
}

// libfabric's tcp, which 1.x offers as tcp;ofi_rxm (rxm over tcp's message
// endpoints) and 2.x (Debian 13) as tcp (its own reliable endpoints); a
// finalize that waits for a peer that stopped progressing gives up after 5 s.
ofi::Params test_params()
{
    ofi::Params params;
    params.provider = "tcp";
    params.rxm_eager_limit = 128 << 10; // the component's default
    params.linger_ms = 5000;
    return params;
}

// ofi_rxm takes this many blocks in one operation (its iov_limit); a
// channel with more goes through the staging buffer.
constexpr std::size_t rxm_iov_limit = 4;

} // namespace

// The component's parameters (msg_ofi_component.cc is not compiled in):
// the fabric sets libfabric's environment from them before its first use.
namespace meridian::msg_ofi
{
Params current_params()
{
    return test_params();
}
} // namespace meridian::msg_ofi

namespace
{

// A channel of one rank and its memory.
struct Message {
    unsigned seed;
    stub::Blocks blocks;
    std::unique_ptr<stub::Channel> channel;

    Message(mca_msg_direction_t direction, int peer, std::uint64_t tag, unsigned seed_,
            std::size_t count, std::size_t block, std::size_t stride)
        : seed(seed_), blocks(count, block, stride)
    {
        if (direction == MCA_MSG_SEND) {
            blocks.fill(seed);
        }
        channel = stub::make_channel(direction, peer, tag, blocks.iov);
    }
};

void setup()
{
    meridian_test::isolate_mca_environment();
    meridian_test::capture_messages();
    // libfabric's tcp on loopback only, whatever else the machine has.
    ::setenv("FI_TCP_IFACE", "lo", 1);
}

std::unique_ptr<ofi::Transport> make_transport(int r, const ofi::Params &params)
{
    auto transport = std::make_unique<ofi::Transport>(params);
    ofi::Transport *t = transport.get();
    stub::Hooks &hooks = stub::rank(r).hooks;
    hooks.progress = [t] { return t->progress(); };
    hooks.cancel = [t](mca_msg_channel_t &channel, bool) { t->cancel(channel); };
    hooks.path_name = [t](int) { return std::string(t->path_name()); };
    return transport;
}

// Each rank's init, then each rank's connect (the vtable's ready does
// nothing for ofi); the stub's modex is the exchange in between.
Transports bring_up(int size, const ofi::Params &params = test_params())
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
    const std::string path = transports[0]->path_name();
    ck_assert_msg(path == "ofi:tcp;ofi_rxm" || path == "ofi:tcp",
                  "the path is %s, expected ofi:tcp;ofi_rxm or ofi:tcp", path.c_str());
    return transports;
}

void prepare(int r, ofi::Transport &t, Message &m)
{
    stub::set_current(r);
    ck_assert_int_eq(t.prepare(*m.channel), MERIDIAN_SUCCESS);
}

void start(int r, ofi::Transport &t, Message &m)
{
    stub::set_current(r);
    stub::started(*m.channel);
    t.start(*m.channel);
}

void cleanup(int r, ofi::Transport &t, Message &m)
{
    stub::set_current(r);
    t.cleanup(*m.channel);
}

// Whether the prepared channel moves its bytes through the staging buffer.
bool staged(const Message &m)
{
    const auto *state = static_cast<const ofi::ChannelState *>(m.channel->transport_data);
    return state != nullptr && state->op && state->op->staging != nullptr;
}

// Progress every rank for a while, for what needs no receive (eager
// messages reach the receiver unexpected).
void settle(std::chrono::milliseconds time)
{
    stub::drive([] { return false; }, time);
}

bool done(int r, const Message &m)
{
    return stub::completion_of(r, m.channel.get()) != nullptr;
}

// The status the channel completed with (1: not completed).
int status_of(int r, const Message &m)
{
    const stub::Completion *c = stub::completion_of(r, m.channel.get());
    return c != nullptr ? c->status : 1;
}

// The fits questions about a receive.
std::vector<stub::FitsCall> fits_of(int r, const Message &recv)
{
    std::vector<stub::FitsCall> calls;
    for (const stub::FitsCall &call : stub::rank(r).fits) {
        if (call.recv == recv.channel.get()) {
            calls.push_back(call);
        }
    }
    return calls;
}

// The receive's first bytes are exactly the send's, the rest of its blocks
// and the memory between them untouched, and the base was asked once
// whether the message fits, with its size.
void check_received(const Message &send, const Message &recv, const char *what)
{
    ck_assert_msg(status_of(1, recv) == MERIDIAN_SUCCESS, "%s: the receive completed with %d", what,
                  status_of(1, recv));
    ck_assert_msg(status_of(0, send) == MERIDIAN_SUCCESS, "%s: the send completed with %d", what,
                  status_of(0, send));
    const std::size_t sent = send.blocks.nbytes;
    ck_assert_msg(recv.blocks.nbytes >= sent, "%s: a receive of %zu bytes for %zu", what,
                  recv.blocks.nbytes, sent);
    std::vector<std::byte> stream = recv.blocks.stream();
    for (std::size_t i = sent; i < stream.size(); ++i) {
        ck_assert_msg(stream[i] == stub::Blocks::gap,
                      "%s: byte %zu of the receive's %zu, past the message's %zu, was written",
                      what, i, stream.size(), sent);
    }
    stream.resize(sent);
    const std::string wrong = stub::differs(stream, send.seed);
    ck_assert_msg(wrong.empty(), "%s: %s", what, wrong.c_str());
    const std::string gaps = recv.blocks.gaps_intact();
    ck_assert_msg(gaps.empty(), "%s: %s", what, gaps.c_str());
    const auto calls = fits_of(1, recv);
    ck_assert_msg(calls.size() == 1 && calls[0].total == sent && calls[0].got.empty(),
                  "%s: fits was asked %zu times (the first with %llu bytes, \"%s\"), the message "
                  "has %zu",
                  what, calls.size(),
                  static_cast<unsigned long long>(calls.empty() ? 0 : calls[0].total),
                  calls.empty() ? "" : calls[0].got.c_str(), sent);
}

// Rank r's finalize, then its transport goes (as the component's finalize
// does), on a thread of its own while the other ranks progress; how long
// it took.
std::chrono::milliseconds finalize(int r, Transports &transports)
{
    std::unique_ptr<ofi::Transport> &t = transports[static_cast<std::size_t>(r)];
    const auto took = stub::finalize_alongside(r, [&t] {
        t->finalize();
        t.reset();
    });
    stub::rank(r).hooks = {};
    return took;
}

void finalize_all(Transports &transports, std::chrono::milliseconds bound)
{
    for (std::size_t r = 0; r < transports.size(); ++r) {
        const auto took = finalize(static_cast<int>(r), transports);
        ck_assert_msg(took < bound, "rank %zu's finalize took %lld ms (its linger: %d)", r,
                      static_cast<long long>(took.count()), test_params().linger_ms);
    }
}

// A message's shape: blocks on the sending and on the receiving side (a
// side with more than ofi_rxm takes goes through its staging buffer).
struct Shape {
    const char *name;
    std::size_t send_count, send_block, send_stride;
    std::size_t recv_count, recv_block, recv_stride;
};
const Shape shapes[] = {
    {"0 B", 1, 0, 0, 1, 0, 0},
    {"0 B, no blocks", 0, 0, 0, 0, 0, 0},
    {"0 B in 8 empty blocks into none", 8, 0, 16, 0, 0, 0},
    {"8 B", 1, 8, 8, 1, 8, 8},
    {"64 KiB", 1, 64 << 10, 64 << 10, 1, 64 << 10, 64 << 10},
    {"4 MiB", 1, 4 << 20, 4 << 20, 1, 4 << 20, 4 << 20},
    {"3 blocks of 1000 into 2 of 1500", 3, 1000, 1100, 2, 1500, 1600},
    {"4 blocks of 64 KiB into one", 4, 64 << 10, 65 << 10, 1, 256 << 10, 256 << 10},
    {"72-byte blocks into 8000-byte blocks", 1000, 72, 100, 9, 8000, 8100},
    {"16 KiB blocks into one", 64, 16 << 10, 20 << 10, 1, 1 << 20, 1 << 20},
    {"one block into 4 KiB blocks", 1, 256 << 10, 256 << 10, 64, 4 << 10, 5 << 10},
    {"1000 bytes into 1500", 1, 1000, 1000, 1, 1500, 1500},
    {"10 blocks of 100 into 8 of 200", 10, 100, 128, 8, 200, 256},
};

// Every shape twice from rank 0 to rank 1: its receive started before its
// send, and after it (the message unexpected at rank 1, or a rendezvous
// waiting at rank 0).  Channels of more blocks than ofi_rxm takes go
// through their staging buffers, the others straight from their blocks.
START_TEST(receives_before_and_after_their_sends)
{
    auto transports = bring_up(2);
    ofi::Transport &t0 = *transports[0];
    ofi::Transport &t1 = *transports[1];
    std::vector<std::unique_ptr<Message>> sends;
    std::vector<std::unique_ptr<Message>> recvs;
    unsigned seed = 1;
    for (const bool receive_first : {true, false}) {
        std::vector<std::size_t> batch;
        for (const Shape &shape : shapes) {
            const std::uint64_t tag = 0x100 + seed;
            sends.push_back(std::make_unique<Message>(MCA_MSG_SEND, 1, tag, seed, shape.send_count,
                                                      shape.send_block, shape.send_stride));
            recvs.push_back(std::make_unique<Message>(MCA_MSG_RECV, 0, tag, seed, shape.recv_count,
                                                      shape.recv_block, shape.recv_stride));
            ++seed;
            prepare(0, t0, *sends.back());
            prepare(1, t1, *recvs.back());
            ck_assert_msg(staged(*sends.back()) == (shape.send_count > rxm_iov_limit),
                          "%s: the send of %zu blocks %s staged", shape.name, shape.send_count,
                          staged(*sends.back()) ? "is" : "is not");
            ck_assert_msg(staged(*recvs.back()) == (shape.recv_count > rxm_iov_limit),
                          "%s: the receive of %zu blocks %s staged", shape.name, shape.recv_count,
                          staged(*recvs.back()) ? "is" : "is not");
            batch.push_back(sends.size() - 1);
        }
        for (const std::size_t i : batch) {
            if (receive_first) {
                start(1, t1, *recvs[i]);
            }
            start(0, t0, *sends[i]);
        }
        if (!receive_first) {
            settle(100ms);
            for (const std::size_t i : batch) {
                ck_assert_msg(!done(1, *recvs[i]), "a receive completed before it started");
                start(1, t1, *recvs[i]);
            }
        }
        const auto all_done = [&] {
            for (const std::size_t i : batch) {
                if (!done(0, *sends[i]) || !done(1, *recvs[i])) {
                    return false;
                }
            }
            return true;
        };
        if (!stub::drive(all_done)) {
            std::string missing;
            for (const std::size_t i : batch) {
                if (!done(0, *sends[i]) || !done(1, *recvs[i])) {
                    missing += std::string("\n  ") + shapes[i % std::size(shapes)].name +
                               (done(0, *sends[i]) ? "" : ": the send") +
                               (done(1, *recvs[i]) ? "" : ": the receive");
                }
            }
            ck_abort_msg("receives %s their sends: after 20 s, not complete:%s",
                         receive_first ? "before" : "after", missing.c_str());
        }
        for (const std::size_t i : batch) {
            const std::string what = std::string(shapes[i % std::size(shapes)].name) +
                                     ", receive " + (receive_first ? "first" : "last");
            check_received(*sends[i], *recvs[i], what.c_str());
        }
    }
    for (std::size_t i = 0; i < sends.size(); ++i) {
        cleanup(0, t0, *sends[i]);
        cleanup(1, t1, *recvs[i]);
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 2s);
    ck_assert_uint_eq(stub::rank(1).deaths.size(), 0);
    ck_assert_no_messages();
}
END_TEST

// A message longer than its receive completes the receive with
// MERIDIAN_ERR_BAD_PARAM through fits, asked with one byte more than the
// receive and why (libfabric's FI_ETRUNC gives no size every provider
// counts alike); nothing between its blocks is written.  The send
// completes (it did its part).  Short (eager) and long (rendezvous), into
// blocks and into the staging buffer, the receive before and after the
// send.
START_TEST(a_longer_message_fails_its_receive_through_fits)
{
    auto transports = bring_up(2);
    ofi::Transport &t0 = *transports[0];
    ofi::Transport &t1 = *transports[1];
    struct Case {
        std::size_t sent, room_blocks, room_block;
        bool receive_first;
    };
    const Case cases[] = {{1000, 1, 600, true},          {1000, 1, 600, false},
                          {1 << 20, 1, 512 << 10, true}, {1 << 20, 1, 512 << 10, false},
                          {1000, 8, 75, true},           {1000, 8, 75, false},
                          {1 << 20, 16, 32 << 10, true}, {1 << 20, 16, 32 << 10, false}};
    unsigned seed = 1;
    std::vector<std::unique_ptr<Message>> messages;
    for (const Case &c : cases) {
        const std::uint64_t tag = 0x200 + seed;
        const std::size_t room = c.room_blocks * c.room_block;
        auto send = std::make_unique<Message>(MCA_MSG_SEND, 1, tag, seed, 1, c.sent, c.sent);
        auto recv = std::make_unique<Message>(MCA_MSG_RECV, 0, tag, seed, c.room_blocks,
                                              c.room_block, c.room_block + 16);
        ++seed;
        prepare(0, t0, *send);
        prepare(1, t1, *recv);
        ck_assert_int_eq(staged(*recv), c.room_blocks > rxm_iov_limit);
        if (c.receive_first) {
            start(1, t1, *recv);
            start(0, t0, *send);
        } else {
            start(0, t0, *send);
            settle(100ms);
            start(1, t1, *recv);
        }
        ck_assert_msg(stub::drive([&] { return done(0, *send) && done(1, *recv); }),
                      "%zu bytes into %zu blocks of %zu, the receive %s: after 20 s the send %s, "
                      "the receive %s",
                      c.sent, c.room_blocks, c.room_block, c.receive_first ? "first" : "last",
                      done(0, *send) ? "completed" : "did not complete",
                      done(1, *recv) ? "completed" : "did not complete");
        ck_assert_int_eq(status_of(1, *recv), MERIDIAN_ERR_BAD_PARAM);
        ck_assert_int_eq(status_of(0, *send), MERIDIAN_SUCCESS);
        const auto calls = fits_of(1, *recv);
        ck_assert_uint_eq(calls.size(), 1);
        ck_assert_uint_eq(calls[0].total, room + 1);
        ck_assert_text_eq(calls[0].got, "libfabric reported a truncation");
        ck_assert_text_eq(recv->blocks.gaps_intact(), "");
        messages.push_back(std::move(send));
        messages.push_back(std::move(recv));
    }
    for (std::size_t i = 0; i < messages.size(); i += 2) {
        cleanup(0, t0, *messages[i]);
        cleanup(1, t1, *messages[i + 1]);
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 2s);
    ck_assert_no_messages();
}
END_TEST

// A receive abandoned while libfabric holds it (channel_free) is never
// completed and its memory never written, though its message comes
// afterwards; the channel started again takes that message.  Into its
// blocks and into its staging buffer.
const std::size_t cancelled_blocks[] = {4, 16};

START_TEST(a_cancelled_receive_is_never_completed)
{
    auto transports = bring_up(2);
    ofi::Transport &t0 = *transports[0];
    ofi::Transport &t1 = *transports[1];
    const std::size_t count = cancelled_blocks[_i];
    Message recv(MCA_MSG_RECV, 0, 0x300, 1, count, 1024 / count, 1024 / count + 44);
    Message send(MCA_MSG_SEND, 1, 0x300, 1, 1, 1024, 1024);
    prepare(1, t1, recv);
    prepare(0, t0, send);
    ck_assert_int_eq(staged(recv), count > rxm_iov_limit);
    start(1, t1, recv);
    settle(20ms);
    stub::set_current(1);
    stub::abandoned(*recv.channel);
    t1.cancel(*recv.channel);
    start(0, t0, send);
    ck_assert_msg(stub::drive([&] { return done(0, send); }), "the send did not complete");
    settle(200ms);
    ck_assert_msg(!done(1, recv), "the cancelled receive completed with %d", status_of(1, recv));
    const auto memory = recv.blocks.stream();
    for (std::size_t i = 0; i < memory.size(); ++i) {
        ck_assert_msg(memory[i] == stub::Blocks::gap,
                      "byte %zu of the cancelled receive was written", i);
    }
    ck_assert_text_eq(stub::breaches(), "");
    start(1, t1, recv);
    ck_assert_msg(stub::drive([&] { return done(1, recv); }),
                  "the receive started again did not complete");
    check_received(send, recv, "the receive started again");
    cleanup(0, t0, send);
    cleanup(1, t1, recv);
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 2s);
    ck_assert_no_messages();
}
END_TEST

// Rank 0 sends three messages before their receives start (8 bytes; 4000
// in four blocks, straight from them; 4096 in 64 blocks, through the
// staging buffer), their sends complete, then it ends its session: its
// finalize returns once rank 1, progressing meanwhile, has its end.  At
// rank 1 all still arrive, and a receive for a fourth, which rank 0 never
// sent, fails at once through peer_died ("ended its session"): started
// after the end came, or started before rank 0 ended (libfabric holds it
// then).  A send to rank 0 afterwards fails at once.
START_TEST(a_peer_that_ended_fails_only_what_it_never_sent)
{
    const bool unsent_first = _i == 1;
    auto transports = bring_up(2);
    ofi::Transport &t0 = *transports[0];
    ofi::Transport &t1 = *transports[1];
    Message small(MCA_MSG_SEND, 1, 0x400, 1, 1, 8, 8);
    Message larger(MCA_MSG_SEND, 1, 0x401, 2, 4, 1000, 1100);
    Message small_in(MCA_MSG_RECV, 0, 0x400, 1, 1, 8, 8);
    Message larger_in(MCA_MSG_RECV, 0, 0x401, 2, 1, 4000, 4000);
    Message pieces(MCA_MSG_SEND, 1, 0x404, 5, 64, 64, 100);
    Message pieces_in(MCA_MSG_RECV, 0, 0x404, 5, 1, 4096, 4096);
    Message never(MCA_MSG_RECV, 0, 0x402, 3, 1, 64, 64);
    for (Message *m : {&small, &larger, &pieces}) {
        prepare(0, t0, *m);
        start(0, t0, *m);
    }
    ck_assert_msg(!staged(larger) && staged(pieces),
                  "the send of 4 blocks %s staged, the one of 64 %s",
                  staged(larger) ? "is" : "is not", staged(pieces) ? "is" : "is not");
    for (Message *m : {&small_in, &larger_in, &pieces_in, &never}) {
        prepare(1, t1, *m);
    }
    if (unsent_first) {
        start(1, t1, never);
    }
    ck_assert_msg(stub::drive([&] { return done(0, small) && done(0, larger) && done(0, pieces); }),
                  "rank 0's sends did not complete");
    cleanup(0, t0, small);
    cleanup(0, t0, larger);
    cleanup(0, t0, pieces);
    const auto took = finalize(0, transports);
    ck_assert_msg(took < 2s, "rank 0's finalize took %lld ms (its linger: %d)",
                  static_cast<long long>(took.count()), test_params().linger_ms);
    if (!unsent_first) {
        start(1, t1, small_in);
        start(1, t1, larger_in);
        start(1, t1, pieces_in);
        start(1, t1, never);
    }
    ck_assert_msg(stub::drive([&] { return done(1, never); }),
                  "a receive from rank 0 after its end did not complete");
    ck_assert_int_eq(status_of(1, never), MERIDIAN_ERR_UNREACH);
    const auto &deaths = stub::rank(1).deaths;
    ck_assert_uint_eq(deaths.size(), 1);
    ck_assert_int_eq(deaths[0].peer, 0);
    ck_assert_msg(deaths[0].why.starts_with("ended its session"),
                  "rank 0 died at rank 1 because it \"%s\"", deaths[0].why.c_str());
    if (unsent_first) {
        start(1, t1, small_in);
        start(1, t1, larger_in);
        start(1, t1, pieces_in);
    }
    ck_assert_msg(
        stub::drive([&] { return done(1, small_in) && done(1, larger_in) && done(1, pieces_in); }),
        "what rank 0 sent before its end did not arrive: the 8 bytes %s, the 4000 %s, "
        "the 4096 %s",
        done(1, small_in) ? "did" : "did not", done(1, larger_in) ? "did" : "did not",
        done(1, pieces_in) ? "did" : "did not");
    check_received(small, small_in, "the 8 bytes sent before the end");
    check_received(larger, larger_in, "the 4000 bytes sent before the end");
    check_received(pieces, pieces_in, "the 4096 bytes in 64 blocks sent before the end");
    // Nothing more goes to rank 0 either.
    Message late(MCA_MSG_SEND, 0, 0x403, 4, 1, 8, 8);
    prepare(1, t1, late);
    start(1, t1, late);
    ck_assert_int_eq(status_of(1, late), MERIDIAN_ERR_UNREACH);
    for (Message *m : {&small_in, &larger_in, &pieces_in, &never, &late}) {
        cleanup(1, t1, *m);
    }
    const auto took_1 = finalize(1, transports);
    ck_assert_msg(took_1 < 1s, "rank 1's finalize took %lld ms",
                  static_cast<long long>(took_1.count()));
    ck_assert_text_eq(stub::breaches(), "");
    ck_assert_no_messages();
}
END_TEST

// What rank 1 published is spoiled before rank 0 connects: connect fails
// with why, and finalize after the failed bring-up returns at once.
struct Spoiled {
    const char *key;
    std::string value; // empty: removed
    const char *error;
};
const Spoiled spoiled[] = {
    {"ofi.prov", "verbs;ofi_rxm",
     "msg ofi: rank 1 (node stub-node, path ofi:{provider}) uses the provider verbs;ofi_rxm, "
     "this process {provider} (set msg_ofi_provider or FI_PROVIDER alike everywhere)"},
    {"ofi.addr", "",
     "msg ofi: rank 1 (node stub-node, path ofi:{provider}) published no libfabric address"},
};

START_TEST(a_peer_with_another_provider_fails_connect_with_why)
{
    const Spoiled &s = spoiled[_i];
    stub::make_world(2);
    Transports transports;
    for (int r = 0; r < 2; ++r) {
        transports.push_back(make_transport(r, test_params()));
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
        modex[s.key].assign(s.value.begin(), s.value.end());
    }
    stub::set_current(0);
    ck_assert_int_eq(transports[0]->connect(), MERIDIAN_ERR_UNREACH);
    // The provider as this process chose it (what rank 0 published).
    const auto &mine = stub::rank(0).modex.at("ofi.prov");
    ck_assert_messages(ERROR_MSG(with_provider(s.error, std::string(mine.begin(), mine.end()))));
    for (int r = 0; r < 2; ++r) {
        stub::set_current(r);
        const auto begin = std::chrono::steady_clock::now();
        transports[static_cast<std::size_t>(r)]->finalize();
        transports[static_cast<std::size_t>(r)].reset();
        ck_assert(std::chrono::steady_clock::now() - begin < 1s);
    }
    ck_assert_text_eq(stub::breaches(), "");
}
END_TEST

// Tags as QMP gives them, every bit of the 64 in use (ofi_rxm's tags have
// all of them), match as given; the one tag the transport keeps for a
// process's end (all ones) is refused at declaration with why.
START_TEST(tags_of_64_bits_and_the_one_kept_for_the_end)
{
    auto transports = bring_up(2);
    ofi::Transport &t0 = *transports[0];
    ofi::Transport &t1 = *transports[1];
    const std::uint64_t tags[] = {0xfedcba9876543210ULL, 0x8000000000000000ULL,
                                  0xfffffffffffffffeULL, 0x7fffffffffffffffULL};
    std::vector<std::unique_ptr<Message>> sends;
    std::vector<std::unique_ptr<Message>> recvs;
    unsigned seed = 1;
    for (const std::uint64_t tag : tags) {
        sends.push_back(std::make_unique<Message>(MCA_MSG_SEND, 1, tag, seed, 1, 64, 64));
        recvs.push_back(std::make_unique<Message>(MCA_MSG_RECV, 0, tag, seed, 1, 64, 64));
        ++seed;
        prepare(0, t0, *sends.back());
        prepare(1, t1, *recvs.back());
        const auto *state =
            static_cast<const ofi::ChannelState *>(sends.back()->channel->transport_data);
        ck_assert_msg(state->wire_tag == tag, "the tag 0x%llx goes on the wire as 0x%llx",
                      static_cast<unsigned long long>(tag),
                      static_cast<unsigned long long>(state->wire_tag));
    }
    // Rank 1 starts its receives the other way round: each takes its own
    // tag's message all the same.
    for (std::size_t i = 0; i < sends.size(); ++i) {
        start(1, t1, *recvs[recvs.size() - 1 - i]);
        start(0, t0, *sends[i]);
    }
    const auto all_done = [&] {
        for (std::size_t i = 0; i < sends.size(); ++i) {
            if (!done(0, *sends[i]) || !done(1, *recvs[i])) {
                return false;
            }
        }
        return true;
    };
    ck_assert_msg(stub::drive(all_done),
                  "after 20 s, the messages of the %zu tags are not all there", sends.size());
    for (std::size_t i = 0; i < sends.size(); ++i) {
        char what[64];
        std::snprintf(what, sizeof what, "the tag 0x%llx",
                      static_cast<unsigned long long>(tags[i]));
        check_received(*sends[i], *recvs[i], what);
    }
    Message end(MCA_MSG_SEND, 1, ~std::uint64_t{0}, 9, 1, 8, 8);
    stub::set_current(0);
    ck_assert_int_eq(t0.prepare(*end.channel), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_ptr_null(end.channel->transport_data);
    ck_assert_messages(ERROR_MSG(
        "msg ofi: the tag 0xffffffffffffffff is the one the transport keeps for a process's end"));
    meridian_test::clear_messages();
    for (std::size_t i = 0; i < sends.size(); ++i) {
        cleanup(0, t0, *sends[i]);
        cleanup(1, t1, *recvs[i]);
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 2s);
    ck_assert_no_messages();
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("msg_ofi_transport");
    TCase *tcase = tcase_create("ofi");
    tcase_add_checked_fixture(tcase, setup, nullptr);
    tcase_set_timeout(tcase, 120);
    tcase_add_test(tcase, receives_before_and_after_their_sends);
    tcase_add_test(tcase, a_longer_message_fails_its_receive_through_fits);
    tcase_add_loop_test(tcase, a_cancelled_receive_is_never_completed, 0,
                        static_cast<int>(std::size(cancelled_blocks)));
    tcase_add_loop_test(tcase, a_peer_that_ended_fails_only_what_it_never_sent, 0, 2);
    tcase_add_test(tcase, tags_of_64_bits_and_the_one_kept_for_the_end);
    tcase_add_loop_test(tcase, a_peer_with_another_provider_fails_connect_with_why, 0,
                        static_cast<int>(std::size(spoiled)));
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

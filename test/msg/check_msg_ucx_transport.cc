// SPDX-License-Identifier: BSD-3-Clause
// The ucx transport (components/msg_ucx, compiled in) against a stub base
// (msg_stub_base.hpp), its ranks in one process over UCX's shared memory
// and over its tcp on loopback.  The transport matches itself
// (MCA_MSG_TRANSPORT_MATCHES), so receives go through start too: each is
// matched with its message whether posted before or after the send, every
// byte in place and nothing written between the blocks; a longer message
// fails its receive through the base's fits; a cancelled receive is never
// completed; after a peer's end, a receive for a message it never sent
// fails at once while those it sent before its end still arrive;
// start_direct starts a channel as the base's start would.
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "components/msg_ucx/msg_ucx_transport.hpp"
#include "test/msg/msg_stub_base.hpp"
#include "test/support/meridian_test.hpp"

namespace ucx = meridian::msg_ucx;
namespace stub = msg_stub;

using namespace std::chrono_literals;

namespace
{

using Transports = std::vector<std::unique_ptr<ucx::Transport>>;

// UCX_TLS for each loop of a test: its shared memory, its tcp (loopback).
const char *const transports_of_ucx[] = {"shm", "tcp"};

// A channel of one rank and its memory.
struct Message {
    unsigned seed;
    stub::Blocks blocks;
    std::unique_ptr<stub::Channel> channel;
    bool at_once = false; // its last start completed it within the call

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
}

std::unique_ptr<ucx::Transport> make_transport(int r, const ucx::Params &params)
{
    auto transport = std::make_unique<ucx::Transport>(params);
    ucx::Transport *t = transport.get();
    stub::Hooks &hooks = stub::rank(r).hooks;
    hooks.progress = [t] { return t->progress(); };
    hooks.cancel = [t](mca_msg_channel_t &channel, bool alive) { t->cancel(channel, alive); };
    hooks.path_name = [t](int peer) { return std::string(t->path_name(peer)); };
    return transport;
}

// UCX_TLS as the loop says, then each rank's init and each rank's connect
// (the vtable's ready does nothing for ucx).
Transports bring_up(int loop, int size, const ucx::Params &params = {})
{
    ::setenv("UCX_TLS", transports_of_ucx[loop], 1);
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

void prepare(int r, ucx::Transport &t, Message &m)
{
    stub::set_current(r);
    ck_assert_int_eq(t.prepare(*m.channel), MERIDIAN_SUCCESS);
}

void start(int r, ucx::Transport &t, Message &m)
{
    stub::set_current(r);
    stub::started(*m.channel);
    const std::size_t before = stub::rank(r).completions.size();
    t.start(*m.channel);
    m.at_once = stub::rank(r).completions.size() > before;
}

void cleanup(int r, ucx::Transport &t, Message &m)
{
    stub::set_current(r);
    t.cleanup(*m.channel);
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

// The receive holds exactly the send's bytes, nothing between its blocks
// was written, and the base was not asked whether the message fits: the
// transport compares a message that fits with the receive's size itself
// and asks the base only about one that does not (the longer messages'
// case below).
void check_received(const Message &send, const Message &recv, const char *what)
{
    ck_assert_msg(status_of(1, recv) == MERIDIAN_SUCCESS, "%s: the receive completed with %d", what,
                  status_of(1, recv));
    ck_assert_msg(status_of(0, send) == MERIDIAN_SUCCESS, "%s: the send completed with %d", what,
                  status_of(0, send));
    const std::string wrong = stub::differs(recv.blocks.stream(), send.seed);
    ck_assert_msg(wrong.empty(), "%s: %s", what, wrong.c_str());
    const std::string gaps = recv.blocks.gaps_intact();
    ck_assert_msg(gaps.empty(), "%s: %s", what, gaps.c_str());
    const auto calls = fits_of(1, recv);
    ck_assert_msg(calls.empty(),
                  "%s: fits was asked %zu times (the first with %llu bytes) of a message of %zu "
                  "bytes into %zu",
                  what, calls.size(),
                  static_cast<unsigned long long>(calls.empty() ? 0 : calls[0].total),
                  send.blocks.nbytes, recv.blocks.nbytes);
}

// Rank r's finalize, then its transport goes (as the component's finalize
// does: its worker is destroyed at once), on a thread of its own while the
// other ranks progress; how long it took.
std::chrono::milliseconds finalize(int r, Transports &transports)
{
    std::unique_ptr<ucx::Transport> &t = transports[static_cast<std::size_t>(r)];
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
        ck_assert_msg(took < bound, "rank %zu's finalize took %lld ms", r,
                      static_cast<long long>(took.count()));
    }
}

// A message's shape: blocks on the sending and on the receiving side.
struct Shape {
    const char *name;
    std::size_t send_count, send_block, send_stride;
    std::size_t recv_count, recv_block, recv_stride;
};
const Shape shapes[] = {
    {"0 B", 1, 0, 0, 1, 0, 0},
    {"8 B", 1, 8, 8, 1, 8, 8},
    {"64 KiB", 1, 64 << 10, 64 << 10, 1, 64 << 10, 64 << 10},
    {"4 MiB", 1, 4 << 20, 4 << 20, 1, 4 << 20, 4 << 20},
    {"72-byte blocks into 8000-byte blocks", 1000, 72, 100, 9, 8000, 8100},
    {"16 KiB blocks into one", 64, 16 << 10, 20 << 10, 1, 1 << 20, 1 << 20},
    {"one block into 4 KiB blocks", 1, 256 << 10, 256 << 10, 64, 4 << 10, 5 << 10},
};

// Every shape twice from rank 0 to rank 1: its receive started before its
// send, and after it (the message unexpected at rank 1, or a rendezvous
// waiting at rank 0).
START_TEST(receives_before_and_after_their_sends)
{
    auto transports = bring_up(_i, 2);
    ucx::Transport &t0 = *transports[0];
    ucx::Transport &t1 = *transports[1];
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
            ck_abort_msg("UCX_TLS=%s, receives %s their sends: after 20 s, not complete:%s",
                         transports_of_ucx[_i], receive_first ? "before" : "after",
                         missing.c_str());
        }
        for (const std::size_t i : batch) {
            const std::string what = std::string("UCX_TLS=") + transports_of_ucx[_i] + ", " +
                                     shapes[i % std::size(shapes)].name + ", receive " +
                                     (receive_first ? "first" : "last");
            check_received(*sends[i], *recvs[i], what.c_str());
        }
    }
    for (std::size_t i = 0; i < sends.size(); ++i) {
        cleanup(0, t0, *sends[i]);
        cleanup(1, t1, *recvs[i]);
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 5s);
    ck_assert_no_messages();
}
END_TEST

// A message longer than its receive completes the receive with
// MERIDIAN_ERR_BAD_PARAM through fits: asked with the message's size when
// UCX gives it (a receive UCX completes later), else with one byte more
// than the receive and why (one UCX fails within its start).  The send
// completes (it did its part).  Short (eager) and long (rendezvous), the
// receive before and after the send.
START_TEST(a_longer_message_fails_its_receive_through_fits)
{
    auto transports = bring_up(_i, 2);
    ucx::Transport &t0 = *transports[0];
    ucx::Transport &t1 = *transports[1];
    struct Case {
        std::size_t sent, room;
        bool receive_first;
    };
    const Case cases[] = {{1000, 600, true},
                          {1000, 600, false},
                          {1 << 20, 512 << 10, true},
                          {1 << 20, 512 << 10, false}};
    unsigned seed = 1;
    std::vector<std::unique_ptr<Message>> messages;
    for (const Case &c : cases) {
        const std::uint64_t tag = 0x200 + seed;
        auto send = std::make_unique<Message>(MCA_MSG_SEND, 1, tag, seed, 1, c.sent, c.sent);
        auto recv = std::make_unique<Message>(MCA_MSG_RECV, 0, tag, seed, 1, c.room, c.room);
        ++seed;
        prepare(0, t0, *send);
        prepare(1, t1, *recv);
        if (c.receive_first) {
            start(1, t1, *recv);
            start(0, t0, *send);
        } else {
            start(0, t0, *send);
            settle(100ms);
            start(1, t1, *recv);
        }
        ck_assert_msg(stub::drive([&] { return done(0, *send) && done(1, *recv); }),
                      "UCX_TLS=%s, %zu bytes into %zu, the receive %s: after 20 s the send %s, "
                      "the receive %s",
                      transports_of_ucx[_i], c.sent, c.room, c.receive_first ? "first" : "last",
                      done(0, *send) ? "completed" : "did not complete",
                      done(1, *recv) ? "completed" : "did not complete");
        ck_assert_int_eq(status_of(1, *recv), MERIDIAN_ERR_BAD_PARAM);
        ck_assert_int_eq(status_of(0, *send), MERIDIAN_SUCCESS);
        // Completed within its start, the receive has no size from UCX.
        const auto calls = fits_of(1, *recv);
        ck_assert_uint_eq(calls.size(), 1);
        if (recv->at_once) {
            ck_assert_uint_eq(calls[0].total, c.room + 1);
            ck_assert_text_eq(calls[0].got, "UCX reported a truncation");
        } else {
            ck_assert_uint_eq(calls[0].total, c.sent);
            ck_assert_text_eq(calls[0].got, "");
        }
        ck_assert_text_eq(recv->blocks.gaps_intact(), "");
        messages.push_back(std::move(send));
        messages.push_back(std::move(recv));
    }
    for (std::size_t i = 0; i < messages.size(); i += 2) {
        cleanup(0, t0, *messages[i]);
        cleanup(1, t1, *messages[i + 1]);
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 5s);
    ck_assert_no_messages();
}
END_TEST

// A receive abandoned while UCX holds it (channel_free) is never completed
// and its memory never written, though its message comes afterwards; the
// channel started again takes that message.
START_TEST(a_cancelled_receive_is_never_completed)
{
    auto transports = bring_up(_i, 2);
    ucx::Transport &t0 = *transports[0];
    ucx::Transport &t1 = *transports[1];
    Message recv(MCA_MSG_RECV, 0, 0x300, 1, 4, 256, 300);
    Message send(MCA_MSG_SEND, 1, 0x300, 1, 1, 1024, 1024);
    prepare(1, t1, recv);
    prepare(0, t0, send);
    start(1, t1, recv);
    settle(20ms);
    stub::set_current(1);
    stub::abandoned(*recv.channel);
    t1.cancel(*recv.channel, true);
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
    finalize_all(transports, 5s);
    ck_assert_no_messages();
}
END_TEST

// Rank 0 sends three messages before their receives start (8 bytes; 4000
// in four blocks; 4096 in 64 blocks, which UCX's tcp carries in pieces and
// completes only at a later progress), their sends complete, then it ends
// its session.  At rank 1 all still arrive, and a receive for a fourth,
// which rank 0 never sent, fails at once through peer_died ("ended its
// session"): started after the end came, or started before rank 0 ended
// (UCX holds it then).
START_TEST(a_peer_that_ended_fails_only_what_it_never_sent)
{
    const int tls = _i / 2;
    const bool unsent_first = _i % 2 == 1;
    auto transports = bring_up(tls, 2);
    ucx::Transport &t0 = *transports[0];
    ucx::Transport &t1 = *transports[1];
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
    ck_assert_msg(took < 5s, "rank 0's finalize took %lld ms",
                  static_cast<long long>(took.count()));
    if (!unsent_first) {
        start(1, t1, small_in);
        start(1, t1, larger_in);
        start(1, t1, pieces_in);
        start(1, t1, never);
    }
    ck_assert_msg(stub::drive([&] { return done(1, never); }),
                  "UCX_TLS=%s: a receive from rank 0 after its end did not complete",
                  transports_of_ucx[tls]);
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
        "UCX_TLS=%s: what rank 0 sent before its end did not arrive", transports_of_ucx[tls]);
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
    ck_assert_msg(took_1 < 2s, "rank 1's finalize took %lld ms",
                  static_cast<long long>(took_1.count()));
    ck_assert_text_eq(stub::breaches(), "");
    ck_assert_no_messages();
}
END_TEST

// start_direct, the channel's start without the base (msg.h), does what
// the base's start does before the transport's: the channel is active with
// status success (whatever its last transfer left), and its message goes as
// with start.  A channel that is not idle goes to the base's start, which
// says what is wrong, and nothing more is posted for it: one completion
// each.  A done channel's status is taken once, leaving it idle.
START_TEST(start_direct_starts_as_the_base_would)
{
    auto transports = bring_up(_i, 2);
    ucx::Transport &t0 = *transports[0];
    ucx::Transport &t1 = *transports[1];
    Message send(MCA_MSG_SEND, 1, 0x77, 9, 1, 64, 64);
    Message recv(MCA_MSG_RECV, 0, 0x77, 9, 4, 16, 24);
    prepare(0, t0, send);
    prepare(1, t1, recv);

    stub::set_current(1);
    stub::started(*recv.channel);
    recv.channel->status = MERIDIAN_ERR_UNREACH; // as a failed transfer before it left it
    ck_assert_int_eq(ucx::Transport::start_direct(recv.channel.get()), MERIDIAN_SUCCESS);
    ck_assert_int_eq(recv.channel->phase, MCA_MSG_CHANNEL_ACTIVE);
    ck_assert_int_eq(recv.channel->status, MERIDIAN_SUCCESS);
    ck_assert_int_eq(ucx::Transport::start_direct(recv.channel.get()), MERIDIAN_ERR_BAD_PARAM);
    ck_assert_uint_eq(stub::rank(1).base_starts.size(), 1);
    ck_assert_ptr_eq(stub::rank(1).base_starts[0], recv.channel.get());
    ck_assert_int_eq(recv.channel->phase, MCA_MSG_CHANNEL_ACTIVE);

    stub::set_current(0);
    stub::started(*send.channel);
    ck_assert_int_eq(ucx::Transport::start_direct(send.channel.get()), MERIDIAN_SUCCESS);
    ck_assert_msg(stub::drive([&] { return done(0, send) && done(1, recv); }),
                  "UCX_TLS=%s: after 20 s, the send %s and the receive %s", transports_of_ucx[_i],
                  done(0, send) ? "completed" : "did not complete",
                  done(1, recv) ? "completed" : "did not complete");
    check_received(send, recv, "start_direct");
    ck_assert_uint_eq(stub::rank(1).completions.size(), 1);
    ck_assert_uint_eq(stub::rank(0).base_starts.size(), 0);

    int status = -1;
    ck_assert_int_eq(recv.channel->phase, MCA_MSG_CHANNEL_DONE);
    ck_assert_int_eq(mca_msg_channel_take(recv.channel.get(), &status), 1);
    ck_assert_int_eq(status, MERIDIAN_SUCCESS);
    ck_assert_int_eq(recv.channel->phase, MCA_MSG_CHANNEL_IDLE);
    status = -1;
    ck_assert_int_eq(mca_msg_channel_take(recv.channel.get(), &status), 0);
    ck_assert_int_eq(status, -1);

    cleanup(0, t0, send);
    cleanup(1, t1, recv);
    ck_assert_text_eq(stub::breaches(), "");
    finalize_all(transports, 5s);
    ck_assert_no_messages();
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("msg_ucx_transport");
    TCase *tcase = tcase_create("ucx");
    tcase_add_checked_fixture(tcase, setup, nullptr);
    tcase_set_timeout(tcase, 120);
    const int loops = static_cast<int>(std::size(transports_of_ucx));
    tcase_add_loop_test(tcase, receives_before_and_after_their_sends, 0, loops);
    tcase_add_loop_test(tcase, a_longer_message_fails_its_receive_through_fits, 0, loops);
    tcase_add_loop_test(tcase, a_cancelled_receive_is_never_completed, 0, loops);
    tcase_add_loop_test(tcase, a_peer_that_ended_fails_only_what_it_never_sent, 0, 2 * loops);
    tcase_add_loop_test(tcase, start_direct_starts_as_the_base_would, 0, loops);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

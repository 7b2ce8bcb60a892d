// SPDX-License-Identifier: BSD-3-Clause
// The self transport (components/msg_self, compiled in; its transport is
// reached through the component's query, as the base reaches it) against a
// stub base (msg_stub_base.hpp), one rank sending to itself: what it offers;
// messages of every size and block layout arrive whole, in order and with
// their tags, up to its eager limit copied to the base at once, larger ones
// announced and copied from the send's blocks into the receive's when the
// base hands the receive over (at once, or once the receive starts later);
// a receive shorter than an announced message fails through fits and one
// longer keeps the bytes past the message; a started send freed before its
// message was taken is withdrawn, and never completed.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "test/msg/msg_stub_base.hpp"
#include "test/msg/msg_stub_checks.hpp"
#include "test/support/meridian_test.hpp"

extern "C" mca_msg_base_component_t mca_msg_self_component;

namespace stub = msg_stub;

using msg_stub::check_delivered;
using msg_stub::Send;

namespace
{

// msg_self_eager_limit's default: a larger message waits for its receive.
constexpr std::size_t eager_limit = 8192;

// An announced message the base keeps until a receive takes it: the stub's
// receive of it and the transport's handle.
struct Held {
    mca_msg_channel_t *receive;
    void *message;
};

// The transport, hooked into the stub as the base would call it; with
// `hold`, announced messages are kept (no receive waits for them) instead of
// taken at once.
struct Self {
    mca_msg_transport_t *t = nullptr;
    bool hold = false;
    std::vector<Held> held;

    void send(Send &send)
    {
        stub::set_current(0);
        stub::started(*send.channel);
        t->send(t, send.channel.get());
    }
    // The base matched a held message with a receive: take.
    int take(mca_msg_channel_t &recv, const Held &h)
    {
        stub::set_current(0);
        return t->take(t, &recv, h.message);
    }
};

void setup()
{
    meridian_test::isolate_mca_environment();
    meridian_test::capture_messages();
}

// The component's transport (its parameters at their defaults: the
// component's register_params is not called), its one rank up.
std::unique_ptr<Self> bring_up()
{
    stub::make_world(1);
    mca_base_module_t *module = nullptr;
    int priority = -1;
    ck_assert_int_eq(
        mca_msg_self_component.base.query(&mca_msg_self_component.base, &module, &priority),
        MERIDIAN_SUCCESS);
    ck_assert_int_eq(priority, 100);
    ck_assert_ptr_nonnull(module);
    auto self = std::make_unique<Self>();
    self->t = static_cast<mca_msg_transport_t *>(module);
    Self *s = self.get();
    stub::Hooks &hooks = stub::rank(0).hooks;
    hooks.take = [s](mca_msg_channel_t &recv, void *message) {
        if (s->hold) {
            s->held.push_back({&recv, message});
            return 0;
        }
        return s->t->take(s->t, &recv, message);
    };
    hooks.path_name = [s](int peer) { return std::string(s->t->path_name(s->t, peer)); };
    stub::set_current(0);
    const unsigned char peers[] = {1};
    ck_assert_int_eq(self->t->init(self->t, &stub::job(0), peers), MERIDIAN_SUCCESS);
    ck_assert_int_eq(self->t->connect(self->t), MERIDIAN_SUCCESS);
    ck_assert_int_eq(self->t->ready(self->t), MERIDIAN_SUCCESS);
    return self;
}

void finalize(Self &self)
{
    stub::set_current(0);
    self.t->finalize(self.t);
    stub::rank(0).hooks = {};
}

// The arrival of a message the stub recorded last.
const stub::Arrival &last_arrival()
{
    return stub::rank(0).arrivals.back();
}

// A receive of the test's own: `count` blocks of `block` bytes, `stride`
// apart.
struct Receive {
    stub::Blocks blocks;
    std::unique_ptr<stub::Channel> channel;

    Receive(std::uint64_t tag, std::size_t count, std::size_t block, std::size_t stride)
        : blocks(count, block, stride),
          channel(stub::make_channel(MCA_MSG_RECV, 0, tag, blocks.iov))
    {
    }
};

// The transport matches nothing itself, has no progress of its own, and
// offers this process only, at its priority.
START_TEST(it_offers_this_process_alone)
{
    auto self = bring_up();
    mca_msg_transport_t &t = *self->t;
    ck_assert_uint_eq(t.flags & MCA_MSG_TRANSPORT_MATCHES, 0);
    ck_assert_msg(t.recv == nullptr, "it takes receives (recv), though the base matches");
    ck_assert_msg(t.progress == nullptr, "it has a progress of its own");
    ck_assert_msg(t.take != nullptr && t.drop != nullptr && t.cancel != nullptr,
                  "it announces messages without take, drop and cancel (%s, %s, %s)",
                  t.take != nullptr ? "take" : "no take", t.drop != nullptr ? "drop" : "no drop",
                  t.cancel != nullptr ? "cancel" : "no cancel");
    int offer[3] = {-1, -1, -1};
    ck_assert_int_eq(t.offer(&t, &stub::job(0), offer), MERIDIAN_SUCCESS);
    ck_assert_int_eq(offer[MCA_MSG_PEER_SELF], 100);
    ck_assert_int_eq(offer[MCA_MSG_PEER_NODE], 0);
    ck_assert_int_eq(offer[MCA_MSG_PEER_REMOTE], 0);
    ck_assert_text_eq(t.path_name(&t, 0), "self");
    finalize(*self);
    ck_assert_no_messages();
}
END_TEST

// Messages to itself: empty (no block, one empty block), short, the eager
// limit in one block and in 128, one byte more, 64 KiB, 4 MiB, a tag with
// every high bit, 72-byte blocks below the limit (gathered) and above it,
// 8 KiB blocks; the stub's receives of announced messages in blocks as the
// loop says (one, 4096 bytes, 72 bytes).  Each send completes within its
// start (the stub's receive waits: announced messages are taken at once),
// each message is there whole, and exactly those past the eager limit were
// announced.
const std::size_t piece_blocks[] = {0, 4096, 72};

START_TEST(messages_arrive_whole_in_order_with_their_tags)
{
    auto self = bring_up();
    stub::rank(0).piece_block = piece_blocks[_i];
    std::vector<Send> sends;
    sends.reserve(13);
    sends.emplace_back(0, 0x10, 1, 0, 0, 0);
    sends.emplace_back(0, 0x11, 2, 1, 0, 0);
    sends.emplace_back(0, 0x12, 3, 1, 100, 100);
    sends.emplace_back(0, 0x13, 4, 1, eager_limit, eager_limit);
    sends.emplace_back(0, 0x14, 5, 128, eager_limit / 128, 96);
    sends.emplace_back(0, 0x15, 6, 1, eager_limit + 1, eager_limit + 1);
    sends.emplace_back(0, 0x16, 7, 1, 64 << 10, 64 << 10);
    sends.emplace_back(0, 0x17, 8, 1, 4 << 20, 4 << 20);
    sends.emplace_back(0, 0xfedcba9876543210ULL, 9, 1, 8, 8);
    sends.emplace_back(0, 0x18, 10, 100, 72, 96);
    sends.emplace_back(0, 0x19, 11, 3000, 72, 96);
    sends.emplace_back(0, 0x1a, 12, 40, 8192, 12288);
    sends.emplace_back(0, 0x1b, 13, 5, 0, 16);
    std::vector<Send *> all;
    for (Send &send : sends) {
        all.push_back(&send);
        self->send(send);
        ck_assert_msg(stub::completion_of(0, send.channel.get()) != nullptr,
                      "the send of %zu bytes in %zu blocks did not complete within its start",
                      send.blocks.nbytes, send.channel->iovcnt);
    }
    check_delivered(0, 0, all);
    const auto got = stub::arrivals_from(0, 0);
    for (std::size_t i = 0; i < sends.size(); ++i) {
        const stub::Channel &c = *sends[i].channel;
        const bool announced = c.nbytes > eager_limit;
        ck_assert_msg((got[i]->announced != nullptr) == announced,
                      "message %zu (%zu bytes in %zu blocks) was %s", i, c.nbytes, c.iovcnt,
                      got[i]->announced != nullptr ? "announced" : "not announced");
        if (announced) {
            ck_assert_msg(got[i]->announced == &c,
                          "message %zu was announced with a handle other than its send", i);
        }
    }
    ck_assert_text_eq(stub::breaches(), "");
    finalize(*self);
    ck_assert_no_messages();
}
END_TEST

// Announced messages no receive waits for stay with their sends, which do
// not complete, until the base hands each a receive (take, here in the
// reverse order): then the bytes are copied and both complete within take.
START_TEST(an_announced_message_waits_for_its_receive)
{
    auto self = bring_up();
    stub::rank(0).piece_block = piece_blocks[_i];
    self->hold = true;
    std::vector<Send> sends;
    sends.reserve(3);
    sends.emplace_back(0, 0x20, 1, 1, eager_limit + 1, eager_limit + 1);
    sends.emplace_back(0, 0x21, 2, 3000, 72, 96);
    sends.emplace_back(0, 0x22, 3, 1, 1 << 20, 1 << 20);
    std::vector<Send *> all;
    for (Send &send : sends) {
        all.push_back(&send);
        self->send(send);
    }
    ck_assert_uint_eq(self->held.size(), 3);
    for (const Send &send : sends) {
        ck_assert_msg(stub::completion_of(0, send.channel.get()) == nullptr,
                      "the send of %zu bytes completed before its message was taken",
                      send.blocks.nbytes);
    }
    for (std::size_t i = self->held.size(); i-- > 0;) {
        ck_assert_int_eq(self->take(*self->held[i].receive, self->held[i]), 0);
        ck_assert_msg(stub::completion_of(0, sends[i].channel.get()) != nullptr,
                      "the send of %zu bytes did not complete when its message was taken",
                      sends[i].blocks.nbytes);
        ck_assert_msg(stub::rank(0).arrivals[i].completed,
                      "the receive of %zu bytes did not complete within take",
                      sends[i].blocks.nbytes);
    }
    check_delivered(0, 0, all);
    ck_assert_text_eq(stub::breaches(), "");
    finalize(*self);
    ck_assert_no_messages();
}
END_TEST

// The base hands an announced message to a receive of another size: one
// shorter completes with MERIDIAN_ERR_BAD_PARAM through fits (asked with
// the message's size) and is not written; one longer gets the message and
// keeps the bytes past it.  Either way the send completes (it did its
// part).  Into one block and into 72-byte blocks.
struct Mismatch {
    std::size_t sent;
    std::size_t count, block, stride; // the receive's blocks
};
const Mismatch mismatches[] = {
    {16 << 10, 1, 10000, 10000},
    {16 << 10, 100, 72, 80},
    {16 << 10, 1, 20000, 20000},
    {16 << 10, 300, 72, 80},
};

START_TEST(a_receive_of_another_size_takes_an_announced_message)
{
    const Mismatch &m = mismatches[_i];
    auto self = bring_up();
    self->hold = true;
    Send send(0, 0x30, 1, 1, m.sent, m.sent);
    Receive recv(0x30, m.count, m.block, m.stride);
    const bool fits = recv.blocks.nbytes >= m.sent;
    self->send(send);
    ck_assert_uint_eq(self->held.size(), 1);
    // The base matched it with this receive, not the stub's own.
    stub::set_current(0);
    stub::abandoned(*self->held[0].receive);
    stub::started(*recv.channel);
    ck_assert_int_eq(self->take(*recv.channel, self->held[0]), 0);
    const stub::Completion *received = stub::completion_of(0, recv.channel.get());
    ck_assert_msg(received != nullptr, "the receive of %zu bytes for %zu did not complete",
                  recv.blocks.nbytes, m.sent);
    ck_assert_int_eq(received->status, fits ? MERIDIAN_SUCCESS : MERIDIAN_ERR_BAD_PARAM);
    const stub::Completion *sent = stub::completion_of(0, send.channel.get());
    ck_assert_msg(sent != nullptr, "the send did not complete");
    ck_assert_int_eq(sent->status, MERIDIAN_SUCCESS);
    const auto &fits_calls = stub::rank(0).fits;
    ck_assert_uint_eq(fits_calls.size(), 1);
    ck_assert_ptr_eq(fits_calls[0].recv, recv.channel.get());
    ck_assert_uint_eq(fits_calls[0].total, m.sent);
    ck_assert_text_eq(fits_calls[0].got, "");
    std::vector<std::byte> stream = recv.blocks.stream();
    const std::size_t written = fits ? m.sent : 0;
    for (std::size_t i = written; i < stream.size(); ++i) {
        ck_assert_msg(stream[i] == stub::Blocks::gap,
                      "byte %zu of the receive's %zu was written (the message: %zu bytes, %s)", i,
                      stream.size(), m.sent, fits ? "taken" : "refused");
    }
    stream.resize(written);
    const std::string wrong = stub::differs(stream, send.seed);
    ck_assert_msg(wrong.empty(), "%s", wrong.c_str());
    ck_assert_text_eq(recv.blocks.gaps_intact(), "");
    ck_assert_text_eq(stub::breaches(), "");
    finalize(*self);
    ck_assert_no_messages();
}
END_TEST

// A started send freed while its message waits for a receive (cancel) is
// withdrawn from the base, once, and never completed; the channel started
// again is announced afresh and taken.  One the base dropped first (it
// stops) is not withdrawn: the base holds it no more.
START_TEST(a_freed_send_is_withdrawn)
{
    auto self = bring_up();
    self->hold = true;
    Send send(0, 0x40, 1, 4, 4096, 5000);
    self->send(send);
    ck_assert_uint_eq(self->held.size(), 1);
    const stub::Arrival &first = last_arrival();
    ck_assert_ptr_eq(first.announced, send.channel.get());
    stub::set_current(0);
    stub::abandoned(*send.channel);
    self->t->cancel(self->t, send.channel.get(), 1);
    ck_assert_msg(first.withdrawn, "the freed send's message was not withdrawn");
    ck_assert_ptr_null(stub::completion_of(0, send.channel.get()));
    ck_assert_text_eq(stub::breaches(), "");

    // Started again: a new message, taken at once this time.
    self->hold = false;
    self->send(send);
    ck_assert_uint_eq(stub::rank(0).arrivals.size(), 2);
    const stub::Arrival &again = last_arrival();
    ck_assert_msg(again.announced == send.channel.get() && again.whole(),
                  "the send started again was %s", again.whole() ? "taken" : "not taken");
    ck_assert_msg(stub::differs(again.bytes, send.seed).empty(), "%s",
                  stub::differs(again.bytes, send.seed).c_str());
    const stub::Completion *sent = stub::completion_of(0, send.channel.get());
    ck_assert_msg(sent != nullptr && sent->status == MERIDIAN_SUCCESS,
                  "the send started again did not complete well");

    // Dropped by the base, then freed: nothing to withdraw.
    self->hold = true;
    Send dropped(0, 0x41, 2, 1, 3 * eager_limit, 3 * eager_limit);
    self->send(dropped);
    ck_assert_uint_eq(self->held.size(), 2);
    stub::set_current(0);
    self->t->drop(self->t, 0, self->held[1].message);
    stub::abandoned(*dropped.channel);
    self->t->cancel(self->t, dropped.channel.get(), 1);
    ck_assert_msg(!last_arrival().withdrawn, "a message the base dropped was withdrawn");
    ck_assert_ptr_null(stub::completion_of(0, dropped.channel.get()));
    ck_assert_text_eq(stub::breaches(), "");
    finalize(*self);
    ck_assert_no_messages();
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("msg_self_transport");
    TCase *tcase = tcase_create("self");
    tcase_add_checked_fixture(tcase, setup, nullptr);
    tcase_set_timeout(tcase, 60);
    tcase_add_test(tcase, it_offers_this_process_alone);
    tcase_add_loop_test(tcase, messages_arrive_whole_in_order_with_their_tags, 0,
                        static_cast<int>(std::size(piece_blocks)));
    tcase_add_loop_test(tcase, an_announced_message_waits_for_its_receive, 0,
                        static_cast<int>(std::size(piece_blocks)));
    tcase_add_loop_test(tcase, a_receive_of_another_size_takes_an_announced_message, 0,
                        static_cast<int>(std::size(mismatches)));
    tcase_add_test(tcase, a_freed_send_is_withdrawn);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

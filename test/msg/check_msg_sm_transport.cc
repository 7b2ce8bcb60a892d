// SPDX-License-Identifier: BSD-3-Clause
// The sm transport (components/msg_sm, compiled in) against a stub base
// (msg_stub_base.hpp), its ranks in one process: messages through the
// rings, rendezvous copied with CMA (whole, or in halves by both sides) and
// rendezvous sent through the ring after all (the receive's blocks too
// fine) arrive whole, in order and with their tags, every pair both ways
// at once; a peer that published no segment is refused with why; what a
// rank sent is there after its finalize.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "components/msg_sm/msg_sm_transport.hpp"
#include "test/msg/msg_stub_base.hpp"
#include "test/msg/msg_stub_checks.hpp"
#include "test/support/meridian_test.hpp"

namespace sm = meridian::msg_sm;
namespace stub = msg_stub;

using namespace std::chrono_literals;
using msg_stub::arrived;
using msg_stub::check_delivered;
using msg_stub::completed;
using msg_stub::progress_of;
using msg_stub::Send;

namespace
{

using Transports = std::vector<std::unique_ptr<sm::Transport>>;

void setup()
{
    meridian_test::isolate_mca_environment();
    meridian_test::capture_messages();
}

// The component's defaults (msg_sm_component.cc); without CMA every
// message goes through the rings, as the component sets it.  The wait
// limit (finalize's bound) is 10 s.
sm::Params params_with(bool cma)
{
    sm::Params params;
    params.cma = cma;
    params.eager_limit = cma ? 8192 : SIZE_MAX;
    params.split_limit = 32768;
    params.cma_min_block = 2048;
    params.slots = 0;
    params.slot_bytes = 4096;
    params.timeout_s = 10;
    return params;
}

std::unique_ptr<sm::Transport> make_transport(int r, const sm::Params &params)
{
    auto transport = std::make_unique<sm::Transport>(params);
    sm::Transport *t = transport.get();
    stub::Hooks &hooks = stub::rank(r).hooks;
    hooks.progress = [t] { return t->progress(); };
    hooks.prepare = [t](mca_msg_channel_t &channel) { return t->prepare(channel); };
    hooks.cleanup = [t](mca_msg_channel_t &channel) { t->cleanup(channel); };
    hooks.take = [t](mca_msg_channel_t &recv, void *message) {
        return t->take(recv, std::unique_ptr<sm::Rndv>(static_cast<sm::Rndv *>(message)));
    };
    hooks.drop = [t](int, void *message) {
        t->drop(std::unique_ptr<sm::Rndv>(static_cast<sm::Rndv *>(message)));
    };
    hooks.cancel = [t](mca_msg_channel_t &channel, bool alive) { t->cancel(channel, alive); };
    hooks.peer_died = [t](int peer) { t->peer_died(peer); };
    hooks.path_name = [t](int peer) { return std::string(t->path_name(peer)); };
    return transport;
}

// The ranks' transports and the sends declared on each.
struct Job {
    Transports transports;
    std::vector<std::pair<int, Send *>> declared;

    void start_send(int r, Send &send)
    {
        sm::Transport &t = *transports[static_cast<std::size_t>(r)];
        stub::set_current(r);
        ck_assert_int_eq(t.prepare(*send.channel), MERIDIAN_SUCCESS);
        declared.emplace_back(r, &send);
        stub::started(*send.channel);
        t.send(*send.channel);
    }

    // Rank r's channels go (its sends, the stub's receives), then its
    // finalize and its transport (as the component's finalize), the others
    // progressing meanwhile; how long that took.
    std::chrono::milliseconds finalize(int r)
    {
        std::unique_ptr<sm::Transport> &t = transports[static_cast<std::size_t>(r)];
        stub::set_current(r);
        for (const auto &[rank, send] : declared) {
            if (rank == r) {
                t->cleanup(*send->channel);
            }
        }
        stub::cleanup_receives(r);
        const auto took = stub::finalize_alongside(r, [&t] {
            t->finalize();
            t.reset();
        });
        stub::rank(r).hooks = {};
        return took;
    }

    void finalize_all(std::chrono::milliseconds bound)
    {
        for (std::size_t r = 0; r < transports.size(); ++r) {
            if (transports[r]) {
                const auto took = finalize(static_cast<int>(r));
                ck_assert_msg(took < bound, "rank %zu's finalize took %lld ms", r,
                              static_cast<long long>(took.count()));
            }
        }
    }
};

// Each rank's init, connect and ready, the stub's modex shared between the
// rounds as the base's exchanges would.
Job bring_up(int size, const sm::Params &params)
{
    stub::make_world(size);
    Job job;
    for (int r = 0; r < size; ++r) {
        job.transports.push_back(make_transport(r, params));
        stub::set_current(r);
        const auto peers = stub::peers_of(r);
        ck_assert_int_eq(job.transports.back()->init(stub::job(r), peers.data()), MERIDIAN_SUCCESS);
    }
    for (int r = 0; r < size; ++r) {
        stub::set_current(r);
        ck_assert_int_eq(job.transports[static_cast<std::size_t>(r)]->connect(), MERIDIAN_SUCCESS);
    }
    for (int r = 0; r < size; ++r) {
        stub::set_current(r);
        ck_assert_int_eq(job.transports[static_cast<std::size_t>(r)]->ready(), MERIDIAN_SUCCESS);
    }
    return job;
}

// How rank 1 receives: with CMA into one block; with CMA into 72-byte
// blocks (a rendezvous comes through the ring then); without CMA.
struct Variant {
    const char *name;
    bool cma;
    std::size_t receive_block;
};
const Variant variants[] = {
    {"cma", true, 0}, {"cma, 72-byte receive blocks", true, 72}, {"no cma", false, 0}};

// Rank 0's messages to rank 1: empty, short, the eager limit, a rendezvous
// below the split size and one above it, a tag with every high bit,
// 72-byte blocks (through the ring, whatever their size) and 8 KiB blocks
// (a rendezvous), each sent once the one before completed and then all at
// once.
START_TEST(messages_arrive_whole_in_order_with_their_tags)
{
    const Variant &v = variants[_i];
    Job job = bring_up(2, params_with(v.cma));
    stub::rank(1).piece_block = v.receive_block;
    std::vector<std::unique_ptr<Send>> sends;
    for (int round = 0; round < 2; ++round) {
        const unsigned seed = round * 10;
        std::vector<Send *> batch;
        const auto add = [&](std::uint64_t tag, std::size_t count, std::size_t block,
                             std::size_t stride) {
            sends.push_back(std::make_unique<Send>(
                1, tag, seed + static_cast<unsigned>(batch.size()), count, block, stride));
            batch.push_back(sends.back().get());
        };
        add(0x10, 1, 0, 0);
        add(0x11, 1, 100, 100);
        add(0x12, 1, 8192, 8192);
        add(0x13, 1, 20 << 10, 20 << 10);
        add(0x14, 1, 1 << 20, 1 << 20);
        add(0xfedcba9876543210ULL, 1, 8, 8);
        add(0x15, 3000, 72, 96);
        add(0x16, 40, 8192, 12288);
        const std::size_t before = stub::arrivals_from(1, 0).size();
        for (Send *send : batch) {
            job.start_send(0, *send);
            if (round == 0) {
                ck_assert_msg(stub::drive([&] { return completed(0, {send}); }),
                              "%s: the send of %zu bytes did not complete", v.name,
                              send->blocks.nbytes);
            }
        }
        std::vector<Send *> all;
        for (const auto &send : sends) {
            all.push_back(send.get());
        }
        ck_assert_msg(stub::drive([&] { return arrived(1, 0, all) && completed(0, all); }),
                      "%s, round %d (%zu arrived before): after 20 s: %s", v.name, round, before,
                      progress_of(0, 1, all).c_str());
        check_delivered(0, 1, all);
    }
    // Through CMA, announced to the base: coarse messages past the eager
    // limit; the rest came through the ring.
    const auto got = stub::arrivals_from(1, 0);
    for (std::size_t i = 0; i < sends.size(); ++i) {
        const stub::Channel &c = *sends[i]->channel;
        const bool rendezvous = v.cma && c.nbytes > 8192 && c.nbytes >= 2048 * c.iovcnt;
        ck_assert_msg((got[i]->announced != nullptr) == rendezvous,
                      "%s: message %zu (%zu bytes in %zu blocks) was %s", v.name, i, c.nbytes,
                      c.iovcnt, got[i]->announced != nullptr ? "announced" : "not announced");
    }
    ck_assert_text_eq(stub::rank(0).hooks.path_name(1), v.cma ? "sm+cma" : "sm");
    ck_assert_text_eq(stub::breaches(), "");
    job.finalize_all(5s);
    ck_assert_no_messages();
}
END_TEST

// Three ranks that each send to both others at once: short, a rendezvous
// of 256 KiB (an exchange: neither side splits), 72-byte blocks.
START_TEST(every_pair_both_ways_at_once)
{
    Job job = bring_up(3, params_with(true));
    std::vector<std::unique_ptr<Send>> sends;
    std::vector<std::vector<Send *>> between(9); // [from * 3 + to]
    unsigned seed = 1;
    for (int from = 0; from < 3; ++from) {
        for (int to = 0; to < 3; ++to) {
            if (from == to) {
                continue;
            }
            auto &list = between[static_cast<std::size_t>(from * 3 + to)];
            for (const std::size_t size : {std::size_t{100}, std::size_t{256} << 10}) {
                sends.push_back(std::make_unique<Send>(to, 0x20 + static_cast<std::uint64_t>(from),
                                                       seed++, 1, size, size));
                list.push_back(sends.back().get());
            }
            sends.push_back(std::make_unique<Send>(to, 0x30, seed++, 500, 72, 80));
            list.push_back(sends.back().get());
        }
    }
    for (int from = 0; from < 3; ++from) {
        for (int to = 0; to < 3; ++to) {
            for (Send *send : between[static_cast<std::size_t>(from * 3 + to)]) {
                job.start_send(from, *send);
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
    job.finalize_all(5s);
    ck_assert_no_messages();
}
END_TEST

START_TEST(a_peer_without_a_segment_fails_connect_with_why)
{
    stub::make_world(2);
    Transports transports;
    for (int r = 0; r < 2; ++r) {
        transports.push_back(make_transport(r, params_with(true)));
        stub::set_current(r);
        const auto peers = stub::peers_of(r);
        ck_assert_int_eq(transports.back()->init(stub::job(r), peers.data()), MERIDIAN_SUCCESS);
    }
    ck_assert_uint_eq(stub::rank(1).modex.erase("sm.seg"), 1);
    stub::set_current(0);
    ck_assert_int_eq(transports[0]->connect(), MERIDIAN_ERR_UNREACH);
    ck_assert_messages(
        ERROR_MSG("msg sm: rank 1 (node stub-node, path sm) published no shared-memory segment"));
    for (int r = 0; r < 2; ++r) {
        stub::set_current(r);
        const auto begin = std::chrono::steady_clock::now();
        transports[static_cast<std::size_t>(r)]->finalize();
        ck_assert(std::chrono::steady_clock::now() - begin < 1s);
    }
    ck_assert_text_eq(stub::breaches(), "");
}
END_TEST

// Rank 0's sends complete while rank 1 is busy elsewhere (they are whole in
// its ring to rank 1), and rank 0 finalizes and goes; rank 1 finds every
// message afterwards.  Then the same with a message more than the ring
// holds: its send completes only as rank 1 drains it.
const std::size_t last_blocks[] = {1600, 32768};

START_TEST(what_was_sent_arrives_after_the_sender_finalized)
{
    Job job = bring_up(2, params_with(true));
    std::vector<std::unique_ptr<Send>> sends;
    sends.push_back(std::make_unique<Send>(1, 0x40, 1, 1, 100, 100));
    sends.push_back(std::make_unique<Send>(1, 0x41, 2, 1, 8000, 8000));
    sends.push_back(std::make_unique<Send>(1, 0x42, 3, 1, 0, 0));
    sends.push_back(std::make_unique<Send>(1, 0x43, 4, last_blocks[_i], 64, 64));
    std::vector<Send *> all;
    for (const auto &send : sends) {
        all.push_back(send.get());
        job.start_send(0, *send);
    }
    std::chrono::milliseconds took{};
    if (_i == 0) {
        ck_assert_msg(stub::drive_alone(0, [&] { return completed(0, all); }),
                      "rank 0's sends are not in the ring: %s", progress_of(0, 1, all).c_str());
        // Rank 1 is still busy while rank 0 finalizes and goes.
        auto progress = std::move(stub::rank(1).hooks.progress);
        stub::rank(1).hooks.progress = nullptr;
        took = job.finalize(0);
        stub::rank(1).hooks.progress = std::move(progress);
        ck_assert_uint_eq(stub::arrivals_from(1, 0).size(), 0);
    } else {
        ck_assert_msg(stub::drive([&] { return completed(0, all); }), "after 20 s: %s",
                      progress_of(0, 1, all).c_str());
        took = job.finalize(0);
    }
    ck_assert_msg(took < 1s, "rank 0's finalize took %lld ms",
                  static_cast<long long>(took.count()));
    ck_assert_msg(stub::drive([&] { return arrived(1, 0, all); }),
                  "after rank 0's finalize and 20 s: %s", progress_of(0, 1, all).c_str());
    check_delivered(0, 1, all);
    ck_assert_text_eq(stub::breaches(), "");
    job.finalize_all(1s);
    ck_assert_no_messages();
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("msg_sm_transport");
    TCase *tcase = tcase_create("sm");
    tcase_add_checked_fixture(tcase, setup, nullptr);
    tcase_set_timeout(tcase, 60);
    tcase_add_loop_test(tcase, messages_arrive_whole_in_order_with_their_tags, 0,
                        static_cast<int>(std::size(variants)));
    tcase_add_test(tcase, every_pair_both_ways_at_once);
    tcase_add_test(tcase, a_peer_without_a_segment_fails_connect_with_why);
    tcase_add_loop_test(tcase, what_was_sent_arrives_after_the_sender_finalized, 0,
                        static_cast<int>(std::size(last_blocks)));
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

// SPDX-License-Identifier: BSD-3-Clause
// The tcp transport's handshake (components/msg_tcp/msg_tcp_auth.cc, compiled
// in): a hello proved by its rank's key is taken once; every other hello is
// refused with the reason; an answer counts only when proved by the
// listener's key for the hello it answers.
#include <cstring>
#include <string>
#include <vector>

#include "components/msg_tcp/msg_tcp_auth.hpp"
#include "test/support/meridian_test.hpp"

namespace tcp = meridian::msg_tcp;

namespace
{

constexpr std::uint64_t job = 0x1234abcd5678ef00ULL;

// A job of 4: ranks 0-2 on the tcp path, rank 3 reached another way; this
// process is rank 1.
struct Job {
    std::vector<tcp::Key> keys;
    Job()
    {
        for (int r = 0; r < 4; ++r) {
            auto key = tcp::new_key();
            ck_assert(static_cast<bool>(key));
            keys.push_back(*key);
        }
    }
    tcp::HelloChecker checker() const
    {
        return tcp::HelloChecker(
            tcp::HelloPolicy{job, 1, 4, [this](std::uint32_t rank) -> const tcp::Key * {
                                 return rank < 3 && rank != 1 ? &keys[rank] : nullptr;
                             }});
    }
};

std::string refusal(tcp::HelloChecker &checker, const tcp::HelloBytes &bytes)
{
    auto hello = checker.check(bytes);
    return hello ? std::string("accepted") : hello.error().message;
}

START_TEST(a_proved_hello_is_taken_once)
{
    Job j;
    auto checker = j.checker();
    const tcp::Hello sent{2, 1, tcp::new_nonce()};
    const auto bytes = tcp::make_hello(j.keys[2], job, sent);
    auto hello = checker.check(bytes);
    ck_assert_msg(static_cast<bool>(hello), "%s", hello ? "" : hello.error().message.c_str());
    ck_assert_uint_eq(hello->from, 2);
    ck_assert_uint_eq(hello->to, 1);
    ck_assert(hello->nonce == sent.nonce);
    ck_assert(static_cast<bool>(checker.admit(*hello)));
    ck_assert_uint_eq(checker.remembered(), 1);
    // The same bytes again: proved, but a replay.
    auto again = checker.check(bytes);
    ck_assert(static_cast<bool>(again));
    auto replay = checker.admit(*again);
    ck_assert(!replay);
    ck_assert_text_eq(replay.error().message,
                      "it proves it is rank 2 with a greeting this process accepted before (a "
                      "replay)");
    // A fresh nonce is a new hello.
    const auto fresh = tcp::make_hello(j.keys[2], job, tcp::Hello{2, 1, tcp::new_nonce()});
    auto second = checker.check(fresh);
    ck_assert(static_cast<bool>(second) && static_cast<bool>(checker.admit(*second)));
}
END_TEST

START_TEST(a_hello_that_proves_nothing_is_refused_with_why)
{
    Job j;
    auto checker = j.checker();
    const tcp::Nonce nonce = tcp::new_nonce();
    // Rank 0's hello made with rank 2's key; another job's; made-up keys.
    ck_assert_text_eq(refusal(checker, tcp::make_hello(j.keys[2], job, tcp::Hello{0, 1, nonce})),
                      "it claims rank 0 but does not prove it holds that rank's key");
    ck_assert_text_eq(
        refusal(checker, tcp::make_hello(j.keys[0], job ^ 1, tcp::Hello{0, 1, nonce})),
        "it claims rank 0 but does not prove it holds that rank's key");
    for (int i = 0; i < 100; ++i) {
        auto guess = tcp::new_key();
        ck_assert_text_eq(refusal(checker, tcp::make_hello(*guess, job, tcp::Hello{0, 1, nonce})),
                          "it claims rank 0 but does not prove it holds that rank's key");
    }
    // One bit changed anywhere in the nonce or the proof.
    const auto good = tcp::make_hello(j.keys[0], job, tcp::Hello{0, 1, nonce});
    for (std::size_t at = 16; at < tcp::hello_bytes; ++at) {
        auto flipped = good;
        flipped[at] ^= std::byte{0x10};
        ck_assert_text_eq(refusal(checker, flipped),
                          "it claims rank 0 but does not prove it holds that rank's key");
    }
    ck_assert_text_eq(refusal(checker, good), "accepted");
    ck_assert_uint_eq(checker.remembered(), 0); // check alone spends no nonce
}
END_TEST

START_TEST(malformed_hellos_are_refused_with_why)
{
    Job j;
    auto checker = j.checker();
    const tcp::Nonce nonce = tcp::new_nonce();
    auto bytes = tcp::make_hello(j.keys[0], job, tcp::Hello{0, 1, nonce});
    auto bad = bytes;
    std::memcpy(bad.data(), "GET ", 4);
    ck_assert_text_eq(refusal(checker, bad),
                      "it is not a Meridian tcp greeting (it begins 0x20544547)");
    bad = bytes;
    bad[4] = std::byte{9};
    ck_assert_text_eq(refusal(checker, bad), "it speaks version 9 of the greeting, this process 1");
    ck_assert_text_eq(refusal(checker, tcp::make_hello(j.keys[0], job, tcp::Hello{7, 1, nonce})),
                      "it claims rank 7, the job has ranks 0-3");
    ck_assert_text_eq(refusal(checker, tcp::make_hello(j.keys[0], job, tcp::Hello{0, 2, nonce})),
                      "it claims rank 0 and is meant for rank 2, this is rank 1");
    ck_assert_text_eq(refusal(checker, tcp::make_hello(j.keys[3], job, tcp::Hello{3, 1, nonce})),
                      "it claims rank 3, which does not reach this process by the tcp transport");
    ck_assert_text_eq(refusal(checker, tcp::make_hello(j.keys[1], job, tcp::Hello{1, 1, nonce})),
                      "it claims rank 1, which does not reach this process by the tcp transport");
    tcp::HelloBytes zeros{};
    ck_assert_text_eq(refusal(checker, zeros),
                      "it is not a Meridian tcp greeting (it begins 0x00000000)");
}
END_TEST

START_TEST(an_answer_counts_only_from_the_listener)
{
    Job j;
    const tcp::Hello hello{2, 1, tcp::new_nonce()};
    for (const char verdict : {tcp::verdict_yes, tcp::verdict_no}) {
        const auto answer = tcp::make_answer(j.keys[1], job, hello, verdict);
        auto got = tcp::check_answer(answer, j.keys[1], job, hello);
        ck_assert(static_cast<bool>(got));
        ck_assert_int_eq(*got, verdict);
    }
    const auto yes = tcp::make_answer(j.keys[1], job, hello, tcp::verdict_yes);
    // Another key, another nonce, a changed verdict, the hello's own proof
    // sent back (a reflection): none counts.
    const std::string wrong = "its answer does not prove it holds rank 1's key";
    auto other_key = tcp::check_answer(yes, j.keys[2], job, hello);
    ck_assert(!other_key);
    ck_assert_text_eq(other_key.error().message, wrong);
    auto other_nonce = tcp::check_answer(yes, j.keys[1], job, tcp::Hello{2, 1, tcp::new_nonce()});
    ck_assert(!other_nonce);
    ck_assert_text_eq(other_nonce.error().message, wrong);
    auto flipped = yes;
    flipped[0] = static_cast<std::byte>(tcp::verdict_no);
    auto changed = tcp::check_answer(flipped, j.keys[1], job, hello);
    ck_assert(!changed);
    ck_assert_text_eq(changed.error().message, wrong);
    const auto own = tcp::make_hello(j.keys[1], job, hello);
    tcp::AnswerBytes reflected{};
    reflected[0] = static_cast<std::byte>(tcp::verdict_yes);
    std::memcpy(reflected.data() + 8, own.data() + 16 + tcp::nonce_bytes, tcp::mac_bytes);
    auto reflection = tcp::check_answer(reflected, j.keys[1], job, hello);
    ck_assert(!reflection);
    ck_assert_text_eq(reflection.error().message, wrong);
    auto padded = yes;
    padded[3] = std::byte{1};
    auto bad_padding = tcp::check_answer(padded, j.keys[1], job, hello);
    ck_assert(!bad_padding);
    ck_assert_text_eq(bad_padding.error().message, "its answer is not a Meridian tcp answer");
    tcp::AnswerBytes junk{};
    junk[0] = std::byte{'?'};
    auto not_an_answer = tcp::check_answer(junk, j.keys[1], job, hello);
    ck_assert(!not_an_answer);
    ck_assert_text_eq(not_an_answer.error().message, "its answer is not a Meridian tcp answer");
}
END_TEST

START_TEST(keys_and_nonces_are_fresh)
{
    auto a = tcp::new_key();
    auto b = tcp::new_key();
    ck_assert(static_cast<bool>(a) && static_cast<bool>(b));
    ck_assert(*a != *b);
    ck_assert(tcp::new_nonce() != tcp::new_nonce());
    ck_assert(*a != tcp::Key{});
    ck_assert_uint_eq(tcp::job_id("ns-1"), tcp::job_id("ns-1"));
    ck_assert_uint_ne(tcp::job_id("ns-1"), tcp::job_id("ns-2"));
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("msg_tcp_auth");
    TCase *tcase = tcase_create("handshake");
    tcase_add_test(tcase, a_proved_hello_is_taken_once);
    tcase_add_test(tcase, a_hello_that_proves_nothing_is_refused_with_why);
    tcase_add_test(tcase, malformed_hellos_are_refused_with_why);
    tcase_add_test(tcase, an_answer_counts_only_from_the_listener);
    tcase_add_test(tcase, keys_and_nonces_are_fresh);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

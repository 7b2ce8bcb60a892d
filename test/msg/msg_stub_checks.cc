// SPDX-License-Identifier: BSD-3-Clause
#include "test/msg/msg_stub_checks.hpp"

#include "test/support/meridian_test.hpp"

namespace msg_stub
{

Send::Send(int to, std::uint64_t tag, unsigned seed_, std::size_t count, std::size_t block,
           std::size_t stride)
    : seed(seed_), blocks(count, block, stride)
{
    blocks.fill(seed);
    channel = make_channel(MCA_MSG_SEND, to, tag, blocks.iov);
}

bool arrived(int to, int from, const std::vector<Send *> &sends)
{
    const auto got = arrivals_from(to, from);
    if (got.size() < sends.size()) {
        return false;
    }
    for (const Arrival *a : got) {
        if (!a->whole()) {
            return false;
        }
    }
    return true;
}

bool completed(int r, const std::vector<Send *> &sends)
{
    for (const Send *send : sends) {
        if (completion_of(r, send->channel.get()) == nullptr) {
            return false;
        }
    }
    return true;
}

std::string progress_of(int from, int to, const std::vector<Send *> &sends)
{
    const auto got = arrivals_from(to, from);
    std::string text = "rank " + std::to_string(to) + " has " + std::to_string(got.size()) +
                       " of the " + std::to_string(sends.size()) + " messages of rank " +
                       std::to_string(from);
    if (!got.empty()) {
        text += " (the last: " + std::to_string(got.back()->got) + " of " +
                std::to_string(got.back()->total) + " bytes)";
    }
    std::size_t done = 0;
    for (const Send *send : sends) {
        done += completion_of(from, send->channel.get()) != nullptr ? 1 : 0;
    }
    return text + "; rank " + std::to_string(from) + " completed " + std::to_string(done) +
           " of its sends";
}

void check_delivered(int from, int to, const std::vector<Send *> &sends)
{
    const auto got = arrivals_from(to, from);
    ck_assert_msg(got.size() == sends.size(), "rank %d got %zu messages from rank %d, sent %zu", to,
                  got.size(), from, sends.size());
    for (std::size_t i = 0; i < sends.size(); ++i) {
        const Send &send = *sends[i];
        const Arrival &a = *got[i];
        ck_assert_msg(a.tag == send.channel->tag,
                      "message %zu from rank %d to rank %d has tag 0x%llx, sent with 0x%llx", i,
                      from, to, static_cast<unsigned long long>(a.tag),
                      static_cast<unsigned long long>(send.channel->tag));
        ck_assert_msg(a.total == send.blocks.nbytes && a.got == a.total && a.whole(),
                      "message %zu from rank %d to rank %d: %zu of %llu bytes in, %zu sent", i,
                      from, to, a.got, static_cast<unsigned long long>(a.total),
                      send.blocks.nbytes);
        const std::string wrong = differs(a.bytes, send.seed);
        ck_assert_msg(wrong.empty(), "message %zu from rank %d to rank %d: %s", i, from, to,
                      wrong.c_str());
        const Completion *c = completion_of(from, send.channel.get());
        ck_assert_msg(c != nullptr, "send %zu of rank %d never completed", i, from);
        ck_assert_msg(c->status == MERIDIAN_SUCCESS, "send %zu of rank %d completed with %d", i,
                      from, c->status);
        ck_assert_text_eq(send.blocks.gaps_intact(), "");
    }
}

} // namespace msg_stub

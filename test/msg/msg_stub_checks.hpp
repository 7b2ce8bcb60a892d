// SPDX-License-Identifier: BSD-3-Clause
// Checks on what the stub base (msg_stub_base.hpp) recorded of transports
// that hand their messages to the base's matching (tcp, sm): sends from
// one rank to another, whether they all arrived, and a Check failure that
// names what is wrong when they did not arrive whole, in order and with
// their tags.
#ifndef MERIDIAN_TEST_MSG_MSG_STUB_CHECKS_HPP
#define MERIDIAN_TEST_MSG_MSG_STUB_CHECKS_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "test/msg/msg_stub_base.hpp"

namespace msg_stub
{

// A message one rank sends: its memory (`count` blocks of `block` bytes,
// `stride` apart, filled from `seed`) and its channel.
struct Send {
    unsigned seed;
    Blocks blocks;
    std::unique_ptr<Channel> channel;

    Send(int to, std::uint64_t tag, unsigned seed_, std::size_t count, std::size_t block,
         std::size_t stride);
};

// Whether rank `to` has every message of `sends` from rank `from`, whole.
bool arrived(int to, int from, const std::vector<Send *> &sends);
// Whether rank r completed every send of `sends`.
bool completed(int r, const std::vector<Send *> &sends);
// What rank `to` has of rank `from`'s messages and how many sends rank
// `from` completed, for a failure report.
std::string progress_of(int from, int to, const std::vector<Send *> &sends);
// Fails the test unless every message of `sends` is at rank `to`, in
// order, with its tag and every byte, and each send completed once, well,
// its memory untouched.
void check_delivered(int from, int to, const std::vector<Send *> &sends);

} // namespace msg_stub

#endif

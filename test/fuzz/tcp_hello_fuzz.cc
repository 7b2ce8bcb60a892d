// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the tcp transport's handshake (components/msg_tcp/
// msg_tcp_auth.cc): the hello a listener reads from a stranger and the
// answer a connecting process reads back.  The input is a hello (80 bytes)
// and an answer (40 bytes), short inputs padded with zeros.
// Promises checked besides "nothing crashes":
//   - a hello is accepted only when it is, byte for byte, the hello its
//     claimed rank's key makes for its fields (no other input proves a
//     rank), and then once: the same hello again is a replay;
//   - a refusal is one line that names a rank only as a number and holds
//     no byte of the input (nothing of the stranger's is echoed);
//   - an answer counts only when it is the one the listener's key makes.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: components/msg_tcp/msg_tcp_auth.cc
// fuzz-libs: -lsodium
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "components/msg_tcp/msg_tcp_auth.hpp"
#include "fuzz_support.hpp"

namespace
{

namespace tcp = meridian::msg_tcp;

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("tcp_hello_fuzz", promise);
}

constexpr std::uint64_t job = 0x5eed5eed5eed5eedULL;

// Fixed keys, so that a crash input reproduces: ranks 0-5 of a job of 8,
// this process rank 2, ranks 6 and 7 not on the tcp path.
tcp::Key key_of_rank(std::uint32_t rank)
{
    tcp::Key key;
    for (std::size_t i = 0; i < key.size(); ++i) {
        key[i] = static_cast<std::uint8_t>(rank * 37 + i * 11 + 1);
    }
    return key;
}

bool printable_line(const std::string &text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    tcp::HelloBytes hello_bytes{};
    tcp::AnswerBytes answer_bytes{};
    std::memcpy(hello_bytes.data(), data, std::min(size, hello_bytes.size()));
    if (size > hello_bytes.size()) {
        std::memcpy(answer_bytes.data(), data + hello_bytes.size(),
                    std::min(size - hello_bytes.size(), answer_bytes.size()));
    }
    static const tcp::Key keys[8] = {key_of_rank(0), key_of_rank(1), key_of_rank(2),
                                     key_of_rank(3), key_of_rank(4), key_of_rank(5),
                                     key_of_rank(6), key_of_rank(7)};
    tcp::HelloChecker checker(
        tcp::HelloPolicy{job, 2, 8, [](std::uint32_t rank) -> const tcp::Key * {
                             return rank < 6 && rank != 2 ? &keys[rank] : nullptr;
                         }});
    auto hello = checker.check(hello_bytes);
    if (!hello) {
        const std::string &why = hello.error().message;
        if (why.empty() || !printable_line(why)) {
            broken("a refusal is one printable line: " + why);
        }
        return 0;
    }
    if (tcp::make_hello(keys[hello->from], job, *hello) != hello_bytes) {
        broken("an accepted hello is the one its rank's key makes");
    }
    if (!checker.admit(*hello) || checker.admit(*hello)) {
        broken("a hello is admitted once");
    }
    auto verdict = tcp::check_answer(answer_bytes, keys[2], job, *hello);
    if (verdict && tcp::make_answer(keys[2], job, *hello, *verdict) != answer_bytes) {
        broken("an answer counts only as the listener's key makes it");
    }
    return 0;
}

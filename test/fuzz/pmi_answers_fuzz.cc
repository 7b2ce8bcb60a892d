// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for what a PMI-1 or PMI-2 launcher answers
// (opal/runtime/pmi_client.cc): the input is everything the server says,
// and the client goes through a datastore's life over it twice, asking for
// PMI-1 and then for PMI-2 (or 1.1) -- init (version, limits, key space,
// fullinit's rank and size), the node map, a value put in pieces, one read
// back in pieces, a barrier, abort, finalize -- until the answers run out.
// Promises checked besides "nothing crashes" and "nothing waits" (the
// server's end closes once the input is sent):
//   - a refusal is one non-empty line of printable UTF-8;
//   - a PMI-2 init that succeeds gives a rank below a size;
//   - a node map parse_mapping accepts has a node for each rank;
//   - text from_text accepts is what to_text makes of its bytes, or another
//     spelling of them (to_text of them is accepted again, to the same bytes).
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: opal/runtime/pmi_client.cc opal/util/strings.cc
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "opal/runtime/pmi_client.hpp"

namespace
{

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("pmi_answers_fuzz", promise);
}

// What a refusal must be.
template <typename R> void check_refusal(const R &result)
{
    if (!result && !meridian::fuzz::one_printable_line(result.error().message)) {
        broken("a refusal is one printable line: \"" + result.error().message + "\"");
    }
}

// One datastore's life over `data` as the server's words, in the version
// `ask` asks for.
void live(const std::uint8_t *data, std::size_t size, meridian::pmi::Client::Ask ask)
{
    using namespace meridian;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        return;
    }
    for (std::size_t sent = 0; sent < size;) {
        const ssize_t n = write(pair[1], data + sent, size - sent);
        if (n <= 0) {
            break;
        }
        sent += static_cast<std::size_t>(n);
    }
    shutdown(pair[1], SHUT_WR);
    {
        pmi::Client client(pair[0], std::chrono::milliseconds(1000));
        const auto init = client.init(ask, 1, "7");
        check_refusal(init);
        if (init && client.version() == 2 &&
            (client.given_size() == 0 || client.given_rank() >= client.given_size())) {
            broken("a PMI-2 init that succeeds gives a rank below a size");
        }
        if (init) {
            auto mapping = client.job_attribute("PMI_process_mapping");
            check_refusal(mapping);
            if (mapping) {
                for (std::uint32_t ranks : {1U, 4U, 64U}) {
                    auto nodes = pmi::parse_mapping(*mapping, ranks);
                    if (nodes && nodes->size() != ranks) {
                        broken("a node map has a node for each of " + std::to_string(ranks) +
                               " ranks, not " + std::to_string(nodes->size()));
                    }
                }
                if (auto bytes = pmi::from_text(*mapping)) {
                    auto again = pmi::from_text(pmi::to_text(*bytes));
                    if (!again || *again != *bytes) {
                        broken("to_text of accepted text reads back to its bytes");
                    }
                }
            }
            const pmi::Bytes value(3000, 0x5a);
            check_refusal(client.put_value(client.key_for(0, "meridian.msg.offers"), value));
            check_refusal(client.get_value(client.key_for(1, "meridian.msg.offers")));
            check_refusal(client.barrier());
            check_refusal(client.abort(3));
        }
        client.finalize(std::chrono::milliseconds(0));
    }
    close(pair[1]);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    // What fits a socket's buffer, so that sending it never waits.
    size = std::min<std::size_t>(size, 60000);
    live(data, size, meridian::pmi::Client::Ask::v1);
    live(data, size, meridian::pmi::Client::Ask::v2_or_v1);
    return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for the allocation request parser (mca/pnet/base/request.cc).
// Promises checked besides "nothing crashes":
//   - an error is one line "req:COL: ..." at a column inside the text or
//     just past its end;
//   - parsed requests have an id each, all different, and written by
//     format_request (joined with ';') read back equal.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: mca/pnet/base/request.cc opal/class/fabric.cc opal/class/fabric_address.cc
// fuzz-sources: opal/class/port_ranges.cc opal/class/weighted_graph.cc opal/util/strings.cc
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include <meridian/mca/pnet/base/request.hpp>

namespace
{

using namespace meridian::pnet;

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("request_fuzz", promise);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    auto parsed = parse_requests(input, "req");
    if (!parsed) {
        const std::string &message = parsed.error().message;
        std::size_t pos = 4;
        std::size_t column = 0;
        while (message.rfind("req:", 0) == 0 && pos < message.size() && message[pos] >= '0' &&
               message[pos] <= '9' && column < 1u << 30) {
            column = column * 10 + static_cast<std::size_t>(message[pos++] - '0');
        }
        if (column == 0 || column > size + 1 || message.compare(pos, 2, ": ") != 0 ||
            message.find('\n') != std::string::npos) {
            broken("the error reads req:COL: ... with a column in the text: " + message);
        }
        return 0;
    }
    std::string written;
    std::set<std::string> ids;
    for (const Request &request : *parsed) {
        if (request.id.empty() || !ids.insert(request.id).second) {
            broken("every request has an id of its own");
        }
        written += (written.empty() ? "" : ";") + format_request(request);
        auto one = parse_request(format_request(request), "one");
        if (!one || !(*one == request)) {
            broken("format_request's text reads back equal: " + format_request(request));
        }
    }
    auto again = parse_requests(written, "written");
    if (!again) {
        broken("format_request's texts parse: " + again.error().message + "\n" + written);
    }
    if (*again != *parsed) {
        broken("format_request's texts read back equal: " + written);
    }
    return 0;
}

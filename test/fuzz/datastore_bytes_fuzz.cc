// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target for a value's bytes (opal/runtime/datastore_bytes.cc):
// what a node's leader hands its node's processes, and decode reads.  The
// input is the bytes.
// Promises checked besides "nothing crashes":
//   - a refusal is one non-empty line of printable UTF-8 (no control
//     character, no stray byte: an entry's key is quoted with escapes);
//   - bytes decode accepts encode back to exactly those bytes (one layout
//     per value: nothing else is accepted), and those decode again.
// Any broken promise aborts with the reason, which libFuzzer reports as a crash.
//
// fuzz-sources: opal/runtime/datastore_bytes.cc opal/util/strings.cc
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "fuzz_support.hpp"
#include <meridian/opal/runtime/datastore.hpp>

namespace
{

[[noreturn]] void broken(const std::string &promise)
{
    meridian::fuzz::broken("datastore_bytes_fuzz", promise);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace meridian::datastore;
    const std::span<const std::uint8_t> input(data, size);
    auto value = decode(input);
    if (!value) {
        if (!meridian::fuzz::one_printable_line(value.error().message)) {
            broken("a refusal is one printable line: \"" + value.error().message + "\"");
        }
        return 0;
    }
    const Bytes again = encode(*value);
    if (!std::equal(again.begin(), again.end(), input.begin(), input.end())) {
        broken("accepted bytes encode back to themselves (" + std::to_string(size) + " bytes in, " +
               std::to_string(again.size()) + " out)");
    }
    if (auto back = decode(again); !back) {
        broken("an encoding decodes: " + back.error().message);
    }
    return 0;
}

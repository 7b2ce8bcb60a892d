// SPDX-License-Identifier: BSD-3-Clause
// The C-boundary guard's default report (c_boundary.hpp).
#include <meridian/opal/util/c_boundary.hpp>

#include <meridian/opal/util/output.h>

namespace meridian::detail
{

void report_boundary_failure(const char *call, const char *why) noexcept
{
    // The C reporter formats on the stack; a message sink that throws (no C
    // sink can, a C++ one might) loses the message rather than the process.
    try {
        meridian_report(MERIDIAN_SEVERITY_ERROR, "%s: %s",
                        call != nullptr ? call : "(unknown call)", why != nullptr ? why : "");
    } catch (...) {
    }
}

} // namespace meridian::detail

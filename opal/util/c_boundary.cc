// The C-boundary guard's default report (c_boundary.hpp).
#include <meridian/opal/util/c_boundary.hpp>

#include <meridian/opal/util/output.h>

namespace meridian::detail {

void report_boundary_failure(const char *call, const char *why) noexcept
{
    // The C reporter formats into a fixed buffer: nothing to allocate here.
    meridian_report(MERIDIAN_SEVERITY_ERROR, "%s: %s", call != nullptr ? call : "(unknown call)",
                    why != nullptr ? why : "");
}

} // namespace meridian::detail

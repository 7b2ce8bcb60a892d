// SPDX-License-Identifier: BSD-3-Clause
// C++ face of output.h.
#ifndef MERIDIAN_UTIL_OUTPUT_HPP
#define MERIDIAN_UTIL_OUTPUT_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string_view>

#include <meridian/opal/util/output.h>

namespace meridian
{

enum class Severity {
    error = MERIDIAN_SEVERITY_ERROR,
    warning = MERIDIAN_SEVERITY_WARNING,
    notice = MERIDIAN_SEVERITY_NOTICE,
    verbose = MERIDIAN_SEVERITY_VERBOSE,
};

void report(Severity severity, std::string_view text);

inline void report_error(std::string_view text)
{
    report(Severity::error, text);
}
inline void report_warning(std::string_view text)
{
    report(Severity::warning, text);
}
inline void report_notice(std::string_view text)
{
    report(Severity::notice, text);
}

} // namespace meridian

#endif

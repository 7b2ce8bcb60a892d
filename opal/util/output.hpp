// SPDX-License-Identifier: BSD-3-Clause
// C++ face of output.h.
#ifndef MERIDIAN_UTIL_OUTPUT_HPP
#define MERIDIAN_UTIL_OUTPUT_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdio>
#include <string>
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

// Where this process's errors, warnings and notices come from, as the
// default sink shows it after the severity: "rank 3 on node2" gives
// "meridian: warning: [rank 3 on node2] ...".  Empty (the default):
// nothing, as for a process alone.  Verbose output goes without it.
void set_message_origin(std::string origin);
std::string message_origin();

// Takes an error, warning or notice before the default sink prints it (never
// a verbose message, never when a sink is set) and returns true when it took
// it: how a job prints what many of its processes say once.  It may be called
// from any thread and must not report.  nullptr: none (the default).
using MessageRouter = bool (*)(Severity severity, std::string_view text);
void set_message_router(MessageRouter router);

// What the default sink prints, with `origin` for this process's; for the
// router, which prints what it took.  Goes to the sink if one is set.
void print_message(Severity severity, std::string_view origin, std::string_view text);

// `line` on `stream` in one write(2) (after what stdio holds of the stream),
// so that lines of processes sharing a launcher's output do not mix: glibc
// 2.37 and later (Debian 13) write an unbuffered stream's fprintf 128 bytes
// at a time, and a launcher forwards each piece as it comes.  Never throws;
// what cannot be written is lost.
void write_whole(std::FILE *stream, std::string_view line) noexcept;

} // namespace meridian

#endif

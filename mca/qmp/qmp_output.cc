// SPDX-License-Identifier: BSD-3-Clause
// Verbosity, QMP's tagged output lines, timing and the version.
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <string>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_msg.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::qmp
{
namespace
{

// The QMP release whose API this is (QMP_version_int's encoding is QMP's).
constexpr int kQmpMajor = 2;
constexpr int kQmpMinor = 5;
constexpr int kQmpBug = 4;
constexpr const char *kQmpVersionBare = "2.5.4"; // the three above

std::atomic<double> total_qmp_time{0.0};

const std::string &host_name()
{
    static util::NoDestructor<std::string> name([] {
        char buffer[256] = {};
        if (gethostname(buffer, sizeof buffer - 1) != 0) {
            return std::string("unknown");
        }
        return std::string(buffer);
    }());
    return name.get();
}

// QMP's line: "QMP m<node>,n<nodes>@<host><tag>: <message>", on every
// process that calls; returns the length of the message, as QMP does.
__attribute__((format(printf, 3, 0))) int print_tagged(FILE *stream, const char *tag,
                                                       const char *format, va_list args)
{
    if (stream == nullptr || format == nullptr) {
        return -1;
    }
    va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    if (length < 0) {
        va_end(again);
        return length;
    }
    std::string message(static_cast<std::size_t>(length) + 1, '\0');
    std::vsnprintf(message.data(), message.size(), format, again);
    va_end(again);
    message.resize(static_cast<std::size_t>(length));

    // Before QMP_init_msg_passing (and after finalize) a process is alone.
    const State &s = state();
    const int node = s.job != nullptr ? s.job->rank : 0;
    const int nodes = s.job != nullptr ? s.job->size : 1;
    // One write per line, so lines of several processes do not interleave.
    const std::string line = "QMP m" + std::to_string(node) + ",n" + std::to_string(nodes) + "@" +
                             host_name() + tag + ": " + message + "\n";
    meridian::write_whole(stream, line);
    return length;
}

__attribute__((format(printf, 1, 2))) int print_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    const int length = print_tagged(stderr, " error", format, args);
    va_end(args);
    return length;
}

} // namespace

void say_error_line(const char *text, const char *note) noexcept
{
    // Nothing recorded when the line cannot be made (no memory): the
    // failure being said stays the caller's last error.
    constexpr CFailure<int> unsaid{-1, -1, [](const char *, const char *) noexcept {}};
    c_boundary("QMP_error", unsaid, [&] { return print_error("%s%s", text, note); });
}

void add_qmp_time(double seconds)
{
    double now = total_qmp_time.load(std::memory_order_relaxed);
    while (!total_qmp_time.compare_exchange_weak(now, now + seconds, std::memory_order_relaxed)) {
    }
}

int profile_level = 0;

} // namespace meridian::qmp

using namespace meridian::qmp;

extern "C" {

int QMP_verbose(int level)
{
    return qmp_boundary(__func__, 0, [&] {
        State &s = state();
        const int old = s.verbose;
        s.verbose = level;
        return old;
    });
}

int QMP_profcontrol(int level)
{
    return qmp_boundary(__func__, 0, [&] {
        const int old = profile_level;
        profile_level = level;
        return old;
    });
}

// The printing calls give -1 when the line cannot be made, as for bad
// arguments.
int QMP_printf(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    const int rc =
        qmp_boundary(__func__, -1, [&] { return print_tagged(stdout, "", format, args); });
    va_end(args);
    return rc;
}

int QMP_fprintf(FILE *stream, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    const int rc =
        qmp_boundary(__func__, -1, [&] { return print_tagged(stream, "", format, args); });
    va_end(args);
    return rc;
}

int QMP_info(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    const int rc =
        qmp_boundary(__func__, -1, [&] { return print_tagged(stdout, " info", format, args); });
    va_end(args);
    return rc;
}

int QMP_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    const int rc =
        qmp_boundary(__func__, -1, [&] { return print_tagged(stderr, " error", format, args); });
    va_end(args);
    return rc;
}

// Wall-clock seconds on the monotonic clock: differences are what QMP
// programs use, and seconds since boot keep sub-microsecond resolution in a
// double (seconds since 1970 would not).  This and the two below are C
// only: no guard needed.
double QMP_time(void)
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

void QMP_reset_total_qmp_time(void)
{
    total_qmp_time.store(0.0, std::memory_order_relaxed);
}

double QMP_get_total_qmp_time(void)
{
    return total_qmp_time.load(std::memory_order_relaxed);
}

// "2.5.4 (Meridian X.Y.Z)": QMP's own string is the bare version, which
// programs print after "QMP version" and parse as "%d.%d.%d"; both still
// work, and the parenthesis says whose QMP it is.  Without memory for it,
// the bare version.
const char *QMP_version_str(void)
{
    return qmp_boundary(__func__, kQmpVersionBare, [] {
        static meridian::util::NoDestructor<std::string> text(
            std::to_string(kQmpMajor) + "." + std::to_string(kQmpMinor) + "." +
            std::to_string(kQmpBug) + " (Meridian " + meridian_version() + ")");
        return text.get().c_str();
    });
}

// QMP's encoding: (MAJOR * 1000 + MINOR) * 1000 + BUG.  C only.
int QMP_version_int(void)
{
    return (kQmpMajor * 1000 + kQmpMinor) * 1000 + kQmpBug;
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/util/output.hpp>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <unistd.h>

namespace
{

struct SinkState {
    meridian_message_sink_fn sink = nullptr;
    void *context = nullptr;
    std::atomic<unsigned long> errors{0};
    std::atomic<meridian::MessageRouter> router{nullptr};
    std::mutex origin_lock; // origin may change while another thread reports
    std::string origin;
};

SinkState &state()
{
    static SinkState s;
    return s;
}

const char *prefix(meridian_severity_t severity)
{
    switch (severity) {
    case MERIDIAN_SEVERITY_ERROR:
        return "meridian: error: ";
    case MERIDIAN_SEVERITY_WARNING:
        return "meridian: warning: ";
    case MERIDIAN_SEVERITY_NOTICE:
        return "meridian: notice: ";
    default:
        return "meridian: ";
    }
}

// One line on standard error: "meridian: warning: [rank 3 on node2] text",
// made here (no allocation: meridian_report never throws) and written whole.
void print_line(meridian_severity_t severity, std::string_view origin, std::string_view text)
{
    char line[4096];
    const int n = origin.empty()
                      ? std::snprintf(line, sizeof line, "%s%.*s\n", prefix(severity),
                                      static_cast<int>(text.size()), text.data())
                      : std::snprintf(line, sizeof line, "%s[%.*s] %.*s\n", prefix(severity),
                                      static_cast<int>(origin.size()), origin.data(),
                                      static_cast<int>(text.size()), text.data());
    if (n < 0) {
        return;
    }
    if (static_cast<std::size_t>(n) < sizeof line) {
        meridian::write_whole(stderr, {line, static_cast<std::size_t>(n)});
        return;
    }
    // Longer than a pipe takes at once anyway: in pieces.
    meridian::write_whole(stderr, prefix(severity));
    if (!origin.empty()) {
        meridian::write_whole(stderr, "[");
        meridian::write_whole(stderr, origin);
        meridian::write_whole(stderr, "] ");
    }
    meridian::write_whole(stderr, text);
    meridian::write_whole(stderr, "\n");
}

void deliver(meridian_severity_t severity, const char *text)
{
    auto &s = state();
    if (severity == MERIDIAN_SEVERITY_ERROR) {
        ++s.errors;
    }
    if (s.sink != nullptr) {
        s.sink(severity, text, s.context);
        return;
    }
    if (severity != MERIDIAN_SEVERITY_VERBOSE) {
        if (const auto router = s.router.load();
            router != nullptr && router(static_cast<meridian::Severity>(severity), text)) {
            return;
        }
    }
    // Verbose output is each process's own and says which one where it
    // matters; the origin is for what a user must act on.
    // (Without memory for the copy, the line goes without its origin:
    // meridian_report, which the C-boundary guard uses, never throws.)
    std::string origin;
    if (severity != MERIDIAN_SEVERITY_VERBOSE) {
        const std::lock_guard guard(s.origin_lock);
        try {
            origin = s.origin;
        } catch (const std::bad_alloc &) {
            origin.clear();
        }
    }
    print_line(severity, origin, text);
}

} // namespace

namespace meridian
{

void report(Severity severity, std::string_view text)
{
    const std::string copy(text);
    deliver(static_cast<meridian_severity_t>(severity), copy.c_str());
}

void set_message_origin(std::string origin)
{
    auto &s = state();
    const std::lock_guard guard(s.origin_lock);
    s.origin = std::move(origin);
}

std::string message_origin()
{
    auto &s = state();
    const std::lock_guard guard(s.origin_lock);
    return s.origin;
}

void set_message_router(MessageRouter router)
{
    state().router.store(router);
}

void print_message(Severity severity, std::string_view origin, std::string_view text)
{
    auto &s = state();
    const auto level = static_cast<meridian_severity_t>(severity);
    if (s.sink != nullptr) {
        const std::string copy(text);
        s.sink(level, copy.c_str(), s.context);
        return;
    }
    print_line(level, origin, text);
}

void write_whole(std::FILE *stream, std::string_view line) noexcept
{
    if (stream == nullptr) {
        return;
    }
    (void)std::fflush(stream);
    const int fd = fileno(stream);
    while (!line.empty() && fd >= 0) {
        const ssize_t wrote = ::write(fd, line.data(), line.size());
        if (wrote < 0 && errno == EINTR) {
            continue;
        }
        if (wrote <= 0) {
            return;
        }
        line.remove_prefix(static_cast<std::size_t>(wrote));
    }
}

} // namespace meridian

extern "C" meridian_message_sink_fn meridian_set_message_sink(meridian_message_sink_fn sink,
                                                              void *context)
{
    auto &s = state();
    meridian_message_sink_fn previous = s.sink;
    s.sink = sink;
    s.context = context;
    return previous;
}

extern "C" void meridian_report(meridian_severity_t severity, const char *format, ...)
{
    // Most messages fit on the stack; a longer one is formatted on the heap,
    // and delivered cut to the stack's size when no memory is left for it:
    // this is what the C-boundary guard reports with, so it never throws.
    char small[512];
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    const int length = std::vsnprintf(small, sizeof small, format, copy);
    va_end(copy);
    if (length < 0) {
        deliver(severity, format);
    } else if (static_cast<std::size_t>(length) < sizeof small) {
        deliver(severity, small);
    } else {
        try {
            std::vector<char> buffer(static_cast<std::size_t>(length) + 1, '\0');
            std::vsnprintf(buffer.data(), buffer.size(), format, args);
            deliver(severity, buffer.data());
        } catch (const std::bad_alloc &) {
            deliver(severity, small);
        }
    }
    va_end(args);
}

extern "C" unsigned long meridian_error_count(void)
{
    return state().errors;
}

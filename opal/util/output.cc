// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/util/output.hpp>

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

namespace
{

struct SinkState {
    meridian_message_sink_fn sink = nullptr;
    void *context = nullptr;
    unsigned long errors = 0;
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
    std::fprintf(stderr, "%s%s\n", prefix(severity), text);
}

} // namespace

namespace meridian
{

void report(Severity severity, std::string_view text)
{
    const std::string copy(text);
    deliver(static_cast<meridian_severity_t>(severity), copy.c_str());
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

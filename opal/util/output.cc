#include <meridian/opal/util/output.hpp>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

namespace {

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
    case MERIDIAN_SEVERITY_ERROR: return "meridian: error: ";
    case MERIDIAN_SEVERITY_WARNING: return "meridian: warning: ";
    case MERIDIAN_SEVERITY_NOTICE: return "meridian: notice: ";
    default: return "meridian: ";
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

}  // namespace

namespace meridian {

void report(Severity severity, std::string_view text)
{
    const std::string copy(text);
    deliver(static_cast<meridian_severity_t>(severity), copy.c_str());
}

}  // namespace meridian

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
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    const int length = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    std::vector<char> buffer(length > 0 ? static_cast<size_t>(length) + 1 : 1, '\0');
    if (length > 0) {
        std::vsnprintf(buffer.data(), buffer.size(), format, args);
    }
    va_end(args);
    deliver(severity, buffer.data());
}

extern "C" unsigned long meridian_error_count(void) { return state().errors; }

// SPDX-License-Identifier: BSD-3-Clause
// Status strings, the last error (QMP_get_error_number / _string with a
// NULL handle), per-handle errors, and the 2002 error function.
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_msg.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/opal/util/error.h>

namespace meridian::qmp
{
namespace
{

// The descriptions QMP 2.5 gives, by status (QMP_SUCCESS, then QMP_ERROR
// onwards): applications print them and tools compare them, so they are
// QMP's words.
constexpr const char *kStatusText[] = {
    "successful",
    "general QMP error",
    "message passing system is not initialized yet",
    "run time environment set up error",
    "machine CPU information retrieval error",
    "node run time information retrieval error",
    "malloc failure",
    "sending memory size is larger than receiving memory size",
    "node hostname retrieval error",
    "initiate underlying service (gm) error",
    "logical topology exists already",
    "channel connection time out",
    "not supported",
    "underlying service (gm) is busy",
    "invalid communication message",
    "invalid function arguments",
    "invalid declared topology",
    "topology neighboring information error",
    "declare memory size exceeeds the maximum allowed size",
    "invalid memory for a message handle",
    "no more gm ports available",
    "remote node number is out of range",
    "channel definition error (send/recv to/from itself)",
    "receiving memory is already used by others",
    "a sending/receiving operation applied in a wrong state",
    "communication time out",
};
static_assert(std::size(kStatusText) == 1 + (QMP_MAX_STATUS - QMP_ERROR));

int default_error_function(QMP_status_t status, const char *message);

struct ErrorState {
    std::mutex mutex;
    std::unordered_set<std::string> texts; // intern(): node-based, so c_str()s stay put
    QMP_status_t last = QMP_SUCCESS;
    const char *last_message = nullptr;
    ERRFUNCPTR_t function = default_error_function;
    char no_memory_text[256] = {}; // record_boundary_failure's, when intern cannot
};

ErrorState &errors()
{
    static util::NoDestructor<ErrorState> instance;
    return instance.get();
}

const char *intern_locked(ErrorState &e, const std::string &text)
{
    return e.texts.insert(text).first->c_str();
}

// 2002: "generally prints an error message and exits".
int default_error_function(QMP_status_t status, const char *message)
{
    QMP_error("%s", message);
    QMP_abort(1);
    return static_cast<int>(status);
}

} // namespace

const char *intern(const std::string &text)
{
    ErrorState &e = errors();
    std::lock_guard guard(e.mutex);
    return intern_locked(e, text);
}

namespace
{

// Records a failure; returns the error function and the recorded text.
std::pair<ERRFUNCPTR_t, const char *> record(QMP_status_t status, const std::string &message)
{
    ErrorState &e = errors();
    std::lock_guard guard(e.mutex);
    e.last = status;
    e.last_message = intern_locked(e, message);
    return {e.function, e.last_message};
}

// A failure inside the error function does not call it again.
thread_local bool in_error_function = false;

void call_error_function(ERRFUNCPTR_t function, QMP_status_t status, const char *text)
{
    if (in_error_function) {
        return;
    }
    in_error_function = true;
    struct Reset {
        ~Reset() { in_error_function = false; }
    } reset;
    function(status, text);
}

} // namespace

QMP_status_t set_error(QMP_status_t status, std::string message)
{
    const auto [function, text] = record(status, message);
    // The application's function hears of every failure; the default one
    // (print and abort) only of those a call cannot return (fatal_error).
    if (status != QMP_SUCCESS && function != default_error_function) {
        call_error_function(function, status, text);
    }
    return status;
}

QMP_status_t set_handle_error(QMP_msghandle_t handle, QMP_status_t status,
                              const std::string &message)
{
    // The handle first: the error function may ask it.
    if (handle != nullptr) {
        handle->error = status;
        handle->error_message = intern(message);
    }
    return set_error(status, message);
}

void record_boundary_failure(const char *call, const char *why) noexcept
{
    const QMP_status_t status = std::strcmp(why, "out of memory") == 0 ? QMP_NOMEM_ERR : QMP_ERROR;
    try {
        set_error(status, std::string(call) + ": " + why);
        return;
    } catch (...) {
        // No memory for the text: the fixed buffer below needs none.
    }
    try {
        ErrorState &e = errors();
        std::lock_guard guard(e.mutex);
        std::snprintf(e.no_memory_text, sizeof e.no_memory_text, "%s: %s", call, why);
        e.last = status;
        e.last_message = e.no_memory_text;
    } catch (...) {
        // The lock failed: nothing can be recorded.
    }
}

void fatal_error(QMP_status_t status, const std::string &message)
{
    const auto [function, text] = record(status, message);
    call_error_function(function, status, text);
}

QMP_status_t said(QMP_status_t status, QMP_comm_t alike) noexcept
{
    if (status == QMP_SUCCESS) {
        return status;
    }
    const char *text = nullptr;
    {
        ErrorState &e = errors();
        std::lock_guard guard(e.mutex);
        if (e.function != default_error_function) {
            return status; // the application's function heard of it
        }
        text = e.last_message;
    }
    if (text == nullptr) {
        return status;
    }
    if (alike == nullptr || alike->size <= 1) {
        say_error_line(text, "");
    } else if (alike->rank == 0) {
        say_error_line(text, " (every node gives the same arguments: said once, here)");
    }
    return status;
}

QMP_status_t from_meridian(int status)
{
    switch (status) {
    case MERIDIAN_SUCCESS:
        return QMP_SUCCESS;
    case MERIDIAN_ERR_TIMEOUT:
        return QMP_TIMEOUT;
    case MERIDIAN_ERR_BAD_PARAM:
        return QMP_INVALID_ARG;
    case MERIDIAN_ERR_OUT_OF_RESOURCE:
        return QMP_NOMEM_ERR;
    case MERIDIAN_ERR_NOT_SUPPORTED:
        return QMP_NOTSUPPORTED;
    case MERIDIAN_ERR_NOT_INITIALIZED:
        return QMP_NOT_INITED;
    default:
        return QMP_ERROR; // MERIDIAN_ERR_UNREACH among them
    }
}

QMP_status_t require_initialized(const char *call)
{
    if (state().initialized) {
        return QMP_SUCCESS;
    }
    return set_error(QMP_NOT_INITED, std::string(call) + ": QMP is not initialized");
}

} // namespace meridian::qmp

using namespace meridian::qmp;

extern "C" {

// A text that cannot be made (no memory) is QMP's generic one.
const char *QMP_error_string(QMP_status_t code)
{
    const int value = meridian::c_enum_value(code);
    return qmp_boundary(__func__, kStatusText[1], [&] {
        if (value == QMP_SUCCESS) {
            return kStatusText[0];
        }
        if (value >= QMP_ERROR && value < QMP_MAX_STATUS) {
            return kStatusText[value - QMP_ERROR + 1];
        }
        // QMP hands other codes to the layer below (MPI); ours is Meridian.
        if (value < 0 && value >= MERIDIAN_ERR_UNREACH) {
            return intern(std::string("Meridian: ") + meridian_strerror(value));
        }
        return intern("unknown error code " + std::to_string(value));
    });
}

QMP_status_t QMP_get_error_number(QMP_msghandle_t mh)
{
    return qmp_boundary(__func__, [&] {
        if (mh != nullptr) {
            return mh->error;
        }
        ErrorState &e = errors();
        std::lock_guard guard(e.mutex);
        return e.last;
    });
}

const char *QMP_get_error_string(QMP_msghandle_t mh)
{
    return qmp_boundary(__func__, kStatusText[1], [&] {
        if (mh != nullptr) {
            return mh->error_message != nullptr ? mh->error_message : QMP_error_string(mh->error);
        }
        QMP_status_t last;
        const char *message;
        {
            ErrorState &e = errors();
            std::lock_guard guard(e.mutex);
            last = e.last;
            message = e.last_message;
        }
        return message != nullptr ? message : QMP_error_string(last);
    });
}

// 2002: returns the previous function (the default one included, so an
// application can pass errors on to it); NULL restores the default.
ERRFUNCPTR_t QMP_set_error_function(ERRFUNCPTR_t function)
{
    return qmp_boundary(__func__, nullptr, [&] {
        ErrorState &e = errors();
        std::lock_guard guard(e.mutex);
        ERRFUNCPTR_t previous = e.function;
        e.function = function != nullptr ? function : default_error_function;
        return previous;
    });
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// The one guard at every C boundary: no C++ exception reaches a C caller.
//
// Every extern "C" function and every function a C vtable points at (a
// component's hooks, a module's calls) runs its body through c_boundary:
//
//   extern "C" int meridian_mca_carto_base_distance(...)
//   {
//       return meridian::c_boundary("meridian_mca_carto_base_distance", [&] {
//           ...                         // may allocate, may throw
//           return MERIDIAN_SUCCESS;
//       });
//   }
//
// An exception becomes the failure value the C caller understands --
// MERIDIAN_ERR_OUT_OF_RESOURCE for std::bad_alloc and MERIDIAN_ERROR for any
// other by default, or a CFailure of the function's own type (QMP's status
// codes, a NULL pointer) -- and is said once: "CALL: out of memory" as an
// error report, or to the CFailure's record hook for a layer with error state
// of its own.  The guard itself never throws and never allocates on its own
// account.  Thread-safe as far as the body is.  A function whose body is C
// only (malloc, free, memcpy, field reads) cannot throw and needs none.
#ifndef MERIDIAN_UTIL_C_BOUNDARY_HPP
#define MERIDIAN_UTIL_C_BOUNDARY_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstring>
#include <exception>
#include <new>
#include <type_traits>
#include <utility>

#include <meridian/opal/util/error.h>

namespace meridian
{

// What a C caller gets back when the body throws, and who hears why.
template <typename T> struct CFailure {
    T out_of_memory; // for std::bad_alloc
    T other;         // for any other exception
    // Records "CALL failed: WHY" (WHY is "out of memory" or the exception's
    // what()); nullptr: Meridian's error report.  Must not throw.
    void (*record)(const char *call, const char *why) noexcept = nullptr;
};

// The MERIDIAN_* statuses of most C entry points.
inline constexpr CFailure<int> status_failure{MERIDIAN_ERR_OUT_OF_RESOURCE, MERIDIAN_ERROR};

namespace detail
{
// "meridian: error: CALL: WHY" through the output layer; a report that
// cannot be made (no memory for it) is dropped.
void report_boundary_failure(const char *call, const char *why) noexcept;

inline void boundary_failed(void (*record)(const char *, const char *) noexcept, const char *call,
                            const char *why) noexcept
{
    (record != nullptr ? record : report_boundary_failure)(call, why);
}
} // namespace detail

// body() converted to T, or the failure's value when it throws.
template <typename T, typename Body>
T c_boundary(const char *call, const CFailure<T> &failure, Body &&body) noexcept
{
    try {
        return std::forward<Body>(body)();
    } catch (const std::bad_alloc &) {
        detail::boundary_failed(failure.record, call, "out of memory");
        return failure.out_of_memory;
    } catch (const std::exception &e) {
        detail::boundary_failed(failure.record, call, e.what());
        return failure.other;
    } catch (...) {
        detail::boundary_failed(failure.record, call, "an unknown exception");
        return failure.other;
    }
}

// The common case: a body returning a MERIDIAN_* status.
template <typename Body> int c_boundary(const char *call, Body &&body) noexcept
{
    return c_boundary(call, status_failure, std::forward<Body>(body));
}

// A C function that returns nothing: the exception is said and dropped.
template <typename Body>
void c_boundary_void(const char *call, Body &&body,
                     void (*record)(const char *, const char *) noexcept = nullptr) noexcept
{
    try {
        std::forward<Body>(body)();
    } catch (const std::bad_alloc &) {
        detail::boundary_failed(record, call, "out of memory");
    } catch (const std::exception &e) {
        detail::boundary_failed(record, call, e.what());
    } catch (...) {
        detail::boundary_failed(record, call, "an unknown exception");
    }
}

// The value a C caller passed for a parameter of enum type, as the int it
// is.  C may pass any int there, while in C++ reading an enum object that
// holds a value outside its enumerators' range is undefined (UBSan stops
// on it): check the int, then convert.
template <typename Enum> int c_enum_value(const Enum &given) noexcept
{
    static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int));
    int value = 0;
    std::memcpy(&value, &given, sizeof value);
    return value;
}

} // namespace meridian

#endif

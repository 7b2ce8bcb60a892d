// SPDX-License-Identifier: BSD-3-Clause
// Errors as values inside the library: a Result holds either a value or an
// Error (status code plus the complete message for the user).
#ifndef MERIDIAN_UTIL_RESULT_HPP
#define MERIDIAN_UTIL_RESULT_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <string>
#include <utility>
#include <variant>

#include <meridian/opal/util/error.h>

namespace meridian
{

struct Error {
    int status = MERIDIAN_ERROR;
    std::string message;
};

template <typename T> class [[nodiscard]] Result
{
  public:
    Result(T value) : state_(std::move(value)) {}
    Result(Error error) : state_(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(state_); }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<T>(state_); }
    const T &value() const & { return std::get<T>(state_); }
    T &&value() && { return std::get<T>(std::move(state_)); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const Error &error() const { return std::get<Error>(state_); }

  private:
    std::variant<T, Error> state_;
};

// For operations that produce nothing but may fail.
struct Done {
};
using Status = Result<Done>;
inline Status success()
{
    return Done{};
}

inline Error make_error(int status, std::string message)
{
    return Error{status, std::move(message)};
}

} // namespace meridian

#endif

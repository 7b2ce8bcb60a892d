// SPDX-License-Identifier: BSD-3-Clause
// A function-local static that is never destroyed.  Used for state that
// holds component DSOs: unloading them during static destruction would run
// while other destructors may still call into component code, and would
// cost an exiting process one munmap per component for nothing.
#ifndef MERIDIAN_UTIL_NO_DESTRUCTOR_HPP
#define MERIDIAN_UTIL_NO_DESTRUCTOR_HPP

#include <new>
#include <utility>

namespace meridian::util
{

template <typename T> class NoDestructor
{
  public:
    template <typename... Args> explicit NoDestructor(Args &&...args)
    {
        ::new (static_cast<void *>(storage_)) T(std::forward<Args>(args)...);
    }
    NoDestructor(const NoDestructor &) = delete;
    NoDestructor &operator=(const NoDestructor &) = delete;

    T &get() { return *std::launder(reinterpret_cast<T *>(storage_)); }

  private:
    alignas(T) unsigned char storage_[sizeof(T)];
};

} // namespace meridian::util

#endif

// SPDX-License-Identifier: BSD-3-Clause
// The test program's global operator new and delete (failing_allocation.hpp):
// malloc / posix_memalign underneath, and a failure whenever the mode says.
#include "test/qmp_base/failing_allocation.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace failing_allocation
{
namespace
{

std::atomic<Mode> mode{Mode::none};
// Mode::nth: the allocations still to succeed before the one that fails.
std::atomic<long> to_succeed{0};
std::atomic<long> failed{0};

bool decide()
{
    Mode expected = Mode::next;
    if (mode.compare_exchange_strong(expected, Mode::none)) {
        return true;
    }
    if (expected == Mode::nth) {
        if (to_succeed.fetch_sub(1) > 0) {
            return false;
        }
        mode = Mode::none;
        return true;
    }
    return expected == Mode::all;
}

bool this_one_fails()
{
    const bool fails = decide();
    if (fails) {
        ++failed;
    }
    return fails;
}

// NULL when the mode says so or memory is out.
void *allocate(std::size_t size, std::size_t alignment) noexcept
{
    if (this_one_fails()) {
        return nullptr;
    }
    size = std::max<std::size_t>(size, 1);
    if (alignment <= alignof(std::max_align_t)) {
        return std::malloc(size);
    }
    void *block = nullptr;
    return posix_memalign(&block, std::max(alignment, sizeof(void *)), size) == 0 ? block : nullptr;
}

void *allocate_or_throw(std::size_t size, std::size_t alignment)
{
    if (void *block = allocate(size, alignment); block != nullptr) {
        return block;
    }
    throw std::bad_alloc();
}

} // namespace

Scope::Scope(Mode failing, long successes)
{
    to_succeed = successes;
    failed = 0;
    mode = failing;
}

long Scope::failures() const
{
    return failed;
}

Scope::~Scope()
{
    mode = Mode::none;
}

} // namespace failing_allocation

using failing_allocation::allocate;
using failing_allocation::allocate_or_throw;

void *operator new(std::size_t size)
{
    return allocate_or_throw(size, 0);
}
void *operator new[](std::size_t size)
{
    return allocate_or_throw(size, 0);
}
void *operator new(std::size_t size, std::align_val_t alignment)
{
    return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void *operator new[](std::size_t size, std::align_val_t alignment)
{
    return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void *operator new(std::size_t size, const std::nothrow_t &) noexcept
{
    return allocate(size, 0);
}
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept
{
    return allocate(size, 0);
}
void *operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t &) noexcept
{
    return allocate(size, static_cast<std::size_t>(alignment));
}
void *operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t &) noexcept
{
    return allocate(size, static_cast<std::size_t>(alignment));
}

// Every block above came from malloc or posix_memalign: free releases each.
void operator delete(void *block) noexcept
{
    std::free(block);
}
void operator delete[](void *block) noexcept
{
    std::free(block);
}
void operator delete(void *block, std::size_t) noexcept
{
    std::free(block);
}
void operator delete[](void *block, std::size_t) noexcept
{
    std::free(block);
}
void operator delete(void *block, std::align_val_t) noexcept
{
    std::free(block);
}
void operator delete[](void *block, std::align_val_t) noexcept
{
    std::free(block);
}
void operator delete(void *block, std::size_t, std::align_val_t) noexcept
{
    std::free(block);
}
void operator delete[](void *block, std::size_t, std::align_val_t) noexcept
{
    std::free(block);
}
void operator delete(void *block, const std::nothrow_t &) noexcept
{
    std::free(block);
}
void operator delete[](void *block, const std::nothrow_t &) noexcept
{
    std::free(block);
}
void operator delete(void *block, std::align_val_t, const std::nothrow_t &) noexcept
{
    std::free(block);
}
void operator delete[](void *block, std::align_val_t, const std::nothrow_t &) noexcept
{
    std::free(block);
}

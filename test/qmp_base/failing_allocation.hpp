// SPDX-License-Identifier: BSD-3-Clause
// Allocation failure on demand, for tests of what a C caller sees when
// memory runs out.  failing_allocation.cc replaces every form of the global
// operator new and delete in the test program; the shared libraries the
// program loads (libqmp, libmeridian, the components) then allocate through
// it too.  While failures are on, the throwing forms throw std::bad_alloc
// and the nothrow forms return NULL; malloc itself is untouched.
#ifndef MERIDIAN_TEST_QMP_BASE_FAILING_ALLOCATION_HPP
#define MERIDIAN_TEST_QMP_BASE_FAILING_ALLOCATION_HPP

namespace failing_allocation
{

enum class Mode {
    none, // every allocation succeeds
    next, // the next allocation fails, later ones succeed
    all,  // every allocation fails
    nth,  // the allocation after `successes` more succeed fails, later ones succeed
};

// While it lives, allocations fail as `mode` says; then they succeed again.
class Scope
{
  public:
    explicit Scope(Mode mode, long successes = 0);
    ~Scope();
    // How many allocations have failed in this scope.
    long failures() const;
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;
};

} // namespace failing_allocation

#endif

// What the coord base's files share with each other; not installed.
#ifndef MERIDIAN_MCA_COORD_BASE_INTERNAL_HPP
#define MERIDIAN_MCA_COORD_BASE_INTERNAL_HPP

#include <string>
#include <vector>

namespace meridian::coord::detail
{

// coord_base_event.cc: call the callbacks registered for these planes
// (names; cidrs[i] is plane i's CIDR text or empty, for registrations by
// CIDR).
void fire_updated(const std::vector<std::string> &names, const std::vector<std::string> &cidrs);

// coord_base_context.cc: the framework's close hook forgets the context (the
// modules it points at may be unloaded).
int framework_closing();

} // namespace meridian::coord::detail

#endif

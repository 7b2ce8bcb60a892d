// SPDX-License-Identifier: BSD-3-Clause
// What the coord base's files share with each other; not installed.
#ifndef MERIDIAN_MCA_COORD_BASE_INTERNAL_HPP
#define MERIDIAN_MCA_COORD_BASE_INTERNAL_HPP

#include <chrono>
#include <string>
#include <vector>

#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/runtime/datastore.hpp>

namespace meridian::coord::detail
{

// coord_base_event.cc: call the callbacks registered for these planes
// (names; cidrs[i] is plane i's CIDR text or empty, for registrations by
// CIDR).
void fire_updated(const std::vector<std::string> &names, const std::vector<std::string> &cidrs);

// coord_base_event.cc: send the coordinates-updated event to the job's
// other processes (when sharing, and not while placing what one of them
// sent); place the fabric another process sent, if any (the start of every
// coord call, on the caller's thread).
void broadcast_updated(const mca_coord_context &context, const std::vector<std::string> &names);
void apply_pending();

// coord_base_frame.cc: coord_base_event_range -- the sender's node through
// PMIx; every node, by Meridian's relays (coord_base_relay.hpp); every node,
// by the launcher's PMIx servers.
enum class EventRange { node, job, launcher };
EventRange event_range();
// coord_base_frame.cc: coord_base_relay_timeout.
std::chrono::milliseconds relay_timeout();

// coord_base_context.cc: the context placed now, without running the
// provider or applying anything pending.
const mca_coord_context *current_context();

// coord_base_context.cc: the framework's close hook forgets the context (the
// modules it points at may be unloaded).
int framework_closing();

} // namespace meridian::coord::detail

#endif

// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp and the host's port ledger (pnet_tcp_ledger.hpp): what this
// process's job claims there, holds and gives back, and which nodes'
// inventories are claims (README.md, "Port ledger").
//
// In-job mode (mca/pnet/base/pnet_base_injob.cc), on each host:
//   local rank 0, collect_inventory   claims the ports the job may need here
//                                     and publishes them as the host's pools
//                                     (the lock is held for the claim only,
//                                     never across the job's fence)
//   every process, setup_local_network  shrinks the claim to the ports
//                                     assigned here and joins the entry
//   every process, deregister / close   leaves; the last one gives the
//                                     ports back
// A process knows its own job in the ledger (the datastore's namespace),
// and the jobs whose node share it makes for all of the job's processes
// there (pnet::host_job: a launcher's daemon, the node's leader), each of
// which it holds alone.  The calls lock a mutex of their own, so threads may
// make them.
#ifndef MERIDIAN_COMPONENTS_PNET_TCP_CLAIM_HPP
#define MERIDIAN_COMPONENTS_PNET_TCP_CLAIM_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/class/port_ranges.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet_tcp
{

// pnet_tcp_component.cc: pnet_tcp_ledger's value (null or empty: the default).
const char *ledger_param();

// pnet_tcp_ledger checked when the component opens: empty, "none" or an
// absolute path.  Errors name the parameter and where it was set.
Status check_ledger_param();

// The ledger file: pnet_tcp_ledger, or /tmp/meridian-UID/ports (that
// directory made private to this user, or refused when somebody else could
// write it) when it is empty; nullopt when it is "none".
Result<std::optional<std::string>> ledger_path();

// The first line of an inventory whose ports= are its host's claim: a node
// whose inventory has it has those ports and no others (none when there is
// no ports=), never pnet_tcp_static_ports.
inline constexpr std::string_view claim_marker =
    "# pnet_tcp: ports= is this host's claim in its port ledger";

// collect_inventory from this host's interfaces: when the ledger is on and
// the job of this process (the datastore's namespace) asks for tcp or udp
// ports, claim for each pool of `pools` up to (ENDPTS of the job's requests
// of its protocol, summed) x (the job's processes on this host) ports, and
// return the pools as claimed; nullopt when nothing is claimed.  Errors: the
// ledger cannot be read, locked or written, or does not parse (the message
// names the file and line, and says what to do).
Result<std::optional<std::vector<fabric::PortPoolSpec>>>
claim_host_ports(const std::vector<fabric::PortPoolSpec> &pools);

// deliver: `node`'s inventory began with claim_marker.  When `node` is this
// process's own host (the datastore's node name), the process counts as one
// of its job's processes there: it leaves the job's entry at deregister or
// close even if it never joined it.
void note_claimed_node(std::string_view node);
bool ports_are_claimed(std::string_view node);

// setup_local_network of this process's own job on its own host, when the
// host's pools were a claim: the job's entry shrinks to the ports assigned
// on `node` and this process joins it.  A ledger that cannot be updated
// gets a warning (the job keeps its ports).
void hold_assigned_ports(const pnet::Job &job, fabric::Index node);

// deregister: this process leaves its job's entry when `nspace` is its job.
void leave_ledger(std::string_view nspace);

// The component closes: leave (as deregister), and forget the claimed nodes.
void forget_claims();

} // namespace meridian::pnet_tcp

#endif

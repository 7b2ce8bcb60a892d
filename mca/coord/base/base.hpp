// SPDX-License-Identifier: BSD-3-Clause
// The coord framework's API for C++ callers (C: mca/coord/base/base.h).
//
// The queries are about the current context: a fabric and a job map, set by
// the pnet pipeline when it allocates (meridian_netmap, in-job mode at
// meridian_init) or by a caller with set_context.  Setting a context places
// every plane with the selected modules (coord.h); setting it again with a
// changed fabric places the planes again and fires the coordinates-updated
// event for the planes whose coordinates or shape changed.
//
// Keys are the PMIx strings; query() answers any of them, the typed calls
// below answer one each.  Default view: logical.
#ifndef MERIDIAN_MCA_COORD_BASE_BASE_HPP
#define MERIDIAN_MCA_COORD_BASE_BASE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/mca/coord/coord.h>
#include <meridian/opal/class/coordinate.hpp>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::coord
{

inline constexpr std::string_view key_coordinate = "pmix.net.coord";
inline constexpr std::string_view key_view = "pmix.net.view";
inline constexpr std::string_view key_dims = "pmix.net.dims";
inline constexpr std::string_view key_plane = "pmix.net.plane";
inline constexpr std::string_view key_nic = "pmix.net.nic";
inline constexpr std::string_view key_endpoint = "pmix.net.endpt";
inline constexpr std::string_view key_shape = "pmix.net.shape";
// What each process of a job publishes as its endpoints (an array of
// strings): a PMIx client cannot put "pmix*" keys, so this is its
// pmix.net.endpt under Meridian's name (pnet's key_published_endpoints).
inline constexpr std::string_view key_published_endpoint = "meridian.net.endpt";
// Not a PMIx key: the relative cost to the process given as "peer".
inline constexpr std::string_view key_cost = "meridian.net.cost";

// Per-plane, per-view shapes and per-NIC coordinates: what modules fill.
struct PlaneTable {
    std::string component;                           // who placed the plane
    const mca_coord_base_module_t *module = nullptr; // its module (nic_cost)
    std::vector<meridian_coord_view_t> views;        // views provided, in order set
    std::vector<std::vector<std::uint32_t>> shapes;  // one per view
    // coords[v][k]: the coordinate in views[v] of the plane's k-th NIC
    // (Plane::nics order), flat: dims values each.
    std::vector<std::vector<std::uint32_t>> coords;
};

} // namespace meridian::coord

struct mca_coord_context {
    std::shared_ptr<const meridian::fabric::Fabric> fabric;
    std::shared_ptr<const meridian::fabric::JobMap> job;
    std::vector<meridian::coord::PlaneTable> planes; // one per fabric plane
    std::uint32_t placing = UINT32_MAX;              // plane compute_plane is on
    // Per fabric NIC: its index in its plane's Plane::nics (the k of
    // PlaneTable::coords), filled by the base before any plane is placed.
    std::vector<std::uint32_t> nic_slot;
};

namespace meridian::coord
{

// Place every plane of `fabric` for `job`.  Opens the coord framework if
// nobody has (kept open until its last close).  Errors: no module accepts a
// plane ("no coord component places plane \"x\" (active: tcp, torus)"), a
// module failed.  On error the previous context stays.
Status set_context(std::shared_ptr<const fabric::Fabric> fabric,
                   std::shared_ptr<const fabric::JobMap> job);
// The current context, or null.  When there is none and a provider is set,
// the provider runs first (once; then it is forgotten).
const mca_coord_context *context();
// What makes the context on the first query that finds none: meridian_init
// sets pnet's in-job run for a process started alone (pnet_base_in_job=auto),
// so its first coordinate, endpoint or cost query runs the pipeline.
// nullptr: none.
void set_context_provider(void (*provider)());
void forget_context();
// Why the last set_context failed, while no context is placed; else null.
// Setting a context, even one that fails, drops the provider.
const Error *placement_failure();

// A NIC's coordinate in a view as placed on `context` (what a module's
// nic_cost reads), or an empty span when its plane has none in that view.
std::span<const std::uint32_t> nic_coordinate(const mca_coord_context &context, std::uint32_t nic,
                                              meridian_coord_view_t view);

// A process's coordinates: on every plane (plane empty) or one plane (name
// or CIDR), one per NIC, nearest NIC first.  A view the plane's module does
// not provide: MERIDIAN_ERR_NOT_SUPPORTED naming the plane and view (with
// plane empty: the planes that provide it answer, NOT_SUPPORTED only when
// none of the process's does); UNDEF means logical.
Result<std::vector<Coordinate>>
coordinates(std::uint32_t rank, std::string_view plane = {},
            meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW);
// Number of dimensions of a plane in a view, or of every plane (in plane
// order; 0 for a plane without that view) when plane is empty.
Result<std::vector<std::uint32_t>> dims(std::string_view plane = {},
                                        meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW);
// Every plane's id (its name).
std::vector<std::string> planes();
// The NICs of a plane ("node:nic" names), or of every plane as
// [plane, nic, nic, ...] lists when plane is empty.
Result<std::vector<std::vector<std::string>>> nics(std::string_view plane = {});
// A process's endpoints as stored by pnet (pmix.net.endpt, e.g.
// "10.10.1.1:32000"); empty when pnet assigned none.
Result<std::vector<std::string>> endpoints(std::uint32_t rank);
namespace detail
{
// pnet, for a job whose network the launcher or the node's leader set up:
// nobody holds every process's endpoints, so endpoints() reads another
// process's from what it published (key_published_endpoint), waiting for
// it (PMIx's direct modex) instead of taking "not here" for none.
void endpoints_from_peers_published(bool published);
} // namespace detail
// The size of each dimension of a plane in a view.  Plane empty: the only
// plane (MERIDIAN_ERR_BAD_PARAM naming the planes when there are several;
// shapes() answers for each).
Result<std::vector<std::uint32_t>> shape(std::string_view plane,
                                         meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW);
// The shape of every plane in a view, in plane order: an empty shape for a
// plane without that view (as dims() gives 0); MERIDIAN_ERR_NOT_SUPPORTED
// when no plane has the view.
Result<std::vector<std::vector<std::uint32_t>>>
shapes(meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW);

// A NIC named as a qualifier: "node:nic" as nics() names it, or the NIC's
// name alone for the NIC of that name on the node of process `rank` (the
// full form is tried first; node and NIC names may hold ':' themselves).
// Returns its index in the context's fabric.  Errors: MERIDIAN_ERR_NOT_FOUND
// "unknown NIC \"a:eht0\" (close: a:eth0, a:ib0)" (the NICs of the nodes
// the name points at, nearest spelling first), MERIDIAN_ERR_BAD_PARAM when
// the name fits two NICs.  Cost: O(1) average when found; an unknown name
// compares its node part with every node's name.
Result<fabric::Index> find_nic(std::string_view nic, std::uint32_t rank);
// "node:nic", the name nics() gives a fabric NIC.
std::string nic_name(const fabric::Fabric &fabric, fabric::Index nic);
// A NIC's coordinate in a view (a view of its plane: MERIDIAN_ERR_NOT_SUPPORTED
// otherwise).  rank as for find_nic.
Result<Coordinate> coordinate_of_nic(std::string_view nic, std::uint32_t rank,
                                     meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW);
// A process's endpoints on one NIC of its node: those of endpoints(rank)
// whose address is the NIC's (endpoints are ADDRESS:PORT as pnet stores
// them).  MERIDIAN_ERR_BAD_PARAM for a NIC on another node;
// MERIDIAN_ERR_NOT_SUPPORTED, saying why, when it cannot be known: the NIC
// has no address in the fabric, or an endpoint is not IPv4-ADDRESS:PORT.
Result<std::vector<std::string>> endpoints_on_nic(std::uint32_t rank, std::string_view nic);
// Whether a plane is wired as a mesh or torus: its module places it in the
// physical view, whose coordinates follow the cabling axis by axis (seed
// 000); a switched plane has logical coordinates only.  The QMP layer reads
// the allocated machine from such planes.
Result<bool> is_grid(std::string_view plane);
// The relative cost from one process to another: 0 on one node; otherwise
// the fewest hops over the planes both have a NIC on, using each process's
// nearest NIC on that plane.  MERIDIAN_ERR_NOT_FOUND when they share no plane.
Result<std::uint64_t> cost(std::uint32_t from, std::uint32_t to);

// Any of the keys above.  Qualifiers: plane (may be empty), view, peer (for
// key_cost), nic (may be empty; named as find_nic takes it, rank being the
// query's).  Values: coordinates -> vector<Coordinate>; view -> uint64;
// dims -> uint32 array (one, or one per plane); plane -> string array;
// nic -> string array; endpoint -> string array; shape -> uint32 array;
// cost -> uint64.  Unknown key: MERIDIAN_ERR_NOT_FOUND listing the keys.
//
// With no plane and no NIC, as PMIx's network chapter says: nic -> the NICs
// of each plane, and shape -> the shape of each plane in the view, each as an
// InfoList with one entry per plane in plane order, keyed by the plane's name
// (the array whose first string is the plane ID): a string array of
// "node:nic" names, or a uint32 array (empty for a plane without the view).
//
// With a NIC: coordinate -> that NIC's coordinate (one); dims and shape ->
// those of its plane; plane -> its plane's name (one); nic -> its "node:nic"
// name (one); endpoint -> the process's endpoints on it (endpoints_on_nic).
// A plane given as well must be the NIC's (MERIDIAN_ERR_BAD_PARAM);
// key_cost takes no NIC (MERIDIAN_ERR_BAD_PARAM).
struct Qualifiers {
    std::string plane;
    meridian_coord_view_t view = MERIDIAN_COORD_LOGICAL_VIEW;
    std::uint32_t peer = 0;
    std::string nic{}; // {}: Qualifiers{plane, view, peer} need not name it
};
Result<datastore::Value> query(std::string_view key, std::uint32_t rank, const Qualifiers &q = {});

// The coordinates-updated event.  plane empty: every plane.  The callback
// gets the affected planes' names (only those it registered for), on the
// thread that placed the new coordinates: set_context's, or for a change
// another process of the job made (share_updates), the thread of this
// process's next coord call.
using UpdatedCallback = std::function<void(std::span<const std::string> planes)>;
int on_updated(std::string plane, UpdatedCallback callback); // returns a handle >= 0
void remove_updated(int handle);

// Share changes with the job's other processes through `store` (every
// network setup path does this once the job is known): a set_context that
// changes coordinates also sends MERIDIAN_NETWORK_COORDS_UPDATED (base.h)
// as a PMIx event to its node, and (coord_base_event_range=job, the
// default) to every other node's relay; an event from another process is
// kept, and this process's next coord call places its fabric for the
// current job (firing the callbacks).  In a job across nodes the node's
// lowest rank starts its node's relay here (a thread; a failure is a
// warning, and the job goes on without other nodes' changes).
// stop_sharing() ends it and joins the relay (forget_context and the
// framework's close do).
Status share_updates(datastore::Store &store);
void stop_sharing();

} // namespace meridian::coord

#endif

// SPDX-License-Identifier: BSD-3-Clause
// The pnet framework's base: the job handle components fill, and the
// pipeline that runs every active module (pnet.h).
//
//   launcher / offline tool            in-job mode (pnet_base_injob.cc)
//   -----------------------            --------------------------------
//   fabric = read_fabric_file(...)      each process, at meridian_init under a
//     or collect + deliver per node     PMIx launcher: put inventory, fence,
//   job = make_job(fabric, map, reqs)   deliver every node's, allocate the
//   allocate(job)                       same job everywhere, setup its node
//   setup_local_network(job, node)
//   setup_fork(job, rank)
//   deregister(job)
#ifndef MERIDIAN_MCA_PNET_BASE_BASE_HPP
#define MERIDIAN_MCA_PNET_BASE_BASE_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/request.hpp>
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::pnet
{

// What one request got, job-wide and per process.  allocate fills id, type,
// endpts_asked, seckey and component (the best active module whose `types`
// lists the type) before it asks the modules; a module serves the grants
// that name its component and fills the rest.  Per-process data is
// stored flat (offsets per rank, size+1 entries) so that 10^6 processes cost
// a few arrays, not 10^6 vectors.
struct Grant {
    std::string id;
    std::string type;      // the type served (the default when none was asked)
    std::string plane;     // the plane used ("" when the type has none)
    std::string component; // the pnet component that served it
    std::uint32_t endpts_asked = 1;
    std::optional<std::uint32_t> qos;     // assigned
    std::optional<double> bandwidth_mbps; // assigned, per process
    std::vector<std::uint8_t> seckey;     // empty when none was asked

    // Ports per process (tcp/udp), ascending.
    std::vector<std::uint32_t> port_offsets;
    std::vector<std::uint16_t> ports;
    // Devices per process (e.g. UCX's "mlx5_0:1"), indices into device_names.
    std::vector<std::uint32_t> device_offsets;
    std::vector<std::uint32_t> devices;
    std::vector<std::string> device_names;

    std::span<const std::uint16_t> ports_of(std::uint32_t rank) const;
    std::span<const std::uint32_t> devices_of(std::uint32_t rank) const;
};

struct Job {
    std::shared_ptr<const fabric::Fabric> fabric;
    fabric::JobMap map;
    std::vector<Request> requests; // types resolved (every request has one)
    std::vector<Grant> grants;     // one per request, same order, filled by allocate
    // Security keys drawn before allocate, by request id: allocate uses them
    // as they are.  In-job mode fills it with the keys rank 0 drew and shared
    // through the datastore, so every process's allocation holds the same
    // keys.  A request whose key is not here gets one from draw_seckey.
    std::unordered_map<std::string, std::vector<std::uint8_t>> seckeys;

    // Each process's NICs, nearest first (fabric.nics_by_distance); shared
    // spans, so no per-process copy.
    std::span<const fabric::Index> nics_of(std::uint32_t rank) const;
    Grant *grant(std::string_view id);
    const Grant *grant(std::string_view id) const;
};

} // namespace meridian::pnet

// The C handles are the C++ objects.
struct mca_pnet_fabric {
    meridian::fabric::Fabric fabric;
};
struct mca_pnet_job {
    meridian::pnet::Job job;
    // A node's share (a launcher's daemon, a node's leader): the node's
    // inventory it was made from, (component, blob) pairs, for the job's
    // processes on other nodes to place this node (key_node_inventory).
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>> inventory;
};
struct mca_pnet_env {
    std::vector<std::pair<std::string, std::string>> variables;
};

namespace meridian::pnet
{

// Opens the pnet framework if nobody has (kept open until its last close)
// and selects the modules.  Every pipeline call below does this first.
Status ensure_open();
// The active modules' component names, best first.
std::vector<std::string> active_components();

// This node's inventory from every module: (component, blob) pairs.
Result<std::vector<std::pair<std::string, std::vector<std::uint8_t>>>> collect_inventory();
// One node's blob from `component` into the fabric.
Status deliver_inventory(std::string_view node, std::string_view component,
                         std::span<const std::uint8_t> blob, fabric::Fabric &fabric);

// A job ready to allocate: resolves each request's type (a type no active
// module serves is an error when the type is required -- "request \"x\":
// TYPE opa is required but no pnet component serves it (tcp, udp, ucx)" --
// and falls back to pnet_base_default_type otherwise).
Result<std::unique_ptr<mca_pnet_job>> make_job(std::shared_ptr<const fabric::Fabric> fabric,
                                               fabric::JobMap map, std::vector<Request> requests);
// Every module serves its requests; all or nothing (see pnet.h).  Also fills
// seckeys (job.seckeys, or draw_seckey) and hands the fabric and job map to
// coord (meridian::coord::set_context) so coordinates can be asked for.
Status allocate(mca_pnet_job &job);
Status setup_local_network(mca_pnet_job &job, std::string_view node);
// BYTES random bytes from the OS's CSPRNG (getrandom) as request ID's security
// key; fails (naming the request) only when the OS gives none.
Result<std::vector<std::uint8_t>> draw_seckey(std::string_view id, std::size_t bytes);
Result<std::vector<std::pair<std::string, std::string>>> setup_fork(const mca_pnet_job &job,
                                                                    std::uint32_t rank);
Status deregister(mca_pnet_job &job);

// The requests of pnet_base_requests (parse_requests' syntax); messages
// name the parameter and where it was set ("pnet_base_requests from
// environment variable MERIDIAN_MCA_pnet_base_requests:4: ...").
Result<std::vector<Request>> requests_from_params();

// The other pnet_base_* parameters (registered with the framework).
// pnet_base_default_type: the type of a request that names none (default "tcp").
std::string default_type();
// pnet_base_in_job: auto (default), yes or no.
enum class InJobMode { automatic, yes, no };
InJobMode in_job_mode();
// pnet_base_node_leader: auto (default: under Slurm, a task of a step), yes
// or no.  Under a PMIx launcher whose daemons set nothing up, the node's
// leader makes the node's share instead of every process the whole job.
bool node_leader_wanted();

// In-job mode, run by meridian_init when pnet_base_in_job allows it (auto:
// when the datastore is PMIx, or for a singleton): the whole pipeline inside
// the job, so every process can ask for its assignment, NICs, coordinates
// and cost to any peer.  The job it made, or null before it ran.
//
// Each process then puts its results for any PMIx client of the job (global
// scope, committed before meridian_init returns; readable after the job's
// next fence): every request's entry under the request ID (an array of
// pmix_info_t), its endpoints under key_published_endpoints (an array of
// strings) and its coordinates under key_published_coordinates (an array of
// pmix_coord_t).  PMIx keeps "pmix*" keys for the launcher, so these two are
// the process's pmix.net.endpt and pmix.net.coord under Meridian's names.
inline constexpr std::string_view key_published_endpoints = coord::key_published_endpoint;
inline constexpr std::string_view key_published_coordinates = "meridian.net.coord";
Status run_in_job();
const mca_pnet_job *in_job();
void forget_in_job();

// The job a pipeline call serves when it is not this process's own: a
// launcher's daemon making its node's share of a job (base.h,
// meridian_pnet_node_job_new) for `processes` processes on `node`, all held
// by this one process.  Set for the calling thread while the share is made.
// A component that keeps per-host state for "this process's job" (pnet_tcp's
// port ledger) takes the job from here when it is set, else from the
// datastore.
struct HostJob {
    std::string nspace;
    std::string node;
    std::uint32_t processes = 1;
    // When the process that held the share lets it go while others of the
    // job still use it (a node's leader ending before the node's other
    // processes): their pids, which keep the node's ports from then on.
    std::vector<std::int32_t> heirs;
};
const HostJob *host_job();
class HostJobScope
{
  public:
    explicit HostJobScope(HostJob job);
    ~HostJobScope();
    HostJobScope(const HostJobScope &) = delete;
    HostJobScope &operator=(const HostJobScope &) = delete;

  private:
    HostJob job_;
    const HostJob *outer_;
};

// Where this process's job had its network set up: nowhere yet; by the
// launcher's daemons (the pnet plugin for libpmix stored each process's
// results in its PMIx server and the job-level value key_setup_path =
// "launcher": run_in_job then computes nothing); by the node's leader
// (pnet_base_node_leader: the node's lowest rank made the node's share,
// the others read it); or in-job.
// pnet_base_verbose 1 says which, per process.
inline constexpr std::string_view key_setup_path = "meridian.pnet.path";
// When the launcher's daemons could not (key_setup_path "failed"): why, which
// run_in_job returns (meridian_init then fails with it).
inline constexpr std::string_view key_setup_error = "meridian.pnet.error";
// A node's inventory, (component, bytes) pairs as an info list, published
// by the lowest rank of each node in the launcher's and the leader's paths:
// what a process reads of the nodes it is asked about (the job's fabric,
// assembled on the first query that needs it).
inline constexpr std::string_view key_node_inventory = "meridian.node.inventory";
// The job's request IDs, ','-separated, beside key_setup_path "launcher".
inline constexpr std::string_view key_setup_ids = "meridian.pnet.ids";
// Each process's, in the launcher's path: what it puts for the processes of
// other hosts (its request entries, key_published_endpoints, and
// key_published_coordinates when it has any) as one info list, so that it
// reads them with one PMIx_Get (each costs a trip through libpmix's
// progress thread) instead of one per key.
inline constexpr std::string_view key_launcher_results = "meridian.pnet.results";
// The environment variable the plugin gives the node's processes of a job
// it took on, set to the job's namespace: only then is key_setup_path read
// (a job-level key nobody stored costs PMIx in proportion to the job).
inline constexpr const char *launcher_env = "MERIDIAN_PNET_LAUNCHER";
enum class SetupPath { none, launcher, leader, in_job };
SetupPath setup_path();

} // namespace meridian::pnet

#endif

// SPDX-License-Identifier: BSD-3-Clause
// What the pnet base's files share with each other (and with the runtime,
// which starts in-job mode); not installed.
#ifndef MERIDIAN_MCA_PNET_BASE_INTERNAL_HPP
#define MERIDIAN_MCA_PNET_BASE_INTERNAL_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/runtime/datastore.hpp>

struct pmix_info;

namespace meridian::pnet::detail
{

// pnet_base_frame.cc: the stored text of pnet_base_requests (nullptr when
// unset), for requests_from_params.
const char *requests_parameter_text();
// pnet_base_launcher_requests.
bool launcher_requests_wanted();

// pnet_base_pipeline.cc: the selected modules die with the framework; its
// close hook calls this.
void framework_closing();
// pnet_base_pipeline.cc: every type the active modules serve, in module
// order (a type once), and the best module serving `type` ("" when none).
std::vector<std::string> served_types();
std::string component_serving(std::string_view type);

// pnet_base_injob.cc: with deferred, in_job() (and the first coord query)
// runs the pipeline on its first call; meridian_init sets it for a
// singleton under pnet_base_in_job=auto.
void defer_in_job(bool deferred);

// pnet_base_pmix.cc (built with PMIx only): what process `rank` (inside
// the job) of an allocated job reads when its launcher registers these
// entries in its PMIX_PROC_DATA; base.h, meridian_pnet_pmix_proc_data.
Status pmix_proc_data(const mca_pnet_job &job, std::uint32_t rank, pmix_info **info,
                      std::size_t *count);
// ... and what it registers for `node` (meridian_pnet_pmix_node_data).
Status pmix_node_data(const mca_pnet_job &job, std::string_view node, pmix_info **info,
                      std::size_t *count);
// ... and the node's inventory it was made from (a node's share), under
// key_node_inventory (meridian_pnet_pmix_node_inventory).
Status pmix_node_inventory(const mca_pnet_job &job, pmix_info **info, std::size_t *count);

// pnet_base_launcher.cc: the pipeline split between a launcher and its
// daemons (base.h, meridian_pnet_launch_blob and meridian_pnet_node_job_new).
// The launcher's blob: the job's requests (pnet_base_requests) and their
// security keys, drawn once.
// `launcher` holds the requests the launcher itself asked for (PMIx's
// PMIX_ALLOC_NETWORK), after pnet_base_requests' ones (unless
// pnet_base_launcher_requests is false); an ID in both is refused.
Result<std::vector<std::uint8_t>> launch_blob(std::span<const Request> launcher = {});
// One node's share of a job: its inventory, a job map of its `packages.size()`
// processes (local ranks 0..n-1, each bound to packages[i] or -1), the blob's
// requests and keys; allocated and set up on `node`.
Result<std::unique_ptr<mca_pnet_job>> node_job(std::string_view nspace, std::string_view node,
                                               std::span<const std::int32_t> packages,
                                               std::span<const std::uint8_t> blob);
// The same from the requests and their keys.  `nspace` names the job in the
// port ledger and this process's datastore (each process by its local rank).
Result<std::unique_ptr<mca_pnet_job>>
node_share(std::string_view nspace, std::string_view node, std::span<const std::int32_t> packages,
           std::vector<Request> requests,
           std::unordered_map<std::string, std::vector<std::uint8_t>> seckeys);
// What a node's share gave its process of local rank `index`, as in-job
// processes publish it: each request's entry under its ID,
// key_published_endpoints and key_published_coordinates.
Result<datastore::InfoList> node_results(const mca_pnet_job &job, std::uint32_t index);

// pnet_base_injob.cc: the package every CPU this process may run on belongs
// to, or -1 when they span several (or the kernel does not say).
std::int32_t binding_package();

// pnet_base_context.cc: `node` of the fabric, added bare when no component
// described it (a node with no NIC Meridian knows still runs processes).
Result<fabric::Index> ensure_node(fabric::Fabric &fab, const std::string &node);
// The package of a locality string
// "SK0:L30:L20:L10:CR0-1:HT0-3" (PMIx's pmix.locstr): SK's one number, or -1
// (several packages, or none said).
std::int32_t package_of_locality(std::string_view locality);
// For a job whose network the launcher or the node's leader set up: the
// job's fabric (every node's published inventory) and map (PMIx's) are
// placed for coord on the first query that needs them, and other processes'
// endpoints are read from what they published.
void place_job_on_demand();

// pnet_base_leader.cc: the node-leader path (run_in_job under a launcher
// that set nothing up, pnet_base_node_leader): the node's leader sets up
// the node's share, the others read it.
Status run_leader(datastore::Store &store);

// Puts (uncommitted) a process's results for the processes of other hosts,
// as read from its daemon or its leader: each entry as it is, and an empty
// endpoint list when it has none, since the other hosts wait for that key.
Status put_results_for_other_hosts(datastore::Store &store, datastore::InfoList results);
// The job that path made in this process (the leader), given back at
// forget_in_job; and whether it ran.
void forget_leader();

} // namespace meridian::pnet::detail

#endif

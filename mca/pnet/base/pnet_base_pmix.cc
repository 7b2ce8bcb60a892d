// SPDX-License-Identifier: BSD-3-Clause
// The launcher's side of the results (base.h, meridian_pnet_pmix_proc_data):
// what the processes of a job read with PMIx_Get when their launcher, a
// PMIx server that ran the pipeline, hands these entries to
// PMIx_server_register_nspace: per process in its PMIX_PROC_DATA, per node
// in its PMIX_NODE_INFO_ARRAY (meridian_pnet_pmix_node_data).  The in-job
// results (pnet_base_injob.cc) are the model: the same request entries and
// meridian.net.* values, plus what released PMIx names for a launcher to
// give, pmix.fab.endpt and pmix.fab.coord.  Built only with PMIx.
#include "config.h"

#include <arpa/inet.h>
#include <pmix_common.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mca/pnet/base/pnet_base_internal.hpp"
#include "opal/runtime/datastore_pmix.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/strings.hpp>

namespace meridian::pnet::detail
{

namespace
{

using datastore::copy_text;
using datastore::zeroed;

// A zeroed pmix_info_t array being filled: freed as PMIx frees one unless
// it is handed out.
class InfoArray
{
  public:
    explicit InfoArray(std::size_t capacity)
        : info_(zeroed<pmix_info_t>(capacity == 0 ? 1 : capacity)), capacity_(capacity)
    {
    }
    InfoArray(const InfoArray &) = delete;
    InfoArray &operator=(const InfoArray &) = delete;
    ~InfoArray() { PMIX_INFO_FREE(info_, capacity_); }

    pmix_info_t &next() { return info_[used_++]; }
    std::size_t used() const { return used_; }
    pmix_info_t *release()
    {
        pmix_info_t *out = info_;
        info_ = nullptr;
        return out;
    }

  private:
    pmix_info_t *info_;
    std::size_t capacity_;
    std::size_t used_ = 0;
};

// An empty array of `count` elements of `type` under `key`.
template <typename T>
T *start_array(pmix_info_t &info, const char *key, pmix_data_type_t type, std::size_t count)
{
    PMIX_LOAD_KEY(info.key, key);
    return datastore::start_array<T>(info.value, type, count);
}

// The NIC of `node` an endpoint is on: by address for IPv4 ADDRESS:PORT
// (tcp, udp), else by the name before the last ':' or the whole text (a
// ucx device "mlx5_0:1" on a NIC named mlx5_0).
std::optional<fabric::Index> nic_of_endpoint(const fabric::Fabric &fab, fabric::Index node,
                                             const std::string &endpoint)
{
    const auto colon = endpoint.rfind(':');
    const std::string head = endpoint.substr(0, colon);
    in_addr address{};
    const bool ipv4 = colon != std::string::npos && inet_pton(AF_INET, head.c_str(), &address) == 1;
    for (const fabric::Index nic : fab.nodes()[node].nics) {
        const fabric::Nic &n = fab.nics()[nic];
        if (ipv4 ? n.address == ntohl(address.s_addr) : (n.name == head || n.name == endpoint)) {
            return nic;
        }
    }
    return std::nullopt;
}

// pmix.fab.endpt: an array of pmix_endpoint_t, one per endpoint in request
// order; uuid the fabric's "node:nic" name of the NIC it is on, osname the
// NIC's name, endpt the endpoint's text ("10.1.0.1:32000", no NUL).  An
// endpoint on no NIC the fabric knows has an empty uuid and its own text as
// osname.
void fabric_endpoints(pmix_info_t &info, const fabric::Fabric &fab, fabric::Index node,
                      const std::vector<std::string> &endpoints)
{
    auto *array =
        start_array<pmix_endpoint_t>(info, PMIX_FABRIC_ENDPT, PMIX_ENDPOINT, endpoints.size());
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
        const auto nic = nic_of_endpoint(fab, node, endpoints[i]);
        array[i].uuid = copy_text(nic ? coord::nic_name(fab, *nic) : std::string());
        array[i].osname = copy_text(nic ? fab.nics()[*nic].name : endpoints[i]);
        array[i].endpt.bytes = zeroed<char>(endpoints[i].size());
        if (!endpoints[i].empty()) {
            std::memcpy(array[i].endpt.bytes, endpoints[i].data(), endpoints[i].size());
        }
        array[i].endpt.size = endpoints[i].size();
    }
}

// A NIC's coordinates in the views its plane gives.
struct NicPlacement {
    fabric::Index nic;
    std::vector<std::pair<meridian_coord_view_t, std::span<const std::uint32_t>>> values;
};

// The NICs of `nics` that have coordinates, in that order, with their
// logical and physical coordinates.  A coordinate of no dimensions is left
// out: PMIx 4.2 cannot carry one (datastore_pmix.cc).
std::vector<NicPlacement> placed_nics(const mca_coord_context &context,
                                      std::span<const fabric::Index> nics)
{
    std::vector<NicPlacement> placed;
    for (const fabric::Index nic : nics) {
        NicPlacement p{nic, {}};
        for (const auto view : {MERIDIAN_COORD_LOGICAL_VIEW, MERIDIAN_COORD_PHYSICAL_VIEW}) {
            if (auto value = coord::nic_coordinate(context, nic, view); !value.empty()) {
                p.values.emplace_back(view, value);
            }
        }
        if (!p.values.empty()) {
            placed.push_back(std::move(p));
        }
    }
    return placed;
}

// pmix.fab.coord: an array of pmix_geometry_t, one per placed NIC of a
// node (PMIx gives it per node: "the coordinates of all devices on the
// node, including values for all supported coordinate views"): fabric
// is the plane's index, uuid "node:nic", osname the NIC's name, and its
// coordinates (logical, then physical).
void fabric_coordinates(pmix_info_t &info, const fabric::Fabric &fab,
                        const std::vector<NicPlacement> &placed)
{
    auto *array =
        start_array<pmix_geometry_t>(info, PMIX_FABRIC_COORDINATES, PMIX_GEOMETRY, placed.size());
    for (std::size_t i = 0; i < placed.size(); ++i) {
        const NicPlacement &p = placed[i];
        pmix_geometry_t &g = array[i];
        g.fabric = fab.nics()[p.nic].plane;
        g.uuid = copy_text(coord::nic_name(fab, p.nic));
        g.osname = copy_text(fab.nics()[p.nic].name);
        g.coordinates = zeroed<pmix_coord_t>(p.values.size());
        g.ncoords = p.values.size();
        for (std::size_t v = 0; v < p.values.size(); ++v) {
            const auto &[view, value] = p.values[v];
            g.coordinates[v].view = view;
            g.coordinates[v].coord = zeroed<std::uint32_t>(value.size());
            std::copy(value.begin(), value.end(), g.coordinates[v].coord);
            g.coordinates[v].dims = value.size();
        }
    }
}

// The coord context of this job: the last allocation placed it (or said
// why not, as a warning: then there is none), but the launcher may have
// allocated another job since; then this one is placed again.  Null when
// coord cannot place it (coordinates are an extra).
const mca_coord_context *context_of(const Job &job)
{
    const mca_coord_context *context = coord::context();
    if (context == nullptr) {
        return nullptr;
    }
    if (context->fabric == job.fabric && context->job != nullptr &&
        context->job->nspace == job.map.nspace &&
        context->job->procs.size() == job.map.procs.size()) {
        return context;
    }
    if (!coord::set_context(job.fabric, std::make_shared<const fabric::JobMap>(job.map))) {
        return nullptr;
    }
    return coord::context();
}

} // namespace

Status pmix_proc_data(const mca_pnet_job &handle, std::uint32_t rank, pmix_info **info,
                      std::size_t *count)
{
    const Job &job = handle.job;
    auto store = datastore::store();
    if (!store) {
        return store.error();
    }
    const datastore::ProcId proc{job.map.nspace, rank};
    const fabric::Index node = job.map.procs[rank].node;
    const auto not_set_up = [&] {
        return make_error(MERIDIAN_ERR_NOT_INITIALIZED,
                          "the results of rank " + std::to_string(rank) +
                              " are not stored: call meridian_pnet_setup_local_network for node " +
                              job.fabric->nodes()[node].name + " first");
    };
    // The request entries, then meridian.net.endpt, pmix.fab.endpt and
    // meridian.net.coord; last, what a Meridian process puts for the other
    // hosts' processes (the same request entries and meridian.net.*
    // values, an empty endpoint list included) as one value, which it reads
    // with one PMIx_Get.
    InfoArray out(job.grants.size() + 4);
    datastore::InfoList shared;
    shared.reserve(job.grants.size() + 2);
    for (const auto &grant : job.grants) {
        auto entry = (*store)->get(proc, grant.id);
        if (!entry) {
            return entry.error().status == MERIDIAN_ERR_NOT_FOUND ? not_set_up() : entry.error();
        }
        if (auto loaded = datastore::to_pmix_info(out.next(), grant.id, *entry); !loaded) {
            return make_error(loaded.error().status,
                              "request \"" + grant.id + "\": " + loaded.error().message);
        }
        shared.push_back({grant.id, std::move(*entry)});
    }
    auto endpoints = (*store)->get(proc, coord::key_endpoint);
    if (!endpoints && endpoints.error().status != MERIDIAN_ERR_NOT_FOUND) {
        return endpoints.error();
    }
    const auto *list = endpoints ? std::get_if<std::vector<std::string>>(&*endpoints) : nullptr;
    const bool has_endpoints = list != nullptr && !list->empty();
    if (has_endpoints) {
        if (auto loaded = datastore::to_pmix_info(out.next(), key_published_endpoints, *list);
            !loaded) {
            return loaded;
        }
        fabric_endpoints(out.next(), *job.fabric, node, *list);
    }
    shared.push_back(
        {std::string(key_published_endpoints), has_endpoints ? *list : std::vector<std::string>{}});
    if (const mca_coord_context *context = context_of(job); context != nullptr) {
        if (auto coordinates = coord::coordinates(rank); coordinates) {
            std::erase_if(*coordinates, [](const Coordinate &c) { return c.coord.empty(); });
            if (!coordinates->empty()) {
                if (auto loaded = datastore::to_pmix_info(out.next(), key_published_coordinates,
                                                          *coordinates);
                    !loaded) {
                    return loaded;
                }
                shared.push_back({std::string(key_published_coordinates), std::move(*coordinates)});
            }
        }
    }
    if (auto loaded = datastore::to_pmix_info(out.next(), key_launcher_results, shared); !loaded) {
        return loaded;
    }
    *count = out.used();
    *info = out.release();
    return success();
}

Status pmix_node_data(const mca_pnet_job &handle, std::string_view node, pmix_info **info,
                      std::size_t *count)
{
    const Job &job = handle.job;
    const auto index = job.fabric->find_node(node);
    if (!index) {
        return make_error(MERIDIAN_ERR_NOT_FOUND, "unknown node " + util::quoted(node) + " (" +
                                                      fabric::some_nodes(*job.fabric) + ")");
    }
    InfoArray out(1);
    if (const mca_coord_context *context = context_of(job); context != nullptr) {
        if (auto placed = placed_nics(*context, job.fabric->nodes()[*index].nics);
            !placed.empty()) {
            fabric_coordinates(out.next(), *job.fabric, placed);
        }
    }
    *count = out.used();
    *info = *count == 0 ? nullptr : out.release();
    return success();
}

Status pmix_node_inventory(const mca_pnet_job &handle, pmix_info **info, std::size_t *count)
{
    datastore::InfoList inventory;
    for (const auto &[component, bytes] : handle.inventory) {
        inventory.push_back({component, datastore::Bytes(bytes.begin(), bytes.end())});
    }
    InfoArray out(1);
    if (auto loaded = datastore::to_pmix_info(out.next(), key_node_inventory, inventory); !loaded) {
        return loaded;
    }
    *count = out.used();
    *info = out.release();
    return success();
}

} // namespace meridian::pnet::detail

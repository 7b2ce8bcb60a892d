// SPDX-License-Identifier: BSD-3-Clause
// pnet/ucx: UCX devices per process.  Each node lists its UCX network
// devices and transports through UCT (collect_inventory); the launcher keeps
// every node's list (deliver_inventory) and gives each process of a "ucx"
// request its nearest devices (allocate); setup_fork hands them to UCX as
// UCX_NET_DEVICES / UCX_TLS.  Rules in README.md and pnet_ucx_devices.hpp.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/pnet_ucx/pnet_ucx_devices.hpp"
#include <meridian/mca/carto/base/base.hpp>
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/runtime/datastore.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace
{

namespace ucx = meridian::pnet_ucx;
namespace fabric = meridian::fabric;
using meridian::pnet::Grant;
using meridian::pnet::Request;

constexpr std::string_view served_type = "ucx";

int pnet_ucx_priority = 20;

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("pnet_ucx register_params", [&]() -> int {
        const int index = meridian_mca_base_component_param_register(
            self, "priority",
            "Order of the UCX pnet component among the active pnet components (higher is asked "
            "first); it serves requests of type ucx",
            MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &pnet_ucx_priority);
        if (index < 0) {
            return index;
        }
        const int bounded = meridian_mca_base_param_set_bounds(index, 0, 100);
        return bounded < 0 ? bounded : MERIDIAN_SUCCESS;
    });
}

// Every node's delivered devices, by node name.  Delivery and allocation may
// come from different threads of a launcher, hence the lock.
struct DeliveredInventory {
    std::mutex lock;
    std::unordered_map<std::string, ucx::NodeDevices> nodes;
};

DeliveredInventory &delivered()
{
    static DeliveredInventory inventory;
    return inventory;
}

// What a fabric file says a node has when it delivered nothing: each NIC of
// a non-Ethernet plane as port 1 of that device with UCX's rc and ud
// transport aliases, and the "sm" alias for the node's shared memory.
ucx::NodeDevices devices_from_fabric(const fabric::Fabric &fab, fabric::Index node)
{
    ucx::NodeDevices devices;
    for (const fabric::Index index : fab.nodes()[node].nics) {
        const fabric::Nic &nic = fab.nics()[index];
        if (nic.plane == fabric::no_index || fab.planes()[nic.plane].type == "ethernet") {
            continue;
        }
        devices.devices.push_back({nic.name + ":1", {"rc", "ud"}, nic.package, nic.plane});
    }
    devices.local_transports = {"sm"};
    return devices;
}

// A node's devices with their planes (and packages UCX did not know) taken
// from the fabric's NIC of the same name ("mlx5_0:1" -> NIC mlx5_0, else a
// NIC named like the whole device).  Caller holds no lock.
ucx::NodeDevices resolve_node(const fabric::Fabric &fab, fabric::Index node)
{
    ucx::NodeDevices devices;
    {
        DeliveredInventory &inventory = delivered();
        const std::lock_guard guard(inventory.lock);
        const auto found = inventory.nodes.find(fab.nodes()[node].name);
        if (found == inventory.nodes.end()) {
            return devices_from_fabric(fab, node);
        }
        devices = found->second;
    }
    for (ucx::Device &device : devices.devices) {
        std::optional<fabric::Index> nic = fab.find_nic(node, ucx::nic_of_device(device.name));
        if (!nic) {
            nic = fab.find_nic(node, device.name);
        }
        if (nic) {
            device.plane = fab.nics()[*nic].plane;
            if (device.package < 0) {
                device.package = fab.nics()[*nic].package;
            }
        }
    }
    return devices;
}

// The base names the component serving each grant (base.hpp, Grant); a job
// whose grants were not prepared by the base falls back to the request type.
bool serves(const meridian::pnet::Job &job, std::size_t request)
{
    if (request < job.grants.size()) {
        return job.grants[request].component == "ucx";
    }
    const Request &asked = job.requests[request];
    return asked.type && asked.type->value == served_type;
}

// ------------------------------------------------------------ module calls

int collect_inventory(const mca_pnet_base_module_t *, mca_pnet_blob_t *inventory)
{
    return meridian::c_boundary("pnet_ucx collect_inventory", [&]() -> int {
        if (inventory == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto resources = ucx::query_uct_resources();
        if (!resources) {
            meridian_mca_base_framework_verbose(&meridian_pnet_base_framework,
                                                MCA_BASE_VERBOSE_INFO, "%s",
                                                resources.error().message.c_str());
            return MERIDIAN_ERR_TAKE_NEXT_OPTION;
        }
        // Without a host map the devices' packages are unknown, not an error.
        const auto host = meridian::carto::host_graph();
        const meridian::WeightedGraph *graph = host ? *host : nullptr;
        const std::string text =
            ucx::format_inventory(ucx::devices_from_resources(*resources, graph));
        void *bytes = std::malloc(text.size());
        if (bytes == nullptr) {
            meridian::report_error("pnet_ucx: out of memory for the inventory");
            return MERIDIAN_ERR_OUT_OF_RESOURCE;
        }
        std::memcpy(bytes, text.data(), text.size());
        inventory->bytes = bytes;
        inventory->size = text.size();
        return MERIDIAN_SUCCESS;
    });
}

int deliver_inventory(const mca_pnet_base_module_t *, const char *node,
                      const mca_pnet_blob_t *inventory, mca_pnet_fabric_t *)
{
    return meridian::c_boundary("pnet_ucx deliver_inventory", [&]() -> int {
        if (node == nullptr || inventory == nullptr ||
            (inventory->bytes == nullptr && inventory->size != 0)) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const std::string_view text(static_cast<const char *>(inventory->bytes), inventory->size);
        auto devices = ucx::parse_inventory(text, std::string("pnet_ucx inventory of ") + node);
        if (!devices) {
            meridian::report_error(devices.error().message);
            return devices.error().status;
        }
        DeliveredInventory &delivered_now = delivered();
        const std::lock_guard guard(delivered_now.lock);
        delivered_now.nodes.insert_or_assign(node, std::move(*devices));
        return MERIDIAN_SUCCESS;
    });
}

// One request into `grant` (a scratch copy; committed by allocate).
meridian::Status allocate_request(const meridian::pnet::Job &job, const Request &request,
                                  std::span<const ucx::NodeView> views,
                                  std::span<const std::uint32_t> view_of, Grant &grant)
{
    const fabric::Fabric &fab = *job.fabric;
    const std::string who = "request " + meridian::util::quoted(request.id) + ": ";
    if (request.qos && request.qos->required) {
        return meridian::make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                                    who + "QOS " + std::to_string(request.qos->value) +
                                        " is required but UCX devices have no QoS levels");
    }
    if (request.bandwidth_mbps && request.bandwidth_mbps->required) {
        return meridian::make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                                    who + "BANDWIDTH " +
                                        fabric::format_rate_mbps(request.bandwidth_mbps->value) +
                                        " is required but pnet_ucx does not reserve bandwidth");
    }
    ucx::Choice choice;
    choice.request_id = request.id;
    if (request.endpts) {
        choice.endpts = request.endpts->value;
        choice.endpts_required = request.endpts->required;
    }
    std::string plane_name;
    if (request.plane) {
        const auto plane = fab.find_plane(request.plane->value);
        if (plane) {
            choice.plane = *plane;
            plane_name = fab.planes()[*plane].name;
            choice.plane_name = plane_name;
            choice.plane_required = request.plane->required;
        } else if (request.plane->required) {
            return meridian::make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                                        who + "PLANE " + request.plane->value +
                                            " is required but the fabric has no such plane");
        }
    }
    grant.id = request.id;
    grant.type = std::string(served_type);
    grant.plane = plane_name;
    grant.component = "ucx";
    grant.endpts_asked = choice.endpts;
    const auto node_of = [&](fabric::Index node) { return views[view_of[node]]; };
    const meridian::Status assigned =
        ucx::assign_devices(job.map.procs, job.map.nodes, node_of, choice, grant);
    if (!assigned) {
        return assigned;
    }
    return meridian::success();
}

int allocate(const mca_pnet_base_module_t *, mca_pnet_job_t *handle)
{
    return meridian::c_boundary("pnet_ucx allocate", [&]() -> int {
        if (handle == nullptr || !handle->job.fabric) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        meridian::pnet::Job &job = handle->job;
        bool any = false;
        for (std::size_t i = 0; i < job.requests.size(); ++i) {
            any = any || serves(job, i);
        }
        if (!any) {
            return MERIDIAN_ERR_TAKE_NEXT_OPTION;
        }
        const fabric::Fabric &fab = *job.fabric;
        // The job's nodes only: O(fabric nodes) for the index, O(NICs) each.
        std::vector<ucx::NodeDevices> devices;
        std::vector<ucx::NodeView> views;
        std::vector<std::uint32_t> view_of(fab.nodes().size(), 0);
        devices.reserve(job.map.nodes.size());
        for (const fabric::Index node : job.map.nodes) {
            view_of[node] = static_cast<std::uint32_t>(devices.size());
            devices.push_back(resolve_node(fab, node));
        }
        views.reserve(devices.size());
        for (std::size_t i = 0; i < devices.size(); ++i) {
            views.push_back({fab.nodes()[job.map.nodes[i]].name, &devices[i]});
        }

        // All requests into scratch grants first: a failure leaves the job as it was.
        std::vector<std::pair<std::size_t, Grant>> made;
        for (std::size_t i = 0; i < job.requests.size(); ++i) {
            if (!serves(job, i)) {
                continue;
            }
            Grant grant = i < job.grants.size() ? job.grants[i] : Grant{};
            const meridian::Status status =
                allocate_request(job, job.requests[i], views, view_of, grant);
            if (!status) {
                meridian::report_error(status.error().message);
                return status.error().status;
            }
            made.emplace_back(i, std::move(grant));
        }
        if (job.grants.size() < job.requests.size()) {
            const std::size_t first_new = job.grants.size();
            job.grants.resize(job.requests.size());
            for (std::size_t i = first_new; i < job.requests.size(); ++i) {
                job.grants[i].id = job.requests[i].id;
            }
        }
        for (auto &[index, grant] : made) {
            job.grants[index] = std::move(grant);
        }
        return MERIDIAN_SUCCESS;
    });
}

int setup_fork(const mca_pnet_base_module_t *, const mca_pnet_job_t *handle, uint32_t rank,
               mca_pnet_env_t *env)
{
    return meridian::c_boundary("pnet_ucx setup_fork", [&]() -> int {
        if (handle == nullptr || env == nullptr || !handle->job.fabric) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const meridian::pnet::Job &job = handle->job;
        if (rank >= job.map.procs.size()) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        // The process's devices over all its ucx requests, first come first.
        std::vector<std::string> names;
        for (std::size_t i = 0; i < job.grants.size() && i < job.requests.size(); ++i) {
            const Grant &grant = job.grants[i];
            if (!serves(job, i) || grant.device_offsets.size() <= rank + 1) {
                continue;
            }
            for (std::uint32_t at = grant.device_offsets[rank]; at < grant.device_offsets[rank + 1];
                 ++at) {
                const std::string &name = grant.device_names[grant.devices[at]];
                if (std::find(names.begin(), names.end(), name) == names.end()) {
                    names.push_back(name);
                }
            }
        }
        if (names.empty()) {
            return MERIDIAN_ERR_TAKE_NEXT_OPTION;
        }
        const ucx::NodeDevices node = resolve_node(*job.fabric, job.map.procs[rank].node);
        std::vector<const ucx::Device *> devices;
        for (const std::string &name : names) {
            for (const ucx::Device &device : node.devices) {
                if (device.name == name) {
                    devices.push_back(&device);
                }
            }
        }
        const std::string tls = ucx::transports_for(devices, node.local_transports);
        int status = meridian_mca_pnet_env_set(env, "UCX_NET_DEVICES",
                                               meridian::util::join(names, ",").c_str());
        if (status == MERIDIAN_SUCCESS) {
            status = meridian_mca_pnet_env_set(env, "UCX_TLS", tls.c_str());
        }
        return status;
    });
}

// The base has stored each grant's entry (netid: the devices); a process's
// UCX endpoints are its devices, added to the entry as pmix.net.endpt.
int setup_local_network(const mca_pnet_base_module_t *, mca_pnet_job_t *handle, const char *node)
{
    return meridian::c_boundary("pnet_ucx setup_local_network", [&]() -> int {
        if (handle == nullptr || node == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const meridian::pnet::Job &job = handle->job;
        const auto node_index = job.fabric->find_node(node);
        if (!node_index) {
            return MERIDIAN_ERR_TAKE_NEXT_OPTION;
        }
        auto store = meridian::datastore::store();
        if (!store) {
            meridian::report_error(store.error().message);
            return store.error().status;
        }
        namespace datastore = meridian::datastore;
        const auto ranks = static_cast<std::uint32_t>(job.map.procs.size());
        for (std::size_t i = 0; i < job.grants.size() && i < job.requests.size(); ++i) {
            if (!serves(job, i)) {
                continue;
            }
            const Grant &grant = job.grants[i];
            for (std::uint32_t rank = 0; rank < ranks; ++rank) {
                const auto devices = grant.devices_of(rank);
                if (job.map.procs[rank].node != *node_index || devices.empty()) {
                    continue;
                }
                const datastore::ProcId proc{job.map.nspace, rank};
                auto value = (*store)->get(proc, grant.id);
                if (!value || !std::holds_alternative<datastore::InfoList>(*value)) {
                    continue;
                }
                auto info = std::get<datastore::InfoList>(std::move(*value));
                std::vector<std::string> endpoints;
                for (const auto device : devices) {
                    endpoints.push_back(grant.device_names[device]);
                }
                info.push_back({std::string(meridian::coord::key_endpoint), std::move(endpoints)});
                if (auto stored = (*store)->store(proc, grant.id, std::move(info)); !stored) {
                    meridian::report_error(stored.error().message);
                    return stored.error().status;
                }
            }
        }
        return MERIDIAN_SUCCESS;
    });
}

// Nothing is pooled: forgetting the devices is all there is to give back.
int deregister(const mca_pnet_base_module_t *, mca_pnet_job_t *handle)
{
    return meridian::c_boundary("pnet_ucx deregister", [&]() -> int {
        if (handle == nullptr) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        meridian::pnet::Job &job = handle->job;
        for (std::size_t i = 0; i < job.grants.size() && i < job.requests.size(); ++i) {
            if (serves(job, i)) {
                Grant &grant = job.grants[i];
                grant.device_offsets = {};
                grant.devices = {};
                grant.device_names = {};
            }
        }
        return MERIDIAN_SUCCESS;
    });
}

const mca_pnet_base_module_t module = {
    .types = "ucx",
    .collect_inventory = collect_inventory,
    .deliver_inventory = deliver_inventory,
    .allocate = allocate,
    .setup_local_network = setup_local_network,
    .setup_fork = setup_fork,
    .deregister = deregister,
};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    return meridian::c_boundary("pnet_ucx query", [&]() -> int {
        *selected = const_cast<mca_pnet_base_module_t *>(&module);
        *priority = pnet_ucx_priority;
        return MERIDIAN_SUCCESS;
    });
}

// A reopened framework starts from no delivered inventory.
int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("pnet_ucx close", [&]() -> int {
        DeliveredInventory &inventory = delivered();
        const std::lock_guard guard(inventory.lock);
        inventory.nodes.clear();
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) mca_pnet_base_component_t mca_pnet_ucx_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "pnet",
            .framework_version = MCA_PNET_BASE_VERSION,
            .component_name = "ucx",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr, // UCX is asked only when an inventory is wanted
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

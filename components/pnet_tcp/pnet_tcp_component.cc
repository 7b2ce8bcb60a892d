// SPDX-License-Identifier: BSD-3-Clause
// pnet/tcp: TCP and UDP endpoints (static ports) for a job's processes, from
// this host's interfaces or a fabric file.  Always available; the pipeline
// runs it with every other active pnet component.  See README.md.
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "components/pnet_tcp/pnet_tcp_allocate.hpp"
#include "components/pnet_tcp/pnet_tcp_claim.hpp"
#include "components/pnet_tcp/pnet_tcp_inventory.hpp"
#include "components/pnet_tcp/pnet_tcp_switches.hpp"
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/pnet/pnet.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/mca/base/param_registry.hpp>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

// Parameter storage: the initial values are the defaults.
const char *static_ports = nullptr; // owned by Meridian
const char *fabric_file = nullptr;  // owned by Meridian
const char *ledger = nullptr;       // owned by Meridian
const char *switches = nullptr;     // owned by Meridian
int priority = 20;

// static_pools() parses once per open.
std::optional<meridian::Result<std::vector<meridian::fabric::PortPoolSpec>>> parsed_pools;
// switch_map() too.
std::optional<meridian::Result<meridian::pnet_tcp::SwitchMap>> parsed_switches;

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("pnet_tcp register_params", [&]() -> int {
        int index = meridian_mca_base_component_param_register(
            self, "static_ports",
            "Static ports the launcher may hand out on nodes whose fabric description names none, "
            "in PMIx's syntax: PROTOCOL[:CIDR]:RANGES;... e.g. "
            "tcp:10.10.10.0/24:32000-32100,33000;udp:40000,40005 (a CIDR limits a pool to NICs "
            "on that subnet)",
            MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &static_ports);
        if (index < 0) {
            return index;
        }
        index = meridian_mca_base_component_param_register(
            self, "fabric_file",
            "A fabric file (nodes, NICs, planes, subnets, switches, port pools) used as the "
            "inventory where no fabric manager is present; empty: this host's interfaces",
            MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &fabric_file);
        if (index < 0) {
            return index;
        }
        index = meridian_mca_base_component_param_register(
            self, "switches",
            "The Ethernet switch each address hangs off, which a host cannot see from its "
            "interfaces: NAME:ADDRESSES;... with ADDRESSES a ',' list of addresses, ranges "
            "A.B.C.D-A.B.C.D and subnets A.B.C.D/N, e.g. "
            "data0:10.77.0.1-10.77.0.2;data1:10.77.0.3-10.77.0.8 (coord_tcp's y); empty: "
            "switches unknown",
            MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &switches);
        if (index < 0) {
            return index;
        }
        index = meridian_mca_base_component_param_register(
            self, "ledger",
            "The port ledger the jobs on this host share, so that a static port is held by one "
            "job at a time (in-job mode): an absolute file path (its directory is made when "
            "missing); empty: /tmp/meridian-UID/ports; none: no ledger (ports are unique within "
            "a job only)",
            MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &ledger);
        if (index < 0) {
            return index;
        }
        index = meridian_mca_base_component_param_register(
            self, "priority",
            "Order of the tcp pnet component among the active ones (higher first)",
            MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &priority);
        if (index < 0) {
            return index;
        }
        const int bounded = meridian_mca_base_param_set_bounds(index, 0, 100);
        return bounded < 0 ? bounded : MERIDIAN_SUCCESS;
    });
}

int collect_inventory(const mca_pnet_base_module_t *, mca_pnet_blob_t *inventory)
{
    if (inventory == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary("pnet_tcp collect_inventory", [&] {
        auto text = meridian::pnet_tcp::inventory_text();
        if (!text) {
            meridian::report_error(text.error().message);
            return text.error().status;
        }
        void *bytes = std::malloc(text->size() + 1);
        if (bytes == nullptr) {
            return static_cast<int>(MERIDIAN_ERR_OUT_OF_RESOURCE);
        }
        std::memcpy(bytes, text->data(), text->size());
        inventory->bytes = bytes;
        inventory->size = text->size();
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int deliver_inventory(const mca_pnet_base_module_t *, const char *node,
                      const mca_pnet_blob_t *inventory, mca_pnet_fabric_t *fabric)
{
    if (node == nullptr || inventory == nullptr || fabric == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary("pnet_tcp deliver_inventory", [&] {
        const std::span<const std::uint8_t> blob(
            static_cast<const std::uint8_t *>(inventory->bytes),
            inventory->bytes != nullptr ? inventory->size : 0);
        auto delivered = meridian::pnet_tcp::deliver(node, blob, fabric->fabric);
        if (!delivered) {
            meridian::report_error(delivered.error().message);
            return delivered.error().status;
        }
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int allocate(const mca_pnet_base_module_t *, mca_pnet_job_t *job)
{
    if (job == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary("pnet_tcp allocate",
                                [&] { return meridian::pnet_tcp::allocate(job->job); });
}

int setup_local_network(const mca_pnet_base_module_t *, mca_pnet_job_t *job, const char *node)
{
    if (job == nullptr || node == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary("pnet_tcp setup_local_network", [&] {
        return meridian::pnet_tcp::setup_local_network(job->job, node);
    });
}

int deregister(const mca_pnet_base_module_t *, mca_pnet_job_t *job)
{
    if (job == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary("pnet_tcp deregister",
                                [&] { return meridian::pnet_tcp::deregister(job->job); });
}

const mca_pnet_base_module_t module = {
    .types = "tcp,udp",
    .collect_inventory = collect_inventory,
    .deliver_inventory = deliver_inventory,
    .allocate = allocate,
    .setup_local_network = setup_local_network,
    .setup_fork = nullptr, // sockets need no environment
    .deregister = deregister,
};

// A bad pnet_tcp_static_ports or pnet_tcp_switches is reported when the
// component opens, whether or not a job ever draws from it (the component
// then stays closed).
int open_component(const mca_base_component_t *)
{
    return meridian::c_boundary("pnet_tcp open", [] {
        parsed_pools.reset();
        parsed_switches.reset();
        const auto pools = meridian::pnet_tcp::static_pools();
        if (!pools) {
            meridian::report_error(pools.error().message);
            return pools.error().status;
        }
        const auto map = meridian::pnet_tcp::switch_map();
        if (!map) {
            meridian::report_error(map.error().message);
            return map.error().status;
        }
        if (auto checked = meridian::pnet_tcp::check_ledger_param(); !checked) {
            meridian::report_error(checked.error().message);
            return checked.error().status;
        }
        return static_cast<int>(MERIDIAN_SUCCESS);
    });
}

int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("pnet_tcp close", [&]() -> int {
        parsed_pools.reset();
        parsed_switches.reset();
        meridian::pnet_tcp::forget_pools();
        meridian::pnet_tcp::forget_claims();
        return MERIDIAN_SUCCESS;
    });
}

int query(const mca_base_component_t *, mca_base_module_t **selected, int *chosen_priority)
{
    return meridian::c_boundary("pnet_tcp query", [&]() -> int {
        // The module is read-only; the ABI's void * only carries it to the base.
        *selected = const_cast<mca_pnet_base_module_t *>(&module);
        *chosen_priority = priority;
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

namespace meridian::pnet_tcp
{

const char *static_ports_text()
{
    return static_ports;
}

const char *fabric_file_path()
{
    return fabric_file;
}

const char *ledger_param()
{
    return ledger;
}

std::string param_where(const std::string &full_name)
{
    auto &registry = mca::ParamRegistry::instance();
    const auto index = registry.find(full_name);
    const mca::Param *param = index ? registry.param(*index) : nullptr;
    return param != nullptr ? full_name + " from " + param->source().where() : full_name;
}

Result<std::vector<fabric::PortPoolSpec>> static_pools()
{
    if (!parsed_pools) {
        const char *text = static_ports != nullptr ? static_ports : "";
        parsed_pools.emplace(
            fabric::parse_static_ports(text, param_where("pnet_tcp_static_ports")));
    }
    return *parsed_pools;
}

Result<SwitchMap> switch_map()
{
    if (!parsed_switches) {
        const char *text = switches != nullptr ? switches : "";
        parsed_switches.emplace(SwitchMap::parse(text, param_where("pnet_tcp_switches")));
    }
    return *parsed_switches;
}

} // namespace meridian::pnet_tcp

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_pnet_base_component_t mca_pnet_tcp_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "pnet",
            .framework_version = MCA_PNET_BASE_VERSION,
            .component_name = "tcp",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = open_component,
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// coord/tcp: seed 001's logical coordinates for any plane.  Each NIC is at
// (x, y, z) = (its index on its node, its switch's index on the plane, its
// subnet's index on the plane); the cost between two NICs is counted in hops
// from the same facts (README.md has the rule and a worked example).  No
// physical view: a TCP fabric says nothing about cabling.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

int coord_tcp_priority = 20;

// Hops are links crossed (README.md): NIC-switch-NIC is 2; between two
// switches of one subnet 2 more (up to the subnet's core and down); between
// subnets 2 more again, through the router.
constexpr std::uint64_t hops_same_switch = 2;
constexpr std::uint64_t hops_same_subnet = 4;
constexpr std::uint64_t hops_routed = 6;

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("coord_tcp register_params", [&]() -> int {
        const int index = meridian_mca_base_component_param_register(
            self, "priority",
            "Selection priority of the TCP coord component, which places every plane (x = NIC "
            "index "
            "on its node, y = switch, z = subnet); components with a higher priority are asked "
            "first",
            MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &coord_tcp_priority);
        if (index < 0) {
            return index;
        }
        const int bounded = meridian_mca_base_param_set_bounds(index, 0, 100);
        return bounded < 0 ? bounded : MERIDIAN_SUCCESS;
    });
}

int place(mca_coord_context_t *context, uint32_t plane_index)
{
    const meridian::fabric::Fabric &fabric = *context->fabric;
    const meridian::fabric::Plane &plane = fabric.planes()[plane_index];
    // A NIC without a switch (or subnet) gets the index one past the plane's
    // last: a slot of its own in the shape, never the same switch as another.
    const auto switches = static_cast<std::uint32_t>(plane.switches.size());
    const auto subnets = static_cast<std::uint32_t>(plane.subnets.size());
    std::uint32_t per_node = 1;
    bool unknown_switch = false;
    bool unknown_subnet = false;
    for (const auto nic : plane.nics) {
        const auto &n = fabric.nics()[nic];
        per_node =
            std::max(per_node, static_cast<std::uint32_t>(fabric.nodes()[n.node].nics.size()));
        unknown_switch = unknown_switch || n.sw == meridian::fabric::no_index;
        unknown_subnet = unknown_subnet || n.subnet == meridian::fabric::no_index;
    }
    const std::uint32_t shape[3] = {per_node,
                                    std::max<std::uint32_t>(1, switches + (unknown_switch ? 1 : 0)),
                                    std::max<std::uint32_t>(1, subnets + (unknown_subnet ? 1 : 0))};
    if (const int rc = meridian_mca_coord_context_set_shape(context, plane_index,
                                                            MERIDIAN_COORD_LOGICAL_VIEW, shape, 3);
        rc != MERIDIAN_SUCCESS) {
        return rc;
    }
    for (const auto nic : plane.nics) {
        const auto &n = fabric.nics()[nic];
        const std::uint32_t coord[3] = {
            n.index_on_node,
            n.sw == meridian::fabric::no_index ? switches : fabric.switches()[n.sw].index_in_plane,
            n.subnet == meridian::fabric::no_index ? subnets
                                                   : fabric.subnets()[n.subnet].index_in_plane};
        if (const int rc = meridian_mca_coord_context_set_nic(
                context, nic, MERIDIAN_COORD_LOGICAL_VIEW, coord, 3);
            rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }
    return MERIDIAN_SUCCESS;
}

int compute_plane(const mca_coord_base_module_t *, mca_coord_context_t *context, uint32_t plane)
{
    return meridian::c_boundary("coord_tcp compute_plane", [&]() -> int {
        if (context == nullptr || context->fabric == nullptr ||
            plane >= context->fabric->planes().size()) {
            meridian::report_error("coord_tcp: asked to place a plane that is not in the fabric");
            return MERIDIAN_ERR_BAD_PARAM;
        }
        return place(context, plane);
    });
}

// From the fabric rather than the coordinates: x, y and z alone cannot tell
// two nodes' NICs apart, nor a known switch from the "unknown" slot.
int nic_cost(const mca_coord_base_module_t *, const mca_coord_context_t *context, uint32_t a,
             uint32_t b, uint64_t *hops)
{
    return meridian::c_boundary("coord_tcp nic_cost", [&]() -> int {
        if (context == nullptr || context->fabric == nullptr || hops == nullptr ||
            a >= context->fabric->nics().size() || b >= context->fabric->nics().size()) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto &x = context->fabric->nics()[a];
        const auto &y = context->fabric->nics()[b];
        const bool both_subnets =
            x.subnet != meridian::fabric::no_index && y.subnet != meridian::fabric::no_index;
        if (a == b || x.node == y.node) {
            *hops = 0; // loopback, no wire
        } else if (both_subnets && x.subnet != y.subnet) {
            *hops = hops_routed; // a router between them, even behind one switch
        } else if (x.sw != meridian::fabric::no_index && x.sw == y.sw) {
            *hops = hops_same_switch;
        } else {
            // One segment (or nothing says otherwise), different or unknown switches.
            *hops = hops_same_subnet;
        }
        return MERIDIAN_SUCCESS;
    });
}

const mca_coord_base_module_t module = {.compute_plane = compute_plane, .nic_cost = nic_cost};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    return meridian::c_boundary("coord_tcp query", [&]() -> int {
        // The module is read-only; the ABI's void * only carries it to the base.
        *selected = const_cast<mca_coord_base_module_t *>(&module);
        *priority = coord_tcp_priority;
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_coord_base_component_t mca_coord_tcp_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "coord",
            .framework_version = MCA_COORD_BASE_VERSION,
            .component_name = "tcp",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = nullptr,  // nothing to acquire
            .close = nullptr, // nothing held
            .query = query,
        },
};

} // extern "C"

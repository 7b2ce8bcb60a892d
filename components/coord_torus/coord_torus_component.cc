// SPDX-License-Identifier: BSD-3-Clause
// coord/torus: planes wired as a mesh or torus.  A plane with a shape in the
// fabric (plane ... shape=8x4x4 periodic=...) is placed on that shape; with
// coord_torus_shape set, every other plane is placed on the parameter's
// shape too; otherwise the plane is left to the next component.
//
// Physical view: a NIC's coord= from the fabric, else its node's coord=, else
// the node's place among the plane's nodes in fabric order, laid out row-major
// with dimension 0 fastest (in 8x4: 0 -> (0,0), 1 -> (1,0), 8 -> (0,1)).
// Logical view: the same shape filled in rank order -- the job's nodes on the
// plane in order of their first rank, then the plane's other nodes in fabric
// order.  Cost: wrap-around Manhattan hops between physical positions.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/coord_torus/coord_torus_shape.hpp"
#include "opal/util/no_destructor.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/mca/coord/coord.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/base/mca_base_param.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace
{

using meridian::fabric::Fabric;
using meridian::fabric::Index;
using meridian::fabric::no_index;
namespace torus = meridian::coord_torus;

// Parameter storage: the initial values are the defaults; Meridian writes the
// value resolved from every source back here.
const char *coord_torus_shape = nullptr; // owned by Meridian
const char *coord_torus_periodic = "yes";
int coord_torus_priority = 40;

// The parameters parsed once per open: they cannot change while the
// framework is open (READONLY_AFTER_OPEN), and nic_cost needs the
// periodicity of planes placed on the parameter's shape.
struct Settings {
    bool parsed = false;
    std::optional<meridian::Error> error;
    std::vector<std::uint32_t> shape; // empty: coord_torus_shape not set
    std::vector<bool> periodic;
};

Settings &settings()
{
    static meridian::util::NoDestructor<Settings> instance;
    return instance.get();
}

const Settings &parsed_settings()
{
    Settings &s = settings();
    if (s.parsed) {
        return s;
    }
    s.parsed = true;
    const std::string shape_text = coord_torus_shape != nullptr ? coord_torus_shape : "";
    if (shape_text.find_first_not_of(" \t") == std::string::npos) {
        return s;
    }
    auto shape = torus::parse_shape(shape_text, "coord_torus_shape");
    if (!shape) {
        s.error = shape.error();
        return s;
    }
    auto periodic =
        torus::parse_periodic(coord_torus_periodic != nullptr ? coord_torus_periodic : "yes",
                              *shape, "coord_torus_periodic");
    if (!periodic) {
        s.error = periodic.error();
        return s;
    }
    s.shape = std::move(*shape);
    s.periodic = std::move(*periodic);
    return s;
}

int register_params(const mca_base_component_t *self)
{
    return meridian::c_boundary("coord_torus register_params", [&]() -> int {
        int index = meridian_mca_base_component_param_register(
            self, "shape",
            "The mesh/torus every plane without a shape of its own in the fabric is placed on: "
            "dimension sizes joined by x (e.g. 8x4x4x4).  Empty: only planes the fabric gives a "
            "shape are placed by the torus component",
            MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &coord_torus_shape);
        if (index < 0) {
            return index;
        }
        index = meridian_mca_base_component_param_register(
            self, "periodic",
            "Which dimensions of coord_torus_shape wrap around: yes (all: a torus), no (none: a "
            "mesh), or 1/0 per dimension separated by commas (e.g. 1,1,0,1)",
            MCA_BASE_PARAM_TYPE_STRING, nullptr, MCA_BASE_INFO_USER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &coord_torus_periodic);
        if (index < 0) {
            return index;
        }
        index = meridian_mca_base_component_param_register(
            self, "priority",
            "Selection priority of the torus coord component (planes are offered to components in "
            "priority order; the torus component leaves planes without a shape to the next)",
            MCA_BASE_PARAM_TYPE_INT, nullptr, MCA_BASE_INFO_TUNER_ALL,
            MCA_BASE_PARAM_FLAG_READONLY_AFTER_OPEN, &coord_torus_priority);
        if (index < 0) {
            return index;
        }
        const int bounded = meridian_mca_base_param_set_bounds(index, 0, 100);
        return bounded < 0 ? bounded : MERIDIAN_SUCCESS;
    });
}

int open_component(const mca_base_component_t *)
{
    return meridian::c_boundary("coord_torus open", [&]() -> int {
        // Values may have changed since the last open.
        settings() = Settings{};
        return MERIDIAN_SUCCESS;
    });
}

int close_component(const mca_base_component_t *)
{
    return meridian::c_boundary("coord_torus close", [&]() -> int {
        // Free what the parse holds now: the DSO (and this storage) may be
        // unloaded next, and its heap blocks with it would be lost.
        settings() = Settings{};
        return MERIDIAN_SUCCESS;
    });
}

std::string nic_label(const Fabric &fabric, Index nic)
{
    const auto &n = fabric.nics()[nic];
    return fabric.nodes()[n.node].name + ":" + n.name;
}

int refuse(const meridian::fabric::Plane &plane, const std::string &text)
{
    meridian::report_error("coord_torus: plane \"" + plane.name + "\": " + text);
    return MERIDIAN_ERR_BAD_PARAM;
}

int place(mca_coord_context_t *context, Index plane_index, const std::vector<std::uint32_t> &shape)
{
    const Fabric &fabric = *context->fabric;
    const auto &plane = fabric.planes()[plane_index];
    const std::string shape_text = torus::format_shape(shape);

    // The plane's nodes in fabric order; a node's ordinal is its place there.
    std::vector<std::uint32_t> ordinal(fabric.nodes().size(), UINT32_MAX);
    std::vector<Index> plane_nodes;
    for (const Index nic : plane.nics) {
        ordinal[fabric.nics()[nic].node] = 0; // mark; numbered below
    }
    for (Index node = 0; node < fabric.nodes().size(); ++node) {
        if (ordinal[node] != UINT32_MAX) {
            ordinal[node] = static_cast<std::uint32_t>(plane_nodes.size());
            plane_nodes.push_back(node);
        }
    }
    const std::uint64_t positions = torus::position_count(shape);
    if (plane_nodes.size() > positions) {
        return refuse(plane, std::to_string(plane_nodes.size()) + " nodes, but the shape " +
                                 shape_text + " has only " + std::to_string(positions) +
                                 " positions");
    }
    const auto dims = shape.size();
    for (const auto view : {MERIDIAN_COORD_PHYSICAL_VIEW, MERIDIAN_COORD_LOGICAL_VIEW}) {
        if (const int rc = meridian_mca_coord_context_set_shape(context, plane_index, view,
                                                                shape.data(), dims);
            rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }

    // Physical: from the fabric where it says, else laid out.  Two nodes on
    // one position are refused (two NICs of one node may share one).
    std::unordered_map<std::uint64_t, Index> taken;
    taken.reserve(plane.nics.size());
    std::vector<std::uint32_t> laid_out;
    for (const Index nic : plane.nics) {
        const auto &n = fabric.nics()[nic];
        const auto &node = fabric.nodes()[n.node];
        const std::vector<std::uint32_t> *given = nullptr;
        std::string source;
        if (!n.coord.empty()) {
            given = &n.coord;
            source = "coord of NIC " + nic_label(fabric, nic);
        } else if (!node.coord.empty()) {
            given = &node.coord;
            source = "coord of node " + node.name;
        }
        const std::vector<std::uint32_t> *position = given;
        if (given == nullptr) {
            torus::position_of(ordinal[n.node], shape, laid_out);
            position = &laid_out;
        } else {
            if (given->size() != dims) {
                return refuse(plane, nic_label(fabric, nic) + " is at " +
                                         meridian::format_coord(*given) + " (" + source +
                                         "), which has " + std::to_string(given->size()) +
                                         " values, but the shape " + shape_text + " has " +
                                         std::to_string(dims) + " dimensions");
            }
            for (size_t d = 0; d < dims; ++d) {
                if ((*given)[d] >= shape[d]) {
                    return refuse(plane, nic_label(fabric, nic) + " is at " +
                                             meridian::format_coord(*given) + " (" + source +
                                             "), outside the shape " + shape_text);
                }
            }
        }
        const auto [slot, fresh] = taken.emplace(torus::ordinal_of(*position, shape), n.node);
        if (!fresh && slot->second != n.node) {
            return refuse(plane, "nodes " + fabric.nodes()[slot->second].name + " and " +
                                     node.name + " are both at " +
                                     meridian::format_coord(*position));
        }
        if (const int rc = meridian_mca_coord_context_set_nic(
                context, nic, MERIDIAN_COORD_PHYSICAL_VIEW, position->data(), dims);
            rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }

    // Logical: renumber the plane's nodes, the job's first in rank order.
    std::vector<std::uint32_t> logical(fabric.nodes().size(), UINT32_MAX);
    std::uint32_t next = 0;
    if (context->job != nullptr) {
        for (const Index node : context->job->nodes) {
            if (node < ordinal.size() && ordinal[node] != UINT32_MAX &&
                logical[node] == UINT32_MAX) {
                logical[node] = next++;
            }
        }
    }
    for (const Index node : plane_nodes) {
        if (logical[node] == UINT32_MAX) {
            logical[node] = next++;
        }
    }
    for (const Index nic : plane.nics) {
        torus::position_of(logical[fabric.nics()[nic].node], shape, laid_out);
        if (const int rc = meridian_mca_coord_context_set_nic(
                context, nic, MERIDIAN_COORD_LOGICAL_VIEW, laid_out.data(), dims);
            rc != MERIDIAN_SUCCESS) {
            return rc;
        }
    }
    return MERIDIAN_SUCCESS;
}

int compute_plane(const mca_coord_base_module_t *, mca_coord_context_t *context, uint32_t plane)
{
    return meridian::c_boundary("coord_torus compute_plane", [&]() -> int {
        if (context == nullptr || context->fabric == nullptr ||
            plane >= context->fabric->planes().size()) {
            meridian::report_error("coord_torus: asked to place a plane that is not in the fabric");
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto &p = context->fabric->planes()[plane];
        if (!p.shape.empty()) {
            return place(context, plane, p.shape);
        }
        const Settings &s = parsed_settings();
        if (s.error) {
            meridian::report_error("coord_torus: " + s.error->message);
            return s.error->status;
        }
        if (s.shape.empty()) {
            return MERIDIAN_ERR_TAKE_NEXT_OPTION; // neither the fabric nor the parameter shapes it
        }
        return place(context, plane, s.shape);
    });
}

int nic_cost(const mca_coord_base_module_t *, const mca_coord_context_t *context, uint32_t a,
             uint32_t b, uint64_t *hops)
{
    return meridian::c_boundary("coord_torus nic_cost", [&]() -> int {
        if (context == nullptr || context->fabric == nullptr || hops == nullptr ||
            a >= context->fabric->nics().size() || b >= context->fabric->nics().size()) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto pa = meridian::coord::nic_coordinate(*context, a, MERIDIAN_COORD_PHYSICAL_VIEW);
        const auto pb = meridian::coord::nic_coordinate(*context, b, MERIDIAN_COORD_PHYSICAL_VIEW);
        const Index plane = context->fabric->nics()[a].plane;
        if (pa.empty() || pb.empty() || plane != context->fabric->nics()[b].plane) {
            return MERIDIAN_ERR_BAD_PARAM;
        }
        const auto &p = context->fabric->planes()[plane];
        if (!p.shape.empty()) {
            *hops = torus::distance(pa, pb, p.shape, p.periodic);
        } else {
            const Settings &s = parsed_settings();
            *hops = torus::distance(pa, pb, s.shape, s.periodic);
        }
        return MERIDIAN_SUCCESS;
    });
}

const mca_coord_base_module_t module = {.compute_plane = compute_plane, .nic_cost = nic_cost};

int query(const mca_base_component_t *, mca_base_module_t **selected, int *priority)
{
    return meridian::c_boundary("coord_torus query", [&]() -> int {
        // Always offered: whether a plane is a torus is decided per plane.
        *selected = const_cast<mca_coord_base_module_t *>(&module);
        *priority = coord_torus_priority;
        return MERIDIAN_SUCCESS;
    });
}

} // namespace

// The one symbol the component exports (the rest is hidden, see component.am).
extern "C" {

__attribute__((visibility("default"))) mca_coord_base_component_t mca_coord_torus_component = {
    .base =
        {
            .mca_abi_major = MCA_BASE_ABI_MAJOR,
            .mca_abi_minor = MCA_BASE_ABI_MINOR,
            .framework_name = "coord",
            .framework_version = MCA_COORD_BASE_VERSION,
            .component_name = "torus",
            .component_version = {1, 0, 0},
            .register_params = register_params,
            .open = open_component,
            .close = close_component,
            .query = query,
        },
};

} // extern "C"

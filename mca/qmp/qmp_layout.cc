// SPDX-License-Identifier: BSD-3-Clause
// QMP_layout_grid and the subgrid queries, on the default communicator as
// in QMP.  The factorisation is rules::layout_grid (qmp_layout_rule.hpp);
// this file adds what QMP does around it: on a mesh the job geometry is
// declared first (when there is one and nothing is declared yet), and a
// grid the rule chose is declared as the logical topology (with
// -qmp-logic-map, as QMP_declare_logical_topology does).
#include <string>
#include <vector>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_layout_rule.hpp"

using namespace meridian::qmp;

namespace
{

// QMP_layout_grid's body.
QMP_status_t layout_grid(const int dimensions[], int ndims)
{
    const char *call = "QMP_layout_grid";
    State &s = state();
    QMP_comm_t comm = s.default_comm;
    if (QMP_status_t status = check_comm(comm, call); status != QMP_SUCCESS) {
        return status;
    }
    if (ndims < 0) {
        return set_error(QMP_INVALID_ARG,
                         std::string(call) +
                             ": expected a number of dimensions of 0 or more, found " +
                             std::to_string(ndims));
    }
    if (ndims > 0 && dimensions == nullptr) {
        return set_error(QMP_INVALID_ARG, std::string(call) + ": expected " +
                                              std::to_string(ndims) + " lattice sizes, found NULL");
    }
    auto guard = lock_if_multiple();
    const auto &logic_map = s.machine.logic_map;
    const int *map = logic_map.empty() ? nullptr : logic_map.data();
    const int nmap = static_cast<int>(logic_map.size());
    if (s.machine.type != QMP_SWITCH && comm->logical.dims.empty()) {
        // QMP declares the job geometry here and goes on whatever the
        // outcome (none without -qmp-job: then nothing is declared).
        const std::vector<int> geometry =
            s.job_comm != nullptr ? s.job_comm->logical.dims : std::vector<int>{};
        if (!geometry.empty()) {
            (void)declare_topology(comm, geometry.data(), static_cast<int>(geometry.size()), map,
                                   nmap, call);
        }
    }
    const std::span<const int> lattice(dimensions, static_cast<std::size_t>(ndims));
    auto plan = rules::layout_grid(lattice, comm->size, comm->logical.dims);
    if (!plan) {
        return set_error(static_cast<QMP_status_t>(plan.error().status), plan.error().message);
    }
    if (plan->declare && !plan->logical.empty()) {
        if (QMP_status_t status =
                declare_topology(comm, plan->logical.data(), static_cast<int>(plan->logical.size()),
                                 map, nmap, call);
            status != QMP_SUCCESS) {
            return status;
        }
    }
    comm->layout.lattice.assign(lattice.begin(), lattice.end());
    comm->layout.subgrid = std::move(plan->subgrid);
    comm->layout.subgrid_sites = plan->sites;
    return QMP_SUCCESS;
}

} // namespace

extern "C" {

QMP_status_t QMP_layout_grid(const int dimensions[], int ndims)
{
    const auto result = qmp_boundary(__func__, [&] { return layout_grid(dimensions, ndims); });
    return said(result, state().default_comm);
}

const int *QMP_get_subgrid_dimensions(void)
{
    return qmp_boundary(__func__, nullptr, []() -> const int * {
        QMP_comm_t comm = state().default_comm;
        if (check_comm(comm, "QMP_get_subgrid_dimensions") != QMP_SUCCESS ||
            comm->layout.lattice.empty()) {
            return nullptr; // QMP: NULL before QMP_layout_grid
        }
        return comm->layout.subgrid.data();
    });
}

int QMP_get_number_of_subgrid_sites(void)
{
    return qmp_boundary(__func__, 0, [] {
        QMP_comm_t comm = state().default_comm;
        if (check_comm(comm, "QMP_get_number_of_subgrid_sites") != QMP_SUCCESS) {
            return 0;
        }
        return comm->layout.subgrid_sites; // 0 before QMP_layout_grid, as QMP
    });
}

} // extern "C"

// SPDX-License-Identifier: BSD-3-Clause
// The allocated machine and the jobs in it.
//
// At init (set_up_machine): the allocated communicator holds the whole job;
// its logical topology is the allocated grid, as in QMP.  That grid is
// -qmp-geom's (numbered by QMP's rule, -qmp-alloc-map as its map), else the
// nodes' positions on a mesh or torus plane of coord (the physical view; the
// processes of a node as one more dimension when there are several; axes
// permuted by -qmp-alloc-map), else none: a switched machine.  -qmp-job then
// cuts the machine into jobs, each a communicator of its own, and the
// default communicator is a copy of the job's.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_layout_rule.hpp"
#include <meridian/mca/coord/base/base.hpp>
#include <meridian/opal/util/output.hpp>
#include <meridian/opal/util/strings.hpp>

namespace meridian::qmp
{

namespace
{

// The first mesh or torus plane (in fabric order: the same on every
// process) that has every node of the job, read as a grid; nullopt with
// `why` otherwise.  O(nodes) coord queries.
std::optional<rules::Mesh> mesh_from_coord(const mca_msg_job_t &job, std::string &why)
{
    const mca_coord_context *ctx = coord::context();
    if (ctx == nullptr || ctx->job == nullptr) {
        why = "there are no network coordinates";
        return std::nullopt;
    }
    if (ctx->job->procs.size() != static_cast<std::size_t>(job.size)) {
        why = "the network coordinates are of a job of " + std::to_string(ctx->job->procs.size()) +
              " processes";
        return std::nullopt;
    }
    std::vector<int> first_rank(static_cast<std::size_t>(job.num_nodes), -1);
    for (int r = 0; r < job.size; ++r) {
        int &first = first_rank[static_cast<std::size_t>(job.node_of[r])];
        if (first < 0) {
            first = r;
        }
    }
    why = "no plane is a mesh or torus";
    for (const std::string &plane : coord::planes()) {
        const auto grid = coord::is_grid(plane);
        if (!grid || !*grid) {
            continue;
        }
        std::vector<std::uint32_t> positions;
        std::size_t plane_dims = 0;
        bool everywhere = true;
        for (const int rank : first_rank) {
            auto coords = coord::coordinates(static_cast<std::uint32_t>(rank), plane,
                                             MERIDIAN_COORD_PHYSICAL_VIEW);
            if (!coords || coords->empty()) {
                everywhere = false;
                break;
            }
            const auto &at = coords->front().coord; // nearest NIC on the plane
            plane_dims = at.size();
            positions.insert(positions.end(), at.begin(), at.end());
        }
        if (!everywhere) {
            why = "mesh/torus plane \"" + plane + "\" does not reach every node of the job";
            continue;
        }
        std::string not_a_grid;
        auto mesh = rules::mesh_from_positions(
            positions, plane_dims, {job.node_of, static_cast<std::size_t>(job.size)},
            {job.local_rank_of, static_cast<std::size_t>(job.size)}, not_a_grid);
        if (mesh) {
            return mesh;
        }
        why = "on mesh/torus plane \"" + plane + "\" " + not_a_grid;
    }
    return std::nullopt;
}

// The allocated communicator's grid from the options and coord.
QMP_status_t allocate_grid(QMP_comm_t allocated, const Options &options)
{
    State &s = state();
    Machine &m = s.machine;
    if (!options.geom.empty()) {
        if (!options.alloc_map.empty() && options.alloc_map.size() != options.geom.size()) {
            return set_error(QMP_INVALID_ARG, "-qmp-alloc-map: expected " +
                                                  std::to_string(options.geom.size()) +
                                                  " values (one per -qmp-geom dimension), found " +
                                                  util::join_numbers(options.alloc_map, " "));
        }
        // The sizes' product must be the number of nodes: "-qmp-geom: expected ...".
        if (QMP_status_t status = declare_topology(
                allocated, options.geom.data(), static_cast<int>(options.geom.size()),
                options.alloc_map.empty() ? nullptr : options.alloc_map.data(),
                static_cast<int>(options.alloc_map.size()), "-qmp-geom");
            status != QMP_SUCCESS) {
            return status;
        }
        m.type = QMP_MESH;
        return QMP_SUCCESS;
    }
    std::string why;
    auto mesh = mesh_from_coord(*s.job, why);
    if (!mesh) {
        if (options.geom_native) {
            return set_error(QMP_INVALID_ARG,
                             "-qmp-geom: expected native to find the processes on a mesh or "
                             "torus (coord), found a switched machine: " +
                                 why);
        }
        if (!options.alloc_map.empty() && s.job->rank == 0) {
            report_warning("QMP: -qmp-alloc-map " + util::join_numbers(options.alloc_map, " ") +
                           " ignored: the allocated machine is switched (no -qmp-geom, and " + why +
                           ")");
        }
        return QMP_SUCCESS;
    }
    if (!options.alloc_map.empty()) {
        if (options.alloc_map.size() != mesh->dims.size()) {
            return set_error(QMP_INVALID_ARG, "-qmp-alloc-map: expected " +
                                                  std::to_string(mesh->dims.size()) +
                                                  " values (one per allocated dimension of " +
                                                  rules::format_dims(mesh->dims) + "), found " +
                                                  util::join_numbers(options.alloc_map, " "));
        }
        rules::permute_axes(mesh->dims, mesh->coords, options.alloc_map);
    }
    m.type = QMP_MESH;
    set_grid(allocated, std::move(mesh->dims), std::move(mesh->coords));
    return QMP_SUCCESS;
}

// Every rank's job (colour) under -qmp-job; this process's members.
QMP_status_t cut_jobs(QMP_comm_t allocated, const std::vector<int> &geometry,
                      std::vector<int> &members, int &color, int &colors)
{
    const Topology &grid = allocated->logical;
    if (auto fits = rules::check_job_geometry(geometry, grid.dims, allocated->size); !fits) {
        return set_error(static_cast<QMP_status_t>(fits.error().status), fits.error().message);
    }
    colors = std::accumulate(geometry.begin(), geometry.end(), 1, std::multiplies<>());
    const std::size_t ndim = grid.dims.size();
    std::vector<int> at(ndim);
    auto color_of = [&](int rank) {
        if (ndim > 0) {
            if (!grid.coords_of_rank.empty()) {
                std::copy_n(&grid.coords_of_rank[static_cast<std::size_t>(rank) * ndim], ndim,
                            at.begin());
            } else {
                rules::coordinates_of(rank, grid.dims, grid.map, at);
            }
        }
        return rules::job_color(geometry, grid.dims, at, rank, allocated->size);
    };
    color = color_of(allocated->rank);
    members.clear();
    for (int r = 0; r < allocated->size; ++r) {
        if (color_of(r) == color) {
            members.push_back(allocated->members[static_cast<std::size_t>(r)]);
        }
    }
    return QMP_SUCCESS;
}

} // namespace

QMP_status_t set_up_machine(const Options &options)
{
    State &s = state();
    const mca_msg_job_t &job = *s.job;
    Machine &m = s.machine;
    m = Machine{};
    m.alloc_map = options.alloc_map;
    m.logic_map = options.logic_map;
    m.smp_count = job.local_size;

    std::vector<int> everyone(static_cast<std::size_t>(job.size));
    std::iota(everyone.begin(), everyone.end(), 0);
    // QMP: the allocated communicator's key is the rank.
    QMP_comm_t allocated = make_comm(everyone, 0, 0, job.rank, 1, nullptr);
    if (allocated == nullptr) {
        return QMP_get_error_number(nullptr);
    }
    s.allocated = allocated;
    if (QMP_status_t status = allocate_grid(allocated, options); status != QMP_SUCCESS) {
        return status;
    }
    m.dims = allocated->logical.dims;
    m.coords = allocated->logical.coords;

    // The jobs: split of the allocated communicator by colour, key 0.
    std::vector<int> members = everyone;
    int color = 0;
    int colors = 1;
    if (!options.job_geom.empty()) {
        if (QMP_status_t status = cut_jobs(allocated, options.job_geom, members, color, colors);
            status != QMP_SUCCESS) {
            return status;
        }
        m.job_geometry = options.job_geom;
    }
    m.number_of_jobs = colors;
    m.job_number = color;
    // Contexts as a split at init would agree on them: 1 and 2.
    QMP_comm_t job_comm = make_comm(members, 1, color, 0, colors, allocated);
    if (job_comm == nullptr) {
        return QMP_get_error_number(nullptr);
    }
    s.job_comm = job_comm;
    if (!options.job_geom.empty() && m.type == QMP_MESH) {
        // QMP: each job is a grid of the allocated dimensions over the job's.
        std::vector<int> geometry(m.dims.size());
        for (std::size_t i = 0; i < geometry.size(); ++i) {
            geometry[i] = m.dims[i] / options.job_geom[i];
        }
        if (QMP_status_t status =
                declare_topology(job_comm, geometry.data(), static_cast<int>(geometry.size()),
                                 m.alloc_map.empty() ? nullptr : m.alloc_map.data(),
                                 static_cast<int>(m.alloc_map.size()), "-qmp-job");
            status != QMP_SUCCESS) {
            return status;
        }
    }
    QMP_comm_t default_comm = make_comm(members, 2, 0, 0, 1, job_comm);
    if (default_comm == nullptr) {
        return QMP_get_error_number(nullptr);
    }
    s.default_comm = default_comm;
    s.next_context = 3;
    return QMP_SUCCESS;
}

} // namespace meridian::qmp

using namespace meridian::qmp;

namespace
{

bool ready(const char *call)
{
    return require_initialized(call) == QMP_SUCCESS;
}

} // namespace

extern "C" {

QMP_ictype_t QMP_get_msg_passing_type(void)
{
    return qmp_boundary(__func__, QMP_SWITCH, [] {
        return ready("QMP_get_msg_passing_type") ? state().machine.type : QMP_SWITCH;
    });
}

int QMP_get_number_of_nodes(void)
{
    return qmp_boundary(__func__, 0,
                        [] { return QMP_comm_get_number_of_nodes(state().default_comm); });
}

int QMP_get_node_number(void)
{
    return qmp_boundary(__func__, -1,
                        [] { return QMP_comm_get_node_number(state().default_comm); });
}

QMP_bool_t QMP_is_primary_node(void)
{
    return qmp_boundary(__func__, QMP_FALSE,
                        [] { return QMP_comm_is_primary_node(state().default_comm); });
}

int QMP_get_number_of_jobs(void)
{
    return qmp_boundary(__func__, 0,
                        [] { return QMP_comm_get_number_of_colors(state().job_comm); });
}

int QMP_get_job_number(void)
{
    return qmp_boundary(__func__, 0, [] { return QMP_comm_get_color(state().job_comm); });
}

int QMP_get_number_of_job_geometry_dimensions(void)
{
    return qmp_boundary(__func__, 0,
                        [] { return QMP_comm_get_logical_number_of_dimensions(state().job_comm); });
}

const int *QMP_get_job_geometry(void)
{
    return qmp_boundary(__func__, nullptr,
                        [] { return QMP_comm_get_logical_dimensions(state().job_comm); });
}

int QMP_get_allocated_number_of_dimensions(void)
{
    return qmp_boundary(
        __func__, 0, [] { return QMP_comm_get_logical_number_of_dimensions(state().allocated); });
}

const int *QMP_get_allocated_dimensions(void)
{
    return qmp_boundary(__func__, nullptr,
                        [] { return QMP_comm_get_logical_dimensions(state().allocated); });
}

const int *QMP_get_allocated_coordinates(void)
{
    return qmp_boundary(__func__, nullptr, []() -> const int * {
        // NULL on a switched machine, as QMP documents: not an error.
        if (!ready("QMP_get_allocated_coordinates") ||
            QMP_comm_logical_topology_is_declared(state().allocated) == QMP_FALSE) {
            return nullptr;
        }
        return QMP_comm_get_logical_coordinates(state().allocated);
    });
}

QMP_u32_t QMP_get_SMP_count(void)
{
    return qmp_boundary(__func__, 0U, [] {
        return ready("QMP_get_SMP_count") ? static_cast<QMP_u32_t>(state().job->local_size) : 0U;
    });
}

// QMP's switched-cluster scheme: every node does its own I/O; node 0 is the
// master.  (C only: no guard needed.)
int QMP_io_node(int node)
{
    return node;
}

int QMP_master_io_node(void)
{
    return 0;
}

} // extern "C"

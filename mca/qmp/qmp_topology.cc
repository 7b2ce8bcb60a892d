// SPDX-License-Identifier: BSD-3-Clause
// Logical topologies: declaring a grid on a communicator, coordinates <->
// node numbers, relative neighbours.  Numbering is QMP's
// (qmp_layout_rule.hpp), so applications find the same neighbours; the
// allocated machine read from coord carries its own table instead.
// Declaring is local: every member computes the same grid from the same
// arguments, so no message is needed (QMP's barriers only synchronised).
#include <algorithm>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_layout_rule.hpp"

namespace meridian::qmp
{

namespace
{

bool declared(QMP_comm_t comm)
{
    return !comm->logical.dims.empty();
}

QMP_status_t none_declared(const char *call)
{
    return set_error(QMP_NONEIGHBOR_INFO,
                     std::string(call) + ": no logical topology is declared on the communicator");
}

// node's coordinates into out (dims.size() values); node checked by callers.
void coordinates_in(const Topology &topo, int node, std::span<int> out)
{
    if (!topo.coords_of_rank.empty()) {
        const std::size_t ndim = topo.dims.size();
        std::copy_n(&topo.coords_of_rank[static_cast<std::size_t>(node) * ndim], ndim, out.begin());
        return;
    }
    rules::coordinates_of(node, topo.dims, topo.map, out);
}

// The node at coords, which are inside the grid.
int node_in(const Topology &topo, std::span<const int> coords)
{
    if (!topo.rank_at.empty()) {
        return topo.rank_at[static_cast<std::size_t>(rules::node_of(coords, topo.dims, {}))];
    }
    return rules::node_of(coords, topo.dims, topo.map);
}

// Whether a node number may be asked about (records why not).
bool node_in_range(QMP_comm_t comm, int node, const char *call)
{
    if (node >= 0 && node < comm->size) {
        return true;
    }
    set_error(QMP_NODE_OUTRANGE, std::string(call) + ": node " + std::to_string(node) +
                                     " is not in the communicator (nodes 0.." +
                                     std::to_string(comm->size - 1) + ")");
    return false;
}

} // namespace

QMP_status_t declare_topology(QMP_comm_t comm, const int *dims, int ndim, const int *map, int nmap,
                              const char *call)
{
    if (QMP_status_t status = check_comm(comm, call); status != QMP_SUCCESS) {
        return status;
    }
    auto guard = lock_if_multiple();
    const std::string who(call);
    if (nmap < 0) {
        return set_error(QMP_INVALID_ARG, who + ": expected a map length of 0 or more, found " +
                                              std::to_string(nmap));
    }
    if (nmap > 0 && map == nullptr) {
        return set_error(QMP_INVALID_ARG, who + ": expected a map of " + std::to_string(nmap) +
                                              " values, found NULL");
    }
    if (ndim == 0) {
        return QMP_SUCCESS; // QMP: allowed, and declares nothing
    }
    if (ndim == -1) {
        return set_error(QMP_NOTSUPPORTED, who + ": ndim -1 (native) is not supported; the " +
                                               "allocated machine's grid is the allocated " +
                                               "communicator's logical topology");
    }
    if (ndim < 0) {
        return set_error(QMP_INVALID_ARG,
                         who + ": expected a number of dimensions of 0 or more, found " +
                             std::to_string(ndim));
    }
    if (dims == nullptr) {
        return set_error(QMP_INVALID_ARG,
                         who + ": expected " + std::to_string(ndim) + " sizes, found NULL");
    }
    const std::span<const int> sizes(dims, static_cast<std::size_t>(ndim));
    // A map of 0 entries is no map, whatever the pointer.
    const std::span<const int> order(map, map == nullptr ? 0 : static_cast<std::size_t>(nmap));
    if (auto ok = rules::check_topology(call, sizes, comm->size, order); !ok) {
        return set_error(static_cast<QMP_status_t>(ok.error().status), ok.error().message);
    }
    if (declared(comm)) {
        return set_error(QMP_TOPOLOGY_EXISTS,
                         who + ": the communicator already has the logical topology " +
                             rules::format_dims(comm->logical.dims));
    }
    Topology topo;
    topo.dims.assign(sizes.begin(), sizes.end());
    topo.map.assign(order.begin(), order.end());
    topo.coords.resize(topo.dims.size());
    rules::coordinates_of(comm->rank, topo.dims, topo.map, topo.coords);
    comm->logical = std::move(topo);
    return QMP_SUCCESS;
}

void set_grid(QMP_comm_t comm, std::vector<int> dims, std::vector<int> coords_of_rank)
{
    Topology topo;
    const std::size_t ndim = dims.size();
    topo.dims = std::move(dims);
    topo.coords_of_rank = std::move(coords_of_rank);
    topo.rank_at.assign(static_cast<std::size_t>(comm->size), 0);
    for (int r = 0; r < comm->size; ++r) {
        const std::span<const int> at(&topo.coords_of_rank[static_cast<std::size_t>(r) * ndim],
                                      ndim);
        topo.rank_at[static_cast<std::size_t>(rules::node_of(at, topo.dims, {}))] = r;
    }
    topo.coords.assign(&topo.coords_of_rank[static_cast<std::size_t>(comm->rank) * ndim],
                       &topo.coords_of_rank[static_cast<std::size_t>(comm->rank) * ndim] + ndim);
    comm->logical = std::move(topo);
}

QMP_status_t relative_neighbor(QMP_comm_t comm, int axis, int dir, int *rank)
{
    if (QMP_status_t status = check_comm(comm, "relative neighbour"); status != QMP_SUCCESS) {
        return status;
    }
    const Topology &topo = comm->logical;
    if (!declared(comm)) {
        return none_declared("relative neighbour");
    }
    const int ndim = static_cast<int>(topo.dims.size());
    if (axis < 0 || axis >= ndim || dir == 0) {
        return set_error(QMP_INVALID_ARG, "relative neighbour: axis " + std::to_string(axis) +
                                              " direction " + std::to_string(dir) + " (axes 0.." +
                                              std::to_string(ndim - 1) +
                                              ", directions > 0 or < 0)");
    }
    // QMP: any positive direction is +1, any negative one -1; periodic.
    std::vector<int> at = topo.coords;
    const int size = topo.dims[static_cast<std::size_t>(axis)];
    auto &c = at[static_cast<std::size_t>(axis)];
    c = dir > 0 ? (c + 1) % size : (c - 1 + size) % size;
    *rank = node_in(topo, at);
    return QMP_SUCCESS;
}

} // namespace meridian::qmp

using namespace meridian::qmp;

namespace
{

// QMP_comm_get_node_number_from's body.
int node_number_from(QMP_comm_t comm, const int coordinates[])
{
    const char *call = "QMP_get_node_number_from";
    if (check_comm(comm, call) != QMP_SUCCESS) {
        return -1;
    }
    if (!declared(comm)) {
        none_declared(call);
        return -1;
    }
    if (coordinates == nullptr) {
        set_error(QMP_INVALID_ARG, std::string(call) + ": the coordinates array is NULL");
        return -1;
    }
    const auto &dims = comm->logical.dims;
    const std::span<const int> at(coordinates, dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (at[i] < 0 || at[i] >= dims[i]) {
            std::string shown;
            for (const int c : at) {
                shown += (shown.empty() ? "" : ",") + std::to_string(c);
            }
            set_error(QMP_NODE_OUTRANGE, std::string(call) + ": (" + shown +
                                             ") is outside the logical topology " +
                                             rules::format_dims(dims));
            return -1;
        }
    }
    return node_in(comm->logical, at);
}

} // namespace

extern "C" {

QMP_status_t QMP_comm_declare_logical_topology_map(QMP_comm_t comm, const int dims[], int ndim,
                                                   const int map[], int mapdim)
{
    const auto result = qmp_boundary(__func__, [&] {
        return declare_topology(comm, dims, ndim, map, mapdim, "QMP_declare_logical_topology");
    });
    return said(result, comm);
}

QMP_status_t QMP_comm_declare_logical_topology(QMP_comm_t comm, const int dims[], int ndim)
{
    const auto result = qmp_boundary(__func__, [&] {
        return declare_topology(comm, dims, ndim, nullptr, 0, "QMP_declare_logical_topology");
    });
    return said(result, comm);
}

QMP_status_t QMP_declare_logical_topology_map(const int dims[], int ndim, const int map[],
                                              int mapdim)
{
    const auto result = qmp_boundary(__func__, [&] {
        return declare_topology(state().default_comm, dims, ndim, map, mapdim,
                                "QMP_declare_logical_topology");
    });
    return said(result, state().default_comm);
}

QMP_status_t QMP_declare_logical_topology(const int dims[], int ndim)
{
    const auto result = qmp_boundary(__func__, [&] {
        // QMP: the plain form on the default communicator takes
        // -qmp-logic-map.
        const auto &map = state().machine.logic_map;
        return declare_topology(state().default_comm, dims, ndim,
                                map.empty() ? nullptr : map.data(), static_cast<int>(map.size()),
                                "QMP_declare_logical_topology");
    });
    return said(result, state().default_comm);
}

QMP_bool_t QMP_comm_logical_topology_is_declared(QMP_comm_t comm)
{
    return qmp_boundary(__func__, QMP_FALSE, [&] {
        if (check_comm(comm, "QMP_logical_topology_is_declared") != QMP_SUCCESS) {
            return QMP_FALSE;
        }
        return declared(comm) ? QMP_TRUE : QMP_FALSE;
    });
}

QMP_bool_t QMP_logical_topology_is_declared(void)
{
    return qmp_boundary(__func__, QMP_FALSE,
                        [] { return QMP_comm_logical_topology_is_declared(state().default_comm); });
}

int QMP_comm_get_logical_number_of_dimensions(QMP_comm_t comm)
{
    return qmp_boundary(__func__, 0, [&] {
        if (check_comm(comm, "QMP_get_logical_number_of_dimensions") != QMP_SUCCESS) {
            return 0;
        }
        return static_cast<int>(comm->logical.dims.size());
    });
}

int QMP_get_logical_number_of_dimensions(void)
{
    return qmp_boundary(__func__, 0, [] {
        return QMP_comm_get_logical_number_of_dimensions(state().default_comm);
    });
}

const int *QMP_comm_get_logical_dimensions(QMP_comm_t comm)
{
    return qmp_boundary(__func__, nullptr, [&]() -> const int * {
        if (check_comm(comm, "QMP_get_logical_dimensions") != QMP_SUCCESS || !declared(comm)) {
            return nullptr; // QMP: NULL without a topology
        }
        return comm->logical.dims.data();
    });
}

const int *QMP_get_logical_dimensions(void)
{
    return qmp_boundary(__func__, nullptr,
                        [] { return QMP_comm_get_logical_dimensions(state().default_comm); });
}

const int *QMP_comm_get_logical_coordinates(QMP_comm_t comm)
{
    return qmp_boundary(__func__, nullptr, [&]() -> const int * {
        if (check_comm(comm, "QMP_get_logical_coordinates") != QMP_SUCCESS) {
            return nullptr;
        }
        if (!declared(comm)) {
            none_declared("QMP_get_logical_coordinates");
            return nullptr;
        }
        return comm->logical.coords.data();
    });
}

const int *QMP_get_logical_coordinates(void)
{
    return qmp_boundary(__func__, nullptr,
                        [] { return QMP_comm_get_logical_coordinates(state().default_comm); });
}

void QMP_comm_get_logical_coordinates_from2(QMP_comm_t comm, int coords[], int node)
{
    qmp_boundary_void(__func__, [&] {
        const char *call = "QMP_get_logical_coordinates_from";
        if (check_comm(comm, call) != QMP_SUCCESS) {
            return;
        }
        if (!declared(comm)) {
            none_declared(call);
            return;
        }
        if (coords == nullptr) {
            set_error(QMP_INVALID_ARG, std::string(call) + ": the coordinates array is NULL");
            return;
        }
        if (node_in_range(comm, node, call)) {
            coordinates_in(comm->logical, node, {coords, comm->logical.dims.size()});
        }
    });
}

void QMP_get_logical_coordinates_from2(int coords[], int node)
{
    qmp_boundary_void(__func__, [&] {
        QMP_comm_get_logical_coordinates_from2(state().default_comm, coords, node);
    });
}

int *QMP_comm_get_logical_coordinates_from(QMP_comm_t comm, int node)
{
    return qmp_boundary(__func__, nullptr, [&]() -> int * {
        const char *call = "QMP_get_logical_coordinates_from";
        if (check_comm(comm, call) != QMP_SUCCESS) {
            return nullptr;
        }
        if (!declared(comm)) {
            none_declared(call);
            return nullptr;
        }
        if (!node_in_range(comm, node, call)) {
            return nullptr;
        }
        // The caller frees it with free(), as QMP documents.
        const std::size_t ndim = comm->logical.dims.size();
        auto *coords = static_cast<int *>(std::malloc(ndim * sizeof(int)));
        if (coords == nullptr) {
            set_error(QMP_NOMEM_ERR, std::string(call) + ": out of memory");
            return nullptr;
        }
        coordinates_in(comm->logical, node, {coords, ndim});
        return coords;
    });
}

int *QMP_get_logical_coordinates_from(int node)
{
    return qmp_boundary(__func__, nullptr, [&] {
        return QMP_comm_get_logical_coordinates_from(state().default_comm, node);
    });
}

int QMP_comm_get_node_number_from(QMP_comm_t comm, const int coordinates[])
{
    return qmp_boundary(__func__, -1, [&] { return node_number_from(comm, coordinates); });
}

int QMP_get_node_number_from(const int coordinates[])
{
    return qmp_boundary(__func__, -1, [&] {
        return QMP_comm_get_node_number_from(state().default_comm, coordinates);
    });
}

} // extern "C"

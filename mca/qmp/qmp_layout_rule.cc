// SPDX-License-Identifier: BSD-3-Clause
// QMP's rules as pure functions (qmp_layout_rule.hpp).
#include "mca/qmp/qmp_layout_rule.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>

#include <meridian/opal/util/strings.hpp>

namespace meridian::qmp::rules
{

namespace
{

Error invalid(std::string message)
{
    return make_error(QMP_INVALID_ARG, std::move(message));
}

} // namespace

long long product(std::span<const int> sizes)
{
    long long p = 1;
    for (const int s : sizes) {
        p *= s;
        if (p > INT_MAX) {
            return -1;
        }
    }
    return p;
}

void coordinates_of(int node, std::span<const int> dims, std::span<const int> map,
                    std::span<int> out)
{
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const auto axis = map.empty() ? i : static_cast<std::size_t>(map[i]);
        out[axis] = node % dims[axis];
        node /= dims[axis];
    }
}

int node_of(std::span<const int> coords, std::span<const int> dims, std::span<const int> map)
{
    int node = 0;
    for (std::size_t i = dims.size(); i-- > 0;) {
        const auto axis = map.empty() ? i : static_cast<std::size_t>(map[i]);
        node = node * dims[axis] + coords[axis];
    }
    return node;
}

std::string format_dims(std::span<const int> dims)
{
    if (dims.empty()) {
        return "(none)";
    }
    return util::join_numbers(dims, "x");
}

Status check_topology(std::string_view call, std::span<const int> dims, int nodes,
                      std::span<const int> map)
{
    const std::string who(call);
    for (const int d : dims) {
        if (d < 1) {
            return invalid(who + ": expected sizes of at least 1, found " +
                           util::join_numbers(dims, " "));
        }
    }
    if (product(dims) != nodes) {
        return invalid(who + ": expected sizes whose product is the number of nodes (" +
                       std::to_string(nodes) + "), found " + util::join_numbers(dims, " "));
    }
    if (map.empty()) {
        return success();
    }
    if (map.size() != dims.size()) {
        return invalid(who + ": expected a map of " + std::to_string(dims.size()) +
                       " values (one per dimension), found " + util::join_numbers(map, " "));
    }
    std::vector<bool> seen(dims.size(), false);
    for (const int axis : map) {
        if (axis < 0 || static_cast<std::size_t>(axis) >= dims.size() ||
            seen[static_cast<std::size_t>(axis)]) {
            return invalid(who + ": expected a map that is a permutation of 0.." +
                           std::to_string(dims.size() - 1) + ", found " +
                           util::join_numbers(map, " "));
        }
        seen[static_cast<std::size_t>(axis)] = true;
    }
    return success();
}

Result<LayoutPlan> layout_grid(std::span<const int> lattice, int nodes,
                               std::span<const int> declared)
{
    const std::string what = "QMP_layout_grid: ";
    for (const int size : lattice) {
        if (size < 1) {
            return invalid(what + "expected lattice sizes of at least 1, found " +
                           util::join_numbers(lattice, " "));
        }
    }
    const std::size_t ndim = lattice.size();
    LayoutPlan plan;
    plan.subgrid.assign(lattice.begin(), lattice.end());
    plan.logical.assign(ndim, 1);
    if (!declared.empty()) {
        if (ndim < declared.size()) {
            return make_error(QMP_ERROR, what + "the lattice has " + std::to_string(ndim) +
                                             " dimensions, fewer than the logical topology " +
                                             format_dims(declared));
        }
        std::copy(declared.begin(), declared.end(), plan.logical.begin());
        for (std::size_t i = 0; i < ndim; ++i) {
            if (lattice[i] % plan.logical[i] != 0) {
                return make_error(QMP_ERROR, what + "the lattice " + format_dims(lattice) +
                                                 " does not fit on the logical topology " +
                                                 format_dims(declared) + " (dimension " +
                                                 std::to_string(i) + ")");
            }
            plan.subgrid[i] = lattice[i] / plan.logical[i];
        }
    } else {
        // QMP's loop, step for step: k never goes back up, so a node count
        // with a prime above 53 ends up divided by smaller primes anyway.
        static constexpr std::array<int, 16> primes = {2,  3,  5,  7,  11, 13, 17, 19,
                                                       23, 29, 31, 37, 41, 43, 47, 53};
        std::size_t k = primes.size() - 1;
        int n = nodes;
        while (n > 1) {
            while (n % primes[k] != 0 && k > 0) {
                --k;
            }
            const int p = primes[k];
            std::optional<std::size_t> cut;
            for (std::size_t i = 0; i < ndim; ++i) {
                if (plan.subgrid[i] % p != 0) {
                    continue;
                }
                if (!cut || plan.subgrid[i] > plan.subgrid[*cut]) {
                    cut = i;
                } else if (plan.subgrid[i] == plan.subgrid[*cut] && plan.logical[*cut] == 1) {
                    cut = i;
                }
            }
            if (!cut) {
                return make_error(QMP_ERROR, what + "the lattice " + format_dims(lattice) +
                                                 " has not enough prime factors for " +
                                                 std::to_string(nodes) + " nodes");
            }
            n /= p;
            plan.subgrid[*cut] /= p;
            plan.logical[*cut] *= p;
        }
        if (product(plan.logical) != nodes) {
            return invalid(what + std::to_string(nodes) +
                           " nodes have a prime factor above 53, which QMP's layout rule "
                           "cannot place");
        }
        plan.declare = true;
    }
    plan.sites = 1;
    for (const int s : plan.subgrid) {
        plan.sites *= s;
    }
    return plan;
}

Status check_job_geometry(std::span<const int> job_geometry, std::span<const int> allocated_dims,
                          int nodes)
{
    const std::string found = "found " + util::join_numbers(job_geometry, " ");
    for (const int g : job_geometry) {
        if (g < 1) {
            return invalid("-qmp-job: expected whole numbers of at least 1, " + found);
        }
    }
    if (allocated_dims.empty()) {
        if (job_geometry.size() != 1) {
            return invalid("-qmp-job: expected one number on a switched machine (it has no "
                           "allocated dimensions), " +
                           found);
        }
        if (nodes % job_geometry[0] != 0) {
            return invalid("-qmp-job: expected a divisor of the number of nodes (" +
                           std::to_string(nodes) + "), " + found);
        }
        return success();
    }
    if (job_geometry.size() != allocated_dims.size()) {
        return invalid("-qmp-job: expected " + std::to_string(allocated_dims.size()) +
                       " numbers (one per allocated dimension of " + format_dims(allocated_dims) +
                       "), " + found);
    }
    for (std::size_t i = 0; i < job_geometry.size(); ++i) {
        if (allocated_dims[i] % job_geometry[i] != 0) {
            return invalid("-qmp-job: expected divisors of the allocated dimensions " +
                           util::join_numbers(allocated_dims, " ") + ", " + found);
        }
    }
    return success();
}

int job_color(std::span<const int> job_geometry, std::span<const int> allocated_dims,
              std::span<const int> allocated_coords, int node, int nodes)
{
    if (allocated_dims.empty()) {
        // 64 bits: node * parts may pass INT_MAX on a large job.
        return static_cast<int>(static_cast<long long>(node) * job_geometry[0] / nodes);
    }
    int color = 0;
    for (std::size_t i = allocated_dims.size(); i-- > 0;) {
        // 64 bits: coordinate * parts may pass INT_MAX on a long dimension.
        const int part = static_cast<int>(static_cast<long long>(allocated_coords[i]) *
                                          job_geometry[i] / allocated_dims[i]);
        color = color * job_geometry[i] + part;
    }
    return color;
}

std::optional<Mesh> mesh_from_positions(std::span<const std::uint32_t> node_positions,
                                        std::size_t plane_dims, std::span<const int> node_of_rank,
                                        std::span<const int> local_rank_of_rank, std::string &why)
{
    if (plane_dims == 0 || node_positions.size() % plane_dims != 0 || node_positions.empty()) {
        why = "the plane has no dimensions";
        return std::nullopt;
    }
    const std::size_t nodes = node_positions.size() / plane_dims;
    // The box the nodes span.
    std::vector<std::uint32_t> low(node_positions.begin(), node_positions.begin() + plane_dims);
    std::vector<std::uint32_t> high = low;
    for (std::size_t n = 1; n < nodes; ++n) {
        for (std::size_t d = 0; d < plane_dims; ++d) {
            low[d] = std::min(low[d], node_positions[n * plane_dims + d]);
            high[d] = std::max(high[d], node_positions[n * plane_dims + d]);
        }
    }
    std::vector<int> box(plane_dims);
    unsigned long long positions = 1;
    for (std::size_t d = 0; d < plane_dims; ++d) {
        box[d] = static_cast<int>(high[d] - low[d] + 1);
        // Saturate: only "equal to the node count" matters.
        positions = std::min<unsigned long long>(positions * static_cast<unsigned>(box[d]),
                                                 static_cast<unsigned long long>(nodes) + 1);
    }
    if (positions != nodes) {
        why = "the job's " + std::to_string(nodes) + " nodes do not fill the box " +
              format_dims(box) + " they span";
        return std::nullopt;
    }
    // Each position once: the nodes' places in the box, numbered.
    std::vector<int> in_box(nodes * plane_dims);
    std::vector<bool> taken(nodes, false);
    for (std::size_t n = 0; n < nodes; ++n) {
        for (std::size_t d = 0; d < plane_dims; ++d) {
            in_box[n * plane_dims + d] =
                static_cast<int>(node_positions[n * plane_dims + d] - low[d]);
        }
        const int place = node_of({&in_box[n * plane_dims], plane_dims}, box, {});
        if (taken[static_cast<std::size_t>(place)]) {
            why = "two of the job's nodes are at one position";
            return std::nullopt;
        }
        taken[static_cast<std::size_t>(place)] = true;
    }
    // Every node the same number of processes.
    std::vector<int> per_node(nodes, 0);
    for (const int node : node_of_rank) {
        ++per_node[static_cast<std::size_t>(node)];
    }
    const int k = per_node[0];
    if (std::any_of(per_node.begin(), per_node.end(), [k](int count) { return count != k; })) {
        why = "the job's nodes run different numbers of processes";
        return std::nullopt;
    }
    Mesh mesh;
    mesh.dims = box;
    if (k > 1) {
        mesh.dims.push_back(k);
    }
    const std::size_t ndim = mesh.dims.size();
    mesh.coords.resize(node_of_rank.size() * ndim);
    for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
        const auto node = static_cast<std::size_t>(node_of_rank[r]);
        std::copy_n(&in_box[node * plane_dims], plane_dims, &mesh.coords[r * ndim]);
        if (k > 1) {
            mesh.coords[r * ndim + plane_dims] = local_rank_of_rank[r];
        }
    }
    return mesh;
}

void permute_axes(std::vector<int> &dims, std::vector<int> &coords, std::span<const int> map)
{
    const std::size_t ndim = dims.size();
    std::vector<int> moved(ndim);
    for (std::size_t i = 0; i < ndim; ++i) {
        moved[static_cast<std::size_t>(map[i])] = dims[i];
    }
    dims = moved;
    for (std::size_t at = 0; at + ndim <= coords.size(); at += ndim) {
        for (std::size_t i = 0; i < ndim; ++i) {
            moved[static_cast<std::size_t>(map[i])] = coords[at + i];
        }
        std::copy(moved.begin(), moved.end(), coords.begin() + static_cast<std::ptrdiff_t>(at));
    }
}

} // namespace meridian::qmp::rules

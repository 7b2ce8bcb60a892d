// SPDX-License-Identifier: BSD-3-Clause
// QMP's rules as pure functions (libqmp; unit-tested in test/qmp_base): how
// node numbers map to grid coordinates, which logical topologies may be
// declared, how QMP_layout_grid spreads the nodes over a lattice, how -qmp-job
// colours the nodes, and how the allocated machine is read from the nodes'
// mesh coordinates.  The files around them hold state; these hold none.
//
// Errors are meridian::Error values whose status is a QMP_status_t and whose
// message is what QMP_get_error_string gives.
#ifndef MERIDIAN_MCA_MSG_BASE_QMP_LAYOUT_RULE_HPP
#define MERIDIAN_MCA_MSG_BASE_QMP_LAYOUT_RULE_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mca/qmp/qmp.h"
#include <meridian/opal/util/result.hpp>

namespace meridian::qmp::rules
{

// ---------------------------------------------------------------- numbering

// QMP's numbering of a grid (its MPI layer): a node number's digits in mixed
// radix, the fastest-running digit on dimension map[0], the next on map[1],
// ...; without a map dimension 0 runs fastest.  So on dims {4,2} node 5 is
// (1,1), and with map {1,0} it is (2,1).  `map` is empty or a permutation of
// 0..dims.size()-1; coordinates are taken modulo nothing (callers check).
void coordinates_of(int node, std::span<const int> dims, std::span<const int> map,
                    std::span<int> out);
int node_of(std::span<const int> coords, std::span<const int> dims, std::span<const int> map);

// The product of sizes (a grid's node count), or -1 when it does not fit an
// int.  Sizes are >= 1.
long long product(std::span<const int> sizes);

// "4x2x1" for messages; "(none)" when empty.
std::string format_dims(std::span<const int> dims);

// Whether a logical topology of `dims` with `map` may be declared on a
// communicator of `nodes` (what QMP_declare_logical_topology_map checks):
// every size >= 1, their product == nodes, the map empty or a permutation of
// the dimensions.  QMP_INVALID_ARG with "CALL: ..." otherwise.
Status check_topology(std::string_view call, std::span<const int> dims, int nodes,
                      std::span<const int> map);

// ---------------------------------------------------------------- layout

// QMP_layout_grid's outcome: the logical grid the lattice is cut by (one
// entry per lattice dimension), each node's subgrid and its sites; `declare`
// when the rule chose the grid (the caller declares it as the logical
// topology) rather than taking the one declared before.
struct LayoutPlan {
    std::vector<int> logical;
    std::vector<int> subgrid;
    int sites = 0;
    bool declare = false;
};

// QMP's rule (lib/QMP_grid.c).  With a logical topology already declared
// (`declared` non-empty): its sizes padded with 1s must divide the lattice.
// Without: the node count is split into primes, largest first (primes up to
// 53, never going back to a larger one); each prime goes to the dimension
// whose remaining extent is largest and divisible by it; among equal
// extents, a later dimension replaces an earlier one that has not been cut
// yet, so 2 nodes on 8^4 cut dimension 3 and 4 nodes cut 3 then 2.
// Errors: QMP_ERROR when the lattice has not enough prime factors, or does
// not fit the declared topology, or has fewer dimensions than it;
// QMP_INVALID_ARG for a lattice size < 1 or a node count with a prime
// factor above 53 (QMP's rule then makes a grid of the wrong size, which
// QMP's declare refuses).  Messages start "QMP_layout_grid: ".
Result<LayoutPlan> layout_grid(std::span<const int> lattice, int nodes,
                               std::span<const int> declared);

// ---------------------------------------------------------------- jobs

// -qmp-job: the job (colour) of a node.  On a mesh (allocated dims and this
// node's allocated coords given) the job grid cuts each allocated dimension
// into job_geometry[i] equal parts: coordinate c lies in part
// c * job_geometry[i] / dims[i], and the job is the parts' number with
// dimension 0 fastest.  On a switched machine (dims empty) the job geometry
// has one entry g and the node numbers are cut into g equal runs.
// QMP_INVALID_ARG (message "-qmp-job: expected ..., found ...") when the
// geometry does not fit.
Status check_job_geometry(std::span<const int> job_geometry, std::span<const int> allocated_dims,
                          int nodes);
int job_color(std::span<const int> job_geometry, std::span<const int> allocated_dims,
              std::span<const int> allocated_coords, int node, int nodes);

// ---------------------------------------------------------------- allocated mesh

// The allocated machine read from the nodes' positions on a mesh or torus
// plane.  Inputs: each job node's position (the flat array `node_positions`,
// `plane_dims` values per node, nodes numbered as the job numbers them), and
// per rank its node and local rank.  The nodes must fill a box of the plane
// exactly (each position once, as many positions as nodes) and every node
// must run the same number k of processes.  Then the machine's dims are the
// box's extents, followed by k when k > 1 (the processes of a node as one
// more dimension, as QMP on Blue Gene did in virtual-node mode), and each
// rank's coordinates are its node's position in the box (then its local
// rank).  nullopt, with `why` set, when the positions make no such grid.
struct Mesh {
    std::vector<int> dims;
    std::vector<int> coords; // flat: dims.size() values per rank
};
std::optional<Mesh> mesh_from_positions(std::span<const std::uint32_t> node_positions,
                                        std::size_t plane_dims, std::span<const int> node_of_rank,
                                        std::span<const int> local_rank_of_rank, std::string &why);

// A grid's coordinates with its axes permuted: axis i becomes axis map[i]
// (what -qmp-alloc-map does to the allocated machine's axes).  coords is
// flat, dims.size() values per rank; map is a permutation.
void permute_axes(std::vector<int> &dims, std::vector<int> &coords, std::span<const int> map);

} // namespace meridian::qmp::rules

#endif

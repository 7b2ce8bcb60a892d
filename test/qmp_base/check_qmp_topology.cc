// SPDX-License-Identifier: BSD-3-Clause
// Logical topologies through QMP's C API on communicators of several nodes
// made here: declaring (with and without a map, -qmp-logic-map for the plain
// form), coordinates <-> node numbers both ways, periodic neighbours, the
// errors, a grid with its own numbering (the allocated machine from coord),
// and QMP_layout_grid on the default communicator (factorised, on a
// declared topology, on a MESH with a job grid).  Each test runs in a
// process of its own that pretends QMP is up as rank R of N: these calls
// need no transport, so none is started.
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "mca/qmp/qmp_internal.hpp"
#include "mca/qmp/qmp_layout_rule.hpp"
#include "test/support/meridian_test.hpp"

namespace qmp = meridian::qmp;

namespace
{

struct FakeJob {
    std::vector<int> node_of;
    std::vector<int> local_rank_of;
    mca_msg_job_t job{};
};

FakeJob &fake_job()
{
    static FakeJob instance;
    return instance;
}

// QMP "initialised" as `rank` of `size` (one process per node), with a
// communicator of the whole job as the default one.  Owned by the caller.
std::unique_ptr<QMP_comm_struct> pretend(int rank, int size)
{
    FakeJob &f = fake_job();
    f.node_of.resize(static_cast<std::size_t>(size));
    std::iota(f.node_of.begin(), f.node_of.end(), 0);
    f.local_rank_of.assign(static_cast<std::size_t>(size), 0);
    f.job = mca_msg_job_t{rank,  size, rank, size, 0, 1, f.node_of.data(), f.local_rank_of.data(),
                          "fake"};
    qmp::State &s = qmp::state();
    s.job = &f.job;
    s.initialized = true;
    auto comm = std::make_unique<QMP_comm_struct>();
    comm->members = f.node_of;
    comm->rank = rank;
    comm->size = size;
    s.default_comm = comm.get();
    return comm;
}

// Another communicator of the same members (nothing declared on it).
std::unique_ptr<QMP_comm_struct> like(const QMP_comm_struct &comm)
{
    auto other = std::make_unique<QMP_comm_struct>();
    other->members = comm.members;
    other->rank = comm.rank;
    other->size = comm.size;
    return other;
}

std::string join(const int *values, std::size_t n)
{
    if (values == nullptr) {
        return "NULL";
    }
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += (i == 0 ? "" : ",") + std::to_string(values[i]);
    }
    return out;
}

std::string last_error()
{
    return std::to_string(QMP_get_error_number(nullptr)) + ": " + QMP_get_error_string(nullptr);
}

// Every node's coordinates by _from and _from2, "n:(c)" joined by spaces,
// checking that node_number_from goes back.
std::string all_coordinates(QMP_comm_t comm)
{
    const auto nd = static_cast<std::size_t>(QMP_comm_get_logical_number_of_dimensions(comm));
    std::string out;
    for (int node = 0; node < QMP_comm_get_number_of_nodes(comm); ++node) {
        int *from = QMP_comm_get_logical_coordinates_from(comm, node);
        std::vector<int> from2(nd, -1);
        QMP_comm_get_logical_coordinates_from2(comm, from2.data(), node);
        ck_assert_text_eq(join(from, nd), join(from2.data(), nd));
        ck_assert_int_eq(QMP_comm_get_node_number_from(comm, from), node);
        out += (node == 0 ? "" : " ") + std::to_string(node) + ":(" + join(from, nd) + ")";
        std::free(from);
    }
    return out;
}

// The neighbours of this node: "+0 -0 +1 -1 ..." as node numbers.
std::string neighbours(QMP_comm_t comm)
{
    std::string out;
    for (int axis = 0; axis < QMP_comm_get_logical_number_of_dimensions(comm); ++axis) {
        for (const int dir : {+1, -1}) {
            int rank = -1;
            ck_assert_int_eq(qmp::relative_neighbor(comm, axis, dir, &rank), QMP_SUCCESS);
            out += (out.empty() ? "" : " ") + std::to_string(rank);
        }
    }
    return out;
}

START_TEST(nothing_declared_at_first)
{
    auto comm = pretend(5, 8);
    ck_assert_int_eq(QMP_comm_logical_topology_is_declared(comm.get()), QMP_FALSE);
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_FALSE);
    ck_assert_int_eq(QMP_get_logical_number_of_dimensions(), 0);
    ck_assert_ptr_null(QMP_get_logical_dimensions());
    ck_assert_ptr_null(QMP_get_logical_coordinates());
    ck_assert_text_eq(last_error(), std::to_string(QMP_NONEIGHBOR_INFO) +
                                        ": QMP_get_logical_coordinates: no logical topology is "
                                        "declared on the communicator");
    ck_assert_ptr_null(QMP_get_logical_coordinates_from(0));
    ck_assert_int_eq(QMP_get_node_number_from(std::vector<int>{0}.data()), -1);
    ck_assert_text_eq(last_error(), std::to_string(QMP_NONEIGHBOR_INFO) +
                                        ": QMP_get_node_number_from: no logical topology is "
                                        "declared on the communicator");
    int rank = 42;
    ck_assert_int_eq(qmp::relative_neighbor(comm.get(), 0, 1, &rank), QMP_NONEIGHBOR_INFO);
    ck_assert_int_eq(rank, 42);
    // ndim 0 is allowed and declares nothing, as in QMP.
    ck_assert_int_eq(QMP_declare_logical_topology(nullptr, 0), QMP_SUCCESS);
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_FALSE);
}
END_TEST

START_TEST(plain_grid)
{
    auto comm = pretend(5, 8);
    const int dims[] = {4, 2};
    ck_assert_int_eq(QMP_declare_logical_topology(dims, 2), QMP_SUCCESS);
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_TRUE);
    ck_assert_int_eq(QMP_get_logical_number_of_dimensions(), 2);
    ck_assert_text_eq(join(QMP_get_logical_dimensions(), 2), "4,2");
    // Node 5 on 4x2, dimension 0 fastest: (1,1).
    ck_assert_text_eq(join(QMP_get_logical_coordinates(), 2), "1,1");
    ck_assert_text_eq(all_coordinates(comm.get()),
                      "0:(0,0) 1:(1,0) 2:(2,0) 3:(3,0) 4:(0,1) 5:(1,1) 6:(2,1) 7:(3,1)");
    // (2,1)=6 (0,1)=4 (1,0)=1 (1,0)=1: two nodes along axis 1 are each
    // other's neighbour both ways.
    ck_assert_text_eq(neighbours(comm.get()), "6 4 1 1");
}
END_TEST

START_TEST(neighbours_wrap_around)
{
    auto comm = pretend(7, 8);
    const int dims[] = {4, 2};
    ck_assert_int_eq(QMP_comm_declare_logical_topology(comm.get(), dims, 2), QMP_SUCCESS);
    // Node 7 is (3,1): +0 wraps to (0,1)=4, -0 is (2,1)=6.
    ck_assert_text_eq(neighbours(comm.get()), "4 6 3 3");
    // QMP: any positive direction is +1, any negative one -1.
    int rank = -1;
    ck_assert_int_eq(qmp::relative_neighbor(comm.get(), 0, 5, &rank), QMP_SUCCESS);
    ck_assert_int_eq(rank, 4);
    ck_assert_int_eq(qmp::relative_neighbor(comm.get(), 0, -3, &rank), QMP_SUCCESS);
    ck_assert_int_eq(rank, 6);
    ck_assert_int_eq(qmp::relative_neighbor(comm.get(), 2, 1, &rank), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": relative neighbour: axis 2 direction 1 (axes 0..1, "
                                        "directions > 0 or < 0)");
    ck_assert_int_eq(qmp::relative_neighbor(comm.get(), 0, 0, &rank), QMP_INVALID_ARG);
    ck_assert_int_eq(qmp::relative_neighbor(comm.get(), -1, 1, &rank), QMP_INVALID_ARG);
}
END_TEST

START_TEST(grid_with_a_map)
{
    auto comm = pretend(5, 8);
    const int dims[] = {4, 2};
    const int map[] = {1, 0};
    ck_assert_int_eq(QMP_declare_logical_topology_map(dims, 2, map, 2), QMP_SUCCESS);
    // Dimension 1 runs fastest: node n is (n / 2, n % 2); node 5 is (2,1).
    ck_assert_text_eq(join(QMP_get_logical_coordinates(), 2), "2,1");
    ck_assert_text_eq(all_coordinates(comm.get()),
                      "0:(0,0) 1:(0,1) 2:(1,0) 3:(1,1) 4:(2,0) 5:(2,1) 6:(3,0) 7:(3,1)");
    // (3,1)=7 (1,1)=3 (2,0)=4 (2,0)=4.
    ck_assert_text_eq(neighbours(comm.get()), "7 3 4 4");
}
END_TEST

START_TEST(three_dimensions_with_a_map)
{
    auto comm = pretend(17, 24);
    const int dims[] = {2, 3, 4};
    const int map[] = {2, 0, 1};
    ck_assert_int_eq(QMP_comm_declare_logical_topology_map(comm.get(), dims, 3, map, 3),
                     QMP_SUCCESS);
    // Node 17: x2 = 17 % 4 = 1, x0 = 4 % 2 = 0, x1 = 2 % 3 = 2.
    ck_assert_text_eq(join(QMP_comm_get_logical_coordinates(comm.get()), 3), "0,2,1");
    // Neighbours: (1,2,1) = 1*4 + ... numbered map-wise: n = x2 + 4 * (x0 + 2 * x1).
    // +0 (1,2,1): 1 + 4*(1 + 4) = 21; -0 the same (2 along axis 0);
    // +1 (0,0,1): 1 + 4*0 = 1; -1 (0,1,1): 1 + 4*2 = 9;
    // +2 (0,2,2): 2 + 4*4 = 18; -2 (0,2,0): 16.
    ck_assert_text_eq(neighbours(comm.get()), "21 21 1 9 18 16");
    const int at[] = {1, 1, 3};
    ck_assert_int_eq(QMP_comm_get_node_number_from(comm.get(), at), 3 + 4 * (1 + 2 * 1));
}
END_TEST

START_TEST(logic_map_for_the_plain_form)
{
    // -qmp-logic-map applies to QMP_declare_logical_topology only.
    auto comm = pretend(5, 8);
    qmp::state().machine.logic_map = {1, 0};
    const int dims[] = {4, 2};
    ck_assert_int_eq(QMP_declare_logical_topology(dims, 2), QMP_SUCCESS);
    ck_assert_text_eq(join(QMP_get_logical_coordinates(), 2), "2,1");
    auto other = like(*comm);
    ck_assert_int_eq(QMP_comm_declare_logical_topology(other.get(), dims, 2), QMP_SUCCESS);
    ck_assert_text_eq(join(QMP_comm_get_logical_coordinates(other.get()), 2), "1,1");
    // A -qmp-logic-map of the wrong length refuses the plain form.
    auto third = like(*comm);
    qmp::state().default_comm = third.get();
    const int line[] = {8};
    ck_assert_int_eq(QMP_declare_logical_topology(line, 1), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_declare_logical_topology: expected a map of 1 "
                                        "values (one per dimension), found 1 0");
}
END_TEST

START_TEST(declare_errors)
{
    auto comm = pretend(0, 4);
    const std::string invalid = std::to_string(QMP_INVALID_ARG) + ": ";
    const int three[] = {3, 1};
    ck_assert_int_eq(QMP_declare_logical_topology(three, 2), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: expected sizes whose "
                                              "product is the number of nodes (4), found 3 1");
    const int zero[] = {4, 0};
    ck_assert_int_eq(QMP_declare_logical_topology(zero, 2), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: expected sizes of at "
                                              "least 1, found 4 0");
    const int dims[] = {2, 2};
    const int bad_map[] = {1, 1};
    ck_assert_int_eq(QMP_declare_logical_topology_map(dims, 2, bad_map, 2), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: expected a map that "
                                              "is a permutation of 0..1, found 1 1");
    ck_assert_int_eq(QMP_declare_logical_topology_map(dims, 2, nullptr, 2), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: expected a map of 2 "
                                              "values, found NULL");
    ck_assert_int_eq(QMP_declare_logical_topology_map(dims, 2, bad_map, -1), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: expected a map "
                                              "length of 0 or more, found -1");
    ck_assert_int_eq(QMP_declare_logical_topology(nullptr, 2), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: expected 2 sizes, "
                                              "found NULL");
    ck_assert_int_eq(QMP_declare_logical_topology(dims, -2), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: expected a number of "
                                              "dimensions of 0 or more, found -2");
    ck_assert_int_eq(QMP_declare_logical_topology(dims, -1), QMP_NOTSUPPORTED);
    ck_assert_text_eq(last_error(), std::to_string(QMP_NOTSUPPORTED) +
                                        ": QMP_declare_logical_topology: ndim -1 (native) is not "
                                        "supported; the allocated machine's grid is the "
                                        "allocated communicator's logical topology");
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_FALSE);
    // A map of 0 values is no map.
    ck_assert_int_eq(QMP_declare_logical_topology_map(dims, 2, bad_map, 0), QMP_SUCCESS);
    ck_assert_text_eq(all_coordinates(comm.get()), "0:(0,0) 1:(1,0) 2:(0,1) 3:(1,1)");
    // Once declared, a second declaration is refused (QMP asserts).
    const int line[] = {4};
    ck_assert_int_eq(QMP_declare_logical_topology(line, 1), QMP_TOPOLOGY_EXISTS);
    ck_assert_text_eq(last_error(), std::to_string(QMP_TOPOLOGY_EXISTS) +
                                        ": QMP_declare_logical_topology: the communicator "
                                        "already has the logical topology 2x2");
    ck_assert_int_eq(QMP_comm_declare_logical_topology(nullptr, line, 1), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), invalid + "QMP_declare_logical_topology: the communicator is "
                                              "NULL");
}
END_TEST

START_TEST(nodes_and_coordinates_out_of_range)
{
    auto comm = pretend(0, 8);
    const int dims[] = {4, 2};
    ck_assert_int_eq(QMP_declare_logical_topology(dims, 2), QMP_SUCCESS);
    ck_assert_ptr_null(QMP_get_logical_coordinates_from(8));
    ck_assert_text_eq(last_error(), std::to_string(QMP_NODE_OUTRANGE) +
                                        ": QMP_get_logical_coordinates_from: node 8 is not in "
                                        "the communicator (nodes 0..7)");
    int out[2] = {-7, -7};
    QMP_get_logical_coordinates_from2(out, -1);
    ck_assert_text_eq(join(out, 2), "-7,-7");
    ck_assert_text_eq(last_error(), std::to_string(QMP_NODE_OUTRANGE) +
                                        ": QMP_get_logical_coordinates_from: node -1 is not in "
                                        "the communicator (nodes 0..7)");
    const int outside[] = {4, 0};
    ck_assert_int_eq(QMP_get_node_number_from(outside), -1);
    ck_assert_text_eq(last_error(), std::to_string(QMP_NODE_OUTRANGE) +
                                        ": QMP_get_node_number_from: (4,0) is outside the "
                                        "logical topology 4x2");
    const int negative[] = {0, -1};
    ck_assert_int_eq(QMP_get_node_number_from(negative), -1);
}
END_TEST

START_TEST(not_initialized)
{
    // No pretending: QMP is not up.
    const int dims[] = {1};
    ck_assert_int_eq(QMP_declare_logical_topology(dims, 1), QMP_NOT_INITED);
    ck_assert_text_eq(last_error(), std::to_string(QMP_NOT_INITED) +
                                        ": QMP_declare_logical_topology: QMP is not initialized");
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_FALSE);
    ck_assert_ptr_null(QMP_get_logical_coordinates());
    ck_assert_int_eq(QMP_layout_grid(dims, 1), QMP_NOT_INITED);
    ck_assert_text_eq(last_error(),
                      std::to_string(QMP_NOT_INITED) + ": QMP_layout_grid: QMP is not initialized");
    ck_assert_ptr_null(QMP_get_subgrid_dimensions());
    ck_assert_int_eq(QMP_get_number_of_subgrid_sites(), 0);
}
END_TEST

START_TEST(grid_with_its_own_numbering)
{
    // The allocated machine from coord: two nodes of two processes placed
    // round-robin (ranks 0,2 on node 0 at (3,1), ranks 1,3 on node 1 at
    // (4,1)) -> a 2x1x2 grid numbered by position, not by rank.
    auto comm = pretend(2, 4);
    std::string why;
    auto mesh = meridian::qmp::rules::mesh_from_positions(std::vector<std::uint32_t>{3, 1, 4, 1}, 2,
                                                          std::vector<int>{0, 1, 0, 1},
                                                          std::vector<int>{0, 0, 1, 1}, why);
    ck_assert(mesh.has_value());
    qmp::set_grid(comm.get(), mesh->dims, mesh->coords);
    ck_assert_int_eq(QMP_get_logical_number_of_dimensions(), 3);
    ck_assert_text_eq(join(QMP_get_logical_dimensions(), 3), "2,1,2");
    ck_assert_text_eq(join(QMP_get_logical_coordinates(), 3), "0,0,1");
    ck_assert_text_eq(all_coordinates(comm.get()), "0:(0,0,0) 1:(1,0,0) 2:(0,0,1) 3:(1,0,1)");
    // Rank 2 at (0,0,1): along axis 0 rank 3; axis 1 itself; axis 2 rank 0.
    ck_assert_text_eq(neighbours(comm.get()), "3 3 2 2 0 0");
    // -qmp-alloc-map 2 0 1 moves axis 0 to 2, 1 to 0, 2 to 1: 1x2x2.
    meridian::qmp::rules::permute_axes(mesh->dims, mesh->coords, std::vector<int>{2, 0, 1});
    auto other = like(*comm);
    qmp::set_grid(other.get(), mesh->dims, mesh->coords);
    ck_assert_text_eq(join(QMP_comm_get_logical_dimensions(other.get()), 3), "1,2,2");
    ck_assert_text_eq(all_coordinates(other.get()), "0:(0,0,0) 1:(0,0,1) 2:(0,1,0) 3:(0,1,1)");
}
END_TEST

std::string laid_out()
{
    const int nd = QMP_get_logical_number_of_dimensions();
    return "logical=" + join(QMP_get_logical_dimensions(), static_cast<std::size_t>(nd)) +
           " coords=" + join(QMP_get_logical_coordinates(), static_cast<std::size_t>(nd)) +
           " subgrid=" + join(QMP_get_subgrid_dimensions(), static_cast<std::size_t>(nd)) +
           " sites=" + std::to_string(QMP_get_number_of_subgrid_sites());
}

START_TEST(layout_factorised)
{
    auto comm = pretend(3, 4);
    ck_assert_ptr_null(QMP_get_subgrid_dimensions());
    ck_assert_int_eq(QMP_get_number_of_subgrid_sites(), 0);
    const int lattice[] = {8, 8, 8, 8};
    ck_assert_int_eq(QMP_layout_grid(lattice, 4), QMP_SUCCESS);
    // 4 nodes on 8^4: 1,1,2,2 (check_qmp_layout_rule); node 3 is (0,0,1,1).
    ck_assert_text_eq(laid_out(), "logical=1,1,2,2 coords=0,0,1,1 subgrid=8,8,4,4 sites=1024");
    // A second call lays out on what is declared now.
    const int other[] = {4, 4, 4, 4};
    ck_assert_int_eq(QMP_layout_grid(other, 4), QMP_SUCCESS);
    ck_assert_text_eq(laid_out(), "logical=1,1,2,2 coords=0,0,1,1 subgrid=4,4,2,2 sites=64");
}
END_TEST

START_TEST(layout_with_the_logic_map)
{
    // The chosen grid is declared as QMP_declare_logical_topology does: with
    // -qmp-logic-map.  4 nodes on 8^4 -> 1,1,2,2; map 3 2 1 0: node 1 is
    // x3 = 1 % 2 = 1, then 0 -> (0,0,0,1).
    auto comm = pretend(1, 4);
    qmp::state().machine.logic_map = {3, 2, 1, 0};
    const int lattice[] = {8, 8, 8, 8};
    ck_assert_int_eq(QMP_layout_grid(lattice, 4), QMP_SUCCESS);
    ck_assert_text_eq(laid_out(), "logical=1,1,2,2 coords=0,0,0,1 subgrid=8,8,4,4 sites=1024");
    // A -qmp-logic-map that does not fit the lattice's dimensions.
    auto three = like(*comm);
    qmp::state().default_comm = three.get();
    const int small[] = {8, 8};
    ck_assert_int_eq(QMP_layout_grid(small, 2), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_layout_grid: expected a map of 2 values (one per "
                                        "dimension), found 3 2 1 0");
    ck_assert_ptr_null(QMP_get_subgrid_dimensions());
}
END_TEST

START_TEST(layout_on_a_declared_topology)
{
    auto comm = pretend(2, 4);
    const int dims[] = {4};
    ck_assert_int_eq(QMP_declare_logical_topology(dims, 1), QMP_SUCCESS);
    const int lattice[] = {8, 6};
    ck_assert_int_eq(QMP_layout_grid(lattice, 2), QMP_SUCCESS);
    ck_assert_text_eq(laid_out(), "logical=4 coords=2 subgrid=2 sites=12");
    ck_assert_text_eq(join(QMP_get_subgrid_dimensions(), 2), "2,6");
    const int odd[] = {6, 6};
    ck_assert_int_eq(QMP_layout_grid(odd, 2), QMP_ERROR);
    ck_assert_text_eq(last_error(), std::to_string(QMP_ERROR) +
                                        ": QMP_layout_grid: the lattice 6x6 does not fit on the "
                                        "logical topology 4 (dimension 0)");
    // The earlier layout stays.
    ck_assert_text_eq(join(QMP_get_subgrid_dimensions(), 2), "2,6");
}
END_TEST

START_TEST(layout_errors)
{
    auto comm = pretend(0, 3);
    const int lattice[] = {4, 4, 4, 4};
    ck_assert_int_eq(QMP_layout_grid(lattice, 4), QMP_ERROR);
    ck_assert_text_eq(last_error(), std::to_string(QMP_ERROR) +
                                        ": QMP_layout_grid: the lattice 4x4x4x4 has not enough "
                                        "prime factors for 3 nodes");
    ck_assert_int_eq(QMP_logical_topology_is_declared(), QMP_FALSE);
    ck_assert_int_eq(QMP_layout_grid(lattice, -1), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_layout_grid: expected a number of dimensions of 0 "
                                        "or more, found -1");
    ck_assert_int_eq(QMP_layout_grid(nullptr, 4), QMP_INVALID_ARG);
    ck_assert_text_eq(last_error(), std::to_string(QMP_INVALID_ARG) +
                                        ": QMP_layout_grid: expected 4 lattice sizes, found NULL");
}
END_TEST

START_TEST(layout_on_a_mesh)
{
    // A MESH without a job grid lays out as a switch does (QMP 2.5).
    auto comm = pretend(0, 4);
    qmp::state().machine.type = QMP_MESH;
    auto job = like(*comm);
    qmp::state().job_comm = job.get();
    const int lattice[] = {8, 8};
    ck_assert_int_eq(QMP_layout_grid(lattice, 2), QMP_SUCCESS);
    ck_assert_text_eq(laid_out(), "logical=2,2 coords=0,0 subgrid=4,4 sites=16");
    // With a job grid (-qmp-job on a MESH) the layout takes it: 1x4, where
    // the factorisation would give 2x2.
    auto fresh = like(*comm);
    qmp::state().default_comm = fresh.get();
    const int grid[] = {1, 4};
    ck_assert_int_eq(QMP_comm_declare_logical_topology(job.get(), grid, 2), QMP_SUCCESS);
    ck_assert_int_eq(QMP_layout_grid(lattice, 2), QMP_SUCCESS);
    ck_assert_text_eq(laid_out(), "logical=1,4 coords=0,0 subgrid=8,2 sites=16");
    // On a switch the job grid plays no part.
    auto third = like(*comm);
    qmp::state().default_comm = third.get();
    qmp::state().machine.type = QMP_SWITCH;
    ck_assert_int_eq(QMP_layout_grid(lattice, 2), QMP_SUCCESS);
    ck_assert_text_eq(laid_out(), "logical=2,2 coords=0,0 subgrid=4,4 sites=16");
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("qmp_topology");
    TCase *tcase = tcase_create("topology");
    tcase_add_test(tcase, nothing_declared_at_first);
    tcase_add_test(tcase, plain_grid);
    tcase_add_test(tcase, neighbours_wrap_around);
    tcase_add_test(tcase, grid_with_a_map);
    tcase_add_test(tcase, three_dimensions_with_a_map);
    tcase_add_test(tcase, logic_map_for_the_plain_form);
    tcase_add_test(tcase, declare_errors);
    tcase_add_test(tcase, nodes_and_coordinates_out_of_range);
    tcase_add_test(tcase, not_initialized);
    tcase_add_test(tcase, grid_with_its_own_numbering);
    tcase_add_test(tcase, layout_factorised);
    tcase_add_test(tcase, layout_with_the_logic_map);
    tcase_add_test(tcase, layout_on_a_declared_topology);
    tcase_add_test(tcase, layout_errors);
    tcase_add_test(tcase, layout_on_a_mesh);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

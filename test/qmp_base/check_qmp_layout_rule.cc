// SPDX-License-Identifier: BSD-3-Clause
// QMP's rules as pure functions (mca/qmp/qmp_layout_rule.hpp).  Every
// expected value below was worked out by hand from QMP 2.5's algorithms
// (lib/QMP_grid.c, lib/mpi/QMP_topology_mpi.c, lib/QMP_init.c); the steps
// are in the comments.
#include <string>
#include <vector>

#include "mca/qmp/qmp_layout_rule.hpp"
#include "test/support/meridian_test.hpp"

namespace rules = meridian::qmp::rules;

namespace
{

std::string join(const std::vector<int> &values)
{
    std::string out;
    for (const int v : values) {
        out += (out.empty() ? "" : ",") + std::to_string(v);
    }
    return out;
}

// "logical=... subgrid=... sites=N declare" or "STATUS: message".
std::string layout(std::vector<int> lattice, int nodes, std::vector<int> declared = {})
{
    const auto plan = rules::layout_grid(lattice, nodes, declared);
    if (!plan) {
        return std::to_string(plan.error().status) + ": " + plan.error().message;
    }
    return "logical=" + join(plan->logical) + " subgrid=" + join(plan->subgrid) +
           " sites=" + std::to_string(plan->sites) + (plan->declare ? " declare" : "");
}

std::string coords(int node, std::vector<int> dims, std::vector<int> map = {})
{
    std::vector<int> out(dims.size(), -1);
    rules::coordinates_of(node, dims, map, out);
    return join(out);
}

std::string check(std::vector<int> dims, int nodes, std::vector<int> map = {})
{
    const auto ok = rules::check_topology("QMP_declare_logical_topology", dims, nodes, map);
    return ok ? "ok" : std::to_string(ok.error().status) + ": " + ok.error().message;
}

std::string job_check(std::vector<int> geometry, std::vector<int> dims, int nodes)
{
    const auto ok = rules::check_job_geometry(geometry, dims, nodes);
    return ok ? "ok" : std::to_string(ok.error().status) + ": " + ok.error().message;
}

// "dims=... coords=r0|r1|..." or "none: why".
std::string mesh(std::vector<std::uint32_t> positions, std::size_t plane_dims,
                 std::vector<int> node_of, std::vector<int> local_rank_of)
{
    std::string why;
    const auto m = rules::mesh_from_positions(positions, plane_dims, node_of, local_rank_of, why);
    if (!m) {
        return "none: " + why;
    }
    std::string out = "dims=" + join(m->dims) + " coords=";
    const std::size_t nd = m->dims.size();
    for (std::size_t r = 0; r < node_of.size(); ++r) {
        out += (r == 0 ? "" : "|") +
               join(std::vector<int>(m->coords.begin() + static_cast<long>(r * nd),
                                     m->coords.begin() + static_cast<long>((r + 1) * nd)));
    }
    return out;
}

const std::string invalid = std::to_string(QMP_INVALID_ARG) + ": ";

START_TEST(numbering_without_a_map)
{
    // Dimension 0 runs fastest: on 4x2 node n is (n % 4, n / 4).
    ck_assert_text_eq(coords(0, {4, 2}), "0,0");
    ck_assert_text_eq(coords(3, {4, 2}), "3,0");
    ck_assert_text_eq(coords(5, {4, 2}), "1,1");
    ck_assert_text_eq(coords(6, {4, 2}), "2,1");
    ck_assert_int_eq(rules::node_of(std::vector<int>{3, 1}, std::vector<int>{4, 2}, {}), 7);
    // 2x3x4: 17 = 1 + 2 * (2 + 3 * 2) -> (1, 2, 2).
    ck_assert_text_eq(coords(17, {2, 3, 4}), "1,2,2");
    ck_assert_int_eq(rules::node_of(std::vector<int>{1, 2, 2}, std::vector<int>{2, 3, 4}, {}), 17);
}
END_TEST

START_TEST(numbering_with_a_map)
{
    // map {1,0} on 4x2: the fastest digit goes to dimension 1.  Node 5:
    // x1 = 5 % 2 = 1, then 5 / 2 = 2, x0 = 2 % 4 = 2 -> (2,1).
    ck_assert_text_eq(coords(5, {4, 2}, {1, 0}), "2,1");
    ck_assert_text_eq(coords(1, {4, 2}, {1, 0}), "0,1");
    ck_assert_text_eq(coords(2, {4, 2}, {1, 0}), "1,0");
    ck_assert_int_eq(
        rules::node_of(std::vector<int>{2, 1}, std::vector<int>{4, 2}, std::vector<int>{1, 0}), 5);
    // map {2,0,1} on 2x3x4, node 17: x2 = 17 % 4 = 1 (17 / 4 = 4),
    // x0 = 4 % 2 = 0 (4 / 2 = 2), x1 = 2 % 3 = 2 -> (0,2,1).
    ck_assert_text_eq(coords(17, {2, 3, 4}, {2, 0, 1}), "0,2,1");
    // Both directions agree on every node, and every node has its own place.
    const std::vector<int> dims = {2, 3, 4};
    const std::vector<int> map = {2, 0, 1};
    std::vector<bool> seen(24, false);
    for (int node = 0; node < 24; ++node) {
        std::vector<int> at(3);
        rules::coordinates_of(node, dims, map, at);
        ck_assert_int_eq(rules::node_of(at, dims, map), node);
        const int place = rules::node_of(at, dims, {});
        ck_assert(!seen[static_cast<std::size_t>(place)]);
        seen[static_cast<std::size_t>(place)] = true;
    }
}
END_TEST

START_TEST(declare_checks)
{
    ck_assert_text_eq(check({4, 2}, 8), "ok");
    ck_assert_text_eq(check({4, 2}, 8, {1, 0}), "ok");
    ck_assert_text_eq(check({1}, 1), "ok");
    ck_assert_text_eq(check({2, 0}, 0), invalid + "QMP_declare_logical_topology: expected sizes of "
                                                  "at least 1, found 2 0");
    ck_assert_text_eq(check({-2, -2}, 4), invalid + "QMP_declare_logical_topology: expected sizes "
                                                    "of at least 1, found -2 -2");
    ck_assert_text_eq(check({2, 3}, 4),
                      invalid + "QMP_declare_logical_topology: expected sizes whose product is "
                                "the number of nodes (4), found 2 3");
    // A product past INT_MAX is not taken for a small one.
    ck_assert_text_eq(check({65536, 65536, 1}, 0),
                      invalid + "QMP_declare_logical_topology: expected sizes whose product is "
                                "the number of nodes (0), found 65536 65536 1");
    ck_assert_text_eq(check({2, 2}, 4, {0}),
                      invalid + "QMP_declare_logical_topology: expected a map of 2 values (one "
                                "per dimension), found 0");
    ck_assert_text_eq(check({2, 2}, 4, {0, 0}),
                      invalid + "QMP_declare_logical_topology: expected a map that is a "
                                "permutation of 0..1, found 0 0");
    ck_assert_text_eq(check({2, 2}, 4, {1, 2}),
                      invalid + "QMP_declare_logical_topology: expected a map that is a "
                                "permutation of 0..1, found 1 2");
    ck_assert_text_eq(check({2, 2}, 4, {-1, 0}),
                      invalid + "QMP_declare_logical_topology: expected a map that is a "
                                "permutation of 0..1, found -1 0");
}
END_TEST

START_TEST(layouts_on_one_node)
{
    // n = 1: QMP's loop does nothing; the grid is all 1s (declared).
    ck_assert_text_eq(layout({4, 4, 4, 8}, 1), "logical=1,1,1,1 subgrid=4,4,4,8 sites=512 declare");
    ck_assert_text_eq(layout({3}, 1), "logical=1 subgrid=3 sites=3 declare");
    // No dimensions on one node: nothing to cut, one site.
    ck_assert_text_eq(layout({}, 1), "logical= subgrid= sites=1 declare");
}
END_TEST

START_TEST(layouts_of_powers_of_two)
{
    // 8^4.  Each step takes prime 2; among the largest divisible extents a
    // later dimension replaces an earlier one not cut yet:
    //  2: all 8, j walks 0->1->2->3         -> cut 3: 8,8,8,4  grid 1,1,1,2
    ck_assert_text_eq(layout({8, 8, 8, 8}, 2),
                      "logical=1,1,1,2 subgrid=8,8,8,4 sites=2048 declare");
    //  4: largest 8 at 0,1,2: j 0->1->2    -> cut 2: 8,8,4,4  grid 1,1,2,2
    ck_assert_text_eq(layout({8, 8, 8, 8}, 4),
                      "logical=1,1,2,2 subgrid=8,8,4,4 sites=1024 declare");
    //  8: largest 8 at 0,1: j 0->1         -> cut 1: 8,4,4,4  grid 1,2,2,2
    ck_assert_text_eq(layout({8, 8, 8, 8}, 8), "logical=1,2,2,2 subgrid=8,4,4,4 sites=512 declare");
    // 16: largest 8 at 0                    -> cut 0: 4,4,4,4  grid 2,2,2,2
    ck_assert_text_eq(layout({8, 8, 8, 8}, 16),
                      "logical=2,2,2,2 subgrid=4,4,4,4 sites=256 declare");
    // 32: all 4; j = 0, and dimension 0 was cut already so it stays
    //                                       -> cut 0: 2,4,4,4  grid 4,2,2,2
    ck_assert_text_eq(layout({8, 8, 8, 8}, 32),
                      "logical=4,2,2,2 subgrid=2,4,4,4 sites=128 declare");
    // 4^3 x 8 on 2: 8 is the largest      -> cut 3: 4,4,4,4  grid 1,1,1,2
    ck_assert_text_eq(layout({4, 4, 4, 8}, 2), "logical=1,1,1,2 subgrid=4,4,4,4 sites=256 declare");
    // on 4: then all 4, j walks to 3, dimension 3 was cut -> stays 3: 4,4,4,2
    ck_assert_text_eq(layout({4, 4, 4, 8}, 4), "logical=1,1,1,4 subgrid=4,4,4,2 sites=128 declare");
    // 1-D 12 on 4: 12 -> 6 -> 3.
    ck_assert_text_eq(layout({12}, 4), "logical=4 subgrid=3 sites=3 declare");
    // 2-D 8x4 on 2: 8 largest -> 4x4; on 4: 4,4 equal, 0 was cut -> stays 0.
    ck_assert_text_eq(layout({8, 4}, 2), "logical=2,1 subgrid=4,4 sites=16 declare");
    ck_assert_text_eq(layout({8, 4}, 4), "logical=4,1 subgrid=2,4 sites=8 declare");
}
END_TEST

START_TEST(layouts_of_other_primes)
{
    // 6 nodes on 12^4: largest prime first.  3: all 12, j walks to 3
    // -> 12,12,12,4 (1,1,1,3); 2: 12 at 0,1,2, j walks to 2 -> 12,12,6,4.
    ck_assert_text_eq(layout({12, 12, 12, 12}, 6),
                      "logical=1,1,2,3 subgrid=12,12,6,4 sites=3456 declare");
    // 12 nodes on 6^4.  3: j walks to 3 -> 6,6,6,2 (1,1,1,3); 2: 6 at 0,1,2
    // -> j = 2 -> 6,6,3,2 (1,1,2,3); 2: 6 at 0,1 -> j = 1 -> 6,3,3,2.
    ck_assert_text_eq(layout({6, 6, 6, 6}, 12),
                      "logical=1,2,2,3 subgrid=6,3,3,2 sites=108 declare");
    // 24 nodes on 24^3 x 48.  3: 48 is the largest -> 24,24,24,16 (1,1,1,3);
    // 2: 24 at 0,1,2 -> j = 2 -> 24,24,12,16; 2: 24 at 0,1 -> j = 1 ->
    // 24,12,12,16; 2: 24 at 0 -> 12,12,12,16 (2,2,2,3).
    ck_assert_text_eq(layout({24, 24, 24, 48}, 24),
                      "logical=2,2,2,3 subgrid=12,12,12,16 sites=27648 declare");
    // 5 nodes on 10^4: 5 goes to the last of the equal extents.
    ck_assert_text_eq(layout({10, 10, 10, 10}, 5),
                      "logical=1,1,1,5 subgrid=10,10,10,2 sites=2000 declare");
    // 7 nodes on 14x7: 14 is the largest divisible by 7.
    ck_assert_text_eq(layout({14, 7}, 7), "logical=7,1 subgrid=2,7 sites=14 declare");
    // 6 nodes on 4x6x5x2: 3 -> 6 (only one divisible) -> 4,2,5,2; 2: 4 is
    // the largest even extent -> 2,2,5,2 (2,3,1,1).
    ck_assert_text_eq(layout({4, 6, 5, 2}, 6), "logical=2,3,1,1 subgrid=2,2,5,2 sites=40 declare");
    // 53, the largest prime QMP knows.
    ck_assert_text_eq(layout({106}, 53), "logical=53 subgrid=2 sites=2 declare");
}
END_TEST

START_TEST(layouts_that_fail)
{
    const std::string error = std::to_string(QMP_ERROR) + ": ";
    // 3 nodes, no extent divisible by 3.
    ck_assert_text_eq(layout({4, 4, 4, 4}, 3),
                      error + "QMP_layout_grid: the lattice 4x4x4x4 has not enough prime factors "
                              "for 3 nodes");
    // 48 = 3 * 16 on 16^3 x 32: 3 comes first and divides nothing.
    ck_assert_text_eq(layout({16, 16, 16, 32}, 48),
                      error + "QMP_layout_grid: the lattice 16x16x16x32 has not enough prime "
                              "factors for 48 nodes");
    // 8 nodes on 12: 12 -> 6 -> 3, then 3 is not even.
    ck_assert_text_eq(layout({12}, 8),
                      error + "QMP_layout_grid: the lattice 12 has not enough prime factors for "
                              "8 nodes");
    // 4 nodes on 2x1: 2 -> 1x1, then nothing is even.
    ck_assert_text_eq(layout({2, 1}, 4),
                      error + "QMP_layout_grid: the lattice 2x1 has not enough prime factors for "
                              "4 nodes");
    // No dimensions on 2 nodes.
    ck_assert_text_eq(layout({}, 2),
                      error + "QMP_layout_grid: the lattice (none) has not enough prime factors "
                              "for 2 nodes");
    // 59 (a prime above 53): QMP's k stops at 2 and divides by 2 five
    // times (59 -> 29 -> 14 -> 7 -> 3 -> 1), a grid of 32; its declare
    // refuses that.  With odd extents the 2s find nothing first.
    ck_assert_text_eq(layout({64, 64, 64, 64}, 59),
                      invalid + "QMP_layout_grid: 59 nodes have a prime factor above 53, which "
                                "QMP's layout rule cannot place");
    ck_assert_text_eq(layout({3, 3, 3, 3}, 59),
                      error + "QMP_layout_grid: the lattice 3x3x3x3 has not enough prime factors "
                              "for 59 nodes");
    ck_assert_text_eq(layout({4, 0, 4}, 2),
                      invalid +
                          "QMP_layout_grid: expected lattice sizes of at least 1, found 4 0 4");
}
END_TEST

START_TEST(layouts_on_a_declared_topology)
{
    // The declared sizes, padded with 1s, cut the lattice.
    ck_assert_text_eq(layout({8, 4, 6}, 4, {2, 2}), "logical=2,2,1 subgrid=4,2,6 sites=48");
    ck_assert_text_eq(layout({8, 8, 8, 8}, 2, {1, 1, 1, 2}),
                      "logical=1,1,1,2 subgrid=8,8,8,4 sites=2048");
    // Unlike the factorisation, a declared 4 cuts 8 into 2 along dimension 0.
    ck_assert_text_eq(layout({8, 8}, 4, {4}), "logical=4,1 subgrid=2,8 sites=16");
    const std::string error = std::to_string(QMP_ERROR) + ": ";
    ck_assert_text_eq(layout({8, 4}, 8, {2, 2, 2}),
                      error + "QMP_layout_grid: the lattice has 2 dimensions, fewer than the "
                              "logical topology 2x2x2");
    ck_assert_text_eq(layout({8, 4}, 6, {3, 2}),
                      error + "QMP_layout_grid: the lattice 8x4 does not fit on the logical "
                              "topology 3x2 (dimension 0)");
    ck_assert_text_eq(layout({6, 3}, 4, {2, 2}),
                      error + "QMP_layout_grid: the lattice 6x3 does not fit on the logical "
                              "topology 2x2 (dimension 1)");
}
END_TEST

START_TEST(job_colours)
{
    // Switched: node n of N in job n * g / N.
    ck_assert_int_eq(rules::job_color(std::vector<int>{2}, {}, {}, 0, 4), 0);
    ck_assert_int_eq(rules::job_color(std::vector<int>{2}, {}, {}, 1, 4), 0);
    ck_assert_int_eq(rules::job_color(std::vector<int>{2}, {}, {}, 2, 4), 1);
    ck_assert_int_eq(rules::job_color(std::vector<int>{4}, {}, {}, 5, 8), 2);
    // Mesh 4x4 cut 2x1: (1,3) -> parts (0,0) -> job 0; (3,0) -> (1,0) -> 1.
    const std::vector<int> dims = {4, 4};
    ck_assert_int_eq(rules::job_color(std::vector<int>{2, 1}, dims, std::vector<int>{1, 3}, 0, 16),
                     0);
    ck_assert_int_eq(rules::job_color(std::vector<int>{2, 1}, dims, std::vector<int>{3, 0}, 0, 16),
                     1);
    // Cut 2x2: (3,2) -> parts (1,1) -> 1 + 2 * 1 = 3; (0,3) -> (0,1) -> 2.
    ck_assert_int_eq(rules::job_color(std::vector<int>{2, 2}, dims, std::vector<int>{3, 2}, 0, 16),
                     3);
    ck_assert_int_eq(rules::job_color(std::vector<int>{2, 2}, dims, std::vector<int>{0, 3}, 0, 16),
                     2);

    ck_assert_text_eq(job_check({2}, {}, 4), "ok");
    ck_assert_text_eq(job_check({2, 1}, {4, 4}, 16), "ok");
    ck_assert_text_eq(job_check({2, 2}, {}, 4),
                      invalid + "-qmp-job: expected one number on a switched machine (it has no "
                                "allocated dimensions), found 2 2");
    ck_assert_text_eq(job_check({3}, {}, 4),
                      invalid + "-qmp-job: expected a divisor of the number of nodes (4), found 3");
    ck_assert_text_eq(job_check({2}, {4, 4}, 16),
                      invalid + "-qmp-job: expected 2 numbers (one per allocated dimension of "
                                "4x4), found 2");
    ck_assert_text_eq(job_check({3, 1}, {4, 4}, 16),
                      invalid + "-qmp-job: expected divisors of the allocated dimensions 4 4, "
                                "found 3 1");
    ck_assert_text_eq(job_check({0}, {}, 4),
                      invalid + "-qmp-job: expected whole numbers of at least 1, found 0");
}
END_TEST

START_TEST(mesh_from_node_positions)
{
    // Four nodes filling a 2x2 plane, one process each.
    ck_assert_text_eq(mesh({0, 0, 1, 0, 0, 1, 1, 1}, 2, {0, 1, 2, 3}, {0, 0, 0, 0}),
                      "dims=2,2 coords=0,0|1,0|0,1|1,1");
    // Two nodes at (3,1) and (4,1) of a bigger plane, two processes each in
    // blocks: the box 2x1, then the processes as a dimension of 2.
    ck_assert_text_eq(mesh({3, 1, 4, 1}, 2, {0, 0, 1, 1}, {0, 1, 0, 1}),
                      "dims=2,1,2 coords=0,0,0|0,0,1|1,0,0|1,0,1");
    // The same placed round-robin: ranks 0,2 on node 0.
    ck_assert_text_eq(mesh({3, 1, 4, 1}, 2, {0, 1, 0, 1}, {0, 0, 1, 1}),
                      "dims=2,1,2 coords=0,0,0|1,0,0|0,0,1|1,0,1");
    // One node alone: a box of 1s.
    ck_assert_text_eq(mesh({5, 2, 7}, 3, {0}, {0}), "dims=1,1,1 coords=0,0,0");
    // Nodes given out of order keep their positions.
    ck_assert_text_eq(mesh({1, 1, 0, 0, 1, 0, 0, 1}, 2, {0, 1, 2, 3}, {0, 0, 0, 0}),
                      "dims=2,2 coords=1,1|0,0|1,0|0,1");

    ck_assert_text_eq(mesh({0, 0, 2, 0}, 2, {0, 1}, {0, 0}),
                      "none: the job's 2 nodes do not fill the box 3x1 they span");
    ck_assert_text_eq(mesh({1, 1, 1, 1}, 2, {0, 1}, {0, 0}),
                      "none: the job's 2 nodes do not fill the box 1x1 they span");
    ck_assert_text_eq(mesh({0, 0, 1, 0, 0, 0, 1, 1}, 2, {0, 1, 2, 3}, {0, 0, 0, 0}),
                      "none: two of the job's nodes are at one position");
    ck_assert_text_eq(mesh({0, 1}, 1, {0, 0, 1}, {0, 1, 0}),
                      "none: the job's nodes run different numbers of processes");
    ck_assert_text_eq(mesh({}, 0, {}, {}), "none: the plane has no dimensions");
}
END_TEST

START_TEST(axes_permuted)
{
    // Axis i becomes axis map[i]: {4,2,3} with {2,0,1} -> {2,3,4}.
    std::vector<int> dims = {4, 2, 3};
    std::vector<int> at = {3, 1, 2, 0, 0, 1};
    rules::permute_axes(dims, at, std::vector<int>{2, 0, 1});
    ck_assert_text_eq(join(dims), "2,3,4");
    ck_assert_text_eq(join(at), "1,2,3,0,1,0");
}
END_TEST

} // namespace

int main()
{
    Suite *suite = suite_create("qmp_layout_rule");
    TCase *tcase = tcase_create("rules");
    tcase_add_test(tcase, numbering_without_a_map);
    tcase_add_test(tcase, numbering_with_a_map);
    tcase_add_test(tcase, declare_checks);
    tcase_add_test(tcase, layouts_on_one_node);
    tcase_add_test(tcase, layouts_of_powers_of_two);
    tcase_add_test(tcase, layouts_of_other_primes);
    tcase_add_test(tcase, layouts_that_fail);
    tcase_add_test(tcase, layouts_on_a_declared_topology);
    tcase_add_test(tcase, job_colours);
    tcase_add_test(tcase, mesh_from_node_positions);
    tcase_add_test(tcase, axes_permuted);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

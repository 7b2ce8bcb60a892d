// SPDX-License-Identifier: BSD-3-Clause
// Job maps from hosts lists: ranks per node, local ranks, binding to cores
// or packages, and every message with its column.
#include <string>

#include "test/fabric/fabric_test_support.hpp"
#include <meridian/opal/class/job_map.hpp>

using namespace fabric_test;
using namespace meridian::fabric;

namespace
{

Fabric nodes_fabric()
{
    auto parsed = parse("node node01 packages=2 cores=4\n"
                        "node node02 packages=2 cores=3\n"
                        "node node03\n");
    ck_assert(parsed.ok());
    return std::move(*parsed);
}

std::string placements(const JobMap &map)
{
    std::string text;
    for (const ProcPlacement &proc : map.procs) {
        text += std::to_string(proc.node) + "/" + std::to_string(proc.local_rank) + "/" +
                std::to_string(proc.package) + " ";
    }
    return text;
}

std::string error_of_hosts(std::string_view hosts)
{
    const Fabric fabric = nodes_fabric();
    return error_of(make_job_map(fabric, hosts, Binding::none, "--hosts"));
}

} // namespace

START_TEST(ranks_fill_each_node_in_turn)
{
    const Fabric fabric = nodes_fabric();
    auto map = make_job_map(fabric, "node02:2, node01:5", Binding::core, "--hosts", "job7");
    ck_assert(map.ok());
    ck_assert_text_eq(map->nspace, "job7");
    ck_assert(map->nodes == (std::vector<Index>{1, 0}));
    // node02: 3 cores over 2 packages (cores 0,1 -> package 0, core 2 -> 1);
    // node01: 4 cores, 2 per package, local rank 4 wraps to core 0.
    ck_assert_text_eq(placements(*map), "1/0/0 1/1/0 0/0/0 0/1/0 0/2/1 0/3/1 0/4/0 ");
    auto by_package = make_job_map(fabric, "node01:3", Binding::package, "--hosts");
    ck_assert_text_eq(placements(*by_package), "0/0/0 0/1/1 0/2/0 ");
    auto unbound = make_job_map(fabric, "node03:2", Binding::none, "--hosts");
    ck_assert_text_eq(placements(*unbound), "2/0/-1 2/1/-1 ");
    ck_assert_text_eq(unbound->nspace, "meridian");
    // Without a count: the node's cores.
    auto cores = make_job_map(fabric, "node02,node03", Binding::core, "--hosts");
    ck_assert_text_eq(placements(*cores), "1/0/0 1/1/0 1/2/1 2/0/0 ");
    ck_assert_text_eq(binding_name(Binding::core), "core");
    ck_assert_text_eq(binding_name(Binding::package), "package");
    ck_assert_text_eq(binding_name(Binding::none), "none");
}
END_TEST

START_TEST(every_error)
{
    ck_assert_text_eq(error_of_hosts("node01:4,node09:4"),
                      "--hosts:10: unknown node \"node09\" (defined: node01, node02, node03)");
    ck_assert_text_eq(error_of_hosts("node01:4,node01:4"),
                      "--hosts:10: expected each node once, found \"node01\" again (first at "
                      "column 1)");
    ck_assert_text_eq(error_of_hosts("node01:0"),
                      "--hosts:8: expected a process count 1-10000000 after \"node01:\", found "
                      "\"0\"");
    ck_assert_text_eq(error_of_hosts("node01:10000001"),
                      "--hosts:8: expected a process count 1-10000000 after \"node01:\", found "
                      "\"10000001\"");
    ck_assert_text_eq(error_of_hosts("node01:"),
                      "--hosts:8: expected a process count 1-10000000 after \"node01:\", found "
                      "end of text");
    ck_assert_text_eq(error_of_hosts("node01:x,node02"),
                      "--hosts:8: expected a process count 1-10000000 after \"node01:\", found "
                      "\"x\"");
    ck_assert_text_eq(error_of_hosts(""), "--hosts:1: expected a node name, found end of text");
    ck_assert_text_eq(error_of_hosts("node01,,node02"),
                      "--hosts:8: expected a node name, found ','");
    ck_assert_text_eq(error_of_hosts(":4"), "--hosts:1: expected a node name, found \":4\"");
    // Many nodes: a few are named.
    std::string text;
    for (int i = 0; i < 12; ++i) {
        text += "node n" + std::to_string(i) + "\n";
    }
    auto many = parse(text);
    ck_assert_text_eq(error_of(make_job_map(*many, "x", Binding::none, "hosts")),
                      "hosts:1: unknown node \"x\" (defined: n0, n1, n2, n3, n4, ... (12 nodes))");
    const Fabric none;
    ck_assert_text_eq(error_of(make_job_map(none, "x", Binding::none, "hosts")),
                      "hosts:1: unknown node \"x\" (the fabric has no nodes)");
}
END_TEST

int main()
{
    Suite *suite = suite_create("job_map");
    TCase *tcase = tcase_create("job_map");
    tcase_add_test(tcase, ranks_fill_each_node_in_turn);
    tcase_add_test(tcase, every_error);
    suite_add_tcase(suite, tcase);
    return meridian_test::run_suite(suite);
}

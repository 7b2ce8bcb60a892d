// SPDX-License-Identifier: BSD-3-Clause
// Where a job's processes run on a fabric: rank -> node, local rank and the
// package it is bound to.  Ranks are 0..size-1.
#ifndef MERIDIAN_CLASS_JOB_MAP_HPP
#define MERIDIAN_CLASS_JOB_MAP_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/util/result.hpp>

namespace meridian::fabric
{

enum class Binding : std::uint8_t { none, core, package };
std::string_view binding_name(Binding binding); // "none", "core", "package"
// A few of the fabric's node names, for an "unknown node" message:
// "defined: node01, node02, ... (64 nodes)", or "the fabric has no nodes".
std::string some_nodes(const Fabric &fabric);

// The most processes a job map holds: in all (ranks are an int in PMIx and
// MPI), and on one node (a sane ceiling, far above any node's cores; it
// keeps a count given by mistake from sizing a map of billions).
inline constexpr std::uint64_t max_ranks = 2147483647;
inline constexpr std::uint64_t max_procs_per_node = 10000000;

struct ProcPlacement {
    Index node = no_index;
    std::uint32_t local_rank = 0;
    std::int32_t package = -1; // -1: not bound within one package
};

struct JobMap {
    std::string nspace = "meridian";
    std::vector<ProcPlacement> procs; // index = rank
    std::vector<Index> nodes;         // the job's nodes, in order of their first rank
};

// "node01:4,node02:4": ranks fill each node in turn (node01 gets 0-3).  A
// node without ":N" gets its core count.  Binding: core -> local rank i on
// core i mod cores, in the package that core belongs to (cores split evenly
// over packages); package -> package i mod packages; none -> -1.
// Errors name the position in the text ("--hosts:9: ..." with `where` =
// "--hosts"): unknown node (listing a few known ones), a node listed twice,
// a count that is not 1..10^7.
Result<JobMap> make_job_map(const Fabric &fabric, std::string_view hosts, Binding binding,
                            std::string_view where, std::string nspace = "meridian");

} // namespace meridian::fabric

#endif

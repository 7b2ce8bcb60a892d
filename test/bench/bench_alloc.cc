// SPDX-License-Identifier: BSD-3-Clause
// Benchmark of pnet's allocation (mca/pnet/base/base.hpp: make_job +
// allocate, with the active pnet components and coord placing the planes)
// on generated fabrics of 10^2 .. 10^5 nodes and jobs of 10 processes per
// node (10^3 .. 10^6 processes).  Goal: time and peak memory grow linearly
// with the number of processes.
//
// The fabric: 2 planes ("data" 10.0.0.0/8, "mgmt" 172.16.0.0/12), each node
// with one NIC on each (data on package 0, mgmt on package 1), switches of 32
// nodes per plane, a static pool of 1000 TCP ports per node, 2 packages and
// 10 cores.  The job: 10 processes per node, bound to cores, and 2 requests:
//   id=bulk,type=tcp,plane=data,endpts=2     id=ctl,type=tcp,plane=mgmt,seckey
//
// Measured in the same run:
//   - floor: the job map alone (make_job_map from "n0:10,n1:10,..."), which
//     any allocation starts from;
//   - ours: make_job + allocate, then deregister (not timed);
//   - naive: what a straightforward allocator does -- per-process
//     std::vector<std::vector<uint16_t>> results (one vector per request)
//     and a NIC list per process, each port checked against the node's
//     previously assigned ports by a scan.  Skipped above --naive-max
//     processes.
// Each (size, method) runs in a child process of its own, so that the peak
// resident set reported (wait4's ru_maxrss) is that of one fabric and one
// job, not the largest seen so far.  Times are the best of rounds repeated
// for --min-time seconds (one round at the largest sizes).
//
//   bench_alloc [--nodes N,N,...] [--procs-per-node N] [--min-time S] [--naive-max PROCS]
//
// Environment: the pnet and coord components must be found (make bench-alloc
// sets the component path to the build tree's).  Meaningless in a sanitizer
// build.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "test/bench/bench_child.hpp"
#include <meridian/mca/pnet/base/base.hpp>
#include <meridian/mca/pnet/base/request.hpp>
#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/class/fabric.hpp>
#include <meridian/opal/class/job_map.hpp>

namespace fab = meridian::fabric;
namespace pnet = meridian::pnet;

namespace
{

constexpr std::uint32_t nodes_per_switch = 32;
constexpr std::uint16_t first_port = 32000;
constexpr std::uint16_t pool_size = 1000;
constexpr std::uint32_t default_procs_per_node = 10;
const char *const request_texts[] = {"id=bulk,type=tcp,plane=data,endpts=2",
                                     "id=ctl,type=tcp,plane=mgmt,seckey"};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void die(const std::string &what)
{
    std::fprintf(stderr, "bench_alloc: %s\n", what.c_str());
    std::fflush(stderr);
    _exit(1);
}

template <typename T> T must(meridian::Result<T> result, const char *what)
{
    if (!result) {
        die(std::string(what) + ": " + result.error().message);
    }
    return std::move(*result);
}

// ---------------------------------------------------------------- the fabric

fab::Fabric make_fabric(std::uint32_t nodes, std::uint32_t cores)
{
    fab::Fabric fabric;
    fabric.name = "bench";
    const struct {
        const char *name;
        const char *cidr;
    } planes[] = {{"data", "10.0.0.0/8"}, {"mgmt", "172.16.0.0/12"}};
    fab::Index plane_index[2];
    std::vector<fab::Index> switches[2];
    const std::uint32_t switch_count = (nodes + nodes_per_switch - 1) / nodes_per_switch;
    for (int p = 0; p < 2; ++p) {
        fab::Plane plane;
        plane.name = planes[p].name;
        plane.cidr = fab::parse_cidr(planes[p].cidr);
        plane_index[p] = must(fabric.add_plane(std::move(plane)), "add_plane");
        for (std::uint32_t s = 0; s < switch_count; ++s) {
            switches[p].push_back(
                must(fabric.add_switch(std::string(planes[p].name) + "-sw" + std::to_string(s),
                                       plane_index[p]),
                     "add_switch"));
        }
    }
    const fab::PortPoolSpec pool{
        fab::Protocol::tcp, std::nullopt, {fab::PortRange{first_port, first_port + pool_size - 1}}};
    for (std::uint32_t n = 0; n < nodes; ++n) {
        fab::Node node;
        node.name = "n" + std::to_string(n);
        node.packages = 2;
        node.cores = cores;
        node.ports = {pool};
        const fab::Index index = must(fabric.add_node(std::move(node)), "add_node");
        for (int p = 0; p < 2; ++p) {
            fab::Nic nic;
            nic.name = p == 0 ? "eth0" : "mgmt0";
            nic.node = index;
            nic.plane = plane_index[p];
            nic.sw = switches[p][n / nodes_per_switch];
            nic.address = fabric.planes()[plane_index[p]].cidr->network + n + 1;
            nic.speed_mbps = p == 0 ? 100000 : 1000;
            nic.package = p;
            (void)must(fabric.add_nic(std::move(nic)), "add_nic");
        }
    }
    return fabric;
}

std::string hosts_text(std::uint32_t nodes, std::uint32_t procs_per_node)
{
    std::string hosts;
    const std::string count = ":" + std::to_string(procs_per_node);
    for (std::uint32_t n = 0; n < nodes; ++n) {
        if (n > 0) {
            hosts += ',';
        }
        hosts += 'n';
        hosts += std::to_string(n);
        hosts += count;
    }
    return hosts;
}

std::vector<pnet::Request> requests()
{
    std::vector<pnet::Request> list;
    for (const char *text : request_texts) {
        list.push_back(must(pnet::parse_request(text, "bench"), "parse_request"));
    }
    return list;
}

// ---------------------------------------------------------------- the naive allocator

// What a straightforward allocator keeps: per process, per request, a vector
// of ports; per process a vector of NICs; per node the ports handed out so
// far, scanned for every candidate port.
struct NaiveJob {
    std::vector<std::vector<std::vector<std::uint16_t>>> ports; // [rank][request]
    std::vector<std::vector<std::uint32_t>> nics;               // [rank]
    std::vector<std::vector<std::uint16_t>> node_used;          // [node]
};

void naive_allocate(const fab::Fabric &fabric, const fab::JobMap &map, NaiveJob &job)
{
    const std::uint32_t endpts[] = {2, 1};
    job.ports.assign(map.procs.size(), {});
    job.nics.assign(map.procs.size(), {});
    job.node_used.assign(fabric.nodes().size(), {});
    for (std::size_t rank = 0; rank < map.procs.size(); ++rank) {
        const fab::ProcPlacement &proc = map.procs[rank];
        const fab::Node &node = fabric.nodes()[proc.node];
        auto &used = job.node_used[proc.node];
        auto &mine = job.ports[rank];
        mine.resize(2);
        for (int r = 0; r < 2; ++r) {
            for (std::uint32_t e = 0; e < endpts[r]; ++e) {
                bool found = false;
                for (const fab::PortRange &range : node.ports.front().ranges) {
                    for (std::uint32_t port = range.first; port <= range.last && !found; ++port) {
                        if (std::find(used.begin(), used.end(), port) == used.end()) {
                            used.push_back(static_cast<std::uint16_t>(port));
                            mine[r].push_back(static_cast<std::uint16_t>(port));
                            found = true;
                        }
                    }
                }
                if (!found) {
                    die("naive: out of ports");
                }
            }
        }
        // NICs by distance from the process's package: its own package's
        // first, then the others, sorted per process.
        auto &nics = job.nics[rank];
        nics.assign(node.nics.begin(), node.nics.end());
        std::stable_sort(nics.begin(), nics.end(), [&](std::uint32_t a, std::uint32_t b) {
            const auto near = [&](std::uint32_t nic) {
                return proc.package < 0 || fabric.nics()[nic].package == proc.package ? 0 : 1;
            };
            return near(a) < near(b);
        });
    }
}

// ---------------------------------------------------------------- checks

// Every process has its ports and they are unique on its node: the answer
// is valid.  Linear (a bitmap per node, reset by the ports set).
template <typename PortsOf>
bool ports_valid(const fab::JobMap &map, std::uint32_t request, std::uint32_t endpts,
                 PortsOf ports_of)
{
    std::vector<std::uint8_t> seen(65536, 0);
    std::vector<std::uint16_t> set;
    fab::Index node = fab::no_index;
    bool valid = true;
    for (std::uint32_t rank = 0; rank < map.procs.size(); ++rank) {
        if (map.procs[rank].node != node) {
            for (const auto port : set) {
                seen[port] = 0;
            }
            set.clear();
            node = map.procs[rank].node;
        }
        const auto ports = ports_of(rank, request);
        valid = valid && ports.size() == endpts;
        for (const auto port : ports) {
            valid = valid && seen[port] == 0;
            seen[port] = 1;
            set.push_back(port);
        }
    }
    return valid;
}

// ---------------------------------------------------------------- measurements

enum class Method { floor, ours, naive };

const char *method_name(Method method)
{
    switch (method) {
    case Method::floor:
        return "floor";
    case Method::ours:
        return "ours";
    case Method::naive:
        return "naive";
    }
    return "?";
}

struct Measurement {
    double build_seconds = 0; // the fabric (untimed part)
    double before_mib = 0;    // peak RSS before the first timed round
    double seconds = 0;       // best round
    std::uint32_t rounds = 0;
    bool valid = false;
};

// Rounds of `one` (returning the seconds of its timed part) until min_time
// has passed; at least one.
double peak_mib_so_far()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB
}

template <typename One> void time_rounds(Measurement &m, double min_time, One one)
{
    // What the rounds add to the peak is the allocation's own memory.
    m.before_mib = peak_mib_so_far();
    const auto start = Clock::now();
    double best = std::numeric_limits<double>::max();
    do {
        best = std::min(best, one());
        ++m.rounds;
    } while (seconds_since(start) < min_time);
    m.seconds = best;
}

Measurement measure(Method method, std::uint32_t nodes, std::uint32_t per_node, double min_time)
{
    Measurement m;
    auto start = Clock::now();
    const auto fabric = std::make_shared<const fab::Fabric>(make_fabric(nodes, per_node));
    const std::string hosts = hosts_text(nodes, per_node);
    m.build_seconds = seconds_since(start);
    const auto map = [&] {
        return must(fab::make_job_map(*fabric, hosts, fab::Binding::core, "--hosts"),
                    "make_job_map");
    };
    switch (method) {
    case Method::floor:
        time_rounds(m, min_time, [&] {
            const auto round = Clock::now();
            const fab::JobMap made = map();
            const double seconds = seconds_since(round);
            m.valid = made.procs.size() == std::size_t(nodes) * per_node;
            return seconds;
        });
        break;
    case Method::ours: {
        if (meridian_init(nullptr, nullptr) != 0) {
            die("meridian_init failed");
        }
        const fab::JobMap made = map();
        const auto asked = requests();
        time_rounds(m, min_time, [&] {
            fab::JobMap copy = made;
            const auto round = Clock::now();
            auto job = must(pnet::make_job(fabric, std::move(copy), asked), "make_job");
            if (auto allocated = pnet::allocate(*job); !allocated) {
                die("allocate: " + allocated.error().message);
            }
            const double seconds = seconds_since(round);
            const pnet::Job &j = job->job;
            m.valid = j.grants.size() == 2 && j.grants[1].seckey.size() == 16;
            for (std::uint32_t r = 0; r < 2 && m.valid; ++r) {
                m.valid =
                    ports_valid(j.map, r, r == 0 ? 2 : 1, [&](std::uint32_t rank, std::uint32_t g) {
                        return j.grants[g].ports_of(rank);
                    });
            }
            m.valid = m.valid && j.nics_of(0).size() == 2;
            if (auto released = pnet::deregister(*job); !released) {
                die("deregister: " + released.error().message);
            }
            return seconds;
        });
        meridian_finalize();
        break;
    }
    case Method::naive: {
        const fab::JobMap made = map();
        time_rounds(m, min_time, [&] {
            NaiveJob job;
            const auto round = Clock::now();
            naive_allocate(*fabric, made, job);
            const double seconds = seconds_since(round);
            m.valid = true;
            for (std::uint32_t r = 0; r < 2 && m.valid; ++r) {
                m.valid = ports_valid(
                    made, r, r == 0 ? 2 : 1,
                    [&](std::uint32_t rank, std::uint32_t g) -> const std::vector<std::uint16_t> & {
                        return job.ports[rank][g];
                    });
            }
            return seconds;
        });
        break;
    }
    }
    return m;
}

using ChildResult = bench::ChildResult<Measurement>;

std::optional<ChildResult> in_child(Method method, std::uint32_t nodes, std::uint32_t per_node,
                                    double min_time)
{
    return bench::in_child(
        "bench_alloc", std::string(method_name(method)) + " at " + std::to_string(nodes) + " nodes",
        [&] { return measure(method, nodes, per_node, min_time); });
}

std::vector<std::uint32_t> parse_list(const char *text, const char *what, unsigned long low,
                                      unsigned long high)
{
    std::vector<std::uint32_t> values;
    std::string rest = text;
    do {
        const std::size_t comma = rest.find(',');
        const std::string item = rest.substr(0, comma);
        char *end = nullptr;
        const unsigned long value = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || value < low || value > high) {
            std::fprintf(stderr, "bench_alloc: bad %s \"%s\": expected %lu-%lu\n", what,
                         item.c_str(), low, high);
            std::exit(2);
        }
        values.push_back(static_cast<std::uint32_t>(value));
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    } while (!rest.empty());
    return values;
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::uint32_t> sizes = {100, 1000, 10000, 100000};
    std::uint32_t per_node = default_procs_per_node;
    double min_time = 1.0;
    std::uint64_t naive_max = 1000000;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--nodes" && i + 1 < argc) {
            sizes = parse_list(argv[++i], "node count", 1, 1000000);
        } else if (arg == "--procs-per-node" && i + 1 < argc) {
            per_node = parse_list(argv[++i], "process count", 1, 300).front();
        } else if (arg == "--min-time" && i + 1 < argc) {
            min_time = std::atof(argv[++i]);
        } else if (arg == "--naive-max" && i + 1 < argc) {
            naive_max = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "usage: bench_alloc [--nodes N,N,...] [--procs-per-node N] "
                                 "[--min-time SECONDS] [--naive-max PROCS]\n");
            return 2;
        }
    }

    std::printf("pnet allocation (make_job + allocate: pnet components + coord placement)\n"
                "fabric: 2 planes, 2 NICs per node (one per plane, on packages 0 and 1), "
                "switches of %" PRIu32 " nodes,\n"
                "  %u TCP ports per node; %" PRIu32 " processes per node bound to cores; "
                "requests:\n"
                "  %s\n  %s\n"
                "time: best of rounds in %.2f s; floor: make_job_map alone; naive: per-process\n"
                "  vectors of vectors, uniqueness by scanning the node's assigned ports\n"
                "MiB: peak RSS of the process (fabric + job map + allocation)\n\n",
                nodes_per_switch, unsigned(pool_size), per_node, request_texts[0], request_texts[1],
                min_time);
    std::printf("%7s %8s | %8s %6s | %8s %7s %6s %6s %6s | %8s %7s %6s | %6s %6s %6s | %5s\n",
                "nodes", "procs", "floor ms", "MiB", "ours ms", "ns/proc", "MiB", "+MiB", "rounds",
                "naive ms", "ns/proc", "+MiB", "x time", "x +MiB", "x lin", "valid");

    std::optional<ChildResult> prev;
    std::uint64_t prev_procs = 0;
    bool all_valid = true;
    const auto added = [](const ChildResult &r) { return r.peak_mib - r.m.before_mib; };
    for (const std::uint32_t nodes : sizes) {
        const std::uint64_t procs = std::uint64_t(nodes) * per_node;
        const auto floor = in_child(Method::floor, nodes, per_node, min_time);
        const auto ours = in_child(Method::ours, nodes, per_node, min_time);
        std::optional<ChildResult> naive;
        if (procs <= naive_max) {
            naive = in_child(Method::naive, nodes, per_node, min_time);
        }
        if (!floor || !ours || (procs <= naive_max && !naive)) {
            return 1;
        }
        const bool valid = floor->m.valid && ours->m.valid && (!naive || naive->m.valid);
        all_valid = all_valid && valid;
        std::printf(
            "%7" PRIu32 " %8" PRIu64 " | %8.3f %6.1f | %8.3f %7.1f %6.1f %6.1f %6" PRIu32 " |",
            nodes, procs, floor->m.seconds * 1e3, floor->peak_mib, ours->m.seconds * 1e3,
            ours->m.seconds * 1e9 / double(procs), ours->peak_mib, added(*ours), ours->m.rounds);
        if (naive) {
            std::printf(" %8.3f %7.1f %6.1f |", naive->m.seconds * 1e3,
                        naive->m.seconds * 1e9 / double(procs), added(*naive));
        } else {
            std::printf(" %8s %7s %6s |", "skipped", "-", "-");
        }
        if (prev) {
            std::printf(" %6.1f %6.1f %6.1f |", ours->m.seconds / prev->m.seconds,
                        added(*ours) / std::max(added(*prev), 0.1),
                        double(procs) / double(prev_procs));
        } else {
            std::printf(" %6s %6s %6s |", "-", "-", "-");
        }
        std::printf(" %5s\n", valid ? "yes" : "NO");
        std::fflush(stdout);
        prev = ours;
        prev_procs = procs;
    }
    std::printf("\nMiB: peak RSS of the process (ours: with meridian_init and the component DSOs;\n"
                "  floor: the fabric and the job map).  +MiB: what the timed rounds added to the\n"
                "  peak, i.e. the allocation's own memory (below ~1 MiB it is page noise).\n"
                "x time, x +MiB: growth of our time and memory from the size above; x lin: the\n"
                "  linear model's (the growth in processes).\n"
                "naive skipped above %" PRIu64 " processes (--naive-max).\n"
                "valid: every process got its ports, unique on its node, and its NICs.\n",
                naive_max);
    return all_valid ? 0 : 1;
}

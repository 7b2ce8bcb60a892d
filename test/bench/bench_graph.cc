// SPDX-License-Identifier: BSD-3-Clause
// Benchmark of carto's distance lists (opal/class/weighted_graph.hpp) on
// generated host-like graphs of 10^3 .. 10^6 vertices, against two
// baselines measured in the same run:
//   - Boost.Graph: dijkstra_shortest_paths on its compressed_sparse_row_graph
//     (32-bit indices, bundled name/type, plus a name index as carto needs),
//     the best BGL graph type for a graph that is built once and queried;
//   - the O(V^2) array method: Dijkstra that scans every vertex for the
//     nearest unsettled one (what Open MPI's carto did; its opal_graph_dijkstra
//     even re-sorted the whole queue at every step, so it was slower still).
// Every implementation answers the same distance lists (the vertices of the
// list's types nearest first, ties by name, unreachable ones last); each
// list's checksum must agree across implementations.
//
// Each (size, implementation) runs in a child process of its own, so that
// the peak resident set reported (wait4's ru_maxrss) is that of one graph and
// its queries, not the largest seen so far.
//
//   bench_graph [--sizes N,N,...] [--min-time SECONDS] [--array-max N]
//   bench_graph [--min-time SECONDS] --profile ours|bgl|array N   (one run, for perf)
//
// Defaults: --sizes 1000,10000,100000,1000000 --min-time 1 --array-max 10000
// (the array method takes about 25 s per list at 10^5, so 45 minutes at 10^6).
//
// Growth: past 10^4 vertices each list's working set (16 bytes per vertex for
// the distances, 16 per edge) leaves the L2 cache, then the L3, and every
// edge relaxed costs a memory access; the time then grows faster than
// (V+E) log V for both implementations (the generated graphs are random, so
// no vertex order keeps neighbours close).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/property_map.hpp>

#include "test/bench/bench_child.hpp"
#include <meridian/opal/class/weighted_graph.hpp>

using meridian::OutEdge;
using meridian::TypeMask;
using meridian::VertexId;
using meridian::VertexType;
using meridian::WeightedGraph;

namespace
{

constexpr std::uint64_t unreachable = std::numeric_limits<std::uint64_t>::max();
// The lists' types: every port and memory node, as a BTL choosing among them asks.
constexpr TypeMask list_mask = VertexType::mem | VertexType::eth | VertexType::ib;
constexpr int source_count = 8;

// ---------------------------------------------------------------- the graphs

// Deterministic so that every child builds the same graph.
struct Random {
    std::uint64_t state;
    std::uint64_t next()
    {
        // splitmix64
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint32_t below(std::uint32_t bound) { return static_cast<std::uint32_t>(next() % bound); }
};

// A host-like graph in groups of 8 vertices: 4 processors (Slot), 2 memory
// nodes (each local to 2 slots, weight 0), an Ethernet and an InfiniBand port
// (each near 2 slots, weight 1).  The slots of a group form a ring (weight
// 1) and each has 5 links to random slots anywhere (weight 1..16): 5 edges
// per vertex on average.  Every vertex's out-edges are emitted together, in
// vertex order, as a parser of the adjacency format would add them.
struct GeneratedVertex {
    std::string name;
    VertexType type;
};

template <typename AddVertex, typename AddEdge>
void generate(std::uint32_t vertices, AddVertex add_vertex, AddEdge add_edge)
{
    const std::uint32_t groups = vertices / 8;
    char name[32];
    for (std::uint32_t g = 0; g < groups; ++g) {
        for (std::uint32_t k = 0; k < 4; ++k) {
            std::snprintf(name, sizeof name, "Slot%" PRIu32, 4 * g + k);
            add_vertex(name, VertexType::slot);
        }
        for (std::uint32_t k = 0; k < 2; ++k) {
            std::snprintf(name, sizeof name, "MEM%" PRIu32, 2 * g + k);
            add_vertex(name, VertexType::mem);
        }
        std::snprintf(name, sizeof name, "eth%" PRIu32, g);
        add_vertex(name, VertexType::eth);
        std::snprintf(name, sizeof name, "ib%" PRIu32, g);
        add_vertex(name, VertexType::ib);
    }
    Random random{vertices};
    for (std::uint32_t g = 0; g < groups; ++g) {
        const std::uint32_t base = 8 * g;
        for (std::uint32_t k = 0; k < 4; ++k) {
            add_edge(base + k, base + 4 + k / 2, 0);
            add_edge(base + k, base + (k + 1) % 4, 1);
            add_edge(base + k, base + 6 + k / 2, 1);
            for (int link = 0; link < 5; ++link) {
                add_edge(base + k, 8 * random.below(groups) + random.below(4),
                         1 + random.below(16));
            }
        }
        for (std::uint32_t k = 0; k < 2; ++k) {
            add_edge(base + 4 + k, base + 2 * k, 0);
            add_edge(base + 4 + k, base + 2 * k + 1, 0);
        }
        for (std::uint32_t k = 0; k < 2; ++k) {
            add_edge(base + 6 + k, base + 2 * k, 1);
            add_edge(base + 6 + k, base + 2 * k + 1, 1);
        }
    }
}

// Sources spread over the graph: the first slot of evenly spaced groups.
std::vector<VertexId> sources(std::uint32_t vertices)
{
    std::vector<VertexId> list;
    const std::uint32_t groups = vertices / 8;
    for (int i = 0; i < source_count; ++i) {
        list.push_back(8 * static_cast<std::uint32_t>(std::uint64_t(groups) * i / source_count));
    }
    return list;
}

// ---------------------------------------------------------------- lists

// A list's checksum: names and distances in order (FNV-1a).
struct Checksum {
    std::uint64_t value = 0xcbf29ce484222325ULL;
    void add(std::string_view name, std::uint64_t distance)
    {
        for (const char c : name) {
            mix(static_cast<unsigned char>(c));
        }
        for (int i = 0; i < 8; ++i) {
            mix(static_cast<unsigned char>(distance >> (8 * i)));
        }
    }
    void mix(unsigned char byte)
    {
        value ^= byte;
        value *= 0x100000001b3ULL;
    }
};

// Each vertex's position in name order, as the library ranks names once
// for all its lists.
template <typename NameOf>
std::vector<std::uint32_t> name_ranks(std::uint32_t vertices, NameOf name_of)
{
    std::vector<VertexId> order(vertices);
    for (VertexId v = 0; v < vertices; ++v) {
        order[v] = v;
    }
    std::sort(order.begin(), order.end(), [&](VertexId a, VertexId b) {
        return meridian::compare_vertex_names(name_of(a), name_of(b)) < 0;
    });
    std::vector<std::uint32_t> rank(vertices);
    for (std::uint32_t r = 0; r < vertices; ++r) {
        rank[order[r]] = r;
    }
    return rank;
}

// The baselines' distance list from a distance array: what the library's
// distance_list does after its Dijkstra (filter by type, sort by distance
// then name rank, unreachable last, into the same answer type), so that only
// the shortest paths differ.
template <typename TypeOf>
std::vector<meridian::VertexDistance> assemble_list(const std::vector<std::uint64_t> &distance,
                                                    const std::vector<std::uint32_t> &rank,
                                                    TypeOf type_of)
{
    struct Item {
        std::uint64_t distance;
        std::uint32_t rank;
        VertexId vertex;
    };
    std::vector<Item> items;
    for (VertexId v = 0; v < distance.size(); ++v) {
        if ((meridian::type_mask(type_of(v)) & list_mask) != 0) {
            items.push_back(Item{distance[v], rank[v], v});
        }
    }
    // Unreachable is the largest distance, so those come last, by name.
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
        return a.distance != b.distance ? a.distance < b.distance : a.rank < b.rank;
    });
    std::vector<meridian::VertexDistance> list;
    list.reserve(items.size());
    for (const Item &item : items) {
        list.push_back(item.distance == unreachable
                           ? meridian::VertexDistance{item.vertex, std::nullopt}
                           : meridian::VertexDistance{item.vertex, item.distance});
    }
    return list;
}

template <typename NameOf>
std::uint64_t list_checksum(const std::vector<meridian::VertexDistance> &list, NameOf name_of)
{
    Checksum sum;
    for (const auto &entry : list) {
        sum.add(name_of(entry.vertex), entry.distance ? entry.distance->saturated() : unreachable);
    }
    return sum.value;
}

// ---------------------------------------------------------------- the implementations

enum class Method { ours, bgl, array, none };

const char *method_name(Method method)
{
    switch (method) {
    case Method::ours:
        return "ours";
    case Method::bgl:
        return "Boost.Graph";
    case Method::array:
        return "O(V^2) array";
    case Method::none:
        break;
    }
    return "empty process";
}

struct Measurement {
    std::uint64_t edges = 0;
    double build_seconds = 0;
    double seconds_per_list = 0;
    std::uint64_t lists = 0;
    // Of the first list from each source; the first `checked` are set.
    std::uint64_t checksum[source_count] = {};
    int checked = 0;
};

// Do two measurements give the same lists, for the sources both made?
bool same_lists(const Measurement &a, const Measurement &b)
{
    const int both = std::min(a.checked, b.checked);
    return both > 0 && std::equal(a.checksum, a.checksum + both, b.checksum);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Make lists from the sources round robin, in rounds of per_round lists,
// until min_time has passed; the time per list is that of the best round
// (the least disturbed by whatever else the machine runs).
template <typename OneList>
void time_lists(Measurement &m, const std::vector<VertexId> &from, double min_time,
                std::size_t per_round, OneList one_list)
{
    const auto start = Clock::now();
    std::size_t made = 0;
    double best = std::numeric_limits<double>::max();
    do {
        const auto round_start = Clock::now();
        for (std::size_t i = 0; i < per_round; ++i, ++made) {
            const std::uint64_t sum = one_list(from[made % from.size()]);
            if (made < from.size()) {
                m.checksum[made] = sum;
                m.checked = static_cast<int>(made + 1);
            }
        }
        best = std::min(best, seconds_since(round_start) / static_cast<double>(per_round));
    } while (seconds_since(start) < min_time);
    m.seconds_per_list = best;
    m.lists = made;
}

Measurement run_ours(std::uint32_t vertices, double min_time)
{
    Measurement m;
    const auto start = Clock::now();
    WeightedGraph graph;
    generate(
        vertices,
        [&](const char *name, VertexType type) {
            if (!graph.add_vertex(name, type)) {
                std::abort();
            }
        },
        [&](VertexId from, VertexId to, std::uint64_t weight) {
            if (!graph.add_edge(from, to, weight)) {
                std::abort();
            }
        });
    // The lazy work (CSR merge, name ranks) belongs to the build.
    (void)graph.distance_list(0, list_mask);
    m.build_seconds = seconds_since(start);
    m.edges = graph.edge_count();
    const auto from = sources(vertices);
    time_lists(m, from, min_time, from.size(), [&](VertexId source) {
        const auto list = graph.distance_list(source, list_mask);
        return list_checksum(*list, [&](VertexId v) { return graph.name(v); });
    });
    return m;
}

// A compressed_sparse_row_graph with what carto keeps per vertex and edge.
struct BglVertex {
    std::string name;
    VertexType type;
};
struct BglEdge {
    std::uint64_t weight;
};
using BglGraph =
    boost::compressed_sparse_row_graph<boost::directedS, BglVertex, BglEdge, boost::no_property,
                                       std::uint32_t, std::uint32_t>;

Measurement run_bgl(std::uint32_t vertices, double min_time)
{
    Measurement m;
    const auto start = Clock::now();
    std::vector<GeneratedVertex> vertex_list;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edge_list;
    std::vector<BglEdge> weights;
    generate(
        vertices,
        [&](const char *name, VertexType type) {
            vertex_list.push_back({name, type});
        },
        [&](VertexId from, VertexId to, std::uint64_t weight) {
            edge_list.emplace_back(from, to);
            weights.push_back(BglEdge{weight});
        });
    BglGraph graph(boost::edges_are_sorted, edge_list.begin(), edge_list.end(), weights.begin(),
                   vertices);
    m.edges = edge_list.size();
    std::vector<std::pair<std::uint32_t, std::uint32_t>>().swap(edge_list);
    std::vector<BglEdge>().swap(weights);
    // carto finds vertices by name: the index a BGL-based carto would need.
    std::unordered_map<std::string, std::uint32_t> index;
    index.reserve(vertices);
    for (std::uint32_t v = 0; v < vertices; ++v) {
        graph[v].name = std::move(vertex_list[v].name);
        graph[v].type = vertex_list[v].type;
        index.emplace(graph[v].name, v);
    }
    std::vector<GeneratedVertex>().swap(vertex_list);
    const auto name_of = [&](VertexId v) -> std::string_view { return graph[v].name; };
    const auto type_of = [&](VertexId v) { return graph[v].type; };
    const std::vector<std::uint32_t> rank = name_ranks(vertices, name_of);
    m.build_seconds = seconds_since(start);

    const auto from = sources(vertices);
    time_lists(m, from, min_time, from.size(), [&](VertexId source) {
        std::vector<std::uint64_t> distance(vertices);
        boost::dijkstra_shortest_paths(
            graph, source,
            boost::weight_map(boost::get(&BglEdge::weight, graph))
                .distance_map(boost::make_iterator_property_map(
                    distance.begin(), boost::get(boost::vertex_index, graph))));
        return list_checksum(assemble_list(distance, rank, type_of), name_of);
    });
    if (index.size() != vertices) {
        std::abort();
    }
    return m;
}

// The O(V^2) method on the library's graph: each step scans all vertices
// for the nearest unsettled one.
Measurement run_array(std::uint32_t vertices, double min_time)
{
    Measurement m;
    const auto start = Clock::now();
    WeightedGraph graph;
    generate(
        vertices, [&](const char *name, VertexType type) { (void)graph.add_vertex(name, type); },
        [&](VertexId from, VertexId to, std::uint64_t weight) {
            (void)graph.add_edge(from, to, weight);
        });
    const auto name_of = [&](VertexId v) { return graph.name(v); };
    const auto type_of = [&](VertexId v) { return graph.type(v); };
    const std::vector<std::uint32_t> rank = name_ranks(vertices, name_of);
    (void)graph.out_edges(0);
    m.build_seconds = seconds_since(start);
    m.edges = graph.edge_count();
    const auto from = sources(vertices);
    time_lists(m, from, min_time, 1, [&](VertexId source) {
        std::vector<std::uint64_t> distance(vertices, unreachable);
        std::vector<std::uint8_t> settled(vertices, 0);
        distance[source] = 0;
        while (true) {
            VertexId nearest = vertices;
            for (VertexId v = 0; v < vertices; ++v) {
                if (settled[v] == 0 && distance[v] != unreachable &&
                    (nearest == vertices || distance[v] < distance[nearest])) {
                    nearest = v;
                }
            }
            if (nearest == vertices) {
                break;
            }
            settled[nearest] = 1;
            for (const OutEdge &edge : graph.out_edges(nearest)) {
                const std::uint64_t candidate = distance[nearest] + edge.weight;
                if (candidate < distance[edge.target]) {
                    distance[edge.target] = candidate;
                }
            }
        }
        return list_checksum(assemble_list(distance, rank, type_of), name_of);
    });
    return m;
}

// ---------------------------------------------------------------- children

using ChildResult = bench::ChildResult<Measurement>;

std::optional<ChildResult> in_child(Method method, std::uint32_t vertices, double min_time)
{
    return bench::in_child(
        "bench_graph",
        std::string(method_name(method)) + " at " + std::to_string(vertices) + " vertices", [&] {
            Measurement m;
            switch (method) {
            case Method::ours:
                m = run_ours(vertices, min_time);
                break;
            case Method::bgl:
                m = run_bgl(vertices, min_time);
                break;
            case Method::array:
                m = run_array(vertices, min_time);
                break;
            case Method::none:
                break;
            }
            return m;
        });
}

std::vector<std::uint32_t> parse_sizes(const char *text)
{
    std::vector<std::uint32_t> sizes;
    std::string rest = text;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string item = rest.substr(0, comma);
        char *end = nullptr;
        const unsigned long value = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || value < 64 || value > 100000000 || value % 8 != 0) {
            std::fprintf(stderr,
                         "bench_graph: bad size \"%s\": expected a multiple of 8 between 64 and "
                         "100000000\n",
                         item.c_str());
            std::exit(2);
        }
        sizes.push_back(static_cast<std::uint32_t>(value));
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    }
    return sizes;
}

double model(double vertices, double edges)
{
    return (vertices + edges) * std::log2(vertices);
}

void print_ms(const std::optional<ChildResult> &r)
{
    if (r) {
        std::printf(" %9.3f", r->m.seconds_per_list * 1e3);
    } else {
        std::printf(" %9s", "-");
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::uint32_t> sizes = {1000, 10000, 100000, 1000000};
    double min_time = 1.0;
    std::uint32_t array_max = 10000;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--sizes" && i + 1 < argc) {
            sizes = parse_sizes(argv[++i]);
        } else if (arg == "--min-time" && i + 1 < argc) {
            min_time = std::atof(argv[++i]);
        } else if (arg == "--array-max" && i + 1 < argc) {
            array_max = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
        } else if (arg == "--profile" && i + 2 < argc) {
            // One implementation at one size in this process, for perf.
            const std::string_view which = argv[++i];
            const auto vertices = parse_sizes(argv[++i]).front();
            const Measurement m = which == "ours"  ? run_ours(vertices, min_time)
                                  : which == "bgl" ? run_bgl(vertices, min_time)
                                                   : run_array(vertices, min_time);
            std::printf("%s: %.3f ms per list, %" PRIu64 " lists\n", which.data(),
                        m.seconds_per_list * 1e3, m.lists);
            return 0;
        } else {
            std::fprintf(stderr, "usage: bench_graph [--sizes N,N,...] [--min-time SECONDS] "
                                 "[--array-max N] [--profile ours|bgl|array N]\n");
            return 2;
        }
    }

    const auto floor = in_child(Method::none, 0, 0);
    std::printf(
        "carto distance lists (types MEM|ETH|IB) from %d Slot sources, host-like graphs\n"
        "per list: time of one list (shortest paths + filter + sort by distance, name), best\n"
        "  round of %d lists (1 for O(V^2)) in %.2f s; build: graph, CSR, name ranks (BGL: and\n"
        "  its name index)\n"
        "peak: max RSS of the process that builds the graph and makes the lists (empty: %.1f "
        "MiB)\n"
        "O(V^2): the array method, up to %" PRIu32 " vertices (at 10^5 it takes ~25 s per "
        "list)\n\n",
        source_count, source_count, min_time, floor ? floor->peak_mib : 0.0, array_max);
    std::printf("%8s %8s | %9s %9s %9s %8s | %8s %8s | %8s %8s | %6s %6s %6s | %5s\n", "V", "E",
                "ours ms", "BGL ms", "O(V^2) ms", "BGL/ours", "ours MiB", "BGL MiB", "build s",
                "BGL s", "x ours", "x BGL", "x(V+E)", "agree");
    std::printf("%8s %8s | %9s %9s %9s %8s | %8s %8s | %8s %8s | %6s %6s %6s | %5s\n", "", "",
                "per list", "per list", "per list", "", "peak", "peak", "ours", "build", "", "",
                "logV", "");

    std::optional<ChildResult> prev_ours;
    std::optional<ChildResult> prev_bgl;
    double prev_model = 0;
    bool all_agree = true;
    for (const std::uint32_t vertices : sizes) {
        const auto ours = in_child(Method::ours, vertices, min_time);
        const auto bgl = in_child(Method::bgl, vertices, min_time);
        std::optional<ChildResult> array;
        if (vertices <= array_max) {
            array = in_child(Method::array, vertices, min_time);
        }
        if (!ours || !bgl || (vertices <= array_max && !array)) {
            return 1;
        }
        const double this_model = model(vertices, static_cast<double>(ours->m.edges));
        const bool agree = same_lists(ours->m, bgl->m) && (!array || same_lists(ours->m, array->m));
        all_agree = all_agree && agree;
        std::printf("%8" PRIu32 " %8" PRIu64 " |", vertices, ours->m.edges);
        print_ms(ours);
        print_ms(bgl);
        print_ms(array);
        std::printf(" %8.2f | %8.1f %8.1f | %8.3f %8.3f |",
                    bgl->m.seconds_per_list / ours->m.seconds_per_list, ours->peak_mib,
                    bgl->peak_mib, ours->m.build_seconds, bgl->m.build_seconds);
        if (prev_ours && prev_bgl) {
            std::printf(
                " %6.1f %6.1f %6.1f |", ours->m.seconds_per_list / prev_ours->m.seconds_per_list,
                bgl->m.seconds_per_list / prev_bgl->m.seconds_per_list, this_model / prev_model);
        } else {
            std::printf(" %6s %6s %6s |", "-", "-", "-");
        }
        std::printf(" %5s\n", agree ? "yes" : "NO");
        std::fflush(stdout);
        prev_ours = ours;
        prev_bgl = bgl;
        prev_model = this_model;
    }
    std::printf(
        "\nx: how much the time per list grew from the size above; x(V+E) logV: the same for "
        "the model.\n"
        "  Past the caches (a list's working set is 16 B per vertex + 16 B per edge) every edge\n"
        "  costs a memory access, so the time grows faster than the model, for both.\n"
        "agree: every implementation gave the same lists (checksums of one per source).\n");
    return all_agree ? 0 : 1;
}

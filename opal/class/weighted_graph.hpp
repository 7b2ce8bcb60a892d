// SPDX-License-Identifier: BSD-3-Clause
// A weighted graph with typed vertices and weighted directed edges: the
// host map that carto builds (processors, memory nodes, ports) and the
// shortest-path queries its users ask (distance lists, paths, the graph of
// one interconnect).
//
// Vertices are numbered 0, 1, 2, ... in the order they are added and keep
// their number for the life of the graph (nothing is ever removed).  Names
// are stored once, back to back, and indexed by an open-addressing hash
// table; edges are kept in compressed sparse rows (CSR), merged lazily on
// the first query after edges were added (in place when each vertex's edges
// were added together, in vertex order, as builders do).  Memory: 17 to 25
// bytes per vertex plus its name and a NUL (4 more once a distance list was asked),
// 16 bytes per edge, 4 more per edge until the merge.  A query needs 16
// bytes per vertex plus its queue.
//
// Shortest paths are our own Dijkstra with a radix heap rather than Boost.Graph's
// dijkstra_shortest_paths: measured on the same graphs (test/bench/bench_graph.cc),
// it was faster at every size from 10^3 to 10^6 vertices (1.25 to 1.8 times).
//
// Limits: at most 2^32 - 1 vertices, edges and bytes of names; past them
// add_vertex/add_edge answer an error (never a silent wrap).
//
// Ownership: every answer is a value the caller owns, except name() and
// out_edges(), views into the graph valid until it is next changed.
//
// Thread safety: the mutators (add_vertex, add_edge, assignment) need the
// graph to themselves.  Every const member may be called from several
// threads at once, including the first query after a mutation (the lazy
// merge is synchronized).
#ifndef MERIDIAN_CLASS_WEIGHTED_GRAPH_HPP
#define MERIDIAN_CLASS_WEIGHTED_GRAPH_HPP

#include <meridian/opal/util/require_cxx20.hpp>

#include <atomic>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <meridian/opal/util/result.hpp>

namespace meridian
{

// A vertex's type: one bit each.  The carto framework's C type
// (mca_carto_vertex_type_t) takes the same values, which its base asserts,
// so a C type or mask converts with a static_cast.
enum class VertexType : std::uint32_t {
    slot = 1u << 0,  // a processor, Slot<n>
    mem = 1u << 1,   // a NUMA memory node, MEM<n>
    eth = 1u << 2,   // an Ethernet port
    ib = 1u << 3,    // an InfiniBand / OpenFabrics port
    other = 1u << 4, // anything else
};

// A set of vertex types (an OR of VertexType bits).
using TypeMask = std::uint32_t;
inline constexpr TypeMask all_vertex_types = 0x1f;

constexpr TypeMask type_mask(VertexType type)
{
    return static_cast<TypeMask>(type);
}
constexpr TypeMask operator|(VertexType a, VertexType b)
{
    return type_mask(a) | type_mask(b);
}
constexpr TypeMask operator|(TypeMask a, VertexType b)
{
    return a | type_mask(b);
}

// "SLOT", "MEM", "ETH", "IB" or "OTHER"; "?" for a value that is not one type.
std::string_view vertex_type_name(VertexType type);

// The order of names in every list of this class: natural order, where a
// run of digits compares as a number (Slot2 < Slot10) and everything else
// byte by byte; names equal as numbers fall back to byte order (MEM01 <
// MEM1).  A total order: negative, zero (equal strings only) or positive.
int compare_vertex_names(std::string_view a, std::string_view b);

using VertexId = std::uint32_t;

struct OutEdge {
    VertexId target;
    std::uint64_t weight;
};

// The length of a path, exact.  A path has fewer than 2^32 edges, each
// lighter than 2^64, so its length is below 2^96: two 64-bit words hold it.
// Lengths past UINT64_MAX come only from huge weights (a map that writes
// 18446744073709551615 for "far"); they compare and print exactly, and
// saturated() reads them as UINT64_MAX for callers that keep 64 bits.
class PathLength
{
  public:
    constexpr PathLength() = default;
    // A length that fits 64 bits (a weight, a sum of small ones).
    constexpr PathLength(std::uint64_t value) : low_(value) {}

    // Whether the length is at most UINT64_MAX.
    constexpr bool fits_uint64() const { return high_ == 0; }
    // The length, or UINT64_MAX when it is larger.
    constexpr std::uint64_t saturated() const
    {
        return high_ == 0 ? low_ : std::numeric_limits<std::uint64_t>::max();
    }
    // Adds a weight; never wraps (see the class comment for the bound).
    constexpr PathLength &operator+=(std::uint64_t weight)
    {
        low_ += weight;
        high_ += low_ < weight ? 1 : 0;
        return *this;
    }

    // By value: high_ is declared first, so the memberwise order is the numeric one.
    constexpr auto operator<=>(const PathLength &other) const = default;

  private:
    friend class Distances;
    friend std::string to_string(const PathLength &length);
    friend class WeightedGraph;
    constexpr PathLength(std::uint64_t high, std::uint64_t low) : high_(high), low_(low) {}

    std::uint64_t high_ = 0;
    std::uint64_t low_ = 0;
};

// The length in decimal ("18446744073709551616" for 2^64).
std::string to_string(const PathLength &length);

// Distances from one source to every vertex, indexed by VertexId, exact
// (PathLength).
class Distances
{
  public:
    Distances() = default;
    std::size_t size() const { return entries_.size(); }
    // No value: the vertex cannot be reached from the source.  Precondition: id < size().
    std::optional<PathLength> operator[](VertexId id) const
    {
        if (entries_[id].state == unreached) {
            return std::nullopt;
        }
        return PathLength(high_.empty() ? 0 : high_[id], entries_[id].distance);
    }

  private:
    friend class WeightedGraph;
    static constexpr std::uint32_t unreached = 0;
    static constexpr std::uint32_t queued = 1;
    static constexpr std::uint32_t settled = 2;
    // One record per vertex, so that relaxing an edge touches one cache line.
    struct Entry {
        std::uint64_t distance; // the low 64 bits of the length
        std::uint32_t state;
        VertexId predecessor; // on a shortest path from the source; the source's is itself
    };
    std::vector<Entry> entries_;
    // Each length's bits above 64, when a path passed UINT64_MAX (the query
    // then ran again with two-word lengths); empty when none did.
    std::vector<std::uint64_t> high_;
};

// One line of a distance list.
struct VertexDistance {
    VertexId vertex;
    std::optional<PathLength> distance; // no value: unreachable
};

struct Path {
    std::vector<VertexId> vertices; // from the first vertex to the last, both included
    PathLength length;
};

class WeightedGraph
{
  public:
    WeightedGraph() = default;
    // Copies and moves are of the whole graph; the source of a copy may be
    // read by other threads meanwhile.  A moved-from graph is empty.
    WeightedGraph(const WeightedGraph &other);
    WeightedGraph(WeightedGraph &&other) noexcept;
    WeightedGraph &operator=(const WeightedGraph &other);
    WeightedGraph &operator=(WeightedGraph &&other) noexcept;
    ~WeightedGraph() = default;

    // ------------------------------------------------------------ building

    // Add a vertex; its id is the number of vertices before it.  Amortized
    // O(length of name).  Errors (the graph is unchanged), with their messages:
    //   MERIDIAN_ERR_EXISTS     duplicate vertex "NAME" (already added as TYPE)
    //   MERIDIAN_ERR_BAD_PARAM  empty vertex name
    //   MERIDIAN_ERR_BAD_PARAM  vertex name "NAME" contains a NUL byte
    //   MERIDIAN_ERR_BAD_PARAM  bad vertex type 0xN for "NAME": expected one of SLOT (0x1), ...
    //   MERIDIAN_ERR_OUT_OF_RESOURCE  too many vertices / bytes of vertex names: a graph holds
    //                                 at most N
    // (names in messages are quoted with control characters escaped).
    Result<VertexId> add_vertex(std::string_view name, VertexType type);

    // Add the directed edge from -> to with a weight; any uint64 weight is
    // accepted (path lengths are exact, see PathLength).  Parallel edges and loops are
    // kept as given: a query uses the lightest.  Amortized O(1).  Errors (the
    // graph is unchanged):
    //   MERIDIAN_ERR_NOT_FOUND        no vertex with id N (the graph has M vertices)
    //   MERIDIAN_ERR_OUT_OF_RESOURCE  too many edges: a graph holds at most N
    Status add_edge(VertexId from, VertexId to, std::uint64_t weight);
    // The same by name; an unknown name is the error of vertex_named().
    Status add_edge(std::string_view from, std::string_view to, std::uint64_t weight);

    // ------------------------------------------------------------ vertices

    std::size_t vertex_count() const { return types_.size(); }
    std::size_t edge_count() const { return edge_count_; }

    // The vertex with this name, if any.  O(length of name) expected.
    std::optional<VertexId> find(std::string_view name) const;
    // The same, or MERIDIAN_ERR_NOT_FOUND with the message
    //   unknown vertex "NAME" (did you mean "CLOSEST"?)
    // The suggestion is a name equal but for case, else one a few edits away,
    // else none; looking for it costs O(V) (only on the error path).
    Result<VertexId> vertex_named(std::string_view name) const;

    // Precondition for these: id < vertex_count().  The view lives as long
    // as the graph is not changed; a NUL follows it, so data() is a C string.
    std::string_view name(VertexId id) const;
    VertexType type(VertexId id) const { return static_cast<VertexType>(types_[id]); }

    // The edges leaving a vertex, in the order they were added.  The span
    // lives until the graph is changed.  O(1) (after the lazy merge, O(V+E)).
    // Precondition: id < vertex_count().
    std::span<const OutEdge> out_edges(VertexId id) const;

    // ------------------------------------------------------------ queries
    // A source or target id must be < vertex_count(); otherwise the answer
    // is MERIDIAN_ERR_NOT_FOUND "no vertex with id N (the graph has M vertices)".
    // A type mask with bits outside all_vertex_types is MERIDIAN_ERR_BAD_PARAM.

    // Shortest distances from source to every vertex: Dijkstra with a radix
    // heap, O((V + E) log C) time for C the largest weight (log C <= 64; a
    // queued entry moves down at most that many buckets), against
    // O((V + E) log V) for a binary heap; O(V + E) memory at worst.  A
    // query that meets a path longer than UINT64_MAX runs again with
    // two-word lengths and a binary heap.
    Result<Distances> shortest_distances(VertexId source) const;

    // Every vertex whose type is in mask, with its distance from `from`:
    // the reachable ones nearest first, equal distances in name order
    // (compare_vertex_names), then the unreachable ones in name order.
    // `from` itself is listed (distance 0) when its type is in the mask.
    // Dijkstra as above plus O(V + K log K) for K listed vertices; the first
    // list after vertices were added also ranks all names once, O(V log V).
    Result<std::vector<VertexDistance>> distance_list(VertexId from, TypeMask mask) const;

    // A shortest path from a to b (one of them if several; the same one for
    // the same graph), or no value when b cannot be reached from a.  a == b
    // gives the path [a] of length 0.  Stops as soon as b is settled.
    Result<std::optional<Path>> shortest_path(VertexId a, VertexId b) const;

    // The graph of one interconnect (seed 004, 2.3.3): the vertices whose
    // type is in mask plus every processor (SLOT), and the edges whose two
    // ends are both kept.  Vertices and edges keep their relative order;
    // ids are renumbered (find() by name).  O(V + E).
    Result<WeightedGraph> subgraph(TypeMask mask) const;

  private:
    static constexpr VertexId no_slot = std::numeric_limits<VertexId>::max();

    // Dijkstra from source; stops once stop_at is settled (no_slot: never).
    // In 64 bits; it hands over to wide_dijkstra when a path passes UINT64_MAX.
    Distances dijkstra(VertexId source, VertexId stop_at) const;
    Distances wide_dijkstra(VertexId source, VertexId stop_at) const;
    // Each vertex's position in name order (compare_vertex_names), made on
    // the first distance list after a vertex was added.
    const std::vector<std::uint32_t> &name_ranks() const;
    Error unknown_id(VertexId id) const;
    std::size_t slot_of(std::string_view name) const; // index_ slot holding name, or an empty one
    void grow_index();
    void merge_pending() const; // the lazy CSR merge, if anything is pending
    void copy_from(const WeightedGraph &other);
    void move_from(WeightedGraph &other) noexcept;

    // Names back to back, each followed by a NUL; vertex i's name is
    // [name_end_[i-1] + 1, name_end_[i]) (from 0 for vertex 0).
    std::string names_;
    std::vector<std::uint32_t> name_end_;
    std::vector<std::uint8_t> types_; // a VertexType each (they all fit in a byte)
    // Open addressing, linear probing, size a power of two, at most half full.
    std::vector<VertexId> index_;

    // CSR: the out-edges of v are edges_[first_edge_[v], first_edge_[v+1]).
    // Edges added since the last merge sit after the CSR part of edges_,
    // their sources in pending_from_.  The lazy merge changes these from
    // const members, under merge_mutex_; dirty_ says a merge is due.
    mutable std::vector<std::uint32_t> first_edge_;
    mutable std::vector<OutEdge> edges_;
    mutable std::vector<VertexId> pending_from_;
    mutable std::mutex merge_mutex_;
    mutable std::atomic<bool> dirty_{false};
    // name_ranks(), valid when ranks_ready_; made under merge_mutex_ too.
    mutable std::vector<std::uint32_t> name_rank_;
    mutable std::atomic<bool> ranks_ready_{true};
    std::size_t edge_count_ = 0;
};

} // namespace meridian

#endif

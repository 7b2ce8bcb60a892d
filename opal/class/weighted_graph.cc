// SPDX-License-Identifier: BSD-3-Clause
#include <meridian/opal/class/weighted_graph.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <functional>
#include <queue>
#include <utility>

#include <meridian/opal/util/strings.hpp>

namespace meridian
{

namespace
{

constexpr std::uint64_t max_distance = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t max_edges = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t max_name_bytes = std::numeric_limits<std::uint32_t>::max();

const char *const type_list = "SLOT (0x1), MEM (0x2), ETH (0x4), IB (0x8), OTHER (0x10)";

std::string hex(std::uint32_t value)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%x", static_cast<unsigned>(value));
    return text;
}

bool is_one_type(VertexType type)
{
    const auto bits = static_cast<std::uint32_t>(type);
    return bits != 0 && (bits & (bits - 1)) == 0 && (bits & ~all_vertex_types) == 0;
}

Status check_mask(TypeMask mask)
{
    if ((mask & ~all_vertex_types) != 0) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "bad vertex type mask " + hex(mask) + ": expected an OR of " + type_list);
    }
    return success();
}

bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

// The priority queue of Dijkstra: a radix heap (Ahuja, Mehlhorn, Orlin,
// Tarjan 1990), for integer keys that never go below the last one taken,
// which Dijkstra's keys never do (weights are not negative).  Bucket 0 holds
// keys equal to `last`; bucket i the keys whose highest bit differing from
// `last` is bit i-1.  Taking the minimum empties the lowest non-empty bucket
// into lower ones; an entry only ever moves down, so at most 64 times.
// Measured on random graphs of 10^3 to 10^6 vertices against a binary heap,
// 4- and 8-ary heaps with decrease-key and Boost.Graph's d-ary heap, it was
// the fastest (up to twice as fast at 10^6): its buckets are read and
// written in order, where a heap's sift-down jumps across memory.
// test/bench/bench_graph.cc keeps the comparison with Boost.Graph.
//
// Entries are not updated in place: a vertex whose distance improves is
// pushed again, and stale entries are dropped when met.
class RadixHeap
{
  public:
    struct Entry {
        std::uint64_t key;
        VertexId vertex;
    };

    bool empty() const { return size_ == 0; }

    void push(std::uint64_t key, VertexId vertex)
    {
        buckets_[bucket_of(key)].push_back(Entry{key, vertex});
        ++size_;
    }

    // Precondition: !empty().  is_stale(entry) says an entry may be dropped.
    template <typename IsStale> std::optional<Entry> pop(IsStale is_stale)
    {
        if (buckets_[0].empty()) {
            std::size_t i = 1;
            while (buckets_[i].empty()) {
                ++i;
            }
            std::vector<Entry> &from = buckets_[i];
            std::uint64_t minimum = max_distance;
            for (const Entry &entry : from) {
                minimum = std::min(minimum, entry.key);
            }
            last_ = minimum;
            for (const Entry &entry : from) {
                if (is_stale(entry)) {
                    --size_;
                } else {
                    buckets_[bucket_of(entry.key)].push_back(entry);
                }
            }
            from.clear();
            if (buckets_[0].empty()) {
                return std::nullopt; // all were stale
            }
        }
        const Entry top = buckets_[0].back();
        buckets_[0].pop_back();
        --size_;
        return top;
    }

  private:
    std::size_t bucket_of(std::uint64_t key) const
    {
        return key == last_ ? 0 : 64 - static_cast<std::size_t>(std::countl_zero(key ^ last_));
    }

    std::array<std::vector<Entry>, 65> buckets_;
    std::uint64_t last_ = 0;
    std::size_t size_ = 0;
};

} // namespace

std::string to_string(const PathLength &length)
{
    if (length.fits_uint64()) {
        return std::to_string(length.low_);
    }
    // Long division of four 32-bit limbs (most significant first) by 10^9,
    // nine digits at a time from the right.
    std::array<std::uint32_t, 4> limbs = {
        static_cast<std::uint32_t>(length.high_ >> 32), static_cast<std::uint32_t>(length.high_),
        static_cast<std::uint32_t>(length.low_ >> 32), static_cast<std::uint32_t>(length.low_)};
    constexpr std::uint32_t chunk = 1000000000;
    std::string digits;
    while (std::any_of(limbs.begin(), limbs.end(), [](std::uint32_t l) { return l != 0; })) {
        std::uint64_t remainder = 0;
        for (std::uint32_t &limb : limbs) {
            const std::uint64_t part = (remainder << 32) | limb;
            limb = static_cast<std::uint32_t>(part / chunk);
            remainder = part % chunk;
        }
        for (int i = 0; i < 9; ++i) {
            digits.push_back(static_cast<char>('0' + remainder % 10));
            remainder /= 10;
        }
    }
    while (digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
    }
    return {digits.rbegin(), digits.rend()};
}

std::string_view vertex_type_name(VertexType type)
{
    switch (type) {
    case VertexType::slot:
        return "SLOT";
    case VertexType::mem:
        return "MEM";
    case VertexType::eth:
        return "ETH";
    case VertexType::ib:
        return "IB";
    case VertexType::other:
        return "OTHER";
    }
    return "?";
}

int compare_vertex_names(std::string_view a, std::string_view b)
{
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        if (is_digit(a[i]) && is_digit(b[j])) {
            // Compare the two digit runs as numbers: without leading zeros,
            // the longer is larger, equal lengths compare digit by digit.
            std::size_t a_end = i;
            while (a_end < a.size() && is_digit(a[a_end])) {
                ++a_end;
            }
            std::size_t b_end = j;
            while (b_end < b.size() && is_digit(b[b_end])) {
                ++b_end;
            }
            std::size_t a_start = i;
            while (a_start + 1 < a_end && a[a_start] == '0') {
                ++a_start;
            }
            std::size_t b_start = j;
            while (b_start + 1 < b_end && b[b_start] == '0') {
                ++b_start;
            }
            const std::size_t a_len = a_end - a_start;
            const std::size_t b_len = b_end - b_start;
            if (a_len != b_len) {
                return a_len < b_len ? -1 : 1;
            }
            const int digits = a.substr(a_start, a_len).compare(b.substr(b_start, b_len));
            if (digits != 0) {
                return digits;
            }
            i = a_end;
            j = b_end;
            continue;
        }
        if (a[i] != b[j]) {
            return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
        }
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size()) {
        return i < a.size() ? 1 : -1;
    }
    // Equal as numbers (leading zeros differ): plain byte order decides.
    const int bytes = a.compare(b);
    return bytes < 0 ? -1 : (bytes > 0 ? 1 : 0);
}

// ---------------------------------------------------------------- copy, move

WeightedGraph::WeightedGraph(const WeightedGraph &other)
{
    copy_from(other);
}

WeightedGraph::WeightedGraph(WeightedGraph &&other) noexcept
{
    move_from(other);
}

WeightedGraph &WeightedGraph::operator=(const WeightedGraph &other)
{
    if (this != &other) {
        copy_from(other);
    }
    return *this;
}

WeightedGraph &WeightedGraph::operator=(WeightedGraph &&other) noexcept
{
    if (this != &other) {
        move_from(other);
    }
    return *this;
}

void WeightedGraph::copy_from(const WeightedGraph &other)
{
    // Merged first, so that other's edges stay still while they are copied
    // even if other threads query it.
    other.merge_pending();
    names_ = other.names_;
    name_end_ = other.name_end_;
    types_ = other.types_;
    index_ = other.index_;
    first_edge_ = other.first_edge_;
    edges_ = other.edges_;
    pending_from_.clear();
    edge_count_ = other.edge_count_;
    dirty_.store(false, std::memory_order_release);
    // Not copied: a thread may be making other's right now.  Remade on demand.
    name_rank_.clear();
    ranks_ready_.store(vertex_count() == 0, std::memory_order_release);
}

void WeightedGraph::move_from(WeightedGraph &other) noexcept
{
    names_ = std::exchange(other.names_, {});
    name_end_ = std::exchange(other.name_end_, {});
    types_ = std::exchange(other.types_, {});
    index_ = std::exchange(other.index_, {});
    first_edge_ = std::exchange(other.first_edge_, {});
    edges_ = std::exchange(other.edges_, {});
    pending_from_ = std::exchange(other.pending_from_, {});
    edge_count_ = std::exchange(other.edge_count_, 0);
    dirty_.store(other.dirty_.exchange(false), std::memory_order_release);
    name_rank_ = std::exchange(other.name_rank_, {});
    ranks_ready_.store(other.ranks_ready_.exchange(true), std::memory_order_release);
}

// ---------------------------------------------------------------- vertices

std::string_view WeightedGraph::name(VertexId id) const
{
    // Each name is followed by a NUL (see add_vertex).
    const std::uint32_t start = id == 0 ? 0 : name_end_[id - 1] + 1;
    return std::string_view(names_).substr(start, name_end_[id] - start);
}

std::size_t WeightedGraph::slot_of(std::string_view name) const
{
    const std::size_t mask = index_.size() - 1;
    const std::size_t hash = std::hash<std::string_view>{}(name);
    std::size_t slot = hash & mask;
    while (index_[slot] != no_slot && this->name(index_[slot]) != name) {
        slot = (slot + 1) & mask;
    }
    return slot;
}

void WeightedGraph::grow_index()
{
    std::vector<VertexId> old(std::max<std::size_t>(16, index_.size() * 2), no_slot);
    old.swap(index_);
    for (const VertexId id : old) {
        if (id != no_slot) {
            index_[slot_of(name(id))] = id;
        }
    }
}

std::optional<VertexId> WeightedGraph::find(std::string_view name) const
{
    if (index_.empty()) {
        return std::nullopt;
    }
    const VertexId id = index_[slot_of(name)];
    if (id == no_slot) {
        return std::nullopt;
    }
    return id;
}

Result<VertexId> WeightedGraph::vertex_named(std::string_view name) const
{
    if (const auto id = find(name)) {
        return *id;
    }
    std::string message = "unknown vertex " + util::quoted(name);
    // Names are case-sensitive; a name that differs only in case (slot0 for
    // Slot0) is the likeliest meant, whatever its edit distance.
    std::optional<std::string> suggestion;
    std::vector<std::string> candidates;
    candidates.reserve(vertex_count());
    for (VertexId id = 0; id < vertex_count() && !suggestion; ++id) {
        if (util::iequals(this->name(id), name)) {
            suggestion = std::string(this->name(id));
        }
        candidates.emplace_back(this->name(id));
    }
    if (!suggestion) {
        suggestion = util::closest_match(name, candidates);
    }
    if (suggestion) {
        message += " (did you mean " + util::quoted(*suggestion) + "?)";
    }
    return make_error(MERIDIAN_ERR_NOT_FOUND, std::move(message));
}

Result<VertexId> WeightedGraph::add_vertex(std::string_view name, VertexType type)
{
    if (name.empty()) {
        return make_error(MERIDIAN_ERR_BAD_PARAM, "empty vertex name");
    }
    // C callers see names as C strings; a NUL inside one would cut it short.
    if (name.find('\0') != std::string_view::npos) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "vertex name " + util::quoted(name) + " contains a NUL byte");
    }
    if (!is_one_type(type)) {
        return make_error(MERIDIAN_ERR_BAD_PARAM,
                          "bad vertex type " + hex(static_cast<std::uint32_t>(type)) + " for " +
                              util::quoted(name) + ": expected one of " + type_list);
    }
    if (const auto existing = find(name)) {
        return make_error(MERIDIAN_ERR_EXISTS,
                          "duplicate vertex " + util::quoted(name) + " (already added as " +
                              std::string(vertex_type_name(this->type(*existing))) + ")");
    }
    // no_slot marks an empty index slot, so it is never an id.
    if (vertex_count() >= no_slot) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          "too many vertices: a graph holds at most " + std::to_string(no_slot));
    }
    // + 1: the NUL after the name.
    if (name.size() + 1 > max_name_bytes - names_.size()) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          "too many bytes of vertex names: a graph holds at most " +
                              std::to_string(max_name_bytes));
    }
    if ((vertex_count() + 1) * 2 > index_.size()) {
        grow_index();
    }
    const auto id = static_cast<VertexId>(vertex_count());
    names_.append(name);
    name_end_.push_back(static_cast<std::uint32_t>(names_.size()));
    names_.push_back('\0'); // so that name(id).data() is a C string

    types_.push_back(static_cast<std::uint8_t>(type));
    index_[slot_of(name)] = id;
    dirty_.store(true, std::memory_order_release);
    ranks_ready_.store(false, std::memory_order_release);
    return id;
}

// ---------------------------------------------------------------- edges

Error WeightedGraph::unknown_id(VertexId id) const
{
    const std::size_t count = vertex_count();
    return make_error(MERIDIAN_ERR_NOT_FOUND, "no vertex with id " + std::to_string(id) +
                                                  " (the graph has " + std::to_string(count) +
                                                  (count == 1 ? " vertex)" : " vertices)"));
}

Status WeightedGraph::add_edge(VertexId from, VertexId to, std::uint64_t weight)
{
    if (from >= vertex_count()) {
        return unknown_id(from);
    }
    if (to >= vertex_count()) {
        return unknown_id(to);
    }
    if (edge_count_ >= max_edges) {
        return make_error(MERIDIAN_ERR_OUT_OF_RESOURCE,
                          "too many edges: a graph holds at most " + std::to_string(max_edges));
    }
    edges_.push_back(OutEdge{to, weight});
    pending_from_.push_back(from);
    ++edge_count_;
    dirty_.store(true, std::memory_order_release);
    return success();
}

Status WeightedGraph::add_edge(std::string_view from, std::string_view to, std::uint64_t weight)
{
    const Result<VertexId> from_id = vertex_named(from);
    if (!from_id) {
        return from_id.error();
    }
    const Result<VertexId> to_id = vertex_named(to);
    if (!to_id) {
        return to_id.error();
    }
    return add_edge(*from_id, *to_id, weight);
}

void WeightedGraph::merge_pending() const
{
    if (!dirty_.load(std::memory_order_acquire)) {
        return;
    }
    const std::lock_guard<std::mutex> lock(merge_mutex_);
    if (!dirty_.load(std::memory_order_relaxed)) {
        return; // another thread merged meanwhile
    }
    const std::size_t vertices = vertex_count();
    const std::size_t old_vertices = first_edge_.empty() ? 0 : first_edge_.size() - 1;
    const std::size_t csr_edges = edges_.size() - pending_from_.size();

    std::vector<std::uint32_t> first(vertices + 1, 0);
    for (std::size_t v = 0; v < old_vertices; ++v) {
        first[v + 1] = first_edge_[v + 1] - first_edge_[v];
    }
    for (const VertexId from : pending_from_) {
        ++first[from + 1];
    }
    for (std::size_t v = 0; v < vertices; ++v) {
        first[v + 1] += first[v];
    }

    // Builders usually add a vertex's edges together, in vertex order: then
    // the new edges already sit where the CSR wants them and nothing moves.
    const bool in_place = std::is_sorted(pending_from_.begin(), pending_from_.end()) &&
                          (pending_from_.empty() || pending_from_.front() + 1 >= old_vertices ||
                           first_edge_[pending_from_.front() + 1] == csr_edges);
    if (!in_place) {
        std::vector<OutEdge> merged(edges_.size());
        std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
        for (std::size_t v = 0; v < old_vertices; ++v) {
            std::copy(edges_.begin() + first_edge_[v], edges_.begin() + first_edge_[v + 1],
                      merged.begin() + next[v]);
            next[v] += first_edge_[v + 1] - first_edge_[v];
        }
        for (std::size_t i = 0; i < pending_from_.size(); ++i) {
            merged[next[pending_from_[i]]++] = edges_[csr_edges + i];
        }
        edges_.swap(merged);
    } else if (edges_.capacity() - edges_.size() > edges_.size() / 4) {
        edges_.shrink_to_fit(); // give back what growth by doubling left over
    }
    first_edge_.swap(first);
    std::vector<VertexId>().swap(pending_from_);
    dirty_.store(false, std::memory_order_release);
}

std::span<const OutEdge> WeightedGraph::out_edges(VertexId id) const
{
    merge_pending();
    return std::span<const OutEdge>(edges_.data() + first_edge_[id],
                                    first_edge_[id + 1] - first_edge_[id]);
}

// ---------------------------------------------------------------- queries

const std::vector<std::uint32_t> &WeightedGraph::name_ranks() const
{
    if (ranks_ready_.load(std::memory_order_acquire)) {
        return name_rank_;
    }
    const std::lock_guard<std::mutex> lock(merge_mutex_);
    if (!ranks_ready_.load(std::memory_order_relaxed)) {
        // Sort the names themselves (view and id side by side), so that a
        // comparison does not first look up where each name is.
        struct Named {
            std::string_view name;
            VertexId id;
        };
        std::vector<Named> order;
        order.reserve(vertex_count());
        for (VertexId v = 0; v < vertex_count(); ++v) {
            order.push_back(Named{name(v), v});
        }
        std::sort(order.begin(), order.end(), [](const Named &a, const Named &b) {
            return compare_vertex_names(a.name, b.name) < 0;
        });
        name_rank_.assign(vertex_count(), 0);
        for (std::uint32_t rank = 0; rank < order.size(); ++rank) {
            name_rank_[order[rank].id] = rank;
        }
        ranks_ready_.store(true, std::memory_order_release);
    }
    return name_rank_;
}

Distances WeightedGraph::dijkstra(VertexId source, VertexId stop_at) const
{
    merge_pending();
    Distances result;
    std::vector<Distances::Entry> &entry = result.entries_;
    entry.assign(vertex_count(), Distances::Entry{max_distance, Distances::unreached, no_slot});
    entry[source] = Distances::Entry{0, Distances::queued, source};
    const std::uint32_t *const first = first_edge_.data();
    const OutEdge *const edges = edges_.data();
    // Stale: its vertex was settled, or has been queued again nearer since.
    const auto is_stale = [&entry](const RadixHeap::Entry &e) {
        return entry[e.vertex].state == Distances::settled || entry[e.vertex].distance != e.key;
    };
    RadixHeap heap;
    heap.push(0, source);
    while (!heap.empty()) {
        const std::optional<RadixHeap::Entry> top = heap.pop(is_stale);
        if (!top || entry[top->vertex].state == Distances::settled) {
            continue;
        }
        entry[top->vertex].state = Distances::settled;
        if (top->vertex == stop_at) {
            break;
        }
        for (std::uint32_t e = first[top->vertex]; e != first[top->vertex + 1]; ++e) {
            Distances::Entry &target = entry[edges[e].target];
            if (target.state == Distances::settled) {
                continue;
            }
            if (edges[e].weight > max_distance - top->key) {
                // Longer than 64 bits hold.  A queued target is nearer
                // already; a new one needs the exact sum, and so may
                // everything reached through it.
                if (target.state == Distances::unreached) {
                    return wide_dijkstra(source, stop_at);
                }
                continue;
            }
            const std::uint64_t candidate = top->key + edges[e].weight;
            if (target.state == Distances::unreached || candidate < target.distance) {
                target = Distances::Entry{candidate, Distances::queued, top->vertex};
                heap.push(candidate, edges[e].target);
            }
        }
    }
    return result;
}

// The same with two-word lengths and a binary heap: rare (huge weights
// only), so simple rather than fast.
Distances WeightedGraph::wide_dijkstra(VertexId source, VertexId stop_at) const
{
    Distances result;
    std::vector<Distances::Entry> &entry = result.entries_;
    std::vector<std::uint64_t> &high = result.high_;
    entry.assign(vertex_count(), Distances::Entry{0, Distances::unreached, no_slot});
    high.assign(vertex_count(), 0);
    entry[source] = Distances::Entry{0, Distances::queued, source};
    const auto length_of = [&](VertexId v) { return PathLength(high[v], entry[v].distance); };
    using Queued = std::pair<PathLength, VertexId>;
    std::priority_queue<Queued, std::vector<Queued>, std::greater<>> heap;
    heap.emplace(PathLength(), source);
    while (!heap.empty()) {
        const auto [key, vertex] = heap.top();
        heap.pop();
        if (entry[vertex].state == Distances::settled || length_of(vertex) != key) {
            continue; // stale
        }
        entry[vertex].state = Distances::settled;
        if (vertex == stop_at) {
            break;
        }
        for (const OutEdge &edge : out_edges(vertex)) {
            Distances::Entry &target = entry[edge.target];
            if (target.state == Distances::settled) {
                continue;
            }
            PathLength candidate = key;
            candidate += edge.weight;
            if (target.state == Distances::unreached || candidate < length_of(edge.target)) {
                target = Distances::Entry{candidate.low_, Distances::queued, vertex};
                high[edge.target] = candidate.high_;
                heap.emplace(candidate, edge.target);
            }
        }
    }
    return result;
}

Result<Distances> WeightedGraph::shortest_distances(VertexId source) const
{
    if (source >= vertex_count()) {
        return unknown_id(source);
    }
    return dijkstra(source, no_slot);
}

Result<std::vector<VertexDistance>> WeightedGraph::distance_list(VertexId from, TypeMask mask) const
{
    if (from >= vertex_count()) {
        return unknown_id(from);
    }
    if (Status checked = check_mask(mask); !checked) {
        return checked.error();
    }
    const Distances distances = dijkstra(from, no_slot);
    const std::vector<std::uint32_t> &rank = name_ranks();

    // Sorted on integers only: ties go by the names' precomputed ranks.
    struct Item {
        std::uint64_t distance; // its low 64 bits
        std::uint32_t rank;
        VertexId vertex;
    };
    std::vector<Item> reachable;
    std::vector<Item> unreachable;
    for (VertexId v = 0; v < vertex_count(); ++v) {
        if ((types_[v] & mask) == 0) {
            continue;
        }
        const Distances::Entry &entry = distances.entries_[v];
        (entry.state == Distances::unreached ? unreachable : reachable)
            .push_back(Item{entry.distance, rank[v], v});
    }
    const std::vector<std::uint64_t> &high = distances.high_;
    if (high.empty()) {
        std::sort(reachable.begin(), reachable.end(), [](const Item &a, const Item &b) {
            return a.distance != b.distance ? a.distance < b.distance : a.rank < b.rank;
        });
    } else {
        std::sort(reachable.begin(), reachable.end(), [&high](const Item &a, const Item &b) {
            const PathLength x(high[a.vertex], a.distance);
            const PathLength y(high[b.vertex], b.distance);
            return x != y ? x < y : a.rank < b.rank;
        });
    }
    std::sort(unreachable.begin(), unreachable.end(),
              [](const Item &a, const Item &b) { return a.rank < b.rank; });

    std::vector<VertexDistance> list;
    list.reserve(reachable.size() + unreachable.size());
    for (const Item &item : reachable) {
        list.push_back(VertexDistance{item.vertex, distances[item.vertex]});
    }
    for (const Item &item : unreachable) {
        list.push_back(VertexDistance{item.vertex, std::nullopt});
    }
    return list;
}

Result<std::optional<Path>> WeightedGraph::shortest_path(VertexId a, VertexId b) const
{
    if (a >= vertex_count()) {
        return unknown_id(a);
    }
    if (b >= vertex_count()) {
        return unknown_id(b);
    }
    const Distances distances = dijkstra(a, b);
    const std::vector<Distances::Entry> &entry = distances.entries_;
    if (entry[b].state == Distances::unreached) {
        return std::optional<Path>();
    }
    Path path;
    path.length = *distances[b];
    for (VertexId v = b; v != a; v = entry[v].predecessor) {
        path.vertices.push_back(v);
    }
    path.vertices.push_back(a);
    std::reverse(path.vertices.begin(), path.vertices.end());
    return std::optional<Path>(std::move(path));
}

Result<WeightedGraph> WeightedGraph::subgraph(TypeMask mask) const
{
    if (Status checked = check_mask(mask); !checked) {
        return checked.error();
    }
    const TypeMask kept = mask | VertexType::slot;
    merge_pending();
    WeightedGraph sub;
    std::vector<VertexId> renumbered(vertex_count(), no_slot);
    for (VertexId v = 0; v < vertex_count(); ++v) {
        if ((types_[v] & kept) != 0) {
            // Cannot fail: the names are already unique and within the limits.
            renumbered[v] = *sub.add_vertex(name(v), type(v));
        }
    }
    for (VertexId v = 0; v < vertex_count(); ++v) {
        if (renumbered[v] == no_slot) {
            continue;
        }
        for (std::uint32_t e = first_edge_[v]; e != first_edge_[v + 1]; ++e) {
            const VertexId target = renumbered[edges_[e].target];
            if (target != no_slot) {
                (void)sub.add_edge(renumbered[v], target, edges_[e].weight);
            }
        }
    }
    return sub;
}

} // namespace meridian

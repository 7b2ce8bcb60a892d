// SPDX-License-Identifier: BSD-3-Clause
// The C API over meridian::WeightedGraph (base.h, and the building calls of
// carto.h).  Every call catches what C++ may throw (allocation): no exception
// crosses into C.  Answers are single malloc blocks that carry their own
// copies of the names, so they outlive the graph they came from.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "mca/carto/base/carto_base_internal.hpp"
#include <meridian/mca/carto/base/base.h>
#include <meridian/opal/util/c_boundary.hpp>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.hpp>

namespace meridian::carto
{

// The carto module hands WeightedGraph's types across the C boundary
// unchanged (a static_cast each way).
static_assert(type_mask(VertexType::slot) == MCA_CARTO_SLOT);
static_assert(type_mask(VertexType::mem) == MCA_CARTO_MEM);
static_assert(type_mask(VertexType::eth) == MCA_CARTO_ETH);
static_assert(type_mask(VertexType::ib) == MCA_CARTO_IB);
static_assert(type_mask(VertexType::other) == MCA_CARTO_OTHER);
static_assert(all_vertex_types == MCA_CARTO_ALL);

int check_type_mask(unsigned int types)
{
    if (types == 0 || (types & ~static_cast<unsigned int>(all_vertex_types)) != 0) {
        report_error("bad carto vertex type mask 0x" +
                     [types] {
                         char hex[16];
                         std::snprintf(hex, sizeof hex, "%x", types);
                         return std::string(hex);
                     }() +
                     ": expected an OR of MCA_CARTO_SLOT, MCA_CARTO_MEM, MCA_CARTO_ETH, "
                     "MCA_CARTO_IB, MCA_CARTO_OTHER (or MCA_CARTO_ALL)");
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return MERIDIAN_SUCCESS;
}

int hand_out(WeightedGraph graph, mca_carto_graph_t **handle)
{
    auto *made = new (std::nothrow) mca_carto_graph;
    if (made == nullptr) {
        return MERIDIAN_ERR_OUT_OF_RESOURCE;
    }
    made->graph = std::move(graph);
    *handle = made;
    return MERIDIAN_SUCCESS;
}

} // namespace meridian::carto

namespace
{

using meridian::Result;
using meridian::VertexId;
using meridian::WeightedGraph;

// A vertex by name: reports "unknown vertex ..." (with the closest name) when absent.
Result<VertexId> named(const WeightedGraph &graph, const char *name)
{
    if (name == nullptr) {
        return meridian::make_error(MERIDIAN_ERR_BAD_PARAM, "a vertex name is NULL");
    }
    return graph.vertex_named(name);
}

int fail(const meridian::Error &error)
{
    meridian::report_error(error.message);
    return error.status;
}

} // namespace

extern "C" {

int meridian_mca_carto_graph_add_vertex(mca_carto_graph_t *graph, const char *name,
                                        mca_carto_vertex_type_t type)
{
    if (graph == nullptr || name == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    const int given = meridian::c_enum_value(type);
    return meridian::c_boundary(__func__, [&]() -> int {
        const auto added = graph->graph.add_vertex(name, static_cast<meridian::VertexType>(given));
        return added ? MERIDIAN_SUCCESS : fail(added.error());
    });
}

int meridian_mca_carto_graph_add_edge(mca_carto_graph_t *graph, const char *from, const char *to,
                                      uint64_t weight)
{
    if (graph == nullptr || from == nullptr || to == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary(__func__, [&]() -> int {
        const auto added =
            graph->graph.add_edge(std::string_view(from), std::string_view(to), weight);
        return added ? MERIDIAN_SUCCESS : fail(added.error());
    });
}

mca_carto_graph_t *meridian_mca_carto_graph_new(void)
{
    return meridian::c_boundary(__func__, meridian::CFailure<mca_carto_graph_t *>{nullptr, nullptr},
                                [] { return new mca_carto_graph; });
}

void meridian_mca_carto_graph_free(mca_carto_graph_t *graph)
{
    delete graph;
}

size_t meridian_mca_carto_graph_vertex_count(const mca_carto_graph_t *graph)
{
    return graph != nullptr ? graph->graph.vertex_count() : 0;
}

size_t meridian_mca_carto_graph_edge_count(const mca_carto_graph_t *graph)
{
    return graph != nullptr ? graph->graph.edge_count() : 0;
}

const char *meridian_mca_carto_graph_vertex_name(const mca_carto_graph_t *graph, size_t index)
{
    if (graph == nullptr || index >= graph->graph.vertex_count()) {
        return nullptr;
    }
    // The graph keeps a NUL after every name (WeightedGraph::name).
    return graph->graph.name(static_cast<VertexId>(index)).data();
}

mca_carto_vertex_type_t meridian_mca_carto_graph_vertex_type(const mca_carto_graph_t *graph,
                                                             size_t index)
{
    if (graph == nullptr || index >= graph->graph.vertex_count()) {
        return static_cast<mca_carto_vertex_type_t>(0);
    }
    return static_cast<mca_carto_vertex_type_t>(graph->graph.type(static_cast<VertexId>(index)));
}

int meridian_mca_carto_graph_find_vertex(const mca_carto_graph_t *graph, const char *name,
                                         size_t *index)
{
    if (graph == nullptr || name == nullptr || index == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary(__func__, [&] {
        const auto found = graph->graph.find(name);
        if (!found) {
            return MERIDIAN_ERR_NOT_FOUND;
        }
        *index = *found;
        return MERIDIAN_SUCCESS;
    });
}

int meridian_mca_carto_graph_distance_list(const mca_carto_graph_t *graph, const char *from,
                                           unsigned int types, mca_carto_distance_t **list,
                                           size_t *count)
{
    if (list == nullptr || count == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    *list = nullptr;
    *count = 0;
    if (graph == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary(__func__, [&]() -> int {
        if (const int rc = meridian::carto::check_type_mask(types); rc != MERIDIAN_SUCCESS) {
            return rc;
        }
        const WeightedGraph &g = graph->graph;
        const auto source = named(g, from);
        if (!source) {
            return fail(source.error());
        }
        const auto lines = g.distance_list(*source, types);
        if (!lines) {
            return fail(lines.error());
        }
        // One block: the entries, then their names, NUL-terminated.
        std::size_t bytes = lines->size() * sizeof(mca_carto_distance_t);
        for (const auto &line : *lines) {
            bytes += g.name(line.vertex).size() + 1;
        }
        auto *const block =
            static_cast<mca_carto_distance_t *>(std::malloc(bytes == 0 ? 1 : bytes));
        if (block == nullptr) {
            return MERIDIAN_ERR_OUT_OF_RESOURCE;
        }
        char *names = reinterpret_cast<char *>(block + lines->size());
        for (std::size_t i = 0; i < lines->size(); ++i) {
            const auto &line = (*lines)[i];
            const std::string_view name = g.name(line.vertex);
            std::memcpy(names, name.data(), name.size());
            names[name.size()] = '\0';
            block[i].vertex = names;
            block[i].type = static_cast<mca_carto_vertex_type_t>(g.type(line.vertex));
            block[i].reachable = line.distance.has_value() ? 1 : 0;
            block[i].distance = line.distance ? line.distance->saturated() : 0;
            block[i].beyond_uint64 = line.distance && !line.distance->fits_uint64() ? 1 : 0;
            names += name.size() + 1;
        }
        *list = block;
        *count = lines->size();
        return MERIDIAN_SUCCESS;
    });
}

void meridian_mca_carto_distance_list_free(mca_carto_distance_t *list, size_t count)
{
    (void)count; // one block, whatever its length
    std::free(list);
}

int meridian_mca_carto_graph_shortest_path(const mca_carto_graph_t *graph, const char *a,
                                           const char *b, mca_carto_path_t **path)
{
    if (path == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    *path = nullptr;
    if (graph == nullptr) {
        return MERIDIAN_ERR_BAD_PARAM;
    }
    return meridian::c_boundary(__func__, [&]() -> int {
        const WeightedGraph &g = graph->graph;
        const auto first = named(g, a);
        if (!first) {
            return fail(first.error());
        }
        const auto last = named(g, b);
        if (!last) {
            return fail(last.error());
        }
        const auto found = g.shortest_path(*first, *last);
        if (!found) {
            return fail(found.error());
        }
        const std::size_t count = found->has_value() ? (*found)->vertices.size() : 0;
        // One block: the struct, the name pointers, the names.
        std::size_t bytes = sizeof(mca_carto_path_t) + count * sizeof(const char *);
        for (std::size_t i = 0; i < count; ++i) {
            bytes += g.name((*found)->vertices[i]).size() + 1;
        }
        void *const block = std::malloc(bytes);
        if (block == nullptr) {
            return MERIDIAN_ERR_OUT_OF_RESOURCE;
        }
        auto *const answer = static_cast<mca_carto_path_t *>(block);
        auto **const pointers = reinterpret_cast<const char **>(answer + 1);
        char *names = reinterpret_cast<char *>(pointers + count);
        for (std::size_t i = 0; i < count; ++i) {
            const std::string_view name = g.name((*found)->vertices[i]);
            std::memcpy(names, name.data(), name.size());
            names[name.size()] = '\0';
            pointers[i] = names;
            names += name.size() + 1;
        }
        answer->reachable = found->has_value() ? 1 : 0;
        answer->length = found->has_value() ? (*found)->length.saturated() : 0;
        answer->beyond_uint64 = found->has_value() && !(*found)->length.fits_uint64() ? 1 : 0;
        answer->count = count;
        answer->vertices = pointers;
        *path = answer;
        return MERIDIAN_SUCCESS;
    });
}

void meridian_mca_carto_path_free(mca_carto_path_t *path)
{
    std::free(path);
}

unsigned int meridian_mca_carto_type_from_name(const char *name)
{
    if (name == nullptr) {
        return 0;
    }
    return meridian::c_boundary(__func__, meridian::CFailure<unsigned int>{0, 0}, [name] {
        return meridian::carto::parse_type_name(name).value_or(0);
    });
}

} // extern "C"

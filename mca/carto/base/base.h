/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The carto framework's API for its users (C).  C++ callers have the same in
 * mca/carto/base/base.hpp, over meridian::WeightedGraph.
 *
 *   meridian_init(&argc, &argv);                  parameters, components
 *   mca_carto_graph_t *graph;
 *   meridian_mca_carto_base_get_host_graph(MCA_CARTO_MEM, &graph);
 *   mca_carto_distance_t *list; size_t n;
 *   meridian_mca_carto_graph_distance_list(graph, "Slot1", MCA_CARTO_MEM, &list, &n);
 *   ... list[i].vertex, list[i].distance, list[i].reachable ...
 *   meridian_mca_carto_distance_list_free(list, n);
 *   meridian_mca_carto_graph_free(graph);
 *
 * The first call that needs the host's map opens the carto framework (if
 * nobody has), selects its component and has it map the host; later calls
 * reuse that map until the framework's last close.  Errors are reported once
 * (meridian_report, MERIDIAN_SEVERITY_ERROR: the message names the vertex, the file, the
 * component...) and returned as MERIDIAN_ERR_* codes; on error the out-parameters are set to NULL /
 * 0.  Not thread-safe while the map is being made (the first call); the queries on a graph may run
 * in several threads at once.
 */
#ifndef MERIDIAN_MCA_CARTO_BASE_H
#define MERIDIAN_MCA_CARTO_BASE_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/mca/carto/carto.h>

MERIDIAN_C_API_BEGIN

/* ------------------------------------------------------------ the host map */

/* Map the host now if it is not mapped yet (the calls below do it when
 * needed).  MERIDIAN_ERR_NOT_FOUND when no component accepts. */
int meridian_mca_carto_base_select(void);

/* The name of the component that mapped the host ("file", "auto", ...), or
 * NULL while the host is not mapped. */
const char *meridian_mca_carto_base_selected_component(void);

/* A copy of the host graph of a type, which the caller frees with
 * meridian_mca_carto_graph_free: MCA_CARTO_ALL for the whole graph; a type (or an OR
 * of types) for the vertices of those types plus every processor (SLOT), with
 * the edges between them (seed 004, 2.3.3).  MERIDIAN_ERR_BAD_PARAM for bits
 * outside MCA_CARTO_ALL or no bit at all. */
int meridian_mca_carto_base_get_host_graph(unsigned int types, mca_carto_graph_t **graph);

/* ------------------------------------------------------------ any graph */

/* A new empty graph, for building your own (NULL when out of memory). */
mca_carto_graph_t *meridian_mca_carto_graph_new(void);
void meridian_mca_carto_graph_free(mca_carto_graph_t *graph); /* NULL is fine */

size_t meridian_mca_carto_graph_vertex_count(const mca_carto_graph_t *graph);
size_t meridian_mca_carto_graph_edge_count(const mca_carto_graph_t *graph);

/* Vertices are numbered 0 .. count-1 in the order they were added.  The name
 * stays valid while the graph lives and is not changed; NULL (and 0 for the
 * type) for an index out of range. */
const char *meridian_mca_carto_graph_vertex_name(const mca_carto_graph_t *graph, size_t index);
mca_carto_vertex_type_t meridian_mca_carto_graph_vertex_type(const mca_carto_graph_t *graph,
                                                             size_t index);

/* The index of the vertex with this name: MERIDIAN_ERR_NOT_FOUND (not
 * reported: looking is not an error) when there is none. */
int meridian_mca_carto_graph_find_vertex(const mca_carto_graph_t *graph, const char *name,
                                         size_t *index);

/* One line of a distance list. */
typedef struct mca_carto_distance {
    const char *vertex; /* valid while the list lives */
    mca_carto_vertex_type_t type;
    int reachable;     /* 0: no path from the source; distance is then 0 */
    uint64_t distance; /* sum of the weights along a shortest path, at most UINT64_MAX */
    int beyond_uint64; /* 1: the sum is larger than UINT64_MAX (distance holds UINT64_MAX);
                          the list is still in the order of the exact sums */
} mca_carto_distance_t;

/* Every vertex whose type is in types, with its distance from `from`: the
 * reachable ones nearest first (equal distances by name, Slot2 before
 * Slot10), then the unreachable ones by name.  `from` itself is listed, at
 * distance 0, when its type is in types.  The caller frees the list with
 * meridian_mca_carto_distance_list_free.  MERIDIAN_ERR_NOT_FOUND (reported, with the
 * closest name) for an unknown `from`. */
int meridian_mca_carto_graph_distance_list(const mca_carto_graph_t *graph, const char *from,
                                           unsigned int types, mca_carto_distance_t **list,
                                           size_t *count);
void meridian_mca_carto_distance_list_free(mca_carto_distance_t *list, size_t count);

/* A shortest path from a to b. */
typedef struct mca_carto_path {
    int reachable;               /* 0: b cannot be reached from a; no vertices */
    uint64_t length;             /* sum of the weights, at most UINT64_MAX */
    size_t count;                /* vertices on the path, a and b included */
    const char *const *vertices; /* their names, from a to b */
    int beyond_uint64;           /* 1: the sum is larger than UINT64_MAX (length holds
                                    UINT64_MAX); the path is still a shortest one */
} mca_carto_path_t;

/* MERIDIAN_ERR_NOT_FOUND (reported) when a or b is unknown.  Free the path
 * with meridian_mca_carto_path_free. */
int meridian_mca_carto_graph_shortest_path(const mca_carto_graph_t *graph, const char *a,
                                           const char *b, mca_carto_path_t **path);
void meridian_mca_carto_path_free(mca_carto_path_t *path);

/* ------------------------------------------------------------ names */

/* "SLOT", "MEM", "ETH", "IB", "OTHER", "ALL"; NULL for anything else. */
const char *meridian_mca_carto_type_name(unsigned int types);
/* The inverse, in any case; 0 for a name that is none of them. */
unsigned int meridian_mca_carto_type_from_name(const char *name);

MERIDIAN_C_API_END

#endif

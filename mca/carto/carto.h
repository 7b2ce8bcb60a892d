/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * carto: the host's map as a weighted graph of processors (Slot<n>), memory
 * nodes (MEM<n>) and ports (Ethernet, InfiniBand, ...).  Single-select: the
 * accepting component with the highest priority maps the host.
 *
 * The work is split so that components stay small:
 *
 *   component  maps the host once: it fills an empty graph with vertices and
 *              weighted directed edges (map_host below);
 *   base       owns the map and answers every question about it for every
 *              component alike (mca/carto/base/base.h for C,
 *              mca/carto/base/base.hpp for C++): the whole graph, the graph of
 *              one interconnect type, distance lists, shortest paths, finding
 *              a vertex by name.
 *
 * This header is what a component needs: the vertex types, the module and
 * component structs, and the two calls that build a graph.
 */
#ifndef MERIDIAN_MCA_CARTO_H
#define MERIDIAN_MCA_CARTO_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/mca.h>

MERIDIAN_C_API_BEGIN

/* 2.0: components map the host (map_host); the base answers queries. */
#define MCA_CARTO_BASE_VERSION_MAJOR 2
#define MCA_CARTO_BASE_VERSION_MINOR 0
#define MCA_CARTO_BASE_VERSION_RELEASE 0
#define MCA_CARTO_BASE_VERSION                                                                     \
    {                                                                                              \
        MCA_CARTO_BASE_VERSION_MAJOR, MCA_CARTO_BASE_VERSION_MINOR, MCA_CARTO_BASE_VERSION_RELEASE \
    }

/* Vertex types, one bit each so that they combine into masks.  The graph of
 * one interconnect type keeps that type's vertices plus the processors. */
typedef enum mca_carto_vertex_type {
    MCA_CARTO_SLOT = 1 << 0,  /* a processor (package, socket): Slot<n> */
    MCA_CARTO_MEM = 1 << 1,   /* a memory (NUMA) node: MEM<n> */
    MCA_CARTO_ETH = 1 << 2,   /* an Ethernet port */
    MCA_CARTO_IB = 1 << 3,    /* an InfiniBand / OpenFabrics port */
    MCA_CARTO_OTHER = 1 << 4, /* anything else */
    MCA_CARTO_ALL = 0x1f      /* every type (a mask, not a vertex's type) */
} mca_carto_vertex_type_t;

/* A graph: the host's map, or a part of it.  Opaque; read it with the calls
 * in mca/carto/base/base.h. */
typedef struct mca_carto_graph mca_carto_graph_t;

/* Building a graph (what map_host does).  Both return MERIDIAN_SUCCESS or an
 * error code after reporting the reason (meridian_report with MERIDIAN_SEVERITY_ERROR), leaving the
 * graph as it was: add_vertex: MERIDIAN_ERR_EXISTS for a name already added, MERIDIAN_ERR_BAD_PARAM
 * for an empty or NULL name or a type that is not exactly one of the types above; add_edge:
 * MERIDIAN_ERR_NOT_FOUND for an endpoint not added yet. An edge is directed (from -> to); add both
 * for a link that works both ways.  Weights are any uint64_t; paths are compared by their exact
 * lengths, which base.h reports as UINT64_MAX with a flag when they are longer.
 */
int meridian_mca_carto_graph_add_vertex(mca_carto_graph_t *graph, const char *name,
                                        mca_carto_vertex_type_t type);
int meridian_mca_carto_graph_add_edge(mca_carto_graph_t *graph, const char *from, const char *to,
                                      uint64_t weight);

typedef struct mca_carto_base_module mca_carto_base_module_t;

struct mca_carto_base_module {
    /* Map the host into graph, which is empty.  Called once per framework
     * open, the first time someone asks for the map.  On failure report why
     * (meridian_report with MERIDIAN_SEVERITY_ERROR) and return an error code: the base then
     * discards the partial graph and every query answers that error. */
    int (*map_host)(const mca_carto_base_module_t *self, mca_carto_graph_t *graph);
};

typedef struct mca_carto_base_component {
    mca_base_component_t base;
} mca_carto_base_component_t;

extern mca_base_framework_t meridian_carto_base_framework;

MERIDIAN_C_API_END

#endif

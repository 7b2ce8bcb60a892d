/*
 * carto: the host's map as a weighted graph of processors (Slot<n>), memory
 * nodes (MEM<n>) and ports (Ethernet, InfiniBand, ...).  Single-select: the
 * component with the highest priority provides the host graph.
 *
 * The module answers in plain C types; graphs and lists it returns are owned
 * by the caller and freed with the module's matching free call.
 */
#ifndef MERIDIAN_MCA_CARTO_H
#define MERIDIAN_MCA_CARTO_H

#include <stddef.h>
#include <stdint.h>

#include "opal/mca/base/mca_base_framework.h"
#include "opal/mca/mca.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCA_CARTO_BASE_VERSION_MAJOR 1
#define MCA_CARTO_BASE_VERSION_MINOR 0
#define MCA_CARTO_BASE_VERSION_RELEASE 0
#define MCA_CARTO_BASE_VERSION                                                                 \
    {MCA_CARTO_BASE_VERSION_MAJOR, MCA_CARTO_BASE_VERSION_MINOR, MCA_CARTO_BASE_VERSION_RELEASE}

/* Vertex types; a per-interconnect graph keeps its type plus the processors. */
typedef enum mca_carto_vertex_type {
    MCA_CARTO_SLOT = 1 << 0,
    MCA_CARTO_MEM = 1 << 1,
    MCA_CARTO_ETH = 1 << 2,
    MCA_CARTO_IB = 1 << 3,
    MCA_CARTO_OTHER = 1 << 4,
    MCA_CARTO_ALL = 0x1f
} mca_carto_vertex_type_t;

/* A graph the caller owns (opaque; see the carto base for its accessors). */
typedef struct mca_carto_graph mca_carto_graph_t;

typedef struct mca_carto_distance {
    const char *vertex; /* valid while the list lives */
    mca_carto_vertex_type_t type;
    uint64_t distance;
    int reachable; /* 0: no path; distance is then meaningless */
} mca_carto_distance_t;

typedef struct mca_carto_base_module {
    /* The whole host graph, or the graph of one interconnect type. */
    int (*get_graph)(mca_carto_vertex_type_t type, mca_carto_graph_t **graph);
    void (*free_graph)(mca_carto_graph_t *graph);
    /* Distances from a vertex to every vertex of a type, nearest first. */
    int (*distance_list)(const char *from, mca_carto_vertex_type_t type,
                         mca_carto_distance_t **list, size_t *count);
    void (*free_distance_list)(mca_carto_distance_t *list, size_t count);
} mca_carto_base_module_t;

typedef struct mca_carto_base_component {
    mca_base_component_t base;
} mca_carto_base_component_t;

extern mca_base_framework_t meridian_carto_base_framework;

#ifdef __cplusplus
}
#endif

#endif

/*
 * coord: network coordinates of processes, views, shape and the relative
 * cost of communication.  Single-select.
 */
#ifndef MERIDIAN_MCA_COORD_H
#define MERIDIAN_MCA_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "opal/mca/base/mca_base_framework.h"
#include "opal/mca/mca.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MCA_COORD_BASE_VERSION_MAJOR 1
#define MCA_COORD_BASE_VERSION_MINOR 0
#define MCA_COORD_BASE_VERSION_RELEASE 0
#define MCA_COORD_BASE_VERSION                                                                 \
    {MCA_COORD_BASE_VERSION_MAJOR, MCA_COORD_BASE_VERSION_MINOR, MCA_COORD_BASE_VERSION_RELEASE}

/* Views, with the values PMIx gives them. */
typedef uint8_t meridian_coord_view_t;
#define MERIDIAN_COORD_VIEW_UNDEF 0x00
#define MERIDIAN_COORD_LOGICAL_VIEW 0x01
#define MERIDIAN_COORD_PHYSICAL_VIEW 0x02

/* Laid out like pmix_coord_t: view, coordinates, number of dimensions. */
typedef struct meridian_coord {
    meridian_coord_view_t view;
    uint32_t *coord;
    size_t dims;
} meridian_coord_t;

typedef struct mca_coord_base_module {
    /* Coordinates of a process on a plane (NULL: every plane), nearest NIC first. */
    int (*coordinates)(int rank, const char *plane, meridian_coord_view_t view,
                       meridian_coord_t **coords, size_t *count);
    /* Relative cost of sending from one process to another (hops). */
    int (*cost)(int from_rank, int to_rank, uint64_t *cost);
} mca_coord_base_module_t;

typedef struct mca_coord_base_component {
    mca_base_component_t base;
} mca_coord_base_component_t;

extern mca_base_framework_t meridian_coord_base_framework;

#ifdef __cplusplus
}
#endif

#endif

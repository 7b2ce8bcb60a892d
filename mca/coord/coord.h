/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coord: network coordinates of NICs and processes, the views they are given
 * in, each plane's shape, and the relative cost of communication.
 *
 * Multi-select by plane: every accepting component takes part, best priority
 * first, and each plane of the fabric is placed by the first module that
 * accepts it (compute_plane returning anything but TAKE_NEXT_OPTION).  A
 * fabric with an Ethernet plane and a torus plane thus gets coord_tcp's
 * coordinates on one and coord_torus's on the other.
 *
 *   component  places one plane: a coordinate for each of its NICs in the
 *              views it provides, and the plane's shape; says how many hops
 *              apart two of its NICs are;
 *   base       holds the coordinates and answers every query for every
 *              component alike (mca/coord/base/base.h for C, base.hpp for
 *              C++): a process's coordinates (nearest NIC first), view,
 *              dims, planes, NICs, endpoints, shape, the cost between two
 *              processes, and the coordinates-updated event.
 *
 * Threads: compute_plane is called while a context is placed, one plane
 * after the other, from the thread that sets the context (pnet's allocate, or
 * meridian_init in in-job mode); nic_cost may then be called from any number
 * of threads at once and must only read the context.  Queries through the
 * base may run in several threads once the context is placed; placing a new
 * context (and firing the updated event) must not overlap them.  Every call
 * is a C boundary (opal/util/c_boundary.hpp): no exception leaves it.
 */
#ifndef MERIDIAN_MCA_COORD_H
#define MERIDIAN_MCA_COORD_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/opal/class/coordinate.h>
#include <meridian/opal/mca/base/mca_base_framework.h>
#include <meridian/opal/mca/mca.h>

MERIDIAN_C_API_BEGIN

/* 2.0: components place planes; the base answers queries. */
#define MCA_COORD_BASE_VERSION_MAJOR 2
#define MCA_COORD_BASE_VERSION_MINOR 0
#define MCA_COORD_BASE_VERSION_RELEASE 0
#define MCA_COORD_BASE_VERSION                                                                     \
    {                                                                                              \
        MCA_COORD_BASE_VERSION_MAJOR, MCA_COORD_BASE_VERSION_MINOR, MCA_COORD_BASE_VERSION_RELEASE \
    }

/* The fabric and job being placed, and the tables a module fills.  Opaque
 * to C; C++ components read it through mca/coord/base/base.hpp. */
typedef struct mca_coord_context mca_coord_context_t;

/* Filling the tables (what compute_plane does).  The view is any value
 * (LOGICAL and PHYSICAL are the usual ones); coordinates of one plane and
 * view must all have the plane's dims in that view, set first with
 * set_shape.  MERIDIAN_ERR_BAD_PARAM (reported) for a NIC not on the plane
 * being placed or dims that disagree with the shape. */
int meridian_mca_coord_context_set_shape(mca_coord_context_t *context, uint32_t plane,
                                         meridian_coord_view_t view, const uint32_t *shape,
                                         size_t dims);
int meridian_mca_coord_context_set_nic(mca_coord_context_t *context, uint32_t nic,
                                       meridian_coord_view_t view, const uint32_t *coord,
                                       size_t dims);

typedef struct mca_coord_base_module mca_coord_base_module_t;

struct mca_coord_base_module {
    /* Place one plane (an index into the fabric's planes): its shape and the
     * coordinates of its NICs in each view the module provides.  Return
     * MERIDIAN_ERR_TAKE_NEXT_OPTION to leave the plane to the next module;
     * any other error is reported by the module and fails the placement. */
    int (*compute_plane)(const mca_coord_base_module_t *self, mca_coord_context_t *context,
                         uint32_t plane);
    /* Hops from NIC a to NIC b, both on a plane this module placed. */
    int (*nic_cost)(const mca_coord_base_module_t *self, const mca_coord_context_t *context,
                    uint32_t nic_a, uint32_t nic_b, uint64_t *hops);
};

typedef struct mca_coord_base_component {
    mca_base_component_t base;
} mca_coord_base_component_t;

extern mca_base_framework_t meridian_coord_base_framework;

MERIDIAN_C_API_END

#endif

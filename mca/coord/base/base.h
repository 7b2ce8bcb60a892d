/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The coord framework's C API: the same queries as base.hpp.  Every call
 * returns MERIDIAN_SUCCESS or an error code, after reporting the reason.
 * Arrays handed out are the caller's: coordinates with meridian_coord_free,
 * per-plane arrays with their own _free call, everything else with free()
 * (string arrays: each string, then the array).
 */
#ifndef MERIDIAN_MCA_COORD_BASE_BASE_H
#define MERIDIAN_MCA_COORD_BASE_BASE_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/mca/coord/coord.h>

MERIDIAN_C_API_BEGIN

#define MERIDIAN_NETWORK_COORDINATE "pmix.net.coord"
#define MERIDIAN_NETWORK_VIEW "pmix.net.view"
#define MERIDIAN_NETWORK_DIMS "pmix.net.dims"
#define MERIDIAN_NETWORK_PLANE "pmix.net.plane"
#define MERIDIAN_NETWORK_NIC "pmix.net.nic"
#define MERIDIAN_NETWORK_ENDPT "pmix.net.endpt"
#define MERIDIAN_NETWORK_SHAPE "pmix.net.shape"

/* plane: NULL or "" for every plane.  view UNDEF means logical. */
int meridian_coord_get_coordinates(uint32_t rank, const char *plane, meridian_coord_view_t view,
                                   meridian_coord_t **coords, size_t *count);
int meridian_coord_get_dims(const char *plane, meridian_coord_view_t view, uint32_t **dims,
                            size_t *count);
int meridian_coord_get_planes(char ***planes, size_t *count);
/* The NICs of one plane ("node:nic").  plane NULL or "": the only plane
 * (MERIDIAN_ERR_BAD_PARAM when there are several; every plane's NICs:
 * meridian_coord_get_plane_nics). */
int meridian_coord_get_nics(const char *plane, char ***nics, size_t *count);
int meridian_coord_get_endpoints(uint32_t rank, char ***endpoints, size_t *count);
/* plane NULL or "": the only plane (MERIDIAN_ERR_BAD_PARAM when there are
 * several; every plane's shape: meridian_coord_get_shapes). */
int meridian_coord_get_shape(const char *plane, meridian_coord_view_t view, uint32_t **shape,
                             size_t *dims);
int meridian_coord_get_cost(uint32_t from, uint32_t to, uint64_t *cost);

/* Every plane, in plane order, with its NICs or its shape in a view (what
 * pmix.net.nic and pmix.net.shape answer when no plane is given).  A plane
 * without the view has dims 0 and shape NULL; no plane with it is
 * MERIDIAN_ERR_NOT_SUPPORTED.  Free the arrays with the matching _free call
 * (NULL is ignored). */
typedef struct meridian_coord_plane_nics {
    char *plane;
    char **nics; /* "node:nic"; NULL when count is 0 */
    size_t count;
} meridian_coord_plane_nics_t;
typedef struct meridian_coord_plane_shape {
    char *plane;
    uint32_t *shape; /* NULL when dims is 0 */
    size_t dims;
} meridian_coord_plane_shape_t;
int meridian_coord_get_plane_nics(meridian_coord_plane_nics_t **planes, size_t *count);
void meridian_coord_plane_nics_free(meridian_coord_plane_nics_t *planes, size_t count);
int meridian_coord_get_shapes(meridian_coord_view_t view, meridian_coord_plane_shape_t **shapes,
                              size_t *count);
void meridian_coord_plane_shapes_free(meridian_coord_plane_shape_t *shapes, size_t count);

/* One NIC, named as pmix.net.nic qualifies a request: "node:nic" as
 * meridian_coord_get_nics names it, or the NIC's name alone for the NIC of
 * that name on the node of process `rank` (the full form is tried first).
 * An unknown NIC is MERIDIAN_ERR_NOT_FOUND, reported with the close names
 * ("unknown NIC \"a:eht0\" (close: a:eth0, a:ib0)").
 *
 * meridian_coord_get_nic: its full name and its plane (either may be NULL).
 * meridian_coord_get_nic_coordinate: its coordinate in a view of its plane;
 *   free with meridian_coord_free(*coord, 1).
 * meridian_coord_get_nic_shape: its plane's shape in a view (*dims values).
 * meridian_coord_get_nic_endpoints: process rank's endpoints on it (the
 *   NIC must be on the process's node); MERIDIAN_ERR_NOT_SUPPORTED when
 *   that cannot be known (the NIC has no address, or an endpoint is not
 *   IPV4-ADDRESS:PORT). */
int meridian_coord_get_nic(uint32_t rank, const char *nic, char **name, char **plane);
int meridian_coord_get_nic_coordinate(uint32_t rank, const char *nic, meridian_coord_view_t view,
                                      meridian_coord_t **coord);
int meridian_coord_get_nic_shape(uint32_t rank, const char *nic, meridian_coord_view_t view,
                                 uint32_t **shape, size_t *dims);
int meridian_coord_get_nic_endpoints(uint32_t rank, const char *nic, char ***endpoints,
                                     size_t *count);

/* The coordinates-updated event as a PMIx event, for every process of the
 * job when a process places changed coordinates (in-job mode; range:
 * parameter coord_base_event_range).  PMIx 4.2 defines no
 * PMIX_NETWORK_COORDS_UPDATED, so the code is Meridian's, below
 * PMIX_EXTERNAL_ERR_BASE (-3000) as PMIx asks of codes defined elsewhere.
 * Its info: "pmix.net.plane" the affected planes (an array of strings),
 * "pmix.net.coord" the notifying process's coordinates after the change
 * (an array of pmix_coord_t, every plane, logical view), and
 * MERIDIAN_NETWORK_FABRIC the new fabric (fabric-file text), from which
 * every Meridian process places the new coordinates before its next coord
 * call, then calls the callbacks below, and MERIDIAN_NETWORK_FROM the rank
 * of the process that changed them (PMIX_UINT64).  The event's PMIx source
 * is that process on its own node; on another node (range job) it is the
 * node's relay, its lowest rank, which PMIx names as the notifier. */
#define MERIDIAN_NETWORK_COORDS_UPDATED (-3101)
#define MERIDIAN_NETWORK_FABRIC "meridian.net.fabric"
#define MERIDIAN_NETWORK_FROM "meridian.net.from"

/* The coordinates-updated event: fn(planes, count, context) with the
 * affected planes it registered for; plane NULL or "" registers for all.
 * *handle identifies the registration for deregistering. */
typedef void (*meridian_coord_updated_fn)(const char *const *planes, size_t count, void *context);
int meridian_coord_register_updated(const char *plane, meridian_coord_updated_fn fn, void *context,
                                    int *handle);
int meridian_coord_deregister_updated(int handle);

MERIDIAN_C_API_END

#endif

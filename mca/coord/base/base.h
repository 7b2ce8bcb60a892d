/*
 * The coord framework's C API: the same queries as base.hpp.  Every call
 * returns MERIDIAN_SUCCESS or an error code, after reporting the reason.
 * Arrays handed out are the caller's: coordinates with meridian_coord_free,
 * everything else with free() (string arrays: each string, then the array).
 */
#ifndef MERIDIAN_MCA_COORD_BASE_BASE_H
#define MERIDIAN_MCA_COORD_BASE_BASE_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/mca/coord/coord.h>

#ifdef __cplusplus
extern "C" {
#endif

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
/* The NICs of one plane ("node:nic"). */
int meridian_coord_get_nics(const char *plane, char ***nics, size_t *count);
int meridian_coord_get_endpoints(uint32_t rank, char ***endpoints, size_t *count);
int meridian_coord_get_shape(const char *plane, meridian_coord_view_t view, uint32_t **shape,
                             size_t *dims);
int meridian_coord_get_cost(uint32_t from, uint32_t to, uint64_t *cost);

/* The coordinates-updated event: fn(planes, count, context) with the
 * affected planes it registered for; plane NULL or "" registers for all.
 * *handle identifies the registration for deregistering. */
typedef void (*meridian_coord_updated_fn)(const char *const *planes, size_t count, void *context);
int meridian_coord_register_updated(const char *plane, meridian_coord_updated_fn fn, void *context,
                                    int *handle);
int meridian_coord_deregister_updated(int handle);

#ifdef __cplusplus
}
#endif

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Network coordinates, laid out like PMIx's pmix_coord_t (PMIx standard,
 * chapter "Network Coordinates"): the fabric and plane the coordinate is on,
 * its view, and `dims` unsigned coordinates.  Coordinates say where a NIC is
 * connected, not how far apart two NICs are; ask coord for the cost.
 *
 * Memory: a constructed coordinate owns fabric, plane and coord (malloc'd);
 * destruct frees them.  The arrays from meridian_coord_create and every query
 * that hands out coordinates are released with meridian_coord_free.
 */
#ifndef MERIDIAN_CLASS_COORDINATE_H
#define MERIDIAN_CLASS_COORDINATE_H

#include <meridian/rename.h>

#include <stddef.h>
#include <stdint.h>

#include <meridian/opal/util/error.h>

MERIDIAN_C_API_BEGIN

/* Views, with PMIx's values.  Not an enum: a launcher may define its own
 * views, and values other than these are passed through untouched. */
typedef uint8_t meridian_coord_view_t;
#define MERIDIAN_COORD_VIEW_UNDEF 0x00
#define MERIDIAN_COORD_LOGICAL_VIEW 0x01
#define MERIDIAN_COORD_PHYSICAL_VIEW 0x02

typedef struct meridian_coord {
    char *fabric; /* e.g. "ethernet"; may be NULL */
    char *plane;  /* the plane's id (e.g. its CIDR); may be NULL */
    meridian_coord_view_t view;
    uint32_t *coord; /* dims values; NULL when dims is 0 */
    size_t dims;
} meridian_coord_t;

/* Every field empty / zero, view UNDEF. */
void meridian_coord_construct(meridian_coord_t *coord);
/* Free what the coordinate owns and construct it again. */
void meridian_coord_destruct(meridian_coord_t *coord);
/* n constructed coordinates (NULL when n is 0 or memory runs out). */
meridian_coord_t *meridian_coord_create(size_t n);
/* Destruct n coordinates and free the array; NULL is ignored. */
void meridian_coord_free(meridian_coord_t *coords, size_t n);
/* A deep copy of src into dst (constructed; its old contents are freed).
 * MERIDIAN_ERR_OUT_OF_RESOURCE leaves dst constructed and empty. */
int meridian_coord_copy(meridian_coord_t *dst, const meridian_coord_t *src);

/* The PMIx spellings. */
#define MERIDIAN_COORD_CONSTRUCT(m) meridian_coord_construct(m)
#define MERIDIAN_COORD_DESTRUCT(m) meridian_coord_destruct(m)
#define MERIDIAN_COORD_CREATE(m, n) ((m) = meridian_coord_create(n))
#define MERIDIAN_COORD_FREE(m, n) meridian_coord_free((m), (n))

MERIDIAN_C_API_END

#endif
